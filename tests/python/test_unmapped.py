"""Blender settings SimBake does not carry over are named, and Blender's defaults are not
(unmapped.py, with stand-ins for Blender's settings)."""

import unittest
from types import SimpleNamespace as Settings

from simbake import unmapped


def blender_cloth(**changes):
    """A Cloth modifier at Blender's defaults (3.4 to 5.2), with `changes` ('collision.x' for
    its collision settings)."""
    cloth = Settings(use_pressure=False, use_internal_springs=False, use_sewing_springs=False, use_dynamic_mesh=False,
                     shrink_min=0.0, vertex_group_shrink="", vertex_group_structural_stiffness="",
                     vertex_group_shear_stiffness="", vertex_group_bending="", tension_stiffness=15.0,
                     compression_stiffness=15.0, bending_model="ANGULAR", time_scale=1.0,
                     effector_weights=Settings(gravity=1.0), vertex_group_mass="", goal_default=0.0)
    collision = Settings(use_collision=True, collection=None, vertex_group_object_collisions="", impulse_clamp=0.0,
                         use_self_collision=False, self_friction=5.0, vertex_group_self_collisions="",
                         self_impulse_clamp=0.0)
    for name, value in changes.items():
        target, _, attribute = name.rpartition(".")
        setattr(collision if target == "collision" else cloth, attribute, value)
    return Settings(settings=cloth, collision_settings=collision)


class ClothSettings(unittest.TestCase):
    def test_blenders_defaults_carry_over(self):
        self.assertEqual(unmapped.blender_cloth("Flag", blender_cloth()), [])

    def test_each_setting_not_carried_over_is_named_with_the_object(self):
        cases = {"bending_model": ("LINEAR", "Linear"),
                 "time_scale": (2.0, "Speed Multiplier"),
                 "collision.impulse_clamp": (1.0, "Impulse Clamping")}
        for name, (value, label) in cases.items():
            found = unmapped.blender_cloth("Flag", blender_cloth(**{name: value}))
            self.assertEqual(len(found), 1, (name, found))
            self.assertTrue(found[0].startswith("Flag: Cloth "), found)
            self.assertIn(label, found[0])
            self.assertIn("not carried over by SimBake", found[0])

    def test_pressure_carries_over_but_its_fluid_density_does_not(self):
        self.assertEqual(unmapped.blender_cloth("Pillow", blender_cloth(use_pressure=True, fluid_density=0.0)), [])
        found = unmapped.blender_cloth("Pillow", blender_cloth(use_pressure=True, fluid_density=1.0))
        self.assertEqual(len(found), 1, found)
        self.assertIn("Pillow: Cloth Pressure Fluid Density", found[0])
        self.assertEqual(unmapped.blender_cloth("Pillow", blender_cloth(fluid_density=1.0)), [],
                         "a fluid density matters only with pressure")

    def test_goal_default(self):
        self.assertEqual(unmapped.blender_cloth("Flag", blender_cloth(goal_default=0.5)), [],
                         "Goal Default matters only with a pin group")
        found = unmapped.blender_cloth("Flag", blender_cloth(goal_default=0.5, vertex_group_mass="pins"))
        self.assertEqual(len(found), 1, found)
        self.assertIn("Cloth Goal Default is not carried over", found[0])
        self.assertEqual(unmapped.blender_cloth("Flag", blender_cloth(vertex_group_mass="pins")), [],
                         "soft pins are carried over")

    def test_groups_friction_and_collider_choice_carry_over(self):
        changes = {"vertex_group_structural_stiffness": "Stiff", "vertex_group_shear_stiffness": "Stiff",
                   "vertex_group_bending": "Stiff", "collision.use_collision": False,
                   "collision.collection": "Obstacles", "collision.vertex_group_object_collisions": "Loose",
                   "collision.use_self_collision": True, "collision.self_friction": 2.0,
                   "collision.vertex_group_self_collisions": "Loose"}
        self.assertEqual(unmapped.blender_cloth("Flag", blender_cloth(**changes)), [])

    def test_sewing_and_internal_springs_are_carried_over(self):
        for switch in ("use_sewing_springs", "use_internal_springs"):
            self.assertEqual(unmapped.blender_cloth("Shirt", blender_cloth(**{switch: True})), [], switch)


class OtherSettings(unittest.TestCase):
    def test_rigid_bodies(self):
        default = Settings(collision_collections=(True,) + (False,) * 19, use_deactivation=False,
                           use_start_deactivated=False, collision_shape="BOX", use_margin=False)
        self.assertEqual(unmapped.rigid_body("Crate", default), [])
        # collision collections and deactivation are carried over (rigid_settings.py)
        sleepy = Settings(**{**vars(default), "use_deactivation": True, "use_start_deactivated": True,
                             "collision_collections": (False, True) + (False,) * 18})
        self.assertEqual(unmapped.rigid_body("Crate", sleepy), [])
        # so is the Compound Parent shape (rigid_bake.py); the margin is not
        found = unmapped.rigid_body("Crate", Settings(**{**vars(default), "collision_shape": "COMPOUND",
                                                         "use_margin": True}))
        self.assertEqual(len(found), 1, found)
        self.assertTrue(all(f.startswith("Crate: Rigid Body ") for f in found))

    def test_constraints_and_force_fields(self):
        hinge = Settings(enabled=True, type="HINGE", object1=Settings(name="Door"), object2=None,
                         use_override_solver_iterations=False)
        self.assertEqual(unmapped.rigid_body_constraint("Empty", hinge), [])  # carried over (rigid_joints.py)
        motor = Settings(**{**vars(hinge), "type": "MOTOR"})
        self.assertEqual(unmapped.rigid_body_constraint("Empty", motor), [])
        springy = Settings(**{**vars(hinge), "type": "GENERIC_SPRING", "use_spring_x": True, "spring_type": "SPRING2",
                              "use_override_solver_iterations": True})
        found = unmapped.rigid_body_constraint("Empty", springy)
        self.assertEqual(len(found), 1, found)
        self.assertIn("Override Iterations", found[0])
        old_springs = Settings(**{**vars(springy), "spring_type": "SPRING1", "use_override_solver_iterations": False})
        found = unmapped.rigid_body_constraint("Empty", Settings(**{**vars(old_springs), "enabled": False}))
        self.assertEqual(found, [])
        self.assertIn("Spring Type Blender 2.7 (Door)", unmapped.rigid_body_constraint("Empty", old_springs)[0])
        self.assertEqual(unmapped.force_field("Fan", Settings(type="NONE")), [])
        self.assertEqual(unmapped.force_field("Fan", Settings(type="MAGNET")),
                         ["Fan: Magnet force field is not carried over by SimBake (nothing in the bake feels it)"])
        wind = Settings(type="WIND", shape="PLANE", falloff_type="SPHERE", use_absorption=False, wind_factor=1.0,
                        noise=0.0)
        self.assertEqual(unmapped.force_field("Fan", wind), [])
        self.assertEqual(unmapped.force_field("Fan", wind, rigid_bodies_baked=True),
                         ["Fan: Wind force field on rigid bodies is not carried over by SimBake (it acts on cloth "
                          "only)"])
        odd = Settings(**{**vars(wind), "shape": "SURFACE", "falloff_type": "CONE", "use_absorption": True,
                          "wind_factor": 0.5})
        found = unmapped.force_field("Fan", odd)
        self.assertEqual(len(found), 4, found)
        for words in ("Shape Surface", "Cone falloff", "Absorption", "Wind Factor below 1"):
            self.assertTrue(any(words in f for f in found), (words, found))
        vortex = Settings(type="VORTEX", shape="PLANE", falloff_type="SPHERE", use_absorption=False,
                          wind_factor=0.0, noise=0.0)
        self.assertIn("inward pull and drag of shape Plane", unmapped.force_field("Swirl", vortex)[0])
        self.assertEqual(unmapped.force_field("Swirl", Settings(**{**vars(vortex), "shape": "POINT"})), [])
        pull = Settings(type="FORCE", shape="POINT", falloff_type="SPHERE", use_absorption=False, wind_factor=0.0,
                        noise=0.0, use_gravity_falloff=True)
        self.assertIn("Gravitation", unmapped.force_field("Pull", pull)[0])
        drag = Settings(type="DRAG", shape="POINT", falloff_type="SPHERE", use_absorption=False, wind_factor=0.0,
                        noise=0.0, linear_drag=-0.5, quadratic_drag=1.0)
        self.assertIn("negative drag", unmapped.force_field("Brake", drag)[0])

    def test_collision_modifier(self):
        self.assertEqual(unmapped.collision_modifier("Table", Settings(permeability=0.0, stickiness=0.0,
                                                                       use_normal=False)), [])
        self.assertEqual(len(unmapped.collision_modifier("Table", Settings(permeability=0.5, stickiness=0.1,
                                                                           use_normal=True))), 3)


if __name__ == "__main__":
    unittest.main()
