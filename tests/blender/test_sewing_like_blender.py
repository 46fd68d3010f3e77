"""Blender's Sewing carries over: two flat panels, one in front of a ball and one behind it, are
one mesh whose loose edges join their side and top edges (a pillowcase about to be sewn round
the ball), with a Cloth modifier at Blender's defaults plus Sewing, and the ball a Collision
modifier; no gravity, 1 s at 24 fps. Both solvers bake it in this run with role None, and what
a viewer sees is compared: the seams close (issue 28: the largest gap along the seam under 1 mm
after 1 s), the case wraps the ball without passing into it, as Blender's does."""

import math
import os
import sys
import unittest

import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # Blender does not add it
import blender_test  # noqa: E402

FRAMES = 97  # frame 1 to 97: four seconds at 24 fps
ONE_SECOND = 25
N = 13       # vertices along a panel's side
HALF = 0.5   # the panels are 1 m squares
GAP = 0.35   # each panel this far in front of / behind the ball's centre
RADIUS = 0.25


def pillowcase():
    """Vertices, loose edges (panel front to panel back along x = ±HALF and z = HALF) and faces."""
    vertices, faces = [], []
    for side in (-GAP, GAP):
        for j in range(N):
            for i in range(N):
                vertices.append((-HALF + 2 * HALF * i / (N - 1), side, -HALF + 2 * HALF * j / (N - 1)))
    for panel in range(2):
        base = panel * N * N
        for j in range(N - 1):
            for i in range(N - 1):
                a = base + j * N + i
                faces.append((a, a + 1, a + N + 1, a + N) if panel == 0 else (a, a + N, a + N + 1, a + 1))
    seam = sorted({j * N for j in range(N)} | {j * N + N - 1 for j in range(N)} | {(N - 1) * N + i for i in range(N)})
    return vertices, [(v, v + N * N) for v in seam], faces


def seam_gap(positions, seam):
    return max(math.dist(positions[3 * a:3 * a + 3], positions[3 * b:3 * b + 3]) for a, b in seam)


def deepest_into_ball(positions):
    """How far the cloth's deepest vertex lies inside the ball (negative: none inside)."""
    return max(RADIUS - math.dist(positions[i:i + 3], (0.0, 0.0, 0.0)) for i in range(0, len(positions), 3))


def extent(positions):
    """The case's size along x, y and z (m): its bounding box, what a viewer sees of its shape."""
    return tuple(max(positions[k::3]) - min(positions[k::3]) for k in range(3))


class SewingLikeBlender(unittest.TestCase):
    def test_sewn_panels_close_round_a_ball_as_in_blenders_own_bake(self):
        blender_test.empty_scene()
        scene = bpy.context.scene
        scene.render.fps = 24
        scene.use_gravity = False
        scene.frame_start, scene.frame_end = 1, FRAMES
        scene.simbake.frame_start, scene.simbake.frame_end = 1, FRAMES
        bpy.ops.mesh.primitive_uv_sphere_add(segments=32, ring_count=16, radius=RADIUS, location=(0, 0, 0))
        bpy.context.object.modifiers.new("Collision", "COLLISION")
        vertices, seam, faces = pillowcase()
        mesh = bpy.data.meshes.new("Case")
        mesh.from_pydata(vertices, seam, faces)
        mesh.update()
        case = bpy.data.objects.new("Case", mesh)
        scene.collection.objects.link(case)
        self.assertEqual(sum(edge.is_loose for edge in mesh.edges), len(seam), "the seam is loose edges")
        modifier = case.modifiers.new("Cloth", "CLOTH")
        modifier.settings.use_sewing_springs = True
        modifier.point_cache.frame_start, modifier.point_cache.frame_end = 1, FRAMES

        scene.frame_set(1)
        for frame in range(2, FRAMES + 1):  # Blender's own bake, frame by frame into its cache
            scene.frame_set(frame)
            if frame == ONE_SECOND:
                blender_1s = blender_test.world_vertices(case)
        blender = blender_test.world_vertices(case)

        scene.frame_set(1)
        self.assertEqual(bpy.ops.simbake.bake(), {"FINISHED"})
        scene.frame_set(ONE_SECOND)
        simbake_1s = blender_test.world_vertices(case)
        scene.frame_set(FRAMES)
        simbake = blender_test.world_vertices(case)
        print(f"sewing after 1 s: seam gap Blender {seam_gap(blender_1s, seam) * 1000:.2f} mm, SimBake "
              f"{seam_gap(simbake_1s, seam) * 1000:.2f} mm; size (x, y, z) Blender "
              f"{', '.join(f'{e:.3f}' for e in extent(blender_1s))} m, SimBake "
              f"{', '.join(f'{e:.3f}' for e in extent(simbake_1s))} m", flush=True)

        print(f"sewing after 4 s: seam gap Blender {seam_gap(blender, seam) * 1000:.2f} mm, SimBake "
              f"{seam_gap(simbake, seam) * 1000:.2f} mm; deepest into the ball Blender "
              f"{deepest_into_ball(blender) * 1000:.1f} mm, SimBake {deepest_into_ball(simbake) * 1000:.1f} mm "
              f"(negative: outside); size (x, y, z) Blender {', '.join(f'{e:.3f}' for e in extent(blender))} m, "
              f"SimBake {', '.join(f'{e:.3f}' for e in extent(simbake))} m", flush=True)
        self.assertLess(seam_gap(blender_1s, seam), 0.005, "Blender's own bake does not sew: not the scene meant")
        self.assertLess(seam_gap(simbake_1s, seam), 0.001, "SimBake's seams are still open after 1 s")
        self.assertLess(seam_gap(simbake, seam), 0.005, "SimBake's seams opened again")
        for positions in (simbake_1s, simbake):
            self.assertLess(deepest_into_ball(positions), 0.0, "SimBake's case passes into the ball")
        # sewn round the ball, the case is narrower than the flat panels. How much narrower after 4 s
        # without gravity is not compared with Blender's: SimBake's width there changes with the
        # compiler's rounding (0.81 to 0.89 m between GCC 12, 14 and 16 builds, Blender's 0.89 m),
        # a shape still drifting, not a settled one
        self.assertLess(extent(simbake)[0], 2 * HALF - 0.05, "SimBake's case is as wide as its flat panels")
        self.assertLess(extent(blender)[0], 2 * HALF - 0.05, "Blender's case is as wide as its flat panels: "
                        "not the scene meant")

blender_test.main()
