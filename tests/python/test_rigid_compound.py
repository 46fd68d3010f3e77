"""Blender's Compound Parent (rigid_compound.py, with stand-ins for Blender's objects): which
children are its parts, nested compounds, the body settings and part shapes it bakes with, and
a compound body through the bindings."""

import unittest
from array import array
from types import SimpleNamespace as NS

from simbake import native, rigid_compound, rigid_settings
from test_settings import blender_body


def thing(name, parent=None, shape="BOX", role="NONE", rigid=True):
    obj = NS(name=name, parent=parent, children=[], simbake=NS(role=role, feels_cloth=False),
             rigid_body=blender_body(collision_shape=shape) if rigid else None)
    if parent is not None:
        parent.children.append(obj)
    return obj


class Parts(unittest.TestCase):
    def test_the_rigid_children_of_a_compound_parent_are_its_parts_by_name(self):
        table = thing("Table", shape="COMPOUND")
        legs = [thing(name, table, "CONVEX_HULL") for name in ("Leg2", "Leg1")]
        top = thing("Top", table)
        label = thing("Label", table, rigid=False)       # no rigid body: not a part
        own = thing("Own", table, role="RIGID")           # SimBake's own role: a body of its own
        self.assertEqual(rigid_compound.part_objects(table), [legs[1], legs[0], top])
        self.assertTrue(rigid_compound.is_compound_parent(table))
        self.assertTrue(all(rigid_compound.is_part(p) for p in legs + [top]))
        self.assertFalse(rigid_compound.is_part(label) or rigid_compound.is_part(own) or rigid_compound.is_part(table))
        # another shape on the parent: its children are bodies of their own
        table.rigid_body.collision_shape = "BOX"
        self.assertEqual(rigid_compound.part_objects(table), [])
        self.assertFalse(rigid_compound.is_part(top))

    def test_a_nested_compound_gives_its_childrens_shapes(self):
        root = thing("Root", shape="COMPOUND")
        inner = thing("Inner", root, shape="COMPOUND")
        a, b = thing("A", inner), thing("B", root, "SPHERE")
        self.assertEqual(rigid_compound.part_objects(root), [b, a])
        self.assertTrue(rigid_compound.is_part(inner) and rigid_compound.is_part(a))

    def test_merged_surface_numbers_each_meshs_vertices_after_the_last(self):
        positions, triangles = rigid_compound.merged_surface([
            (array("d", [0, 0, 0, 1, 0, 0, 0, 1, 0]), array("i", [0, 1, 2])),
            (array("d", [5, 5, 5, 6, 5, 5, 5, 6, 5, 5, 5, 6]), array("i", [0, 1, 2, 0, 2, 3]))])
        self.assertEqual(len(positions), 21)
        self.assertEqual(list(triangles), [0, 1, 2, 3, 4, 5, 3, 5, 6])


class Settings(unittest.TestCase):
    def test_a_compound_parent_bakes_as_a_compound_only_with_parts(self):
        parent = thing("Table", shape="COMPOUND")
        values, warnings = rigid_settings.body_settings(parent, True, has_parts=True)
        self.assertEqual((values["shape"], values["mass"], warnings), ("COMPOUND", 3.0, []))
        values, warnings = rigid_settings.body_settings(parent, True)
        self.assertEqual(values["shape"], "CONVEX_HULL")
        self.assertIn("Compound Parent with no rigid body children", warnings[0])

    def test_a_part_is_convex(self):
        for shape in ("BOX", "SPHERE", "CONVEX_HULL", "CAPSULE", "CYLINDER", "CONE"):
            self.assertEqual(rigid_settings.part_shape(thing("P", shape=shape)), (shape, []))
        shape, warnings = rigid_settings.part_shape(thing("Leg", shape="MESH"))
        self.assertEqual(shape, "CONVEX_HULL")
        self.assertIn("Leg: its mesh collision shape, a part of its parent's compound", warnings[0])


class Bindings(unittest.TestCase):
    def test_a_compound_body_of_two_boxes_rests_on_both(self):
        with native.World() as world:
            world.add_body("STATIC", "BOX", half_extents=(5, 5, 0.5), center=(0, 0, -0.5))
            bar = world.add_body("DYNAMIC", "COMPOUND", mass=2.0, parts=[
                {"shape": "BOX", "center": (-1.0, 0, 0.6), "half_extents": (0.25, 0.25, 0.25)},
                {"shape": "SPHERE", "center": (1.0, 0, 0.6), "radius": 0.25},
                {"shape": "CONVEX_HULL", "vertices": [0, 0, 0.5, 0.1, 0, 0.5, 0, 0.1, 0.5, 0, 0, 0.6]}])
            world.step_to(1.5)
            state = world.body_state(bar)
            self.assertAlmostEqual(state["mass"], 2.0)
            self.assertAlmostEqual(state["contact_force"][2], 2.0 * 9.81, places=2)
            matrix = world.body_transform(bar)
            self.assertAlmostEqual(matrix[11], -0.35, places=3)  # both ends down on the floor
            self.assertAlmostEqual(matrix[10], 1.0, places=6)
            with self.assertRaises(native.NativeError) as caught:
                world.add_body("DYNAMIC", "COMPOUND", parts=[{"shape": "MESH"}])
            self.assertIn("compound part 0", str(caught.exception))
            with self.assertRaises(native.NativeError) as caught:
                world.add_body("DYNAMIC", "COMPOUND")
            self.assertIn("1..4096 parts", str(caught.exception))


class MeshSource(unittest.TestCase):
    def test_blenders_source_for_hulls_and_meshes_only(self):
        body = thing("Rock", shape="CONVEX_HULL")
        for source in ("BASE", "DEFORM", "FINAL"):
            body.rigid_body.mesh_source = source
            self.assertEqual(rigid_settings.mesh_source(body), source)
        body.rigid_body.collision_shape = "BOX"  # sized from the evaluated bounds, as in Blender
        self.assertEqual(rigid_settings.mesh_source(body), "FINAL")
        own = thing("Own", shape="CONVEX_HULL", role="RIGID")
        own.rigid_body.mesh_source = "BASE"
        self.assertEqual(rigid_settings.mesh_source(own), "FINAL")

    def test_deform_cuts_before_the_first_shown_modifier_that_builds_geometry(self):
        def modifier(kind, shown=True):
            return NS(type=kind, show_viewport=shown)
        stack = [modifier("ARMATURE"), modifier("SUBSURF", shown=False), modifier("DISPLACE"), modifier("SUBSURF"),
                 modifier("SMOOTH")]
        self.assertEqual(rigid_settings.deform_cut(stack), 3)
        self.assertEqual(rigid_settings.deform_cut(stack[:3]), 3)
        self.assertEqual(rigid_settings.deform_cut([modifier("ARRAY")]), 0)
