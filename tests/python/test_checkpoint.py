"""Checkpoint files and PC2 caches going on from one (no Blender needed)."""

import os
import tempfile
import unittest
from array import array

from simbake import checkpoint, pc2


class CheckpointFiles(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.folder.name, "bake.blend.resume")

    def tearDown(self):
        self.folder.cleanup()

    def test_a_checkpoint_reads_back_as_written(self):
        info = dict(checkpoint.identity(1, 48, ["Flag"], ["Box"], "MESH_CACHE"), frame=12, parents={"Box": [[1.5] * 16]})
        blobs = {"solver": bytes(range(256)) * 3, "rigid Box": array("d", [0.1] * 32).tobytes(), "empty": b""}
        checkpoint.save(self.path, checkpoint.Checkpoint(info, blobs))
        loaded = checkpoint.load(self.path)
        self.assertEqual(loaded.info, info)
        self.assertEqual(loaded.blobs, blobs)
        self.assertFalse(os.path.exists(self.path + ".writing"))

    def test_damaged_files_are_named(self):
        checkpoint.save(self.path, checkpoint.Checkpoint({"frame": 3}, {"solver": b"x" * 100}))
        with open(self.path, "rb") as f:
            whole = f.read()
        for damaged, words in ((whole[:-1], "cut short"), (b"garbage" + whole, "not a SimBake checkpoint"),
                               (whole + b"!", "too many"), (whole[:len(checkpoint.MAGIC) + 3], "cut short")):
            with open(self.path, "wb") as f:
                f.write(damaged)
            with self.assertRaises(checkpoint.CheckpointError) as caught:
                checkpoint.load(self.path)
            self.assertIn(words, str(caught.exception))
        with self.assertRaises(checkpoint.CheckpointError):
            checkpoint.load(os.path.join(self.folder.name, "none"))

    def test_a_checkpoint_of_another_bake_says_what_differs(self):
        expected = checkpoint.identity(1, 48, ["Flag"], [], "MESH_CACHE")
        self.assertIsNone(checkpoint.mismatch(dict(expected, frame=10), expected))
        self.assertIn("frame end", checkpoint.mismatch(dict(expected, frame=10, frame_end=40), expected))
        self.assertIn("cloths", checkpoint.mismatch(dict(expected, frame=10, cloths=["Sail"]), expected))
        self.assertIn("not inside", checkpoint.mismatch(dict(expected, frame=48), expected))
        made_from = checkpoint.identity(1, 48, ["Flag"], [], "MESH_CACHE", {"blend": "a.blend", "size": 10})
        self.assertIn("another input file or variant",
                      checkpoint.mismatch(dict(made_from, frame=10, source={"blend": "a.blend", "size": 11}), made_from))

    def test_the_plan_says_when_a_checkpoint_is_due(self):
        plan = checkpoint.Plan("x", every=3, stop_at=8)
        due = [f for f in range(2, 21) if plan.due(f, 1, 20)]
        self.assertEqual(due, [4, 7, 8, 10, 13, 16, 19])
        self.assertFalse(checkpoint.Plan("x").due(5, 1, 20))
        with self.assertRaises(ValueError):
            checkpoint.Plan("x", every=-1)


class PC2Resume(unittest.TestCase):
    def test_a_detached_cache_goes_on_from_the_checkpoint_frame(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "cloth.pc2")
            frames = [array("f", [float(f + k) for k in range(6)]) for f in range(5)]
            writer = pc2.PC2Writer(path, 2, 5, 1.0)
            for frame in frames[:4]:
                writer.write(frame)
            writer.sync()
            writer.detach()  # killed after frame 4, its checkpoint counted 3
            resumed = pc2.PC2Writer(path, 2, 5, 1.0, resume_at=3)
            self.assertEqual(resumed.written, 3)
            for frame in frames[3:]:
                resumed.write(frame)
            resumed.finish()
            self.assertEqual(pc2.read_header(path)[3], 5)
            for index, frame in enumerate(frames):
                self.assertEqual(pc2.read_sample(path, index), frame)

    def test_a_cache_of_another_bake_is_not_resumed(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "cloth.pc2")
            writer = pc2.PC2Writer(path, 2, 5, 1.0)
            writer.write(array("f", [0.0] * 6))
            writer.detach()
            with self.assertRaises(pc2.PC2Error):
                pc2.PC2Writer(path, 3, 5, 1.0, resume_at=1)  # other vertex count
            with self.assertRaises(pc2.PC2Error):
                pc2.PC2Writer(path, 2, 5, 1.0, resume_at=2)  # fewer frames than the checkpoint's
            with self.assertRaises(pc2.PC2Error):
                pc2.PC2Writer(os.path.join(folder, "none.pc2"), 2, 5, 1.0, resume_at=1)


if __name__ == "__main__":
    unittest.main()
