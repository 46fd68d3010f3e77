"""Builds sample_blends/tassel.blend: a tassel of 36 threads (loose edges, role Strands) hanging
from a knob that an animation carries to the right, past a ball, and back; the threads' roots
are pinned and follow the knob (the tassel is its child), the ball is a collider they brush.

    blender -b --factory-startup --python sample_blends/make_tassel.py -- sample_blends/tassel.blend
"""

import math
import os
import sys

import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # Blender does not add it
import scene_kit  # noqa: E402

THREADS, SEGMENTS = 36, 14
LENGTH = 0.35                     # m, each thread
ROOT_RADIUS = 0.03                # m, the ring the roots sit on under the knob
SPLAY = 0.06                      # m, how much wider the tassel is at the tips than at the roots
HEIGHT = 1.2                      # m, the knob's centre
FRAME_END = 96


def make_knob():
    bpy.ops.mesh.primitive_uv_sphere_add(radius=0.05, location=(-0.5, 0.0, HEIGHT))
    knob = bpy.context.object
    knob.name = "Knob"
    knob.data.materials.append(scene_kit.make_material("Brass", (0.75, 0.55, 0.2, 1.0), 0.3))
    bpy.ops.object.shade_smooth()
    # carried right past the ball in half a second, held, and back
    for frame, x in ((1, -0.5), (8, -0.5), (22, 0.45), (48, 0.45), (70, -0.1)):
        knob.location.x = x
        knob.keyframe_insert("location", index=0, frame=frame)
    return knob


def make_tassel(knob):
    """The threads as loose edges in the knob's space: each from a root on a ring under the knob
    straight down, splaying a little; thread k's vertices are k·(SEGMENTS+1) onwards."""
    coords, edges, roots = [], [], []
    for k in range(THREADS):
        angle = 2.0 * math.pi * k / THREADS
        direction = (math.cos(angle), math.sin(angle))
        for i in range(SEGMENTS + 1):
            t = i / SEGMENTS
            radius = ROOT_RADIUS + SPLAY * t
            coords.append((radius * direction[0], radius * direction[1], -0.05 - LENGTH * t))
            if i:
                edges.append((len(coords) - 2, len(coords) - 1))
        # the root and the next vertex pinned: the thread leaves the knob at its angle (one pinned
        # vertex would let it turn freely about its root and the tassel close up)
        roots += [k * (SEGMENTS + 1), k * (SEGMENTS + 1) + 1]
    mesh = bpy.data.meshes.new("Tassel")
    mesh.from_pydata(coords, edges, [])
    tassel = bpy.data.objects.new("Tassel", mesh)
    bpy.context.scene.collection.objects.link(tassel)
    tassel.parent = knob  # its pinned roots follow the knob
    tassel.vertex_groups.new(name="roots").add(roots, 1.0, "REPLACE")
    settings = tassel.simbake
    settings.role = "STRANDS"
    settings.pin_group = "roots"
    settings.strand_mass_per_length = 0.005  # a thread of 5 g/m
    settings.strand_stretch_stiffness = 2000.0
    settings.strand_bend_stiffness = 2e-5
    settings.damping = 0.01
    settings.strand_air_drag = 0.05
    settings.thickness = 0.004
    mesh.materials.append(scene_kit.make_material("Thread", (0.6, 0.05, 0.08, 1.0), 0.7))
    # threads have no surface to render: the Skin modifier, above the bake, makes them 8 mm yarn
    skin = tassel.modifiers.new("Yarn", "SKIN")
    skin.use_smooth_shade = True
    skin_vertices = mesh.skin_vertices[0].data
    for vertex in skin_vertices:
        vertex.radius = (0.004, 0.004)
    for index in roots[0::2]:  # a skin root on each thread, or a render skins only the first
        skin_vertices[index].use_root = True
    return tassel


def make_stage():
    bpy.ops.mesh.primitive_uv_sphere_add(radius=0.12, location=(0.0, 0.06, HEIGHT - 0.5))
    ball = bpy.context.object
    ball.name = "Ball"
    ball.simbake.role = "COLLIDER"
    ball.simbake.thickness = 0.0
    ball.data.materials.append(scene_kit.make_material("Ball", (0.2, 0.35, 0.6, 1.0), 0.5))
    bpy.ops.object.shade_smooth()
    bpy.ops.mesh.primitive_plane_add(size=6.0, location=(0.0, 0.0, 0.0))
    bpy.context.object.name = "Floor"
    scene_kit.add_aimed("SUN", (2.0, -3.0, 5.0), (0.0, 0.0, 0.0))
    bpy.context.scene.camera = scene_kit.add_aimed("CAMERA", (0.45, -1.5, 1.25), (0.0, 0.0, 0.92))


def build():
    knob = make_knob()
    make_tassel(knob)
    make_stage()
    scene = scene_kit.configure_scene(FRAME_END, substeps=3)  # strands: steps of 1/72 s (README, "Strands")
    scene.render.engine = "BLENDER_WORKBENCH"  # threads are thin: a quick, clean preview
    scene.display.shading.color_type = "MATERIAL"
    scene.display.shading.show_shadows = True


scene_kit.main("tassel.blend", build)
