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
        print(f"hinge pendulum: period Blender {blender:.5f} s, SimBake {simbake:.5f} s, physical {physical:.5f} s",
              flush=True)
        warnings = scene.simbake.last_bake_warnings
        self.assertNotIn("Hinge", warnings, warnings)
        self.assertLess(abs(simbake / blender - 1.0), 0.02, "the periods differ")
        self.assertLess(abs(simbake / physical - 1.0), 0.01, "SimBake's period is not the pendulum's")


    def wall(self, frames, ball):
        """A 10 x 5 wall of 0.4 x 0.2 x 0.2 m bricks on the ground, joined by Connect (Fixed,
        Chain by Distance) and made breakable (5 N·s), and maybe a 20 kg ball dropped on its middle:
        how far each brick moved by the end, in Blender's bake and in SimBake's."""
        scene = scene_with_world(frames)
        box("Ground", (0.0, 0.0, -0.5), (5.0, 5.0, 0.5), kind="PASSIVE")
        bricks = [box(f"Brick{row}.{column}", (-1.8 + 0.4 * column, 0.0, 0.1 + 0.2 * row), (0.2, 0.1, 0.1),
                      mass=1.0) for row in range(5) for column in range(10)]
        bpy.ops.object.select_all(action="DESELECT")
        for brick in bricks:
            brick.select_set(True)
        bpy.context.view_layer.objects.active = bricks[0]
        bpy.ops.rigidbody.connect(con_type="FIXED", pivot_type="CENTER", connection_pattern="CHAIN_DISTANCE")
        constraints = list(scene.rigidbody_world.constraints.all_objects)
        self.assertEqual(len(constraints), len(bricks) - 1)
        for empty in constraints:
            empty.rigid_body_constraint.use_breaking = True
            empty.rigid_body_constraint.breaking_threshold = 5.0
        moving = list(bricks)
        if ball:
            bpy.ops.mesh.primitive_uv_sphere_add(radius=0.3, location=(0.0, 0.0, 2.5))
            moving.append(rigid_body(bpy.context.object, shape="SPHERE", mass=20.0))
        start = [tuple(brick.matrix_world.translation) for brick in bricks]
        blender, simbake = blenders_own(scene, bricks, frames), simbakes(scene, moving, frames)
        self.assertNotIn("Constraint", scene.simbake.last_bake_warnings, scene.simbake.last_bake_warnings)
        return [[math.dist(run[brick][-1], start[k]) for k, brick in enumerate(bricks)] for run in (blender, simbake)]

    def test_a_connected_wall_stands_alone(self):
        blender, simbake = self.wall(48, ball=False)
        print(f"wall alone, 2 s: bricks moved at most {max(blender) * 1000:.2f} mm in Blender's bake, "
              f"{max(simbake) * 1000:.2f} mm in SimBake's", flush=True)
        self.assertLess(max(blender), 0.005, "Blender's wall does not stand: not the scene meant")
        self.assertLess(max(simbake), 0.005, "SimBake's wall does not stand")

    def test_a_connected_wall_breaks_where_a_heavy_ball_hits_it(self):
        blender, simbake = self.wall(36, ball=True)
        # knocked out: moved 5 cm more than the wall's median brick (the rest may slide as a piece)
        out = [[k for k, d in enumerate(run) if d > sorted(run)[len(run) // 2] + 0.05] for run in (blender, simbake)]
        columns = [sorted({k % 10 for k in run}) for run in out]
        rows = [sorted({k // 10 for k in run}) for run in out]
        print(f"wall hit by a ball: {len(out[0])} bricks knocked out in Blender's bake (columns {columns[0]}, rows "
              f"{rows[0]}), {len(out[1])} in SimBake's (columns {columns[1]}, rows {rows[1]})", flush=True)
        self.assertTrue(0 < len(out[0]) < 25, "Blender's wall did not break in part: not the scene meant")
        self.assertTrue(0 < len(out[1]) < 25, "SimBake's wall did not break in part")
        for found in columns:  # under the ball: between columns 4 and 5
            self.assertTrue(set(found) <= {3, 4, 5, 6}, f"bricks knocked out away from the ball: columns {found}")
        self.assertIn(4, rows[1], "SimBake's top row held")


blender_test.main()
