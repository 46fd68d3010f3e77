"""The keyframe channel values of many rigid bodies over many frames at once, with numpy (no
bpy): the same arithmetic as transforms.py's per-matrix functions, done on whole arrays.
Only the continuity from frame to frame of quaternion signs and axis-angle sides is a loop, over
the frames, each step on every body of a rotation mode together (compatible Euler angles need none).

Arrays: matrices are (..., 4, 4) or (..., 3, 3), row-major as in transforms.py; rotation
channel values are (bodies, frames, size) in Blender's order (Euler: about X, Y, Z;
quaternion: w, x, y, z; axis-angle: angle, axis x, y, z)."""

import math

import numpy as np

from .transforms import EULER_ORDERS, ROTATION_PATHS, _order_axes

TAU = 2.0 * math.pi


class BodyChannels:
    """What turns one body's matrix_basis into its channel values: its rotation mode, the
    channel values it has now (the first frame's stay near them), its scale (object scale
    times delta scale), delta location and delta rotation (3 x 3)."""

    def __init__(self, mode, first, scale, delta_location, delta_rotation):
        self.mode = mode
        self.path, self.size = ROTATION_PATHS[mode]
        self.first = np.asarray(first, dtype=float)
        self.scale = np.asarray(scale, dtype=float)
        self.delta_location = np.asarray(delta_location, dtype=float)
        self.delta_rotation = np.asarray(delta_rotation, dtype=float)


def world_matrices(displacements, world_start):
    """World matrix of each frame, displacement @ start: (frames, 4, 4) from 16 doubles a frame."""
    return np.asarray(displacements, dtype=float).reshape(-1, 4, 4) @ np.asarray(world_start, dtype=float).reshape(4, 4)


def local_bases(world, parent_inverses):
    """matrix_basis of each frame: parent inverse @ world, the inverse being one for all frames
    or one per frame (16 values each)."""
    inverses = np.asarray(parent_inverses, dtype=float).reshape(-1, 4, 4)
    return inverses @ world


def _normalized(v):
    """v / |v| along the last axis (a zero vector stays zero, as transforms.orthonormalize)."""
    n = np.sqrt(v[..., 0] * v[..., 0] + v[..., 1] * v[..., 1] + v[..., 2] * v[..., 2])
    return v / np.where(n == 0.0, 1.0, n)[..., None]


def orthonormalize(r):
    """transforms.orthonormalize on (..., 3, 3): Gram-Schmidt on the columns, x first."""
    x = _normalized(r[..., :, 0])
    y_in = r[..., :, 1]
    dot = y_in[..., 0] * x[..., 0] + y_in[..., 1] * x[..., 1] + y_in[..., 2] * x[..., 2]
    y = _normalized(y_in - dot[..., None] * x)
    return np.stack([x, y, np.cross(x, y)], axis=-1)


def rotations(bases, scale, delta_rotation):
    """The rotation each basis gives the channels (delta rotation taken out, scale divided
    out): (bodies, frames, 3, 3) from bases (bodies, frames, 4, 4), scale (bodies, 3) and
    delta rotations (bodies, 3, 3)."""
    divisor = np.where(scale == 0.0, 1.0, scale)[:, None, None, :]
    r = orthonormalize(bases[..., :3, :3] / divisor)
    return np.swapaxes(delta_rotation, -1, -2)[:, None] @ r


def euler_from_matrix(r, order="XYZ"):
    """transforms.euler_from_matrix on (..., 3, 3): angles (..., 3) about X, Y, Z."""
    i, j, k, s = _order_axes(order)
    b = np.arcsin(np.clip(-s * r[..., k, i], -1.0, 1.0))
    free = np.sqrt(r[..., k, j] ** 2 + r[..., k, k] ** 2) > 1e-9
    a = np.where(free, np.arctan2(s * r[..., k, j], r[..., k, k]), np.arctan2(-s * r[..., j, k], r[..., j, j]))
    c = np.where(free, np.arctan2(s * r[..., j, i], r[..., i, i]), 0.0)  # gimbal lock: c = 0
    out = np.empty(r.shape[:-2] + (3,))
    out[..., i], out[..., j], out[..., k] = a, b, c
    return out


def _wrap_near(angle, reference):
    return angle + TAU * np.round((reference - angle) / TAU)


def _distance(values, previous):
    """|values moved by whole turns nearest previous - previous|, summed over the three angles."""
    d = np.abs(_wrap_near(values, previous) - previous)
    return d[..., 0] + d[..., 1] + d[..., 2]


def _chosen_branches(start, after_first, after_other):
    """took[:, f] = after_other[:, f - 1] if took[:, f - 1] else after_first[:, f - 1], from
    took[:, 0] = start, without a loop over frames: a step that takes the same branch either way
    sets it (the first frame is set by `start`), one that takes the other branch either way flips
    it, and the rest keep it; so each frame's branch is that of the last frame set, flipped once
    for every flip since."""
    bodies, frames = start.shape[0], after_first.shape[1] + 1
    sets = np.ones((bodies, frames), dtype=bool)
    sets[:, 1:] = after_first == after_other
    value = np.empty((bodies, frames), dtype=bool)
    value[:, 0], value[:, 1:] = start, after_first
    flips = np.zeros((bodies, frames), dtype=np.int64)
    flips[:, 1:] = after_first & ~after_other
    last_set = np.maximum.accumulate(np.where(sets, np.arange(frames), 0), axis=1)
    flipped = np.cumsum(flips, axis=1)
    flipped -= np.take_along_axis(flipped, last_set, axis=1)
    return np.take_along_axis(value, last_set, axis=1) ^ (flipped % 2 == 1)


def compatible_eulers(angles, first, order="XYZ"):
    """transforms.compatible_euler frame after frame: angles (bodies, frames, 3) moved to the
    same rotations' Euler angles nearest the frame before's (the first frame's nearest
    `first`, (bodies, 3)). Whole turns added to the frame before's angles change no distance,
    so which branch a frame takes depends only on the branch the frame before took: both
    cases are worked out for every frame at once, and that choice follows along the frames
    (_chosen_branches); the whole turns then add up along the frames."""
    i, j, k, _ = _order_axes(order)
    other = angles.copy()  # the other branch of each rotation: (a + π, π - b, c + π)
    other[..., i] += math.pi
    other[..., j] = math.pi - angles[..., j]
    other[..., k] += math.pi
    first = np.asarray(first, dtype=float)
    # after[b][:, f]: frame f + 1 takes the other branch when frame f took branch b (1: other)
    after = [_distance(other[:, 1:], before[:, :-1]) < _distance(angles[:, 1:], before[:, :-1]) - 1e-12
             for before in (angles, other)]
    took = _chosen_branches(_distance(other[:, 0], first) < _distance(angles[:, 0], first) - 1e-12, *after)
    values = np.where(took[..., None], other, angles)
    turns = np.empty_like(values)
    turns[:, 0] = np.round((first - values[:, 0]) / TAU)
    turns[:, 1:] = np.round((values[:, :-1] - values[:, 1:]) / TAU)
    return values + TAU * np.cumsum(turns, axis=1)


def quaternion_from_matrix(r):
    """transforms.quaternion_from_matrix on (..., 3, 3): (..., 4) unit, w >= 0."""
    r00, r01, r02 = r[..., 0, 0], r[..., 0, 1], r[..., 0, 2]
    r10, r11, r12 = r[..., 1, 0], r[..., 1, 1], r[..., 1, 2]
    r20, r21, r22 = r[..., 2, 0], r[..., 2, 1], r[..., 2, 2]
    trace = r00 + r11 + r22
    with np.errstate(invalid="ignore", divide="ignore"):  # the cases not taken may divide by 0
        s = 2.0 * np.sqrt(1.0 + trace)
        by_trace = np.stack([0.25 * s, (r21 - r12) / s, (r02 - r20) / s, (r10 - r01) / s], axis=-1)
        s = 2.0 * np.sqrt(1.0 + r00 - r11 - r22)
        by_x = np.stack([(r21 - r12) / s, 0.25 * s, (r01 + r10) / s, (r02 + r20) / s], axis=-1)
        s = 2.0 * np.sqrt(1.0 + r11 - r00 - r22)
        by_y = np.stack([(r02 - r20) / s, (r01 + r10) / s, 0.25 * s, (r12 + r21) / s], axis=-1)
        s = 2.0 * np.sqrt(1.0 + r22 - r00 - r11)
        by_z = np.stack([(r10 - r01) / s, (r02 + r20) / s, (r12 + r21) / s, 0.25 * s], axis=-1)
    x_largest = (r00 > r11) & (r00 > r22)
    q = np.where((trace > 0.0)[..., None], by_trace,
                 np.where(x_largest[..., None], by_x, np.where((r11 > r22)[..., None], by_y, by_z)))
    n = np.sqrt(q[..., 0] * q[..., 0] + q[..., 1] * q[..., 1] + q[..., 2] * q[..., 2] + q[..., 3] * q[..., 3])
    turn = n > 0.0  # otherwise not a rotation (a zero scale): no turn
    with np.errstate(invalid="ignore", divide="ignore"):
        q = np.where(turn[..., None], q / np.where(turn, n, 1.0)[..., None], [1.0, 0.0, 0.0, 0.0])
    return np.where((q[..., 0] >= 0.0)[..., None], q, -q)


def continuous_quaternions(q, first):
    """Each frame's quaternion with the sign nearest the frame before's (the first frame's
    nearest `first`, (bodies, 4)), as RotationChannels keeps them."""
    out = np.empty_like(q)
    previous = np.asarray(first, dtype=float)
    for frame in range(q.shape[1]):
        now = q[:, frame]
        dot = now[:, 0] * previous[:, 0] + now[:, 1] * previous[:, 1] + now[:, 2] * previous[:, 2] \
            + now[:, 3] * previous[:, 3]
        previous = out[:, frame] = np.where((dot < 0.0)[:, None], -now, now)
    return out


def continuous_axis_angles(q, first):
    """transforms._continuous_axis_angle frame after frame: (angle, axis) of each quaternion,
    the axis on the side of the frame before's (kept when the angle is nearly zero) and the
    angle moved by whole turns to lie nearest (the first frame's nearest `first`)."""
    w = np.clip(q[..., 0], -1.0, 1.0)
    s = np.sqrt(np.maximum(0.0, 1.0 - w * w))
    angles = 2.0 * np.arccos(w)
    with np.errstate(invalid="ignore", divide="ignore"):
        axes = q[..., 1:4] / s[..., None]
    out = np.empty(q.shape[:-1] + (4,))
    previous = np.asarray(first, dtype=float)
    for frame in range(q.shape[1]):
        previous_axis = previous[:, 1:4]
        axis, angle = axes[:, frame], angles[:, frame]
        dot = axis[:, 0] * previous_axis[:, 0] + axis[:, 1] * previous_axis[:, 1] + axis[:, 2] * previous_axis[:, 2]
        flip = np.where(dot < 0.0, -1.0, 1.0)
        still = s[:, frame] < 1e-9
        axis = np.where(still[:, None], previous_axis, flip[:, None] * axis)
        angle = _wrap_near(np.where(still, 0.0, flip * angle), previous[:, 0])
        previous = out[:, frame] = np.concatenate([angle[:, None], axis], axis=1)
    return out


def rotation_values(mode, r, first):
    """Rotation channel values (bodies, frames, size) of rotations (bodies, frames, 3, 3) in
    `mode`, continuous from each body's `first` values."""
    if mode in EULER_ORDERS:
        return compatible_eulers(euler_from_matrix(r, mode), first, mode)
    q = quaternion_from_matrix(r)
    if mode == "QUATERNION":
        return continuous_quaternions(q, first)
    return continuous_axis_angles(q, first)


def channel_values(bodies, bases):
    """Location and rotation channel values of each body: for bodies[n] (BodyChannels), whose
    matrix_basis at each frame is bases[n] (frames x 4 x 4, every body the same number of
    frames), {"location": (frames, 3), rotation path: (frames, size)}. Bodies of one rotation
    mode are done together."""
    out = [None] * len(bodies)
    by_mode = {}
    for n, body in enumerate(bodies):
        by_mode.setdefault(body.mode, []).append(n)
    for mode, members in by_mode.items():
        chosen = [bodies[n] for n in members]
        b = np.stack([np.asarray(bases[n], dtype=float).reshape(-1, 4, 4) for n in members])
        location = b[..., :3, 3] - np.stack([body.delta_location for body in chosen])[:, None, :]
        r = rotations(b, np.stack([body.scale for body in chosen]), np.stack([body.delta_rotation for body in chosen]))
        rotation = rotation_values(mode, r, np.stack([body.first for body in chosen]))
        for m, n in enumerate(members):
            out[n] = {"location": location[m], chosen[m].path: rotation[m]}
    return out


def key_pairs(values, frame_start):
    """One body's channel values ({path: (frames, size)}, channel_values') as keys: per path,
    each channel's (frame, value) pairs flat in float32 (what keys hold), from frame_start on,
    rows of one array per path (no copy a channel)."""
    out = {}
    for path, per_frame in values.items():
        frames, size = per_frame.shape
        co = np.empty((size, frames, 2), dtype=np.float32)
        co[..., 0] = np.arange(frame_start, frame_start + frames, dtype=np.float32)
        co[..., 1] = per_frame.T
        out[path] = list(co.reshape(size, 2 * frames))
    return out
