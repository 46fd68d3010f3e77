"""Blender's structural stiffness vertex group carries over: two sheets of 1 m (11 x 11) hang
from their top edges, a Cloth modifier of Tension and Compression 0.5 (so that they stretch
visibly), Shear 0.05 (Blender's shear springs run along the quads' diagonals and would carry
the weight), Air Damping 5 (they settle) and otherwise Blender's defaults; on the second, the
upper half is in a structural stiffness group of weight 1 with Max Tension and Max Compression
5, ten times the stiffness. Both solvers bake the scene in this run; in each, the stiffened half
stretches about a tenth of what it stretches without the group, and the lower half, outside
the group, a little less than without (its top row's springs, or triangles, reach into the
group)."""

import math
import os
import sys
import unittest

import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # Blender does not add it
import blender_test  # noqa: E402

FRAMES = 120


def hanging_sheet(name, x, grouped):
    obj = blender_test.grid_object(name, size=1.0, cuts=10, location=(x, 0.0, 1.0), role="NONE")
    obj.rotation_euler = (math.pi / 2, 0.0, 0.0)  # hanging in the x-z plane, local +y up
    top = [v.index for v in obj.data.vertices if v.co.y > 0.49]
    pins = obj.vertex_groups.new(name="pins")
    pins.add(top, 1.0, "REPLACE")
    modifier = obj.modifiers.new("Cloth", "CLOTH")
    modifier.point_cache.frame_start, modifier.point_cache.frame_end = 1, FRAMES
    cloth = modifier.settings
    cloth.vertex_group_mass = "pins"
    cloth.tension_stiffness = cloth.compression_stiffness = 0.5
    cloth.air_damping = 5.0  # settles within the bake
    cloth.shear_stiffness = 0.05  # Blender's shear springs run along the diagonals and would carry the weight
    if grouped:
        upper = [v.index for v in obj.data.vertices if v.co.y > -0.01]
        group = obj.vertex_groups.new(name="stiff")
        group.add(upper, 1.0, "REPLACE")
        cloth.vertex_group_structural_stiffness = "stiff"
        cloth.tension_stiffness_max = cloth.compression_stiffness_max = 5.0
    return obj


def vertical_stretch(obj, rest, upper):
    """Mean strain of the vertical edges of the sheet's upper (or lower) half."""
    positions = blender_test.world_vertices(obj)
    strains = []
    for edge in obj.data.edges:
        a, b = edge.vertices
        ya, yb = obj.data.vertices[a].co.y, obj.data.vertices[b].co.y
        if abs(obj.data.vertices[a].co.x - obj.data.vertices[b].co.x) > 1e-6:
            continue
        if (min(ya, yb) > 0.01) != upper or (upper is False and max(ya, yb) > 0.01):
            continue
        now = math.dist(positions[3 * a:3 * a + 3], positions[3 * b:3 * b + 3])
        was = math.dist(rest[3 * a:3 * a + 3], rest[3 * b:3 * b + 3])
        strains.append(now / was - 1.0)
    return sum(strains) / len(strains)


class StiffnessGroupLikeBlender(unittest.TestCase):
    def test_a_stiffness_group_stiffens_its_half_as_in_blenders_own_bake(self):
        blender_test.empty_scene()
        scene = bpy.context.scene
        scene.render.fps = 24
        scene.frame_start, scene.frame_end = 1, FRAMES
        scene.simbake.frame_start, scene.simbake.frame_end = 1, FRAMES
        sheets = [hanging_sheet("Plain", 0.0, False), hanging_sheet("Grouped", 2.0, True)]
        scene.frame_set(1)
        rest = [blender_test.world_vertices(obj) for obj in sheets]

        def measure():
            return [vertical_stretch(obj, r, upper) for obj, r in zip(sheets, rest) for upper in (True, False)]

        for frame in range(2, FRAMES + 1):  # Blender's own bake, frame by frame into its cache
            scene.frame_set(frame)
        blender = measure()
        scene.frame_set(1)
        self.assertEqual(bpy.ops.simbake.bake(), {"FINISHED"})
        scene.frame_set(FRAMES)
        simbake = measure()
        print("stiffness group: strains of the upper and lower halves, plain then grouped: Blender "
              + ", ".join(f"{s:.4f}" for s in blender) + "; SimBake " + ", ".join(f"{s:.4f}" for s in simbake),
              flush=True)
        for solver, (plain_upper, plain_lower, grouped_upper, grouped_lower) in (("Blender", blender),
                                                                                ("SimBake", simbake)):
            self.assertGreater(plain_upper, 0.01, f"{solver}: the plain sheet hardly stretches: not the scene meant")
            self.assertLess(grouped_upper / plain_upper, 0.2, f"{solver}: the group did not stiffen its half")
            self.assertGreater(grouped_lower / plain_lower, 0.7, f"{solver}: the half outside the group changed")
        self.assertLess(abs(simbake[2] / simbake[0] - blender[2] / blender[0]), 0.05,
                        "the group stiffens its half by another factor than in Blender")
        self.assertNotIn("stiffness group", bpy.context.scene.simbake.last_bake_warnings)


blender_test.main()
