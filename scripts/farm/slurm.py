"""Slurm's command line tools through subprocess: sbatch to submit, scontrol to ask what became
of a job or of an array's tasks, and sacct for jobs scontrol has already forgotten (it keeps
finished jobs for MinJobAge, 5 minutes by default)."""

import re
import subprocess
from dataclasses import dataclass

# A job in one of these is still queued or on a node; every other state is final.
ACTIVE_STATES = {"PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "SUSPENDED", "STOPPED", "REQUEUED",
                 "REQUEUE_HOLD", "REQUEUE_FED", "RESIZING", "SIGNALING", "STAGE_OUT", "RESV_DEL_HOLD"}
RUNNING_STATES = {"RUNNING", "CONFIGURING", "COMPLETING", "SIGNALING", "STAGE_OUT"}
# What a final state means for a task that left no report, and what to do about it.
WHY_KILLED = {
    "TIMEOUT": "reached its time limit; resubmit it with a longer --time (it resumes from its checkpoint)",
    "OUT_OF_MEMORY": "ran out of memory; resubmit it with more --mem",
    "PREEMPTED": "was preempted by Slurm; resubmit it (it resumes from its checkpoint)",
    "NODE_FAIL": "its node failed; resubmit it (it resumes from its checkpoint)",
    "BOOT_FAIL": "its node did not boot; resubmit it",
    "CANCELLED": "was cancelled (scancel or an administrator)",
    "DEADLINE": "missed its deadline",
    "FAILED": "failed before the bake could report (see its log)",
    "COMPLETED": "ended, but its report is gone",
}
TIMEOUT_SECONDS = 60
FIELD = re.compile(r"(?:^|\s)([A-Za-z][A-Za-z0-9_:/]*)=")


class SlurmError(Exception):
    pass


@dataclass
class JobRecord:
    """What Slurm says about one job or one array task."""
    job_id: str                  # "123_4" for task 4 of array 123, "124" for a plain job
    state: str                   # Slurm's JobState, e.g. PENDING, RUNNING, COMPLETED, TIMEOUT
    exit_code: int | None = None
    signal: int | None = None
    reason: str | None = None    # why it is pending, or why it ended

    @property
    def active(self):
        return self.state in ACTIVE_STATES

    def describe_exit(self):
        if self.signal:
            return f"killed by signal {self.signal}"
        return "" if self.exit_code is None else f"exit code {self.exit_code}"


def run(command):
    """stdout of `command`; SlurmError if it cannot run. The caller judges the exit code."""
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_SECONDS)
    except FileNotFoundError:
        raise SlurmError(f"{command[0]} not found: simbake-farm needs Slurm's client commands "
                         "(sbatch, scontrol) on PATH, on a machine that can submit to the cluster")
    except subprocess.TimeoutExpired:
        raise SlurmError(f"{command[0]} did not answer within {TIMEOUT_SECONDS} s: is slurmctld up?")


def sbatch(arguments):
    """Submits with `sbatch --parsable ARGUMENTS` and returns the job id."""
    done = run(["sbatch", "--parsable", *arguments])
    if done.returncode != 0:
        message = done.stderr.strip().replace("sbatch: error: ", "") or f"exit code {done.returncode}"
        raise SlurmError(f"sbatch failed: {message}")
    job_id = done.stdout.strip().split(";")[0]  # "id" or "id;cluster"
    if not job_id.isdigit():
        raise SlurmError(f"sbatch printed no job id (it printed {done.stdout.strip()!r})")
    return job_id


def cancel(job_ids):
    if job_ids:
        run(["scancel", *job_ids])


def array_spec(indices, max_parallel=None):
    """--array's value: [0, 1, 2, 5] → "0-2,5", with "%N" to run at most N at once."""
    indices = sorted(set(indices))
    parts = []
    start = previous = indices[0]
    for index in indices[1:] + [None]:
        if index is not None and index == previous + 1:
            previous = index
            continue
        parts.append(str(start) if start == previous else f"{start}-{previous}")
        start = previous = index
    return ",".join(parts) + (f"%{max_parallel}" if max_parallel else "")


def parse_indices(text):
    """"0-2,5" or "2-4%2" or "1-9:2" → the task indices."""
    indices = []
    for part in text.split("%")[0].strip("[]").split(","):
        if not part:
            continue
        span, _, step = part.partition(":")
        first, _, last = span.partition("-")
        indices.extend(range(int(first), int(last or first) + 1, int(step or 1)))
    return indices


def parse_fields(line):
    """The Key=Value pairs of one `scontrol show job -o` line (values may hold spaces)."""
    matches = list(FIELD.finditer(line))
    fields = {}
    for match, following in zip(matches, matches[1:] + [None]):
        end = following.start() if following else len(line)
        fields[match.group(1)] = line[match.end():end].strip()
    return fields


def parse_exit(text):
    """Slurm's "code:signal" → (code, signal)."""
    code, _, signal = (text or "").partition(":")
    try:
        return int(code), int(signal or 0)
    except ValueError:
        return None, None


def scontrol_records(job_id):
    """[fields of each line] of `scontrol show job -o JOB_ID`, or None if Slurm no longer
    knows the job."""
    done = run(["scontrol", "show", "job", "-o", job_id])
    if done.returncode != 0:
        if "Invalid job id" in done.stderr:
            return None
        raise SlurmError(f"scontrol show job {job_id}: {done.stderr.strip() or f'exit code {done.returncode}'}")
    return [parse_fields(line) for line in done.stdout.splitlines() if line.strip()]


def sacct_records(job_id):
    """[(job id, state, exit code text)] from the accounting database, or None if there is none."""
    try:
        done = run(["sacct", "-n", "-P", "-X", "-j", job_id, "-o", "JobID,State,ExitCode"])
    except SlurmError:
        return None
    if done.returncode != 0:
        return None
    rows = [line.split("|") for line in done.stdout.splitlines() if line.strip()]
    return [row for row in rows if len(row) == 3] or None


def record_from_fields(job_id, fields):
    code, signal = parse_exit(fields.get("ExitCode"))
    reason = fields.get("Reason")
    return JobRecord(job_id, fields.get("JobState", "UNKNOWN"), code, signal,
                     None if reason in (None, "None", "(null)") else reason)


def array_records(array_id):
    """{task index: JobRecord} for Slurm job array `array_id`; None if Slurm has no record."""
    lines = scontrol_records(array_id)
    records = {}
    if lines is not None:
        for fields in lines:
            if fields.get("ArrayJobId") != array_id or "ArrayTaskId" not in fields:
                continue
            for index in parse_indices(fields["ArrayTaskId"]):
                records[index] = record_from_fields(f"{array_id}_{index}", fields)
        return records
    rows = sacct_records(array_id)
    if rows is None:
        return None
    for job, state, exit_code in rows:
        base, _, tasks = job.partition("_")
        if base != array_id or not tasks:
            continue
        code, signal = parse_exit(exit_code)
        for index in parse_indices(tasks):
            records[index] = JobRecord(f"{array_id}_{index}", state.split()[0], code, signal)
    return records


def job_record(job_id):
    """JobRecord of a plain job, or None if Slurm has no record of it."""
    lines = scontrol_records(job_id)
    if lines:
        return record_from_fields(job_id, lines[0])
    rows = sacct_records(job_id) or []
    for job, state, exit_code in rows:
        if job == job_id:
            code, signal = parse_exit(exit_code)
            return JobRecord(job_id, state.split()[0], code, signal)
    return None
