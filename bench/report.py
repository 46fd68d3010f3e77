#!/usr/bin/python3
"""Turn a benchmark results JSON (written by bench/run) into docs/benchmarks.md and PNG plots.

    /usr/bin/python3 bench/report.py RESULTS.json --markdown docs/benchmarks.md --images docs/images

Runs on Debian's system python. The plots need python3-matplotlib; without it the page is
still written (without image links) so a partial setup never loses the numbers.
"""

import argparse
import json
import math
import os
import sys

CLOTH_SOLVERS = ("blender_default", "blender_lowest", "simbake")
RIGID_ORDER = ("tower", "dominoes100", "wall200", "pile100", "pile1000", "pile3000", "heap100", "heap400", "heap1000", "heap3000",
               "joints1000", "stack1000")
DASH = "–"


def fmt_sig(value, digits=3):
    """Three significant figures without exponents (0.287, 12.3, 1860): what a reader compares."""
    if value is None:
        return DASH
    value = float(value)
    if value == 0 or not math.isfinite(value):
        return f"{value:g}"
    decimals = digits - 1 - math.floor(math.log10(abs(value)))
    rounded = round(value, decimals)
    # Rounding can add a digit (9.996 -> 10.0); recount so we still show three.
    decimals = digits - 1 - math.floor(math.log10(abs(rounded))) if rounded else decimals
    return f"{rounded:.{max(decimals, 0)}f}"


def fmt_fixed(value, decimals):
    return DASH if value is None else f"{float(value):.{decimals}f}"


def fmt_mm(metres):
    """Millimetres; drift of a resting tower can be ~1e-9 mm, which fixed notation hides as 0."""
    if metres is None:
        return DASH
    mm = 1e3 * float(metres)
    if mm != 0 and abs(mm) < 0.01:
        return f"{mm:.1e} mm"
    return f"{fmt_sig(mm)} mm"


def cell(text):
    """Pipes in free text (labels, notes) would split a markdown table cell."""
    return str(text).replace("|", "\\|")


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def rigid_cases(rigid):
    """Known cases in their natural (growing) order, anything unexpected after them."""
    known = [c for c in RIGID_ORDER if c in rigid]
    return known + sorted(c for c in rigid if c not in RIGID_ORDER)


def image(image_dir, name, alt):
    return [] if image_dir is None else ["", f"![{alt}]({image_dir}/{name})"]


def intro(results):
    m = results.get("machine", {})
    parts = [m.get("cpu", "unknown CPU")]
    if "cores" in m:
        parts.append(f"{m['cores']} cores")
    if "memory_gib" in m:
        parts.append(f"{m['memory_gib']:g} GiB memory")
    if "threads" in m:
        parts.append(f"{m['threads']} solver threads")
    versions = ", ".join(f"{name} {m[key]}" for name, key in (("Blender", "blender"), ("SimBake", "simbake"))
                         if key in m)
    machine = ", ".join(parts) + (f"; {versions}" if versions else "")
    machine += f"; run on {m['date']}" if "date" in m else ""
    repeats = results.get("repeats", 1)
    return ["# Benchmarks", "",
            "These figures are produced by `bench/run`, which runs the benchmarks, writes the results "
            "JSON and calls `bench/report.py` to write this page and its plots. "
            f"Machine: {machine}. Times are medians of {repeats} runs "
            "(each run's own figure is the median over its frames)."]


def goals_section(goals):
    rows = [(g.get("goal", ""), g.get("measured", DASH), "✅" if g.get("met") else "❌") for g in goals]
    return ["", "## Goals", "", table(("Goal", "Measured", "Met"), rows)]


DEFAULT_VARIANT = "blender-self-on"  # the drape the first table and the plot show


def default_variant(cloth):
    return [e for e in cloth if e.get("variant", DEFAULT_VARIANT) == DEFAULT_VARIANT]


SCENE_NAMES = {"tablecloth": "Tablecloth, bodies falling on it", "flag": "Flag pinned along a side, in wind"}


def scene_grid(entry):
    if entry.get("scene") == "tablecloth":
        return "32 × 24"  # the sample's own
    if entry.get("scene") == "flag":
        return f"{2 * entry['grid']} × {entry['grid']}"
    return f"{entry['grid']}²"


def cloth_matrix_rows(cloth):
    """Whole bake as the user waits beside the median frame, quality and peak memory (the
    bake's growth and the whole Blender process's) beside every time."""
    header = ("Scene", "Grid", "Solver", "Whole bake (s)", "× Blender q5 (whole bake)", "ms/frame", "Peak MB",
              "Process peak MB", "Deepest penetration (mm)", "Intersecting pairs", "Max edge strain (%)",
              "Bake's CPU (s)")
    rows = []
    for entry in cloth:
        scene = entry.get("variant_label", entry.get("variant", DASH))
        if entry.get("scene"):
            scene = f"{SCENE_NAMES.get(entry['scene'], entry['scene'])}; {scene}"
        grid, runs = scene_grid(entry), entry["runs"]
        base = runs.get("blender_default", {}).get("seconds")
        for key in ("simbake", "blender_default", "blender_lowest"):
            run = runs.get(key)
            if run is None:
                continue
            seconds, pen, strain = run.get("seconds"), run.get("penetration_m"), run.get("max_strain")
            ratio = fmt_fixed(seconds / base, 2) if seconds is not None and base else DASH
            if key == "simbake" and seconds is not None and base:
                ratio += " (SimBake loses)" if seconds > base else ""
            rows.append((scene, grid, run.get("label", key), fmt_sig(seconds), ratio, fmt_sig(run.get("ms_per_frame")),
                         fmt_fixed(run.get("peak_mb"), 1), fmt_sig(run.get("process_peak_mb")),
                         fmt_fixed(None if pen is None else 1e3 * pen, 2),
                         str(run.get("intersecting_pairs", DASH)), fmt_fixed(None if strain is None else 100 * strain, 1),
                         fmt_sig(run.get("cpu_seconds"))))
        if entry.get("skipped"):
            rows.append((scene, grid, f"*Blender skipped: {entry['skipped']}*") + (DASH,) * 9)
        if entry.get("blender_lowest_note"):
            rows.append((scene, grid, f"*Blender, lowest quality: {entry['blender_lowest_note']}*") + (DASH,) * 9)
    return table(header, rows)


def cloth_matrix_section(cloth):
    """Every variant of the drape (SimBake's material, self collision)."""
    return ["", "## Cloth drape: SimBake's material and Blender's, self collision off and on", "",
            cloth_matrix_rows(cloth), "",
            "Whole bake: from the click to the baked scene (Blender: the sum of its frames; SimBake: the add-on's "
            "bake, PC2 cache included). Peak memory: growth of the process's peak resident size during the bake. "
            "Blender's rows are the same for both SimBake materials of one grid and self collision setting."]


def scenes_section(scenes):
    """The tablecloth and the flag (bench/run's scenes), the drape matrix's columns."""
    return ["", "## Cloth scenes: a tablecloth with bodies falling on it, a flag in the wind", "",
            cloth_matrix_rows(scenes), "",
            "The tablecloth: `sample_blends/tablecloth.blend` (its Solidify off), penetration measured against the "
            "table's top and legs and the four falling bodies where they are at the last frame. The flag: pinned along "
            "its side, in a Wind of strength 750 (`cloth_vs_blender.py --scene flag`), no collider. Blender's lowest "
            "quality that holds: the tablecloth no deeper in the colliders and with no more intersecting pairs than at "
            "quality 5 (the bodies are one-way coupled and press the cloth into the table); the flag with no more "
            "intersecting pairs and at most 1.25 times quality 5's largest edge strain. Process peak: the whole "
            "Blender process's resident peak (ru_maxrss), loading included. Bake's CPU: the CPU time the process spent in "
            "the bake, every thread's (Blender's cloth runs on its own threads; SimBake here on one), what a loaded "
            "machine's wall clock hides."]


def cloth_section(cloth, image_dir):
    header = ("Grid", "Vertices", "Solver", "ms/frame", "× Blender q5", "Peak MB", "Deepest penetration (mm)",
              "Intersecting pairs", "Max edge strain (%)", "CG it./frame")
    rows = []
    for entry in sorted(default_variant(cloth), key=lambda e: e["grid"]):
        grid, verts, runs = f"{entry['grid']}²", str(entry["vertices"]), entry["runs"]
        base = runs.get("blender_default", {}).get("ms_per_frame")
        for key in CLOTH_SOLVERS:
            run = runs.get(key)
            if run is None:
                if key == "blender_lowest" and entry.get("blender_lowest_note"):
                    rows.append((grid, verts, f"*Blender, lowest quality: {entry['blender_lowest_note']}*")
                                + (DASH,) * 7)
                continue
            ms = run.get("ms_per_frame")
            ratio = fmt_fixed(ms / base, 2) if ms is not None and base else DASH
            pen = run.get("penetration_m")
            strain = run.get("max_strain")
            rows.append((grid, verts, run.get("label", key), fmt_sig(ms), ratio, fmt_fixed(run.get("peak_mb"), 1),
                         fmt_fixed(None if pen is None else 1e3 * pen, 2), str(run.get("intersecting_pairs", DASH)),
                         fmt_fixed(None if strain is None else 100 * strain, 1),
                         fmt_fixed(run.get("cg_iterations_per_frame"), 1) if key == "simbake" else DASH))
    return (["", "## Cloth draped over a sphere", "", table(header, rows)]
            + image(image_dir, "bench_cloth.png", "Cloth: ms per frame against vertices"))


def log_slope(xs, ys):
    """Least-squares slope of log y against log x: the exponent e of y ∝ x^e."""
    lx, ly = [math.log(x) for x in xs], [math.log(y) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    sxx = sum((x - mx) ** 2 for x in lx)
    return sum((x - mx) * (y - my) for x, y in zip(lx, ly)) / sxx if sxx > 0 else 0.0


PHASES = [("assembly", "assembly"), ("solve", "CG"), ("pairs", "collision candidates"),
          ("response", "rest of the collision response")]


def phases_table(points, exponents):
    """Where each grid's bake spent its time, ms per frame, with each part's fitted exponent;
    "other" is what the parts leave of the whole (the bodies, contacts, strain checks)."""
    points = [p for p in points if p.get("phase_seconds") and p.get("frames") and "seconds" in p]
    if not points:
        return []
    header = ("Grid",) + tuple(label for _, label in PHASES) + ("other",)
    rows = []
    for p in points:
        parts = [p["phase_seconds"].get(key, 0.0) for key, _ in PHASES]
        other = max(p["seconds"] - sum(parts), 0.0)
        rows.append((f"{p['grid']}²",) + tuple(fmt_sig(1e3 * s / p["frames"]) for s in parts + [other]))
    if exponents:
        rows.append(("fitted",) + tuple(f"n^{exponents[key]:.2f}" if key in exponents else "" for key, _ in PHASES) + ("",))
    return ["", "Where the whole bake's time goes, ms per frame (wall clock of each part of the cloth steps, "
            "rejected attempts included):", "", table(header, rows)]


def scaling_section(scaling, image_dir):
    points = sorted(scaling.get("points", []), key=lambda p: p["vertices"])
    whole = all("seconds" in p and p.get("frames") for p in points)
    rows = [(f"{p['grid']}²", str(p["vertices"]), fmt_sig(p.get("ms_per_frame")))
            + ((fmt_sig(1e3 * p["seconds"] / p["frames"]),) if whole else ())
            + (fmt_fixed(p.get("cg_iterations_per_frame"), 1), fmt_sig(p.get("ms_per_cg_iteration")))
            for p in points]
    header = (("Grid", "Vertices", "ms/frame (median)") + (("ms/frame (whole bake)",) if whole else ())
              + ("CG it./frame", "ms per CG iteration"))
    out = ["", "## Cloth scaling (SimBake alone)", "", table(header, rows)]
    fits = []
    if whole and len(points) > 1:
        slope = log_slope([p["vertices"] for p in points], [p["seconds"] / p["frames"] for p in points])
        fits.append(f"the whole bake's time per frame grows as n^{slope:.2f} (the goal's measure)")
    if "exponent_time" in scaling:
        fits.append(f"the median frame's time as n^{scaling['exponent_time']:.2f}")
    if "exponent_cg" in scaling:
        fits.append(f"CG iterations (block-Jacobi and multigrid solves together) as n^{scaling['exponent_cg']:.2f}")
    if fits:
        out += ["", "Fitted over the vertex count n: " + ", ".join(fits) + "."]
    if scaling.get("rounds", 1) > 1:
        out += ["", f"Every grid was draped once in each of {scaling['rounds']} rounds, the grids in turn; "
                "its times are the medians over the rounds."]
    if whole:
        frames = points[0]["frames"]
        out += ["", f"The whole bake's mean counts every one of its {frames} frames: the free fall (frames 1–6), "
                "the impact and the frames after it, and the cloth settling on the sphere."]
        if "exponent_time_fall_and_landing" in scaling:  # only when the bake is longer than them
            out[-1] += (f" Its first {scaling['fall_and_landing_frames']} frames alone, the fall and the landing, grow as "
                        f"n^{scaling['exponent_time_fall_and_landing']:.2f}"
                        + (f" ({fmt_sig(points[-1]['fall_and_landing_ms_per_frame'])} ms per frame at {points[-1]['grid']}²)"
                           if "fall_and_landing_ms_per_frame" in points[-1] else "")
                        + ": the landing needs shorter steps the finer the cloth, and a fixed thickness spans more "
                        "triangles.")
    out += phases_table(points, scaling.get("exponent_phases"))
    bw = scaling.get("bandwidth")
    if bw:
        megabytes = fmt_sig(bw["bytes_per_cg_iteration"] / 1e6)
        out += ["", f"One block-Jacobi CG iteration on a flat cloth of {bw['vertices']} vertices (made larger than the caches) "
                f"moves about {megabytes} MB; "
                f"at the measured STREAM-triad bandwidth of {fmt_sig(bw['stream_gb_per_s'])} GB/s "
                f"that takes at least {fmt_sig(bw['bound_ms'])} ms; "
                f"it takes {fmt_sig(bw['measured_ms'])} ms, {bw['ratio']:.2f}× the bound."]
        cache = scaling.get("last_level_cache_bytes")
        if bw["ratio"] < 1.0 and cache and bw["bytes_per_cg_iteration"] > cache:
            # the triad's stores each read their line first: it moves 32 bytes per element, not the 24 counted
            out[-1] += (" Below 1 with data larger than the last-level cache: the iteration streams memory as fast "
                        "as the triad does (whose stores each cost a hidden read, so the bound is a little high); "
                        "memory bandwidth is what limits it.")
        elif bw["ratio"] < 1.0:  # faster than memory allows: the caches still hold the data
            out[-1] += (" Below 1, the iteration's data still fits partly in the caches at this size, so the "
                        "memory bound is not yet what limits it; it becomes the limit on larger cloths.")
        cached = scaling.get("bandwidth_largest_drape")
        if cached:
            where = ""
            if cache:
                inside = cached["bytes_per_cg_iteration"] <= cache
                where = f", {'within' if inside else 'larger than'} the {fmt_sig(cache / 2**20)} MiB last-level cache"
            out[-1] += (f" On the largest drape ({cached['vertices']} vertices, {fmt_sig(cached['bytes_per_cg_iteration'] / 1e6)}"
                        f" MB{where}) an iteration takes {fmt_sig(cached['measured_ms'])} ms, "
                        f"{cached['ratio']:.2f}× the same bound.")
    return out + image(image_dir, "bench_scaling.png", "Scaling: ms and CG iterations per frame against vertices")


def rigid_quality(side):
    if "top_drift_m" in side:
        return "top drift " + fmt_mm(side["top_drift_m"])
    parts = []
    if "fallen" in side:
        parts.append(f"{side['fallen']} fallen")
    if "pairs_apart" in side:  # the joined block of issue 29: neighbours 2 cm apart, broken or never joined
        parts.append(f"{side['pairs_apart']} of {side.get('pairs', DASH)} pairs apart")
    if "joints_broken" in side:  # SimBake's own count (Blender's Python does not say)
        parts.append(f"{side['joints_broken']} joints broke")
    if "moved" in side:
        parts.append(f"{side['moved']} moved")
    if "top_median_move_m" in side:
        parts.append("top layer's median move " + fmt_mm(side["top_median_move_m"]))
    if "deepest_overlap_m" in side:
        parts.append("deepest overlap " + fmt_mm(side["deepest_overlap_m"]))
    return ", ".join(parts) or DASH


def rigid_section(rigid, image_dir):
    rows = []
    for case in rigid_cases(rigid):
        r = rigid[case]
        b, s = r.get("blender", {}), r.get("simbake", {})
        ratio = r.get("ratio")
        if ratio is None and b.get("ms_per_frame") and s.get("ms_per_frame") is not None:
            ratio = s["ms_per_frame"] / b["ms_per_frame"]
        rows.append((case, str(r.get("bodies", DASH)), str(r.get("frames", DASH)), fmt_sig(b.get("ms_per_frame")),
                     fmt_sig(s.get("ms_per_frame")), fmt_sig(ratio), rigid_quality(b), rigid_quality(s),
                     fmt_sig(b.get("seconds")), fmt_sig(s.get("seconds")), fmt_fixed(b.get("peak_mb"), 1),
                     fmt_fixed(s.get("peak_mb"), 1)))
    header = ("Case", "Bodies", "Frames", "Blender ms/frame", "SimBake ms/frame", "SimBake / Blender",
              "Blender quality", "SimBake quality", "Blender whole bake (s)", "SimBake whole bake (s)",
              "Blender peak MB", "SimBake peak MB")
    out = ["", "## Rigid bodies", "", table(header, rows)]
    ladders = [case for case in rigid_cases(rigid) if rigid[case].get("blender_ladder")]
    if ladders:  # bench/run --rigid-lowest: Blender below its defaults, every setting tried
        low = []
        for case in ladders:
            r = rigid[case]
            for e in r["blender_ladder"]:
                chosen = e is not None and r.get("blender_lowest") == e
                low.append((case, f"{e['substeps_per_frame']}, {e['solver_iterations']}", fmt_sig(e.get("ms_per_frame")),
                            fmt_sig(e.get("seconds")), rigid_quality(e),
                            ("yes, the fastest" if chosen else "yes") if e.get("holds") else "no",
                            fmt_sig(e.get("ratio"))))
        out += ["", "Blender's rigid body world below its defaults (substeps per frame, solver iterations: "
                "10, 10), SimBake at its own defaults; a setting holds a scene when "
                + "; ".join(f"{case}: {rigid[case]['blender_lowest_rule']}" for case in ladders) + ".", "",
                table(("Case", "Blender substeps, iterations", "Blender ms/frame", "Blender whole bake (s)",
                       "Blender quality", "Holds", "SimBake / Blender"), low)]
        for case in ladders:
            if rigid[case].get("blender_lowest_note"):
                out += ["", f"{case}: {rigid[case]['blender_lowest_note']}; the lowest that holds is the defaults "
                        f"(SimBake / Blender {fmt_sig(rigid[case].get('ratio'))})."]
    return out + image(image_dir, "bench_rigid.png", "Rigid bodies: ms per frame")


ADDON_CASES = {"tower": "a tower of 10 boxes, 240 frames, keyframes",
               "dominoes100": "a row of 100 dominoes, 240 frames, keyframes",
               "wall200": "a wall of 200 bricks hit by an animated ball, 96 frames, keyframes",
               "heap100": "100 randomly rotated boxes dropped in a heap on a floor, 72 frames, keyframes",
               "heap400": "400 randomly rotated boxes dropped in a heap on a floor, 72 frames, keyframes",
               "heap1000": "1000 randomly rotated boxes dropped in a heap on a floor, 72 frames, keyframes",
               "joints1000": "a block of 1000 boxes joined by 2700 breakable Fixed constraints, hit by a ball, "
                             "36 frames, keyframes",
               "drape64": "64² drape over a sphere, Blender's default cloth, 40 frames, PC2 cache",
               "drape64keys": "the same drape baked to shape keys",
               "flag": "a 64 × 32 flag in a Wind field, 72 frames, PC2 cache",
               "tablecloth": "the tablecloth sample, cloth and 4 rigid bodies in one bake, 24 frames, PC2 cache "
                             "and keyframes"}


def addon_section(addon):
    """Whole bake, solver and add-on apart, for this add-on and the baseline's if measured."""
    rows = []
    sides = [("current", "this commit")]
    if addon.get("baseline"):
        sides.append(("baseline", f"baseline {addon.get('baseline_ref', '')}".strip()))
    for case in [c for c in ADDON_CASES if c in addon.get("current", {})] + \
            sorted(c for c in addon.get("current", {}) if c not in ADDON_CASES):
        for side, label in sides:
            r = addon.get(side, {}).get(case)
            if r is None:
                continue
            cpu = f"{100 * r['addon_cpu_share']:.1f}%" if "addon_cpu_share" in r else "–"
            rows.append((ADDON_CASES.get(case, case), label, fmt_sig(r["whole_s"]), fmt_sig(r["solver_s"]),
                         fmt_sig(r["addon_s"]), f"{100 * r['addon_share']:.1f}%", cpu))
    header = ("Scene", "Add-on", "Whole bake (s)", "Solver (s)", "Add-on (s)", "Add-on share", "Add-on share of CPU")
    note = ("Whole bake: from making the bake to the scene holding it (`bench/blender/addon_share.py`); "
            "solver: its steps (the library); add-on: the rest (reading the scene and the results, "
            "keyframes or cache, writing them into the scene). Each a median over the runs, one Blender each. "
            "Share of CPU: the same split in the process's CPU seconds (every thread), which other processes' "
            "load on a shared machine moves far less than the wall clock")
    if len(sides) > 1:
        note += "; the baseline's add-on ran in turns with this one, on the same library"
    note += "."
    if addon.get("command"):
        note += f" Measured with `{addon['command']}`" + (f" on {addon['date']}" if addon.get("date") else "") + "."
    if addon.get("note"):
        note += " " + addon["note"]
    return ["", "## The add-on's share of a bake", "", table(header, rows), "", note]


def strands_section(strands):
    """bench_strands: the hair on a swaying head and the rope in wind, medians of the runs."""
    rows = []
    for case in [c for c in ("head", "rope") if c in strands["rows"]] + \
            sorted(c for c in strands["rows"] if c not in ("head", "rope")):
        r = strands["rows"][case]
        if case == "head":
            scene = f"{r['strands']} strands × {r['segments']} segments on a swaying head"
        elif case == "rope":
            scene = f"a 2 m rope of {r['segments']} segments swinging across a wind"
        else:
            scene = case
        loads = [run["load_average"] for run in r.get("runs", []) if "load_average" in run]
        length = r.get("max_length_change")
        rows.append((scene, str(r.get("frames", DASH)), fmt_sig(r["mean_ms"]), fmt_sig(r["mean_cpu_ms"]),
                     f"{r['steps']} + {r['rejected_steps']}", str(r["cg_iterations"]),
                     DASH if length is None else f"{100 * length:.2f}%",
                     f"{min(loads):.1f}–{max(loads):.1f}" if loads else DASH))
    header = ("Scene", "Frames", "ms/frame (wall)", "ms/frame (CPU)", "Steps + rejected", "CG iterations",
              "Length change", "Load average before the runs")
    note = ("`bench_strands` (`bench/strands.c`), 24 frames a second, the world's defaults and the strands' "
            "default strain limit (10%): the head is issue 31's hair, rooted over the upper half of a sphere "
            "collider of 0.1 m that sways 0.1 m at 0.5 Hz; the rope is pinned at one end and released "
            "horizontally across a steady wind (its largest change of length at a frame is shown). "
            "ms/frame: the mean over the frames, median over the runs, the cases in turns; read the CPU "
            f"time on a shared machine (the wall clock also counts the time others had the core). Solver "
            f"threads: {strands.get('threads', DASH)}.")
    if strands.get("command"):
        note += f" Measured with `{strands['command']}`" + (f" on {strands['date']}" if strands.get("date") else "") + "."
    if strands.get("note"):
        note += " " + strands["note"]
    return ["", "## Strands (issue 31)", "", table(header, rows), "", note]


CONTENTION_ROWS = {"simbake": "SimBake, this library, its own thread count",
                   "baseline": "SimBake, baseline library, OpenMP's thread count",
                   "baseline_one_thread": "SimBake, baseline library, OMP_NUM_THREADS=1",
                   "blender": "Blender cloth, quality 5"}


def contention_section(contention):
    """The drape baked beside a busy process, OpenMP's settings out of the environment."""
    rows = []
    for key in [k for k in CONTENTION_ROWS if k in contention["rows"]] + \
            sorted(k for k in contention["rows"] if k not in CONTENTION_ROWS):
        r = contention["rows"][key]
        loads = [run["load_average"] for run in r.get("runs", []) if "load_average" in run]
        rows.append((CONTENTION_ROWS.get(key, key), fmt_sig(r["seconds"]), fmt_fixed(r.get("ratio_to_simbake"), 2),
                     fmt_sig(r.get("ms_per_frame")), fmt_fixed(r.get("peak_mb"), 1),
                     f"{min(loads):.1f}–{max(loads):.1f}" if loads else DASH))
    header = ("Bake", "Whole bake (s)", "× this library", "ms/frame", "Peak MB", "Load average before the runs")
    note = (f"The {contention['grid']}² drape over a sphere, self collision off, {contention['frames']} frames "
            "(`bench/blender/cloth_vs_blender.py`), one Blender each, while another process spins on a core (a "
            "Python busy loop); OMP_NUM_THREADS and OMP_WAIT_POLICY are taken out of the environment, as in a "
            "Blender started from a desktop. Medians of the runs, the rows in turns.")
    if contention.get("command"):
        note += f" Measured with `{contention['command']}`" + \
            (f" on {contention['date']}" if contention.get("date") else "") + "."
    if contention.get("note"):
        note += " " + contention["note"]
    return ["", "## A bake beside a busy process", "", table(header, rows), "", note]


def render_markdown(results, image_dir="images"):
    """The whole page; image_dir is relative to the page, None leaves the plots out."""
    out = intro(results)
    if results.get("goals"):
        out += goals_section(results["goals"])
    if default_variant(results.get("cloth") or []):
        out += cloth_section(results["cloth"], image_dir)
    if any(e.get("variant") for e in results.get("cloth") or []):
        out += cloth_matrix_section(results["cloth"])
    if results.get("scenes"):
        out += scenes_section(results["scenes"])
    if results.get("scaling", {}).get("points"):
        out += scaling_section(results["scaling"], image_dir)
    if results.get("rigid"):
        out += rigid_section(results["rigid"], image_dir)
    if results.get("strands", {}).get("rows"):
        out += strands_section(results["strands"])
    if results.get("addon", {}).get("current"):
        out += addon_section(results["addon"])
    if results.get("contention", {}).get("rows"):
        out += contention_section(results["contention"])
    return "\n".join(out) + "\n"


def spread(run):
    """Error bar from min/max of the repeats, when the runs were kept; None otherwise."""
    values = run.get("ms_per_frame_runs")
    if not values:
        return None
    return [[max(run["ms_per_frame"] - min(values), 0)], [max(max(values) - run["ms_per_frame"], 0)]]


def power_fit(xs, ys, exponent):
    """Prefactor of y = c·x^e through the log-mean of the points: the line the exponent describes."""
    logc = sum(math.log(y) - exponent * math.log(x) for x, y in zip(xs, ys)) / len(xs)
    return [math.exp(logc) * x ** exponent for x in xs]


def plain_log_ticks(ax):
    """Log axes label ticks as 4x10^1; plain numbers (40, 0.5, 1860) read faster on a benchmark page."""
    from matplotlib.ticker import LogFormatter

    class Plain(LogFormatter):
        def __call__(self, x, pos=None):
            # Keep matplotlib's choice of which ticks get a label, only change how it reads.
            return f"{x:g}" if super().__call__(x, pos) else ""

    for axis in (ax.xaxis, ax.yaxis):
        if axis.get_scale() == "log":
            axis.set_major_formatter(Plain())
            axis.set_minor_formatter(Plain(labelOnlyBase=False, minor_thresholds=(2, 0.5)))


def write_plots(results, folder):
    """Write the PNGs for the sections present; ImportError when matplotlib is missing."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(folder, exist_ok=True)
    written = []

    def save(fig, name):
        path = os.path.join(folder, name)
        for ax in fig.axes:
            plain_log_ticks(ax)
        fig.tight_layout()
        fig.savefig(path, dpi=100)
        plt.close(fig)
        written.append(path)

    cloth = sorted(default_variant(results.get("cloth") or []), key=lambda e: e["vertices"])
    if cloth:
        fig, ax = plt.subplots(figsize=(9, 5.6))
        for key, marker in zip(CLOTH_SOLVERS, ("o", "s", "^")):
            entries = [e for e in cloth if key in e["runs"]]
            if not entries:
                continue
            label = entries[0]["runs"][key].get("label", key)
            if key == "blender_lowest":  # its quality differs per grid; the points say which
                label = "Blender, lowest quality that holds"
            # NaN at grids without this solver breaks the line instead of bridging the gap.
            ax.plot([e["vertices"] for e in cloth],
                    [e["runs"][key]["ms_per_frame"] if key in e["runs"] else float("nan") for e in cloth],
                    marker=marker, label=label)
            xs = [e["vertices"] for e in entries]
            ys = [e["runs"][key]["ms_per_frame"] for e in entries]
            for e, x, y in zip(entries, xs, ys):
                err = spread(e["runs"][key])
                if err:
                    ax.errorbar([x], [y], yerr=err, fmt="none", ecolor="grey", capsize=3)
                if key == "blender_lowest" and "quality" in e["runs"][key]:
                    ax.annotate(f"q{e['runs'][key]['quality']}", (x, y),
                                textcoords="offset points", xytext=(6, -12))
        ax.set(xscale="log", yscale="log", xlabel="vertices", ylabel="ms per frame", title="Cloth draped over a sphere")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
        save(fig, "bench_cloth.png")

    scaling = results.get("scaling") or {}
    points = sorted(scaling.get("points") or [], key=lambda p: p["vertices"])
    if points:
        fig, axes = plt.subplots(1, 2, figsize=(9, 5.6))
        xs = [p["vertices"] for p in points]
        whole = all("seconds" in p and p.get("frames") for p in points)
        panels = [(axes[0], "ms_per_frame", "exponent_time", "ms per frame", "median frame"),
                  (axes[1], "cg_iterations_per_frame", "exponent_cg", "CG iterations per frame", "SimBake")]
        if whole:
            panels.insert(0, (axes[0], "mean_ms", "exponent_time_mean", "ms per frame", "whole bake"))
        if all("fall_and_landing_ms_per_frame" in p for p in points):
            panels.insert(1, (axes[0], "fall_and_landing_ms_per_frame", "exponent_time_fall_and_landing",
                              "ms per frame", f"first {scaling.get('fall_and_landing_frames')} frames"))
        for ax, key, exp_key, ylabel, label in panels:
            ys = [1e3 * p["seconds"] / p["frames"] if key == "mean_ms" else p[key] for p in points]
            (line,) = ax.plot(xs, ys, "o-", label=label)
            if exp_key in scaling and len(xs) > 1:
                ax.plot(xs, power_fit(xs, ys, scaling[exp_key]), "--", color=line.get_color(), alpha=0.6,
                        label=f"n^{scaling[exp_key]:.2f}")
            ax.set(xscale="log", yscale="log", xlabel="vertices n", ylabel=ylabel)
            ax.grid(True, which="both", alpha=0.3)
            ax.legend()
        fig.suptitle("Cloth scaling (SimBake alone)")
        save(fig, "bench_scaling.png")

    rigid = results.get("rigid") or {}
    if rigid:
        cases = rigid_cases(rigid)
        fig, ax = plt.subplots(figsize=(9, 5.6))
        width = 0.38
        for offset, side, label in ((-width / 2, "blender", "Blender"), (width / 2, "simbake", "SimBake")):
            runs = [rigid[c].get(side, {}) for c in cases]
            ys = [r.get("ms_per_frame", float("nan")) for r in runs]
            bars = ax.bar([i + offset for i in range(len(cases))], ys, width, label=label)
            ax.bar_label(bars, labels=[fmt_sig(y) if math.isfinite(y) else "" for y in ys], padding=2, fontsize=9)
            for i, r in enumerate(runs):
                err = spread(r)
                if err:
                    ax.errorbar([i + offset], [r["ms_per_frame"]], yerr=err, fmt="none", ecolor="black", capsize=3)
        ax.set_xticks(range(len(cases)),
                      [f"{c}\n({rigid[c].get('bodies', '?')} bodies)" for c in cases])
        ax.set(yscale="log", ylabel="ms per frame", title="Rigid bodies")
        ax.grid(True, axis="y", which="both", alpha=0.3)
        ax.legend()
        save(fig, "bench_rigid.png")
    return written


def main(argv=None):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", help="results JSON written by bench/run")
    parser.add_argument("--markdown", default=os.path.join(root, "docs", "benchmarks.md"))
    parser.add_argument("--images", default=os.path.join(root, "docs", "images"))
    args = parser.parse_args(argv)
    with open(args.results, encoding="utf-8") as f:
        results = json.load(f)

    page_dir = os.path.dirname(os.path.abspath(args.markdown))
    image_dir = os.path.relpath(os.path.abspath(args.images), page_dir).replace(os.sep, "/")
    try:
        for path in write_plots(results, args.images):
            print("wrote", path)
    except ImportError:
        image_dir = None
        print("Plots skipped: matplotlib is not installed (apt-get install python3-matplotlib).")
    os.makedirs(page_dir, exist_ok=True)
    with open(args.markdown, "w", encoding="utf-8") as f:
        f.write(render_markdown(results, image_dir))
    print("wrote", args.markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
