"""What a bake must leave as it found and Free Bake must restore, read from the scene on
any Blender version (no add-on import, so a test of an installed copy can use it too)."""

from array import array

import bpy


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


def action_fcurves(action):
    """Every F-curve of an action, on any Blender: the flat list of 3.4 to 4.3, or those of
    every channelbag of a layered action (4.4 and later; 5.0 removed Action.fcurves)."""
    if bpy.app.version < (4, 4, 0):
        return list(action.fcurves)
    return [c for layer in action.layers for strip in layer.strips for bag in strip.channelbags
            for c in bag.fcurves]


def fcurves(idblock):
    """The F-curves that animate `idblock`: its action's (in its slot, where actions have slots)."""
    anim = idblock.animation_data
    if anim is None or anim.action is None:
        return []
    if bpy.app.version < (4, 4, 0):
        return list(anim.action.fcurves)
    return [c for layer in anim.action.layers for strip in layer.strips for bag in strip.channelbags
            if bag.slot == anim.action_slot for c in bag.fcurves]


def playing(idblock):
    """(action name, slot identifier) that animate `idblock`: what Free Bake must restore."""
    anim = idblock.animation_data
    if anim is None or anim.action is None:
        return (None, None)
    slot = anim.action_slot if bpy.app.version >= (4, 4, 0) else None
    return (anim.action.name, slot.identifier if slot is not None else None)


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
        keys = {"use_relative": mesh.shape_keys.use_relative, "action": playing(mesh.shape_keys),
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
        state[obj.name] = (snapshot(obj) if obj.type == "MESH" else None, obj.simbake.bake_record, playing(obj),
                           rna_values(obj.rigid_body) if obj.rigid_body else None,
                           tuple(obj.location), tuple(obj.rotation_euler), tuple(obj.scale))
    return state
