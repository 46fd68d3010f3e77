"""Rotation modes, continuity and parent space of baked rigid-body keyframes."""

import math
import random
import unittest

from simbake import transforms as tf


def close(test, a, b, tolerance=1e-12):
    for row_a, row_b in zip(a, b):
        for x, y in zip(row_a, row_b):
            test.assertAlmostEqual(x, y, delta=tolerance)


def spin(axis, angle):
    """A rotation of `angle` about a unit `axis`."""
    return tf.matrix_from_axis_angle(angle, axis)


class Rotations(unittest.TestCase):
    def test_euler_angles_round_trip_in_every_order(self):
        rng = random.Random(1)
        for order in tf.EULER_ORDERS:
            for _ in range(200):
                angles = [rng.uniform(-math.pi, math.pi) for _ in range(3)]
                r = tf.matrix_from_euler(angles, order)
                back = tf.euler_from_matrix(r, order)
                close(self, tf.matrix_from_euler(back, order), r)

    def test_euler_order_means_first_axis_applied_first(self):
        # 'XYZ': a quarter turn about X, then about Z, takes +Y to +Z and then stays on +Z
        r = tf.matrix_from_euler([math.pi / 2, 0.0, math.pi / 2], "XYZ")
        close(self, [[r[0][1], r[1][1], r[2][1]]], [[0.0, 0.0, 1.0]])
        r = tf.matrix_from_euler([math.pi / 2, 0.0, math.pi / 2], "ZYX")  # Z first: +Y -> -X -> -X
        close(self, [[r[0][1], r[1][1], r[2][1]]], [[-1.0, 0.0, 0.0]])

    def test_gimbal_lock_still_gives_the_rotation(self):
        for order in tf.EULER_ORDERS:
            i = "XYZ".index(order[1])
            angles = [0.3, 0.3, 0.3]
            angles[i] = math.pi / 2
            r = tf.matrix_from_euler(angles, order)
            close(self, tf.matrix_from_euler(tf.euler_from_matrix(r, order), order), r, 1e-9)

    def test_quaternions_round_trip(self):
        rng = random.Random(2)
        for _ in range(200):
            axis = [rng.gauss(0, 1) for _ in range(3)]
            r = spin([a / math.sqrt(sum(x * x for x in axis)) for a in axis], rng.uniform(0, 2 * math.pi))
            close(self, tf.matrix_from_quaternion(tf.quaternion_from_matrix(r)), r)

    def test_other_euler_branch_is_the_same_rotation(self):
        for order in tf.EULER_ORDERS:
            angles = [0.4, -0.7, 1.9]
            moved = tf.compatible_euler(angles, [3.0, 2.0, -1.0], order)
            close(self, tf.matrix_from_euler(moved, order), tf.matrix_from_euler(angles, order))


class Continuity(unittest.TestCase):
    def tumble(self, mode):
        """Channel values of a body tumbling through several turns, frame by frame."""
        channels = tf.RotationChannels(mode)
        axis = [0.48, 0.6, 0.64]
        values = []
        for frame in range(240):
            r = tf.mat3_multiply(spin(axis, 0.21 * frame), spin([0.0, 0.0, 1.0], 0.05 * frame))
            v = channels.values(r)
            close(self, tf.rotation_matrix_of(mode, v), r, 1e-9)
            values.append(v)
        return values

    def test_every_mode_is_continuous_through_many_turns(self):
        for mode in ("QUATERNION", "AXIS_ANGLE") + tf.EULER_ORDERS:
            values = self.tumble(mode)
            largest = max(max(abs(a - b) for a, b in zip(v0, v1)) for v0, v1 in zip(values, values[1:]))
            # a frame turns 0.26 rad at most; Euler angles may move faster near gimbal lock, but
            # a wrap by a turn or a jump to the other branch (±π) would show as more than 2
            self.assertLess(largest, 2.0, f"{mode}: a channel jumps by {largest:.3f}")

    def test_turning_about_one_axis_keeps_every_step_small(self):
        for mode in ("QUATERNION", "AXIS_ANGLE") + tf.EULER_ORDERS:
            channels = tf.RotationChannels(mode)
            values = [channels.values(spin([0.0, 0.0, 1.0], 0.2 * frame)) for frame in range(200)]
            largest = max(max(abs(a - b) for a, b in zip(v0, v1)) for v0, v1 in zip(values, values[1:]))
            self.assertLess(largest, 0.21, f"{mode}: a channel jumps by {largest:.3f}")

    def test_continuity_starts_from_the_objects_own_values(self):
        channels = tf.RotationChannels("XYZ", first=[0.0, 0.0, 4 * math.pi])
        self.assertAlmostEqual(channels.values(tf.matrix_from_euler([0, 0, 0.1]))[2], 4 * math.pi + 0.1)
        channels = tf.RotationChannels("QUATERNION", first=(-1.0, 0.0, 0.0, 0.0))
        self.assertLess(channels.values(tf.matrix_from_euler([0, 0, 0.1]))[0], 0.0)


class Spaces(unittest.TestCase):
    def test_basis_under_a_parent_reproduces_the_world_matrix(self):
        r = tf.matrix_from_euler([0.3, -0.2, 1.1])
        world = [r[0][0], r[0][1], r[0][2], 1.0, r[1][0], r[1][1], r[1][2], 2.0, r[2][0], r[2][1], r[2][2], 3.0,
                 0, 0, 0, 1]
        p = tf.matrix_from_euler([0.0, 0.5, 0.0])
        parent = [2 * p[0][0], 2 * p[0][1], 2 * p[0][2], -1.0, 2 * p[1][0], 2 * p[1][1], 2 * p[1][2], 0.5,
                  2 * p[2][0], 2 * p[2][1], 2 * p[2][2], 0.0, 0, 0, 0, 1]
        parent_inverse = [1, 0, 0, 0.25, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
        basis = tf.local_basis(world, tf.invert_affine(tf.multiply(parent, parent_inverse)))
        again = tf.multiply(tf.multiply(parent, parent_inverse), basis)
        for a, b in zip(again, world):
            self.assertAlmostEqual(a, b, places=12)
        self.assertIsNone(tf.invert_affine(tf.multiply([0.0] * 16, parent_inverse)))  # a parent scaled to zero

    def test_channels_undo_scale_and_delta_transforms(self):
        rotation = tf.matrix_from_euler([0.2, 0.4, -0.6])
        delta = tf.matrix_from_euler([0.0, 0.0, 0.5])
        total = tf.mat3_multiply(delta, rotation)
        scale = [2.0, 3.0, -0.5]
        basis = [total[r][c] * scale[c] for r in range(3) for c in range(3)]
        basis = basis[0:3] + [5.0] + basis[3:6] + [6.0] + basis[6:9] + [7.0] + [0, 0, 0, 1]
        location, values = tf.basis_channels(basis, scale, [1.0, 1.0, 1.0], delta, tf.RotationChannels("XYZ"))
        self.assertEqual([round(v, 12) for v in location], [4.0, 5.0, 6.0])
        close(self, tf.matrix_from_euler(values), rotation)

    def test_rigid_part_removes_scale(self):
        r = tf.matrix_from_euler([0.1, 0.2, 0.3])
        m = [3 * r[0][0], 2 * r[0][1], r[0][2], 1, 3 * r[1][0], 2 * r[1][1], r[1][2], 2, 3 * r[2][0], 2 * r[2][1],
             r[2][2], 3, 0, 0, 0, 1]
        close(self, tf.rotation_part(tf.rigid_part(m)), r)


if __name__ == "__main__":
    unittest.main()
