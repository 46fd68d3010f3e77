"""Shared helpers for tests that run inside headless Blender:

    blender -b --factory-startup --python-exit-code 1 -P tests/blender/test_X.py

Each test file ends with blender_test.main(), which runs its unittest cases and exits
non-zero if any fails."""

import math
import os
import shutil
import sys
import tempfile
import unittest

import bpy

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "addon"))

import simbake  # noqa: E402
from scene_state import (action_fcurves, fcurves, objects_state, playing, rna_values, snapshot,  # noqa: E402,F401
                         world_vertices)

if not hasattr(bpy.types.Object, "simbake"):
    simbake.register()


def open_copy(blend_name):
    """Opens a copy of sample_blends/<blend_name> in a fresh temporary folder (so caches
    land there) and returns that folder."""
    folder = tempfile.mkdtemp(prefix="simbake-test-")
    path = os.path.join(folder, blend_name)
    shutil.copy(os.path.join(REPO, "sample_blends", blend_name), path)
    bpy.ops.wm.open_mainfile(filepath=path)
    return folder


def empty_scene(folder=None):
    """A new empty scene saved into a temporary folder (so relative caches have a home)."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    folder = folder or tempfile.mkdtemp(prefix="simbake-test-")
    bpy.ops.wm.save_as_mainfile(filepath=os.path.join(folder, "scene.blend"))
    return folder


def grid_object(name, size=1.0, cuts=9, location=(0.0, 0.0, 1.0), role="CLOTH"):
    """A flat grid mesh object of (cuts+1)² vertices in the XY plane."""
    bpy.ops.mesh.primitive_grid_add(x_subdivisions=cuts, y_subdivisions=cuts, size=size,
                                    location=location, calc_uvs=True)
    obj = bpy.context.object
    obj.name = name
    obj.simbake.role = role
    return obj


def rigid_body(obj, kind="ACTIVE", shape="CONVEX_HULL", **settings):
    """Gives obj a Blender rigid body of `kind` and `shape` (Blender's own operator, on obj
    alone, so it joins the scene's rigid body world), with the other rigid_body settings given."""
    bpy.context.view_layer.objects.active = obj
    for other in bpy.context.selected_objects:
        other.select_set(False)
    obj.select_set(True)
    bpy.ops.rigidbody.object_add(type=kind)
    obj.rigid_body.collision_shape = shape
    for name, value in settings.items():
        setattr(obj.rigid_body, name, value)
    return obj


def box(name, location, half, kind="ACTIVE", shape="BOX", rotation=(0.0, 0.0, 0.0), **settings):
    """A box rigid body of half extents `half`, its scale applied (Blender's shapes use the mesh)."""
    bpy.ops.mesh.primitive_cube_add(size=2.0, location=location, rotation=rotation)
    obj = bpy.context.object
    obj.name, obj.scale = name, half
    bpy.ops.object.transform_apply(location=False, rotation=False, scale=True)
    return rigid_body(obj, kind, shape, **settings)


def rigid_scene(frames, fps=24):
    """An empty scene with a rigid body world, frames 1..frames for Blender's cache and SimBake."""
    empty_scene()
    scene = bpy.context.scene
    scene.render.fps = fps
    scene.frame_start, scene.frame_end = 1, frames
    scene.simbake.frame_start, scene.simbake.frame_end = 1, frames
    bpy.ops.rigidbody.world_add()
    scene.rigidbody_world.point_cache.frame_start, scene.rigidbody_world.point_cache.frame_end = 1, frames
    return scene



def rigid_slope(angle, friction=1.0):
    """A passive 20 m slab turned by `angle` (radians) about y: downhill is +x, its top surface
    through the origin."""
    bpy.ops.mesh.primitive_cube_add(size=2.0, location=(-0.5 * math.sin(angle), 0.0, -0.5 * math.cos(angle)),
                                    rotation=(0.0, angle, 0.0))
    slope = bpy.context.object
    slope.scale = (10.0, 10.0, 0.5)
    return rigid_body(slope, "PASSIVE", "BOX", friction=friction)

def main():
    suite = unittest.defaultTestLoader.loadTestsFromModule(sys.modules["__main__"])
    result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(suite)
    sys.exit(0 if result.wasSuccessful() else 1)


def cache_frames(obj):
    """The samples of the PC2 cache an object's bake wrote, as lists of local (x, y, z) in mesh
    order."""
    from simbake import outputs, pc2
    path = outputs.load_record(obj)["cache_file"]
    count = pc2.read_header(path)[3]
    out = []
    for k in range(count):
        flat = pc2.read_sample(path, k)
        out.append([tuple(flat[3 * i:3 * i + 3]) for i in range(len(flat) // 3)])
    return out
