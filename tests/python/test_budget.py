"""The memory a bake is told it needs, against what the library really takes, and the checks
that refuse a bake that cannot fit (plain Python)."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

from simbake import budget

# Peak resident growth of a fresh process that adds an n x n grid cloth of `size` m and
# simulates one frame; printed as JSON.
MEASURE = r"""
import json, sys
from simbake import native
from test_native import grid
n, self_collision, size = int(sys.argv[1]), sys.argv[2] == "1", float(sys.argv[3])
def peak():
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) * 1024 for l in f if l.startswith("VmHWM"))
positions, triangles = grid(n, size)
native.load()
before = peak()
with native.World() as world:
    world.add_cloth(positions, triangles, self_collision=self_collision)
    world.step_to(1 / 24)
    print(json.dumps(peak() - before))
"""


def measured_growth(n, self_collision, size):
    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([here, os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-c", MEASURE, str(n), "1" if self_collision else "0", str(size)],
                         check=True, capture_output=True, text=True, env=env).stdout
    return json.loads(out)


class MemoryEstimate(unittest.TestCase):
    def check_bounds(self, n, self_collision, size):
        triangles = 2 * (n - 1) ** 2
        edge = budget.typical_edge_length(size * size, triangles)
        cloth = budget.ClothSize(n * n, self_collision, 0.005, edge)
        estimated = budget.estimate([cloth], 0, 10, "MESH_CACHE").memory
        real = measured_growth(n, self_collision, size)
        self.assertGreaterEqual(estimated, real, f"{n}², self collision {self_collision}: underestimated")
        self.assertLessEqual(estimated, 2 * real, f"{n}², self collision {self_collision}: over 2x")

    def test_plain_cloth(self):
        self.check_bounds(60, False, 1.0)

    def test_self_collision_with_contacts_spanning_edges(self):
        self.check_bounds(60, True, 0.5)

    def test_self_collision_on_a_finer_cloth(self):
        self.check_bounds(100, True, 1.0)

    def test_self_collision_with_contacts_spanning_many_edges(self):
        self.check_bounds(80, True, 0.1)  # 2 thickness = 7.4 edges


class Budget(unittest.TestCase):
    cloth = budget.ClothSize(1_000_000, False, 0.005, 0.002)

    def test_cache_and_shape_keys_count_every_frame(self):
        cached = budget.estimate([self.cloth], 500, 101, "MESH_CACHE")
        self.assertEqual(cached.cache, 12 * 1_000_000 * 101)
        keys = budget.estimate([self.cloth], 500, 101, "SHAPE_KEYS")
        self.assertEqual(keys.cache, 0)
        self.assertGreater(keys.memory, cached.memory + cached.cache)
        self.assertIn("GB of memory and", cached.describe())

    def test_a_bake_that_does_not_fit_is_refused_with_what_to_change(self):
        needed = budget.Estimate(memory=8 << 30, cache=1 << 30)
        with self.assertRaisesRegex(ValueError, "only 1.0 GB of memory .* fewer frames"):
            budget.check(needed, 1 << 30, None, "/cache")
        with self.assertRaisesRegex(ValueError, "/cache has only 512.0 MB free: .* Cache Folder"):
            budget.check(needed, None, 512 << 20, "/cache")
        budget.check(needed, 16 << 30, 2 << 30, "/cache")

    def test_free_disk_of_a_folder_not_made_yet(self):
        with tempfile.TemporaryDirectory() as folder:
            self.assertGreater(budget.free_disk(os.path.join(folder, "a", "b")), 0)


if __name__ == "__main__":
    unittest.main()
