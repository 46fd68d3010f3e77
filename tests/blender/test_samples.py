"""Every operator on every sample scene, in headless Blender: bake all, bake selected, bake
again, free selected, free all; the scene afterwards is as it was. The tablecloth scene is
set up only with Blender's own physics (Cloth and Collision modifiers, active and passive
rigid bodies) and must bake and play back with SimBake."""

import os
import sys
import time
import unittest

import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # Blender does not add it
import blender_test  # noqa: E402
from simbake import bake, outputs  # noqa: E402

SAMPLES = ("curtain", "drape", "stack", "tablecloth", "tassel")
FRAMES = 16  # of each sample's range: enough to move, quick to bake


def bake_op(**kwargs):
    result = bpy.ops.simbake.bake(**kwargs)
    if result != {"FINISHED"}:
        raise AssertionError(f"bake returned {result}")


class SampleScenes(unittest.TestCase):
    def open(self, name):
        self.folder = blender_test.open_copy(f"{name}.blend")
        scene = bpy.context.scene
        scene.simbake.frame_end = scene.simbake.frame_start + FRAMES
        return scene

    def baked_at(self):
        return {obj.name: outputs.load_record(obj)["baked_at"]
                for obj in bpy.context.scene.objects if outputs.is_baked(obj)}

    def test_every_operator_on_every_sample(self):
        for name in SAMPLES:
            with self.subTest(sample=name):
                scene = self.open(name)
                targets = [obj.name for obj in bake.bakeable_objects(scene)]
                self.assertTrue(targets, f"{name}: nothing to bake")
                before = blender_test.objects_state()

                bake_op()
                baked = self.baked_at()
                self.assertEqual(sorted(baked), sorted(targets))
                self.assert_moves(name, targets)

                # bake selected: only the selected object is baked again
                chosen = bpy.data.objects[targets[0]]
                for obj in scene.objects:
                    obj.select_set(obj == chosen)
                time.sleep(0.01)
                bake_op(selected_only=True)
                again = self.baked_at()
                self.assertGreater(again[chosen.name], baked[chosen.name])
                for other in targets[1:]:
                    self.assertEqual(again[other], baked[other], f"{other} was baked again though not selected")

                # baking all again replaces every bake (one SimBake modifier, one action each)
                bake_op()
                for obj_name in targets:
                    obj = bpy.data.objects[obj_name]
                    self.assertLessEqual(sum(m.name.startswith("SimBake") for m in obj.modifiers), 1)

                self.assertEqual(bpy.ops.simbake.free_bake(selected_only=True), {"FINISHED"})
                self.assertFalse(outputs.is_baked(chosen))
                self.assertEqual(sum(outputs.is_baked(bpy.data.objects[n]) for n in targets), len(targets) - 1)
                self.assertEqual(bpy.ops.simbake.free_bake(), {"FINISHED"})
                after = blender_test.objects_state()
                for key in before:
                    self.assertEqual(after[key], before[key], f"{name}: free bake left {key} changed")
                leftovers = [name for _, _, names in os.walk(os.path.join(self.folder, "simbake_cache"))
                             for name in names]
                self.assertEqual(leftovers, [], f"{name}: cache files left after free bake")

    def assert_moves(self, name, targets):
        """Between the first and the last baked frame every cloth and strands object moves, and so do some of
        the rigid bodies (in the evaluated mesh, world space)."""
        scene = bpy.context.scene
        frame = scene.frame_current
        scene.frame_set(scene.simbake.frame_start)
        first = {n: blender_test.world_vertices(bpy.data.objects[n]) for n in targets}
        scene.frame_set(scene.simbake.frame_end)
        moved = {n: max(abs(a - b) for a, b in zip(first[n], blender_test.world_vertices(bpy.data.objects[n])))
                 for n in targets}
        scene.frame_set(frame)
        for n in targets:
            if bake.settings.resolve_role(bpy.data.objects[n]) in ("CLOTH", "STRANDS"):
                self.assertGreater(moved[n], 1e-3, f"{name}: cloth {n} did not move in the baked frames")
        self.assertGreater(max(moved.values()), 1e-2, f"{name}: nothing moved in the baked frames")

    def test_blender_physics_scene_bakes_and_plays_back(self):
        blender_test.open_copy("tablecloth.blend")
        scene = bpy.context.scene
        self.assertTrue(all(obj.simbake.role == "NONE" for obj in scene.objects))
        cloth = next(obj for obj in scene.objects if any(m.type == "CLOTH" for m in obj.modifiers))
        cloth_name = cloth.name
        falling = [obj for obj in scene.objects if obj.rigid_body and obj.rigid_body.type == "ACTIVE"]
        self.assertTrue(falling, "the scene has no active rigid bodies")
        self.assertTrue(any(m.type == "COLLISION" for obj in scene.objects for m in obj.modifiers))
        self.assertTrue(any(obj.rigid_body and obj.rigid_body.type == "PASSIVE" for obj in scene.objects))
        start_z = {obj.name: obj.matrix_world.translation.z for obj in falling}
        bake_op()
        # Blender's own simulation is off while the bake is in place
        self.assertFalse(any(m.type == "CLOTH" and (m.show_viewport or m.show_render) for m in cloth.modifiers))
        self.assertTrue(all(obj.rigid_body.kinematic for obj in falling))
        self.assertIn("SimBake", [m.name for m in cloth.modifiers])
        # plays back: the bodies fall, the cloth settles and stays above the floor
        scene.frame_set(scene.simbake.frame_end)
        for obj in falling:
            self.assertLess(obj.matrix_world.translation.z, start_z[obj.name] - 0.1, f"{obj.name} did not fall")
        positions = blender_test.world_vertices(cloth)
        lowest = min(positions[2::3])
        self.assertGreater(lowest, 0.0, "the cloth went through the floor")
        # and plays back the same after saving and opening the file again
        bpy.ops.wm.save_mainfile()
        bpy.ops.wm.open_mainfile(filepath=bpy.data.filepath)
        scene = bpy.context.scene
        scene.frame_set(scene.simbake.frame_end)
        reopened = blender_test.world_vertices(bpy.data.objects[cloth_name])
        self.assertLess(max(abs(a - b) for a, b in zip(positions, reopened)), 1e-5)


blender_test.main()
