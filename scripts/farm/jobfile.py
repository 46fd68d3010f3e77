"""The job file: a list of bake jobs (a .blend, a frame range, an output path and variants of
the scene's settings), validated as a whole and expanded into one task per variant.

No Slurm and no bpy here: everything is checked before anything is submitted, and every
message names the job, the variant and the key at fault. See docs/farm.md for the format.
"""

import json
import os
import re
import string
from dataclasses import dataclass, field

DEFAULT_CHECKPOINT_EVERY = 10
DEFAULT_VARIANT = "default"

TOP_KEYS = ("name", "farm_dir", "checkpoint_every", "slurm", "jobs")
JOB_KEYS = ("name", "blend", "frames", "output", "variants", "seeds", "scatter")
VARIANT_KEYS = ("name", "scene", "objects", "seed", "scatter")
SCATTER_KEYS = ("objects", "location", "rotation")
SLURM_KEYS = ("partition", "account", "qos", "time", "cpus_per_task", "mem", "max_parallel", "extra_args")
OUTPUT_FIELDS = ("job", "variant", "index", "seed")
# options simbake-farm sets itself on every sbatch command line
RESERVED_SBATCH_OPTIONS = ("-a", "--array", "-d", "--dependency", "-o", "--output", "-e", "--error",
                           "--parsable", "--open-mode", "-D", "--chdir", "-J", "--job-name",
                           "--kill-on-invalid-dep")

# names end up in file names and on command lines
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*\Z")
FRAMES_PATTERN = re.compile(r"\s*(\d+)\s*-\s*(\d+)\s*\Z")
# what sbatch --time and --mem accept
TIME_PATTERN = re.compile(r"(\d+-\d+(:\d+(:\d+)?)?|\d+(:\d+(:\d+)?)?)\Z")
MEM_PATTERN = re.compile(r"\d+[KMGT]?\Z")
# .blend files start with "BLENDER"; compressed ones are gzip or zstd streams
BLEND_MAGICS = (b"BLENDER", b"\x1f\x8b", b"\x28\xb5\x2f\xfd")


class JobFileError(Exception):
    """Everything wrong with a job file, one problem per line."""

    def __init__(self, path, problems):
        self.path = path
        self.problems = problems
        super().__init__("\n".join(f"{path}: {problem}" for problem in problems))


@dataclass
class Task:
    """One bake: one variant of one job; the unit of parallel work (one array task)."""
    index: int
    job: str
    variant: str
    blend: str                   # absolute
    frames: str | None           # "A-B", or None for the scene's own range
    output: str                  # absolute
    overrides: dict = field(default_factory=dict)  # the --variant file's content

    def as_dict(self):
        return {"index": self.index, "job": self.job, "variant": self.variant, "blend": self.blend,
                "frames": self.frames, "output": self.output}


@dataclass
class Plan:
    """A validated job file: where the farm folder goes, how to submit, and the tasks."""
    name: str
    jobfile: str
    farm_dir: str
    checkpoint_every: int
    slurm: dict
    tasks: list


def read_document(path):
    """The job file's top-level table, from JSON or (for .toml files) TOML."""
    import tomllib  # here, so that the rest works on Python 3.10 nodes too
    try:
        if path.endswith(".toml"):
            with open(path, "rb") as f:
                document = tomllib.load(f)
        else:
            with open(path) as f:
                document = json.load(f)
    except FileNotFoundError:
        raise JobFileError(path, ["no such file"])
    except OSError as error:
        raise JobFileError(path, [f"cannot read it ({error.strerror})"])
    except json.JSONDecodeError as error:
        raise JobFileError(path, [f"not valid JSON: line {error.lineno} column {error.colno}: {error.msg}"])
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise JobFileError(path, [f"not valid {'TOML' if path.endswith('.toml') else 'JSON'}: {error}"])
    if not isinstance(document, dict):
        raise JobFileError(path, ["the job file must be a JSON object with a \"jobs\" list"])
    return document


def default_farm_dir(path):
    stem = os.path.splitext(os.path.basename(path))[0]
    return os.path.join(os.path.dirname(os.path.abspath(path)), f"{stem}.farm")


def farm_dir_of(path):
    """The farm folder a job file submits into, read without validating the rest."""
    farm_dir = read_document(path).get("farm_dir")
    if not isinstance(farm_dir, str) or not farm_dir:
        return default_farm_dir(path)
    return resolve(os.path.dirname(os.path.abspath(path)), farm_dir)


def resolve(base, path):
    return os.path.normpath(os.path.join(base, os.path.expanduser(path)))


def describe(value):
    return json.dumps(value) if not isinstance(value, str) else repr(value)


def parse_frames(value):
    """"A-B" or [A, B] as "A-B"; None if it is neither or the range is empty."""
    if isinstance(value, str):
        match = FRAMES_PATTERN.match(value)
        first, last = (int(match.group(1)), int(match.group(2))) if match else (None, None)
    elif (isinstance(value, list) and len(value) == 2
          and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value)):
        first, last = value
    else:
        return None
    if first is None or last <= first:
        return None
    return f"{first}-{last}"


def parse_seeds(value):
    """[1, 2, 3] or "1-100" as a list of whole numbers; None if it is neither."""
    if isinstance(value, str):
        match = FRAMES_PATTERN.match(value)
        if not match or int(match.group(2)) < int(match.group(1)):
            return None
        return list(range(int(match.group(1)), int(match.group(2)) + 1))
    if (isinstance(value, list) and value
            and all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        return value
    return None


def is_blend(path):
    with open(path, "rb") as f:
        return f.read(8).startswith(BLEND_MAGICS)


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_setting_value(value):
    """What a Blender property can be set to from JSON: a number, bool, string or a flat list."""
    if isinstance(value, (bool, int, float, str)):
        return True
    return isinstance(value, list) and bool(value) and all(isinstance(v, (bool, int, float)) for v in value)


class Checker:
    """Collects problems, each prefixed with where it is (job, variant, key)."""

    def __init__(self):
        self.problems = []

    def add(self, where, message):
        self.problems.append(f"{where}: {message}" if where else message)

    def unknown_keys(self, where, table, allowed):
        for key in table:
            if key not in allowed:
                self.add(where, f"unknown key {key!r} (allowed: {', '.join(allowed)})")

    def name(self, where, key, value):
        if not isinstance(value, str) or not NAME_PATTERN.match(value):
            self.add(where, f"{key}: {describe(value)} is not a usable name: letters, digits, '.', '_' "
                            "and '-', starting with a letter or digit")
            return False
        return True


def check_slurm(checker, table):
    if table is None:
        return {}
    if not isinstance(table, dict):
        checker.add("slurm", "must be a table of sbatch settings")
        return {}
    checker.unknown_keys("slurm", table, SLURM_KEYS)
    options = {}
    for key in ("partition", "account", "qos"):
        value = table.get(key)
        if value is not None and (not isinstance(value, str) or not value.strip()):
            checker.add("slurm", f"{key}: needs a name, got {describe(value)}")
        elif value is not None:
            options[key] = value
    if table.get("time") is not None:
        value = table["time"]
        if isinstance(value, str) and TIME_PATTERN.match(value):
            options["time"] = value
        else:
            checker.add("slurm", f"time: {describe(value)} is not a Slurm time limit "
                                 "(minutes, \"HH:MM:SS\" or \"D-HH:MM:SS\")")
    if table.get("mem") is not None:
        value = str(table["mem"]) if isinstance(table["mem"], int) else table["mem"]
        if isinstance(value, str) and MEM_PATTERN.match(value):
            options["mem"] = value
        else:
            checker.add("slurm", f"mem: {describe(table['mem'])} is not a memory size (e.g. \"4G\", \"500M\")")
    for key in ("cpus_per_task", "max_parallel"):
        value = table.get(key)
        if value is None:
            continue
        if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
            options[key] = value
        else:
            checker.add("slurm", f"{key}: needs a whole number of at least 1, got {describe(value)}")
    extra = table.get("extra_args", [])
    if not isinstance(extra, list) or not all(isinstance(arg, str) for arg in extra):
        checker.add("slurm", f"extra_args: needs a list of sbatch arguments (strings), got {describe(extra)}")
    else:
        for arg in extra:
            option = arg.split("=", 1)[0]
            if option in RESERVED_SBATCH_OPTIONS:
                checker.add("slurm", f"extra_args: {option} is set by simbake-farm itself")
        options["extra_args"] = list(extra)
    return options


def check_scatter(checker, where, scatter):
    if not isinstance(scatter, dict):
        checker.add(where, "scatter: must be a table with \"objects\" and \"location\" and/or \"rotation\"")
        return
    checker.unknown_keys(f"{where}: scatter", scatter, SCATTER_KEYS)
    patterns = scatter.get("objects")
    if isinstance(patterns, str):
        patterns = [patterns]
    if not isinstance(patterns, list) or not patterns or not all(isinstance(p, str) and p for p in patterns):
        checker.add(where, f"scatter.objects: needs a list of object names or patterns like \"Box*\", "
                           f"got {describe(patterns)}")
    if "location" not in scatter and "rotation" not in scatter:
        checker.add(where, "scatter: needs \"location\" and/or \"rotation\" (the largest offsets)")
    for key, unit in (("location", "m"), ("rotation", "radians")):
        if key in scatter:
            value = scatter[key]
            amounts = [value] * 3 if is_number(value) else value
            if not (isinstance(amounts, list) and len(amounts) == 3 and all(is_number(v) and v >= 0 for v in amounts)):
                checker.add(where, f"scatter.{key}: needs 3 numbers of at least 0 (the largest offset "
                                   f"along X, Y, Z in {unit}) or one for all three, got {describe(value)}")


def check_variant(checker, where, variant, job_scatter):
    """Problems of one variant table (without its name); returns the --variant file's content."""
    checker.unknown_keys(where, variant, VARIANT_KEYS)
    overrides = {}
    scene = variant.get("scene", {})
    if not isinstance(scene, dict):
        checker.add(where, "scene: must be a table of settings, e.g. {\"simbake.substeps\": 2}")
    else:
        for path, value in scene.items():
            if not is_setting_value(value):
                checker.add(where, f"scene.{path}: {describe(value)} is not a setting value "
                                   "(a number, true/false, a string or a list of numbers)")
        if scene:
            overrides["scene"] = dict(scene)
    objects = variant.get("objects", {})
    if not isinstance(objects, dict):
        checker.add(where, "objects: must be a table of object names, each with a table of settings")
    else:
        for name, settings in objects.items():
            if not isinstance(settings, dict) or not settings:
                checker.add(where, f"objects.{name}: must be a table of settings, "
                                   "e.g. {\"simbake.friction\": 0.3}")
                continue
            for path, value in settings.items():
                if not is_setting_value(value):
                    checker.add(where, f"objects.{name}.{path}: {describe(value)} is not a setting value "
                                       "(a number, true/false, a string or a list of numbers)")
        if objects:
            overrides["objects"] = {name: dict(settings) for name, settings in objects.items()
                                    if isinstance(settings, dict)}
    seed = variant.get("seed")
    scatter = variant.get("scatter", job_scatter)
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        checker.add(where, f"seed: needs a whole number, got {describe(seed)}")
    if "scatter" in variant:
        check_scatter(checker, where, variant["scatter"])
    if seed is not None and scatter is None:
        checker.add(where, "seed: without a \"scatter\" (on the variant or its job) it changes nothing")
    if "scatter" in variant and seed is None:
        checker.add(where, "scatter: needs a \"seed\" (on the variant, or \"seeds\" on its job)")
    if seed is not None:
        overrides["seed"] = seed
    if seed is not None and scatter is not None:
        overrides["scatter"] = scatter
    return overrides


def expand_variants(checker, where, job):
    """[(variant name, seed or None, variant table)]: the job's variants, each crossed with the
    job's seeds if it has any."""
    variants = job.get("variants")
    if variants is None:
        variants = [{"name": DEFAULT_VARIANT}]
    elif not isinstance(variants, list) or not variants:
        checker.add(where, "variants: must be a list of variant tables (leave it out for one bake "
                           "of the scene as it is)")
        return []
    named = []
    for number, variant in enumerate(variants):
        if not isinstance(variant, dict):
            checker.add(where, f"variants[{number}]: must be a table with a \"name\"")
            continue
        if "name" not in variant:
            checker.add(where, f"variants[{number}]: needs a \"name\"")
            continue
        if checker.name(f"{where}, variants[{number}]", "name", variant["name"]):
            named.append(variant)
    if "seeds" not in job:
        return [(v["name"], v.get("seed"), v) for v in named]
    seeds = parse_seeds(job["seeds"])
    if seeds is None:
        checker.add(where, f"seeds: needs a list of whole numbers or a range \"A-B\", got {describe(job['seeds'])}")
        return []
    if job.get("scatter") is None and not all("scatter" in v for v in named):
        checker.add(where, "seeds: needs a \"scatter\" (what the seed moves) on the job or on every variant")
    expanded = []
    for variant in named:
        if "seed" in variant:
            checker.add(f"{where}, variant {variant['name']!r}", "seed: the job's \"seeds\" sets the seed")
            continue
        for seed in seeds:
            name = f"seed{seed}" if variant["name"] == DEFAULT_VARIANT and "variants" not in job \
                else f"{variant['name']}_seed{seed}"
            expanded.append((name, seed, dict(variant, seed=seed)))
    return expanded


def format_output(checker, where, pattern, fields):
    try:
        names = [name for _, name, _, _ in string.Formatter().parse(pattern) if name is not None]
    except ValueError as error:
        checker.add(where, f"output: {pattern!r}: {error} (write {{{{ and }}}} for literal braces)")
        return None
    for name in names:
        if name not in OUTPUT_FIELDS:
            checker.add(where, f"output: unknown placeholder {{{name}}} (known: "
                               f"{', '.join('{' + n + '}' for n in OUTPUT_FIELDS)})")
            return None
        if name == "seed" and fields["seed"] is None:
            checker.add(where, "output: {seed} is used but the job has no \"seeds\"")
            return None
    return pattern.format(**fields)


def check_blend(checker, where, path):
    if not os.path.exists(path):
        checker.add(where, f"blend: {path}: no such file")
    elif not os.path.isfile(path):
        checker.add(where, f"blend: {path}: not a file")
    else:
        try:
            if not is_blend(path):
                checker.add(where, f"blend: {path}: not a .blend file")
        except OSError as error:
            checker.add(where, f"blend: {path}: cannot read it ({error.strerror})")


def load(path):
    """The job file at `path` as a Plan; raises JobFileError listing every problem."""
    document = read_document(path)
    base = os.path.dirname(os.path.abspath(path))
    checker = Checker()
    checker.unknown_keys("", document, TOP_KEYS)

    name = document.get("name", os.path.splitext(os.path.basename(path))[0])
    checker.name("", "name", name)
    farm_dir = document.get("farm_dir")
    if farm_dir is None:
        farm_dir = default_farm_dir(path)
    elif not isinstance(farm_dir, str) or not farm_dir:
        checker.add("", f"farm_dir: needs a folder path, got {describe(farm_dir)}")
    else:
        farm_dir = resolve(base, farm_dir)
    if isinstance(farm_dir, str) and "%" in farm_dir:
        checker.add("", f"farm_dir: {farm_dir}: '%' cannot be used (Slurm reads it in log file names)")
    checkpoint_every = document.get("checkpoint_every", DEFAULT_CHECKPOINT_EVERY)
    if not isinstance(checkpoint_every, int) or isinstance(checkpoint_every, bool) or checkpoint_every < 1:
        checker.add("", f"checkpoint_every: needs a whole number of frames of at least 1, "
                        f"got {describe(checkpoint_every)}")
    slurm = check_slurm(checker, document.get("slurm"))

    jobs = document.get("jobs")
    if not isinstance(jobs, list) or not jobs:
        checker.add("", "jobs: needs a list of at least one job, each with \"blend\" and \"output\"")
        jobs = []
    tasks = []
    job_names = {}
    outputs = {}
    for number, job in enumerate(jobs):
        where = f"jobs[{number}]"
        if not isinstance(job, dict):
            checker.add(where, "must be a table with \"blend\" and \"output\"")
            continue
        checker.unknown_keys(where, job, JOB_KEYS)
        blend = job.get("blend")
        if not isinstance(blend, str) or not blend:
            checker.add(where, "blend: needs the path of a .blend file")
            blend = None
        else:
            blend = resolve(base, blend)
        job_name = job.get("name")
        if job_name is None and blend:
            job_name = os.path.splitext(os.path.basename(blend))[0]
        if job_name is None or not checker.name(where, "name", job_name):
            continue
        where = f"job {job_name!r}"
        if job_name in job_names:
            checker.add(where, f"jobs[{job_names[job_name]}] and jobs[{number}] are both called {job_name!r}: "
                               "give each a \"name\" of its own")
            continue
        job_names[job_name] = number
        if blend:
            check_blend(checker, where, blend)
        frames = None
        if job.get("frames") is not None:
            frames = parse_frames(job["frames"])
            if frames is None:
                checker.add(where, f"frames: needs \"A-B\" (whole frames, B after A), got {describe(job['frames'])}")
        output = job.get("output")
        if not isinstance(output, str) or not output:
            checker.add(where, "output: needs the path of the baked .blend, e.g. \"out/{job}_{variant}.blend\"")
            output = None
        elif not output.endswith(".blend"):
            checker.add(where, f"output: {output!r} must end in .blend")
            output = None
        job_scatter = job.get("scatter")
        if job_scatter is not None:
            check_scatter(checker, where, job_scatter)
        seen_variants = set()
        for variant_name, seed, variant in expand_variants(checker, where, job):
            variant_where = f"{where}, variant {variant_name!r}"
            if variant_name in seen_variants:
                checker.add(variant_where, "two variants of this job have this name")
                continue
            seen_variants.add(variant_name)
            overrides = check_variant(checker, variant_where, {k: v for k, v in variant.items() if k != "name"},
                                      job_scatter)
            index = len(tasks)
            if output is None:
                continue
            formatted = format_output(checker, where, output,
                                      {"job": job_name, "variant": variant_name, "index": index, "seed": seed})
            if formatted is None:
                output = None  # said once per job
                continue
            task_output = resolve(base, formatted)
            key = os.path.realpath(task_output)
            if key in outputs:
                checker.add(variant_where, f"output: {task_output} is also the output of {outputs[key]}; "
                                           "every task needs a file of its own: use {job} and {variant} "
                                           "in output paths")
                continue
            if blend and key == os.path.realpath(blend):
                checker.add(variant_where, f"output: {task_output} would overwrite the job's own .blend")
                continue
            outputs[key] = f"job {job_name!r}, variant {variant_name!r}"
            tasks.append(Task(index, job_name, variant_name, blend, frames, task_output,
                              dict(name=variant_name, **overrides)))
    if checker.problems:
        raise JobFileError(path, checker.problems)
    return Plan(name, os.path.abspath(path), farm_dir, checkpoint_every, slurm, tasks)
