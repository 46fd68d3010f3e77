"""submit and resubmit: a job array whose task N bakes task N of the farm, and a collect job that
depends on it with afterok, so the summary is written as soon as every task has succeeded (and
Slurm cancels it instead when one fails: --kill-on-invalid-dep)."""

import os
import shlex
import sys

from . import farmdir, jobfile, slurm, summary

FARM_SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "simbake-farm")
COLLECT_TIME = "00:10:00"  # reading a few hundred small JSON files
ARRAY_ID_PLACEHOLDER = "<array job id>"


class Refused(Exception):
    """Submitting now would clash with what is already queued or running."""


def site_options(options):
    """Options the array tasks and the collect job share: where they run and who pays."""
    arguments = [f"--{key}={options[key]}" for key in ("partition", "account", "qos") if options.get(key)]
    return arguments + list(options.get("extra_args", []))


def array_arguments(farm_path, name, options, indices):
    arguments = [f"--array={slurm.array_spec(indices, options.get('max_parallel'))}",
                 "--requeue",  # a task preempted or on a failed node runs again and resumes
                 f"--job-name={name}", f"--chdir={farm_path}",
                 f"--output={os.path.join(farm_path, 'logs', 'task-%a.log')}", "--open-mode=append"]
    if options.get("time"):
        arguments.append(f"--time={options['time']}")
    if options.get("cpus_per_task"):
        arguments.append(f"--cpus-per-task={options['cpus_per_task']}")
    if options.get("mem"):
        arguments.append(f"--mem={options['mem']}")
    return arguments + site_options(options) + [os.path.join(farm_path, farmdir.TASK_SCRIPT)]


def collect_arguments(farm_path, name, options, dependency):
    return ([f"--dependency={dependency}", "--kill-on-invalid-dep=yes", f"--job-name={name}.collect",
             f"--chdir={farm_path}", f"--output={os.path.join(farm_path, 'logs', 'collect-%j.log')}",
             f"--time={COLLECT_TIME}", "--cpus-per-task=1"]
            + site_options(options) + [os.path.join(farm_path, farmdir.COLLECT_SCRIPT)])


def shown_command(arguments):
    return shlex.join(["sbatch", "--parsable", *arguments])


def active_jobs(farm):
    """Job ids of the farm's submissions that Slurm still has queued or running."""
    active = []
    for submission in farm.submissions():
        job_id = submission["job_id"]
        if submission["kind"] == "array":
            records = slurm.array_records(job_id) or {}
            if any(record.active for record in records.values()):
                active.append(job_id)
        else:
            record = slurm.job_record(job_id)
            if record is not None and record.active:
                active.append(job_id)
    return active


def check_farm_folder_free(path):
    """Raises Refused if `path` cannot take a new submission."""
    if not os.path.exists(path):
        return
    if not os.path.isdir(path):
        raise farmdir.FarmError(f"farm_dir {path} is a file, not a folder")
    if farmdir.looks_like_farm(path):
        busy = active_jobs(farmdir.Farm(path))
        if busy:
            raise Refused(f"{path} has Slurm jobs still queued or running ({', '.join(busy)}): wait for them "
                          f"or cancel them (scancel {' '.join(busy)}), then submit again; to rerun only the "
                          "failed tasks use simbake-farm resubmit")
    elif os.listdir(path):
        raise farmdir.FarmError(f"farm_dir {path} is a folder with other files in it, not a farm folder: "
                                "choose an empty or new folder")


def print_tasks(tasks):
    print(f"{'TASK':<5} {'JOB':<16} {'VARIANT':<20} {'FRAMES':<10} OUTPUT")
    for task in tasks:
        print(f"{task.index:<5} {task.job:<16} {task.variant:<20} {task.frames or 'scene':<10} "
              f"{summary.shown_path(task.output)}")


def remove_stale_checkpoints(plan):
    """A fresh submit bakes from the first frame: checkpoints of an earlier submit may come from
    other settings. (resubmit keeps them, so failed tasks resume.)"""
    removed = 0
    for task in plan.tasks:
        try:
            os.remove(farmdir.checkpoint_of(task.output))
            removed += 1
        except FileNotFoundError:
            pass
    return removed


def submit(plan, dry_run=False):
    """Writes the farm folder for `plan` and submits it; returns the exit code."""
    check_farm_folder_free(plan.farm_dir)
    task_indices = [task.index for task in plan.tasks]
    array_args = array_arguments(plan.farm_dir, plan.name, plan.slurm, task_indices)
    if dry_run:
        print(f"simbake-farm: dry run: {len(plan.tasks)} task(s) of '{plan.name}' into {plan.farm_dir}")
        print_tasks(plan.tasks)
        print(shown_command(array_args))
        print(shown_command(collect_arguments(plan.farm_dir, plan.name, plan.slurm,
                                              f"afterok:{ARRAY_ID_PLACEHOLDER}")))
        return 0
    if farmdir.looks_like_farm(plan.farm_dir):
        farmdir.clear(plan.farm_dir)
    removed = remove_stale_checkpoints(plan)
    # python3 as the nodes find it on PATH (sbatch passes the submitter's PATH on): the
    # interpreter running this may be a local install the nodes do not have
    farm = farmdir.create(plan, "python3", FARM_SCRIPT)
    print_tasks(plan.tasks)
    if removed:
        print(f"simbake-farm: removed {removed} checkpoint(s) of an earlier submit: every task bakes from "
              "its first frame")
    array_id = slurm.sbatch(array_args)
    farm.record_submission({"kind": "array", "job_id": array_id, "tasks": task_indices,
                            "command": shown_command(array_args)})
    print(f"simbake-farm: submitted {len(plan.tasks)} task(s) of '{plan.name}' as Slurm job array {array_id}")
    return submit_collect(farm, array_id, [])


def submit_collect(farm, array_id, also_after):
    """The collect job: after every task of `array_id` succeeded, and after the arrays in
    `also_after` ended however they ended."""
    dependency = ",".join([f"afterok:{array_id}"] + [f"afterany:{job_id}" for job_id in also_after])
    arguments = collect_arguments(farm.path, farm.name, farm.slurm, dependency)
    try:
        collect_id = slurm.sbatch(arguments)
    except slurm.SlurmError as error:
        print(f"simbake-farm: error: the tasks are submitted, but not the collect job: {error}\n"
              f"simbake-farm: run `{FARM_SCRIPT} collect {farm.path}` once they are done", file=sys.stderr)
        return 4
    farm.record_submission({"kind": "collect", "job_id": collect_id, "after": [array_id, *also_after],
                            "command": shown_command(arguments)})
    print(f"simbake-farm: collect job {collect_id} writes summary.json once they have all succeeded "
          "(if one fails, Slurm cancels it: run collect yourself)")
    print(f"  farm folder: {farm.path}")
    print(f"  follow:      {FARM_SCRIPT} status {farm.path}")
    print(f"  summary:     {FARM_SCRIPT} collect {farm.path}")
    print(f"  cancel:      scancel {array_id} {collect_id}")
    return 0


def choose_tasks(states, wanted):
    """The tasks to resubmit: `wanted` indices, or every failed one if `wanted` is None."""
    if wanted is None:
        return [s.index for s in states if s.outcome == summary.FAILED]
    chosen = []
    for index in wanted:
        if not 0 <= index < len(states):
            raise farmdir.FarmError(f"there is no task {index} (tasks are 0-{len(states) - 1})")
        state = states[index]
        if state.outcome == summary.DONE:
            raise Refused(f"task {index} ({state.job}, {state.variant}) is already baked: delete "
                          f"{state.output} to bake it again")
        if state.outcome == summary.PENDING:
            raise Refused(f"task {index} ({state.job}, {state.variant}) is {state.state}: wait for it, or "
                          f"cancel it (scancel {state.slurm_job})")
        chosen.append(index)
    return sorted(set(chosen))


def resubmit(farm, wanted=None, time=None, mem=None, dry_run=False):
    """Submits tasks `wanted` (or all failed ones) of `farm` again as a new array, with a new
    collect job; returns the exit code."""
    states, warning = summary.task_states(farm)
    if warning:
        raise slurm.SlurmError(warning)
    chosen = choose_tasks(states, wanted)
    if not chosen:
        print("simbake-farm: nothing to resubmit: no task has failed")
        return 0
    options = dict(farm.slurm)
    if time is not None:
        if not jobfile.TIME_PATTERN.match(time):
            raise farmdir.FarmError(f"--time {time}: not a Slurm time limit (minutes, HH:MM:SS or D-HH:MM:SS)")
        options["time"] = time
    if mem is not None:
        if not jobfile.MEM_PATTERN.match(mem):
            raise farmdir.FarmError(f"--mem {mem}: not a memory size (e.g. 4G, 500M)")
        options["mem"] = mem
    arguments = array_arguments(farm.path, farm.name, options, chosen)
    names = ", ".join(f"{i} ({farm.tasks[i]['variant']})" for i in chosen)
    if dry_run:
        print(f"simbake-farm: dry run: would resubmit task(s) {names}")
        print(shown_command(arguments))
        return 0
    array_id = slurm.sbatch(arguments)
    for index in chosen:
        farm.remove_report(index)  # the failure is history now; checkpoints stay, to resume from
    farm.record_submission({"kind": "array", "job_id": array_id, "tasks": chosen,
                            "command": shown_command(arguments)})
    print(f"simbake-farm: resubmitted task(s) {names} as Slurm job array {array_id}")
    # tasks of earlier arrays still running: the summary waits for them too
    still_running = sorted({s.slurm_job.split("_")[0] for s in states
                            if s.outcome == summary.PENDING and s.slurm_job})
    return submit_collect(farm, array_id, still_running)
