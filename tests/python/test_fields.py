"""Blender's force fields in the library's units (fields.py, with stand-ins for Blender's
settings): 40 N/m² per unit of a field's vector (0.02 x twice the area x 1000 N) over the
frame rate, velocities scaled by T = √0.001 s, the cloth's Field Weights and effector
collection."""

import math
import unittest
from types import SimpleNamespace as Settings

from simbake import fields
from simbake.settings import BLENDER_TIME_UNIT

T = BLENDER_TIME_UNIT


def blender_field(**changes):
    """A field at Blender's defaults (3.4, as effector_add makes a Wind), with `changes`."""
    field = Settings(type="WIND", shape="PLANE", strength=1.0, flow=1.0, noise=0.0, seed=118,
                     falloff_type="SPHERE", z_direction="BOTH", falloff_power=0.0, use_min_distance=False,
                     distance_min=0.0, use_max_distance=False, distance_max=0.0, radial_falloff=0.0,
                     use_radial_min=False, radial_min=0.0, use_radial_max=False, radial_max=0.0, size=0.0,
                     use_global_coords=False, rest_length=0.0, harmonic_damping=1.0, linear_drag=1.0,
                     quadratic_drag=1.0, apply_to_location=True)
    for name, value in changes.items():
        setattr(field, name, value)
    return field


# a field object at (1, 2, 3) turned 90° about x: its z axis points along -y
MATRIX = (1, 0, 0, 1,
          0, 0, -1, 2,
          0, 1, 0, 3,
          0, 0, 0, 1)


class FieldMapping(unittest.TestCase):
    def test_per_area_factor(self):
        self.assertAlmostEqual(fields.PER_AREA, 40.0, places=9)

    def test_wind_pose_strength_and_flow(self):
        kind, shape, falloff, side, settings = fields.definition(blender_field(strength=750.0, flow=2.0), MATRIX, 24)
        self.assertEqual((kind, shape, falloff, side), ("WIND", "PLANE", "SPHERE", "BOTH"))
        self.assertEqual(settings["position"], (1, 2, 3))
        self.assertEqual(settings["axis"], (0, -1, 0))
        self.assertAlmostEqual(settings["strength"], 40.0 * 750.0 / 24, places=9)
        self.assertAlmostEqual(settings["flow"], 40.0 * T * 2.0, places=9)
        self.assertEqual(settings["seed"], 118)

    def test_falloff_settings_carry_over(self):
        field = blender_field(type="FORCE", shape="POINT", falloff_type="TUBE", z_direction="POSITIVE",
                              falloff_power=2.0, use_min_distance=True, distance_min=0.5, use_max_distance=True,
                              distance_max=4.0, radial_falloff=1.5, use_radial_max=True, radial_max=2.0)
        kind, shape, falloff, side, settings = fields.definition(field, MATRIX, 24)
        self.assertEqual((kind, shape, falloff, side), ("FORCE", "POINT", "TUBE", "POSITIVE"))
        self.assertEqual((settings["falloff_power"], settings["use_min_distance"], settings["min_distance"],
                          settings["use_max_distance"], settings["max_distance"]), (2.0, True, 0.5, True, 4.0))
        self.assertEqual((settings["radial_power"], settings["use_max_radius"], settings["max_radius"]),
                         (1.5, True, 2.0))

    def test_shapes_and_falloffs_simbake_lacks_fall_back(self):
        _, shape, falloff, _, _ = fields.definition(blender_field(shape="SURFACE", falloff_type="CONE"), MATRIX, 24)
        self.assertEqual((shape, falloff), ("POINT", "SPHERE"))

    def test_harmonic(self):
        field = blender_field(type="HARMONIC", strength=4.0, harmonic_damping=0.5, rest_length=0.2)
        _, _, _, _, settings = fields.definition(field, MATRIX, 24)
        self.assertAlmostEqual(settings["strength"], 160.0 / 24, places=9)
        self.assertAlmostEqual(settings["damping"], 40.0 * 0.5 * 2.0 * 2.0 * T, places=9)
        self.assertEqual(settings["rest_length"], 0.2)
        self.assertEqual(settings["flow"], 0.0)

    def test_drag_is_clamped_as_blender_clamps_it(self):
        field = blender_field(type="DRAG", linear_drag=0.5, quadratic_drag=3.0)
        _, _, _, _, settings = fields.definition(field, MATRIX, 24)
        self.assertAlmostEqual(settings["linear_drag"], 40.0 * T * 0.5, places=9)
        self.assertAlmostEqual(settings["quadratic_drag"], 40.0 * T * T * 24 * 2.0, places=9)
        self.assertEqual(settings["strength"], 0.0)
        _, _, _, _, settings = fields.definition(blender_field(type="DRAG", linear_drag=-1.0), MATRIX, 24)
        self.assertEqual(settings["linear_drag"], 0.0)

    def test_turbulence_size_zero_is_unscaled(self):
        _, _, _, _, settings = fields.definition(blender_field(type="TURBULENCE", size=0.0), MATRIX, 24)
        self.assertEqual(settings["noise_size"], 1.0)
        _, _, _, _, settings = fields.definition(blender_field(type="TURBULENCE", size=0.3, use_global_coords=True),
                                                 MATRIX, 24)
        self.assertEqual((settings["noise_size"], settings["global_coordinates"]), (0.3, True))

    def test_which_fields_act(self):
        self.assertTrue(fields.acts_on_cloth(blender_field()))
        self.assertFalse(fields.acts_on_cloth(blender_field(type="MAGNET")))
        self.assertFalse(fields.acts_on_cloth(blender_field(apply_to_location=False)))
        self.assertFalse(fields.acts_on_cloth(None))

    def test_cloth_weights_and_effector_collection(self):
        weights = Settings(all=0.5, wind=0.4, force=1.0, vortex=1.0, turbulence=1.0, drag=1.0, harmonic=-2.0)
        fan, other = object(), object()
        self.assertAlmostEqual(fields.cloth_weight(weights, "WIND", fan, None), 0.2)
        self.assertAlmostEqual(fields.cloth_weight(weights, "HARMONIC", fan, None), -1.0)
        self.assertEqual(fields.cloth_weight(weights, "WIND", fan, {other}), 0.0)
        self.assertAlmostEqual(fields.cloth_weight(weights, "WIND", fan, {fan, other}), 0.2)
        self.assertEqual(fields.cloth_weight(None, "WIND", fan, None), 1.0)

    def test_a_mapped_field_is_accepted_by_the_library(self):
        from simbake import native
        try:
            native.load()
        except native.LibraryUnavailable as error:
            self.skipTest(str(error))
        with native.World() as world:
            for kind in fields.CARRIED_TYPES:
                field_type, shape, falloff, side, settings = fields.definition(blender_field(type=kind), MATRIX, 24)
                world.add_field(field_type, shape, falloff, side, **settings)
            position, axis, strength = fields.pose(MATRIX, blender_field(strength=2.0), 25)
            world.set_field_target(0, 1.0, position, axis, strength)
            self.assertTrue(math.isclose(strength, 80.0 / 25))


if __name__ == "__main__":
    unittest.main()
