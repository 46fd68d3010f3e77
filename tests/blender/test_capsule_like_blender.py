"""A Capsule rolls like a capsule: a cylinder mesh with Blender's Capsule shape, laid across a
15° slope, rolls down it about its own axis, its axis staying level and its centre one radius
off the slope (the contact on the capsule's cylinder, never on an end), its spin growing
smoothly frame after frame. SimBake's covers the distance of a rolling capsule,
½ g sin θ t² / (1 + I / (m r²)). Blender's own bake of it, in the same run, rolls as smoothly
but slower: Bullet gives a capsule the inertia of its bounding box (btCapsuleShape), here
I / (m r²) = 2/3 for the capsule's 0.47."""

import math
import os
import sys
import unittest

import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # Blender does not add it
import blender_test  # noqa: E402

FRAMES, FPS = 24, 24
SLOPE = math.radians(15.0)
RADIUS, DEPTH = 0.2, 1.0  # the cylinder mesh: a capsule of radius 0.2 m and a 0.6 m core


def scene_with_slope():
    scene = blender_test.rigid_scene(FRAMES, FPS)
    blender_test.rigid_slope(SLOPE)
    # the capsule across the slope (its z along y), resting on it
    bpy.ops.mesh.primitive_cylinder_add(radius=RADIUS, depth=DEPTH, vertices=32,
                                        location=(RADIUS * math.sin(SLOPE), 0.0, RADIUS * math.cos(SLOPE)),
                                        rotation=(math.pi / 2, 0.0, 0.0))
    capsule = blender_test.rigid_body(bpy.context.object, shape="CAPSULE", mass=3.0, friction=1.0, linear_damping=0.0,
                         angular_damping=0.0)
    capsule.name = "Capsule"
    return scene, capsule


def motion(scene, capsule):
    """Per frame: distance travelled down the slope, height of the centre above it, the
    axis' height (its z component) and the turn about the axis (unwrapped)."""
    out, last = [], None
    start = capsule.matrix_world.translation.copy()
    normal = (math.sin(SLOPE), 0.0, math.cos(SLOPE))
    for frame in range(1, FRAMES + 1):
        scene.frame_set(frame)
        m = capsule.matrix_world
        at = m.translation
        height = sum(at[k] * normal[k] for k in range(3))
        axis = m.col[2].xyz.normalized()
        side = m.col[0].xyz.normalized()  # turns in the xz plane as it rolls about y
        turn = math.atan2(side.z, side.x)
        if last is not None:
            turn += 2 * math.pi * round((last - turn) / (2 * math.pi))
        last = turn
        out.append(((at - start).length, height, axis.z, turn))
    return out


def spins(run):
    """Angular speed over each frame, rad/s."""
    return [abs(run[f][3] - run[f - 1][3]) * FPS for f in range(1, len(run))]


def roughness(speeds):
    """Largest departure of the frame speeds from the straight line through them, over the
    last speed: a faceted body's speed lags and leaps."""
    n = len(speeds)
    xs = list(range(n))
    mx, my = sum(xs) / n, sum(speeds) / n
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, speeds)) / sum((x - mx) ** 2 for x in xs)
    return max(abs(y - (my + slope * (x - mx))) for x, y in zip(xs, speeds)) / speeds[-1]


class CapsuleLikeBlender(unittest.TestCase):
    def test_a_capsule_rolls_down_a_slope_like_a_capsule(self):
        scene, capsule = scene_with_slope()
        blender = motion(scene, capsule)
        scene.frame_set(1)
        self.assertEqual(bpy.ops.simbake.bake(), {"FINISHED"})
        self.assertNotIn("Capsule", scene.simbake.last_bake_warnings, scene.simbake.last_bake_warnings)
        simbake = motion(scene, capsule)
        seconds = (FRAMES - 1) / FPS
        core = DEPTH - 2 * RADIUS
        cylinder, spheres = math.pi * RADIUS ** 2 * core, 4 / 3 * math.pi * RADIUS ** 3
        ratio = (cylinder / 2 + spheres * 0.4) / (cylinder + spheres)  # I / (m r²) about the axis
        rolled = 0.5 * 9.81 * math.sin(SLOPE) / (1 + ratio) * seconds ** 2
        print(f"capsule on a 15° slope after {seconds:.3f} s: a rolling capsule {rolled:.4f} m (with Bullet's "
              f"bounding-box inertia {0.5 * 9.81 * math.sin(SLOPE) / (5 / 3) * seconds ** 2:.4f} m); SimBake "
              f"{simbake[-1][0]:.4f} m (roughness {roughness(spins(simbake)):.4f}), Blender {blender[-1][0]:.4f} m "
              f"(roughness {roughness(spins(blender)):.4f}); centre {min(r[1] for r in simbake):.4f}.."
              f"{max(r[1] for r in simbake):.4f} m off the slope, axis z within {max(abs(r[2]) for r in simbake):.2e}",
              flush=True)
        self.assertLess(abs(simbake[-1][0] / rolled - 1), 0.01, "SimBake's capsule does not roll as a capsule")
        for distance, height, axis_z, _ in simbake:
            self.assertLess(abs(height - RADIUS), 1e-3, "the capsule left its cylinder's contact")
            self.assertLess(abs(axis_z), 1e-3, "the capsule turned off its axis")
        self.assertLess(roughness(spins(simbake)), 0.02, "SimBake's capsule spins up in bumps")
        box_rolled = 0.5 * 9.81 * math.sin(SLOPE) / (1 + 2 / 3) * seconds ** 2  # (2r)² + (2r)² over 12 r²
        self.assertLess(abs(blender[-1][0] / box_rolled - 1), 0.02, "Blender's capsule rolls otherwise than thought")
        self.assertLess(roughness(spins(blender)), 0.02, "Blender's capsule spins up in bumps: not the scene meant")


if __name__ == "__main__":
    blender_test.main()
