"""scripts/simbake-farm end to end on a real Slurm: a single-node cluster on localhost (slurmctld
and slurmd from Debian's packages, started with scripts/slurm-local in a temporary folder and
stopped at the end even when a test fails) bakes four variants of the curtain sample and one
deliberately broken variant as one job array.

    python3 tests/farm/test_slurm_farm.py      (as root: it installs and starts Slurm; needs Blender)

Checks: the four good variants complete and each output holds the bake of its own settings
(the property values in the saved .blend, its own cache file, caches that differ pairwise); the
broken one is FAILED with exit code 1 and a message naming the variant and the object; Slurm
cancels the afterok collect job; after the variant file is fixed, resubmitting that task alone
bakes it and the new collect job writes a summary with all five ok."""

import importlib.util
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FARM = os.path.join(REPO, "scripts", "simbake-farm")
SLURM_LOCAL = os.path.join(REPO, "scripts", "slurm-local")
SCENE = os.path.join(REPO, "sample_blends", "curtain.blend")
CLOTH = "Curtain"
BLENDER = os.environ.get("BLENDER") or shutil.which("blender")
WAIT_SECONDS = 180

# four good variants of the curtain, each visibly its own cloth, and one naming no real object
VARIANTS = [
    {"name": "soft", "objects": {CLOTH: {"simbake.stretch_stiffness": 800.0}}},
    {"name": "stiff", "objects": {CLOTH: {"simbake.stretch_stiffness": 30000.0}}},
    {"name": "heavy", "scene": {"simbake.substeps": 3}, "objects": {CLOTH: {"simbake.density": 1.5}}},
    {"name": "stiff_bend", "objects": {CLOTH: {"simbake.bend_stiffness": 0.005}}},
    {"name": "broken", "objects": {"NoSuchObject": {"simbake.density": 1.0}}},
]
GOOD = VARIANTS[:4]
BROKEN = 4
# what each output's cloth must hold: the variant's value, else the sample's own
SAMPLE_SETTINGS = {"stretch_stiffness": 5000.0, "density": 0.25, "bend_stiffness": 5e-5}
SAMPLE_SUBSTEPS = 2

# Blender prints, for every output, the cloth's settings and where its Mesh Cache reads from
READ_OUTPUTS = f"""
import bpy, json, sys
sys.path.insert(0, {os.path.join(REPO, 'addon')!r})
import simbake
simbake.register()
found = {{}}
for path in json.loads(sys.argv[sys.argv.index("--") + 1]):
    bpy.ops.wm.open_mainfile(filepath=path)
    cloth = bpy.data.objects[{CLOTH!r}]
    cache = cloth.modifiers.get("SimBake")
    found[path] = {{"stretch_stiffness": cloth.simbake.stretch_stiffness, "density": cloth.simbake.density,
                   "bend_stiffness": cloth.simbake.bend_stiffness, "substeps": bpy.context.scene.simbake.substeps,
                   "cache": bpy.path.abspath(cache.filepath) if cache else None}}
print("OUTPUTS " + json.dumps(found))
"""


def load_pc2_reader():
    """addon/simbake/pc2.py is plain Python; loaded alone so that bpy is not needed."""
    spec = importlib.util.spec_from_file_location("simbake_pc2", os.path.join(REPO, "addon", "simbake", "pc2.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def have_slurm():
    return all(shutil.which(tool) for tool in ("slurmctld", "slurmd", "sbatch"))


class SlurmFarm(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0 and not have_slurm():
            raise unittest.SkipTest("needs root (to install and start Slurm) or Slurm installed")
        if not BLENDER:
            raise AssertionError("Blender not found: run scripts/setup.sh")
        if not os.path.isfile(SLURM_LOCAL):
            raise AssertionError(f"{SLURM_LOCAL} is missing")
        cls.folder = tempfile.mkdtemp(prefix="simbake-farm-e2e-")
        cls.cluster = os.path.join(cls.folder, "cluster")
        # registered before the start, so a half-started cluster is stopped as well
        cls.addClassCleanup(cls.stop_cluster)
        started = time.monotonic()
        done = subprocess.run([SLURM_LOCAL, "start", cls.cluster], capture_output=True, text=True, timeout=900)
        if done.returncode != 0:
            raise AssertionError(f"slurm-local start failed:\n{done.stdout}\n{done.stderr}")
        print(f"\n[cluster up in {time.monotonic() - started:.1f} s]", file=sys.stderr)
        cls.environment = dict(os.environ, SLURM_CONF=os.path.join(cls.cluster, "slurm.conf"))
        for name in ("SLURM_JOB_ID", "SLURM_ARRAY_JOB_ID", "SLURM_ARRAY_TASK_ID"):
            cls.environment.pop(name, None)

        cls.jobfile = os.path.join(cls.folder, "curtains.json")
        with open(cls.jobfile, "w") as f:
            json.dump({"name": "curtains", "checkpoint_every": 4,
                       "slurm": {"time": "00:10:00", "cpus_per_task": 1},
                       "jobs": [{"blend": SCENE, "frames": "1-12", "output": "out/{job}_{variant}.blend",
                                 "variants": VARIANTS}]}, f, indent=2)
        cls.farm_dir = os.path.join(cls.folder, "curtains.farm")
        started = time.monotonic()
        cls.submitted = cls.farm("submit", cls.jobfile)
        if cls.submitted.returncode != 0:
            raise AssertionError(f"submit failed:\n{cls.submitted.stdout}\n{cls.submitted.stderr}")
        cls.first_collect = cls.submissions()[1]["job_id"]
        cls.first_status = cls.wait_until_finished()
        cls.collect_record = cls.wait_for_job_end(cls.first_collect)
        print(f"[first round done in {time.monotonic() - started:.1f} s]", file=sys.stderr)

    @classmethod
    def stop_cluster(cls):
        subprocess.run([SLURM_LOCAL, "stop", cls.cluster], capture_output=True, timeout=120)
        shutil.rmtree(cls.folder, ignore_errors=True)

    @classmethod
    def farm(cls, *args):
        return subprocess.run([sys.executable, FARM, *args], capture_output=True, text=True, env=cls.environment,
                              cwd=cls.folder, timeout=120)

    @classmethod
    def submissions(cls):
        with open(os.path.join(cls.farm_dir, "submissions.json")) as f:
            return json.load(f)["submissions"]

    @classmethod
    def wait_until_finished(cls):
        """simbake-farm status once nothing is pending or running any more (its exit code is not 3)."""
        deadline = time.monotonic() + WAIT_SECONDS
        while True:
            status = cls.farm("status", cls.farm_dir)
            if status.returncode != 3:
                return status
            if time.monotonic() > deadline:
                raise AssertionError(f"tasks still unfinished after {WAIT_SECONDS} s:\n{status.stdout}\n"
                                     + cls.slurm_logs())
            time.sleep(1)

    @classmethod
    def job_fields(cls, job_id):
        done = subprocess.run(["scontrol", "show", "job", "-o", job_id], capture_output=True, text=True,
                              env=cls.environment)
        fields = {}
        for word in done.stdout.split():
            key, _, value = word.partition("=")
            fields.setdefault(key, value)
        return fields

    @classmethod
    def wait_for_job_end(cls, job_id):
        """scontrol's fields of job `job_id` once it is neither pending nor running."""
        deadline = time.monotonic() + WAIT_SECONDS
        while True:
            fields = cls.job_fields(job_id)
            if fields.get("JobState") not in ("PENDING", "RUNNING", "CONFIGURING", "COMPLETING", None):
                return fields
            if time.monotonic() > deadline:
                raise AssertionError(f"job {job_id} still {fields.get('JobState')} after {WAIT_SECONDS} s\n"
                                     + cls.slurm_logs())
            time.sleep(1)

    @classmethod
    def slurm_logs(cls):
        text = ""
        for log in ("log/slurmctld.log", "log/slurmd.log"):
            path = os.path.join(cls.cluster, log)
            if os.path.exists(path):
                with open(path) as f:
                    text += f"--- {log}\n" + "".join(f.readlines()[-30:])
        return text

    def task_log(self, index):
        with open(os.path.join(self.farm_dir, "logs", f"task-{index}.log")) as f:
            return f.read()

    def output(self, variant):
        return os.path.join(self.folder, "out", f"curtain_{variant}.blend")

    def test_1_each_good_variant_holds_the_bake_of_its_own_settings(self):
        paths = [self.output(v["name"]) for v in GOOD]
        for path in paths:
            self.assertTrue(os.path.isfile(path), f"{path} was not written")
            self.assertFalse(os.path.exists(path + ".resume"), "the checkpoint stays after a whole bake")
        done = subprocess.run([BLENDER, "-b", "--factory-startup", "--python-exit-code", "1",
                               "--python-expr", READ_OUTPUTS, "--", json.dumps(paths)],
                              capture_output=True, text=True, timeout=300)
        self.assertEqual(done.returncode, 0, done.stdout[-3000:] + done.stderr[-3000:])
        line = next(l for l in done.stdout.splitlines() if l.startswith("OUTPUTS "))
        found = json.loads(line[len("OUTPUTS "):])
        pc2 = load_pc2_reader()
        last_frames = {}
        for variant, path in zip(GOOD, paths):
            settings = found[path]
            expected = dict(SAMPLE_SETTINGS, **{key.split(".", 1)[1]: value
                                                for key, value in variant["objects"][CLOTH].items()})
            for key, value in expected.items():
                self.assertAlmostEqual(settings[key], value, delta=1e-6 * value,
                                       msg=f"{variant['name']}: {key} in {path}")
            self.assertEqual(settings["substeps"], variant.get("scene", {}).get("simbake.substeps", SAMPLE_SUBSTEPS))
            # its own cache, beside its own output
            self.assertEqual(settings["cache"], os.path.join(self.folder, "out", "simbake_cache",
                                                             f"curtain_{variant['name']}", f"{CLOTH}.pc2"))
            points, _, _, samples = pc2.read_header(settings["cache"])
            self.assertEqual(samples, 12, f"{variant['name']}: frames 1-12")
            last_frames[variant["name"]] = pc2.read_sample(settings["cache"], samples - 1)
        for (name_a, a), (name_b, b) in itertools.combinations(last_frames.items(), 2):
            largest = max(abs(x - y) for x, y in zip(a, b))
            self.assertGreater(largest, 1e-4, f"{name_a} and {name_b} baked the same cloth")

    def test_2_the_broken_variant_is_failed_with_its_message(self):
        status = self.first_status
        self.assertEqual(status.returncode, 1, status.stdout + status.stderr)
        lines = {line.split()[0]: line for line in status.stdout.splitlines() if line[:1].isdigit()}
        for index in range(4):
            self.assertRegex(lines[str(index)], rf"^{index} +curtain +{VARIANTS[index]['name']} +DONE +0 ")
        self.assertRegex(lines[str(BROKEN)], r"^4 +curtain +broken +FAILED +1 .*variant 'broken'.*NoSuchObject")
        self.assertIn("variant 'broken'", self.task_log(BROKEN))

        collect = self.farm("collect", self.farm_dir)
        self.assertEqual(collect.returncode, 1, collect.stdout + collect.stderr)
        with open(os.path.join(self.farm_dir, "summary.json")) as f:
            summary = json.load(f)
        self.assertEqual((summary["done"], summary["failed"], summary["pending"]), (4, 1, 0))
        self.assertEqual([t["variant"] for t in summary["tasks"]], [v["name"] for v in VARIANTS])
        self.assertEqual([t["ok"] for t in summary["tasks"]], [True] * 4 + [False])
        broken = summary["tasks"][BROKEN]
        self.assertEqual((broken["state"], broken["exit_code"]), ("FAILED", 1))
        self.assertIn("broken", broken["message"])
        self.assertIn("NoSuchObject", broken["message"])
        for task in summary["tasks"][:4]:
            self.assertEqual(task["frames"], [1, 12])

    def test_3_slurm_cancels_the_afterok_collect_job_when_a_task_fails(self):
        fields = self.collect_record
        self.assertEqual(fields.get("JobState"), "CANCELLED", fields)
        self.assertEqual(fields.get("Reason"), "DependencyNeverSatisfied", fields)
        self.assertFalse(os.path.exists(os.path.join(self.farm_dir, "logs", f"collect-{self.first_collect}.log")),
                         "the collect job ran")
        status = self.farm("status", self.farm_dir)
        self.assertIn(f"collect job {self.first_collect}: CANCELLED", status.stdout)

    def test_4_the_fixed_variant_resubmitted_alone_completes_and_collect_sums_up_all(self):
        variant_file = os.path.join(self.farm_dir, "variants", f"{BROKEN}.json")
        with open(variant_file) as f:
            variant = json.load(f)
        variant["objects"] = {CLOTH: {"simbake.density": 0.6}}  # the fix: the object's real name
        with open(variant_file, "w") as f:
            json.dump(variant, f)
        started = time.monotonic()
        done = self.farm("resubmit", self.farm_dir, "--tasks", str(BROKEN))
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        array, collect = self.submissions()[2:]
        self.assertEqual((array["kind"], array["tasks"]), ("array", [BROKEN]))
        self.assertIn(f"--array={BROKEN}", array["command"])
        self.assertEqual(collect["after"], [array["job_id"]])
        status = self.wait_until_finished()
        self.assertEqual(status.returncode, 0, status.stdout + status.stderr)
        fields = self.wait_for_job_end(collect["job_id"])
        print(f"[resubmitted task done in {time.monotonic() - started:.1f} s]", file=sys.stderr)
        self.assertEqual((fields.get("JobState"), fields.get("ExitCode")), ("COMPLETED", "0:0"), fields)
        with open(os.path.join(self.farm_dir, "summary.json")) as f:
            summary = json.load(f)
        self.assertEqual(summary["collect_job"], collect["job_id"], "summary.json is not the collect job's")
        self.assertEqual((summary["done"], summary["failed"], summary["pending"]), (5, 0, 0))
        self.assertTrue(all(task["ok"] for task in summary["tasks"]))
        self.assertEqual(summary["tasks"][BROKEN]["slurm_job"], f"{array['job_id']}_{BROKEN}")
        self.assertTrue(os.path.isfile(self.output("broken")))
        log = self.task_log(BROKEN)  # both attempts, one after the other
        self.assertLess(log.index("NoSuchObject"), log.index(f"task {BROKEN} baked"))

    def test_5_a_cancelled_task_resumes_from_its_checkpoint_when_resubmitted(self):
        """The longest sample (the tablecloth, 72 frames) is cancelled after its first checkpoint:
        Slurm's state stands in for the missing report, and the resubmitted task goes on from the
        checkpoint instead of frame 1."""
        jobfile = os.path.join(self.folder, "long.json")
        with open(jobfile, "w") as f:
            json.dump({"name": "long", "checkpoint_every": 6, "slurm": {"time": "00:10:00", "cpus_per_task": 1},
                       "jobs": [{"blend": os.path.join(REPO, "sample_blends", "tablecloth.blend"),
                                 "output": "out/{job}.blend"}]}, f)
        farm_dir = os.path.join(self.folder, "long.farm")
        done = self.farm("submit", jobfile)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        with open(os.path.join(farm_dir, "submissions.json")) as f:
            array_id = json.load(f)["submissions"][0]["job_id"]
        checkpoint = os.path.join(self.folder, "out", "tablecloth.blend.resume")
        deadline = time.monotonic() + WAIT_SECONDS
        while not os.path.exists(checkpoint):
            self.assertLess(time.monotonic(), deadline, "no checkpoint was saved")
            time.sleep(0.2)
        subprocess.run(["scancel", f"{array_id}_0"], check=True, env=self.environment)
        self.wait_for_job_end(f"{array_id}_0")
        status = self.farm("status", farm_dir)
        self.assertEqual(status.returncode, 1, status.stdout + status.stderr)
        self.assertRegex(status.stdout, r"0 +tablecloth +default +CANCELLED .*no report: Slurm says CANCELLED")

        done = self.farm("resubmit", farm_dir, "--all-failed")
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        deadline = time.monotonic() + WAIT_SECONDS
        while (status := self.farm("status", farm_dir)).returncode == 3:
            self.assertLess(time.monotonic(), deadline, status.stdout)
            time.sleep(1)
        self.assertEqual(status.returncode, 0, status.stdout + status.stderr)
        with open(os.path.join(farm_dir, "reports", "0.json")) as f:
            report = json.load(f)
        self.assertTrue(report["ok"], report)
        self.assertGreater(report.get("resumed_from", 1), 1, "the resubmitted task baked from frame 1")
        self.assertFalse(os.path.exists(checkpoint))


if __name__ == "__main__":
    unittest.main(verbosity=2)
