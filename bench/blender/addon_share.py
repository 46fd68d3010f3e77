"""The add-on's own share of a whole bake: how much of the time from starting a bake to the
baked scene goes to the solver (the library's steps) and how much to the add-on around it
(reading the scene, reading results back, turning them into keyframes or caches, writing
them into the scene). One Blender process, each scene built afresh for every run.

    blender -b --factory-startup --python-exit-code 1 -P bench/blender/addon_share.py -- \
        [--repeats 3] [--cases heap400,drape64] [--addon FOLDER] [--preload] [--phases] [--cpu] [--profile [--sort cumulative] [--lines 25]] [--out OUT.json]

Cases (the rows of bench/run's matrix, built by the side-by-side benchmarks' own builders):
- heap100, heap400, heap1000: N boxes of 0.2 m, each turned by a random rotation (seeded),
  dropped in a heap on an open floor, 72 frames; Blender rigid bodies (role None) baked to
  keyframes (rigid_vs_blender.py's heapN, as every rigid case below);
- tower (10 boxes, 240 frames), dominoes100 (240 frames), wall200 (200 bricks hit by an
  animated ball, an obstacle the bake follows every frame, 96 frames);
- joints1000: the 10 x 10 x 10 block joined by 2700 breakable Fixed constraints and hit by an
  animated ball, 36 frames (reading the constraints and naming the broken ones is add-on work);
- drape64: a 64 x 64 grid of 2 m with Blender's default cloth (self collision off) falls
  0.3 m onto a sphere of 0.5 m radius with a Collision modifier, 40 frames, baked to a PC2
  cache; drape64keys: the same baked to shape keys (the scene's cloth_output SHAPE_KEYS);
- flag: cloth_vs_blender.py's flag (64 x 32 vertices, pinned along its side) in a Wind
  field, 72 frames, PC2 (the field is read every frame);
- tablecloth: sample_blends/tablecloth.blend as cloth_vs_blender.py opens it, the cloth and
  its four rigid bodies in one bake, 24 frames (the add-on's work is per frame and per
  object, so its share is that of a longer bake; the sample's own 72 frames cost 3x the time).
bench has no Blender strands scene (bench_strands bakes without Blender), so none here.

Per run: whole (Bake() made, run to the scene holding the bake), solver (the sum of the
frames' solve_frame, the library's step), add-on (whole - solver) and its phases (begin,
finish, with --phases prepare and collect too, every frame's, and the rest: making the Bake,
the run loop and, without --phases, the frames' prepare and collect). The whole bake's CPU
seconds (the process's, every thread) too, and with --cpu each phase's and the solver's, so the
add-on's share of CPU, which other processes' load on a shared machine moves far less than the
wall clock's; but reading the CPU clock every frame moves where that load's waiting falls
(on this 2-core machine at a load of 20, the tower's solver took 2.5 s of wall clock without it,
0.3 s with it, the waiting landing outside the timed phases), so take wall-clock shares from
runs without --cpu. Printed and written as
medians over the runs, and each run's figures. --profile runs each case once more under
cProfile (the process's CPU time) and prints the 25 (--lines) functions with the most own time (not counted in the medians).
The first bake of a Blender process loads the library (ctypes.CDLL, its LAPACK and OpenMP with
it: about 11 ms of CPU in Blender 3.4 against 2 ms in a plain Python, measured 2026-11-27), so a
run of --repeats 1 counts that in the add-on's begin; --preload loads it before the timed bakes.
--addon: the folder holding the simbake package to bake with (default: this repository's
addon/), e.g. an older commit's, to compare; give it the library with SIMBAKE_LIBRARY."""

import argparse
import cProfile
import json
import os
import pstats
import statistics
import sys
import time

import bpy

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DRAPE_FRAMES, FLAG_FRAMES, FLAG_GRID, TABLECLOTH_FRAMES = 40, 72, 32, 24
PHASES = ("begin", "prepare", "collect", "finish")
RIGID_CASES = ("tower", "dominoes100", "wall200", "heap100", "heap400", "heap1000", "joints1000")
CLOTH_CASES = ("drape64", "drape64keys", "flag", "tablecloth")


def arguments():
    parser = argparse.ArgumentParser(prog="addon_share.py")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cases", default=",".join(RIGID_CASES + CLOTH_CASES))
    parser.add_argument("--addon", default=os.path.join(REPO, "addon"))
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--sort", default="tottime", help="the profile's order: tottime or cumulative")
    parser.add_argument("--cpu", action="store_true", help="CPU seconds of every phase and the solver too")
    parser.add_argument("--phases", action="store_true", help="time prepare and collect, every frame, apart too")
    parser.add_argument("--lines", type=int, default=25, help="the profile's functions printed")
    parser.add_argument("--preload", action="store_true",
                        help="load the library before the timed bakes (the first bake of a Blender process loads it)")
    parser.add_argument("--out")
    return parser.parse_args(sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else [])


ARGS = arguments()
sys.path.insert(0, os.path.abspath(ARGS.addon))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simbake  # noqa: E402

if not hasattr(bpy.types.Object, "simbake"):
    simbake.register()
from simbake import bake, keyframes  # noqa: E402

# The scene builders of the side-by-side benchmarks (imported after simbake, which they would
# otherwise take from this repository whatever --addon says).
import cloth_vs_blender  # noqa: E402
import rigid_vs_blender  # noqa: E402

if getattr(keyframes, "rigid_channels", False) is None:  # an add-on with the numpy path that cannot use it
    sys.exit("addon_share.py: this Blender's Python finds no numpy (install python3-numpy; a pyenv Python that "
             "started Blender puts its own prefix first: start bench/run with /usr/bin/python3)")


class TimedBake(bake.Bake):
    """A bake that adds up the time of its solver steps and of the add-on's phases around them:
    begin (reading the scene, setting up the solver), prepare (moving the scene to each frame,
    its animation to the solver), collect (reading each frame's result back) and finish
    (keyframes or caches written into the scene)."""

    def __init__(self, *args, **kwargs):
        self.phase_seconds = dict.fromkeys(("begin", "prepare", "solver", "collect", "finish"), 0.0)
        self.phase_cpu_seconds = dict.fromkeys(self.phase_seconds, 0.0)
        super().__init__(*args, **kwargs)

    def _timed(self, phase, method):
        # the CPU clock is a system call, and on a loaded machine a process is made to wait its
        # turn at one: read every frame, it moves where the wall clock's waiting falls (--cpu)
        cpu = time.process_time if ARGS.cpu else float
        began, began_cpu = time.perf_counter(), cpu()
        try:
            method()
        finally:
            self.phase_seconds[phase] += time.perf_counter() - began
            self.phase_cpu_seconds[phase] += cpu() - began_cpu

    def begin(self):
        self._timed("begin", super().begin)

    def prepare_frame(self):
        if not ARGS.phases:  # four clock readings a phase: a share of a small bake's add-on time
            return super().prepare_frame()
        self._timed("prepare", super().prepare_frame)

    def solve_frame(self):
        self._timed("solver", super().solve_frame)

    def collect_frame(self):
        if not ARGS.phases:
            return super().collect_frame()
        self._timed("collect", super().collect_frame)

    def finish(self):
        self._timed("finish", super().finish)


def rigid_case(case):
    """A case of rigid_vs_blender.py built as it builds it, Blender's own simulation not run
    (its cache ends at the first frame), SimBake's frames the case's; every object baked."""
    build, frames = rigid_vs_blender.CASES[case]
    build()
    scene = bpy.context.scene
    scene.rigidbody_world.point_cache.frame_end = 1  # Blender's own simulation is not timed
    return bake_range(frames)


def bake_range(frames):
    scene = bpy.context.scene
    scene.simbake.frame_start, scene.simbake.frame_end = 1, frames
    scene.frame_set(1)
    return list(scene.objects)


def build_drape(grid=64, output="MESH_CACHE"):
    """The drape of cloth_vs_blender.py with self collision off (Blender's default)."""
    cloth_vs_blender.build(grid, 5, DRAPE_FRAMES, self_collision=False)
    bpy.context.scene.simbake.cloth_output = output
    return bake_range(DRAPE_FRAMES)


def build_flag():
    cloth_vs_blender.build_flag(FLAG_GRID, 5, FLAG_FRAMES)
    return bake_range(FLAG_FRAMES)


def build_tablecloth():
    """The sample, cloth and rigid bodies baked together; Blender's rigid body cache not run."""
    cloth_vs_blender.build_tablecloth(5, TABLECLOTH_FRAMES)
    bpy.context.scene.rigidbody_world.point_cache.frame_end = 1
    return bake_range(TABLECLOTH_FRAMES)


CASES = {**{case: (lambda case=case: rigid_case(case)) for case in RIGID_CASES},
         "drape64": build_drape, "drape64keys": lambda: build_drape(output="SHAPE_KEYS"),
         "flag": build_flag, "tablecloth": build_tablecloth}


def one_bake(objects):
    began, began_cpu = time.perf_counter(), time.process_time()
    job = TimedBake(bpy.context, objects)
    job.run()
    whole, whole_cpu = time.perf_counter() - began, time.process_time() - began_cpu
    solver, solver_cpu = job.phase_seconds["solver"], job.phase_cpu_seconds["solver"]
    timed = PHASES if ARGS.phases else ("begin", "finish")
    phases = {f"{phase}_s": job.phase_seconds[phase] for phase in timed}
    phases["rest_s"] = whole - sum(job.phase_seconds.values())
    result = {"whole_s": whole, "solver_s": solver, "addon_s": whole - solver, "addon_share": (whole - solver) / whole,
              "whole_cpu_s": whole_cpu, **phases}
    if ARGS.cpu:
        result.update({f"{phase}_cpu_s": job.phase_cpu_seconds[phase] for phase in timed})
        result.update(rest_cpu_s=whole_cpu - sum(job.phase_cpu_seconds.values()), solver_cpu_s=solver_cpu,
                      addon_cpu_s=whole_cpu - solver_cpu, addon_cpu_share=(whole_cpu - solver_cpu) / whole_cpu)
    return result


def main():
    args = ARGS
    print(f"SimBake add-on share: baking with the add-on in {os.path.dirname(simbake.__file__)}", flush=True)
    if args.preload:
        from simbake import native
        native.load()
    results = {}
    for case in args.cases.split(","):
        runs = [one_bake(CASES[case]()) for _ in range(args.repeats)]
        medians = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
        results[case] = {"runs": runs, **medians}
        print(f"SimBake add-on share: {case}: whole {medians['whole_s']:.3f} s, solver {medians['solver_s']:.3f} s, "
              f"add-on {medians['addon_s']:.3f} s ({100 * medians['addon_share']:.1f}%), medians of "
              f"{args.repeats}; " + (f"CPU: add-on {medians['addon_cpu_s']:.3f} s of {medians['whole_cpu_s']:.3f} s "
                                     f"({100 * medians['addon_cpu_share']:.1f}%); " if args.cpu else "")
              + "add-on's phases: " + ", ".join(
                  f"{phase} {medians[phase + '_s']:.3f} s" + (f" ({medians[phase + '_cpu_s']:.3f} s CPU)" if args.cpu else "")
                  for phase in (PHASES if args.phases else ("begin", "finish")) + ("rest",)),
              flush=True)
        if args.profile:
            objects = CASES[case]()
            profile = cProfile.Profile(time.process_time)  # CPU time: a loaded machine moves it far less
            profile.enable()
            one_bake(objects)
            profile.disable()
            pstats.Stats(profile).sort_stats(args.sort).print_stats(args.lines)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(results, f, indent=2)


main()
