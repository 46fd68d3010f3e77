"""A rigid body's Source (Base, Deform, Final) chooses the mesh its convex hull is built from,
in SimBake's bake as in Blender's own, both baked in this run: three 2 m cubes with a shape key
that makes them 3 m and a Subdivision Surface modifier above it fall onto the ground. Base
(the cube itself) rests with its centre 1 m up, Deform (the shape key, not the modifier) 1.5 m,
Final (the rounded, subdivided 3 m cube) lower than 1.5 m, each where Blender's rests."""

import os
import sys
import unittest

import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # Blender does not add it
import blender_test  # noqa: E402

FRAMES = 48


def swollen_cube(name, x, source):
    """A 2 m cube 4 m up with a shape key (value 1) making it 3 m, subdivided twice above it."""
    bpy.ops.mesh.primitive_cube_add(size=2.0, location=(x, 0.0, 4.0))
    obj = bpy.context.object
    obj.name = name
    obj.shape_key_add(name="Basis")
    big = obj.shape_key_add(name="Big")
    for point in big.data:
        point.co = point.co * 1.5
    big.value = 1.0
    modifier = obj.modifiers.new("Subdivision", "SUBSURF")
    modifier.levels = 2
    return blender_test.rigid_body(obj, mesh_source=source, mass=1.0)


def heights(scene, objects):
    """Centre heights at the last frame, stepping there frame by frame (Blender's cache)."""
    for frame in range(1, FRAMES + 1):
        scene.frame_set(frame)
    return {obj.rigid_body.mesh_source: obj.matrix_world.translation.z for obj in objects}


class MeshSourceLikeBlender(unittest.TestCase):
    def test_base_deform_and_final_rest_where_blenders_do(self):
        blender_test.empty_scene()
        scene = bpy.context.scene
        scene.render.fps = 24
        scene.frame_start, scene.frame_end = 1, FRAMES
        scene.simbake.frame_start, scene.simbake.frame_end = 1, FRAMES
        bpy.ops.rigidbody.world_add()
        scene.rigidbody_world.point_cache.frame_start, scene.rigidbody_world.point_cache.frame_end = 1, FRAMES
        bpy.ops.mesh.primitive_cube_add(size=2.0, location=(0.0, 0.0, -1.0))
        ground = bpy.context.object
        ground.scale = (20.0, 20.0, 1.0)
        bpy.ops.object.transform_apply(location=False, rotation=False, scale=True)
        blender_test.rigid_body(ground, kind="PASSIVE", shape="BOX")
        cubes = [swollen_cube(source.title(), x, source) for x, source in ((-5.0, "BASE"), (0.0, "DEFORM"),
                                                                          (5.0, "FINAL"))]
        blender = heights(scene, cubes)
        scene.frame_set(1)
        self.assertEqual(bpy.ops.simbake.bake(), {"FINISHED"})
        simbake = heights(scene, cubes)
        print("mesh source: centre at rest " + "; ".join(
            f"{source.title()} Blender {blender[source]:.4f} m, SimBake {simbake[source]:.4f} m"
            for source in ("BASE", "DEFORM", "FINAL")), flush=True)
        self.assertLess(abs(simbake["BASE"] - 1.0), 0.01, "Base is not the cube itself")
        self.assertLess(abs(simbake["DEFORM"] - 1.5), 0.01, "Deform is not the cube as its shape key makes it")
        self.assertLess(simbake["FINAL"], 1.45, "Final is not the subdivided cube")
        for source in ("BASE", "DEFORM", "FINAL"):
            self.assertLess(abs(simbake[source] - blender[source]), 0.02, f"{source} rests elsewhere than Blender's")
        # what SimBake hid to read the Deform mesh is back
        self.assertTrue(all(cube.modifiers["Subdivision"].show_viewport for cube in cubes))


if __name__ == "__main__":
    blender_test.main()
