"""Blender's Collision Collection carries over: two cloths at Blender's defaults, each 0.3 m
above a UV sphere of 0.5 m with a Collision modifier, both with a Collision Collection that
holds the first sphere only, 24 frames at 24 fps. Both solvers bake the scene in this run: in
each, the first cloth lies on its sphere and the second falls through its own. A third cloth
with Object Collisions off falls through a sphere too."""

import os
import sys
import unittest

import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # Blender does not add it
import blender_test  # noqa: E402

FRAMES = 24
SPACING = 2.0  # m between the spheres along x


def sphere(name, x, collection):
    bpy.ops.mesh.primitive_uv_sphere_add(segments=32, ring_count=16, radius=0.5, location=(x, 0.0, 0.0))
    obj = bpy.context.object
    obj.name = name
    obj.modifiers.new("Collision", "COLLISION")
    if collection is not None:  # moved into the collision collection, which the scene holds
        for owner in list(obj.users_collection):
            owner.objects.unlink(obj)
        collection.objects.link(obj)
    return obj


def cloth_over(name, x, collection=None, use_collision=True):
    obj = blender_test.grid_object(name, size=1.0, cuts=16, location=(x, 0.0, 0.8), role="NONE")
    modifier = obj.modifiers.new("Cloth", "CLOTH")
    modifier.point_cache.frame_start, modifier.point_cache.frame_end = 1, FRAMES
    modifier.collision_settings.collection = collection
    modifier.collision_settings.use_collision = use_collision
    return obj


def middle_height(obj):
    """Height of the vertex nearest the cloth's middle (above its sphere's top when held)."""
    positions = blender_test.world_vertices(obj)
    x0 = obj.matrix_world.translation.x
    nearest = min(range(0, len(positions), 3),
                  key=lambda i: (positions[i] - x0) ** 2 + positions[i + 1] ** 2)
    return positions[nearest + 2]


class CollisionCollectionLikeBlender(unittest.TestCase):
    def test_a_cloth_meets_only_the_colliders_of_its_collection(self):
        blender_test.empty_scene()
        scene = bpy.context.scene
        scene.render.fps = 24
        scene.frame_start, scene.frame_end = 1, FRAMES
        scene.simbake.frame_start, scene.simbake.frame_end = 1, FRAMES
        met = bpy.data.collections.new("Met")
        scene.collection.children.link(met)
        sphere("Held", 0.0, met)
        sphere("Passed", SPACING, None)
        sphere("Ignored", 2 * SPACING, None)
        cloths = [cloth_over("OnHeld", 0.0, met), cloth_over("OverPassed", SPACING, met),
                  cloth_over("NoCollisions", 2 * SPACING, use_collision=False)]
        scene.frame_set(1)
        for frame in range(2, FRAMES + 1):  # Blender's own bake, frame by frame into its cache
            scene.frame_set(frame)
        blender = [middle_height(obj) for obj in cloths]

        scene.frame_set(1)
        self.assertEqual(bpy.ops.simbake.bake(), {"FINISHED"})
        scene.frame_set(FRAMES)
        simbake = [middle_height(obj) for obj in cloths]
        print("collision collection: middle heights after 1 s, Blender " + ", ".join(f"{z:.3f}" for z in blender)
              + " m; SimBake " + ", ".join(f"{z:.3f}" for z in simbake) + " m", flush=True)
        # a sphere's top is at 0.5 m, its bottom at -0.5 m (the cloths fall through air: Blender's
        # to about -1.25 m in these 23 frames, SimBake's further)
        for solver, heights in (("Blender", blender), ("SimBake", simbake)):
            self.assertGreater(heights[0], 0.45, f"{solver}: the cloth fell off the sphere of its collection")
            self.assertLess(heights[1], -1.0, f"{solver}: the cloth stopped on a sphere outside its collection")
            self.assertLess(heights[2], -1.0, f"{solver}: a cloth with Object Collisions off stopped on a sphere")
        self.assertLess(abs(simbake[0] - blender[0]), 0.05, "the held cloths lie at different heights")
        warnings = scene.simbake.last_bake_warnings
        self.assertNotIn("Collision Collection", warnings)
        self.assertNotIn("Object Collisions", warnings)


blender_test.main()
