"""Blender's Collision Collections and Deactivation bake with SimBake unchanged (role None) and
do what Blender's own bake of the same scene does, both baked in this run: a box dropped onto
another box in no common collision collection passes through it to the ground; a stack of
boxes set to Start Deactivated hangs in the air until a falling box hits it, then falls; at the
rigid body world's Speed 0.5 a box falls as far in a second as in half a second."""

import math
import os
import sys
import unittest

import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # Blender does not add it
import blender_test  # noqa: E402


def collections(*numbers):
    """Blender's 20 collision collection switches with collections `numbers` (from 1) on."""
    return [k + 1 in numbers for k in range(20)]


def heights(scene, objects, frames, bake):
    """Each object's height per frame: Blender's bake (frame by frame into its cache) or, with
    `bake`, SimBake's."""
    if bake:
        scene.frame_set(1)
        result = bpy.ops.simbake.bake()
        assert result == {"FINISHED"}, result
    out = {obj: [] for obj in objects}
    for frame in range(1, frames + 1):
        scene.frame_set(frame)
        for obj in objects:
            out[obj].append(obj.matrix_world.translation.z)
    return out


def first_moved(zs, by=0.01):
    """The first frame (from 1) where the height is `by` below the first frame's, or None."""
    return next((k + 1 for k, z in enumerate(zs) if zs[0] - z > by), None)


class DeactivationLikeBlender(unittest.TestCase):
    def test_boxes_in_no_common_collision_collection_pass_through_each_other(self):
        frames = 36
        scene = blender_test.rigid_scene(frames)
        blender_test.box("Ground", (0.0, 0.0, -0.5), (3.0, 3.0, 0.5), kind="PASSIVE", collision_collections=collections(1, 2))
        lower = blender_test.box("Lower", (0.0, 0.0, 0.5), (0.5, 0.5, 0.5), collision_collections=collections(1))
        upper = blender_test.box("Upper", (0.1, 0.0, 2.0), (0.5, 0.5, 0.5), collision_collections=collections(2))
        runs = [heights(scene, [lower, upper], frames, bake) for bake in (False, True)]
        print("collision collections 1 and 2: the upper box ends at "
              f"{runs[0][upper][-1]:.3f} m in Blender's bake, {runs[1][upper][-1]:.3f} m in SimBake's (on the ground: "
              f"0.5 m; on the lower box: 1.5 m); the lower at {runs[0][lower][-1]:.3f} and {runs[1][lower][-1]:.3f} m",
              flush=True)
        warnings = scene.simbake.last_bake_warnings
        self.assertNotIn("Collision Collections", warnings, warnings)
        for run, who in zip(runs, ("Blender's", "SimBake's")):
            self.assertLess(abs(run[upper][-1] - 0.5), 0.06, f"{who} upper box did not pass through the lower one")
            self.assertLess(abs(run[lower][-1] - 0.5), 0.06, f"{who} lower box was pushed")

    def test_a_stack_started_deactivated_hangs_until_a_box_hits_it(self):
        frames = 60
        scene = blender_test.rigid_scene(frames)
        blender_test.box("Ground", (0.0, 0.0, -0.5), (3.0, 3.0, 0.5), kind="PASSIVE")
        stack = [blender_test.box(f"Stack{k}", (0.0, 0.0, 3.5 + k), (0.5, 0.5, 0.5), use_deactivation=True,
                     use_start_deactivated=True) for k in range(3)]
        falling = blender_test.box("Falling", (0.2, 0.0, 7.0), (0.5, 0.5, 0.5))  # 0.5 m above the top: hits at frame 8.7
        runs = [heights(scene, stack + [falling], frames, bake) for bake in (False, True)]
        woken = [[first_moved(run[obj]) for obj in stack] for run in runs]
        print(f"stack started deactivated, 3 m up, hit by a box from 0.5 m above: boxes (bottom to top) first 1 cm lower "
              f"at frames {woken[0]} in Blender's bake, {woken[1]} in SimBake's; the bottom one ends at "
              f"{runs[0][stack[0]][-1]:.3f} m and {runs[1][stack[0]][-1]:.3f} m", flush=True)
        warnings = scene.simbake.last_bake_warnings
        self.assertNotIn("Deactivation", warnings, warnings)
        for run, frames_moved, who in zip(runs, woken, ("Blender's", "SimBake's")):
            self.assertTrue(all(f is not None for f in frames_moved), f"{who} stack never fell: {frames_moved}")
            self.assertTrue(all(f >= 8 for f in frames_moved), f"{who} stack fell before it was hit: {frames_moved}")
            for obj in stack:  # in place, exactly, until then
                self.assertTrue(all(abs(z - run[obj][0]) < 1e-6 for z in run[obj][:5]), f"{who} stack moved early")
            self.assertLess(run[stack[0]][-1], 1.0, f"{who} stack did not fall to the ground")
        for b, s in zip(woken[0], woken[1]):
            self.assertLessEqual(abs(b - s), 3, f"the stacks fell at different frames: {woken}")

    def test_the_rigid_body_worlds_speed_slows_a_fall(self):
        frames = 25
        scene = blender_test.rigid_scene(frames)
        scene.rigidbody_world.time_scale = 0.5
        falling = blender_test.box("Falling", (0.0, 0.0, 10.0), (0.5, 0.5, 0.5), linear_damping=0.0, angular_damping=0.0)
        runs = [heights(scene, [falling], frames, bake)[falling] for bake in (False, True)]
        expected = 10.0 - 0.5 * 9.81 * (0.5 * (frames - 1) / 24) ** 2  # half a second of fall in one
        print(f"rigid body world Speed 0.5: a box fell to {runs[0][-1]:.4f} m in 1 s in Blender's bake, "
              f"{runs[1][-1]:.4f} m in SimBake's (½ g (0.5 s)²: {expected:.4f} m)", flush=True)
        self.assertNotIn("Speed", scene.simbake.last_bake_warnings, scene.simbake.last_bake_warnings)
        self.assertLess(abs(runs[1][-1] - expected), 1e-3, "SimBake's box did not fall for half the time")
        self.assertLess(abs(runs[0][-1] - expected), 0.03, "Blender's box did not fall as expected: not the scene meant")


blender_test.main()
