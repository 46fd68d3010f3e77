"""Cache writes two bakes cannot spoil: a PC2 cache appears whole or not at all (temporary
file in the same folder, fsync, one rename), a second writer of the same cache is refused
while the first holds it, and two .blend files with the default Cache Folder get their own
subfolders (cache_paths)."""

import os
import subprocess
import sys
import tempfile
import unittest
from array import array
from unittest import mock

from simbake import cache_owner, cache_paths, pc2

ADDON = os.path.dirname(os.path.dirname(os.path.abspath(pc2.__file__)))


def sample(value, points=2):
    return array("f", [float(value)] * (3 * points))


class AtomicPC2Writes(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.mkdtemp()
        self.path = os.path.join(self.folder, "cloth.pc2")

    def test_the_cache_is_fsynced_before_it_takes_its_name(self):
        writer = pc2.PC2Writer(self.path, 2, 2)
        writer.write(sample(1))
        writer.write(sample(2))
        calls = []
        real_fsync, real_replace = os.fsync, os.replace
        with mock.patch("os.fsync", side_effect=lambda fd: (calls.append("fsync"), real_fsync(fd))), \
                mock.patch("os.replace", side_effect=lambda a, b: (calls.append("replace"), real_replace(a, b))):
            writer.finish()
        self.assertEqual(calls[:2], ["fsync", "replace"], "the samples must be on disk before the rename")
        self.assertEqual(pc2.read_header(self.path), (2, 1.0, 1.0, 2))

    def test_a_reader_sees_the_old_cache_whole_until_the_new_one_is_whole(self):
        old = pc2.PC2Writer(self.path, 2, 1)
        old.write(sample(7))
        old.finish()
        new = pc2.PC2Writer(self.path, 2, 3)
        for value in (1, 2):
            new.write(sample(value))
            new.sync()
            self.assertEqual(pc2.read_header(self.path), (2, 1.0, 1.0, 1))  # size checked too
            self.assertEqual(pc2.read_sample(self.path, 0), sample(7))
        new.write(sample(3))
        new.finish()
        self.assertEqual(pc2.read_header(self.path), (2, 1.0, 1.0, 3))
        self.assertEqual(pc2.read_sample(self.path, 2), sample(3))

    def test_a_second_writer_of_the_same_cache_is_refused_and_spoils_nothing(self):
        first = pc2.PC2Writer(self.path, 2, 2)
        first.write(sample(1))
        with self.assertRaises(pc2.PC2Busy) as refused:
            pc2.PC2Writer(self.path, 2, 2)
        self.assertIn("another bake is writing this cache", str(refused.exception))
        with self.assertRaises(pc2.PC2Busy):
            pc2.PC2Writer(self.path, 2, 2, resume_at=1)  # nor may it take the cache over to resume
        first.write(sample(2))
        first.finish()
        self.assertEqual([pc2.read_sample(self.path, i) for i in range(2)], [sample(1), sample(2)])

    def test_a_writer_in_another_process_is_refused_too(self):
        first = pc2.PC2Writer(self.path, 2, 2)
        code = ("import sys; from simbake import pc2\n"
                "try:\n    pc2.PC2Writer(sys.argv[1], 2, 2)\nexcept pc2.PC2Busy:\n    sys.exit(7)\n")
        done = subprocess.run([sys.executable, "-c", code, self.path], env=dict(os.environ, PYTHONPATH=ADDON))
        self.assertEqual(done.returncode, 7)
        first.abort()
        done = subprocess.run([sys.executable, "-c", code, self.path], env=dict(os.environ, PYTHONPATH=ADDON))
        self.assertEqual(done.returncode, 0, "the lock goes with the writer")

    def test_a_killed_writers_leftover_is_neither_locked_nor_kept(self):
        with open(self.path + ".partial", "wb") as f:
            f.write(b"x" * 1000)  # a killed bake's half-written samples; its lock died with it
        writer = pc2.PC2Writer(self.path, 2, 1)
        writer.write(sample(4))
        writer.finish()
        self.assertEqual(pc2.read_header(self.path), (2, 1.0, 1.0, 1))
        self.assertFalse(os.path.exists(self.path + ".partial"))

    def test_a_refused_writers_abort_leaves_the_holders_file(self):
        first = pc2.PC2Writer(self.path, 2, 1)
        first.write(sample(5))
        first.sync()
        first.detach()
        holder = pc2.PC2Writer(self.path, 2, 1, resume_at=1)  # a resumed bake holds it now
        first.abort()  # the paused writer's abort finds the file taken: it stays
        self.assertTrue(os.path.exists(self.path + ".partial"))
        holder.finish()
        self.assertEqual(pc2.read_sample(self.path, 0), sample(5))

    def test_an_abort_removes_every_folder_it_made_and_no_other(self):
        deep = os.path.join(self.folder, "simbake_cache", "A", "cloth.pc2")
        os.makedirs(os.path.join(self.folder, "simbake_cache", "B"))
        pc2.PC2Writer(os.path.join(self.folder, "new", "A", "cloth.pc2"), 2, 1).abort()
        pc2.PC2Writer(deep, 2, 1).abort()
        self.assertEqual(sorted(os.listdir(self.folder)), ["simbake_cache"])
        self.assertEqual(os.listdir(os.path.join(self.folder, "simbake_cache")), ["B"])

    def test_a_detached_writers_abort_removes_its_file(self):
        writer = pc2.PC2Writer(self.path, 2, 2)
        writer.write(sample(1))
        writer.detach()
        writer.abort()
        self.assertEqual(os.listdir(self.folder), [])


class CopiesLeaveTheOriginalsCache(unittest.TestCase):
    def test_a_cache_is_held_by_another_blend_only_while_that_blend_exists(self):
        folder = tempfile.mkdtemp()
        original, copy = os.path.join(folder, "shot.blend"), os.path.join(folder, "copy.blend")
        cache = os.path.join(folder, "simbake_cache", "shot", "Flag.pc2")
        os.makedirs(os.path.dirname(cache))
        open(cache, "wb").close()
        self.assertFalse(cache_owner.held_by_other_blend(cache, copy), "no owner file: nobody's")
        cache_owner.claim(cache, original, "Scene")
        self.assertFalse(cache_owner.held_by_other_blend(cache, copy), "its .blend is gone")
        open(original, "wb").close()
        self.assertTrue(cache_owner.held_by_other_blend(cache, copy))
        self.assertTrue(cache_owner.held_by_other_blend(cache, ""))  # an unsaved file
        self.assertFalse(cache_owner.held_by_other_blend(cache, original), "its own")


class CacheFolders(unittest.TestCase):
    def test_the_default_folder_gets_a_subfolder_per_blend(self):
        a = cache_paths.folder_setting("//simbake_cache/", "/shots/out/A.blend")
        b = cache_paths.folder_setting("//simbake_cache/", "/shots/out/B.blend")
        self.assertEqual(a, "//simbake_cache/A/")
        self.assertEqual(b, "//simbake_cache/B/")
        for spelled in ("", "//simbake_cache", "//simbake_cache\\"):
            self.assertEqual(cache_paths.folder_setting(spelled, "/x/A.blend"), a)

    def test_a_chosen_folder_is_used_as_it_is(self):
        for chosen in ("//caches/", "/mnt/cache/shot42/", "//simbake_cache/flag_soft/"):
            self.assertEqual(cache_paths.folder_setting(chosen, "/x/A.blend"), chosen)

    def test_blend_names_become_safe_distinct_folder_names(self):
        names = ["shot 1", "shot_1", "../up", "Ärmel", "a.b", ".hidden"]
        folders = [cache_paths.folder_setting("", f"/x/{name}.blend") for name in names]
        self.assertEqual(len(set(folders)), len(names))
        for folder in folders:
            part = folder[len(cache_paths.DEFAULT_FOLDER):-1]
            self.assertRegex(part, r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")
        self.assertEqual(cache_paths.folder_setting("", "/x/a.b.blend"), "//simbake_cache/a.b/")


if __name__ == "__main__":
    unittest.main()
