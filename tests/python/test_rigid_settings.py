"""Rigid bodies from SimBake's and Blender's settings, and their shapes from the mesh."""

import math
import unittest
from array import array

from simbake import rigid_settings, transforms
from simbake.settings import SettingsError
from types import SimpleNamespace as NS

from test_settings import blender_body, obj


def cube(half=(1.0, 2.0, 0.5)):
    """Local corners of a box, flat float32."""
    return array("f", [s * h for c in range(8) for s, h in zip(((c & 1) * 2 - 1, (c >> 1 & 1) * 2 - 1,
                                                               (c >> 2 & 1) * 2 - 1), half)])


def placed(angle=0.5, scale=(2.0, 1.0, 3.0), at=(1.0, 2.0, 3.0)):
    """A world matrix turning by `angle` about z, scaled, then moved."""
    c, s = math.cos(angle), math.sin(angle)
    return [c * scale[0], -s * scale[1], 0.0, at[0], s * scale[0], c * scale[1], 0.0, at[1],
            0.0, 0.0, scale[2], at[2], 0.0, 0.0, 0.0, 1.0]


class Settings(unittest.TestCase):
    def test_simbake_rigid_settings(self):
        values, warnings = rigid_settings.body_settings(obj("RIGID"), moving=True)
        self.assertEqual((values["shape"], values["mass"], values["restitution"]), ("BOX", 2.0, 0.3))
        self.assertEqual(values["linear_velocity"], (1.0, 0.0, 0.0))
        self.assertEqual(values["angular_velocity"], (0.0, 0.0, 3.0))
        self.assertEqual(warnings, [])

    def test_feels_cloth_is_the_objects_switch_for_simbake_and_blender_bodies(self):
        self.assertEqual(rigid_settings.body_settings(obj("RIGID"), moving=True)[0]["feels_cloth"], 0)
        self.assertEqual(rigid_settings.body_settings(obj("RIGID", feels_cloth=True), moving=True)[0]["feels_cloth"], 1)
        on = obj(rigid_body=blender_body(), feels_cloth=True)
        self.assertEqual(rigid_settings.body_settings(on, moving=True)[0]["feels_cloth"], 1)

    def test_blender_rigid_body_settings(self):
        values, _ = rigid_settings.body_settings(obj(rigid_body=blender_body()), moving=True)
        self.assertEqual(values["shape"], "CONVEX_HULL")
        self.assertEqual((values["mass"], values["friction"], values["restitution"]), (3.0, 0.6, 0.2))
        self.assertEqual((values["linear_damping"], values["angular_damping"]), (0.04, 0.1))

    def test_collision_collections_and_deactivation(self):
        values, _ = rigid_settings.body_settings(obj(rigid_body=blender_body()), moving=True)
        self.assertEqual(values["collision_groups"], 1)  # Blender's default: collection 1 alone
        self.assertEqual((values["use_deactivation"], values["start_deactivated"]), (False, False))
        sleepy = blender_body(collision_collections=(False, True) + (False,) * 17 + (True,), use_deactivation=True,
                              use_start_deactivated=True, deactivate_linear_velocity=0.1,
                              deactivate_angular_velocity=0.2)
        values, warnings = rigid_settings.body_settings(obj(rigid_body=sleepy), moving=True)
        self.assertEqual(values["collision_groups"], 1 << 1 | 1 << 19)
        self.assertEqual((values["use_deactivation"], values["start_deactivated"]), (True, True))
        self.assertEqual((values["deactivate_linear_velocity"], values["deactivate_angular_velocity"]), (0.1, 0.2))
        self.assertEqual(warnings, [])
        values, _ = rigid_settings.body_settings(obj(rigid_body=blender_body("PASSIVE", collision_collections=(False,) * 20)),
                                                 moving=False)
        self.assertEqual(values["collision_groups"], 0)  # meets no body, as in Blender
        self.assertNotIn("use_deactivation", values)  # an obstacle never sleeps
        with self.assertRaises(SettingsError):
            rigid_settings.body_settings(obj(rigid_body=blender_body(deactivate_linear_velocity=math.nan)), True)

    def test_the_rigid_body_worlds_speed(self):
        self.assertEqual(rigid_settings.world_time_scale(None), 1.0)
        self.assertEqual(rigid_settings.world_time_scale(NS(time_scale=0.5)), 0.5)
        for bad in (0.0, -1.0, math.inf, 101.0):
            with self.assertRaises(SettingsError) as caught:
                rigid_settings.world_time_scale(NS(time_scale=bad))
            self.assertIn("Speed", str(caught.exception))

    def test_shapes_simbake_lacks_become_hulls_with_a_warning(self):
        values, warnings = rigid_settings.body_settings(obj(rigid_body=blender_body(collision_shape="TORUS")), True)
        self.assertEqual(values["shape"], "CONVEX_HULL")  # a shape a later Blender might add
        self.assertIn("torus", warnings[0])
        for same in ("CAPSULE", "CYLINDER", "CONE"):
            values, warnings = rigid_settings.body_settings(obj(rigid_body=blender_body(collision_shape=same)), True)
            self.assertEqual((values["shape"], warnings), (same, []))
        values, warnings = rigid_settings.body_settings(obj(rigid_body=blender_body(collision_shape="MESH")), True)
        self.assertEqual(values["shape"], "CONVEX_HULL")
        self.assertIn("cannot be a triangle mesh", warnings[0])
        values, warnings = rigid_settings.body_settings(obj(rigid_body=blender_body("PASSIVE", collision_shape="MESH")),
                                                        False)
        self.assertEqual((values["shape"], warnings), ("MESH", []))

    def test_colliders_are_their_mesh(self):
        values, _ = rigid_settings.body_settings(obj("COLLIDER", friction=0.8), moving=False)
        self.assertEqual((values["shape"], values["friction"]), ("MESH", 0.8))

    def test_bad_values_name_the_object(self):
        with self.assertRaises(SettingsError) as caught:
            rigid_settings.body_settings(obj(rigid_body=blender_body(restitution=1.5)), True)
        self.assertIn("Thing", str(caught.exception))
        with self.assertRaises(SettingsError):
            rigid_settings.body_settings(obj("RIGID", mass=0.0), True)


class Shapes(unittest.TestCase):
    def test_box_around_the_scaled_bounding_box(self):
        m = placed()
        shape, geometry = rigid_settings.shape_geometry("BOX", True, m, cube(), None, None)
        self.assertEqual(shape, "BOX")
        self.assertEqual([round(h, 6) for h in geometry["half_extents"]], [2.0, 2.0, 1.5])
        self.assertEqual([round(c, 6) for c in geometry["center"]], [1.0, 2.0, 3.0])
        r = transforms.matrix_from_quaternion(geometry["rotation"])
        self.assertAlmostEqual(math.atan2(r[1][0], r[0][0]), 0.5)

    def test_sphere_reaches_the_largest_half_extent(self):
        shape, geometry = rigid_settings.shape_geometry("SPHERE", True, placed(), cube(), None, None)
        self.assertEqual((shape, round(geometry["radius"], 6)), ("SPHERE", 2.0))

    def test_capsule_along_local_z_from_the_scaled_bounding_box(self):
        # a 2 x 4 x 1 box scaled (2, 1, 3): 4 x 4 x 3 m; radius 2 m, the core what the ends leave
        m = placed(scale=(2.0, 1.0, 3.0))
        shape, geometry = rigid_settings.shape_geometry("CAPSULE", True, m, cube((1.0, 2.0, 2.5)), None, None)
        self.assertEqual(shape, "CAPSULE")
        self.assertAlmostEqual(geometry["radius"], 2.0)
        self.assertEqual(geometry["half_extents"][:2], (0.0, 0.0))
        self.assertAlmostEqual(geometry["half_extents"][2], 7.5 - 2.0)
        self.assertAlmostEqual(geometry["rotation"][0], math.cos(0.25))  # turned 0.5 rad about z
        self.assertAlmostEqual(geometry["rotation"][3], math.sin(0.25))
        shape, geometry = rigid_settings.shape_geometry("CAPSULE", True, m, cube((1.0, 2.0, 0.5)), None, None)
        self.assertEqual(geometry["half_extents"][2], 0.0)  # shorter than wide: a sphere

    def test_cylinder_and_cone_along_local_z_from_the_scaled_bounding_box(self):
        # as Blender's: radius the larger half-width (2 m), half height the bounding box's (7.5 m)
        m = placed(scale=(2.0, 1.0, 3.0))
        for name in ("CYLINDER", "CONE"):
            shape, geometry = rigid_settings.shape_geometry(name, True, m, cube((1.0, 2.0, 2.5)), None, None)
            self.assertEqual(shape, name)
            self.assertAlmostEqual(geometry["radius"], 2.0)
            self.assertEqual(geometry["half_extents"][:2], (0.0, 0.0))
            self.assertAlmostEqual(geometry["half_extents"][2], 7.5)
            self.assertEqual([round(c, 6) for c in geometry["center"]], [1.0, 2.0, 3.0])
            self.assertAlmostEqual(geometry["rotation"][3], math.sin(0.25))
            with self.assertRaises(SettingsError):
                rigid_settings.shape_geometry(name, True, m, cube((1.0, 2.0, 0.0)), None, None)

    def test_flat_box_is_a_mesh_when_it_stays_and_thin_when_it_moves(self):
        flat = cube((1.0, 1.0, 0.0))
        shape, geometry = rigid_settings.shape_geometry("BOX", False, placed(), flat, "world", "tris")
        self.assertEqual((shape, geometry["vertices"], geometry["triangles"]), ("MESH", "world", "tris"))
        shape, geometry = rigid_settings.shape_geometry("BOX", True, placed(), flat, "world", "tris")
        self.assertEqual(shape, "BOX")
        self.assertGreater(min(geometry["half_extents"]), 0.0)

    def test_hulls_and_meshes_take_the_world_mesh(self):
        shape, geometry = rigid_settings.shape_geometry("CONVEX_HULL", True, placed(), cube(), "world", "tris")
        self.assertEqual((shape, geometry), ("CONVEX_HULL", {"vertices": "world", "triangles": "tris"}))
        with self.assertRaises(SettingsError):
            rigid_settings.shape_geometry("MESH", False, placed(), cube(), "world", array("i"))


if __name__ == "__main__":
    unittest.main()
