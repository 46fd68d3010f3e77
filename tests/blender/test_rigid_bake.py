"""Rigid bodies baked in real headless Blender from a scene set up with Blender's rigid body
world (active and passive, animated) and SimBake's own role: the evaluated world matrices
equal the solver's transforms, keys follow each rotation mode and the parent's space, and
free_bake restores the scene exactly."""

import math
import os
import sys
import tempfile
import unittest
from array import array

import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # Blender does not add it
import blender_test  # noqa: E402
from simbake import bake, checkpoint, keyframes, outputs  # noqa: E402

START, END = 1, 48


def build_scene():
    blender_test.empty_scene()
    scene = bpy.context.scene
    scene.simbake.frame_start, scene.simbake.frame_end = START, END
    bpy.ops.rigidbody.world_add()
    bpy.ops.mesh.primitive_plane_add(size=20)
    blender_test.rigid_body(bpy.context.object, "PASSIVE", "BOX", friction=0.8)  # a flat box: the ground

    bpy.ops.mesh.primitive_cube_add(size=0.5, location=(0, 0, 1.5), rotation=(0.3, 0.2, 0.1))
    cube = blender_test.rigid_body(bpy.context.object, shape="BOX", mass=2.0, restitution=0.3)
    cube.name = "Cube"
    if bpy.app.version >= (4, 4, 0):  # it plays the second slot of its action: a bake and Free Bake keep that slot
        shared = bpy.data.actions.new("Shared")
        shared.slots.new(id_type="OBJECT", name="Decoy")
        cube.animation_data_create().action = shared
        cube.animation_data.action_slot = shared.slots.new(id_type="OBJECT", name="Cube")
    cube.color = (1, 0, 0, 1)  # its own animation of something else plays on under the bake
    cube.keyframe_insert("color", frame=1)
    cube.color = (0, 0, 1, 1)
    cube.keyframe_insert("color", frame=40)

    bpy.ops.object.empty_add(location=(1.5, 0.5, 0.2), rotation=(0, 0, 0.7))
    parent = bpy.context.object
    parent.name = "Parent"
    parent.scale = (2.0, 2.0, 2.0)
    bpy.ops.mesh.primitive_uv_sphere_add(radius=0.3, location=(2.0, 1.0, 2.5))
    ball = blender_test.rigid_body(bpy.context.object, shape="SPHERE")
    ball.name = "Ball"
    ball.rotation_mode = "QUATERNION"
    ball.parent = parent
    ball.matrix_parent_inverse = parent.matrix_world.inverted()

    bpy.ops.mesh.primitive_ico_sphere_add(radius=0.35, location=(-1.5, 0.3, 1.0))
    rock = blender_test.rigid_body(bpy.context.object, shape="CONVEX_HULL")
    rock.name = "Rock"
    rock.rotation_mode = "AXIS_ANGLE"

    bpy.ops.mesh.primitive_cube_add(size=0.4, location=(-2.0, -2.0, 0.6))
    thrown = bpy.context.object
    thrown.name = "Thrown"
    thrown.rotation_mode = "ZXY"
    thrown.simbake.role = "RIGID"
    thrown.simbake.shape = "BOX"
    thrown.simbake.initial_velocity = (2.0, 0.0, 3.0)
    thrown.simbake.initial_angular_velocity = (0.0, 5.0, 1.0)

    bpy.ops.mesh.primitive_cube_add(size=0.6, location=(3.0, -3.0, 0.3))
    pusher = blender_test.rigid_body(bpy.context.object, "PASSIVE", "BOX", kinematic=True)
    pusher.name = "Pusher"
    pusher.keyframe_insert("location", frame=1)
    pusher.location.x = -3.0
    pusher.keyframe_insert("location", frame=40)
    scene.frame_set(START)
    return scene


def state(obj):
    """What free_bake must put back, beyond the world matrix."""
    anim = obj.animation_data
    rb = obj.rigid_body
    return {"action": blender_test.playing(obj), "animation_data": anim is not None,
            "mode": obj.rotation_mode, "location": tuple(obj.location), "euler": tuple(obj.rotation_euler),
            "quaternion": tuple(obj.rotation_quaternion), "axis_angle": tuple(obj.rotation_axis_angle),
            "rigid_body": blender_test.rna_values(rb) if rb else None,
            "actions": sorted((a.name, a.users, a.use_fake_user) for a in bpy.data.actions),
            "matrix": [tuple(row) for row in obj.matrix_world]}


class RigidBake(unittest.TestCase):
    def setUp(self):
        self.scene = build_scene()
        self.moving = [bpy.data.objects[name] for name in ("Cube", "Ball", "Rock", "Thrown")]

    def bake(self):
        job = bake.Bake(bpy.context, bake.bakeable_objects(self.scene))
        job.run()
        return job

    def test_evaluated_matrices_are_the_solvers_transforms(self):
        job = self.bake()
        self.assertEqual(sorted(j.obj.name for j in job.rigid_jobs), sorted(o.name for o in self.moving))
        self.assertIn("Pusher", [o.obj.name for o in job.obstacles])
        for rigid in job.rigid_jobs:
            expected = rigid.world_matrices()
            self.assertEqual(len(expected), END - START + 1)
            for frame in (START, 2, 17, 33, END):
                self.scene.frame_set(frame)
                m = rigid.obj.matrix_world
                worst = max(abs(m[r][c] - expected[frame - START][4 * r + c]) for r in range(4) for c in range(4))
                self.assertLess(worst, 1e-5, f"{rigid.obj.name} frame {frame}: {worst:g} off the solver")

    def test_keys_are_linear_per_frame_in_each_rotation_mode_with_blenders_sim_off(self):
        self.bake()
        paths = {"Cube": "rotation_euler", "Ball": "rotation_quaternion", "Rock": "rotation_axis_angle",
                 "Thrown": "rotation_euler"}
        for obj in self.moving:
            curves = {(c.data_path, c.array_index): c for c in blender_test.fcurves(obj)}
            for index in range(4 if paths[obj.name] != "rotation_euler" else 3):
                curve = curves[(paths[obj.name], index)]
                self.assertEqual(len(curve.keyframe_points), END - START + 1)
                self.assertTrue(all(k.interpolation == "LINEAR" for k in curve.keyframe_points))
            self.assertIn(("location", 2), curves)
            if obj.rigid_body:
                self.assertTrue(obj.rigid_body.kinematic, f"{obj.name}: Blender's simulation is still on")
        # the cube's other animation plays on; the falling bodies ended on the ground
        self.assertIn(("color", 0), {(c.data_path, c.array_index) for c in blender_test.fcurves(bpy.data.objects["Cube"])})
        self.scene.frame_set(END)
        self.assertAlmostEqual(bpy.data.objects["Cube"].matrix_world.translation.z, 0.25, delta=0.01)
        self.assertAlmostEqual(bpy.data.objects["Cube"].color[2], 1.0, places=5)

    def test_quaternion_keys_keep_their_sign(self):
        self.bake()
        curves = [c for c in blender_test.fcurves(bpy.data.objects["Ball"])
                  if c.data_path == "rotation_quaternion"]
        for curve in curves:
            values = [k.co[1] for k in curve.keyframe_points]
            self.assertLess(max(abs(a - b) for a, b in zip(values, values[1:])), 0.5)

    def test_free_bake_restores_the_scene_exactly(self):
        for frame in (START,):
            self.scene.frame_set(frame)
        before = {obj.name: state(obj) for obj in self.scene.objects}
        self.bake()
        self.assertTrue(all(outputs.is_baked(obj) for obj in self.moving))
        self.assertEqual(bpy.ops.simbake.free_bake(), {"FINISHED"})
        self.scene.frame_set(START)
        after = {obj.name: state(obj) for obj in self.scene.objects}
        for name in before:
            self.assertEqual(before[name], after[name], name)

    def test_baking_again_replaces_the_bake_with_the_same_result(self):
        first = {job.obj.name: job.world_matrices()[-1] for job in self.bake().rigid_jobs}
        actions = sorted(a.name for a in bpy.data.actions)
        self.assertEqual(bpy.ops.simbake.bake(), {"FINISHED"})
        self.assertEqual(sorted(a.name for a in bpy.data.actions), actions)
        second = {job.obj.name: job.world_matrices()[-1] for job in self.bake().rigid_jobs}
        for name in first:
            self.assertLess(max(abs(a - b) for a, b in zip(first[name], second[name])), 1e-12, name)

    def test_keys_are_the_same_with_numpy_and_frame_by_frame(self):
        """The numpy conversion (every body at once) writes the keys the per-frame one (the
        path without numpy) writes, in every rotation mode, with delta transforms and under
        a parent."""
        self.assertIsNotNone(keyframes.rigid_channels, "numpy is missing: the test would compare a path with itself")
        cube = bpy.data.objects["Cube"]
        cube.delta_location, cube.delta_rotation_euler, cube.delta_scale = (0.1, 0, 0), (0.2, -0.1, 0.4), (1, 2, 1)
        bpy.data.objects["Ball"].delta_rotation_quaternion = (0.9, 0.1, 0.3, 0.0)

        def keys():
            self.bake()
            out = {}
            for obj in self.moving:
                for curve in blender_test.fcurves(obj):
                    if curve.data_path in keyframes.TRANSFORM_PATHS:
                        co = array("f", bytes(8 * len(curve.keyframe_points)))
                        curve.keyframe_points.foreach_get("co", co)
                        out[obj.name, curve.data_path, curve.array_index] = co
            return out

        with_numpy = keys()
        numpy_module, keyframes.rigid_channels = keyframes.rigid_channels, None
        try:
            frame_by_frame = keys()
        finally:
            keyframes.rigid_channels = numpy_module
        self.assertEqual(sorted(with_numpy), sorted(frame_by_frame))
        self.assertEqual(len(with_numpy), 4 * 3 + 3 + 4 + 4 + 3)
        for channel, co in with_numpy.items():
            self.assertEqual(co[0::2], frame_by_frame[channel][0::2], channel)  # the frames
            worst = max(abs(a - b) for a, b in zip(co[1::2], frame_by_frame[channel][1::2]))
            self.assertLess(worst, 1e-5, f"{channel}: keys differ by {worst:g}")  # float32 keys: a few ulps

    def test_copied_actions_hold_the_keys_of_actions_made_curve_by_curve(self):
        """Bodies with no action of their own and the same channels get copies of the first
        one's action with their own values written (keyframes.apply's `made`): every key of
        every curve, its handles (set again for the new values), interpolation and handle
        types, each action's name, slot, users and fake user are those of a bake that makes
        every curve anew."""
        for k in range(3):  # more ZXY bodies with no action: copies of Thrown's
            bpy.ops.mesh.primitive_cube_add(size=0.4, location=(-2.0 + 0.8 * k, 2.0, 0.6 + 0.3 * k),
                                            rotation=(0.2 * k, 0.1, 0.3))
            extra = bpy.context.object
            extra.name, extra.rotation_mode, extra.simbake.role = f"Extra{k}", "ZXY", "RIGID"
            extra.simbake.initial_angular_velocity = (1.0 + k, 0.0, 2.0)
        self.scene.frame_set(START)
        copies = []
        apply = keyframes.apply

        def keys():
            self.bake()
            out = {}
            for obj in self.scene.objects:
                if obj.animation_data is None or obj.animation_data.action is None or obj.name == "Pusher":
                    continue
                action = obj.animation_data.action
                out[obj.name] = [blender_test.playing(obj), action.users, action.use_fake_user]
                for curve in blender_test.fcurves(obj):
                    points = curve.keyframe_points
                    for name in ("co", "handle_left", "handle_right"):
                        values = array("f", bytes(8 * len(points)))
                        points.foreach_get(name, values)
                        out[obj.name].append((curve.data_path, curve.array_index, name, values.tobytes()))
                    out[obj.name].append([(p.interpolation, p.handle_left_type, p.handle_right_type) for p in points])
                    out[obj.name].append((curve.group.name if curve.group else None, curve.extrapolation))
            return out

        def counted(obj, values, record, made=None):
            copies.append(made is not None and (tuple(values), len(values["location"][0]) // 2) in made)
            return apply(obj, values, record, made)

        keyframes.apply = counted
        try:
            copied = keys()
            self.assertEqual(copies.count(True), 3, "Extra0-2 are copies of Thrown's action")
            keyframes.apply = lambda obj, values, record, made=None: apply(obj, values, record)
            anew = keys()
        finally:
            keyframes.apply = apply
        self.assertEqual(sorted(copied), sorted(anew))
        for name in anew:
            self.assertEqual(copied[name], anew[name], name)

    def test_a_bake_paused_at_checkpoints_and_resumed_keeps_every_frame(self):
        """Each frame's motion is kept for all bodies at once and handed to them when a
        checkpoint is saved (and at the end): a bake saving checkpoints every 10 frames,
        stopped at frame 25 and resumed from there has the frames of a bake straight through."""
        straight = {job.obj.name: job.world_matrices() for job in self.bake().rigid_jobs}
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "bake.checkpoint")
            job = bake.Bake(bpy.context, bake.bakeable_objects(self.scene), checkpoints=checkpoint.Plan(path, 10, 25))
            with self.assertRaises(bake.BakePaused):
                job.run()
            self.assertEqual({len(j.displacements) // 16 for j in job.rigid_jobs}, {25 - START + 1})
            job = bake.Bake(bpy.context, bake.bakeable_objects(self.scene), checkpoints=checkpoint.Plan(path, 10),
                            resume=True)
            job.run()
            self.assertEqual(job.resumed_at, 25)
        for rigid in job.rigid_jobs:
            resumed = rigid.world_matrices()
            self.assertEqual(len(resumed), END - START + 1)
            worst = max(abs(a - b) for m, n in zip(resumed, straight[rigid.obj.name]) for a, b in zip(m, n))
            self.assertLess(worst, 1e-9, f"{rigid.obj.name}: the resumed bake is {worst:g} off the straight one")

    def test_a_bad_setting_names_the_object_and_changes_nothing(self):
        rock = bpy.data.objects["Rock"]
        before = state(rock)
        rock.rigid_body.collision_shape = "MESH"  # a warning, not an error
        rock.rigid_body.collision_shape = "CONVEX_HULL"
        thrown = bpy.data.objects["Thrown"]
        thrown.data.vertices.foreach_set("co", [0.0] * 3 * len(thrown.data.vertices))  # no volume
        thrown.data.update()
        with self.assertRaises(bake.BakeError) as caught:
            self.bake()
        self.assertIn("Thrown", str(caught.exception))
        self.assertEqual(state(rock), before)
        self.assertFalse(any(outputs.is_baked(obj) for obj in self.moving))


if __name__ == "__main__":
    blender_test.main()
