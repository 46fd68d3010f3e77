"""A scene set up for Blender's cloth bakes with SimBake unchanged and looks like Blender's own
bake of it (issue 28's drape): a grid of 2 m with a Cloth modifier at Blender's defaults,
dropped from 0.8 m onto a UV sphere of 0.5 m (48 × 24) with a Collision modifier, self
collision off, 72 frames at 24 fps. Both solvers bake it in this run and are compared over the
last 8 frames (frames 65-72), as issue 28 asks:
- SimBake's lowest point within 3 cm of Blender's;
- it hangs and does not cling: below the sphere's equator, at most twice as many of SimBake's
  vertices as of Blender's lie within the contact distance (the cloth's Collision Distance plus
  the sphere's Outer Thickness) plus 1 cm of the sphere.
- no edge of SimBake's drape is stretched or compressed beyond the library's default strain
  limit (10%) in any of those frames (Blender has no such limit; its figure is printed).

The issue's grid is 128²; this test bakes it at 64² (CUTS), which CI can afford: about 20 s
here for both bakes, against well over a minute for each solver at 128², and CI runs every
Blender test three times (Blender 3.4, 4.3, 5.2) in 60 minutes. The 128² figures, measured
once with SIMBAKE_DRAPE_CUTS=128, are in docs/blender-physics-mapping.md ("The same drape,
baked by both")."""

import math
import os
import sys
import unittest

import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # Blender does not add it
import blender_test  # noqa: E402

FRAMES = 72
LAST = 8  # frames compared at the end
STRAIN_LIMIT = 0.1  # sb_cloth_def's max_stretch and max_compression, the library's defaults
CUTS = int(os.environ.get("SIMBAKE_DRAPE_CUTS", "64"))
RADIUS = 0.5


def clinging(positions, reach):
    """Vertices below the sphere's equator (z < 0) within `reach` of its surface."""
    return sum(1 for i in range(0, len(positions), 3)
               if positions[i + 2] < 0.0 and math.dist(positions[i:i + 3], (0.0, 0.0, 0.0)) < RADIUS + reach)


def largest_strain(rest, positions, edges):
    """The largest |length / rest length - 1| over the edges: stretch or compression."""
    def length(p, a, b):
        return math.dist(p[3 * a:3 * a + 3], p[3 * b:3 * b + 3])
    return max(abs(length(positions, a, b) / length(rest, a, b) - 1.0) for a, b in edges)


def mean(values):
    return sum(values) / len(values)


class DrapeLikeBlender(unittest.TestCase):
    def test_blenders_default_cloth_hangs_as_in_blenders_own_bake(self):
        blender_test.empty_scene()
        scene = bpy.context.scene
        scene.render.fps = 24
        scene.frame_start, scene.frame_end = 1, FRAMES
        scene.simbake.frame_start, scene.simbake.frame_end = 1, FRAMES
        bpy.ops.mesh.primitive_uv_sphere_add(segments=48, ring_count=24, radius=RADIUS, location=(0, 0, 0))
        sphere = bpy.context.object
        sphere.modifiers.new("Collision", "COLLISION")
        cloth = blender_test.grid_object("Cloth", size=2.0, cuts=CUTS, location=(0, 0, 0.8), role="NONE")
        modifier = cloth.modifiers.new("Cloth", "CLOTH")
        modifier.point_cache.frame_start, modifier.point_cache.frame_end = 1, FRAMES
        self.assertFalse(modifier.collision_settings.use_self_collision)
        # the contact distance, Blender's: the cloth's Collision Distance plus the sphere's
        # Outer Thickness (1.5 cm + 2 cm at the defaults)
        reach = modifier.collision_settings.distance_min + sphere.collision.thickness_outer + 0.01
        edges = [tuple(edge.vertices) for edge in cloth.data.edges]
        scene.frame_set(1)
        rest = blender_test.world_vertices(cloth)
        blender = []
        for frame in range(2, FRAMES + 1):  # Blender's own bake, frame by frame into its cache
            scene.frame_set(frame)
            if frame > FRAMES - LAST:
                blender.append(blender_test.world_vertices(cloth))

        scene.frame_set(1)
        self.assertEqual(bpy.ops.simbake.bake(), {"FINISHED"})
        simbake = []
        for frame in range(FRAMES - LAST + 1, FRAMES + 1):
            scene.frame_set(frame)
            simbake.append(blender_test.world_vertices(cloth))

        blender_lowest, simbake_lowest = (mean([min(p[2::3]) for p in bake]) for bake in (blender, simbake))
        blender_clinging, simbake_clinging = (mean([clinging(p, reach) for p in bake]) for bake in (blender, simbake))
        print(f"drape {CUTS}², frames {FRAMES - LAST + 1}-{FRAMES}: lowest point Blender {blender_lowest:.3f} m, "
              f"SimBake {simbake_lowest:.3f} m; vertices below the equator within {reach * 100:.1f} cm of the "
              f"sphere Blender {blender_clinging:.1f}, SimBake {simbake_clinging:.1f}; largest edge strain at "
              f"frame {FRAMES} Blender {largest_strain(rest, blender[-1], edges):.3f}, SimBake "
              f"{largest_strain(rest, simbake[-1], edges):.3f}", flush=True)
        self.assertLess(blender_lowest, -RADIUS - 0.02, "Blender's drape does not hang past the sphere: not the scene meant")
        self.assertLess(abs(simbake_lowest - blender_lowest), 0.03,
                        "SimBake's lowest point is more than 3 cm from Blender's")
        self.assertLessEqual(simbake_clinging, 2 * blender_clinging,
                             "SimBake's drape clings to the sphere below its equator: more than twice as many "
                             "vertices near it as in Blender's bake")
        # the cache holds float32 positions: 1e-4 of slack on the 10% limit
        self.assertLessEqual(max(largest_strain(rest, p, edges) for p in simbake), STRAIN_LIMIT + 1e-4,
                             "an edge of SimBake's drape is beyond the strain limit")


blender_test.main()
