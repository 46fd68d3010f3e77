"""Strand material (strand_material.py), the role of a Cloth modifier on an edge-only mesh, and
what such a cloth does not carry over (unmapped.py), with plain stand-ins for Blender objects."""

import math
import unittest
from types import SimpleNamespace as NS

from simbake import settings, strand_material, unmapped

T = math.sqrt(0.001)  # Blender's time unit (settings.BLENDER_TIME_UNIT)


def blender_cloth(**overrides):
    cloth = dict(mass=0.3, tension_stiffness=15.0, compression_stiffness=15.0, bending_stiffness=0.5,
                 tension_damping=5.0, air_damping=1.0, effector_weights=NS(gravity=1.0), shrink_min=0.0,
                 vertex_group_shrink="", use_sewing_springs=False, vertex_group_structural_stiffness="",
                 vertex_group_bending="", vertex_group_mass="")
    collision = dict(distance_min=0.015, self_distance_min=0.015, use_self_collision=False,
                     vertex_group_object_collisions="", vertex_group_self_collisions="")
    for key, value in overrides.items():
        (collision if key in collision else cloth)[key] = value
    return NS(type="CLOTH", settings=NS(**cloth), collision_settings=NS(**collision))


def strands_object(role="STRANDS", modifiers=(), polygons=0, edges=10, **props):
    values = dict(role=role, pin_group="", strand_mass_per_length=0.02, strand_stretch_stiffness=5e3,
                  strand_bend_stiffness=2e-4, damping=0.01, strand_air_drag=0.05, thickness=0.004, friction=0.5,
                  strand_max_stretch=0.1, strand_max_compression=0.1, self_collision=False)
    values.update(props)
    return NS(name="Rope", simbake=NS(**values), modifiers=list(modifiers), rigid_body=None,
              data=NS(polygons=[None] * polygons, edges=[None] * edges))


class Role(unittest.TestCase):
    def test_a_cloth_modifier_on_an_edge_only_mesh_bakes_as_strands(self):
        self.assertEqual(settings.resolve_role(strands_object("NONE", [blender_cloth()])), "STRANDS")

    def test_a_cloth_modifier_on_a_mesh_with_faces_bakes_as_cloth(self):
        self.assertEqual(settings.resolve_role(strands_object("NONE", [blender_cloth()], polygons=4)), "CLOTH")
        self.assertEqual(settings.resolve_role(strands_object("NONE", [blender_cloth()], edges=0)), "CLOTH")

    def test_role_strands_takes_its_pin_group_from_simbake(self):
        obj = strands_object(pin_group="Roots", modifiers=[blender_cloth(vertex_group_mass="Other")])
        self.assertEqual(settings.pin_group_name(obj), "Roots")
        self.assertEqual(settings.pin_group_name(strands_object("NONE", [blender_cloth(vertex_group_mass="Pin")])),
                         "Pin")


class Material(unittest.TestCase):
    def test_role_strands_uses_its_own_settings(self):
        material = strand_material.strand_material(strands_object(), 11, lambda: self.fail("measured"))
        self.assertEqual(material, {"mass_per_length": 0.02, "stretch_stiffness": 5e3, "bend_stiffness": 2e-4,
                                    "damping": 0.01, "air_drag": 0.05, "thickness": 0.004, "friction": 0.5,
                                    "max_stretch": 0.1, "max_compression": 0.1, "self_collision": 0.0})

    def test_self_collision_maps_from_the_object_or_blenders_cloth(self):
        material = strand_material.strand_material(strands_object(self_collision=True), 11, None)
        self.assertEqual(material["self_collision"], 1.0)
        for on in (False, True):
            material = strand_material.strand_material(strands_object("NONE", [blender_cloth(use_self_collision=on)]),
                                                       11, lambda: (1.0, 0.1))
            self.assertEqual(material["self_collision"], float(on))

    def test_the_strain_limits_map_into_the_strand_definition(self):
        obj = strands_object(strand_max_stretch=0.005, strand_max_compression=0.0)
        material = strand_material.strand_material(obj, 11, None)
        self.assertEqual((material["max_stretch"], material["max_compression"]), (0.005, 0.0))
        for name, value, words in (("strand_max_compression", 1.0, "max_compression is 1; it must be below 1"),
                                   ("strand_max_stretch", 12.0, "max_stretch is 12; it must be at most 10"),
                                   ("strand_max_stretch", -0.1, "max_stretch is -0.1; it must be zero or positive")):
            with self.assertRaisesRegex(settings.SettingsError, "Rope: strand " + words):
                strand_material.strand_material(strands_object(**{name: value}), 11, None)

    def test_a_blender_cloth_keeps_the_librarys_strain_limits(self):
        # Blender's cloth has none: the library's default (10% each way) applies
        material = strand_material.strand_material(strands_object("NONE", [blender_cloth()]), 11, lambda: (1.0, 0.1))
        self.assertNotIn("max_stretch", material)
        self.assertNotIn("max_compression", material)

    def test_blender_cloth_maps_per_length_and_without_the_sampling(self):
        # 11 vertices on 1 m of rope (L = 0.1 m)
        material = strand_material.strand_material(strands_object("NONE", [blender_cloth()]), 11, lambda: (1.0, 0.1))
        self.assertAlmostEqual(material["mass_per_length"], 0.3 * 11 / 1.0)
        self.assertAlmostEqual(material["stretch_stiffness"], 1000 * 15.0)  # EA = 1000 t, whatever L
        self.assertAlmostEqual(material["bend_stiffness"], 1000 * 0.5 * 0.1 ** 3)  # EI = 1000 b L³
        # a segment's dashpot d / T against its stiffness EA / L: damping × EA / L = d / T
        self.assertAlmostEqual(material["damping"] * material["stretch_stiffness"] / 0.1, 5.0 / T)
        # 0.01 a / T kg/s per vertex = air_drag × the length a vertex stands for
        self.assertAlmostEqual(material["air_drag"] * 1.0 / 11, 0.01 * 1.0 / T)
        self.assertEqual((material["thickness"], material["friction"], material["gravity_scale"]), (0.015, 1.0, 1.0))

    def test_a_stiffness_without_tension_has_no_damping(self):
        material = strand_material.blender_strand_material(blender_cloth(tension_stiffness=0.0), 5, 1.0, 0.25)
        self.assertEqual(material["damping"], 0.0)

    def test_bad_values_are_refused_naming_the_object_and_setting(self):
        for name, value in (("strand_mass_per_length", 0.0), ("strand_bend_stiffness", -1.0),
                            ("strand_air_drag", math.nan)):
            with self.assertRaisesRegex(settings.SettingsError, "Rope: strand"):
                strand_material.strand_material(strands_object(**{name: value}), 11, None)


class NotCarriedOver(unittest.TestCase):
    def test_blender_defaults_raise_no_warning(self):
        self.assertEqual(unmapped.blender_cloth_as_strands("Rope", blender_cloth()), [])
        self.assertEqual(unmapped.blender_soft_pins("Rope", 0), [])

    def test_each_setting_in_use_is_named(self):
        cloth = blender_cloth(compression_stiffness=5.0, shrink_min=0.1, use_sewing_springs=True,
                              vertex_group_bending="Bend", use_self_collision=True)
        warnings = "\n".join(unmapped.blender_cloth_as_strands("Rope", cloth))
        for setting in ("Compression stiffness", "Shrinking", "Sewing", "Bending Stiffness group",
                        "Self Collision Distance"):
            self.assertIn(f"Rope: Cloth {setting} is not carried over", warnings)
        # self collision itself is carried over; its distance only where it is not twice Distance
        cloth = blender_cloth(use_self_collision=True, self_distance_min=0.03)
        self.assertEqual(unmapped.blender_cloth_as_strands("Rope", cloth), [])
        cloth = blender_cloth(use_self_collision=True, self_distance_min=0.03, vertex_group_self_collisions="Loose")
        self.assertIn("Rope: Cloth Self Collisions Vertex Group is not carried over",
                      "\n".join(unmapped.blender_cloth_as_strands("Rope", cloth)))
        self.assertIn("3 vertex(es)", unmapped.blender_soft_pins("Rope", 3)[0])

    def test_no_force_field_is_named_on_strands(self):
        self.assertEqual(unmapped.force_field("Breeze", NS(type="WIND", shape="PLANE", flow=0.0, noise=0.0,
                                                           apply_to_location=True)), [])


class Fields(unittest.TestCase):
    def test_blender_pushes_an_edge_only_cloth_per_vertex(self):
        # 11 vertices on 0.5 m: Blender's 0.01 per vertex against the library's 0.04 per metre
        scale = strand_material.blender_field_scale(11, 0.5)
        self.assertAlmostEqual(scale, 11 / (4 * 0.5))
        # a field vector of 1 (per second) at 24 fps: N per metre of strand, as fields.py maps it
        per_metre = scale * 0.04 / T ** 2 / 24
        self.assertAlmostEqual(per_metre * 0.5, 11 * 0.01 / T ** 2 / 24)  # summed: 0.01 per vertex

if __name__ == "__main__":
    unittest.main()
