"""Rigid bodies side by side, in one Blender run: the same scene baked by Blender's rigid body
world at its defaults and by SimBake (through the add-on, as a user would).

    blender -b --factory-startup --python-exit-code 1 -P bench/blender/rigid_vs_blender.py -- \
        OUT.json [CASE ...]          CASE: tower, dominoes100, wall200, pile100, pile1000,
                                     pile3000, heap100, heap400, heap1000, heap3000, joints1000,
                                     stack1000 (default: all)

Cases (as bench/rigid_stacks.c):
- tower: 10 boxes of 0.5 m stacked on a floor, 240 frames (10 s); quality: how far the top
  box drifts;
- dominoes100: a row of 100 dominoes (0.04 x 0.2 x 0.4 m, 0.16 m apart) on a floor, the
  first leaning 15 degrees toward the second (past its tipping point), 240 frames; quality: how many fell (tilted beyond
  45 degrees; all 100 when the wave runs through), and the deepest overlap;
- wall200: a wall of 200 bricks (0.4 x 0.2 x 0.2 m, 20 a course, 10 courses, every other
  course shifted by half a brick) on a floor, hit by a ball of 0.4 m radius that its animation
  (Animated on, a collider to SimBake) carries through it at 2.5 m/s, 96 frames; quality: the
  bricks moved by more than 5 cm, and the deepest overlap;
- pileN: N boxes of 0.2 m dropped in ten layers into a walled square, 72 frames (3 s);
  quality: the deepest overlap of two boxes at the end;
- heapN: N boxes of 0.2 m, each turned by a random rotation (seeded), in layers of 8 x 8 far
  enough apart that none touch, dropped on an open floor, 72 frames (addon_share.py's heap400,
  bench_rigid's heapN); quality as the piles'.
- joints1000 (issue 29): a 10 x 10 x 10 block of 0.2 m boxes (1 kg) on a passive ground,
  each joined to its neighbours by a breakable Fixed constraint (threshold 2 N·s) made as
  the Connect operator makes its own (an Empty at the pair's midpoint in the world's
  Constraints collection), 2700 of them, an animated ball of 0.4 m radius carried at 2.5 m/s
  through its top two layers near a corner, 36 frames; quality: the joined pairs that came
  more than 2 cm apart, the boxes moved by more than 5 cm, the median move of the top layer,
  the deepest overlap, and SimBake's own count of broken joints (its bake message);
  stack1000: the same block and ball without the joints, for reference.
Time per frame: Blender, each scene.frame_set() of its rigid body world; SimBake, each
frame of the bake (solver and reading back), and the whole bake including writing keys.
Peak memory (peak_mb): the growth of the process's peak resident size during that side's bake,
the kernel's count (VmHWM) restarted at its start, as cloth_vs_blender.py counts it. With both
sides in one process the second reuses memory the first freed and its figure reads low:
BENCH_RIGID_SIDES=blender (or simbake) bakes one side only, in a process of its own, for
memory figures (bench/run does so for every case).
BENCH_RIGID_BLENDER_QUALITY="SUBSTEPS,ITERATIONS" runs Blender's side at those
substeps_per_frame and solver_iterations instead of its defaults (10, 10): bench/run's search
for the lowest quality that still holds each scene."""

import json
import math
import os
import statistics
import sys
import time

import bpy
from mathutils import Quaternion, Vector

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "addon"))
import simbake  # noqa: E402

if not hasattr(bpy.types.Object, "simbake"):
    simbake.register()
from simbake import bake  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # Blender does not add it
from cloth_vs_blender import reset_peak, status_mb  # noqa: E402

TOWER_FRAMES, PILE_FRAMES, WALL_FRAMES, JOINT_FRAMES = 240, 72, 96, 36


def clear():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.context.scene.render.fps = 24


def unit_cube():
    mesh = bpy.data.meshes.get("Unit Cube")
    if mesh is None:
        mesh = bpy.data.meshes.new("Unit Cube")
        corners = [(x, y, z) for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)]
        faces = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
        mesh.from_pydata(corners, [], faces)
    return mesh


def add_box(name, size, location, body_type, rotation=(0.0, 0.0, 0.0)):
    """A box object sharing one unit-cube mesh (operators per object are too slow for
    thousands); rigid bodies are added to all of them at once by make_rigid()."""
    obj = bpy.data.objects.new(name, unit_cube())
    obj.location, obj.rotation_euler, obj.scale = location, rotation, size
    bpy.context.scene.collection.objects.link(obj)
    obj["body_type"] = body_type
    return obj


def make_rigid(objects):
    """Blender rigid bodies for every object (its body_type), with box shapes."""
    for body_type in ("ACTIVE", "PASSIVE"):
        chosen = [obj for obj in objects if obj["body_type"] == body_type]
        if not chosen:
            continue
        bpy.ops.object.select_all(action="DESELECT")
        for obj in chosen:
            obj.select_set(True)
        bpy.context.view_layer.objects.active = chosen[0]
        bpy.ops.rigidbody.objects_add(type=body_type)
        for obj in chosen:
            obj.rigid_body.collision_shape = "BOX"


def build_tower():
    clear()
    add_box("Floor", (100.0, 100.0, 1.0), (0.0, 0.0, -0.5), "PASSIVE")
    boxes = [add_box(f"Box {i}", (0.5, 0.5, 0.5), (0.0, 0.0, 0.25 + 0.5 * i), "ACTIVE") for i in range(10)]
    make_rigid(list(bpy.context.scene.objects))
    return boxes


def build_pile(count):
    """The layout of bench/rigid_stacks.c: ten layers on a grid, jittered, in four walls."""
    clear()
    add_box("Floor", (100.0, 100.0, 1.0), (0.0, 0.0, -0.5), "PASSIVE")
    side = math.ceil(math.sqrt(count / 10.0))
    half, spacing = 0.1, 0.26
    wall = side * spacing * 0.5 + 0.4
    for k in range(4):
        x = (-wall if k == 0 else wall) if k < 2 else 0.0
        y = 0.0 if k < 2 else (-wall if k == 2 else wall)
        size = (0.4, 2 * wall + 0.4, 3.0) if k < 2 else (2 * wall + 0.4, 0.4, 3.0)
        add_box(f"Wall {k}", size, (x, y, 1.5), "PASSIVE")
    seed = 12345
    boxes = []
    for i in range(count):
        seed = (seed * 6364136223846793005 + 1442695040888963407) % 2 ** 64
        jitter = ((seed >> 11) * (1.0 / 9007199254740992.0) - 0.5) * 0.04
        location = ((i % side - (side - 1) * 0.5) * spacing + jitter,
                    (i // side % side - (side - 1) * 0.5) * spacing - jitter,
                    0.3 + (i // (side * side)) * spacing)
        boxes.append(add_box(f"Box {i}", (2 * half,) * 3, location, "ACTIVE",
                             rotation=(0.2 * jitter, -0.3 * jitter, 0.0)))
    make_rigid(list(bpy.context.scene.objects))
    return boxes


def build_dominoes(count=100):
    clear()
    add_box("Floor", (100.0, 100.0, 1.0), (0.0, 0.0, -0.5), "PASSIVE")
    size, spacing, lean = (0.04, 0.2, 0.4), 0.16, math.radians(15.0)
    boxes = []
    for i in range(count):
        # the first leans about its +x bottom edge, onto the second
        rotation, location = (0.0, 0.0, 0.0), (i * spacing, 0.0, 0.2)
        if i == 0:
            rotation = (0.0, lean, 0.0)
            location = (0.02 - 0.02 * math.cos(lean) + 0.2 * math.sin(lean), 0.0,
                        0.02 * math.sin(lean) + 0.2 * math.cos(lean))
        boxes.append(add_box(f"Domino {i}", size, location, "ACTIVE", rotation))
    make_rigid(list(bpy.context.scene.objects))
    return boxes


def build_wall(courses=10, per_course=20):
    clear()
    add_box("Floor", (100.0, 100.0, 1.0), (0.0, 0.0, -0.5), "PASSIVE")
    length, depth, height = 0.4, 0.2, 0.2
    boxes = []
    for course in range(courses):
        shift = 0.5 * length * (course % 2)
        for i in range(per_course):
            x = (i - (per_course - 1) * 0.5) * length + shift
            boxes.append(add_box(f"Brick {course} {i}", (length, depth, height),
                                 (x, 0.0, 0.5 * height + course * height), "ACTIVE"))
    make_rigid(list(bpy.context.scene.objects))
    add_animated_ball(0.4, (0.0, -2.0, 0.8), 2.5, WALL_FRAMES)
    return boxes


def add_animated_ball(radius, start, speed, frames):
    """A sphere carried along +y at `speed` m/s by its keys (Animated: a collider to SimBake)."""
    bpy.ops.mesh.primitive_uv_sphere_add(radius=radius, location=start)
    ball = bpy.context.object
    ball.name = "Ball"
    bpy.ops.rigidbody.object_add(type="ACTIVE")
    ball.rigid_body.collision_shape = "SPHERE"
    ball.rigid_body.kinematic = True  # Animated: carried by its keys
    for frame, y in ((1, start[1]), (frames + 1, start[1] + speed * frames / 24.0)):
        ball.location.y = y
        ball.keyframe_insert("location", index=1, frame=frame)
    for curve in ball.animation_data.action.fcurves:
        for key in curve.keyframe_points:
            key.interpolation = "LINEAR"
    return ball


def connect_fixed(pairs, threshold):
    """A breakable Fixed constraint per pair, the data the Connect operator (Blender's
    bl_operators/rigidbody.py) makes: an Empty at the pair's midpoint in the world's
    Constraints collection. Connect calls rigidbody.constraint_add once per Empty, which
    takes time growing with the constraints already there (8 minutes for 2700); setting the
    collection once makes Blender give each of its objects a Fixed constraint in one pass."""
    collection = bpy.data.collections.new("RigidBodyConstraints")
    for a, b in pairs:
        empty = bpy.data.objects.new("Constraint", None)
        empty.location = (a.location + b.location) / 2.0
        bpy.context.scene.collection.objects.link(empty)
        collection.objects.link(empty)
    bpy.context.scene.rigidbody_world.constraints = collection
    for empty, (a, b) in zip(collection.objects, pairs):
        constraint = empty.rigid_body_constraint
        constraint.type, constraint.object1, constraint.object2 = "FIXED", a, b
        constraint.use_breaking, constraint.breaking_threshold = True, threshold


def build_block(joined, side=10, size=0.2):
    """`side`³ touching boxes on a ground, joined to their neighbours or not, and a ball carried
    through its top two layers near a corner; returns the boxes (x fastest, then y, then z)."""
    clear()
    add_box("Floor", (20.0, 20.0, 1.0), (0.0, 0.0, -0.5), "PASSIVE")
    offset = (side - 1) * 0.5 * size
    boxes = [add_box(f"Box {i}", (size,) * 3, ((i % side) * size - offset, (i // side % side) * size - offset,
                                                0.5 * size + (i // (side * side)) * size), "ACTIVE")
             for i in range(side ** 3)]
    make_rigid(list(bpy.context.scene.objects))
    add_animated_ball(0.4, (0.8, -1.6, 1.8), 2.5, JOINT_FRAMES)  # through the top two layers, near a corner
    pairs = []
    for i in range(side ** 3):
        x, y, z = i % side, i // side % side, i // (side * side)
        pairs += [(boxes[i], boxes[i + step]) for coordinate, step in ((x, 1), (y, side), (z, side * side))
                  if coordinate + 1 < side]
    if joined:
        connect_fixed(pairs, 2.0)
    bpy.context.scene["bench_pairs"] = [(boxes.index(a), boxes.index(b)) for a, b in pairs]
    return boxes


def random_rotation(uniform):
    """A uniformly random rotation as Euler XYZ angles (Shoemake's quaternion), from three
    numbers in [0, 1)."""
    u1, u2, u3 = uniform(), uniform(), uniform()
    a, b = math.sqrt(1.0 - u1), math.sqrt(u1)
    return Quaternion((a * math.sin(2 * math.pi * u2), a * math.cos(2 * math.pi * u2),
                       b * math.sin(2 * math.pi * u3), b * math.cos(2 * math.pi * u3))).to_euler("XYZ")


def build_heap(count):
    """`count` randomly turned boxes over a square of the floor, in layers far enough apart
    that no two touch before they fall; returns the boxes."""
    clear()
    seed = [12345]

    def uniform():  # the LCG of bench/rigid_stacks.c, so every run has the same heap
        seed[0] = (seed[0] * 6364136223846793005 + 1442695040888963407) % 2 ** 64
        return (seed[0] >> 11) * (1.0 / 9007199254740992.0)

    add_box("Floor", (20.0, 20.0, 1.0), (0.0, 0.0, -0.5), "PASSIVE")
    side, spacing = 8, 0.36  # 0.36 m > the box's diagonal, 0.35 m
    boxes = []
    for i in range(count):
        location = ((i % side - (side - 1) * 0.5) * spacing + 0.05 * (uniform() - 0.5),
                    (i // side % side - (side - 1) * 0.5) * spacing + 0.05 * (uniform() - 0.5),
                    0.3 + (i // (side * side)) * spacing)
        boxes.append(add_box(f"Box {i}", (0.2, 0.2, 0.2), location, "ACTIVE", random_rotation(uniform)))
    make_rigid(list(bpy.context.scene.objects))
    return boxes


def box_corners(obj):
    return [obj.matrix_world @ Vector(c) for c in obj.bound_box]  # bound_box: local corners


def box_overlap(a, b):
    """Penetration depth of two boxes by their 15 separating axes (0 when apart)."""
    def axes(corners):
        o = corners[0]
        return [(corners[4] - o).normalized(), (corners[3] - o).normalized(), (corners[1] - o).normalized()]
    candidates = axes(a) + axes(b)
    candidates += [u.cross(v) for u in axes(a) for v in axes(b)]
    depth = math.inf
    for axis in candidates:
        if axis.length < 1e-9:
            continue
        axis = axis.normalized()
        pa = [axis.dot(p) for p in a]
        pb = [axis.dot(p) for p in b]
        overlap = min(max(pa), max(pb)) - max(min(pa), min(pb))
        if overlap <= 0:
            return 0.0
        depth = min(depth, overlap)
    return depth


def deepest_overlap(boxes, reach):
    """Deepest overlap of any two boxes (pairs found by hashing centres into cells)."""
    cells = {}
    centres = [obj.matrix_world.translation.copy() for obj in boxes]
    corners = [box_corners(obj) for obj in boxes]
    for i, c in enumerate(centres):
        cells.setdefault(tuple(int(math.floor(v / reach)) for v in c), []).append(i)
    deepest = 0.0
    for i, c in enumerate(centres):
        key = tuple(int(math.floor(v / reach)) for v in c)
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                for dz in (-1, 0, 1):
                    for j in cells.get((key[0] + dx, key[1] + dy, key[2] + dz), ()):
                        if j > i and (centres[j] - c).length < reach:
                            deepest = max(deepest, box_overlap(corners[i], corners[j]))
    return deepest


def quality(case, boxes, start):
    if case == "tower":
        return {"top_drift_m": (boxes[-1].matrix_world.translation - start[-1]).length}
    reach = max(Vector(obj.scale).length for obj in boxes)  # the largest box's diagonal
    result = {"deepest_overlap_m": deepest_overlap(boxes, reach)}
    if case.startswith("dominoes"):
        up = Vector((0.0, 0.0, 1.0))
        result["fallen"] = sum((obj.matrix_world.to_3x3() @ up).z < math.cos(math.radians(45.0)) for obj in boxes)
    if case.startswith("wall") or case in BLOCKS:
        result["moved"] = sum((obj.matrix_world.translation - s).length > 0.05 for obj, s in zip(boxes, start))
    if case in BLOCKS:
        now = [obj.matrix_world.translation for obj in boxes]
        pairs = bpy.context.scene["bench_pairs"]
        result["pairs"] = len(pairs)
        result["pairs_apart"] = sum(abs((now[i] - now[j]).length - (start[i] - start[j]).length) > 0.02
                                    for i, j in pairs)  # came 2 cm apart: broken, for either solver
        highest = max(s.z for s in start)
        top = [k for k in range(len(boxes)) if start[k].z >= highest - 1e-6]
        result["top_median_move_m"] = statistics.median((now[k] - start[k]).length for k in top)
    return result


def resident_before():
    """The resident size now (MB), the kernel's peak count restarted from it; without that
    restart (not allowed), the running peak, so that the growth is counted from it."""
    return status_mb("VmRSS") if reset_peak() else status_mb("VmHWM")


def blender_quality(world):
    """Blender's rigid body world at the quality BENCH_RIGID_BLENDER_QUALITY asks for
    ("SUBSTEPS,ITERATIONS": substeps_per_frame, solver_iterations; its defaults 10, 10 when
    unset), returned as the two numbers it runs at."""
    asked = os.environ.get("BENCH_RIGID_BLENDER_QUALITY")
    if asked:
        world.substeps_per_frame, world.solver_iterations = (int(v) for v in asked.split(","))
    return {"substeps_per_frame": world.substeps_per_frame, "solver_iterations": world.solver_iterations}


def run_blender(case, boxes, frames):
    scene = bpy.context.scene
    world = scene.rigidbody_world
    settings = blender_quality(world)
    world.point_cache.frame_start, world.point_cache.frame_end = 1, frames
    scene.frame_set(1)
    start = [obj.matrix_world.translation.copy() for obj in boxes]
    times = []
    before = resident_before()
    for frame in range(2, frames + 1):
        began = time.perf_counter()
        scene.frame_set(frame)
        times.append(time.perf_counter() - began)
    result = {"ms_per_frame": 1e3 * statistics.median(times), "seconds": sum(times),
              "peak_mb": status_mb("VmHWM") - before, **settings}
    result.update(quality(case, boxes, start))
    return result


def run_simbake(case, boxes, frames):
    scene = bpy.context.scene
    scene.frame_set(1)
    scene.rigidbody_world.point_cache.frame_end = 1  # Blender's cache is not what we time
    scene.simbake.frame_start, scene.simbake.frame_end = 1, frames
    start = [obj.matrix_world.translation.copy() for obj in boxes]
    stamps = []
    job = bake.Bake(bpy.context, list(scene.objects), progress=lambda *_: stamps.append(time.perf_counter()))
    before = resident_before()
    began = time.perf_counter()
    job.run()
    total = time.perf_counter() - began
    peak_mb = status_mb("VmHWM") - before
    times = [b - a for a, b in zip(stamps, stamps[1:])]
    scene.frame_set(frames)
    result = {"ms_per_frame": 1e3 * statistics.median(times), "seconds": total, "peak_mb": peak_mb}
    message = scene.simbake.last_bake_message
    if case == "joints1000":  # "...; N rigid body constraint(s) broke: ..." when any did
        result["joints_broken"] = int(message.split("; ")[1].split()[0]) if "constraint(s) broke" in message else 0
    result.update(quality(case, boxes, start))
    return result


CASES = {
    "tower": (build_tower, TOWER_FRAMES),
    "dominoes100": (build_dominoes, TOWER_FRAMES),
    "wall200": (build_wall, WALL_FRAMES),
    "pile100": (lambda: build_pile(100), PILE_FRAMES),
    "pile1000": (lambda: build_pile(1000), PILE_FRAMES),
    "pile3000": (lambda: build_pile(3000), PILE_FRAMES),
    "heap100": (lambda: build_heap(100), PILE_FRAMES),
    "heap400": (lambda: build_heap(400), PILE_FRAMES),
    "heap1000": (lambda: build_heap(1000), PILE_FRAMES),
    "heap3000": (lambda: build_heap(3000), PILE_FRAMES),
    "joints1000": (lambda: build_block(joined=True), JOINT_FRAMES),
    "stack1000": (lambda: build_block(joined=False), JOINT_FRAMES),
}
BLOCKS = ("joints1000", "stack1000")


def main():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    output = os.path.abspath(argv[0]) if argv else None
    chosen = argv[1:] or list(CASES)
    sides = os.environ.get("BENCH_RIGID_SIDES", "blender,simbake").split(",")
    results = {}
    for case in chosen:
        build, frames = CASES[case]
        results[case] = {"frames": frames}
        for side, run_side in (("blender", run_blender), ("simbake", run_simbake)):
            if side in sides:
                boxes = build()  # the same scene afresh for each
                results[case][side] = run_side(case, boxes, frames)
        results[case]["bodies"] = len(boxes)
        if len(sides) == 2:
            results[case]["ratio"] = results[case]["simbake"]["ms_per_frame"] / results[case]["blender"]["ms_per_frame"]
        print(f"SimBake bench: {case}: {json.dumps(results[case])}", flush=True)
    if output:
        with open(output, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":  # addon_share.py imports its scene builders
    main()
