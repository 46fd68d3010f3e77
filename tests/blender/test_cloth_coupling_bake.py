"""Two-way coupling in a real bake: a light ball thrown onto a free sheet (no floor) is held
back by the sheet it carries along with Feels Cloth on (the default), and falls as if the sheet
were not there with Feels Cloth off."""

import os
import sys
import unittest

import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # Blender does not add it
import blender_test  # noqa: E402

FRAMES = 12
THROW = -3.0  # m/s


class ClothCoupling(unittest.TestCase):
    def setUp(self):
        blender_test.empty_scene()
        self.scene = bpy.context.scene
        self.scene.simbake.frame_start, self.scene.simbake.frame_end = 1, FRAMES
        self.sheet = blender_test.grid_object("Sheet", size=0.6, cuts=12, location=(0, 0, 0.5))
        self.sheet.simbake.air_drag = 0.0
        bpy.ops.mesh.primitive_uv_sphere_add(radius=0.1, location=(0, 0, 0.62), segments=16, ring_count=8)
        self.ball = bpy.context.object
        self.ball.name = "Ball"
        self.ball.simbake.role = "RIGID"
        self.ball.simbake.shape = "SPHERE"
        self.ball.simbake.mass = 0.05
        self.ball.simbake.initial_velocity = (0.0, 0.0, THROW)

    def ball_height_at_the_end(self):
        self.assertEqual(bpy.ops.simbake.bake(), {"FINISHED"})
        self.scene.frame_set(FRAMES)
        return self.ball.matrix_world.translation.z

    def test_feels_cloth_on_by_default_holds_the_ball_back_off_falls_freely(self):
        self.assertTrue(self.ball.simbake.feels_cloth, "two way by default")
        fps = self.scene.render.fps / self.scene.render.fps_base
        t = (FRAMES - 1) / fps
        free_fall = 0.62 + THROW * t - 0.5 * 9.81 * t * t
        two_way = self.ball_height_at_the_end()
        # the 0.05 kg ball gives most of its momentum to the 4 times heavier sheet it carries
        self.assertGreater(two_way, free_fall + 0.3, f"the ball fell to {two_way:.3f} m (free fall {free_fall:.3f} m)")
        sheet_lowest = min(blender_test.world_vertices(self.sheet)[2::3])
        self.assertLess(sheet_lowest, two_way, "the ball went through the sheet")
        self.ball.simbake.feels_cloth = False
        one_way = self.ball_height_at_the_end()
        self.assertAlmostEqual(one_way, free_fall, places=3)


if __name__ == "__main__":
    blender_test.main()
