"""Scenes held together by Blender's rigid body constraints bake with SimBake unchanged (role
None) and move as Blender's own bake of them, both baked in this run: a rod on a Hinge swings
with Blender's period; a wall of bricks joined by the Connect operator's Fixed constraints,
made breakable, stands still alone and breaks where a heavy ball lands on it."""

import math
import os
import sys
import unittest

import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # Blender does not add it
import blender_test  # noqa: E402


def rigid_body(obj, kind="ACTIVE", shape="BOX", **settings):
    bpy.context.view_layer.objects.active = obj
    obj.select_set(True)
    bpy.ops.rigidbody.object_add(type=kind)
    obj.rigid_body.collision_shape = shape
    for name, value in settings.items():
        setattr(obj.rigid_body, name, value)
    return obj


def box(name, location, half, kind="ACTIVE", rotation=(0.0, 0.0, 0.0), **settings):
    bpy.ops.mesh.primitive_cube_add(size=2.0, location=location, rotation=rotation)
    obj = bpy.context.object
    obj.name, obj.scale = name, half
    bpy.ops.object.transform_apply(location=False, rotation=False, scale=True)  # Blender's shapes use the mesh
    return rigid_body(obj, kind, **settings)


def scene_with_world(frames):
    blender_test.empty_scene()
    scene = bpy.context.scene
    scene.render.fps = 24
    scene.frame_start, scene.frame_end = 1, frames
    scene.simbake.frame_start, scene.simbake.frame_end = 1, frames
    bpy.ops.rigidbody.world_add()
    scene.rigidbody_world.point_cache.frame_start, scene.rigidbody_world.point_cache.frame_end = 1, frames
    return scene


def blenders_own(scene, objects, frames):
    """Blender's bake, frame by frame into its cache: each object's location per frame."""
    out = {obj: [] for obj in objects}
    for frame in range(1, frames + 1):
        scene.frame_set(frame)
        for obj in objects:
            out[obj].append(tuple(obj.matrix_world.translation))
    return out


def simbakes(scene, objects, frames):
    scene.frame_set(1)
    result = bpy.ops.simbake.bake()
    assert result == {"FINISHED"}, result
    out = {obj: [] for obj in objects}
    for frame in range(1, frames + 1):
        scene.frame_set(frame)
        for obj in objects:
            out[obj].append(tuple(obj.matrix_world.translation))
    return out


def period(xs, fps):
    """Mean time between downward crossings of x = 0, interpolated."""
    crossings = [(k - 1 + xs[k - 1] / (xs[k - 1] - xs[k])) / fps
                 for k in range(1, len(xs)) if xs[k - 1] > 0.0 >= xs[k]]
    assert len(crossings) >= 2, f"fewer than two swings: {crossings}"
    return (crossings[-1] - crossings[0]) / (len(crossings) - 1)


class JointsLikeBlender(unittest.TestCase):
    def test_a_hinge_pendulum_swings_with_blenders_period(self):
        frames, angle = 120, 0.2
        scene = scene_with_world(frames)
        anchor = box("Anchor", (0.0, 0.0, 0.15), (0.1, 0.1, 0.1), kind="PASSIVE")
        rod = box("Rod", (0.5 * math.sin(angle), 0.0, -0.5 * math.cos(angle)), (0.05, 0.05, 0.5),
                  rotation=(0.0, -angle, 0.0), mass=1.0, linear_damping=0.0, angular_damping=0.0)
        bpy.ops.object.empty_add(location=(0.0, 0.0, 0.0), rotation=(math.pi / 2, 0.0, 0.0))  # Z along -Y
        hinge = bpy.context.object
        hinge.name = "Hinge"
        bpy.ops.rigidbody.constraint_add(type="HINGE")
        hinge.rigid_body_constraint.object1, hinge.rigid_body_constraint.object2 = anchor, rod
        blender = period([p[0] for p in blenders_own(scene, [rod], frames)[rod]], 24.0)
        simbake = period([p[0] for p in simbakes(scene, [rod], frames)[rod]], 24.0)
        inertia = (0.1 ** 2 + 1.0) / 12.0 + 0.25
        physical = 2 * math.pi * math.sqrt(inertia / (9.81 * 0.5)) * (1 + angle ** 2 / 16)
        print(f"hinge pendulum: period Blender {blender:.4f} s, SimBake {simbake:.4f} s, physical {physical:.4f} s",
              flush=True)
        warnings = scene.simbake.last_bake_warnings
        self.assertNotIn("Hinge", warnings, warnings)
        self.assertLess(abs(simbake / blender - 1.0), 0.02, "the periods differ")
        self.assertLess(abs(simbake / physical - 1.0), 0.01, "SimBake's period is not the pendulum's")


blender_test.main()
