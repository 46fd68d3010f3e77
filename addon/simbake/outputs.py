"""Writing a cloth bake into the scene (PC2 + Mesh Cache modifier, or shape keys) and taking
any bake out again exactly (rigid bodies' keyframes: keyframes.py). Each baked object keeps a
JSON record of what the bake changed in `obj.simbake.bake_record`."""

import json
import os
import time
from array import array
from contextlib import contextmanager

import bpy

from . import actions, cache_owner, keyframes
from .pc2 import PC2Writer
from .scene_io import BAKE_MODIFIER_NAME

SHAPE_KEY_PREFIX = "SimBake "


def load_record(obj):
    text = obj.simbake.bake_record
    return json.loads(text) if text else None


def is_baked(obj):
    return bool(obj.simbake.bake_record)


def move_modifier(obj, modifier, index):
    """Moves a modifier to `index` in the stack (Blender 3.4 has only the operator)."""
    current = list(obj.modifiers).index(modifier)
    if current == index:
        return
    if hasattr(obj.modifiers, "move"):
        obj.modifiers.move(current, index)
        return
    with bpy.context.temp_override(object=obj, active_object=obj):
        bpy.ops.object.modifier_move_to_index(modifier=modifier.name, index=index)


class MeshCacheOutput:
    """Frames stream into a PC2 file beside the .blend; applying adds the modifier."""

    def __init__(self, path, vertex_count, frame_start, frame_end, resume=None, owner=("", "")):
        """resume: what checkpoint() gave, to go on with the cache a paused bake left; owner:
        the (.blend path, scene name) whose bake this is (cache_owner)."""
        self.path = path
        self.owner = owner
        self.frame_start = frame_start
        self.writer = PC2Writer(path, vertex_count, frame_end - frame_start + 1, frame_start, 1.0,
                                resume_at=None if resume is None else resume["frames"])

    def add_frame(self, local_positions):
        self.writer.write(local_positions)

    def checkpoint(self):
        """(description, bulk bytes) of the frames so far, for a checkpoint; they are on disk."""
        self.writer.sync()
        return {"frames": self.writer.written}, b""

    def detach(self):
        """The bake pauses: the cache so far stays for a resumed bake."""
        self.writer.detach()

    def end_early(self):
        """The bake stops here: the cache holds the frames written so far."""
        self.writer.end_early()

    def abort(self):
        self.writer.abort()

    def apply(self, obj, cut, record):
        self.writer.finish()
        cache_owner.claim(self.path, *self.owner)
        active = next((m.name for m in obj.modifiers if m.is_active), None)
        modifier = obj.modifiers.new(BAKE_MODIFIER_NAME, "MESH_CACHE")
        if active is not None:  # a new modifier becomes the active one: the user's stays so
            obj.modifiers[active].is_active = True
        move_modifier(obj, modifier, cut)  # before it has a file, so it never sees other vertex counts
        modifier.cache_format = "PC2"
        modifier.filepath = bpy.path.relpath(self.path) if bpy.data.filepath else self.path
        modifier.play_mode = "SCENE"
        modifier.time_mode = "FRAME"
        modifier.frame_start = self.frame_start  # sample 0 plays at the bake's first frame
        modifier.frame_scale = 1.0
        modifier.interpolation = "LINEAR"
        modifier.deform_mode = "OVERWRITE"
        modifier.forward_axis = "POS_Y"
        modifier.up_axis = "POS_Z"
        record.update(output="MESH_CACHE", cache_file=self.path, modifier=modifier.name)


class ShapeKeyOutput:
    """Frames are kept in memory; applying adds one shape key per frame, each keyed to 1 at
    its frame and 0 at its neighbours (LINEAR), so the mesh plays the bake."""

    def __init__(self, frame_start, resume=None, resume_bytes=b"", vertex_count=0):
        self.frame_start = frame_start
        self.frames = []
        if resume is not None:
            size = 12 * vertex_count
            if len(resume_bytes) != size * resume["frames"]:
                raise ValueError("the checkpoint's shape-key frames do not fit the mesh")
            for at in range(0, len(resume_bytes), size):
                frame = array("f")
                frame.frombytes(resume_bytes[at:at + size])
                self.frames.append(frame)

    def add_frame(self, local_positions):
        self.frames.append(local_positions)

    def checkpoint(self):
        return {"frames": len(self.frames)}, b"".join(frame.tobytes() for frame in self.frames)

    def detach(self):
        self.frames = []

    def end_early(self):
        pass  # applying keys the frames it has

    def abort(self):
        self.frames = []

    def apply(self, obj, cut, record):
        mesh = obj.data
        keys_before = mesh.shape_keys
        state = {"created_basis": keys_before is None, "muted": [], "keys": []}
        if keys_before is None:
            obj.shape_key_add(name="Basis", from_mix=False)
        key_data = mesh.shape_keys
        state["use_relative"] = key_data.use_relative
        key_data.use_relative = True
        for block in key_data.key_blocks[1:]:
            state["muted"].append([block.name, block.mute])
            block.mute = True
        previous = actions.playing(key_data)
        state["previous_action"], state["previous_slot"] = previous["action"], previous["slot"]
        channels = actions.Channels(bpy.data.actions.new(f"SimBake {obj.name}"), key_data)
        channels.assign_to(key_data)
        state["action"] = channels.action.name
        last = self.frame_start + len(self.frames) - 1
        for offset, positions in enumerate(self.frames):
            frame = self.frame_start + offset
            block = obj.shape_key_add(name=f"{SHAPE_KEY_PREFIX}{frame}", from_mix=False)
            block.data.foreach_set("co", positions)
            state["keys"].append(block.name)
            frames = [f for f in (frame - 1, frame, frame + 1) if self.frame_start <= f <= last]
            actions.key_linear(channels.new(f'key_blocks["{block.name}"].value'), frames,
                               [1.0 if f == frame else 0.0 for f in frames])
        self.frames = []
        record.update(output="SHAPE_KEYS", shape_keys=state)


@contextmanager
def shape_key_bakes_suspended(objects):
    """While a bake reads the scene: a shape-key bake of ours still in place is out of the way
    (the key action, mutes and relative mode before it back, its own keys muted), so that
    pins follow the object's own animation. Put back on leaving."""
    saved = []
    try:
        for obj in objects:
            record = load_record(obj)
            key_data = obj.data.shape_keys
            if not record or record.get("output") != "SHAPE_KEYS" or key_data is None:
                continue
            state = record["shape_keys"]
            saved.append((key_data, actions.playing(key_data), key_data.use_relative,
                          [(block.name, block.mute) for block in key_data.key_blocks]))
            if key_data.animation_data is not None:
                actions.play(key_data, state.get("previous_action"), state.get("previous_slot"))
            key_data.use_relative = state["use_relative"]
            mutes = dict(state["muted"])
            mutes.update((name, True) for name in state["keys"])
            for name, mute in mutes.items():
                block = key_data.key_blocks.get(name)
                if block is not None:
                    block.mute = mute
        yield
    finally:
        for key_data, playing, use_relative, mutes in reversed(saved):
            if key_data.animation_data is not None:
                actions.play(key_data, playing["action"], playing["slot"])
            key_data.use_relative = use_relative
            for name, mute in mutes:
                block = key_data.key_blocks.get(name)
                if block is not None:
                    block.mute = mute


def switch_off_blender_cloth(obj, record):
    saved = []
    for modifier in obj.modifiers:
        if modifier.type == "CLOTH":
            saved.append([modifier.name, modifier.show_viewport, modifier.show_render])
            modifier.show_viewport = modifier.show_render = False
    record["cloth_modifiers"] = saved


def write_record(obj, record, frame_start, frame_end, seconds):
    record.update(frames=[frame_start, frame_end], seconds=seconds, baked_at=time.time())
    obj.simbake.bake_record = json.dumps(record)


def _remove_shape_keys(obj, state):
    key_data = obj.data.shape_keys
    if key_data is None:
        return
    anim = key_data.animation_data
    action = bpy.data.actions.get(state["action"])
    if anim is not None:
        actions.play(key_data, state.get("previous_action"), state.get("previous_slot"))
    if action is not None:
        bpy.data.actions.remove(action)
    for name in state["keys"]:
        block = key_data.key_blocks.get(name)
        if block is not None:
            obj.shape_key_remove(block)
    if state["created_basis"]:
        obj.shape_key_clear()
        return
    key_data.use_relative = state["use_relative"]
    for name, mute in state["muted"]:
        block = key_data.key_blocks.get(name)
        if block is not None:
            block.mute = mute
    if anim is not None and anim.action is None and not anim.drivers:
        key_data.animation_data_clear()


def free(obj):
    """Removes everything a bake added to `obj` and restores what it switched off.
    Returns False if the object had no bake."""
    record = load_record(obj)
    if record is None:
        return False
    if record.get("output") == "MESH_CACHE":
        modifier = obj.modifiers.get(record.get("modifier", BAKE_MODIFIER_NAME))
        if modifier is not None and modifier.type == "MESH_CACHE":
            obj.modifiers.remove(modifier)
        path = record.get("cache_file")
        if path and cache_owner.held_by_other_blend(path, bpy.data.filepath):
            pass  # a copy of the .blend that baked it: the original keeps playing its cache
        elif path:
            if os.path.exists(path):
                os.remove(path)
            cache_owner.release(path)
    elif record.get("output") == "SHAPE_KEYS":
        _remove_shape_keys(obj, record["shape_keys"])
    elif record.get("output") == "KEYFRAMES":
        keyframes.free(obj, record)
    for name, show_viewport, show_render in record.get("cloth_modifiers", []):
        modifier = obj.modifiers.get(name)
        if modifier is not None:
            modifier.show_viewport, modifier.show_render = show_viewport, show_render
    obj.simbake.bake_record = ""
    return True
