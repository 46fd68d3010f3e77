"""Issue 32, part 2: a cloth that starts through a collider or through itself is reported by
name before the bake (the library counts the intersecting pairs) and the bake pulls it apart
(docs/robustness.md)."""

import os
import re
import sys
import unittest

import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # Blender does not add it
import blender_test  # noqa: E402
from simbake import native  # noqa: E402


def world_triangles(obj):
    """The object's faces as triangles (fans), flat vertex indices."""
    triangles = []
    for polygon in obj.data.polygons:
        v = list(polygon.vertices)
        for i in range(1, len(v) - 1):
            triangles += [v[0], v[i], v[i + 1]]
    return triangles


def pairs_now(cloth, collider=None, self_collision=False):
    """Intersecting pairs of the cloth as it is shown now, with the collider or with itself,
    counted by the library in a world of their own."""
    world = native.World()
    cloth_id = world.add_cloth(blender_test.world_vertices(cloth), world_triangles(cloth),
                               self_collision=self_collision)
    if collider is None:
        return world.count_intersections(cloth_id)
    collider_id = world.add_collider(blender_test.world_vertices(collider), world_triangles(collider))
    return world.count_intersections(cloth_id, collider=collider_id)


class StartingTangled(unittest.TestCase):
    def setUp(self):
        blender_test.empty_scene()
        self.scene = bpy.context.scene
        self.scene.simbake.frame_start, self.scene.simbake.frame_end = 1, 24

    def test_a_sleeve_started_through_a_body_is_reported_and_pulled_out(self):
        """A sheet through the top of a sphere: the warning names both with the library's count,
        and at the last frame no vertex is inside the sphere and no pair intersects."""
        bpy.ops.mesh.primitive_uv_sphere_add(radius=0.3, location=(0.05, 0.0, 0.6), segments=24, ring_count=12)
        body = bpy.context.object
        body.name = "Body"
        body.simbake.role = "COLLIDER"
        sleeve = blender_test.grid_object("Sleeve", size=1.0, cuts=13, location=(0.0, 0.0, 0.7))
        at_start = pairs_now(sleeve, body)
        self.assertGreater(at_start, 0)
        self.assertEqual(bpy.ops.simbake.bake(), {"FINISHED"})
        warnings = self.scene.simbake.last_bake_warnings
        self.assertIn(f"Sleeve starts through Body: {at_start} intersecting pairs", warnings)
        self.scene.frame_set(24)
        centre = body.location
        positions = blender_test.world_vertices(sleeve)
        nearest = min(sum((positions[i + k] - centre[k]) ** 2 for k in range(3)) ** 0.5
                      for i in range(0, len(positions), 3))
        # the UV sphere's faces are at least cos(180°/12) of its radius from its centre
        self.assertGreater(nearest, 0.3 * 0.966, "a vertex is still inside the body")
        self.assertEqual(pairs_now(sleeve, body), 0)

    def test_a_cloth_wholly_inside_a_body_is_reported_and_pulled_out(self):
        """A small sheet wholly inside a sphere crosses none of its faces: the warning names
        both with the library's count of vertices inside, and at the last frame none is."""
        bpy.ops.mesh.primitive_uv_sphere_add(radius=0.3, location=(0.0, 0.0, 0.6), segments=24, ring_count=12)
        body = bpy.context.object
        body.name = "Body"
        body.simbake.role = "COLLIDER"
        patch = blender_test.grid_object("Patch", size=0.2, cuts=5, location=(0.0, 0.0, 0.72))
        self.assertEqual(pairs_now(patch, body), 0)
        world = native.World()
        cloth_id = world.add_cloth(blender_test.world_vertices(patch), world_triangles(patch))
        collider_id = world.add_collider(blender_test.world_vertices(body), world_triangles(body))
        inside = world.count_inside(cloth_id, collider_id)
        self.assertEqual(inside, len(patch.data.vertices))
        self.assertEqual(bpy.ops.simbake.bake(), {"FINISHED"})
        warnings = self.scene.simbake.last_bake_warnings
        self.assertIn(f"Patch starts inside Body: {inside} vertices", warnings)
        self.scene.frame_set(24)
        positions = blender_test.world_vertices(patch)
        nearest = min(sum((positions[i + k] - body.location[k]) ** 2 for k in range(3)) ** 0.5
                      for i in range(0, len(positions), 3))
        self.assertGreater(nearest, 0.3 * 0.966, "a vertex is still inside the body")
        self.assertEqual(pairs_now(patch, body), 0)

    def test_a_sheet_folded_through_itself_is_reported_and_comes_apart(self):
        """The fold of the library's hostile case, self collision on: reported with the
        library's count, and untangled at the last frame."""
        sheet = blender_test.grid_object("Sheet", size=1.0, cuts=13, location=(0.0, 0.0, 1.0))
        sheet.simbake.self_collision = True
        for vertex in sheet.data.vertices:
            x, y, _ = vertex.co
            if y > 0.0:
                vertex.co.z, vertex.co.y = 0.15 - 0.6 * y + 0.05 * x, -0.5 * y
        sheet.data.update()
        at_start = pairs_now(sheet, self_collision=True)
        self.assertGreater(at_start, 0)
        self.assertEqual(bpy.ops.simbake.bake(), {"FINISHED"})
        warnings = self.scene.simbake.last_bake_warnings
        self.assertIsNotNone(re.search(rf"Sheet starts through itself: {at_start} intersecting pairs", warnings),
                             warnings)
        self.scene.frame_set(24)
        self.assertEqual(pairs_now(sheet, self_collision=True), 0)


if __name__ == "__main__":
    blender_test.main()
