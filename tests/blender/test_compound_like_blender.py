"""Blender's Compound Parent shape bakes with SimBake unchanged (role None) and lands as
Blender's own bake of it, both baked in this run: a table of five boxes (a top and four legs,
children of a Compound Parent) dropped tilted onto the ground falls and lands as one body, keeps
its shape and comes to rest level on its four legs, at the height Blender's rests at."""

import math
import os
import sys
import unittest

import bpy
from mathutils import Matrix

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # Blender does not add it
import blender_test  # noqa: E402

FRAMES = 48
TOP = (0.6, 0.4, 0.03)   # half extents, m; its centre 0.73 m above the feet
LEG = (0.03, 0.03, 0.35)  # at the top's corners, 0.35 m above the feet
CORNERS = [(sx * 0.57, sy * 0.37) for sx in (-1, 1) for sy in (-1, 1)]
# the centre of mass above the feet: the top's volume at 0.73 m and the legs' at 0.35 m
VOLUME_TOP, VOLUME_LEG = 8 * TOP[0] * TOP[1] * TOP[2], 8 * LEG[0] * LEG[1] * LEG[2]
CENTRE = (VOLUME_TOP * 0.73 + 4 * VOLUME_LEG * 0.35) / (VOLUME_TOP + 4 * VOLUME_LEG)


def table_scene(drop, tilt):
    """Ground (top at z = 0) and the table: a Compound Parent (a mesh of its own with no
    faces, its origin at the table's centre of mass) over five box children, its feet `drop` m
    up, turned by `tilt` rad about x."""
    blender_test.empty_scene()
    scene = bpy.context.scene
    scene.render.fps = 24
    scene.frame_start, scene.frame_end = 1, FRAMES
    scene.simbake.frame_start, scene.simbake.frame_end = 1, FRAMES
    bpy.ops.rigidbody.world_add()
    scene.rigidbody_world.point_cache.frame_start, scene.rigidbody_world.point_cache.frame_end = 1, FRAMES
    blender_test.box("Ground", (0.0, 0.0, -0.5), (5.0, 5.0, 0.5), kind="PASSIVE")
    table = bpy.data.objects.new("Table", bpy.data.meshes.new("Table"))
    scene.collection.objects.link(table)
    table.location = (0.0, 0.0, drop + CENTRE)
    bpy.context.view_layer.update()
    blender_test.rigid_body(table, shape="COMPOUND", mass=10.0)
    parts = [blender_test.box("Top", (0.0, 0.0, drop + 0.73), TOP)]
    parts += [blender_test.box(f"Leg{k}", (x, y, drop + 0.35), LEG, shape="CONVEX_HULL") for k, (x, y) in enumerate(CORNERS)]
    for part in parts:
        part.parent = table
        part.matrix_parent_inverse = table.matrix_world.inverted()
    table.rotation_euler = (tilt, 0.0, 0.0)
    bpy.context.view_layer.update()
    return scene, table, parts


def record(scene, table, parts):
    """Per frame: the table's matrix, and each part's matrix relative to it."""
    out = []
    for frame in range(1, FRAMES + 1):
        scene.frame_set(frame)
        world = table.matrix_world.copy()
        out.append((world, [world.inverted() @ part.matrix_world for part in parts]))
    return out


def feet(frame_record):
    """The lowest point of each leg (world z), and the top's up axis' tilt (rad)."""
    world, relative = frame_record
    lows = []
    for matrix in relative[1:]:
        leg = world @ matrix
        lows.append(min((leg @ Matrix.Translation((sx * LEG[0], sy * LEG[1], -LEG[2]))).translation.z
                        for sx in (-1, 1) for sy in (-1, 1)))
    up = (world @ relative[0]).to_3x3() @ Matrix.Identity(3).col[2]
    return lows, math.acos(max(-1.0, min(1.0, up.normalized().z)))


class CompoundLikeBlender(unittest.TestCase):
    def test_a_table_of_five_boxes_lands_on_its_four_legs_as_blenders_does(self):
        scene, table, parts = table_scene(drop=0.3, tilt=0.12)
        blender = record(scene, table, parts)
        scene.frame_set(1)
        self.assertEqual(bpy.ops.simbake.bake(), {"FINISHED"})
        warnings = scene.simbake.last_bake_warnings
        simbake = record(scene, table, parts)
        self.assertNotIn("Compound", warnings, warnings)
        # one body: the parts never move against the table (they follow it, not baked apart)
        for frame_world, relative in simbake:
            for k, matrix in enumerate(relative):
                drift = max(abs(a - b) for row, first in zip(matrix, simbake[0][1][k]) for a, b in zip(row, first))
                self.assertLess(drift, 1e-5, f"{parts[k].name} moved against the table")
        for part in parts:
            self.assertIsNone(part.animation_data and part.animation_data.action, f"{part.name} was baked alone")
        lows = {name: feet(run[-1]) for name, run in (("Blender", blender), ("SimBake", simbake))}
        falls = {name: [run[f][0].translation.z for f in range(FRAMES)] for name, run in
                 (("Blender", blender), ("SimBake", simbake))}
        print("compound table at rest: " + "; ".join(
            f"{name}'s feet at {', '.join(f'{z * 1000:.1f}' for z in low)} mm, top tilted {tilt * 180 / math.pi:.3f}°, "
            f"centre at {falls[name][-1]:.4f} m" for name, (low, tilt) in lows.items()), flush=True)
        simbake_feet, simbake_tilt = lows["SimBake"]
        for z in simbake_feet:
            self.assertLess(abs(z), 0.003, "a leg of SimBake's table does not stand on the ground")
        self.assertLess(simbake_tilt, 0.005, "SimBake's table does not stand level")
        self.assertLess(abs(falls["SimBake"][-1] - CENTRE), 0.003, "SimBake's table rests at the wrong height")
        blender_feet, blender_tilt = lows["Blender"]
        self.assertLess(blender_tilt, 0.02, "Blender's table does not stand level: the scene is not the one meant")
        self.assertLess(abs(falls["SimBake"][-1] - falls["Blender"][-1]), 0.02, "the tables rest at other heights")
        # the fall itself: the same until the first leg lands (frame 7 at 0.3 m)
        for frame in range(5):
            self.assertLess(abs(falls["SimBake"][frame] - falls["Blender"][frame]), 0.01, f"frame {frame + 1}")


if __name__ == "__main__":
    blender_test.main()
