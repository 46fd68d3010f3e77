"""A rope blown sideways by a Wind field, baked by Blender and by SimBake in this run.

Blender's cloth on a mesh of loose edges takes its hair path (SIM_mass_spring.cc,
cloth_calc_force): each vertex is pushed with 0.01 x the field's vector, along the wind, whatever
the edge's direction. SimBake bakes the same object as strands (role None), the wind dragging
across each segment, with Blender's per-vertex push spread over the length
(strand_material.blender_field_scale). A 1 m rope of 20 edges hangs from its pinned top vertex
in a horizontal wind (shape Plane, flow 0); per vertex the wind pushes 10 s / fps N (s the
strength; Blender's force unit is 1000 N) and gravity pulls m g, so a straight rope settles at
tan θ = 10 s / (fps m g): 30° for s = 4.08 at 24 fps and Blender's default mass of 0.3 kg. Both
bakes are compared over their last half second: where the rope settles, and that it is straight."""

import math
import os
import sys
import unittest

import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # Blender does not add it
import blender_test  # noqa: E402

SEGMENTS = 20
FRAMES = 96
STRENGTH = 4.08


def hanging_rope():
    """A 1 m rope of loose edges hanging down from (0, 0, 1), its top vertex pinned, with a Cloth
    modifier at Blender's defaults but air damping 5 (so that it settles within the bake)."""
    coords = [(0.0, 0.0, 1.0 - i / SEGMENTS) for i in range(SEGMENTS + 1)]
    mesh = bpy.data.meshes.new("Rope")
    mesh.from_pydata(coords, [(i, i + 1) for i in range(SEGMENTS)], [])
    rope = bpy.data.objects.new("Rope", mesh)
    bpy.context.scene.collection.objects.link(rope)
    rope.vertex_groups.new(name="Pin").add([0], 1.0, "REPLACE")
    cloth = rope.modifiers.new("Cloth", "CLOTH")
    cloth.settings.vertex_group_mass = "Pin"
    cloth.settings.air_damping = 5.0
    cloth.point_cache.frame_start, cloth.point_cache.frame_end = 1, FRAMES
    return rope


def settled(scene, rope):
    """Over the last 12 frames: the mean angle of the root-to-tip chord from straight down
    (degrees, toward +x), how much it varies, and how far a vertex strays from the chord (m)."""
    angles, stray = [], 0.0
    for frame in range(FRAMES - 11, FRAMES + 1):
        scene.frame_set(frame)
        p = blender_test.world_vertices(rope)
        points = [p[3 * i:3 * i + 3] for i in range(SEGMENTS + 1)]
        chord = [b - a for a, b in zip(points[0], points[-1])]
        angles.append(math.degrees(math.atan2(chord[0], -chord[2])))
        size = math.sqrt(sum(c * c for c in chord))
        for q in points:
            r = [b - a for a, b in zip(points[0], q)]
            along = sum(a * b for a, b in zip(r, chord)) / size
            stray = max(stray, math.sqrt(max(0.0, sum(a * a for a in r) - along * along)))
    return sum(angles) / len(angles), max(angles) - min(angles), stray


class RopeInWindLikeBlender(unittest.TestCase):
    def test_a_rope_in_a_steady_wind_settles_where_blenders_does(self):
        blender_test.empty_scene()
        scene = bpy.context.scene
        scene.render.fps = 24
        scene.frame_start, scene.frame_end = 1, FRAMES
        scene.simbake.frame_start, scene.simbake.frame_end = 1, FRAMES
        rope = hanging_rope()
        # its z axis along +x: the wind blows the rope sideways
        bpy.ops.object.effector_add(type="WIND", location=(-1.0, 0.0, 0.5), rotation=(0.0, math.pi / 2, 0.0))
        bpy.context.object.name = "Breeze"
        bpy.context.object.field.strength = STRENGTH
        bpy.context.object.field.flow = 0.0
        mass = rope.modifiers["Cloth"].settings.mass
        expected = math.degrees(math.atan(10.0 * STRENGTH / (24 * mass * 9.81)))
        for frame in range(1, FRAMES + 1):  # Blender's own bake, frame by frame into its cache
            scene.frame_set(frame)
        blender_angle, blender_sway, blender_stray = settled(scene, rope)

        scene.frame_set(1)
        self.assertEqual(bpy.ops.simbake.bake(), {"FINISHED"}, scene.simbake.last_bake_message)
        self.assertNotIn("Breeze", scene.simbake.last_bake_warnings)
        simbake_angle, simbake_sway, simbake_stray = settled(scene, rope)
        print(f"rope in wind: force balance {expected:.2f}°; Blender settles at {blender_angle:.2f}° (varies "
              f"{blender_sway:.3f}°, straight within {blender_stray * 1000:.2f} mm), SimBake at {simbake_angle:.2f}° "
              f"(varies {simbake_sway:.3f}°, straight within {simbake_stray * 1000:.2f} mm)", flush=True)
        self.assertLess(abs(blender_angle - expected), 1.0, "Blender's rope is not where the force balance puts it: "
                        "the scene is not the one meant")
        ratio = math.tan(math.radians(simbake_angle)) / math.tan(math.radians(expected))
        self.assertLess(abs(ratio - 1.0), 0.02,
                        f"SimBake's rope settles at {simbake_angle:.2f}°, not {expected:.2f}°")
        self.assertLess(simbake_sway, 0.2, "SimBake's rope has not settled")
        self.assertLess(simbake_stray, 0.01, "SimBake's rope is not straight")
        self.assertLess(abs(math.tan(math.radians(simbake_angle)) / math.tan(math.radians(blender_angle)) - 1.0), 0.02)


if __name__ == "__main__":
    blender_test.main()
