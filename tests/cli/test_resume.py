"""Resumable bakes: a bake stopped at a frame (asked to, or killed) and resumed from its
checkpoint ends with the same bytes as the bake that never stopped: cloth caches, rigid-body
keys and shape keys. Each bake runs in its own Blender process with the same thread count.

    python3 tests/cli/test_resume.py     (needs Blender on PATH or $BLENDER)"""

import json
import os
import shutil
import signal
import subprocess
import tempfile
import unittest

import baked

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BAKE = os.path.join(REPO, "scripts", "simbake-bake")
# cloth with self collision on a table, colliders and rigid bodies
SCENE = os.path.join(REPO, "sample_blends", "tablecloth.blend")
FRAMES = "1-16"
ENV = dict(os.environ, OMP_NUM_THREADS="2")
PAUSED = 75


def bake(out, *extra):
    done = baked.run(BAKE, SCENE, "-o", f"{out}/scene.blend", "--frames", FRAMES, "--json", f"{out}/report.json",
                     *extra, env=ENV)
    with open(f"{out}/report.json") as f:
        return done, json.load(f)


class Resume(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.mkdtemp(prefix="simbake-resume-")
        cls.straight = {}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.folder, ignore_errors=True)

    def path(self, name):
        return os.path.join(self.folder, name)

    def uninterrupted(self, variant=None):
        """The bake that never stopped (made once per variant)."""
        if variant not in self.straight:
            out = self.path(f"straight-{variant or 'plain'}")
            done, report = bake(out, *(["--variant", variant] if variant else []))
            self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
            self.straight[variant] = baked.result(f"{out}/scene.blend", f"{out}/report.json")
        return self.straight[variant]

    def assert_same_bake(self, out, variant=None):
        caches, digest = baked.result(f"{out}/scene.blend", f"{out}/report.json")
        straight_caches, straight_digest = self.uninterrupted(variant)
        self.assertEqual(digest, straight_digest, "rigid keys or shape keys differ from the uninterrupted bake")
        self.assertEqual(len(caches), len(straight_caches))
        for resumed, straight in zip(caches, straight_caches):
            self.assertEqual(resumed, straight, "a cloth cache differs from the uninterrupted bake")

    def test_a_bake_stopped_at_a_frame_and_resumed_matches_the_uninterrupted_one(self):
        out = self.path("stopped")
        done, report = bake(out, "--stop-at", "7")
        self.assertEqual(done.returncode, PAUSED, done.stdout + done.stderr)
        self.assertTrue(report["paused"], report)
        self.assertIn("stopped at frame 7", done.stdout)
        self.assertTrue(os.path.isfile(f"{out}/scene.blend.resume"))
        self.assertEqual(done.stdout.count("SimBake: frame "), 6)

        done, report = bake(out, "--resume")
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertEqual(report["resumed_from"], 7)
        self.assertIn("resuming at frame 7", done.stdout)
        self.assertEqual(done.stdout.count("SimBake: frame "), 9, "frames 8-16 only")
        self.assertFalse(os.path.exists(f"{out}/scene.blend.resume"), "a whole bake leaves no checkpoint")
        self.assertFalse([name for _, _, names in os.walk(f"{out}/simbake_cache") for name in names
                          if name.endswith(".partial")])
        self.assert_same_bake(out)

    def test_a_killed_bake_resumes_from_its_last_checkpoint(self):
        """Killed as a time limit or a lost node would (SIGKILL, no clean-up), after frame 11;
        checkpoints every 3 frames: the last one is at frame 10."""
        out = self.path("killed")
        os.makedirs(out)
        command = [BAKE, SCENE, "-o", f"{out}/scene.blend", "--frames", FRAMES, "--checkpoint-every", "3"]
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=ENV,
                                   start_new_session=True)
        for line in process.stdout:
            if line.startswith("SimBake: frame 11 "):
                os.killpg(process.pid, signal.SIGKILL)
                break
        process.stdout.close()
        process.wait()
        self.assertEqual(process.returncode, -signal.SIGKILL, "the bake ended before it could be killed")

        done, report = bake(out, "--checkpoint-every", "3", "--resume")
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertEqual(report["resumed_from"], 10)
        self.assert_same_bake(out)

    def test_shape_key_output_resumes_too(self):
        variant = self.path("shape_keys.json")
        with open(variant, "w") as f:
            json.dump({"name": "shape keys", "scene": {"simbake.cloth_output": "SHAPE_KEYS"}}, f)
        out = self.path("shape-keys")
        done, _ = bake(out, "--variant", variant, "--stop-at", "5")
        self.assertEqual(done.returncode, PAUSED, done.stdout + done.stderr)
        done, report = bake(out, "--variant", variant, "--resume")
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertEqual(report["resumed_from"], 5)
        self.assert_same_bake(out, variant)

    def test_a_checkpoint_made_with_another_variant_is_not_resumed(self):
        """A variant fixed between the stop and the resume: the bake starts over, as the
        checkpoint holds a state of the old settings."""
        out = self.path("fixed")
        os.makedirs(out)
        variant = os.path.join(out, "variant.json")
        with open(variant, "w") as f:
            json.dump({"name": "shaky", "objects": {"Tablecloth": {"simbake.stretch_stiffness": 300.0}}}, f)
        done, _ = bake(out, "--variant", variant, "--stop-at", "4")
        self.assertEqual(done.returncode, PAUSED, done.stdout + done.stderr)
        self.assertTrue(os.path.exists(f"{out}/scene.blend.resume"))
        with open(variant, "w") as f:  # the fix
            json.dump({"name": "shaky", "objects": {"Tablecloth": {"simbake.stretch_stiffness": 800.0}}}, f)
        done, report = bake(out, "--variant", variant, "--resume")
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertIn("baking from the start", done.stdout)
        self.assertIn("another input file or variant", done.stdout)
        self.assertNotIn("resumed_from", report)
        self.assertEqual(done.stdout.count("SimBake: frame "), 15, "every frame again")
        self.assertFalse(os.path.exists(f"{out}/scene.blend.resume"), "the stale checkpoint is gone")

    def test_a_checkpoint_of_another_bake_is_not_resumed(self):
        """Other frames than the checkpoint's: the bake says so and starts from the beginning."""
        out = self.path("other")
        done, _ = bake(out, "--stop-at", "4")
        self.assertEqual(done.returncode, PAUSED, done.stdout + done.stderr)
        done = baked.run(BAKE, SCENE, "-o", f"{out}/scene.blend", "--frames", "1-6", "--resume", env=ENV)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertIn("not resuming", done.stdout)
        self.assertIn("frame end", done.stdout)
        self.assertEqual(done.stdout.count("SimBake: frame "), 5)


if __name__ == "__main__":
    unittest.main(verbosity=2)
