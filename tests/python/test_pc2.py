"""PC2 files: layout Blender's Mesh Cache reads, streaming, and refusal of bad data."""

import os
import struct
import tempfile
import unittest
from array import array

from simbake import pc2


class PC2Files(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.mkdtemp()
        self.path = os.path.join(self.folder, "sub", "cloth.pc2")

    def test_round_trip_and_layout(self):
        samples = [array("f", [i + 0.5 * k for k in range(6)]) for i in range(3)]
        writer = pc2.PC2Writer(self.path, 2, 3, start_frame=5, sample_rate=1.0)
        for sample in samples:
            writer.write(sample)
        self.assertFalse(os.path.exists(self.path), "file visible before finish()")
        writer.finish()
        self.assertEqual(pc2.read_header(self.path), (2, 5.0, 1.0, 3))
        for index, sample in enumerate(samples):
            self.assertEqual(pc2.read_sample(self.path, index), sample)
        with open(self.path, "rb") as f:
            raw = f.read()
        self.assertEqual(raw[:12], b"POINTCACHE2\0")
        self.assertEqual(struct.unpack("<iiffi", raw[12:32]), (1, 2, 5.0, 1.0, 3))
        self.assertEqual(len(raw), 32 + 3 * 2 * 12)

    def test_float64_samples_are_stored_as_float32(self):
        writer = pc2.PC2Writer(self.path, 1, 1)
        writer.write(array("d", [0.1, 0.2, 0.3]))
        writer.finish()
        self.assertEqual(pc2.read_sample(self.path, 0), array("f", [0.1, 0.2, 0.3]))

    def test_abort_leaves_nothing(self):
        with self.assertRaises(ValueError):
            with pc2.PC2Writer(self.path, 1, 2) as writer:
                writer.write(array("f", [1, 2, 3]))
                raise ValueError("cancelled")
        self.assertFalse(os.path.exists(os.path.dirname(self.path)), "the folder it made is left behind")

    def test_abort_keeps_a_folder_that_was_there(self):
        os.makedirs(os.path.dirname(self.path))
        pc2.PC2Writer(self.path, 1, 2).abort()
        self.assertEqual(os.listdir(os.path.dirname(self.path)), [])

    def test_wrong_sizes_are_refused(self):
        writer = pc2.PC2Writer(self.path, 2, 1)
        with self.assertRaises(pc2.PC2Error):
            writer.write(array("f", [1, 2, 3]))
        writer.write(array("f", [1, 2, 3, 4, 5, 6]))
        with self.assertRaises(pc2.PC2Error):
            writer.write(array("f", [1, 2, 3, 4, 5, 6]))
        writer.finish()

    def test_incomplete_cache_is_not_published(self):
        writer = pc2.PC2Writer(self.path, 1, 2)
        writer.write(array("f", [1, 2, 3]))
        with self.assertRaises(pc2.PC2Error):
            writer.finish()
        self.assertFalse(os.path.exists(self.path))

    def test_truncated_or_foreign_files_are_detected(self):
        writer = pc2.PC2Writer(self.path, 1, 2)
        writer.write(array("f", [1, 2, 3]))
        writer.write(array("f", [4, 5, 6]))
        writer.finish()
        with open(self.path, "r+b") as f:
            f.truncate(40)
        with self.assertRaises(pc2.PC2Error):
            pc2.read_header(self.path)
        with open(self.path, "wb") as f:
            f.write(b"not a cache at all, not at all")
        with self.assertRaises(pc2.PC2Error):
            pc2.read_header(self.path)


if __name__ == "__main__":
    unittest.main()
