"""Issue 32's hammock in Blender: a 1.2 m plane of 21 x 21 vertices of SimBake's default cloth,
1 m above a passive floor, pinned along x = +-0.6 (vertex group "pins"), an active 5 kg box of
sides HX x HY x HZ m dropped 5 cm onto its middle with Feels Cloth on; bakes it (frames 1-96) with
the add-on of REPO (or $SIMBAKE_LIBRARY), prints per frame the box's centre and tilt and the
cloth's worst edge strain and fastest vertex, renders the last frame with Workbench and saves the
baked copy into OUTDIR. Every call the bake makes on native.World is logged to OUTDIR/calls.pkl,
so that the bake can be replayed outside Blender (tests/c/diag_hammock_squeeze.c is such a replay).

    blender -b --factory-startup --python-exit-code 1 -P bench/blender/hammock_scene.py -- \
        REPO OUTDIR HX HY HZ [FRAMES]

(issue 32: on main the 0.3 0.2 0.2 box stops at frame 33, 4.89e3 m/s.)"""
import math
import os
import sys

import bpy
args = sys.argv[sys.argv.index("--") + 1:]
REPO, OUT = args[0], args[1]
half = tuple(float(a) / 2 for a in args[2:5])
FRAMES = int(args[5]) if len(args) > 5 else 96
sys.path.insert(0, os.path.join(REPO, "tests", "blender"))
import blender_test  # noqa: E402  (puts REPO/addon on sys.path, registers simbake)
from mathutils import Vector  # noqa: E402

os.makedirs(OUT, exist_ok=True)
# every call the bake makes on native.World, logged for a replay outside Blender (replay.py)
import array  # noqa: E402
import pickle  # noqa: E402
from simbake import native  # noqa: E402
LOG = open(os.path.join(OUT, "calls.pkl"), "wb")
def _plain(v):
    if isinstance(v, (array.array, memoryview)) or type(v).__module__ == "numpy":
        return list(v)
    if isinstance(v, (list, tuple)):
        return type(v)(_plain(x) for x in v)
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    return v
def _wrap(name, fn):
    def call(self, *a, **k):
        pickle.dump((name, id(self), _plain(a), _plain(k)), LOG)
        LOG.flush()
        return fn(self, *a, **k)
    return call
for _name, _fn in list(vars(native.World).items()):
    if callable(_fn) and (not _name.startswith("_") or _name == "__init__") and _name not in ("close",):
        setattr(native.World, _name, _wrap(_name, _fn))
scene = blender_test.rigid_scene(FRAMES)
# the cloth: 1.2 m, 21 x 21 vertices, pinned along x = ±0.6, 1 m up
n, span = 21, 1.2
verts = [(-span / 2 + span * i / (n - 1), -span / 2 + span * j / (n - 1), 0.0) for j in range(n) for i in range(n)]
faces = [(j * n + i, j * n + i + 1, (j + 1) * n + i + 1, (j + 1) * n + i) for j in range(n - 1) for i in range(n - 1)]
mesh = bpy.data.meshes.new("Hammock")
mesh.from_pydata(verts, [], faces)
cloth = bpy.data.objects.new("Hammock", mesh)
scene.collection.objects.link(cloth)
cloth.location = (0, 0, 1.0)
group = cloth.vertex_groups.new(name="pins")
group.add([k for k, v in enumerate(verts) if abs(abs(v[0]) - span / 2) < 1e-6], 1.0, "REPLACE")
cloth.simbake.role = "CLOTH"
cloth.simbake.pin_group = "pins"
# the floor
bpy.ops.mesh.primitive_plane_add(size=4.0, location=(0, 0, 0))
floor = bpy.context.object
floor.name = "Floor"
blender_test.rigid_body(floor, "PASSIVE", "MESH")
# the box, dropped 5 cm onto the cloth's middle
box = blender_test.box("Box", (0, 0, 1.0 + 0.05 + half[2]), half, mass=5.0)
box.simbake.feels_cloth = True
blend = os.path.join(OUT, "hammock.blend")
bpy.ops.wm.save_as_mainfile(filepath=blend)
result = bpy.ops.simbake.bake()
print("BAKE", result)

rest = [(e.vertices[0], e.vertices[1], (Vector(verts[e.vertices[0]]) - Vector(verts[e.vertices[1]])).length) for e in mesh.edges]
def world_cloth():
    dg = bpy.context.evaluated_depsgraph_get()
    ev = cloth.evaluated_get(dg)
    m = ev.to_mesh()
    out = [ev.matrix_world @ v.co for v in m.vertices]
    ev.to_mesh_clear()
    return out
prev = None
worst_all = fastest_all = 0.0
for f in range(1, FRAMES + 1):
    scene.frame_set(f)
    xs = world_cloth()
    strain = max((xs[a] - xs[b]).length / l - 1.0 for a, b, l in rest)
    fast = max((x - p).length for x, p in zip(xs, prev)) * scene.render.fps if prev else 0.0
    prev = xs
    worst_all, fastest_all = max(worst_all, strain), max(fastest_all, fast)
    z = box.matrix_world.to_3x3() @ Vector((0, 0, 1))
    tilt = math.acos(min(1.0, abs(z.z)))
    loc = box.matrix_world.translation
    print(f"FRAME {f:3d} box ({loc.x:+.4f} {loc.y:+.4f} {loc.z:+.4f}) tilt {tilt:.3f} strain {strain:+.4f} "
          f"fastest {fast:.3g} lowest {min(x.z for x in xs):.4f}")
print(f"SUMMARY box {half} worst strain {worst_all:+.4f} fastest {fastest_all:.3g} m/s")
scene.frame_set(FRAMES)
scene.render.engine = "BLENDER_WORKBENCH"
scene.render.resolution_x, scene.render.resolution_y = 640, 480
cam = bpy.data.objects.new("Cam", bpy.data.cameras.new("Cam"))
scene.collection.objects.link(cam)
cam.location = (1.6, -1.9, 1.6)
cam.rotation_euler = (math.radians(68), 0, math.radians(40))
scene.camera = cam
scene.render.filepath = os.path.join(OUT, f"frame{FRAMES}.png")
bpy.ops.render.render(write_still=True)
bpy.ops.wm.save_as_mainfile(filepath=os.path.join(OUT, "baked.blend"))
