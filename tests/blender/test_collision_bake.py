"""Cloth colliding with scene objects in a real bake: SimBake colliders, animated ones, and
Blender's own Collision modifier and passive rigid bodies."""

import os
import sys
import unittest

import bpy
from mathutils import Vector

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # Blender does not add it
import blender_test  # noqa: E402


def face_planes(obj):
    """World-space (point, outward normal) of every face of a convex object, as evaluated."""
    depsgraph = bpy.context.evaluated_depsgraph_get()
    obj_eval = obj.evaluated_get(depsgraph)
    mesh = obj_eval.to_mesh()
    matrix = obj_eval.matrix_world.copy()
    planes = []
    for polygon in mesh.polygons:
        point = matrix @ mesh.vertices[polygon.vertices[0]].co
        normal = (matrix.to_3x3() @ polygon.normal).normalized()
        planes.append((point.copy(), normal))
    obj_eval.to_mesh_clear()
    return planes


def deepest_inside(cloth, collider):
    """How far the cloth's deepest vertex is inside a convex collider (<= 0: outside)."""
    planes = face_planes(collider)
    positions = blender_test.world_vertices(cloth)
    deepest = float("-inf")
    for i in range(0, len(positions), 3):
        p = Vector(positions[i:i + 3])
        signed = max((p - point).dot(normal) for point, normal in planes)
        deepest = max(deepest, -signed)
    return deepest


class Colliders(unittest.TestCase):
    def setUp(self):
        blender_test.empty_scene()
        self.scene = bpy.context.scene
        self.scene.simbake.frame_start, self.scene.simbake.frame_end = 1, 36
        self.cloth = blender_test.grid_object("Cloth", size=1.2, cuts=15, location=(0, 0, 0.7))
        self.cloth.simbake.thickness = 0.005

    def check_outside(self, collider, frames):
        for frame in frames:
            self.scene.frame_set(frame)
            depth = deepest_inside(self.cloth, collider)
            self.assertLess(depth, 0.1 * self.cloth.simbake.thickness, f"frame {frame}: {depth:g} m inside")

    def test_cloth_drapes_over_a_sphere_collider(self):
        bpy.ops.mesh.primitive_uv_sphere_add(radius=0.5, location=(0, 0, 0), segments=24, ring_count=12)
        sphere = bpy.context.object
        sphere.simbake.role = "COLLIDER"
        self.assertEqual(bpy.ops.simbake.bake(), {"FINISHED"})
        self.check_outside(sphere, range(1, 37, 5))
        self.scene.frame_set(36)
        lowest = min(blender_test.world_vertices(self.cloth)[2::3])
        self.assertLess(lowest, 0.3, "the cloth did not drape over the sphere")

    def test_animated_collider_is_followed(self):
        # a cube rises through where the cloth hangs, pinned at its corners
        group = self.cloth.vertex_groups.new(name="corners")
        group.add([0, 15, 240, 255], 1.0, "REPLACE")
        self.cloth.simbake.pin_group = "corners"
        bpy.ops.mesh.primitive_cube_add(size=0.4, location=(0, 0, -0.4))
        cube = bpy.context.object
        cube.simbake.role = "COLLIDER"
        for frame, z in ((1, -0.4), (24, 0.9)):
            cube.location.z = z
            cube.keyframe_insert("location", index=2, frame=frame)
        self.assertEqual(bpy.ops.simbake.bake(), {"FINISHED"})
        self.check_outside(cube, range(1, 37, 3))
        self.scene.frame_set(30)
        highest = max(blender_test.world_vertices(self.cloth)[2::3])
        self.assertGreater(highest, 1.05, "the rising cube did not lift the cloth")

    def test_blender_collision_modifier_and_passive_rigid_body_collide(self):
        bpy.ops.mesh.primitive_uv_sphere_add(radius=0.4, location=(-0.3, 0, 0.1), segments=24, ring_count=12)
        sphere = bpy.context.object
        sphere.modifiers.new("Collision", "COLLISION")
        bpy.ops.mesh.primitive_plane_add(size=4.0, location=(0, 0, -0.2))
        floor = bpy.context.object
        bpy.ops.rigidbody.object_add(type="PASSIVE")
        self.cloth.simbake.role = "NONE"
        self.cloth.modifiers.new("Cloth", "CLOTH")
        self.assertEqual(bpy.ops.simbake.bake(), {"FINISHED"})
        self.check_outside(sphere, range(1, 37, 5))
        self.scene.frame_set(36)
        lowest = min(blender_test.world_vertices(self.cloth)[2::3])
        self.assertGreater(lowest, -0.2, "the cloth fell through the passive rigid body")
        self.assertLess(lowest, -0.1, "the cloth did not reach the floor")
        self.assertFalse(floor.simbake.bake_record, "a collider is not baked")


blender_test.main()
