"""What one array task runs: scripts/simbake-bake for one task of a farm, with the task's frame
range and variant, a checkpoint every few frames, and --resume, so a requeued, preempted or
resubmitted task carries on from its last checkpoint instead of from the first frame
(simbake-bake itself starts over when the checkpoint was made from another .blend or variant).

A task whose report already says ok exits at once, so running an array again is cheap. A bake
that ends without writing its report (Blender crashed or was killed) gets one written here,
with its exit code and its last lines of output, so collect and status can tell what happened."""

import os
import signal
import socket
import subprocess
import time

from . import farmdir

# scripts/simbake-bake beside scripts/simbake-farm; SIMBAKE_FARM_BAKE may name another command
# with the same arguments (a site wrapper that loads Blender, say)
DEFAULT_BAKE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "simbake-bake")
BAKE_ENVIRONMENT = "SIMBAKE_FARM_BAKE"
LAST_LINES = 15


def bake_command(farm, task):
    command = [os.environ.get(BAKE_ENVIRONMENT) or DEFAULT_BAKE, task["blend"], "-o", task["output"],
               "--json", task["report"], "--variant", task["variant_file"],
               "--checkpoint-every", str(farm.data["checkpoint_every"]), "--resume"]
    if task.get("frames"):
        command += ["--frames", task["frames"]]
    return command


def child_environment():
    environment = dict(os.environ)
    # as many solver threads as Slurm gave the task CPUs, not as many as the node has
    if "OMP_NUM_THREADS" not in environment and environment.get("SLURM_CPUS_PER_TASK"):
        environment["OMP_NUM_THREADS"] = environment["SLURM_CPUS_PER_TASK"]
    return environment


def describe_end(code):
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"was killed by {name}"
    return f"exited with code {code}"


class Log:
    """Prints to stdout; when not run as an array task (whose --output already is the task's
    log) the lines are appended to the task's log as well, so the log holds every attempt."""

    def __init__(self, path):
        self.file = None if os.environ.get("SLURM_ARRAY_JOB_ID") else open(path, "a")

    def line(self, text):
        print(text, flush=True)
        if self.file:
            self.file.write(text + "\n")
            self.file.flush()

    def close(self):
        if self.file:
            self.file.close()


def run(farm, index):
    """Bakes task `index` of `farm`; returns simbake-bake's exit code."""
    task = farm.task(index)
    report = farm.read_report(index)
    if report and report.get("ok") and os.path.exists(task["output"]):
        print(f"simbake-farm: task {index} ({task['job']}, {task['variant']}) is already baked: "
              f"{task['output']}", flush=True)
        return 0
    farm.remove_report(index)  # from an earlier attempt: its absence now means "not finished"
    os.makedirs(os.path.dirname(task["log"]), exist_ok=True)
    log = Log(task["log"])
    try:
        return bake(farm, task, log)
    finally:
        log.close()


def bake(farm, task, log):
    slurm_job = os.environ.get("SLURM_ARRAY_JOB_ID")
    slurm_text = f", Slurm job {slurm_job}_{os.environ.get('SLURM_ARRAY_TASK_ID')}" if slurm_job else ""
    log.line(f"==== simbake-farm: task {task['index']} (job {task['job']}, variant {task['variant']}){slurm_text} "
             f"on {socket.gethostname()}, {farmdir.now()}")
    command = bake_command(farm, task)
    started = time.monotonic()
    last_lines = []
    # Slurm ends a cancelled, timed-out or preempted task with SIGTERM to all its processes:
    # then no report is written here, and status asks Slurm why the task ended
    stopped_by_slurm = []
    signal.signal(signal.SIGTERM, lambda signum, frame: stopped_by_slurm.append(signum))
    try:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                   errors="replace", env=child_environment())
    except OSError as error:
        message = f"cannot run {command[0]}: {error.strerror}"
        log.line(f"simbake-farm: error: {message}")
        write_own_report(task, 127, message, started)
        return 127
    for line in process.stdout:
        log.line(line.rstrip("\n"))
        if line.strip():
            last_lines = (last_lines + [line.rstrip()])[-LAST_LINES:]
    code = process.wait()
    if stopped_by_slurm or code == -signal.SIGTERM:  # the bake may get the signal first
        log.line(f"==== simbake-farm: task {task['index']} stopped by Slurm (SIGTERM); its checkpoint resumes it")
        return 128 + signal.SIGTERM
    report = farmdir.read_json(task["report"])
    if not isinstance(report, dict) or "ok" not in report:
        tail = " | ".join(last_lines[-3:]) or "no output"
        message = f"the bake {describe_end(code)} and wrote no report; last output: {tail}"
        code = code if code > 0 else (128 - code if code < 0 else 1)
        write_own_report(task, code, message, started, last_lines)
        report = farmdir.read_json(task["report"])
    elif code < 0:
        code = 128 - code
    outcome = "baked" if report.get("ok") else f"FAILED (exit code {code}): {report.get('message')}"
    log.line(f"==== simbake-farm: task {task['index']} {outcome}")
    return code


def write_own_report(task, code, message, started, last_lines=()):
    frames = [int(part) for part in task["frames"].split("-")] if task.get("frames") else None
    farmdir.write_json(task["report"], {
        "ok": False, "message": message, "exit_code": code, "input": task["blend"], "output": task["output"],
        "variant": task["variant"], "frames": frames, "seconds": time.monotonic() - started,
        "objects": [], "last_output": list(last_lines), "written_by": "simbake-farm run-task"})
