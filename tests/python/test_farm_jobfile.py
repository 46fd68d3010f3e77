"""scripts/simbake-farm without a cluster: the job file (parsing, expansion, validation), the farm
folder, run-task, status, collect and resubmit, against a fake sbatch/scontrol/sacct/scancel
(small scripts this test writes onto PATH, sharing one JSON state file) and a fake bake.

    python3 -m unittest tests/python/test_farm_jobfile.py -v"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FARM = os.path.join(REPO, "scripts", "simbake-farm")
sys.path.insert(0, os.path.join(REPO, "scripts"))
from farm import farmdir, jobfile, slurm, summary  # noqa: E402

# The fake Slurm: every command reads and writes $FAKE_SLURM_STATE:
#   {"next_id": int, "sbatch_calls": [[args]], "sbatch_error": str|null,
#    "jobs": {id: {"tasks": {index: [state, "code:signal"]}} | {"state", "exit", "reason"}}}
FAKE_SLURM = r'''#!/usr/bin/env python3
import json, os, sys
path = os.environ["FAKE_SLURM_STATE"]
with open(path) as f:
    state = json.load(f)
command, args = os.path.basename(sys.argv[0]), sys.argv[1:]

def save():
    with open(path, "w") as f:
        json.dump(state, f)

def indices(spec):
    out = []
    for part in spec.split("%")[0].split(","):
        first, _, last = part.partition("-")
        out += range(int(first), int(last or first) + 1)
    return out

if command == "sbatch":
    state["sbatch_calls"].append(args)
    if state.get("sbatch_error"):
        save()
        sys.exit("sbatch: error: " + state["sbatch_error"])
    job_id = str(state["next_id"])
    state["next_id"] += 1
    array = [a.split("=", 1)[1] for a in args if a.startswith("--array=")]
    if array:
        state["jobs"][job_id] = {"tasks": {str(i): ["PENDING", "0:0"] for i in indices(array[0])}}
    else:
        state["jobs"][job_id] = {"state": "PENDING", "exit": "0:0", "reason": "Dependency"}
    save()
    print(job_id)
elif command == "scontrol":
    job_id = args[-1]
    job = state["jobs"].get(job_id)
    if job is None:
        sys.exit("slurm_load_jobs error: Invalid job id specified")
    if "tasks" in job:
        for number, (index, (job_state, exit_code)) in enumerate(sorted(job["tasks"].items())):
            print(f"JobId={int(job_id) * 100 + number} ArrayJobId={job_id} ArrayTaskId={index} "
                  f"JobName=fake farm UserId=root(0) JobState={job_state} Reason=None ExitCode={exit_code} "
                  f"Command=/some path/task.sh")
    else:
        print(f"JobId={job_id} JobName=fake.collect JobState={job['state']} Reason={job['reason']} "
              f"Dependency=(null) ExitCode={job['exit']}")
elif command == "sacct":
    sys.exit("sacct: error: Slurm accounting storage is disabled")
elif command == "scancel":
    save()
'''

# The fake bake: what scripts/simbake-bake does, as far as simbake-farm can tell. The variant's
# scene setting "fake.behaviour" picks: "bake" (default), "fail" (report, exit 1) or "crash"
# (killed, no report). Every call is appended to $FAKE_BAKE_CALLS.
FAKE_BAKE = r'''#!/usr/bin/env python3
import argparse, json, os, signal, sys
parser = argparse.ArgumentParser()
parser.add_argument("input")
parser.add_argument("-o", "--output", required=True)
parser.add_argument("--frames")
parser.add_argument("--json")
parser.add_argument("--variant")
parser.add_argument("--checkpoint-every", type=int)
parser.add_argument("--resume", action="store_true")
args = parser.parse_args()
with open(os.environ["FAKE_BAKE_CALLS"], "a") as f:
    f.write(json.dumps(sys.argv[1:]) + "\n")
with open(args.variant) as f:
    variant = json.load(f)
behaviour = variant.get("scene", {}).get("fake.behaviour", "bake")
resumed = os.path.exists(args.output + ".resume")
print("SimBake: frame 1")
if behaviour == "crash":
    print("Segmentation fault in the fake solver")
    sys.stdout.flush()
    os.kill(os.getpid(), signal.SIGKILL)
report = {"ok": behaviour == "bake", "input": args.input, "output": args.output, "variant": variant["name"],
          "frames": [1, 12], "seconds": 0.5, "objects": [], "resumed": resumed}
if behaviour == "fail":
    report.update(message=f"variant '{variant['name']}': objects.Nope: no object named 'Nope'", exit_code=1)
    print("simbake-bake: error: " + report["message"], file=sys.stderr)
else:
    os.makedirs(os.path.dirname(args.output), exist_ok=True)
    with open(args.output, "w") as f:
        f.write("baked " + json.dumps(variant))
    report.update(message="Baked 1 object(s)", exit_code=0)
with open(args.json, "w") as f:
    json.dump(report, f)
sys.exit(report["exit_code"])
'''


def write(path, text, mode=0o644):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)
    return path


def fake_blend(path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(b"BLENDER-v304" + bytes(64))
    return path


class FarmTestCase(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.mkdtemp(prefix="simbake-farm-test-")
        self.addCleanup(shutil.rmtree, self.folder, True)
        self.bin = os.path.join(self.folder, "bin")
        for command in ("sbatch", "scontrol", "sacct", "scancel"):
            write(os.path.join(self.bin, command), FAKE_SLURM, 0o755)
        self.bake = write(os.path.join(self.bin, "fake-bake"), FAKE_BAKE, 0o755)
        self.state_file = os.path.join(self.folder, "slurm-state.json")
        self.calls_file = os.path.join(self.folder, "bake-calls.jsonl")
        self.set_state({"next_id": 100, "sbatch_calls": [], "sbatch_error": None, "jobs": {}})
        self.environment = dict(os.environ, PATH=self.bin + os.pathsep + os.environ["PATH"],
                                FAKE_SLURM_STATE=self.state_file, FAKE_BAKE_CALLS=self.calls_file,
                                SIMBAKE_FARM_BAKE=self.bake)
        for name in ("SLURM_JOB_ID", "SLURM_ARRAY_JOB_ID", "SLURM_ARRAY_TASK_ID"):
            self.environment.pop(name, None)
        self.old_environment = dict(os.environ)
        os.environ.update(self.environment)  # the modules imported here call the fakes too
        self.addCleanup(self.restore_environment)
        self.blend = fake_blend(os.path.join(self.folder, "shots", "flag.blend"))

    def restore_environment(self):
        os.environ.clear()
        os.environ.update(self.old_environment)

    def state(self):
        with open(self.state_file) as f:
            return json.load(f)

    def set_state(self, state):
        with open(self.state_file, "w") as f:
            json.dump(state, f)

    def set_tasks(self, array_id, **tasks):
        """set_tasks("100", t0=("COMPLETED", "0:0"), ...): what Slurm says about each task."""
        state = self.state()
        for key, value in tasks.items():
            state["jobs"][array_id]["tasks"][key[1:]] = list(value)
        self.set_state(state)

    def bake_calls(self):
        if not os.path.exists(self.calls_file):
            return []
        with open(self.calls_file) as f:
            return [json.loads(line) for line in f]

    def job_file(self, document, name="jobs.json"):
        return write(os.path.join(self.folder, name), json.dumps(document, indent=2))

    def farm_cli(self, *args):
        return subprocess.run([sys.executable, FARM, *args], capture_output=True, text=True,
                              env=self.environment, cwd=self.folder)

    def flag_jobs(self, variants=None, **extra):
        variants = variants if variants is not None else [
            {"name": "soft", "objects": {"Flag": {"simbake.stretch_stiffness": 200}}},
            {"name": "stiff", "objects": {"Flag": {"simbake.stretch_stiffness": 5000}}},
            {"name": "heavy", "objects": {"Flag": {"simbake.density": 0.5}}}]
        document = {"name": "flags", "checkpoint_every": 4,
                    "slurm": {"time": "00:30:00", "cpus_per_task": 2, "max_parallel": 2},
                    "jobs": [{"blend": "shots/flag.blend", "frames": "1-12", "output": "out/flag_{variant}.blend",
                              "variants": variants}]}
        document.update(extra)
        return self.job_file(document)


class JobFileExpansion(FarmTestCase):
    def test_variants_become_tasks_with_paths_beside_the_job_file(self):
        plan = jobfile.load(self.flag_jobs())
        self.assertEqual(plan.name, "flags")
        self.assertEqual(plan.farm_dir, os.path.join(self.folder, "jobs.farm"))
        self.assertEqual(plan.checkpoint_every, 4)
        self.assertEqual([(t.index, t.job, t.variant) for t in plan.tasks],
                         [(0, "flag", "soft"), (1, "flag", "stiff"), (2, "flag", "heavy")])
        first = plan.tasks[0]
        self.assertEqual(first.blend, self.blend)
        self.assertEqual(first.frames, "1-12")
        self.assertEqual(first.output, os.path.join(self.folder, "out", "flag_soft.blend"))
        self.assertEqual(first.overrides, {"name": "soft", "objects": {"Flag": {"simbake.stretch_stiffness": 200}}})

    def test_a_job_without_variants_is_one_default_task(self):
        plan = jobfile.load(self.job_file({"jobs": [{"blend": self.blend, "output": "out/{job}.blend",
                                                     "frames": [1, 48]}]}))
        self.assertEqual(len(plan.tasks), 1)
        self.assertEqual((plan.tasks[0].job, plan.tasks[0].variant, plan.tasks[0].frames), ("flag", "default", "1-48"))
        self.assertEqual(plan.name, "jobs")

    def test_seeds_cross_every_variant_with_the_jobs_scatter(self):
        scatter = {"objects": ["Box*"], "location": [0.05, 0.05, 0], "rotation": [0, 0, 0.3]}
        plan = jobfile.load(self.job_file({"jobs": [
            {"name": "pile", "blend": self.blend, "output": "out/{job}/{variant}_{index}.blend",
             "seeds": "1-2", "scatter": scatter,
             "variants": [{"name": "slippery", "objects": {"Floor": {"simbake.friction": 0.1}}}, {"name": "rough"}]},
            {"name": "alone", "blend": self.blend, "output": "out/alone_{seed}.blend", "seeds": [7],
             "scatter": scatter}]}))
        self.assertEqual([t.variant for t in plan.tasks],
                         ["slippery_seed1", "slippery_seed2", "rough_seed1", "rough_seed2", "seed7"])
        self.assertEqual(plan.tasks[1].overrides["seed"], 2)
        self.assertEqual(plan.tasks[1].overrides["scatter"], scatter)
        self.assertEqual(plan.tasks[1].overrides["objects"], {"Floor": {"simbake.friction": 0.1}})
        self.assertEqual(plan.tasks[3].output, os.path.join(self.folder, "out", "pile", "rough_seed2_3.blend"))
        self.assertEqual(plan.tasks[4].output, os.path.join(self.folder, "out", "alone_7.blend"))

    def test_toml_job_files_work_too(self):
        path = write(os.path.join(self.folder, "jobs.toml"), textwrap.dedent("""
            name = "flags"
            farm_dir = "farm/flags"
            [slurm]
            time = "01:00:00"
            [[jobs]]
            blend = "shots/flag.blend"
            output = "out/{variant}.blend"
            [[jobs.variants]]
            name = "windy"
            scene = {"simbake.substeps" = 4}
            """))
        plan = jobfile.load(path)
        self.assertEqual(plan.farm_dir, os.path.join(self.folder, "farm", "flags"))
        self.assertEqual(plan.tasks[0].overrides["scene"], {"simbake.substeps": 4})
        self.assertEqual(plan.slurm["time"], "01:00:00")


class JobFileValidation(FarmTestCase):
    def problems(self, document):
        with self.assertRaises(jobfile.JobFileError) as caught:
            jobfile.load(self.job_file(document))
        return caught.exception.problems

    def assert_problem(self, problems, *words):
        matching = [p for p in problems if all(word in p for word in words)]
        self.assertTrue(matching, f"no problem mentions {words}: {problems}")

    def test_every_problem_is_reported_at_once_naming_job_variant_and_key(self):
        problems = self.problems({
            "checkpoint_every": 0,
            "slurm": {"time": "2 hours", "gpus": 1, "extra_args": ["--array=0-3"]},
            "jobs": [{"name": "flag", "blend": self.blend, "frames": "12-1", "output": "out/{variant}.blend",
                      "variants": [{"name": "soft", "objects": {"Flag": {"simbake.density": {"kg": 1}}}},
                                   {"name": "soft"}, {"name": "bad name"}, {"name": "lucky", "seed": 3},
                                   {"name": "typo", "object": {}}]}]})
        self.assert_problem(problems, "checkpoint_every")
        self.assert_problem(problems, "slurm", "time", "2 hours")
        self.assert_problem(problems, "slurm", "unknown key 'gpus'")
        self.assert_problem(problems, "extra_args", "--array")
        self.assert_problem(problems, "job 'flag'", "frames", "12-1")
        self.assert_problem(problems, "job 'flag', variant 'soft'", "objects.Flag.simbake.density")
        self.assert_problem(problems, "variant 'soft'", "two variants")
        self.assert_problem(problems, "'bad name' is not a usable name")
        self.assert_problem(problems, "variant 'lucky'", "seed", "scatter")
        self.assert_problem(problems, "variant 'typo'", "unknown key 'object'")

    def test_two_tasks_writing_one_file_are_refused(self):
        problems = self.problems({"jobs": [
            {"name": "a", "blend": self.blend, "output": "out/shot.blend"},
            {"name": "b", "blend": self.blend, "output": "out/../out/shot.blend"}]})
        self.assert_problem(problems, "job 'b', variant 'default'", "also the output of job 'a'")
        problems = self.problems({"jobs": [{"blend": self.blend, "output": "out/flag.blend",
                                            "variants": [{"name": "one"}, {"name": "two"}]}]})
        self.assert_problem(problems, "variant 'two'", "{variant}")

    def test_missing_and_wrong_blend_files_are_named(self):
        not_blend = write(os.path.join(self.folder, "notes.blend"), "not a blend")
        problems = self.problems({"jobs": [
            {"name": "gone", "blend": "shots/missing.blend", "output": "out/a.blend"},
            {"name": "text", "blend": not_blend, "output": "out/b.blend"}]})
        self.assert_problem(problems, "job 'gone'", "missing.blend", "no such file")
        self.assert_problem(problems, "job 'text'", "not a .blend file")

    def test_output_placeholders_are_checked(self):
        problems = self.problems({"jobs": [
            {"name": "a", "blend": self.blend, "output": "out/{shot}.blend"},
            {"name": "b", "blend": self.blend, "output": "out/{seed}.blend"},
            {"name": "c", "blend": self.blend, "output": "out/c.abc"}]})
        self.assert_problem(problems, "job 'a'", "unknown placeholder {shot}")
        self.assert_problem(problems, "job 'b'", "{seed}", "no \"seeds\"")
        self.assert_problem(problems, "job 'c'", "must end in .blend")

    def test_broken_json_points_at_the_line(self):
        path = write(os.path.join(self.folder, "broken.json"), '{"jobs": [\n  {"blend": "x.blend",}\n]}')
        with self.assertRaises(jobfile.JobFileError) as caught:
            jobfile.load(path)
        self.assertIn("line 2", str(caught.exception))

    def test_the_cli_submits_nothing_when_the_job_file_is_wrong(self):
        path = self.job_file({"jobs": [{"blend": "shots/missing.blend", "output": "out/a.blend"}]})
        done = self.farm_cli("submit", path)
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertIn("missing.blend: no such file", done.stderr)
        self.assertIn("nothing was submitted", done.stderr)
        self.assertEqual(self.state()["sbatch_calls"], [])
        self.assertFalse(os.path.exists(os.path.join(self.folder, "jobs.farm")))


class SlurmParsing(unittest.TestCase):
    def test_array_specs(self):
        self.assertEqual(slurm.array_spec([0, 1, 2, 3, 4]), "0-4")
        self.assertEqual(slurm.array_spec([3, 1, 0, 7, 8], 2), "0-1,3,7-8%2")
        self.assertEqual(slurm.parse_indices("0-2,5"), [0, 1, 2, 5])
        self.assertEqual(slurm.parse_indices("[2-4%2]"), [2, 3, 4])
        self.assertEqual(slurm.parse_indices("1-7:3"), [1, 4, 7])

    def test_scontrol_fields_with_spaces(self):
        fields = slurm.parse_fields("JobId=7 JobName=my shot JobState=TIMEOUT Reason=TimeLimit ExitCode=0:15 "
                                    "Command=/a b/task.sh WorkDir=/x")
        self.assertEqual(fields["JobName"], "my shot")
        self.assertEqual(fields["Command"], "/a b/task.sh")
        self.assertEqual(slurm.parse_exit(fields["ExitCode"]), (0, 15))


class TaskStates(unittest.TestCase):
    TASK = {"index": 3, "job": "flag", "variant": "stiff", "output": "/nowhere/flag_stiff.blend"}
    SUBMISSION = {"kind": "array", "job_id": "100", "tasks": [3]}

    def test_a_failed_report_gives_its_exit_code_and_message(self):
        state = summary.decide(self.TASK, {"ok": False, "exit_code": 1, "message": "variant 'stiff': boom"},
                               self.SUBMISSION, slurm.JobRecord("100_3", "FAILED", 1, 0))
        self.assertEqual((state.state, state.outcome, state.exit_code, state.message),
                         ("FAILED", summary.FAILED, 1, "variant 'stiff': boom"))

    def test_a_task_killed_by_slurm_shows_slurms_state(self):
        state = summary.decide(self.TASK, None, self.SUBMISSION, slurm.JobRecord("100_3", "TIMEOUT", 0, 15))
        self.assertEqual((state.state, state.outcome, state.exit_code), ("TIMEOUT", summary.FAILED, 143))
        self.assertIn("no report", state.message)
        self.assertIn("time limit", state.message)

    def test_queued_running_lost_and_unknown(self):
        pending = summary.decide(self.TASK, None, self.SUBMISSION,
                                 slurm.JobRecord("100_3", "PENDING", 0, 0, "Resources"))
        self.assertEqual((pending.state, pending.outcome), ("PENDING", summary.PENDING))
        self.assertIn("Resources", pending.message)
        # a rerun is under way: the old failed report is history
        running = summary.decide(self.TASK, {"ok": False, "exit_code": 1}, self.SUBMISSION,
                                 slurm.JobRecord("100_3", "RUNNING", 0, 0))
        self.assertEqual((running.state, running.outcome), ("RUNNING", summary.PENDING))
        forgotten = summary.decide(self.TASK, None, self.SUBMISSION, None)
        self.assertEqual((forgotten.state, forgotten.outcome), ("LOST", summary.FAILED))
        unknown = summary.decide(self.TASK, None, self.SUBMISSION, None, "scontrol not found")
        self.assertEqual((unknown.state, unknown.outcome), ("UNKNOWN", summary.PENDING))
        # the report says baked, but the output is gone
        gone = summary.decide(self.TASK, {"ok": True}, self.SUBMISSION, None)
        self.assertEqual((gone.state, gone.outcome), ("LOST", summary.FAILED))

    def test_exit_codes(self):
        def states(*outcomes):
            return [summary.TaskState(i, "j", "v", "X", o, None, "", "") for i, o in enumerate(outcomes)]
        self.assertEqual(summary.exit_code(states(summary.DONE, summary.DONE)), 0)
        self.assertEqual(summary.exit_code(states(summary.DONE, summary.FAILED)), 1)
        self.assertEqual(summary.exit_code(states(summary.FAILED, summary.PENDING)), 3)


class SubmitStatusCollectResubmit(FarmTestCase):
    def submit(self, path=None):
        done = self.farm_cli("submit", path or self.flag_jobs())
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        return farmdir.Farm(os.path.join(self.folder, "jobs.farm")), done

    def run_task(self, farm, index):
        return self.farm_cli("run-task", farm.path, str(index))

    def test_submit_writes_the_farm_folder_and_submits_an_array_and_a_collect_job(self):
        farm, done = self.submit()
        self.assertIn("Slurm job array 100", done.stdout)
        self.assertIn("collect job 101", done.stdout)
        array_call, collect_call = self.state()["sbatch_calls"]
        self.assertIn("--array=0-2%2", array_call)
        for expected in ("--requeue", "--parsable", "--time=00:30:00", "--cpus-per-task=2", "--job-name=flags",
                         f"--output={farm.path}/logs/task-%a.log", "--open-mode=append"):
            self.assertIn(expected, array_call)
        self.assertEqual(array_call[-1], farm.file("task.sh"))
        self.assertIn("--dependency=afterok:100", collect_call)
        self.assertIn("--kill-on-invalid-dep=yes", collect_call)
        self.assertEqual(collect_call[-1], farm.file("collect.sh"))
        with open(farm.file("task.sh")) as f:
            script = f.read()
        self.assertIn(f"run-task {farm.path} \"$SLURM_ARRAY_TASK_ID\"", script)
        self.assertEqual([(s["kind"], s["job_id"]) for s in farm.submissions()], [("array", "100"), ("collect", "101")])
        self.assertEqual(farm.submissions()[0]["tasks"], [0, 1, 2])
        task = farm.task(1)
        for key in ("index", "job", "variant", "blend", "frames", "output", "variant_file", "report", "log"):
            self.assertIn(key, task)
        with open(task["variant_file"]) as f:
            variant = json.load(f)
        self.assertEqual(variant["name"], "stiff")
        self.assertEqual(variant["objects"], {"Flag": {"simbake.stretch_stiffness": 5000}})
        # each output's cloth caches in a folder of their own, not one simbake_cache/ for all
        self.assertEqual(variant["scene"]["simbake.cache_dir"], "//simbake_cache/flag_stiff/")

    def test_dry_run_prints_the_commands_and_touches_nothing(self):
        done = self.farm_cli("submit", self.flag_jobs(), "--dry-run")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("sbatch --parsable --array=0-2%2", done.stdout)
        self.assertIn("afterok:", done.stdout)
        self.assertEqual(self.state()["sbatch_calls"], [])
        self.assertFalse(os.path.exists(os.path.join(self.folder, "jobs.farm")))

    def test_run_task_bakes_with_the_tasks_settings_and_skips_a_baked_task(self):
        farm, _ = self.submit()
        done = self.run_task(farm, 1)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        (call,) = self.bake_calls()
        task = farm.task(1)
        self.assertEqual(call[:3], [self.blend, "-o", task["output"]])
        for pair in (["--json", task["report"]], ["--variant", task["variant_file"]], ["--checkpoint-every", "4"],
                     ["--frames", "1-12"]):
            self.assertIn(pair, [call[i:i + 2] for i in range(len(call))])
        self.assertIn("--resume", call)
        self.assertTrue(farm.read_report(1)["ok"])
        with open(task["log"]) as f:
            self.assertIn("SimBake: frame 1", f.read())
        again = self.run_task(farm, 1)
        self.assertEqual(again.returncode, 0)
        self.assertIn("already baked", again.stdout)
        self.assertEqual(len(self.bake_calls()), 1)

    def test_a_bake_that_dies_without_a_report_gets_one(self):
        farm, _ = self.submit(self.flag_jobs([{"name": "crashy", "scene": {"fake.behaviour": "crash"}}]))
        done = self.run_task(farm, 0)
        self.assertEqual(done.returncode, 128 + 9)
        report = farm.read_report(0)
        self.assertFalse(report["ok"])
        self.assertEqual(report["exit_code"], 137)
        self.assertIn("SIGKILL", report["message"])
        self.assertIn("Segmentation fault in the fake solver", report["message"])

    def test_status_and_collect_follow_reports_and_slurm(self):
        farm, _ = self.submit(self.flag_jobs([
            {"name": "soft"}, {"name": "broken", "scene": {"fake.behaviour": "fail"}}, {"name": "late"}]))
        status = self.farm_cli("status", farm.path)
        self.assertEqual(status.returncode, 3, status.stdout)
        pending = [line for line in status.stdout.splitlines() if line[0].isdigit() and " PENDING " in line]
        self.assertEqual(len(pending), 3, status.stdout)
        self.run_task(farm, 0)
        self.run_task(farm, 1)
        self.set_tasks("100", t0=("COMPLETED", "0:0"), t1=("FAILED", "1:0"), t2=("RUNNING", "0:0"))
        status = self.farm_cli("status", farm.path)
        self.assertEqual(status.returncode, 3, status.stdout)
        lines = status.stdout.splitlines()
        self.assertRegex(lines[1], r"^0 +flag +soft +DONE +0 +100_0")
        self.assertRegex(lines[2], r"^1 +flag +broken +FAILED +1 +100_1 .*no object named 'Nope'")
        self.assertRegex(lines[3], r"^2 +flag +late +RUNNING")
        self.set_tasks("100", t2=("TIMEOUT", "0:15"))
        status = self.farm_cli("status", farm.path)
        self.assertEqual(status.returncode, 1, status.stdout)
        self.assertRegex(status.stdout, r"2 +flag +late +TIMEOUT +143 .*no report: Slurm says TIMEOUT")
        self.assertIn("--all-failed", status.stdout)
        # Slurm cancels the collect job once a task it waits for with afterok has failed
        state = self.state()
        state["jobs"]["101"].update(state="CANCELLED", reason="DependencyNeverSatisfied")
        self.set_state(state)
        status = self.farm_cli("status", farm.path)
        self.assertIn("collect job 101: CANCELLED (DependencyNeverSatisfied", status.stdout)

        collect = self.farm_cli("collect", farm.path)
        self.assertEqual(collect.returncode, 1, collect.stdout + collect.stderr)
        with open(farm.file("summary.json")) as f:
            document = json.load(f)
        self.assertEqual((document["done"], document["failed"], document["pending"]), (1, 2, 0))
        self.assertEqual([(t["variant"], t["ok"], t["state"], t["exit_code"]) for t in document["tasks"]],
                         [("soft", True, "DONE", 0), ("broken", False, "FAILED", 1), ("late", False, "TIMEOUT", 143)])
        self.assertEqual(document["tasks"][0]["frames"], [1, 12])
        with open(farm.file("summary.md")) as f:
            self.assertIn("| 1 | flag | broken | FAILED | 1 |", f.read())

    def test_resubmit_sends_only_the_failed_tasks_with_a_new_collect_job(self):
        farm, _ = self.submit(self.flag_jobs([
            {"name": "soft"}, {"name": "broken", "scene": {"fake.behaviour": "fail"}}, {"name": "slow"}]))
        for index in range(2):
            self.run_task(farm, index)
        self.set_tasks("100", t0=("COMPLETED", "0:0"), t1=("FAILED", "1:0"), t2=("TIMEOUT", "0:15"))
        refused = self.farm_cli("resubmit", farm.path, "--tasks", "0")
        self.assertEqual(refused.returncode, 1)
        self.assertIn("already baked", refused.stderr)
        done = self.farm_cli("resubmit", farm.path, "--all-failed", "--time", "02:00:00")
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        array_call, collect_call = self.state()["sbatch_calls"][2:]
        self.assertIn("--array=1-2%2", array_call)
        self.assertIn("--time=02:00:00", array_call)
        self.assertIn("--dependency=afterok:102", collect_call)
        self.assertIsNone(farm.read_report(1), "the old failure is gone")
        self.assertEqual(farm.latest_array_of(1)["job_id"], "102")
        self.assertEqual(farm.latest_array_of(0)["job_id"], "100")
        status = self.farm_cli("status", farm.path)
        self.assertRegex(status.stdout, r"1 +flag +broken +PENDING +102_1")
        # while they wait, they cannot be sent a second time
        again = self.farm_cli("resubmit", farm.path, "--tasks", "1")
        self.assertEqual(again.returncode, 1)
        self.assertIn("PENDING", again.stderr)

    def test_the_new_collect_job_also_waits_for_tasks_still_running(self):
        farm, _ = self.submit(self.flag_jobs([{"name": "slow"},
                                              {"name": "broken", "scene": {"fake.behaviour": "fail"}}]))
        self.run_task(farm, 1)
        self.set_tasks("100", t0=("RUNNING", "0:0"), t1=("FAILED", "1:0"))
        done = self.farm_cli("resubmit", farm.path, "--all-failed")
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        array_call, collect_call = self.state()["sbatch_calls"][2:]
        self.assertIn("--array=1%2", array_call)
        self.assertIn("--dependency=afterok:102,afterany:100", collect_call)

    def test_a_busy_farm_folder_takes_no_new_submit(self):
        farm, _ = self.submit()
        refused = self.farm_cli("submit", self.flag_jobs())
        self.assertEqual(refused.returncode, 1)
        self.assertIn("still queued or running", refused.stderr)
        self.assertIn("scancel 100 101", refused.stderr)
        # once everything has ended, a new submit starts afresh
        self.run_task(farm, 0)
        write(farm.task(1)["checkpoint"], "old checkpoint")
        self.set_tasks("100", t0=("COMPLETED", "0:0"), t1=("CANCELLED", "0:15"), t2=("CANCELLED", "0:15"))
        state = self.state()
        state["jobs"]["101"].update(state="CANCELLED", reason="DependencyNeverSatisfied")
        self.set_state(state)
        farm, done = self.submit()
        self.assertIn("removed 1 checkpoint", done.stdout)
        self.assertIsNone(farm.read_report(0))
        self.assertEqual([s["job_id"] for s in farm.submissions()], ["102", "103"])

    def test_sbatch_refusing_is_reported(self):
        state = self.state()
        state["sbatch_error"] = "invalid partition specified: gpu"
        self.set_state(state)
        done = self.farm_cli("submit", self.flag_jobs())
        self.assertEqual(done.returncode, 4)
        self.assertIn("sbatch failed: invalid partition specified: gpu", done.stderr)

    def test_the_job_file_stands_for_its_farm_folder(self):
        path = self.flag_jobs()
        self.submit(path)
        status = self.farm_cli("status", path)
        self.assertEqual(status.returncode, 3, status.stdout + status.stderr)
        missing = self.farm_cli("status", os.path.join(self.folder, "nowhere"))
        self.assertEqual(missing.returncode, 2)
        self.assertIn("no such folder", missing.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
