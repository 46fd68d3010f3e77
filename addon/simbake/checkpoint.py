"""Checkpoints of a bake in progress: a bake stopped at a frame (a time limit, preemption, a
crash, or --stop-at) resumes there and ends exactly as if it had never stopped. No bpy here.

A checkpoint is one file, replaced atomically (written beside it, flushed to disk, renamed):

    MAGIC, a little-endian u64 length, that many bytes of JSON, then the blobs one after the
    other, in the order and with the lengths the JSON's "blobs" lists ([name, length] pairs).

The JSON says what the bake had made besides the solver: its frame range and objects (to tell
a checkpoint of another bake), the last frame simulated, the seconds spent, per cloth its
output so far, per rigid body the parents' matrices. The blobs hold the solver's state
(sb_world_save_state) and the bulk arrays (rigid displacements, shape-key frames)."""

import json
import os
import struct

MAGIC = b"SIMBAKE-CHECKPOINT-1\n"
LENGTH = struct.Struct("<Q")


class CheckpointError(RuntimeError):
    pass


class Checkpoint:
    def __init__(self, info, blobs):
        self.info = info      # JSON-able dict
        self.blobs = blobs    # name -> bytes


class Plan:
    """When a bake saves checkpoints, and where: every `every` frames (0: never) and at
    `stop_at`, where the bake then stops. `source` (JSON-able) says what the scene was made
    from (input file, variant): a checkpoint made from another source is not resumed, since
    what the solver cannot see (animation, say) may have changed."""

    def __init__(self, path, every=0, stop_at=None, source=None):
        if every < 0:
            raise ValueError(f"checkpoints every {every} frames: give 0 (never) or more")
        self.path, self.every, self.stop_at, self.source = path, every, stop_at, source

    def due(self, frame, frame_start, frame_end):
        if frame >= frame_end:
            return False  # the bake is done: nothing to resume
        if frame == self.stop_at:
            return True
        return self.every > 0 and (frame - frame_start) % self.every == 0


def save(path, checkpoint):
    """Writes the checkpoint so that `path` always holds a whole one (old or new)."""
    names = list(checkpoint.blobs)
    info = dict(checkpoint.info, blobs=[[name, len(checkpoint.blobs[name])] for name in names])
    text = json.dumps(info).encode()
    temp = path + ".writing"
    with open(temp, "wb") as f:
        f.write(MAGIC)
        f.write(LENGTH.pack(len(text)))
        f.write(text)
        for name in names:
            f.write(checkpoint.blobs[name])
        f.flush()
        os.fsync(f.fileno())
    os.replace(temp, path)


def load(path):
    """The checkpoint at `path`; CheckpointError saying what is wrong with the file."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as error:
        raise CheckpointError(f"{path}: cannot read it ({error.strerror})") from error
    if not data.startswith(MAGIC):
        raise CheckpointError(f"{path}: not a SimBake checkpoint")
    at = len(MAGIC)
    if len(data) < at + LENGTH.size:
        raise CheckpointError(f"{path}: cut short")
    (length,) = LENGTH.unpack_from(data, at)
    at += LENGTH.size
    try:
        info = json.loads(data[at:at + length])
        listed = [(str(name), int(size)) for name, size in info.pop("blobs")]
    except (ValueError, KeyError, TypeError) as error:
        raise CheckpointError(f"{path}: its description is damaged ({error})") from error
    at += length
    blobs = {}
    for name, size in listed:
        if size < 0 or at + size > len(data):
            raise CheckpointError(f"{path}: cut short")
        blobs[name] = data[at:at + size]
        at += size
    if at != len(data):
        raise CheckpointError(f"{path}: {len(data) - at} bytes too many")
    return Checkpoint(info, blobs)


def mismatch(info, expected):
    """Why a checkpoint's `info` is not of the bake `expected` describes (the same keys as
    identity() gives), or None when it is."""
    for key, value in expected.items():
        if info.get(key) != value:
            if key == "source":
                return "it was made from another input file or variant, or the file has changed since"
            return f"it was made for {key.replace('_', ' ')} {info.get(key)!r}, this bake has {value!r}"
    frame = info.get("frame")
    if not isinstance(frame, int) or not expected["frame_start"] < frame < expected["frame_end"]:
        return f"its frame {frame!r} is not inside this bake's frames"
    return None


def identity(frame_start, frame_end, cloths, rigid, cloth_output, source=None):
    """What must be the same for a checkpoint to resume a bake: frames, objects, output, and
    what the scene was made from (Plan.source)."""
    return {"frame_start": frame_start, "frame_end": frame_end, "cloths": list(cloths),
            "rigid_bodies": list(rigid), "cloth_output": cloth_output, "source": source}
