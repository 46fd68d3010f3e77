"""Builds sample_blends/drape.blend: a square cloth dropped onto a sphere and a cube that stand
side by side on the floor, so it drapes over both, sags between them and hangs to the floor.

    blender -b --factory-startup --python sample_blends/make_drape.py -- sample_blends/drape.blend
"""

import math
import os
import sys

import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # Blender does not add it
import scene_kit  # noqa: E402

CLOTH_SIZE = 1.6                  # m, side of the square sheet
CLOTH_VERTICES = 32               # vertices along each side
SPHERE_RADIUS = 0.35              # m
CUBE_SIZE = 0.5                   # m
SPHERE_X, CUBE_X = -0.45, 0.5     # side by side, with a gap the cloth can sag into
DROP = 0.4                        # m, from the sphere's top to the cloth at the start (0.6 m above the cube)
CLOTH_TURN = 30.0                 # degrees about Z: a corner, not an edge, hangs towards the camera
FRAME_END = 60


def make_collider(obj, name, material):
    obj.name = name
    obj.data.name = name
    obj.data.materials.append(material)
    obj.simbake.role = "COLLIDER"
    return obj


def make_obstacles():
    bpy.ops.mesh.primitive_uv_sphere_add(segments=32, ring_count=16, radius=SPHERE_RADIUS,
                                         location=(SPHERE_X, 0.0, SPHERE_RADIUS))
    sphere = make_collider(bpy.context.object, "Sphere",
                           scene_kit.make_material("Sphere", (0.1, 0.3, 0.7, 1.0), 0.3))
    for polygon in sphere.data.polygons:
        polygon.use_smooth = True
    bpy.ops.mesh.primitive_cube_add(size=CUBE_SIZE, location=(CUBE_X, 0.0, 0.5 * CUBE_SIZE))
    make_collider(bpy.context.object, "Cube", scene_kit.make_material("Cube", (0.85, 0.55, 0.1, 1.0), 0.4))


def make_cloth():
    bpy.ops.mesh.primitive_grid_add(x_subdivisions=CLOTH_VERTICES - 1, y_subdivisions=CLOTH_VERTICES - 1,
                                    size=CLOTH_SIZE, calc_uvs=True)
    cloth = bpy.context.object
    cloth.name = "Cloth"
    cloth.data.name = "Cloth"
    # centred over the pair, so it catches both and hangs to the floor on every side
    cloth.location = (0.5 * (SPHERE_X + CUBE_X), 0.0, 2.0 * SPHERE_RADIUS + DROP)
    # turned, so the corners fall into folds and the sphere's side stays in view
    cloth.rotation_euler = (0.0, 0.0, math.radians(CLOTH_TURN))
    settings = cloth.simbake
    settings.role = "CLOTH"
    settings.density = 0.2
    settings.stretch_stiffness = 3000.0
    settings.shear_stiffness = 300.0
    settings.bend_stiffness = 1e-4
    settings.damping = 0.01
    settings.air_drag = 0.2
    settings.thickness = 0.005
    settings.friction = 0.5
    settings.self_collision = True     # the folds on the floor lie on each other
    cloth.data.materials.append(scene_kit.make_material("Fabric", (0.75, 0.1, 0.12, 1.0), 0.8))
    for polygon in cloth.data.polygons:
        polygon.use_smooth = True
    solidify = cloth.modifiers.new("Thickness", "SOLIDIFY")
    solidify.thickness = 0.004
    return cloth


def make_stage():
    bpy.ops.mesh.primitive_plane_add(size=6.0, location=(0.0, 0.0, 0.0))
    make_collider(bpy.context.object, "Floor", scene_kit.make_material("Floor", (0.8, 0.8, 0.78, 1.0), 0.9))
    # light from the front left, low enough that the folds cast shadows
    scene_kit.add_aimed("SUN", location=(-3.0, -2.0, 3.0), target=(0.0, 0.0, 0.0)).data.energy = 4.0
    bpy.context.scene.camera = scene_kit.add_aimed("CAMERA", location=(-1.2, -2.8, 1.6),
                                                   target=(0.0, 0.0, 0.25))


def build():
    make_obstacles()
    make_cloth()
    make_stage()
    scene_kit.configure_scene(FRAME_END)


scene_kit.main("drape.blend", build)
