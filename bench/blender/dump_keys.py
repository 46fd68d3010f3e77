"""Every F-curve a rigid bake writes, dumped exactly, to compare two add-ons' bakes: a change
meant to make the keys faster must leave them the same bit for bit.

    SIMBAKE_LIBRARY=LIB blender -b --factory-startup --python-exit-code 1 -P bench/blender/dump_keys.py -- \
        --addon FOLDER --cases tower,heap100,dominoes100,wall200 --out KEYS.json

Each case is built as rigid_vs_blender.py builds it and baked by bake.Bake (as addon_share.py
bakes it). Per object: its action's name, slot, users and fake user; per F-curve: data path,
index, group, extrapolation, auto smoothing, flags and its modifiers' count, and of every key: co
and handles (foreach_get, the hex of their float32 bits), handle types, interpolation, easing,
key type and selection. Compare two dumps
with cmp or diff."""

import argparse
import json
import os
import sys
from array import array

import bpy

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
parser = argparse.ArgumentParser(prog="dump_keys.py")
parser.add_argument("--addon", default=os.path.join(REPO, "addon"))
parser.add_argument("--cases", default="tower,heap100,dominoes100,wall200")
parser.add_argument("--out", required=True)
ARGS = parser.parse_args(sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else [])
sys.path.insert(0, os.path.abspath(ARGS.addon))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simbake  # noqa: E402

if not hasattr(bpy.types.Object, "simbake"):
    simbake.register()
from simbake import actions, bake  # noqa: E402

import rigid_vs_blender  # noqa: E402  (after simbake: it would take this repository's otherwise)

FLOATS = ("co", "handle_left", "handle_right")
ENUMS = ("handle_left_type", "handle_right_type", "interpolation", "easing", "type")
FLAGS = ("select_control_point", "select_left_handle", "select_right_handle")
CURVE_FLAGS = ("select", "hide", "lock", "mute", "is_valid", "color_mode")


def curve_dump(curve):
    points = curve.keyframe_points
    out = {"data_path": curve.data_path, "index": curve.array_index,
           "group": curve.group.name if curve.group else None, "extrapolation": curve.extrapolation,
           "auto_smoothing": curve.auto_smoothing, "modifiers": len(curve.modifiers), "keys": len(points),
           **{name: getattr(curve, name) for name in CURVE_FLAGS}}
    for name in FLOATS:
        values = array("f", bytes(8 * len(points)))
        points.foreach_get(name, values)
        out[name] = values.tobytes().hex()
    for name in ENUMS + FLAGS:  # enums as their names: foreach_get does not read enums in every version
        out[name] = [getattr(point, name) for point in points]
    return out


def dump_case(case):
    build, frames = rigid_vs_blender.CASES[case]
    build()
    scene = bpy.context.scene
    scene.rigidbody_world.point_cache.frame_end = 1
    scene.simbake.frame_start, scene.simbake.frame_end = 1, frames
    scene.frame_set(1)
    bake.Bake(bpy.context, list(scene.objects)).run()
    out = {}
    for obj in sorted(scene.objects, key=lambda o: o.name):
        anim = obj.animation_data
        if anim is None or anim.action is None:
            continue
        slot = actions.playing(obj)["slot"]
        curves = actions.Channels(anim.action, obj, slot).fcurves
        out[obj.name] = {"action": anim.action.name, "rotation_mode": obj.rotation_mode, "slot": slot,
                         "fake_user": anim.action.use_fake_user, "users": anim.action.users,
                         "id_root": getattr(anim.action, "id_root", None),
                         "kinematic": obj.rigid_body.kinematic if obj.rigid_body else None,
                         "curves": [curve_dump(curve) for curve in curves]}
    return out


with open(ARGS.out, "w") as f:
    json.dump({case: dump_case(case) for case in ARGS.cases.split(",")}, f, indent=0, sort_keys=True)
print(f"dump_keys.py: wrote {ARGS.out}", flush=True)
