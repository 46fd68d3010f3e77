"""What became of every task of a farm: its report first (written by the bake, ok or not), then
Slurm for tasks without one (still queued or running, or killed before they could report), and
the summary files collect writes from that."""

import os
from dataclasses import asdict, dataclass

from . import farmdir, slurm

DONE, FAILED, PENDING = "done", "failed", "pending"  # outcomes
EXIT_OK, EXIT_FAILED, EXIT_UNFINISHED = 0, 1, 3


@dataclass
class TaskState:
    index: int
    job: str
    variant: str
    state: str                 # DONE, FAILED, PENDING, RUNNING, LOST, UNKNOWN or Slurm's final state
    outcome: str               # DONE, FAILED or PENDING (pending also means running)
    exit_code: int | None
    message: str
    output: str
    slurm_job: str | None = None
    frames: list | None = None
    seconds: float | None = None
    resumed_from: int | None = None  # the frame a resumed bake went on from
    log: str | None = None

    @property
    def ok(self):
        return self.outcome == DONE


def decide(task, report, submission, record, slurm_problem=None):
    """The state of one task.

    task: its tasks.json entry; report: its report or None; submission: the last array
    submission that ran it, or None; record: Slurm's JobRecord of it, or None if Slurm has
    none; slurm_problem: why Slurm could not be asked, if it could not."""
    state = TaskState(task["index"], task["job"], task["variant"], "", PENDING, None, "", task["output"],
                      record.job_id if record else (f"{submission['job_id']}_{task['index']}" if submission else None),
                      log=task.get("log"))
    if report is not None:
        state.frames, state.seconds = report.get("frames"), report.get("seconds")
        state.resumed_from = report.get("resumed_from")
    if report is not None and report.get("ok"):
        if os.path.exists(task["output"]):
            state.state, state.outcome, state.exit_code = "DONE", DONE, 0
            return state
        state.state, state.outcome = "LOST", FAILED
        state.message = f"its report says baked, but {task['output']} is gone; resubmit it to bake it again"
        return state
    # a failed report belongs to an earlier attempt if Slurm is running the task again
    if record is not None and record.active:
        state.state = "RUNNING" if record.state in slurm.RUNNING_STATES else "PENDING"
        if state.state == "PENDING":
            state.message = f"waiting: {record.reason}" if record.reason else "waiting in the queue"
        return state
    if report is not None:
        state.state, state.outcome = "FAILED", FAILED
        state.exit_code = report.get("exit_code", record.exit_code if record else None)
        state.message = report.get("message") or "the bake failed without a message (see its log)"
        return state
    if submission is None:
        state.state, state.outcome = "LOST", FAILED
        state.message = "no report, and it was never submitted; resubmit it"
        return state
    if slurm_problem:
        state.state = "UNKNOWN"
        state.message = f"no report yet, and Slurm cannot be asked: {slurm_problem}"
        return state
    if record is None:
        state.state, state.outcome = "LOST", FAILED
        state.message = (f"no report, and Slurm no longer knows job {state.slurm_job} "
                         "(finished long ago, or removed); see its log, or resubmit it")
        return state
    # a COMPLETED task without a report lost it (deleted by hand): nothing Slurm did
    state.state, state.outcome = ("LOST" if record.state == "COMPLETED" else record.state), FAILED
    state.exit_code = 128 + record.signal if record.signal else record.exit_code
    why = slurm.WHY_KILLED.get(record.state, "ended")
    exit_text = record.describe_exit()
    state.message = f"no report: Slurm says {record.state}{f' ({exit_text})' if exit_text else ''}, it {why}"
    return state


def task_states(farm, ask_slurm=True):
    """(TaskState of every task, a warning or None). Slurm is asked once per array, and only
    about arrays that ran a task that has not succeeded."""
    records = {}  # array job id -> {index: JobRecord} or None
    problem = None if ask_slurm else "not asked"
    states = []
    for task in farm.tasks:
        index = task["index"]
        report = farm.read_report(index)
        submission = farm.latest_array_of(index)
        record = None
        wanted = not (report and report.get("ok")) and submission is not None
        if wanted and problem is None:
            array_id = submission["job_id"]
            if array_id not in records:
                try:
                    records[array_id] = slurm.array_records(array_id)
                except slurm.SlurmError as error:
                    problem = str(error)
            record = (records.get(array_id) or {}).get(index)
        states.append(decide(task, report, submission, record, problem))
    warning = problem if problem and problem != "not asked" else None
    return states, warning


def totals(states):
    counts = {DONE: 0, FAILED: 0, PENDING: 0}
    for state in states:
        counts[state.outcome] += 1
    return counts


def exit_code(states):
    """3 while anything is still queued or running, then 1 if any task failed, else 0."""
    counts = totals(states)
    if counts[PENDING]:
        return EXIT_UNFINISHED
    return EXIT_FAILED if counts[FAILED] else EXIT_OK


def shown_path(path):
    """Relative to the working folder when below it: shorter lines for the usual case."""
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


def rows(states):
    header = ["TASK", "JOB", "VARIANT", "STATE", "EXIT", "SLURM JOB", "OUTPUT", "MESSAGE"]
    body = [[str(s.index), s.job, s.variant, s.state, "" if s.exit_code is None else str(s.exit_code),
             s.slurm_job or "", shown_path(s.output), s.message] for s in states]
    return header, body


def table(states):
    """Aligned plain-text table, one line per task."""
    header, body = rows(states)
    widths = [max(len(row[column]) for row in [header] + body) for column in range(len(header))]
    lines = []
    for row in [header] + body:
        lines.append("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())
    return lines


def totals_line(states):
    counts = totals(states)
    return (f"{len(states)} task(s): {counts[DONE]} done, {counts[FAILED]} failed, "
            f"{counts[PENDING]} pending or running")


def collect_job_line(farm):
    """What became of the latest collect job, or None if there is none."""
    collects = [s for s in farm.submissions() if s["kind"] == "collect"]
    if not collects:
        return None
    job_id = collects[-1]["job_id"]
    try:
        record = slurm.job_record(job_id)
    except slurm.SlurmError:
        return None
    if record is None:
        return f"collect job {job_id}: Slurm no longer knows it"
    line = f"collect job {job_id}: {record.state}"
    if record.reason == "DependencyNeverSatisfied" or (record.state == "CANCELLED" and record.reason):
        line += f" ({record.reason}: a task it waited for failed, so it will not run)"
    elif record.state == "PENDING" and record.reason == "Dependency":
        line += " (waits for its tasks: it runs once they have all succeeded)"
    elif record.reason:
        line += f" ({record.reason})"
    return line


def document(farm, states):
    counts = totals(states)
    return {"name": farm.name, "farm_dir": farm.path, "collected": farmdir.now(),
            "collect_job": os.environ.get("SLURM_JOB_ID"),
            "tasks": [{**{key: value for key, value in asdict(state).items() if key != "outcome"},
                       "ok": state.ok} for state in states],
            "done": counts[DONE], "failed": counts[FAILED], "pending": counts[PENDING]}


def markdown(farm, states):
    def cell(text):
        return str(text).replace("|", "\\|").replace("\n", " ")
    lines = [f"# simbake-farm: {farm.name}", "", totals_line(states) + ".", "",
             "| task | job | variant | state | exit | frames | seconds | output | message |",
             "|---:|---|---|---|---:|---|---:|---|---|"]
    for s in states:
        frames = f"{s.frames[0]}-{s.frames[1]}" if s.frames else ""
        seconds = f"{s.seconds:.1f}" if isinstance(s.seconds, (int, float)) else ""
        exit_text = "" if s.exit_code is None else s.exit_code
        lines.append(f"| {s.index} | {cell(s.job)} | {cell(s.variant)} | {s.state} | {exit_text} | {frames} "
                     f"| {seconds} | {cell(s.output)} | {cell(s.message)} |")
    return "\n".join(lines) + "\n"


def write_summary(farm, states):
    """summary.json and summary.md in the farm folder."""
    farmdir.write_json(farm.file(farmdir.SUMMARY_JSON), document(farm, states))
    temporary = farm.file(f"{farmdir.SUMMARY_MD}.{os.getpid()}.tmp")
    with open(temporary, "w") as f:
        f.write(markdown(farm, states))
    os.replace(temporary, farm.file(farmdir.SUMMARY_MD))
