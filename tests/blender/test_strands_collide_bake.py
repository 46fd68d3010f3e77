"""Strands against strands in real headless Blender: a rope dropped across a taut rope rests on
it, baked as two objects with role Strands (strands of two objects always meet) and as one
object of two ropes with Self Collision ticked; with it off, the one object's rope falls
through (so the check can fail). Read back from the PC2 caches the Mesh Cache modifiers play."""

import os
import sys
import unittest

import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # Blender does not add it
import blender_test  # noqa: E402

TAUT, DROPPED = 16, 20  # segments


def rope_points(taut):
    """The taut rope: 1 m along y at z = 1; the dropped one: 1 m along x, 0.2 m above it."""
    if taut:
        return [(0.0, -0.5 + i / TAUT, 1.0) for i in range(TAUT + 1)]
    return [(-0.5 + i / DROPPED, 0.0, 1.2) for i in range(DROPPED + 1)]


def strands_object(name, ropes, self_collision=False):
    """One object of loose edges holding the given ropes (True: the taut one, its ends pinned)."""
    coords, edges, pinned = [], [], []
    for taut in ropes:
        first = len(coords)
        points = rope_points(taut)
        coords += points
        edges += [(first + i, first + i + 1) for i in range(len(points) - 1)]
        if taut:
            pinned += [first, first + len(points) - 1]
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(coords, edges, [])
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    if pinned:
        obj.vertex_groups.new(name="Ends").add(pinned, 1.0, "REPLACE")
        obj.simbake.pin_group = "Ends"
    obj.simbake.role = "STRANDS"
    obj.simbake.self_collision = self_collision
    return obj


frames = blender_test.cache_frames


class RopeOnRope(unittest.TestCase):
    def setUp(self):
        blender_test.empty_scene()
        scene = bpy.context.scene
        scene.simbake.frame_start, scene.simbake.frame_end = 1, 25  # 1 s at 24 fps
        scene.simbake.substeps = 3

    def bake(self):
        self.assertEqual(bpy.ops.simbake.bake(), {"FINISHED"}, bpy.context.scene.simbake.last_bake_message)

    def check_rests(self, taut_frames, taut_first, dropped_frames, dropped_first):
        """At every frame the dropped rope's middle is above the taut one's; at the last it lies
        on it, their thicknesses (0.005 m each by default) apart or a little more."""
        gaps = [dropped[dropped_first + DROPPED // 2][2] - taut[taut_first + TAUT // 2][2]
                for taut, dropped in zip(taut_frames, dropped_frames)]
        print(f"rope on rope: middle gap from {gaps[0]:.4f} down to {min(gaps):.4f}, last {gaps[-1]:.4f} m",
              flush=True)
        self.assertGreater(min(gaps), 0.0, "the dropped rope passed the taut one")
        self.assertLess(gaps[-1], 0.05, "the dropped rope does not lie on the taut one")

    def test_ropes_of_two_objects_never_pass_through_each_other(self):
        taut = strands_object("Taut", [True])
        dropped = strands_object("Dropped", [False])
        self.bake()
        self.check_rests(frames(taut), 0, frames(dropped), 0)

    def test_ropes_of_one_object_with_self_collision_never_pass_through_each_other(self):
        both = strands_object("Ropes", [True, False], self_collision=True)
        self.bake()
        samples = frames(both)
        self.check_rests(samples, 0, samples, TAUT + 1)

    def test_ropes_of_one_object_without_self_collision_pass_through_each_other(self):
        both = strands_object("Ropes", [True, False], self_collision=False)
        self.bake()
        samples = frames(both)
        middle = [points[TAUT + 1 + DROPPED // 2][2] for points in samples]
        self.assertLess(middle[-1], 0.5, "the dropped rope should have fallen through")


if __name__ == "__main__":
    blender_test.main()
