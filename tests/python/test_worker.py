"""The modal bake's worker thread and the Bake panel's text, in plain Python."""

import os
import tempfile
import threading
import time
import unittest
from array import array

from simbake import bake_state, pc2, worker


class WorkerTest(unittest.TestCase):
    def test_runs_the_task_off_the_calling_thread(self):
        seen = []
        w = worker.Worker()
        w.start(lambda: seen.append(threading.current_thread() is threading.main_thread()))
        self.assertTrue(w.wait(5.0))
        w.result()
        self.assertEqual(seen, [False])

    def test_is_busy_until_the_task_ends_and_refuses_a_second_task(self):
        release = threading.Event()
        w = worker.Worker()
        w.start(release.wait)
        self.assertTrue(w.busy)
        with self.assertRaises(RuntimeError):
            w.start(lambda: None)
        with self.assertRaises(RuntimeError):
            w.result()
        release.set()
        self.assertTrue(w.wait(5.0))
        self.assertFalse(w.busy)
        w.result()

    def test_hands_the_tasks_error_to_the_caller_once(self):
        def fail():
            time.sleep(0.01)
            raise ValueError("solver trouble")
        w = worker.Worker()
        w.start(fail)
        w.wait(5.0)
        with self.assertRaisesRegex(ValueError, "solver trouble"):
            w.result()
        w.start(lambda: None)
        w.wait(5.0)
        w.result()  # the old error is gone


class BakeStateTest(unittest.TestCase):
    def test_a_mesh_cache_bake_shows_frames_size_and_time(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "Cloth.pc2")
            with pc2.PC2Writer(path, 2730, 48) as writer:  # 1.5 MB
                for _ in range(48):
                    writer.write(array("f", bytes(12 * 2730)))
                writer.finish()
            record = {"output": "MESH_CACHE", "cache_file": path, "frames": [1, 48], "seconds": 12.34,
                      "baked_at": 0.0}
            lines = bake_state.describe(record)
        self.assertEqual(lines[0], "Baked frames 1-48 (48 frames) as mesh cache")
        self.assertEqual(lines[1], "Cache 1.5 MB: Cloth.pc2")
        self.assertTrue(lines[2].startswith("Last bake ") and lines[2].endswith("took 12.3 s"), lines[2])

    def test_a_missing_cache_file_is_pointed_out(self):
        record = {"output": "MESH_CACHE", "cache_file": "/nonexistent/Cloth.pc2", "frames": [1, 2]}
        self.assertIn("Cache file missing", bake_state.describe(record)[1])

    def test_a_cache_cut_short_after_the_bake_is_pointed_out(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "Cloth.pc2")
            with pc2.PC2Writer(path, 10, 4) as writer:
                for _ in range(4):
                    writer.write(array("f", bytes(120)))
                writer.finish()
            with open(path, "r+b") as f:
                f.truncate(200)
            lines = bake_state.describe({"output": "MESH_CACHE", "cache_file": path, "frames": [1, 4]})
        self.assertTrue(lines[1].startswith("Cache file damaged: ") and "expected 512" in lines[1], lines[1])

    def test_keyframes_live_in_the_blend(self):
        lines = bake_state.describe({"output": "KEYFRAMES", "frames": [5, 9], "seconds": 1.0, "baked_at": 0.0})
        self.assertEqual(lines[0], "Baked frames 5-9 (5 frames) as keyframes")
        self.assertEqual(len(lines), 2)

    def test_sizes_read_as_people_write_them(self):
        self.assertEqual(bake_state.human_size(512), "512 bytes")
        self.assertEqual(bake_state.human_size(2048), "2.0 KB")
        self.assertEqual(bake_state.human_size(5 * 1024 ** 3), "5.0 GB")


if __name__ == "__main__":
    unittest.main()
