"""The farm folder: everything simbake-farm keeps about one submitted job file. It must be on
a file system every node sees, since the array tasks read it and write their reports there.

    tasks.json             the expanded tasks and the settings they are submitted with
    variants/<i>.json      task i's --variant file for scripts/simbake-bake
    reports/<i>.json       task i's --json report, there once its bake has ended (ok or not)
    logs/task-<i>.log      task i's output; every attempt (requeue, resubmit) is appended
    logs/collect-<id>.log  output of collect job <id>
    task.sh, collect.sh    the batch scripts sbatch runs
    submissions.json       every sbatch: array job ids with their tasks, collect job ids
    summary.json, summary.md   written by collect
"""

import json
import os
import shlex
import shutil
import time

TASKS = "tasks.json"
SUBMISSIONS = "submissions.json"
SUMMARY_JSON = "summary.json"
SUMMARY_MD = "summary.md"
TASK_SCRIPT = "task.sh"
COLLECT_SCRIPT = "collect.sh"
FOLDERS = ("variants", "reports", "logs")
FILES = (TASKS, SUBMISSIONS, SUMMARY_JSON, SUMMARY_MD, TASK_SCRIPT, COLLECT_SCRIPT)


class FarmError(Exception):
    pass


def write_json(path, data):
    """Whole or not at all: the collect job and a user may write at the same time."""
    temporary = f"{path}.{os.getpid()}.tmp"
    with open(temporary, "w") as f:
        json.dump(data, f, indent=2)
        f.write("\n")
    os.replace(temporary, path)


def read_json(path):
    """The file's content, or None if it is missing or not (yet) whole JSON."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def now():
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


def checkpoint_of(output):
    """Where scripts/simbake-bake --checkpoint-every keeps its resume checkpoint."""
    return output + ".resume"


def cache_dir_for(output):
    """Each output's cloth caches in a folder of their own: otherwise every variant of a scene
    would write the same simbake_cache/<object>.pc2 beside its output."""
    stem = os.path.splitext(os.path.basename(output))[0]
    return f"//simbake_cache/{stem}/"


def variant_file_content(task):
    overrides = json.loads(json.dumps(task.overrides))  # a copy
    scene = overrides.setdefault("scene", {})
    scene.setdefault("simbake.cache_dir", cache_dir_for(task.output))
    return overrides


def batch_script(python, farm_script, arguments, comment, shell_tail=""):
    """A /bin/sh script running simbake-farm; `shell_tail` is appended unquoted (a variable)."""
    command = " ".join(shlex.quote(part) for part in [python, farm_script, *arguments])
    return f"#!/bin/sh\n# {comment}\nexec {command}{' ' + shell_tail if shell_tail else ''}\n"


class Farm:
    """An existing farm folder (one with a tasks.json)."""

    def __init__(self, path):
        self.path = os.path.abspath(path)
        data = read_json(os.path.join(self.path, TASKS))
        if data is None:
            if os.path.isdir(self.path):
                raise FarmError(f"{self.path}: not a farm folder (no readable {TASKS}); give the folder "
                                "simbake-farm submit printed, or the job file")
            raise FarmError(f"{self.path}: no such folder")
        self.data = data
        self.name = data["name"]
        self.tasks = data["tasks"]
        self.slurm = data.get("slurm", {})

    def file(self, *parts):
        return os.path.join(self.path, *parts)

    def task(self, index):
        if not 0 <= index < len(self.tasks):
            raise FarmError(f"{self.path}: no task {index} (tasks are 0-{len(self.tasks) - 1})")
        return self.tasks[index]

    def read_report(self, index):
        return read_json(self.tasks[index]["report"])

    def remove_report(self, index):
        try:
            os.remove(self.tasks[index]["report"])
        except FileNotFoundError:
            pass

    def submissions(self):
        data = read_json(self.file(SUBMISSIONS))
        return data["submissions"] if data else []

    def record_submission(self, entry):
        submissions = self.submissions()
        submissions.append(dict(entry, submitted=now()))
        write_json(self.file(SUBMISSIONS), {"submissions": submissions})

    def array_submissions(self):
        return [s for s in self.submissions() if s["kind"] == "array"]

    def latest_array_of(self, index):
        """The last array submission that ran task `index`, or None."""
        for submission in reversed(self.array_submissions()):
            if index in submission["tasks"]:
                return submission
        return None


def clear(path):
    """Removes what an earlier submit left in an idle farm folder (and only that)."""
    for name in FILES:
        try:
            os.remove(os.path.join(path, name))
        except FileNotFoundError:
            pass
    for name in FOLDERS:
        shutil.rmtree(os.path.join(path, name), ignore_errors=True)


def looks_like_farm(path):
    return os.path.isfile(os.path.join(path, TASKS))


def create(plan, python, farm_script):
    """Writes a new farm folder for `plan` (a jobfile.Plan) and returns it as a Farm."""
    path = plan.farm_dir
    for name in FOLDERS:
        os.makedirs(os.path.join(path, name), exist_ok=True)
    tasks = []
    for task in plan.tasks:
        entry = task.as_dict()
        entry.update(variant_file=os.path.join(path, "variants", f"{task.index}.json"),
                     report=os.path.join(path, "reports", f"{task.index}.json"),
                     log=os.path.join(path, "logs", f"task-{task.index}.log"),
                     checkpoint=checkpoint_of(task.output))
        write_json(entry["variant_file"], variant_file_content(task))
        tasks.append(entry)
    with open(os.path.join(path, TASK_SCRIPT), "w") as f:
        f.write(batch_script(python, farm_script, ["run-task", path],
                             f"simbake-farm: array task N bakes task N of {TASKS}",
                             shell_tail='"$SLURM_ARRAY_TASK_ID"'))
    with open(os.path.join(path, COLLECT_SCRIPT), "w") as f:
        f.write(batch_script(python, farm_script, ["collect", path],
                             "simbake-farm: gathers every task's report into summary.json and summary.md"))
    write_json(os.path.join(path, TASKS), {
        "name": plan.name, "jobfile": plan.jobfile, "farm_dir": path, "created": now(),
        "checkpoint_every": plan.checkpoint_every, "slurm": plan.slurm, "tasks": tasks})
    return Farm(path)
