"""The numpy conversion of many bodies' matrices to keyframe channels (rigid_channels.py) gives
the channels of the straightforward one, transforms.py frame by frame (the add-on's path
without numpy): random rotations, gimbal lock, quaternion and axis-angle sign flips, many
turns, scale and delta transforms, several rotation modes in one call."""

import math
import random
import unittest

import numpy as np

from simbake import rigid_channels as rc
from simbake import transforms as tf

MODES = tf.EULER_ORDERS + ("QUATERNION", "AXIS_ANGLE")


def random_rotation(rng):
    return tf.matrix_from_quaternion([rng.gauss(0.0, 1.0) for _ in range(4)])


def spin(axis, angle):
    return tf.matrix_from_axis_angle(angle, axis)


def basis_of(rotation, scale, location, delta_rotation=None):
    """matrix_basis (16 row-major) = T (D R) S."""
    r = tf.mat3_multiply(delta_rotation, rotation) if delta_rotation is not None else rotation
    return [r[0][0] * scale[0], r[0][1] * scale[1], r[0][2] * scale[2], location[0],
            r[1][0] * scale[0], r[1][1] * scale[1], r[1][2] * scale[2], location[1],
            r[2][0] * scale[0], r[2][1] * scale[1], r[2][2] * scale[2], location[2], 0.0, 0.0, 0.0, 1.0]


def reference(mode, first, scale, delta_location, delta_rotation, bases):
    """The channels frame by frame, as keyframes.channel_values computes them without numpy:
    location (frames x 3) and rotation (frames x size)."""
    channels = tf.RotationChannels(mode, first=first)
    rows = [tf.basis_channels(b, scale, delta_location, delta_rotation, channels) for b in bases]
    return np.array([r[0] for r in rows]), np.array([r[1] for r in rows])


class SameAsFrameByFrame(unittest.TestCase):
    def check(self, mode, bases, first, scale=(1.0, 1.0, 1.0), delta_location=(0.0, 0.0, 0.0),
              delta_rotation=None, tolerance=1e-10):
        delta_rotation = delta_rotation or tf.rotation_part(tf.IDENTITY)
        body = rc.BodyChannels(mode, first, scale, delta_location, delta_rotation)
        got = rc.channel_values([body], [bases])[0]
        location, rotation = reference(mode, list(first), list(scale), list(delta_location), delta_rotation, bases)
        path = tf.ROTATION_PATHS[mode][0]
        self.assertEqual(got[path].shape, rotation.shape)
        worst = np.abs(got[path] - rotation).max()
        self.assertLess(worst, tolerance, f"{mode}: rotation channels differ by up to {worst:.3g}")
        self.assertLess(np.abs(got["location"] - location).max(), 1e-12)
        return got[path]

    def test_random_rotations_in_every_mode(self):
        rng = random.Random(7)
        for mode in MODES:
            size = tf.ROTATION_PATHS[mode][1]
            for _ in range(20):
                bases = [basis_of(random_rotation(rng), (1.0, 1.0, 1.0), [rng.uniform(-5, 5) for _ in range(3)])
                         for _ in range(30)]
                first = [rng.uniform(-10.0, 10.0) for _ in range(size)]  # far from [-π, π]: whole turns kept
                self.check(mode, bases, first)

    def test_scale_delta_location_and_delta_rotation_are_taken_out(self):
        rng = random.Random(8)
        for mode in MODES:
            size = tf.ROTATION_PATHS[mode][1]
            delta = random_rotation(rng) if mode != "AXIS_ANGLE" else None
            scale = (0.5, 2.0, -1.5)
            bases = [basis_of(random_rotation(rng), scale, (1.0, 2.0, 3.0), delta) for _ in range(40)]
            self.check(mode, bases, [0.1] * size, scale, (0.25, -0.5, 1.0), delta)

    def test_a_zero_scale_counts_as_one(self):
        r = tf.matrix_from_euler([0.3, 0.2, 0.1])
        self.check("XYZ", [basis_of(r, (1.0, 1.0, 1.0), (0.0, 0.0, 0.0))] * 3, [0.0] * 3, scale=(0.0, 1.0, 1.0))

    def test_through_gimbal_lock_in_every_order(self):
        """The middle angle reaches exactly ±π/2 (only a ∓ c defined, c taken as 0) and passes
        near it, on both sides."""
        for order in tf.EULER_ORDERS:
            i, j, k, _ = tf._order_axes(order)
            bases = []
            for frame in range(60):
                angles = [0.0, 0.0, 0.0]
                angles[i], angles[k] = 0.05 * frame, -0.03 * frame
                angles[j] = math.pi / 2 + (frame - 30) * 0.01 if frame % 10 else (-1) ** (frame // 10) * math.pi / 2
                bases.append(basis_of(tf.matrix_from_euler(angles, order), (1.0, 1.0, 1.0), (0.0, 0.0, 0.0)))
            values = self.check(order, bases, [0.0, 0.0, 0.0], tolerance=1e-8)
            for frame in range(60):  # the channels still give the rotation
                back = tf.matrix_from_euler(list(values[frame]), order)
                self.assertLess(np.abs(np.array(back) - np.array(tf.rotation_part(bases[frame]))).max(), 1e-9)

    def test_half_turns_flip_quaternion_signs_and_axis_sides(self):
        """A spin through π, 2π, 3π about axes that turn over: Shepperd's w >= 0 flips the sign
        each half turn, the axis-angle axis flips side; both paths must keep them continuous
        the same way (and a spin through zero angle keeps the previous axis)."""
        for mode in ("QUATERNION", "AXIS_ANGLE"):
            bases = []
            for frame in range(80):
                axis = [math.cos(0.02 * frame), math.sin(0.02 * frame), 0.3]
                n = math.sqrt(sum(a * a for a in axis))
                angle = 0.25 * frame if frame < 60 else 0.0  # back to no turn at the end
                bases.append(basis_of(spin([a / n for a in axis], angle), (1.0, 1.0, 1.0), (0.0, 0.0, 0.0)))
            exact_half = spin([0.0, 0.0, 1.0], math.pi)  # w = 0 exactly: the sign rule's edge
            bases[10:12] = [basis_of(exact_half, (1.0, 1.0, 1.0), (0.0, 0.0, 0.0))] * 2
            first = (-1.0, 0.0, 0.0, 0.0) if mode == "QUATERNION" else (4 * math.pi, 0.0, 0.0, -1.0)
            values = self.check(mode, bases, first)
            steps = np.abs(np.diff(values[12:60], axis=0)).max()
            self.assertLess(steps, 0.3, f"{mode}: a channel jumps by {steps:.3f} between frames")

    def test_euler_angles_unwrap_through_many_turns(self):
        for order in tf.EULER_ORDERS:
            bases = [basis_of(tf.mat3_multiply(spin([0.48, 0.6, 0.64], 0.21 * f), spin([0.0, 0.0, 1.0], 0.05 * f)),
                              (1.0, 1.0, 1.0), (0.0, 0.0, 0.0)) for f in range(240)]
            values = self.check(order, bases, [0.0, 0.0, 0.0], tolerance=1e-9)
            self.assertGreater(np.abs(values).max(), 4 * math.pi)  # it did go on past ±π

    def test_branch_choice_without_a_loop_is_the_loop(self):
        """_chosen_branches against the frame-by-frame rule, on random steps of all four kinds
        (set either way, kept, flipped) and on runs of one kind."""
        rng = np.random.default_rng(7)
        for bodies, frames in ((5, 300), (3, 1), (2, 2), (4, 40)):
            for p in (0.5, 0.05, 0.95):
                after = [rng.random((bodies, frames - 1)) < p for _ in range(2)]
                start = rng.random(bodies) < 0.5
                expected = np.empty((bodies, frames), dtype=bool)
                expected[:, 0] = start
                for f in range(1, frames):
                    expected[:, f] = np.where(expected[:, f - 1], after[1][:, f - 1], after[0][:, f - 1])
                np.testing.assert_array_equal(rc._chosen_branches(start, *after), expected)

    def test_bodies_of_several_modes_in_one_call_keep_their_order(self):
        rng = random.Random(9)
        modes = ["ZXY", "QUATERNION", "XYZ", "AXIS_ANGLE", "ZXY"]
        bodies, all_bases = [], []
        for mode in modes:
            size = tf.ROTATION_PATHS[mode][1]
            all_bases.append([basis_of(random_rotation(rng), (1.0, 1.0, 1.0), [rng.uniform(-1, 1) for _ in range(3)])
                              for _ in range(12)])
            bodies.append(rc.BodyChannels(mode, [0.2] * size, (1.0, 1.0, 1.0), (0.0, 0.0, 0.0),
                                          tf.rotation_part(tf.IDENTITY)))
        got = rc.channel_values(bodies, all_bases)
        for n, mode in enumerate(modes):
            size = tf.ROTATION_PATHS[mode][1]
            location, rotation = reference(mode, [0.2] * size, [1.0] * 3, [0.0] * 3, tf.rotation_part(tf.IDENTITY),
                                           all_bases[n])
            self.assertLess(np.abs(got[n][tf.ROTATION_PATHS[mode][0]] - rotation).max(), 1e-10, f"body {n} ({mode})")
            self.assertLess(np.abs(got[n]["location"] - location).max(), 1e-12)


class Matrices(unittest.TestCase):
    def test_world_and_basis_matrices_match_the_per_frame_products(self):
        rng = random.Random(10)
        start = basis_of(random_rotation(rng), (1.0, 2.0, 0.5), (1.0, 2.0, 3.0))
        displacements = [basis_of(random_rotation(rng), (1.0, 1.0, 1.0), [rng.uniform(-1, 1) for _ in range(3)])
                         for _ in range(8)]
        parents = [tf.invert_affine(basis_of(random_rotation(rng), (2.0, 2.0, 2.0), (0.5, 0.0, 0.0)))
                   for _ in range(8)]
        world = rc.world_matrices([v for d in displacements for v in d], start)
        worlds = [tf.multiply(d, start) for d in displacements]
        self.assertLess(np.abs(world.reshape(8, 16) - np.array(worlds)).max(), 1e-12)
        for inverses in (parents[:1], parents):  # one parent for all frames, or one per frame
            bases = rc.local_bases(world, inverses)
            expected = [tf.local_basis(w, inverses[f if len(inverses) > 1 else 0]) for f, w in enumerate(worlds)]
            self.assertLess(np.abs(bases.reshape(8, 16) - np.array(expected)).max(), 1e-12)


class KeyPairsTest(unittest.TestCase):
    def test_each_channel_is_its_frames_and_values_in_float32(self):
        """key_pairs: per channel the (frame, value) pairs flat, the values rounded to float32
        as array('f') rounds them (what the path without numpy writes), each a contiguous row."""
        from array import array
        rng = random.Random(3)
        values = {"location": np.array([[rng.uniform(-9, 9) for _ in range(3)] for _ in range(7)]),
                  "rotation_quaternion": np.array([[rng.uniform(-1, 1) for _ in range(4)] for _ in range(7)])}
        keys = rc.key_pairs(values, 11)
        for path, per_frame in values.items():
            self.assertEqual(len(keys[path]), per_frame.shape[1])
            for k, co in enumerate(keys[path]):
                self.assertTrue(co.flags["C_CONTIGUOUS"] and co.dtype == np.float32)
                expected = array("f", [x for f in range(7) for x in (11 + f, per_frame[f, k])])
                self.assertEqual(co.tobytes(), expected.tobytes(), (path, k))


if __name__ == "__main__":
    unittest.main()
