"""One run of the cloth drape: a square cloth falls onto a sphere and drapes over it, baked
either by Blender's cloth at a given quality or by SimBake (through the add-on, as a user
would, from the very same Blender cloth settings). One Blender process per run, so that the
peak memory is the run's own.

    blender -b --factory-startup --python-exit-code 1 -P bench/blender/cloth_vs_blender.py -- \
        --solver blender|simbake --grid N [--quality Q] [--frames F] [--self-collision on|off] \
        [--material blender|simbake] [--scene drape|tablecloth|flag] --out RUN.json --dump MESH.bin

The scene is Blender's: a Cloth modifier at its defaults (cotton, quality 5 unless --quality)
with self collision on (unless --self-collision off), on an N x N grid of 2 m, dropped from 0.3 m above a UV sphere of
0.5 m radius (64 x 32) that has a Collision modifier at its defaults. SimBake bakes it
through its mapping of Blender's settings (docs/blender-physics-mapping.md) at its own
default steps; with --material simbake, the cloth has SimBake's role Cloth instead, SimBake's
own default material (its self collision as --self-collision), the Blender modifier unread.

--scene tablecloth: sample_blends/tablecloth.blend as make_tablecloth.py builds it (a 32 x 24
cloth settling over a table while a sphere, a cube, a cylinder and a cone, active rigid bodies,
drop onto it; Blender's physics only, every SimBake role None), its Solidify (for rendering)
switched off; --grid is unused, --quality and --self-collision set the cloth's. --scene flag:
the flag of tests/blender/test_fields_like_blender.py (2 m x 1 m, pinned along its side at
x = 0, air damping 7.5, in a Wind field of strength 750 blowing along +y), with 2N x N
vertices for --grid N. The colliders dumped for the quality measure are the sphere (drape), the
table, the floor and the four bodies where they are at the last frame (tablecloth), none (flag).

RUN.json: ms per frame (median over the frames, each frame_set for Blender, each solver
frame for SimBake), the whole bake's seconds (and the CPU seconds the process spent in it, every
thread's: on a shared machine the wall clock also counts other processes' turns), peak memory growth (the peak resident size
during the bake, counted afresh from its start, minus the resident size before it), and for SimBake the CG iterations per frame. MESH.bin: the rest and final
cloth and the sphere, for bench_cloth_quality (penetration, intersecting pairs, strain)."""

import argparse
import array
import json
import math
import os
import resource
import statistics
import struct
import sys
import time

import bpy

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SIZE, RADIUS, DROP = 2.0, 0.5, 0.3


def arguments():
    parser = argparse.ArgumentParser(prog="cloth_vs_blender.py")
    parser.add_argument("--solver", choices=("blender", "simbake"), required=True)
    parser.add_argument("--grid", type=int, required=True)
    parser.add_argument("--quality", type=int, default=5)
    parser.add_argument("--frames", type=int, default=40)
    parser.add_argument("--self-collision", choices=("on", "off"), default="on")
    parser.add_argument("--material", choices=("blender", "simbake"), default="blender",
                        help="SimBake's cloth: Blender's cloth settings mapped, or SimBake's own default material")
    parser.add_argument("--scene", choices=("drape", "tablecloth", "flag"), default="drape")
    parser.add_argument("--out", required=True)
    parser.add_argument("--dump", required=True)
    return parser.parse_args(sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else [])


def uv_sphere(name, segments, rings, radius):
    """A UV sphere built from explicit lists, so every process hands the solvers the same
    faces in the same order (primitive_uv_sphere_add orders them differently per process)."""
    vertices = [(0.0, 0.0, radius)]
    for ring in range(1, rings):
        polar = math.pi * ring / rings
        for segment in range(segments):
            azimuth = 2.0 * math.pi * segment / segments
            vertices.append((radius * math.sin(polar) * math.cos(azimuth),
                             radius * math.sin(polar) * math.sin(azimuth), radius * math.cos(polar)))
    vertices.append((0.0, 0.0, -radius))
    bottom = len(vertices) - 1

    def ring_vertex(ring, segment):  # ring 1 .. rings - 1
        return 1 + (ring - 1) * segments + segment % segments

    faces = [(0, ring_vertex(1, s), ring_vertex(1, s + 1)) for s in range(segments)]
    for ring in range(1, rings - 1):
        faces += [(ring_vertex(ring, s), ring_vertex(ring + 1, s), ring_vertex(ring + 1, s + 1),
                   ring_vertex(ring, s + 1)) for s in range(segments)]
    faces += [(ring_vertex(rings - 1, s + 1), ring_vertex(rings - 1, s), bottom) for s in range(segments)]
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(vertices, [], faces)
    mesh.update()
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    return obj


def build(grid, quality, frames, self_collision=True):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.fps = 24
    scene.frame_start, scene.frame_end = 1, frames
    sphere = uv_sphere("Sphere", 64, 32, RADIUS)
    sphere.modifiers.new("Collision", "COLLISION")
    bpy.ops.mesh.primitive_grid_add(x_subdivisions=grid - 1, y_subdivisions=grid - 1, size=SIZE,
                                    location=(0.0, 0.0, RADIUS + DROP))
    cloth = bpy.context.object
    cloth.name = "Cloth"
    modifier = cloth.modifiers.new("Cloth", "CLOTH")
    modifier.settings.quality = quality
    modifier.collision_settings.use_self_collision = self_collision
    modifier.point_cache.frame_start, modifier.point_cache.frame_end = 1, frames
    scene.frame_set(1)
    return cloth, sphere


def build_tablecloth(quality, frames, self_collision=False):
    """The tablecloth sample as saved; returns the cloth and every collider (table, floor, bodies)."""
    bpy.ops.wm.open_mainfile(filepath=os.path.join(REPO, "sample_blends", "tablecloth.blend"))
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, frames
    scene.rigidbody_world.point_cache.frame_start, scene.rigidbody_world.point_cache.frame_end = 1, frames
    cloth = next(obj for obj in scene.objects if any(m.type == "CLOTH" for m in obj.modifiers))
    for modifier in cloth.modifiers:
        if modifier.type == "CLOTH":
            modifier.settings.quality = quality
            modifier.collision_settings.use_self_collision = self_collision
            modifier.point_cache.frame_start, modifier.point_cache.frame_end = 1, frames
        elif modifier.type == "SOLIDIFY":  # a render thickness: the quality measure wants the sheet
            modifier.show_viewport = modifier.show_render = False
    colliders = [obj for obj in scene.objects if obj.type == "MESH" and obj is not cloth
                 and (obj.rigid_body is not None or any(m.type == "COLLISION" for m in obj.modifiers))]
    scene.frame_set(1)
    return cloth, colliders


def build_flag(grid, quality, frames, self_collision=False):
    """test_fields_like_blender.py's flag in its wind, 2N x N vertices: 2 m x 1 m in the XZ plane,
    its column at x = 0 pinned (a flagpole), air damping 7.5, a Wind of strength 750 along +y."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.fps = 24
    scene.frame_start, scene.frame_end = 1, frames
    columns, rows = 2 * grid - 1, grid - 1  # quads
    vertices = [(2.0 * i / columns, 0.0, 1.0 - j / rows) for j in range(rows + 1) for i in range(columns + 1)]
    row = columns + 1
    faces = [(j * row + i, j * row + i + 1, (j + 1) * row + i + 1, (j + 1) * row + i)
             for j in range(rows) for i in range(columns)]
    mesh = bpy.data.meshes.new("Flag")
    mesh.from_pydata(vertices, [], faces)
    mesh.update()
    flag = bpy.data.objects.new("Flag", mesh)
    scene.collection.objects.link(flag)
    flag.vertex_groups.new(name="Pin").add([j * row for j in range(rows + 1)], 1.0, "REPLACE")
    modifier = flag.modifiers.new("Cloth", "CLOTH")
    modifier.settings.vertex_group_mass = "Pin"
    modifier.settings.air_damping = 7.5
    modifier.settings.quality = quality
    modifier.collision_settings.use_self_collision = self_collision
    modifier.point_cache.frame_start, modifier.point_cache.frame_end = 1, frames
    bpy.ops.object.effector_add(type="WIND", location=(1.0, -2.0, 0.5), rotation=(-math.pi / 2, 0.0, 0.0))
    bpy.context.object.field.strength = 750.0
    scene.frame_set(1)
    return flag, []


def merged_mesh(objects, depsgraph):
    """world_mesh() of every object in one vertex and triangle list (each object a connected
    piece of it, which bench_cloth_quality measures penetration against one by one)."""
    vertices, triangles = array.array("d"), array.array("i")
    for obj in objects:
        v, t = world_mesh(obj, depsgraph)
        offset = len(vertices) // 3
        vertices.extend(v)
        triangles.extend(i + offset for i in t)
    return vertices, triangles


def world_mesh(obj, depsgraph):
    """World-space vertex coordinates (flat) and triangle corners (flat) of the object as
    evaluated now, read in bulk."""
    evaluated = obj.evaluated_get(depsgraph)
    mesh = evaluated.to_mesh()
    mesh.transform(evaluated.matrix_world)  # a temporary copy: moving it to world space is free
    mesh.calc_loop_triangles()
    vertices = array.array("f", bytes(4 * 3 * len(mesh.vertices)))
    mesh.vertices.foreach_get("co", vertices)
    triangles = array.array("i", bytes(4 * 3 * len(mesh.loop_triangles)))
    mesh.loop_triangles.foreach_get("vertices", triangles)
    evaluated.to_mesh_clear()
    return array.array("d", vertices), triangles


def status_mb(key):
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(key + ":")) / 1024.0  # kB


def reset_peak():
    """Restarts the kernel's peak-RSS count (VmHWM), so that the peak is the bake's own and not
    the scene loading's; falls back to the running maximum where that is not allowed."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def bake_blender(scene, frames):
    times = []
    for frame in range(2, frames + 1):
        began = time.perf_counter()
        scene.frame_set(frame)
        times.append(time.perf_counter() - began)
    return times, {}


def bake_simbake(scene, frames, cloth=None, material="blender", self_collision=True):
    sys.path.insert(0, os.path.join(REPO, "addon"))
    import simbake
    if not hasattr(bpy.types.Object, "simbake"):
        simbake.register()
    from simbake import bake
    if material == "simbake":
        cloth.simbake.role = "CLOTH"
        cloth.simbake.self_collision = self_collision
        # the same pins as Blender's cloth has (the flag's side), as a user switching roles sets them
        blender_cloth = next((m for m in cloth.modifiers if m.type == 'CLOTH'), None)
        if blender_cloth and blender_cloth.settings.vertex_group_mass:
            cloth.simbake.pin_group = blender_cloth.settings.vertex_group_mass
    scene.simbake.frame_start, scene.simbake.frame_end = 1, frames
    stamps, totals = [], {}
    job = bake.Bake(bpy.context, list(scene.objects))

    def progress(*_):
        stamps.append(time.perf_counter())
        totals.update(job._world.stats())  # the world is gone after finish()

    job.progress = progress
    job.begin()  # timed apart from the frames, as Blender's first frame is
    stamps.append(time.perf_counter())
    while not job.done:
        job.prepare_frame()
        job.solve_frame()
        job.collect_frame()
    job.finish()
    times = [b - a for a, b in zip(stamps, stamps[1:])]
    frames_done = max(1, len(times))
    return times, {"cg_iterations_per_frame": totals["cg_iterations"] / frames_done,
                   "steps_per_frame": totals["steps"] / frames_done, "rejected_steps": totals["rejected_steps"],
                   "collisions": totals["collisions"], "impact_zones": totals["impact_zones"]}


def dump(path, rest, final, triangles, colliders):
    """The layout bench_cloth_quality reads (little-endian, as every machine here is)."""
    collider_vertices, collider_triangles = colliders
    with open(path, "wb") as f:
        f.write(b"SBQ1")
        f.write(struct.pack("<4i", len(rest) // 3, len(triangles) // 3, len(collider_vertices) // 3,
                            len(collider_triangles) // 3))
        for block in (rest, final, triangles, collider_vertices, collider_triangles):
            block.tofile(f)


def main():
    args = arguments()
    self_collision = args.self_collision == "on"
    if args.scene == "drape":
        cloth, sphere = build(args.grid, args.quality, args.frames, self_collision)
        colliders = [sphere]
    elif args.scene == "tablecloth":
        cloth, colliders = build_tablecloth(args.quality, args.frames, self_collision)
    else:
        cloth, colliders = build_flag(args.grid, args.quality, args.frames, self_collision)
    scene = bpy.context.scene
    depsgraph = bpy.context.evaluated_depsgraph_get()
    rest, triangles = world_mesh(cloth, depsgraph)
    before = status_mb("VmRSS") if reset_peak() else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    began, began_cpu = time.perf_counter(), time.process_time()
    if args.solver == "blender":
        times, extra = bake_blender(scene, args.frames)
    else:
        times, extra = bake_simbake(scene, args.frames, cloth, args.material, self_collision)
    seconds, cpu_seconds = time.perf_counter() - began, time.process_time() - began_cpu
    peak = status_mb("VmHWM") - before
    scene.frame_set(args.frames)
    depsgraph = bpy.context.evaluated_depsgraph_get()
    final, _ = world_mesh(cloth, depsgraph)
    if len(final) != len(rest):
        raise SystemExit(f"the baked cloth has {len(final) // 3} vertices, not {len(rest) // 3}")
    dump(args.dump, rest, final, triangles, merged_mesh(colliders, depsgraph))  # colliders at the last frame
    result = {"solver": args.solver, "scene": args.scene, "grid": args.grid, "vertices": len(rest) // 3, "frames": args.frames,
              "self_collision": self_collision, "material": args.material if args.solver == "simbake" else "blender",
              "ms_per_frame": 1e3 * statistics.median(times), "seconds": seconds, "peak_mb": peak,
              "cpu_seconds": cpu_seconds}
    if args.solver == "blender":
        result["quality"] = args.quality
    result.update(extra)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=2)
    print("SimBake bench:", json.dumps(result), flush=True)


if __name__ == "__main__":  # addon_share.py imports its scene
    main()
