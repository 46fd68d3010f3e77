"""Shared helpers for tests that run inside headless Blender:

    blender -b --factory-startup --python-exit-code 1 -P tests/blender/test_X.py

Each test file ends with blender_test.main(), which runs its unittest cases and exits
non-zero if any fails."""

import os
import shutil
import sys
import tempfile
import unittest
from array import array

import bpy

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "addon"))

import simbake  # noqa: E402

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


def world_vertices(obj, depsgraph=None):
    """Evaluated world-space vertex positions of `obj` now, flat float64 (transformed with
    mathutils, independently of the add-on)."""
    from mathutils import Vector
    depsgraph = depsgraph or bpy.context.evaluated_depsgraph_get()
    obj_eval = obj.evaluated_get(depsgraph)
    mesh = obj_eval.to_mesh()
    local = array("f", bytes(12 * len(mesh.vertices)))
    mesh.vertices.foreach_get("co", local)
    matrix = obj_eval.matrix_world.copy()
    obj_eval.to_mesh_clear()
    out = array("d")
    for i in range(0, len(local), 3):
        out.extend(matrix @ Vector(local[i:i + 3]))
    return out


def rna_values(struct):
    """All plain RNA property values of a struct (for before/after comparisons)."""
    values = {}
    for prop in struct.bl_rna.properties:
        if prop.identifier in ("rna_type",) or prop.type in ("POINTER", "COLLECTION"):
            continue
        value = getattr(struct, prop.identifier)
        values[prop.identifier] = tuple(value) if hasattr(value, "__len__") and not isinstance(value, str) else value
    return values


def snapshot(obj):
    """What a bake must leave as it found: modifiers and their settings, mesh vertices,
    shape keys and their animation, the object's SimBake settings and transform."""
    mesh = obj.data
    coords = array("f", bytes(12 * len(mesh.vertices)))
    mesh.vertices.foreach_get("co", coords)
    keys = None
    if mesh.shape_keys is not None:
        anim = mesh.shape_keys.animation_data
        keys = {"use_relative": mesh.shape_keys.use_relative,
                "action": anim.action.name if anim and anim.action else None,
                "blocks": [(b.name, b.mute, round(b.value, 6), b.relative_key.name,
                            tuple(round(v, 6) for d in b.data for v in d.co)) for b in mesh.shape_keys.key_blocks]}
    return {
        "modifiers": [(m.name, m.type, rna_values(m)) for m in obj.modifiers],
        "cloth_settings": [rna_values(m.settings) for m in obj.modifiers if m.type == "CLOTH"],
        "vertices": coords.tobytes(),
        "shape_keys": keys,
        "simbake": {k: v for k, v in rna_values(obj.simbake).items() if k != "bake_record"},
        "matrix": tuple(tuple(row) for row in obj.matrix_world),
        "actions": sorted(a.name for a in bpy.data.actions),
    }


def objects_state():
    """Per scene object, what a bake must leave as it found and free_bake must restore:
    the snapshot of a mesh, its bake record, action, rigid body settings and transform."""
    state = {}
    for obj in bpy.context.scene.objects:
        anim = obj.animation_data
        state[obj.name] = (snapshot(obj) if obj.type == "MESH" else None, obj.simbake.bake_record,
                           anim.action.name if anim and anim.action else None,
                           rna_values(obj.rigid_body) if obj.rigid_body else None,
                           tuple(obj.location), tuple(obj.rotation_euler), tuple(obj.scale))
    return state


def main():
    suite = unittest.defaultTestLoader.loadTestsFromModule(sys.modules["__main__"])
    result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(suite)
    sys.exit(0 if result.wasSuccessful() else 1)
