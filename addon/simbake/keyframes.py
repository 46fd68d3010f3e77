"""A rigid-body bake written as keyframes on location and rotation, and taken out again
exactly. What a bake changed is kept in the object's bake record (JSON)."""

from array import array
from contextlib import contextmanager

import bpy

from . import actions, transforms

try:
    from . import rigid_channels
except ImportError:  # no numpy (Debian's Blender without python3-numpy): frame by frame instead
    rigid_channels = None

TRANSFORM_PATHS = ("location", "rotation_quaternion", "rotation_euler", "rotation_axis_angle")
GROUP = "Object Transforms"


def own_transform(obj):
    """The object's transform channel values, as plain lists (for a record)."""
    return {"rotation_mode": obj.rotation_mode, "location": list(obj.location),
            "rotation_quaternion": list(obj.rotation_quaternion), "rotation_euler": list(obj.rotation_euler),
            "rotation_axis_angle": list(obj.rotation_axis_angle)}


def set_transform(obj, values):
    obj.rotation_mode = values["rotation_mode"]
    for path in TRANSFORM_PATHS:
        setattr(obj, path, values[path])


@contextmanager
def own_motion(objects, records):
    """While a bake reads the scene: each object's Blender rigid body is 'Animated' (so Blender
    shows the object's own transform, not its simulation), and a keyframe bake of ours still in
    place is out of the way (the action and the transform before it back). `records` maps an
    object to its bake record, if any. Everything is put back on leaving."""
    saved = []
    try:
        for obj in objects:
            state = {"action": actions.playing(obj), "transform": own_transform(obj),
                     "kinematic": obj.rigid_body.kinematic if obj.rigid_body else None}
            saved.append((obj, state))
            record = records.get(obj)
            if record and record.get("output") == "KEYFRAMES":
                actions.play(obj, record["previous_action"], record.get("previous_slot"))
                set_transform(obj, record["transform"])
            if obj.rigid_body:
                obj.rigid_body.kinematic = True
        yield
    finally:
        for obj, state in reversed(saved):
            actions.play(obj, state["action"]["action"], state["action"]["slot"])
            if not state["action"]["animation_data"] and obj.animation_data is not None:
                obj.animation_data_clear()
            set_transform(obj, state["transform"])
            if state["kinematic"] is not None:
                obj.rigid_body.kinematic = state["kinematic"]


def _delta_rotation(obj):
    """The delta rotation Blender composes before the object's own (none for axis-angle)."""
    mode = obj.rotation_mode
    path = "delta_" + transforms.ROTATION_PATHS[mode][0]
    values = list(getattr(obj, path)) if mode != "AXIS_ANGLE" else []
    if mode == "AXIS_ANGLE" or values in ([0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]):  # none: no products per body
        return transforms.rotation_part(transforms.IDENTITY)
    return transforms.rotation_matrix_of(mode, values)


def _scale(obj):
    return [obj.scale[k] * obj.delta_scale[k] for k in range(3)]


def rigid_channel_values(jobs, frame_start):
    """The keys of each rigid_bake.RigidJob's object at its bases, from frame_start on, as a
    list in the order of `jobs`: {path: per channel, its keys' (frame, value) pairs flat in
    float32} (channel_values' values, with numpy all bodies at once, rigid_channels.py; without
    it frame by frame). Raises SettingsError for a singular parent; reads the scene, changes
    nothing."""
    if rigid_channels is None:
        print("SimBake: numpy is not installed (Debian's Blender: apt-get install python3-numpy), so rigid keys "
              "are computed frame by frame, more slowly", flush=True)
        out = []
        for job in jobs:
            values = channel_values(job.obj, job.bases())
            frames = array("f", range(frame_start, frame_start + len(values["location"][0])))
            out.append({path: [actions.pairs(frames, series) for series in per_channel]
                        for path, per_channel in values.items()})
        return out
    bodies = []
    for job in jobs:
        obj = job.obj
        first = list(getattr(obj, transforms.ROTATION_PATHS[obj.rotation_mode][0]))
        bodies.append(rigid_channels.BodyChannels(obj.rotation_mode, first, _scale(obj), list(obj.delta_location),
                                                  _delta_rotation(obj)))
    bases = [job.bases_array() for job in jobs]
    return [rigid_channels.key_pairs(per_body, frame_start)
            for per_body in rigid_channels.channel_values(bodies, bases)]


def channel_values(obj, bases):
    """Location and rotation channel values (per channel, per frame) that give each of the
    matrix_basis `bases` (16 floats each) with the object's scale, delta transforms and
    rotation mode, continuous from the object's own values."""
    path, size = transforms.ROTATION_PATHS[obj.rotation_mode]
    channels = transforms.RotationChannels(obj.rotation_mode, first=list(getattr(obj, path)))
    scale = _scale(obj)
    delta_location, delta_rotation = list(obj.delta_location), _delta_rotation(obj)
    location = [[], [], []]
    rotation = [[] for _ in range(size)]
    for basis in bases:
        loc, rot = transforms.basis_channels(basis, scale, delta_location, delta_rotation, channels)
        for k in range(3):
            location[k].append(loc[k])
        for k in range(size):
            rotation[k].append(rot[k])
    return {"location": location, path: rotation}


def apply(obj, keys, record, made=None):
    """Keys location and rotation (LINEAR) in a new action: a copy of the object's action with
    its transform curves replaced, so that its other animation plays on. `keys`: the object's
    of rigid_channel_values. Blender's own rigid body of the object is set to 'Animated'.
    `made` ({}, shared by a bake's calls): the actions made so far for objects with no action,
    by channels and key count; an object with none gets a copy of one of its channels, its keys'
    values written over the copy's (Blender copies the curves, groups and keys in one call),
    rather than each curve made, filled with keys and set LINEAR again (issue 30: per curve,
    these calls were a tenth of the tower's add-on time)."""
    state = actions.playing(obj)
    previous = bpy.data.actions.get(state["action"]) if state["action"] else None
    record.update(output="KEYFRAMES", previous_action=state["action"], previous_slot=state["slot"],
                  animation_data=state["animation_data"], transform=own_transform(obj))
    count = len(keys["location"][0]) // 2
    shape = (tuple(keys), count)
    template = made.get(shape) if made is not None and previous is None else None
    if previous is not None:  # it loses its user while ours plays: keep it in the file
        record["previous_fake_user"] = previous.use_fake_user
        previous.use_fake_user = True
        channels = actions.Channels(previous.copy(), obj, state["slot"])
        channels.remove(TRANSFORM_PATHS)
    elif template is not None:
        channels = actions.Channels(template[0].copy(), obj, template[1])
        channels.name_slot(obj)
    else:
        channels = actions.Channels(bpy.data.actions.new(""), obj)
    action = channels.action
    action.name = f"SimBake {obj.name}"
    if template is not None:
        curves = {(curve.data_path, curve.array_index): curve for curve in channels.fcurves}
        for path, per_channel in keys.items():
            for index, co in enumerate(per_channel):
                actions.rekey(curves[path, index], co)
    else:
        linear = array("i", [actions.LINEAR_INTERPOLATION]) * count  # once for its curves
        for path, per_channel in keys.items():
            for index, co in enumerate(per_channel):
                actions.key_pairs(channels.new(path, index=index, group=GROUP), co, linear)
        if previous is None and made is not None:
            made[shape] = (action, channels.slot_identifier)
    channels.assign_to(obj)
    record["action"] = action.name
    if obj.rigid_body is not None:
        record["rigid_body_kinematic"] = obj.rigid_body.kinematic
        obj.rigid_body.kinematic = True


def free(obj, record):
    """Takes a keyframe bake out: the action, transform values and rigid body setting before it."""
    ours = bpy.data.actions.get(record.get("action", ""))
    actions.play(obj, record["previous_action"], record.get("previous_slot"))
    if ours is not None:
        bpy.data.actions.remove(ours)
    previous = bpy.data.actions.get(record["previous_action"]) if record["previous_action"] else None
    if previous is not None and "previous_fake_user" in record:
        previous.use_fake_user = record["previous_fake_user"]
    anim = obj.animation_data
    if not record["animation_data"] and anim is not None and anim.action is None and not anim.drivers \
            and not anim.nla_tracks:
        obj.animation_data_clear()
    set_transform(obj, record["transform"])
    if obj.rigid_body is not None and "rigid_body_kinematic" in record:
        obj.rigid_body.kinematic = record["rigid_body_kinematic"]
