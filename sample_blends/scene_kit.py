"""Shared helpers for the sample scene builders in this folder (make_*.py), run inside Blender.

Each builder keeps its own constants and objects; this module holds what they all repeat:
emptying the startup scene, simple Principled materials, aimed lights and cameras, the
common scene, render and SimBake settings, and main(), which registers the add-on, builds
the scene and saves it. A builder imports it after putting this folder on sys.path:

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # Blender does not add it
    import scene_kit
"""

import os
import sys

import bpy
from mathutils import Vector

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def clear_scene():
    # --factory-startup still brings a cube, a light and a camera; the builders add their own
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)
    for mesh in list(bpy.data.meshes):
        bpy.data.meshes.remove(mesh)


def make_material(name, color, roughness=0.5):
    material = bpy.data.materials.new(name)
    material.diffuse_color = color  # the viewport's solid colour, matching the render
    material.use_nodes = True
    bsdf = material.node_tree.nodes.get("Principled BSDF")
    bsdf.inputs["Base Color"].default_value = color
    bsdf.inputs["Roughness"].default_value = roughness
    return material


def add_aimed(kind, location, target):
    """A light (kind is its type, e.g. "SUN") or a camera (kind "CAMERA") at location,
    looking at target."""
    if kind == "CAMERA":
        bpy.ops.object.camera_add(location=location)
    else:
        bpy.ops.object.light_add(type=kind, location=location)
    obj = bpy.context.object
    obj.rotation_euler = (Vector(target) - Vector(location)).to_track_quat("-Z", "Y").to_euler()
    return obj


def configure_scene(frame_end, substeps=1):
    """Frames 1 to frame_end at 24 fps, baked by SimBake over the same range, and a small,
    quick Cycles render for the previews. Returns the scene for settings of its own."""
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, frame_end
    scene.render.fps = 24
    scene.simbake.frame_start, scene.simbake.frame_end = 1, frame_end
    scene.simbake.substeps = substeps
    scene.render.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = 24
    scene.cycles.use_denoising = False  # Debian's Blender is built without OpenImageDenoise
    scene.render.resolution_x, scene.render.resolution_y = 480, 360
    scene.world.color = (0.6, 0.65, 0.7)
    return scene


def main(default_name, build):
    """Builds the scene with build() into an emptied startup scene and saves it to the path
    given after "--" on Blender's command line, or to default_name in this folder."""
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    output = os.path.abspath(argv[0] if argv else os.path.join(HERE, default_name))
    os.makedirs(os.path.dirname(output), exist_ok=True)
    # the add-on from this checkout, not an installed one: its properties (obj.simbake,
    # scene.simbake) must exist before the builders set them
    sys.path.insert(0, os.path.join(REPO, "addon"))
    import simbake
    simbake.register()
    clear_scene()
    build()
    bpy.ops.wm.save_as_mainfile(filepath=output, compress=True)
    print(f"wrote {output}")
