"""Blender's rigid body constraints as joints (rigid_joints.py, with stand-ins for Blender's
settings): types, pivot and axes from the constraint object, limits as Bullet reads them,
breaking per Blender substep, and which constraints Blender (and so the bake) leaves out."""

import math
import unittest
from types import SimpleNamespace as Settings

from simbake import rigid_joints

LIMIT_NAMES = ("lin_x", "lin_y", "lin_z", "ang_x", "ang_y", "ang_z")


def constraint(kind="HINGE", **changes):
    """A rigid body constraint at Blender's defaults, with `changes`."""
    values = {"type": kind, "enabled": True, "disable_collisions": True, "use_breaking": False,
              "breaking_threshold": 10.0, "object1": None, "object2": None, "use_motor_lin": False,
              "use_motor_ang": False, "motor_lin_target_velocity": 1.0, "motor_ang_target_velocity": 1.0,
              "motor_lin_max_impulse": 1.0, "motor_ang_max_impulse": 1.0, "spring_type": "SPRING2"}
    for name in ("x", "y", "z", "ang_x", "ang_y", "ang_z"):
        values.update({f"use_spring_{name}": False, f"spring_stiffness_{name}": 10.0, f"spring_damping_{name}": 0.5})
    for name in LIMIT_NAMES:
        values.update({f"use_limit_{name}": False, f"limit_{name}_lower": -1.0 if "lin" in name else -math.pi / 4,
                       f"limit_{name}_upper": 1.0 if "lin" in name else math.pi / 4})
    values.update(changes)
    return Settings(**values)


def turned_about_x(angle, at=(1.0, 2.0, 3.0), scale=2.0):
    c, s = math.cos(angle), math.sin(angle)
    return [scale, 0.0, 0.0, at[0], 0.0, c * scale, -s * scale, at[1], 0.0, s * scale, c * scale, at[2],
            0.0, 0.0, 0.0, 1.0]


class Thing:
    """An object of the scene: hashable by identity, as Blender's are."""

    def __init__(self, name):
        self.name = name


class Mapping(unittest.TestCase):
    def test_pivot_and_axes_come_from_the_constraint_object_without_its_scale(self):
        values, notes = rigid_joints.joint_settings(constraint("FIXED"), turned_about_x(math.pi / 2), 1 / 240)
        self.assertEqual(values["joint_type"], "FIXED")
        self.assertEqual(values["pivot"], (1.0, 2.0, 3.0))
        for got, expected in zip(values["rotation"], (math.sqrt(0.5), math.sqrt(0.5), 0.0, 0.0)):
            self.assertAlmostEqual(got, expected)
        self.assertEqual((values["limits"], notes, values["disable_collisions"]), ({}, [], True))
        self.assertNotIn("breaking_threshold", values)

    def test_limits_as_bullet_reads_them(self):
        hinge = constraint("HINGE", use_limit_ang_z=True, use_limit_lin_x=True)  # lin x: not a hinge's
        self.assertEqual(rigid_joints.limits(hinge), ({5: (-math.pi / 4, math.pi / 4)}, []))
        piston = constraint("PISTON", use_limit_lin_x=True, use_limit_ang_x=True, limit_ang_x_lower=-7.0,
                            limit_ang_x_upper=7.0)
        self.assertEqual(rigid_joints.limits(piston), ({0: (-1.0, 1.0)}, []))  # a full turn or more: free
        generic = constraint("GENERIC_SPRING", use_limit_lin_y=True, limit_lin_y_lower=0.5, limit_lin_y_upper=0.2,
                             use_limit_ang_y=True, limit_ang_y_lower=-4.0, limit_ang_y_upper=0.0)
        limits, notes = rigid_joints.limits(generic)
        self.assertEqual(limits, {4: (-math.pi, 0.0)})  # lower above upper: free, as in Bullet
        self.assertIn("ang y limits beyond ±180°", notes[0])

    def test_motors_and_springs(self):
        motor = constraint("MOTOR", use_motor_ang=True, motor_ang_target_velocity=3.0, motor_ang_max_impulse=2.0)
        values, _ = rigid_joints.joint_settings(motor, turned_about_x(0.0), 1 / 240)
        self.assertEqual((values["joint_type"], values["limits"], values["springs"]), ("GENERIC", {}, {}))
        self.assertEqual(values["motors"], {3: (-3.0, 2.0)})  # object2 relative to object1: Bullet's opposite
        motor.use_motor_lin, motor.motor_lin_target_velocity = True, 0.5
        self.assertEqual(rigid_joints.motors(motor), {0: (-0.5, 1.0), 3: (-3.0, 2.0)})
        springy = constraint("GENERIC_SPRING", use_spring_y=True, spring_stiffness_y=40.0, use_spring_ang_z=True)
        self.assertEqual(rigid_joints.springs(springy), {1: (40.0, 0.5), 5: (10.0, 0.5)})
        self.assertEqual(rigid_joints.motors(springy), {})
        self.assertEqual(rigid_joints.springs(constraint("GENERIC", use_spring_y=True)), {})  # Generic has none

    def test_breaking_threshold_is_an_impulse_per_blender_substep(self):
        values, _ = rigid_joints.joint_settings(constraint("FIXED", use_breaking=True, breaking_threshold=2.5),
                                                turned_about_x(0.0), 0.01)
        self.assertEqual((values["breaking_threshold"], values["breaking_step"]), (2.5, 0.01))
        world = Settings(substeps_per_frame=10, time_scale=1.0)
        self.assertAlmostEqual(rigid_joints.breaking_step(world, 24.0), 1 / 240)
        self.assertAlmostEqual(rigid_joints.breaking_step(Settings(substeps_per_frame=5, time_scale=0.5), 25.0), 1 / 250)
        self.assertAlmostEqual(rigid_joints.breaking_step(Settings(steps_per_second=120), 24.0), 1 / 120)

    def test_constraints_blender_leaves_out(self):
        a, b, c, loose = (Thing(n) for n in ("A", "B", "C", "Loose"))
        bodies = {a: 0, b: 1, c: 2}
        owners = [Settings(name="Hinge", rigid_body_constraint=constraint("HINGE", object1=a, object2=b)),
                  Settings(name="Off", rigid_body_constraint=constraint("FIXED", object1=a, object2=c, enabled=False)),
                  Settings(name="Unknown", rigid_body_constraint=constraint("SPRINGY", object1=a, object2=c)),
                  Settings(name="Half", rigid_body_constraint=constraint("POINT", object1=c, object2=None)),
                  Settings(name="Out", rigid_body_constraint=constraint("POINT", object1=loose, object2=c))]
        joints, warnings = rigid_joints.plan(owners, bodies)
        self.assertEqual([(owner.name, x, y) for owner, x, y in joints], [("Hinge", 0, 1)])
        self.assertEqual(len(warnings), 2, warnings)
        self.assertTrue(warnings[0].startswith("Half: ") and "no object" in warnings[0])
        self.assertTrue(warnings[1].startswith("Out: ") and "Loose" in warnings[1])


if __name__ == "__main__":
    unittest.main()
