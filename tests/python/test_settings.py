"""Settings and roles, with plain stand-ins for Blender objects."""

import math
import unittest
from array import array
from types import SimpleNamespace as NS

from simbake import settings


def obj(role="NONE", modifiers=(), rigid_body=None, **props):
    values = dict(role=role, pin_group="", density=0.2, stretch_stiffness=1000.0, shear_stiffness=100.0,
                  bend_stiffness=1e-4, damping=0.01, air_drag=0.1, thickness=0.004, friction=0.5,
                  self_collision=False, self_thickness=0.0, max_stretch=0.1, max_compression=0.1, bake_record="",
                  mass=2.0, restitution=0.3, shape="BOX",
                  initial_velocity=(1.0, 0.0, 0.0), initial_angular_velocity=(0.0, 0.0, 3.0))
    values.update(props)
    return NS(name="Thing", simbake=NS(**values), modifiers=list(modifiers), rigid_body=rigid_body)


def blender_body(type="ACTIVE", **values):
    defaults = dict(type=type, enabled=True, kinematic=False, collision_shape="CONVEX_HULL", mass=3.0,
                    friction=0.6, restitution=0.2, linear_damping=0.04, angular_damping=0.1,
                    collision_collections=(True,) + (False,) * 19, use_deactivation=False,
                    use_start_deactivated=False, deactivate_linear_velocity=0.4, deactivate_angular_velocity=0.5)
    defaults.update(values)
    return NS(**defaults)


def blender_cloth(**values):
    defaults = dict(mass=0.3, tension_stiffness=15.0, compression_stiffness=15.0, shear_stiffness=5.0, bending_stiffness=0.5,
                    tension_damping=5.0, air_damping=1.0, vertex_group_mass="pins",
                    effector_weights=NS(gravity=1.0))
    defaults.update(values)
    return NS(type="CLOTH", settings=NS(**defaults),
              collision_settings=NS(distance_min=0.015, self_distance_min=0.01, use_self_collision=True))


class Roles(unittest.TestCase):
    def test_own_role_wins(self):
        self.assertEqual(settings.resolve_role(obj("CLOTH", rigid_body=blender_body())), "CLOTH")

    def test_blender_physics_decides_with_role_none(self):
        self.assertEqual(settings.resolve_role(obj(rigid_body=blender_body())), "RIGID")
        self.assertEqual(settings.resolve_role(obj(rigid_body=blender_body("PASSIVE"))), "COLLIDER")
        # Blender moves animated or non-dynamic active bodies by their animation
        self.assertEqual(settings.resolve_role(obj(rigid_body=blender_body(kinematic=True))), "COLLIDER")
        self.assertEqual(settings.resolve_role(obj(rigid_body=blender_body(enabled=False))), "COLLIDER")
        self.assertEqual(settings.resolve_role(obj(modifiers=[NS(type="SUBSURF"), blender_cloth()])), "CLOTH")
        self.assertEqual(settings.resolve_role(obj(modifiers=[NS(type="COLLISION")])), "COLLIDER")
        self.assertEqual(settings.resolve_role(obj()), "NONE")

    def test_a_rigid_bake_in_place_does_not_change_the_role(self):
        # the bake switches 'Animated' on; the value before it decides
        baked = obj(rigid_body=blender_body(kinematic=True), bake_record='{"rigid_body_kinematic": false}')
        self.assertEqual(settings.resolve_role(baked), "RIGID")


class Materials(unittest.TestCase):
    def test_simbake_settings_pass_through(self):
        material = settings.cloth_material(obj("CLOTH"), 100, lambda: self.fail("not needed"))
        self.assertEqual(material["stretch_stiffness"], 1000.0)
        self.assertEqual(set(material), set(settings.CLOTH_MATERIAL_FIELDS))

    def test_blender_cloth_keeps_blenders_stiffness_to_weight_ratio(self):
        # a 1 m² grid of 11 x 11 vertices, edges 0.1 m
        material = settings.cloth_material(obj(modifiers=[blender_cloth()]), 121, lambda: (1.0, 0.1))
        self.assertAlmostEqual(material["density"], 0.3 * 121)
        # force per unit strain over one edge, against one vertex's weight: Blender's ratio is
        # tension / (mass * 0.001 g); with real gravity the SI ratio must be the same
        si_ratio = material["stretch_stiffness"] * 0.1 / (0.3 * 9.81)
        self.assertAlmostEqual(si_ratio, 15.0 / (0.3 * 9.81e-3))
        self.assertGreater(material["bend_stiffness"], 0)
        self.assertEqual(material["compression_stiffness"], material["stretch_stiffness"], "Blender's default")
        soft = settings.cloth_material(obj(modifiers=[blender_cloth(compression_stiffness=1.5)]), 121, lambda: (1.0, 0.1))
        self.assertAlmostEqual(soft["compression_stiffness"] / soft["stretch_stiffness"], 0.1)
        self.assertTrue(all(math.isfinite(v) for v in material.values()))
        self.assertEqual(material["gravity_scale"], 1.0)
        floating = settings.cloth_material(obj(modifiers=[blender_cloth(effector_weights=NS(gravity=-0.5))]), 121,
                                           lambda: (1.0, 0.1))
        self.assertEqual(floating["gravity_scale"], -0.5, "Blender's gravity weight may be negative")
        self.assertEqual((material["thickness"], material["self_collision"]), (0.015, True))
        # Blender's self distance is the whole gap between two parts; self_thickness is each side's half
        self.assertEqual(material["self_thickness"], 0.005)

    def test_collider_settings(self):
        own = obj("COLLIDER", thickness=0.01, friction=0.7)
        self.assertEqual(settings.collider_material(own), {"thickness": 0.01, "friction": 0.7})
        blender = obj(modifiers=[NS(type="COLLISION", settings=NS(thickness_outer=0.02, cloth_friction=5.0))])
        self.assertEqual(settings.collider_material(blender), {"thickness": 0.02, "friction": 0.05})
        passive = obj(rigid_body=NS(type="PASSIVE", friction=0.4))
        self.assertEqual(settings.collider_material(passive)["friction"], 0.4)

    def test_bad_values_name_the_object(self):
        with self.assertRaisesRegex(settings.SettingsError, "Thing: cloth density"):
            settings.cloth_material(obj("CLOTH", density=0.0), 10, None)
        with self.assertRaisesRegex(settings.SettingsError, "Thing: cloth damping"):
            settings.cloth_material(obj("CLOTH", damping=float("nan")), 10, None)

    def test_blender_shrinking_per_vertex(self):
        cloth = NS(shrink_min=0.0, shrink_max=0.0)
        self.assertIsNone(settings.blender_shrink(cloth, 4), "Blender's default shrinks nothing")
        cloth.shrink_min = 0.2
        self.assertEqual(list(settings.blender_shrink(cloth, 3)), [0.2] * 3)
        cloth.shrink_max = 0.5  # a shrink group: Shrinking Factor at weight 0, Max Shrinking at 1
        self.assertEqual([round(s, 12) for s in settings.blender_shrink(cloth, 3, [0.0, 0.5, 1.0])], [0.2, 0.35, 0.5])
        cloth.shrink_min = cloth.shrink_max = 0.0
        self.assertIsNone(settings.blender_shrink(cloth, 3, [0.0, 0.5, 1.0]))

    def test_blender_pressure(self):
        # a unit cube of outward triangles, corner (i, j, k) at index i + 2 j + 4 k
        positions = [float(c) for v in range(8) for c in (v & 1, (v >> 1) & 1, (v >> 2) & 1)]
        quads = ((0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2), (1, 3, 7, 5))
        triangles = [i for a, b, c, d in quads for i in (a, b, c, a, c, d)]
        self.assertAlmostEqual(settings.enclosed_volume(positions, triangles), 1.0, places=12)
        off = NS(use_pressure=False, uniform_pressure_force=5.0, pressure_factor=1.0, use_pressure_volume=False,
                 target_volume=0.0)
        self.assertEqual(settings.blender_pressure(off, positions, triangles), {}, "Pressure off: nothing")
        # Blender pushes with factor (uniform + V0 / V - 1) in newtons of 1/T² = 1000 N
        on = NS(**{**vars(off), "use_pressure": True, "pressure_factor": 2.0})
        mapped = settings.blender_pressure(on, positions, triangles)
        self.assertEqual(sorted(mapped), ["pressure", "pressure_scale", "pressure_target_volume"])
        self.assertAlmostEqual(mapped["pressure"], 10000.0, places=6)
        self.assertAlmostEqual(mapped["pressure_scale"], 2000.0, places=6)
        self.assertEqual(mapped["pressure_target_volume"], 0.0, "0: the library keeps the rest volume")
        custom = NS(**{**vars(on), "use_pressure_volume": True, "target_volume": 3.5})
        self.assertEqual(settings.blender_pressure(custom, positions, triangles)["pressure_target_volume"], 3.5)
        # no volume to keep (an open sheet, or a Custom Volume of 0): no gas term; the sheet is
        # measured about its own middle, as the library measures it, so lifting it off the
        # world origin (Blender would find a "volume" of area x height / 3) changes nothing
        for lift in (0.0, 1.0, -3.0):
            lifted = [c + (lift if k % 3 == 2 else 0.0) for k, c in enumerate(positions)]
            self.assertAlmostEqual(settings.enclosed_volume(lifted, triangles), 1.0, places=12, msg="closed: any place")
            face = [v for v in range(4)]  # the face z = 0 alone, as its own open mesh
            sheet = settings.blender_pressure(on, [c for v in face for c in lifted[3 * v:3 * v + 3]], triangles[:6])
            self.assertAlmostEqual(sheet["pressure"], 10000.0, places=6)
            self.assertEqual(sheet["pressure_scale"], 0.0, f"an open sheet {lift} m up has no volume to keep")
        self.assertEqual(settings.blender_pressure(NS(**{**vars(custom), "target_volume": 0.0}), positions,
                                                   triangles)["pressure_scale"], 0.0)
        # a pressure group leaves out the triangles with a corner of weight 0 (all but the
        # bottom's) and weighs the others by their corners' mean weight, as the library does:
        # the bottom face, 0.5 below the cube's middle, encloses 1/6 of weight 1, 1/12 of weight 0.5
        weights = [1.0 if v in (0, 1, 2, 3) else 0.0 for v in range(8)]
        self.assertAlmostEqual(settings.enclosed_volume(positions, triangles, weights), 1 / 6)
        self.assertAlmostEqual(settings.enclosed_volume(positions, triangles, [w / 2 for w in weights]), 1 / 12)
        self.assertAlmostEqual(settings.blender_pressure(on, positions, triangles, weights)["pressure_scale"], 2000.0,
                               places=9)
        nothing = [1.0 if v in (0, 1) else 0.0 for v in range(8)]  # no triangle without a weight-0 corner
        self.assertEqual(settings.blender_pressure(on, positions, triangles, nothing)["pressure_scale"], 0.0)

    def test_blender_soft_pins_become_goal_springs(self):
        weights = [0.0, 0.3, 0.5, 0.9, 0.9997, 0.99975, 1.0]
        # Blender pins hard where weight⁴ >= 0.999 (0.99975⁴ = 0.9990002), SimBake's own role
        # Cloth at 0.5 and above
        self.assertEqual(list(settings.blender_pins(weights)), [5, 6])
        self.assertEqual(list(settings.pinned_vertices(weights)), [2, 3, 4, 5, 6])
        self.assertEqual(list(settings.blender_pins(None)), [])
        cloth = NS(pin_stiffness=2.0, goal_friction=5.0)
        stiffness, damping = settings.blender_goals(cloth, weights, 0.1)
        # Blender's spring: weight⁴ pin_stiffness / L in its units; 1000 x that in N/m, as tension
        expected = [0.0] + [1000 * w ** 4 * 2.0 / 0.1 for w in weights[1:5]] + [0.0, 0.0]
        for got, want in zip(stiffness, expected):
            self.assertAlmostEqual(got, want, delta=1e-9 * want)
        self.assertAlmostEqual(stiffness[2], 1250.0, "weight 0.5, pin stiffness 2, edges 0.1 m: 1000 x 2 / 16 / 0.1")
        # 0.01 goal_friction kg per Blender time unit
        self.assertAlmostEqual(damping, 0.01 * 5.0 / math.sqrt(0.001))
        # a vertex's static sag under its own weight is Blender's, m g / k in either unit system
        mass = 0.3
        blender_sag = mass * 9.81e-3 / (0.3 ** 4 * 2.0 / 0.1)
        self.assertAlmostEqual(mass * 9.81 / stiffness[1], blender_sag)

    def test_blender_goals_need_soft_weights_and_stiffness(self):
        self.assertEqual(settings.blender_goals(NS(pin_stiffness=1.0, goal_friction=0.0), None, 0.1), (None, 0.0))
        self.assertEqual(settings.blender_goals(NS(pin_stiffness=1.0, goal_friction=0.0), [0.0, 1.0], 0.1)[0], None,
                         "no weight between 0 and the hard-pin weight")
        self.assertIsNone(settings.blender_goals(NS(pin_stiffness=0.0, goal_friction=0.0), [0.5], 0.1)[0],
                          "pin stiffness 0 pulls with nothing")

    def test_blender_sewing_and_internal_springs(self):
        cloth = NS(use_sewing_springs=False, use_internal_springs=False, tension_stiffness=15.0,
                   compression_stiffness=15.0,
                   tension_stiffness_max=40.0, sewing_force_max=0.0, internal_tension_stiffness=10.0,
                   internal_tension_stiffness_max=30.0, internal_compression_stiffness=5.0,
                   internal_compression_stiffness_max=1.0, internal_spring_max_length=0.4,
                   internal_spring_max_diversion=0.3, internal_spring_normal_check=True)

        def measured():
            measured.calls += 1
            return 0.1
        measured.calls = 0
        loose = array("i", [0, 7, 3, 9])
        self.assertIsNone(settings.blender_springs("Shirt", cloth, measured, array("i")), "no springs at all")
        self.assertEqual(measured.calls, 0, "nothing measured without springs")
        # without Sewing a loose edge is one of Blender's structural springs, at its own length
        fields = settings.blender_springs("Shirt", cloth, measured, loose)
        self.assertEqual(list(fields["springs"]), [0, 7, 3, 9])
        self.assertNotIn("spring_rest_lengths", fields)
        self.assertAlmostEqual(fields["spring_tension_stiffness"], 1000 * 15.0 / 0.1, places=6)
        self.assertEqual(fields["spring_max_force"], 0.0)
        cloth.use_sewing_springs = True
        self.assertIsNone(settings.blender_springs("Shirt", cloth, measured, array("i")), "no loose edges")
        fields = settings.blender_springs("Shirt", cloth, measured, loose)
        self.assertEqual(list(fields["springs"]), [0, 7, 3, 9])
        self.assertEqual(list(fields["spring_rest_lengths"]), [0.0, 0.0], "loose edges pull their ends together")
        # a sewing spring's stiffness weight is 1: tension + |max - tension| = 40, over L = 0.1, x 1000
        self.assertAlmostEqual(fields["spring_tension_stiffness"], 1000 * 40.0 / 0.1, places=6)
        self.assertEqual(fields["spring_max_force"], 0.0, "Max Sewing Force 0: no limit")
        self.assertNotIn("internal_springs", fields)
        cloth.sewing_force_max = 2.5  # Blender force units: x 1000 in newtons
        self.assertAlmostEqual(settings.blender_springs("Shirt", cloth, measured, loose)["spring_max_force"], 2500.0)

        cloth.use_sewing_springs, cloth.use_internal_springs = False, True
        fields = settings.blender_springs("Shirt", cloth, measured, array("i"))
        self.assertNotIn("springs", fields)
        self.assertEqual((fields["internal_springs"], fields["internal_spring_max_length"],
                          fields["internal_spring_max_diversion"], fields["internal_spring_normal_check"]),
                         (True, 0.4, 0.3, True))
        self.assertAlmostEqual(fields["internal_tension_stiffness"], 1000 * 10.0 / 0.1, places=6)
        self.assertAlmostEqual(fields["internal_compression_stiffness"], 1000 * 5.0 / 0.1, places=6)
        self.assertNotIn("internal_vertex_stiffness", fields)
        # with the group: k0 + w |k_max - k0| per vertex, (tension, compression) pairs
        fields = settings.blender_springs("Shirt", cloth, measured, array("i"), [0.0, 0.5, 1.0])
        expected = [10.0, 5.0, 20.0, 7.0, 30.0, 9.0]
        self.assertEqual([round(k / 1e4, 9) for k in fields["internal_vertex_stiffness"]], expected)

        cloth.internal_tension_stiffness = float("nan")
        with self.assertRaisesRegex(settings.SettingsError, "Shirt: cloth internal_tension_stiffness is nan"):
            settings.blender_springs("Shirt", cloth, measured, loose)

    def test_pin_group_comes_from_the_right_place(self):
        self.assertEqual(settings.pin_group_name(obj("CLOTH", pin_group="top")), "top")
        self.assertEqual(settings.pin_group_name(obj(modifiers=[blender_cloth()])), "pins")


class Time(unittest.TestCase):
    def test_frames_are_seconds_at_any_rate(self):
        self.assertAlmostEqual(settings.frame_time(25, 1, 24), 1.0)
        self.assertAlmostEqual(settings.frame_time(61, 1, 60), 1.0)
        self.assertAlmostEqual(settings.frame_time(31, 1, 30, 1.001), 1.001)

    def test_frame_range(self):
        settings.check_frame_range(1, 2)
        with self.assertRaises(settings.SettingsError):
            settings.check_frame_range(5, 5)

    def test_world_settings(self):
        props = NS(use_scene_gravity=True, substeps=2, tolerance=1e-6)
        world = settings.world_settings(props, 24, 1.0, (0, 0, -3.7), True)
        self.assertEqual(world["gravity"], (0, 0, -3.7))
        self.assertAlmostEqual(world["max_step"], 1 / 48)
        self.assertEqual(settings.world_settings(props, 24, 1.0, (0, 0, -3.7), False)["gravity"], (0.0, 0.0, 0.0))
        props.use_scene_gravity = False
        self.assertEqual(settings.world_settings(props, 24, 1.0, (0, 0, -3.7), True)["gravity"], (0.0, 0.0, -9.81))


class CacheNames(unittest.TestCase):
    def test_names_are_safe_and_distinct(self):
        self.assertEqual(settings.cache_file_name("Curtain"), "Curtain.pc2")
        odd = [settings.cache_file_name(n) for n in ("a/b", "a_b", "a b", "../x", "Ärmel")]
        self.assertEqual(len(set(odd)), len(odd))
        for name in odd:
            self.assertNotIn("/", name)
            self.assertFalse(name.startswith("."))


if __name__ == "__main__":
    unittest.main()


class BlenderGroups(unittest.TestCase):
    """Stiffness and collision vertex groups, self friction and the colliders a cloth meets."""

    def cloth_settings(self, **values):
        defaults = dict(tension_stiffness=15.0, tension_stiffness_max=150.0, compression_stiffness=15.0,
                        compression_stiffness_max=15.0, shear_stiffness=5.0, shear_stiffness_max=5.0,
                        bending_stiffness=0.5, bending_stiffness_max=0.05,
                        vertex_group_structural_stiffness="Stiff", vertex_group_shear_stiffness="",
                        vertex_group_bending="")
        defaults.update(values)
        return NS(**defaults)

    def test_a_weight_moves_the_stiffness_towards_its_max(self):
        material = {"stretch_stiffness": 1.0, "compression_stiffness": 1.0, "shear_stiffness": 1.0,
                    "bend_stiffness": 1.0}
        weights = {"Stiff": [0.0, 0.5, 1.0]}
        factors = settings.blender_stiffness_factors(self.cloth_settings(), material, weights, 0.1)
        # k + w |k_max - k| over k: 15 + w 135 over 15
        self.assertEqual(list(factors["stretch_scale"]), [1.0, 5.5, 10.0])
        # compression's max is its stiffness: unscaled, and said so (the library would take stretch's)
        self.assertEqual(list(factors["compression_scale"]), [1.0, 1.0, 1.0])
        self.assertNotIn("shear_scale", factors)
        # Blender takes |max - k|: a bending max below the stiffness still raises it
        bend = settings.blender_stiffness_factors(self.cloth_settings(vertex_group_bending="Stiff"), material,
                                                  weights, 0.1)
        self.assertAlmostEqual(bend["bend_scale"][2], 1.0 + 0.45 / 0.5)
        self.assertEqual(material["bend_stiffness"], 1.0, "the material stays as mapped")

    def test_a_stiffness_of_zero_takes_its_max_and_the_weights(self):
        material = settings.blender_cloth_material(blender_cloth(shear_stiffness=0.0), 121, 1.0, 0.1)
        self.assertEqual(material["shear_stiffness"], 0.0)
        cloth = self.cloth_settings(shear_stiffness=0.0, shear_stiffness_max=5.0, vertex_group_shear_stiffness="S",
                                    vertex_group_structural_stiffness="")
        factors = settings.blender_stiffness_factors(cloth, material, {"S": [0.0, 0.25]}, 0.1)
        self.assertEqual(list(factors["shear_scale"]), [0.0, 0.25])
        at_five = settings.blender_cloth_material(blender_cloth(shear_stiffness=5.0), 121, 1.0, 0.1)
        self.assertAlmostEqual(material["shear_stiffness"], at_five["shear_stiffness"])

    def test_collision_groups_list_the_vertices_that_do_not_collide(self):
        collision = NS(vertex_group_object_collisions="Loose", use_self_collision=False, self_friction=5.0,
                       vertex_group_self_collisions="Loose")
        weights = {"Loose": [0.0, 0.2, 1.0]}
        fields = settings.blender_collision_groups(collision, weights)
        self.assertEqual(list(fields["object_collision_off"]), [0, 1, 1])
        self.assertNotIn("self_collision_off", fields, "without self collision")
        self.assertNotIn("self_friction", fields)
        collision.use_self_collision = True
        fields = settings.blender_collision_groups(collision, weights)
        self.assertEqual(list(fields["self_collision_off"]), [0, 1, 1])
        # Blender's default self friction 5 is a Coulomb coefficient of 0.05
        self.assertAlmostEqual(fields["self_friction"], 0.05)
        self.assertEqual(settings.blender_group_names(self.cloth_settings(), collision), ["Loose", "Stiff"])

    def test_the_colliders_a_cloth_meets(self):
        sphere, box, cone = NS(name="Sphere"), NS(name="Box"), NS(name="Cone")
        colliders = [(0, sphere), (1, box), (2, cone)]
        collision = NS(use_collision=True, collection=None)
        self.assertIsNone(settings.blender_colliders_met(collision, colliders), "every collider")
        collision.collection = NS(all_objects=[box, NS(name="Lamp"), cone])
        self.assertEqual(settings.blender_colliders_met(collision, colliders), [1, 2])
        collision.use_collision = False
        self.assertEqual(settings.blender_colliders_met(collision, colliders), [])
