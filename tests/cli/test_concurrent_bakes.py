"""Two scripts/simbake-bake of one .blend at the same time (a farm, or a file baked twice to
two outputs): each output gets a cache of its own, and every cache reads back whole in
Blender. Before, both wrote `out/simbake_cache/<object>.pc2`, and one Blender failed reading
it ("Vertex coordinate read failed") while the other rewrote it.

    python3 tests/cli/test_concurrent_bakes.py     (needs Blender on PATH or $BLENDER)"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "addon"))
from simbake import pc2  # noqa: E402  (bpy-free)

BAKE = os.path.join(REPO, "scripts", "simbake-bake")
BLENDER = os.environ.get("BLENDER") or shutil.which("blender")
SCENE = os.path.join(REPO, "sample_blends", "drape.blend")  # a 32x32 cloth over a sphere
FRAMES = "1-12"

# In the baked .blend, at the last frame: the largest gap between each Mesh Cache object's
# evaluated vertices (the modifiers after the bake's switched off) and its cache's last sample
# (a cache Blender cannot read leaves the mesh where it was); prints CHECK <json>.
READ_BACK = """
import bpy, json, sys
sys.path.insert(0, %(addon)r)
from simbake import pc2
scene = bpy.context.scene
baked = [obj for obj in scene.objects
         if obj.modifiers.get("SimBake") is not None and obj.modifiers["SimBake"].type == "MESH_CACHE"]
for obj in baked:
    stack = list(obj.modifiers)
    for later in stack[stack.index(obj.modifiers["SimBake"]) + 1:]:
        later.show_viewport = False
scene.frame_set(%(last)d)
depsgraph = bpy.context.evaluated_depsgraph_get()
found = {}
for obj in baked:
    modifier = obj.modifiers["SimBake"]
    path = bpy.path.abspath(modifier.filepath)
    points, start, rate, samples = pc2.read_header(path)
    expected = pc2.read_sample(path, samples - 1)
    mesh = obj.evaluated_get(depsgraph).data
    gap = max(abs(v.co[k] - expected[3 * i + k]) for i, v in enumerate(mesh.vertices) for k in range(3))
    found[obj.name] = {"cache": path, "gap": gap, "vertices": len(mesh.vertices), "points": points}
print("CHECK " + json.dumps(found))
"""


def start(out, name):
    return subprocess.Popen([BAKE, SCENE, "-o", os.path.join(out, f"{name}.blend"), "--frames", FRAMES,
                             "--json", os.path.join(out, f"{name}.json")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def read_back(blend):
    last = int(FRAMES.split("-")[1])
    code = READ_BACK % {"addon": os.path.join(REPO, "addon"), "last": last}
    done = subprocess.run([BLENDER, "-b", "--factory-startup", blend, "--python-exit-code", "1",
                           "--python-expr", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Vertex coordinate read failed" not in done.stdout + done.stderr, done.stdout + done.stderr
    line = next(line for line in done.stdout.splitlines() if line.startswith("CHECK "))
    return json.loads(line[len("CHECK "):])


class ConcurrentBakes(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.mkdtemp(prefix="simbake-concurrent-")

    def assert_plays_its_cache(self, blend):
        found = read_back(blend)
        self.assertTrue(found, f"{blend}: no Mesh Cache modifier")
        for name, entry in found.items():
            self.assertEqual(entry["vertices"], entry["points"], (blend, name))
            self.assertLess(entry["gap"], 1e-5, f"{blend}: {name} does not play its cache's last frame")
        return found

    def test_two_outputs_of_one_blend_baked_at_once_get_caches_of_their_own(self):
        out = os.path.join(self.folder, "two_outputs")
        runs = {name: start(out, name) for name in ("A", "B")}
        caches = {}
        for name, process in runs.items():
            stdout, stderr = process.communicate(timeout=600)
            self.assertEqual(process.returncode, 0, f"bake {name}: {stdout}{stderr}")
            with open(os.path.join(out, f"{name}.json")) as f:
                report = json.load(f)
            paths = [e["cache_file"] for e in report["objects"] if e.get("output") == "MESH_CACHE"]
            self.assertEqual(len(paths), 1, report)
            self.assertEqual(os.path.dirname(paths[0]), os.path.join(out, "simbake_cache", name),
                             "each output's caches in a folder named after it")
            pc2.read_header(paths[0])  # whole: its size fits its header
            with open(paths[0], "rb") as f:
                caches[name] = f.read()
        self.assertEqual(caches["A"], caches["B"], "one scene, one thread count: the same bytes")
        self.assertFalse([n for _, _, names in os.walk(out) for n in names if n.endswith(".partial")])
        played = {name: self.assert_plays_its_cache(os.path.join(out, f"{name}.blend")) for name in runs}
        self.assertNotEqual(played["A"], played["B"])  # other cache paths

    def test_one_output_baked_twice_at_once_ends_whole(self):
        """The same output twice at once (a farm task started again while it still runs): the
        second stops at once, saying another run bakes to that output (or, if the first was
        already done, bakes again); the output and its cache read back whole, never saved
        over or half-written by the other."""
        out = os.path.join(self.folder, "one_output")
        runs = [start(out, "same"), start(out, "same")]
        results = [process.communicate(timeout=600) + (process.returncode,) for process in runs]
        succeeded = [r for r in results if r[2] == 0]
        self.assertTrue(succeeded, results)
        for stdout, stderr, code in results:
            self.assertNotIn("Traceback", stdout + stderr)
            if code != 0:
                self.assertIn("another simbake-bake is baking to this output now", stderr, stdout + stderr)
        self.assert_plays_its_cache(os.path.join(out, "same.blend"))
        self.assertFalse(os.path.exists(os.path.join(out, "same.blend.lock")), "the lock file is left behind")


if __name__ == "__main__":
    unittest.main()
