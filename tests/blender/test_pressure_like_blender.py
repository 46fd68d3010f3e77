"""Blender's cloth Pressure carries over: a pillow (a cube of 1 m, subdivided, a Cloth modifier
at Blender's defaults with Pressure 5 and no gravity) baked by Blender and by SimBake (role
None) in this run inflates to about the same volume, and one whose pressure vertex group weighs
every vertex 0.5 inflates less, again as Blender's does."""

import os
import sys
import unittest

import bmesh
import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # Blender does not add it
import blender_test  # noqa: E402

FRAMES = 48


def volume(obj):
    """Volume the evaluated mesh encloses, in world space (outward faces)."""
    positions = blender_test.world_vertices(obj)
    mesh = obj.evaluated_get(bpy.context.evaluated_depsgraph_get()).to_mesh()
    mesh.calc_loop_triangles()
    six_v = 0.0
    for triangle in mesh.loop_triangles:
        a, b, c = (positions[3 * v:3 * v + 3] for v in triangle.vertices)
        six_v += (a[0] * (b[1] * c[2] - b[2] * c[1]) + a[1] * (b[2] * c[0] - b[0] * c[2])
                  + a[2] * (b[0] * c[1] - b[1] * c[0]))
    obj.evaluated_get(bpy.context.evaluated_depsgraph_get()).to_mesh_clear()
    return six_v / 6.0


def pillow(name, cuts=7, location=(0.0, 0.0, 0.0)):
    """A cube of 1 m, each edge cut `cuts` times, with a Cloth modifier of Pressure 5 that
    gravity does not pull."""
    mesh = bpy.data.meshes.new(name)
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=1.0)
    bmesh.ops.subdivide_edges(bm, edges=bm.edges[:], cuts=cuts, use_grid_fill=True)
    bm.to_mesh(mesh)
    bm.free()
    obj = bpy.data.objects.new(name, mesh)
    obj.location = location
    bpy.context.scene.collection.objects.link(obj)
    obj.simbake.role = "NONE"
    modifier = obj.modifiers.new("Cloth", "CLOTH")
    modifier.point_cache.frame_start, modifier.point_cache.frame_end = 1, FRAMES
    modifier.settings.effector_weights.gravity = 0.0
    modifier.settings.use_pressure = True
    modifier.settings.uniform_pressure_force = 5.0
    return obj, modifier


def bake_both(*objects):
    """Volumes at the last frame: Blender's own bake, then SimBake's of the same scene."""
    scene = bpy.context.scene
    for frame in range(1, FRAMES + 1):  # Blender's own bake, frame by frame into its cache
        scene.frame_set(frame)
    blender = [volume(obj) for obj in objects]
    scene.frame_set(1)
    if bpy.ops.simbake.bake() != {"FINISHED"}:
        raise AssertionError("SimBake's bake did not finish")
    scene.frame_set(FRAMES)
    return blender, [volume(obj) for obj in objects]


class PressureLikeBlender(unittest.TestCase):
    def setUp(self):
        blender_test.empty_scene()
        scene = bpy.context.scene
        scene.render.fps = 24
        scene.frame_start, scene.frame_end = 1, FRAMES
        scene.simbake.frame_start, scene.simbake.frame_end = 1, FRAMES

    def test_a_pillow_inflates_as_in_blenders_own_bake(self):
        obj, _ = pillow("Pillow")
        bpy.context.scene.frame_set(1)
        rest = volume(obj)
        (blender,), (simbake,) = bake_both(obj)
        print(f"pillow: rest {rest:.4f} m³, Blender {blender:.4f} m³, SimBake {simbake:.4f} m³", flush=True)
        self.assertGreater(blender, 1.05 * rest, "Blender's own pillow did not inflate: not the scene meant")
        self.assertGreater(simbake, 1.05 * rest, "SimBake's pillow did not inflate")
        self.assertLess(abs(simbake / blender - 1.0), 0.10, "the two pillows inflate to different volumes")
        self.assertNotIn("Pressure", bpy.context.scene.simbake.last_bake_warnings)

    def test_the_pressure_group_weighs_the_pressure(self):
        """A pressure group of weight 0.5 on every vertex halves the push (Blender scales each
        vertex's share by its weight): that pillow inflates less than one without the group, to
        Blender's volume."""
        full, _ = pillow("Full", location=(-1.5, 0.0, 0.0))
        softer, modifier = pillow("Softer", location=(1.5, 0.0, 0.0))
        group = softer.vertex_groups.new(name="pressure")
        group.add([v.index for v in softer.data.vertices], 0.5, "REPLACE")
        modifier.settings.vertex_group_pressure = "pressure"
        bpy.context.scene.frame_set(1)
        rest = volume(softer)
        (blender_full, blender), (simbake_full, simbake) = bake_both(full, softer)
        print(f"pillows, without and with a pressure group at 0.5: rest {rest:.4f} m³, Blender {blender_full:.4f} "
              f"and {blender:.4f} m³, SimBake {simbake_full:.4f} and {simbake:.4f} m³", flush=True)
        self.assertLess(blender, blender_full - 0.01 * rest, "Blender's group did not soften the pillow: not the scene meant")
        self.assertLess(simbake, simbake_full - 0.01 * rest, "SimBake's pressure group changed nothing")
        self.assertGreater(simbake, 1.05 * rest, "SimBake's pillow did not inflate")
        self.assertLess(abs(simbake / blender - 1.0), 0.10, "the two pillows inflate to different volumes")


    def test_an_open_sheet_with_pressure_bakes_and_is_pushed_along_its_normal(self):
        """Pressure on an open sheet 1 m above the world origin (a cape, not a pillow): Blender
        bakes it, pushing the sheet along its normal (+z); SimBake bakes it too (it refused it
        once: the add-on measured a "volume" about the world origin that the library, measuring
        about the sheet's middle, did not find) and pushes it the same way."""
        obj = blender_test.grid_object("Cape", size=1.0, cuts=10, location=(0.0, 0.0, 1.0), role="NONE")
        modifier = obj.modifiers.new("Cloth", "CLOTH")
        modifier.point_cache.frame_start, modifier.point_cache.frame_end = 1, FRAMES
        modifier.settings.effector_weights.gravity = 0.0
        modifier.settings.use_pressure = True
        modifier.settings.uniform_pressure_force = 5.0
        scene = bpy.context.scene
        for frame in range(1, FRAMES + 1):  # Blender's own bake, frame by frame into its cache
            scene.frame_set(frame)
        blender = sum(blender_test.world_vertices(obj)[2::3]) / len(obj.data.vertices) - 1.0
        scene.frame_set(1)
        self.assertEqual(bpy.ops.simbake.bake(), {"FINISHED"})
        self.assertNotIn("Pressure", scene.simbake.last_bake_warnings)
        scene.frame_set(FRAMES)
        simbake = sum(blender_test.world_vertices(obj)[2::3]) / len(obj.data.vertices) - 1.0
        print(f"open sheet with pressure 5: mean rise after {FRAMES} frames Blender {blender:.3f} m, "
              f"SimBake {simbake:.3f} m", flush=True)
        self.assertGreater(blender, 0.01, "Blender's sheet is not pushed up: not the scene meant")
        self.assertGreater(simbake, 0.01, "SimBake's sheet is not pushed along its normal")


blender_test.main()
