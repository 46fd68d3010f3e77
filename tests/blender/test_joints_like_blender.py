"""Scenes held together by Blender's rigid body constraints bake with SimBake unchanged (role
None) and move as Blender's own bake of them, both baked in this run: a rod on a Hinge swings
with Blender's period; a wall of bricks joined by the Connect operator's Fixed constraints,
made breakable, stands still alone and breaks where a wrecking ball hits it; a Motor spins a
wheel up as Blender's does."""

import math
import os
import sys
import unittest

import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # Blender does not add it
import blender_test  # noqa: E402


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


def turns(scene, obj, frames, bake):
    """The object's rotation about world X at each frame (unwrapped), after Blender's bake or
    SimBake's."""
    if bake:
        scene.frame_set(1)
        result = bpy.ops.simbake.bake()
        assert result == {"FINISHED"}, result
    angles = []
    for frame in range(1, frames + 1):
        scene.frame_set(frame)
        y_axis = obj.matrix_world.col[1]
        angle = math.atan2(y_axis[2], y_axis[1])
        if angles:
            angle += 2 * math.pi * round((angles[-1] - angle) / (2 * math.pi))
        angles.append(angle)
    return angles


def period(xs, fps):
    """Mean time between downward crossings of x = 0, interpolated."""
    crossings = [(k - 1 + xs[k - 1] / (xs[k - 1] - xs[k])) / fps
                 for k in range(1, len(xs)) if xs[k - 1] > 0.0 >= xs[k]]
    assert len(crossings) >= 2, f"fewer than two swings: {crossings}"
    return (crossings[-1] - crossings[0]) / (len(crossings) - 1)


class JointsLikeBlender(unittest.TestCase):
    def test_a_hinge_pendulum_swings_with_blenders_period(self):
        frames, angle = 120, 0.2
        scene = blender_test.rigid_scene(frames)
        anchor = blender_test.box("Anchor", (0.0, 0.0, 0.15), (0.1, 0.1, 0.1), kind="PASSIVE")
        rod = blender_test.box("Rod", (0.5 * math.sin(angle), 0.0, -0.5 * math.cos(angle)), (0.05, 0.05, 0.5),
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


    def test_a_motor_spins_a_wheel_as_blenders_does(self):
        frames = 24
        scene = blender_test.rigid_scene(frames)
        scene.use_gravity = False
        anchor = blender_test.box("Anchor", (-0.5, 0.0, 0.0), (0.1, 0.1, 0.1), kind="PASSIVE")
        wheel = blender_test.box("Wheel", (0.0, 0.0, 0.0), (0.05, 0.3, 0.3), mass=1.0, linear_damping=0.0, angular_damping=0.0)
        bpy.ops.object.empty_add(location=(0.0, 0.0, 0.0))
        motor = bpy.context.object
        motor.name = "Motor"
        bpy.ops.rigidbody.constraint_add(type="MOTOR")
        settings = motor.rigid_body_constraint
        settings.object1, settings.object2 = wheel, anchor
        settings.use_motor_ang, settings.motor_ang_target_velocity, settings.motor_ang_max_impulse = True, 5.0, 1.0
        blender = turns(scene, wheel, frames, bake=False)
        simbake = turns(scene, wheel, frames, bake=True)
        speeds = [(run[-1] - run[-2]) * 24.0 for run in (blender, simbake)]
        print(f"motor: wheel at {speeds[0]:.3f} rad/s in Blender's bake, {speeds[1]:.3f} in SimBake's; turned "
              f"{blender[6]:.3f} rad by frame 7 in Blender's, {simbake[6]:.3f} in SimBake's", flush=True)
        self.assertNotIn("Motor", scene.simbake.last_bake_warnings, scene.simbake.last_bake_warnings)
        self.assertLess(abs(speeds[1] - speeds[0]), 0.05 * abs(speeds[0]), "the wheels spin at different speeds")
        self.assertLess(abs(simbake[6] - blender[6]), 0.1 * abs(blender[6]), "the wheels spin up differently")

    def wall(self, frames, ball):
        """A 10 x 5 wall of 0.4 x 0.2 x 0.2 m bricks on the ground, joined by Connect (Fixed,
        Chain by Distance) and made breakable (2 N·s), and maybe an 80 kg wrecking ball swung into
        its middle: how far each brick moved by the end and how far each joined pair came apart,
        in Blender's bake and in SimBake's, and the pairs (brick indices, row-major)."""
        scene = blender_test.rigid_scene(frames)
        blender_test.box("Ground", (0.0, 0.0, -0.5), (5.0, 5.0, 0.5), kind="PASSIVE")
        bricks = [blender_test.box(f"Brick{row}.{column}", (-1.8 + 0.4 * column, 0.0, 0.1 + 0.2 * row), (0.2, 0.1, 0.1),
                      mass=1.0) for row in range(5) for column in range(10)]
        bpy.ops.object.select_all(action="DESELECT")
        for brick in bricks:
            brick.select_set(True)
        bpy.context.view_layer.objects.active = bricks[0]
        bpy.ops.rigidbody.connect(con_type="FIXED", pivot_type="CENTER", connection_pattern="CHAIN_DISTANCE")
        constraints = list(scene.rigidbody_world.constraints.all_objects)
        self.assertEqual(len(constraints), len(bricks) - 1)
        for empty in constraints:  # (the wrecking ball's is not breakable)
            empty.rigid_body_constraint.use_breaking = True
            empty.rigid_body_constraint.breaking_threshold = 2.0
        moving = list(bricks)
        if ball:  # a wrecking ball on a Point constraint, 2.4 m below its pivot, let go at 60°
            pivot, length, angle = (0.0, -0.4, 3.0), 2.4, math.radians(60)
            anchor = blender_test.box("Crane", (pivot[0], pivot[1], pivot[2] + 0.15), (0.1, 0.1, 0.1), kind="PASSIVE")
            bpy.ops.mesh.primitive_uv_sphere_add(radius=0.3, location=(
                pivot[0], pivot[1] - length * math.sin(angle), pivot[2] - length * math.cos(angle)))
            moving.append(blender_test.rigid_body(bpy.context.object, shape="SPHERE",
                                     mass=80.0))
            bpy.ops.object.empty_add(location=pivot)
            bpy.ops.rigidbody.constraint_add(type="POINT")
            bpy.context.object.rigid_body_constraint.object1 = anchor
            bpy.context.object.rigid_body_constraint.object2 = moving[-1]
        pairs = [(empty.rigid_body_constraint.object1, empty.rigid_body_constraint.object2) for empty in constraints]
        start = {brick: tuple(brick.matrix_world.translation) for brick in bricks}
        blender, simbake = blenders_own(scene, bricks, frames), simbakes(scene, moving, frames)
        self.assertNotIn("Constraint", scene.simbake.last_bake_warnings, scene.simbake.last_bake_warnings)
        moved = [[math.dist(run[brick][-1], start[brick]) for brick in bricks] for run in (blender, simbake)]
        # how far each joined pair came apart: their distance now against then
        apart = [[abs(math.dist(run[a][-1], run[b][-1]) - math.dist(start[a], start[b])) for a, b in pairs]
                 for run in (blender, simbake)]
        return moved, apart, [(bricks.index(a), bricks.index(b)) for a, b in pairs]

    def test_a_connected_wall_stands_alone(self):
        (blender, simbake), _, _ = self.wall(48, ball=False)
        print(f"wall alone, 2 s: bricks moved at most {max(blender) * 1000:.2f} mm in Blender's bake, "
              f"{max(simbake) * 1000:.2f} mm in SimBake's", flush=True)
        self.assertLess(max(blender), 0.005, "Blender's wall does not stand: not the scene meant")
        self.assertLess(max(simbake), 0.005, "SimBake's wall does not stand")

    def test_a_connected_wall_breaks_where_a_wrecking_ball_hits_it(self):
        _, apart, pairs = self.wall(36, ball=True)
        broken = [[pairs[k] for k, d in enumerate(run) if d > 0.02] for run in apart]  # came 2 cm apart
        where = [sorted({(k % 10, k // 10) for pair in run for k in pair}) for run in broken]
        print(bpy.context.scene.simbake.last_bake_message, flush=True)
        print(f"wall hit by a wrecking ball: {len(broken[0])} of {len(pairs)} joined pairs came apart in Blender's "
              f"bake, {len(broken[1])} in SimBake's; bricks (column, row) of those pairs: Blender {where[0]}, "
              f"SimBake {where[1]}", flush=True)
        self.assertTrue(0 < len(broken[0]) < len(pairs) // 2, "Blender's wall did not break in part: not the scene meant")
        self.assertTrue(0 < len(broken[1]) < len(pairs) // 2, "SimBake's wall did not break in part")
        for found in where:  # where the ball hits: the middle columns, the upper rows
            self.assertTrue(all(2 <= column <= 7 and row >= 1 for column, row in found),
                            f"pairs came apart away from the ball: {found}")
        self.assertLessEqual(abs(len(broken[1]) - len(broken[0])), max(3, len(broken[0]) // 2),
                             "the walls broke by very different amounts")
        message = bpy.context.scene.simbake.last_bake_message
        self.assertIn("rigid body constraint(s) broke", message)  # the bake says which, and when
        self.assertGreaterEqual(int(message.split("; ")[1].split()[0]), len(broken[1]), message)


blender_test.main()
