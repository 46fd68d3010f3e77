"""Blender's Internal Springs carry over: a closed ball of soft cloth (an icosphere of 0.5 m)
dropped onto a floor, with and without Internal Springs (Blender's defaults for them), 48 frames
at 24 fps. Both solvers bake each in this run with role None, and what a
viewer sees is compared: the volume the ball keeps. With internal springs it stays round in
both; without, it slumps in both."""

import os
import sys
import unittest

import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # Blender does not add it
import blender_test  # noqa: E402

FRAMES = 48


def enclosed_volume(positions, triangles):
    volume = 0.0
    for a, b, c in triangles:
        pa, pb, pc = positions[3 * a:3 * a + 3], positions[3 * b:3 * b + 3], positions[3 * c:3 * c + 3]
        volume += (pa[0] * (pb[1] * pc[2] - pb[2] * pc[1]) + pa[1] * (pb[2] * pc[0] - pb[0] * pc[2]) +
                   pa[2] * (pb[0] * pc[1] - pb[1] * pc[0])) / 6.0
    return volume


def bake_both(internal):
    """(Blender's, SimBake's) volume at the last frame over the volume at the first."""
    blender_test.empty_scene()
    scene = bpy.context.scene
    scene.render.fps = 24
    scene.frame_start, scene.frame_end = 1, FRAMES
    scene.simbake.frame_start, scene.simbake.frame_end = 1, FRAMES
    bpy.ops.mesh.primitive_plane_add(size=4.0, location=(0, 0, 0))
    bpy.context.object.modifiers.new("Collision", "COLLISION")
    bpy.ops.mesh.primitive_ico_sphere_add(subdivisions=3, radius=0.5, location=(0, 0, 0.6))
    ball = bpy.context.object
    modifier = ball.modifiers.new("Cloth", "CLOTH")
    cloth = modifier.settings
    # a soft skin (a fifteenth of Blender's default stiffness): it slumps unless something holds it
    cloth.tension_stiffness = cloth.compression_stiffness = cloth.shear_stiffness = 1.0
    cloth.bending_stiffness = 0.05
    cloth.use_internal_springs = internal
    modifier.point_cache.frame_start, modifier.point_cache.frame_end = 1, FRAMES
    ball.data.calc_loop_triangles()
    triangles = [tuple(t.vertices) for t in ball.data.loop_triangles]
    scene.frame_set(1)
    start = enclosed_volume(blender_test.world_vertices(ball), triangles)
    for frame in range(2, FRAMES + 1):  # Blender's own bake, frame by frame into its cache
        scene.frame_set(frame)
    blender = enclosed_volume(blender_test.world_vertices(ball), triangles) / start
    scene.frame_set(1)
    assert bpy.ops.simbake.bake() == {"FINISHED"}
    scene.frame_set(FRAMES)
    simbake = enclosed_volume(blender_test.world_vertices(ball), triangles) / start
    return blender, simbake


class InternalSpringsLikeBlender(unittest.TestCase):
    def test_a_ball_with_internal_springs_keeps_its_volume_as_in_blenders_own_bake(self):
        blender_with, simbake_with = bake_both(True)
        blender_without, simbake_without = bake_both(False)
        print(f"internal springs: volume kept after 2 s on the floor, Blender {blender_with:.3f} with, "
              f"{blender_without:.3f} without; SimBake {simbake_with:.3f} with, {simbake_without:.3f} without",
              flush=True)
        self.assertGreater(blender_with, blender_without + 0.1, "Blender's own bake: the scene is not the one meant")
        self.assertGreater(simbake_with, simbake_without + 0.1, "SimBake's internal springs do not hold the ball")
        self.assertLess(abs(simbake_with - blender_with), 0.15, "the two balls keep different volumes")


blender_test.main()
