"""Builds sample_blends/curtain.blend: a curtain pinned along its top edge, released from a
tilted start so it swings down, then drawn: an animated shape key gathers the pinned top
edge towards one side, and the cloth folds.

    blender -b --factory-startup --python sample_blends/make_curtain.py -- sample_blends/curtain.blend
"""

import math
import os
import sys

import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # Blender does not add it
import scene_kit  # noqa: E402

WIDTH, HEIGHT = 1.6, 2.0          # m
COLUMNS, ROWS = 32, 40            # vertices across and down
TOP = 2.4                         # height of the rail, m
FRAME_END = 96


def make_curtain():
    bpy.ops.mesh.primitive_grid_add(x_subdivisions=COLUMNS - 1, y_subdivisions=ROWS - 1,
                                    size=1.0, calc_uvs=True)
    curtain = bpy.context.object
    curtain.name = "Curtain"
    mesh = curtain.data
    mesh.name = "Curtain"
    # grid spans [-0.5, 0.5]²: scale into a WIDTH x HEIGHT sheet hanging from its top edge at the
    # object's origin, in the XZ plane
    for v in mesh.vertices:
        x, y, _ = v.co
        v.co = (x * WIDTH, 0.0, (y - 0.5) * HEIGHT)
    pin = curtain.vertex_groups.new(name="pin")
    top = [v.index for v in mesh.vertices if v.co.z > -1e-6]
    pin.add(top, 1.0, "REPLACE")
    # released from 35° towards the viewer, so it swings down
    curtain.location = (0.0, 0.0, TOP)
    curtain.rotation_euler = (math.radians(-35.0), 0.0, 0.0)
    # drawing the curtain: a shape key slides the top edge's vertices towards the left end
    curtain.shape_key_add(name="Basis")
    drawn = curtain.shape_key_add(name="Drawn")
    left = -0.5 * WIDTH
    for index in top:
        co = drawn.data[index].co
        co.x = left + 0.04 + (co.x - left) * 0.3
    for frame, value in ((12, 0.0), (48, 1.0)):
        drawn.value = value
        drawn.keyframe_insert("value", frame=frame)
    settings = curtain.simbake
    settings.role = "CLOTH"
    settings.pin_group = "pin"
    settings.density = 0.25
    settings.stretch_stiffness = 5000.0
    settings.shear_stiffness = 500.0
    settings.bend_stiffness = 5e-5
    settings.damping = 0.01
    settings.air_drag = 0.3
    settings.self_collision = True
    settings.thickness = 0.004
    mesh.materials.append(scene_kit.make_material("Fabric", (0.55, 0.08, 0.12, 1.0), 0.8))
    for polygon in mesh.polygons:
        polygon.use_smooth = True
    solidify = curtain.modifiers.new("Thickness", "SOLIDIFY")
    solidify.thickness = 0.004
    return curtain


def make_stage():
    bpy.ops.mesh.primitive_plane_add(size=8.0, location=(0.0, 0.0, 0.0))
    floor = bpy.context.object
    floor.name = "Floor"
    bpy.ops.mesh.primitive_cylinder_add(radius=0.015, depth=2.4, location=(0.0, 0.0, TOP + 0.02),
                                        rotation=(0.0, math.radians(90.0), 0.0))
    bpy.context.object.name = "Rail"
    bpy.ops.object.light_add(type="SUN", location=(2.0, -3.0, 5.0), rotation=(0.6, 0.2, 0.4))
    bpy.context.object.data.energy = 3.0
    bpy.ops.object.camera_add(location=(2.6, -4.6, 1.9), rotation=(math.radians(84.0), 0.0, math.radians(30.0)))
    bpy.context.scene.camera = bpy.context.object


def build():
    make_curtain()
    make_stage()
    scene_kit.configure_scene(FRAME_END, substeps=2)


scene_kit.main("curtain.blend", build)
