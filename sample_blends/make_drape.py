"""Builds sample_blends/drape.blend: a square cloth dropped onto a sphere and a cube that stand
side by side on the floor, so it drapes over both, sags between them and hangs to the floor.

    blender -b --factory-startup --python sample_blends/make_drape.py -- sample_blends/drape.blend
"""

import math
import os
import sys

import bpy
from mathutils import Vector

CLOTH_SIZE = 1.6                  # m, side of the square sheet
CLOTH_VERTICES = 32               # vertices along each side
SPHERE_RADIUS = 0.35              # m
CUBE_SIZE = 0.5                   # m
SPHERE_X, CUBE_X = -0.45, 0.5     # side by side, with a gap the cloth can sag into
DROP = 0.4                        # m, from the sphere's top to the cloth at the start (0.6 m above the cube)
CLOTH_TURN = 30.0                 # degrees about Z: a corner, not an edge, hangs towards the camera
FRAME_END = 60


def clear_scene():
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)
    for mesh in list(bpy.data.meshes):
        bpy.data.meshes.remove(mesh)


def make_material(name, color, roughness=0.6):
    material = bpy.data.materials.new(name)
    material.diffuse_color = color
    material.use_nodes = True
    bsdf = material.node_tree.nodes.get("Principled BSDF")
    bsdf.inputs["Base Color"].default_value = color
    bsdf.inputs["Roughness"].default_value = roughness
    return material


def make_collider(obj, name, material):
    obj.name = name
    obj.data.name = name
    obj.data.materials.append(material)
    obj.simbake.role = "COLLIDER"
    return obj


def make_obstacles():
    bpy.ops.mesh.primitive_uv_sphere_add(segments=32, ring_count=16, radius=SPHERE_RADIUS,
                                         location=(SPHERE_X, 0.0, SPHERE_RADIUS))
    sphere = make_collider(bpy.context.object, "Sphere", make_material("Sphere", (0.1, 0.3, 0.7, 1.0), 0.3))
    for polygon in sphere.data.polygons:
        polygon.use_smooth = True
    bpy.ops.mesh.primitive_cube_add(size=CUBE_SIZE, location=(CUBE_X, 0.0, 0.5 * CUBE_SIZE))
    make_collider(bpy.context.object, "Cube", make_material("Cube", (0.85, 0.55, 0.1, 1.0), 0.4))


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
    cloth.data.materials.append(make_material("Fabric", (0.75, 0.1, 0.12, 1.0), 0.8))
    for polygon in cloth.data.polygons:
        polygon.use_smooth = True
    solidify = cloth.modifiers.new("Thickness", "SOLIDIFY")
    solidify.thickness = 0.004
    return cloth


def add_aimed(kind, location, target):
    """A light or camera at location, looking at target."""
    if kind == "CAMERA":
        bpy.ops.object.camera_add(location=location)
    else:
        bpy.ops.object.light_add(type=kind, location=location)
    obj = bpy.context.object
    obj.rotation_euler = (Vector(target) - Vector(location)).to_track_quat("-Z", "Y").to_euler()
    return obj


def make_stage():
    bpy.ops.mesh.primitive_plane_add(size=6.0, location=(0.0, 0.0, 0.0))
    make_collider(bpy.context.object, "Floor", make_material("Floor", (0.8, 0.8, 0.78, 1.0), 0.9))
    # light from the front left, low enough that the folds cast shadows
    add_aimed("SUN", location=(-3.0, -2.0, 3.0), target=(0.0, 0.0, 0.0)).data.energy = 4.0
    bpy.context.scene.camera = add_aimed("CAMERA", location=(-1.2, -2.8, 1.6), target=(0.0, 0.0, 0.25))


def configure_scene():
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, FRAME_END
    scene.render.fps = 24
    scene.simbake.frame_start, scene.simbake.frame_end = 1, FRAME_END
    scene.simbake.substeps = 1
    scene.render.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = 24
    scene.cycles.use_denoising = False  # Debian's Blender is built without OpenImageDenoise
    scene.render.resolution_x, scene.render.resolution_y = 480, 360
    scene.world.color = (0.6, 0.65, 0.7)


def main():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    output = os.path.abspath(argv[0] if argv else os.path.join(os.path.dirname(__file__), "drape.blend"))
    os.makedirs(os.path.dirname(output), exist_ok=True)
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sys.path.insert(0, os.path.join(repo, "addon"))
    import simbake
    simbake.register()
    clear_scene()
    make_obstacles()
    make_cloth()
    make_stage()
    configure_scene()
    bpy.ops.wm.save_as_mainfile(filepath=output, compress=True)
    print(f"wrote {output}")


main()
