"""Cylinder and Cone shapes against Blender's own bake in the same run. A cylinder mesh with
Blender's Cylinder shape laid across a 15° slope rolls down it: SimBake's covers the distance of
a rolling solid cylinder, ½ (2/3) g sin θ t², its centre one radius off the slope and its axis
level; Blender's (Bullet's btCylinderShapeZ, the exact cylinder inertia) is reported beside it.
A cone mesh with Blender's Cone shape lying on its side on the same slope, its apex at the
origin, rolls round its apex like a pendulum: SimBake's apex stays within a few millimetres of
where it was while the cone turns; Blender's (whose cone has its centre of mass at half height,
Bullet's btConeShapeZ, not a quarter of the height above the base) is reported beside it."""

import math
import os
import sys
import unittest

import bpy
from mathutils import Matrix, Vector

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # Blender does not add it
import blender_test  # noqa: E402

FRAMES, FPS = 24, 24
SLOPE = math.radians(15.0)
RADIUS, DEPTH = 0.2, 0.6


def scene_with_slope():
    scene = blender_test.rigid_scene(FRAMES, FPS)
    blender_test.rigid_slope(SLOPE)
    return scene


def cylinder_motion(scene, cylinder):
    """Per frame: distance travelled, height of the centre above the slope, the axis' z."""
    out = []
    start = cylinder.matrix_world.translation.copy()
    normal = Vector((math.sin(SLOPE), 0.0, math.cos(SLOPE)))
    for frame in range(1, FRAMES + 1):
        scene.frame_set(frame)
        m = cylinder.matrix_world
        out.append(((m.translation - start).length, m.translation.dot(normal), m.col[2].xyz.normalized().z))
    return out


def cone_motion(scene, cone):
    """Per frame: the apex's distance from the origin (where it was put) and the cone's turn
    about the slope's normal, in degrees."""
    out = []
    normal = Vector((math.sin(SLOPE), 0.0, math.cos(SLOPE)))
    start_axis = None
    for frame in range(1, FRAMES + 1):
        scene.frame_set(frame)
        m = cone.matrix_world
        apex = m @ Vector((0.0, 0.0, 0.5 * DEPTH))
        axis = m.col[2].xyz.normalized()
        axis = (axis - normal * axis.dot(normal)).normalized()  # in the slope's plane
        start_axis = start_axis or axis
        out.append((apex.length, math.degrees(math.atan2(start_axis.cross(axis).dot(normal), start_axis.dot(axis)))))
    return out


class CylinderConeLikeBlender(unittest.TestCase):
    def test_a_cylinder_rolls_down_a_slope_like_a_cylinder(self):
        scene = scene_with_slope()
        bpy.ops.mesh.primitive_cylinder_add(radius=RADIUS, depth=DEPTH, vertices=32,
                                            location=(RADIUS * math.sin(SLOPE), 0.0, RADIUS * math.cos(SLOPE)),
                                            rotation=(math.pi / 2, 0.0, 0.0))
        cylinder = blender_test.rigid_body(bpy.context.object, shape="CYLINDER", mass=3.0, friction=1.0,
                                           linear_damping=0.0, angular_damping=0.0)
        cylinder.name = "Cylinder"
        blender = cylinder_motion(scene, cylinder)
        scene.frame_set(1)
        self.assertEqual(bpy.ops.simbake.bake(), {"FINISHED"})
        self.assertNotIn("Cylinder", scene.simbake.last_bake_warnings, scene.simbake.last_bake_warnings)
        simbake = cylinder_motion(scene, cylinder)
        seconds = (FRAMES - 1) / FPS
        rolled = 0.5 * 2 / 3 * 9.81 * math.sin(SLOPE) * seconds ** 2
        print(f"cylinder on a 15° slope after {seconds:.3f} s: a rolling cylinder {rolled:.4f} m; SimBake "
              f"{simbake[-1][0]:.4f} m ({100 * (simbake[-1][0] / rolled - 1):+.2f}%), Blender {blender[-1][0]:.4f} m "
              f"({100 * (blender[-1][0] / rolled - 1):+.2f}%); SimBake's centre {min(r[1] for r in simbake):.4f}.."
              f"{max(r[1] for r in simbake):.4f} m off the slope, axis z within {max(abs(r[2]) for r in simbake):.2e}",
              flush=True)
        self.assertLess(abs(simbake[-1][0] / rolled - 1), 0.01, "SimBake's cylinder does not roll as a cylinder")
        for _, height, axis_z in simbake:
            self.assertLess(abs(height - RADIUS), 1e-3, "the cylinder left its side")
            self.assertLess(abs(axis_z), 1e-3, "the cylinder turned off its axis")

    def test_a_cone_on_its_side_rolls_round_its_apex(self):
        scene = scene_with_slope()
        # lying on its side across the slope: its apex at the origin, the line it touches along +y
        alpha = math.atan(RADIUS / DEPTH)
        slope_turn = Matrix.Rotation(SLOPE, 3, "Y")
        to_base = slope_turn @ Vector((0.0, math.cos(alpha), math.sin(alpha)))
        bpy.ops.mesh.primitive_cone_add(radius1=RADIUS, radius2=0.0, depth=DEPTH, vertices=32,
                                        location=to_base * (0.5 * DEPTH))
        cone = bpy.context.object
        cone.rotation_mode = "QUATERNION"
        cone.rotation_quaternion = (-to_base).to_track_quat("Z", "Y")
        blender_test.rigid_body(cone, shape="CONE", mass=2.0, friction=1.0, linear_damping=0.0, angular_damping=0.0)
        cone.name = "Cone"
        bpy.context.view_layer.update()
        blender = cone_motion(scene, cone)
        scene.frame_set(1)
        self.assertEqual(bpy.ops.simbake.bake(), {"FINISHED"})
        self.assertNotIn("Cone", scene.simbake.last_bake_warnings, scene.simbake.last_bake_warnings)
        simbake = cone_motion(scene, cone)
        print(f"cone on its side on a 15° slope after {(FRAMES - 1) / FPS:.3f} s: SimBake turned "
              f"{simbake[-1][1]:.1f}° round its apex, the apex at most {1000 * max(r[0] for r in simbake):.2f} mm "
              f"from where it was; Blender turned {blender[-1][1]:.1f}°, its apex at most "
              f"{1000 * max(r[0] for r in blender):.2f} mm away", flush=True)
        self.assertLess(max(r[0] for r in simbake), 5e-3, "SimBake's cone left its apex")
        self.assertGreater(abs(simbake[-1][1]), 10.0, "SimBake's cone did not roll round its apex")


if __name__ == "__main__":
    blender_test.main()
