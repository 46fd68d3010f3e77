"""Builds sample_blends/tablecloth.blend: a tablecloth settles over a table while a sphere, a
cube, a cylinder and a cone drop onto the table one after another. Everything is set up with
Blender's own physics only (a Cloth modifier, active and passive rigid bodies, Collision
modifiers) and every SimBake role is left at None, so the scene shows that mapping.

    blender -b --factory-startup --python sample_blends/make_tablecloth.py -- sample_blends/tablecloth.blend
"""

import math
import os
import sys

import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # Blender does not add it
import scene_kit  # noqa: E402

TABLE_WIDTH, TABLE_DEPTH = 1.2, 0.8        # m, the top
TABLE_HEIGHT = 0.75                        # m, to the top surface
TOP_THICKNESS, LEG_WIDTH = 0.05, 0.06      # m
LEG_INSET = 0.06                           # m, from the top's edges to the legs' centres
CLOTH_WIDTH, CLOTH_DEPTH = 1.6, 1.2        # m: hangs 0.2 m over every edge
CLOTH_COLUMNS, CLOTH_ROWS = 32, 24         # vertices
CLOTH_GAP = 0.05                           # m above the table top at the start
COLLISION_DISTANCE = 0.005                 # m, cloth and collider thickness alike
FRAME_END = 72
# falling objects: (kind, Blender collision shape, location, mass kg, friction, restitution, color);
# their heights stagger their landings over the first second
DROPS = (
    ("SPHERE", "SPHERE", (-0.4, 0.15, 1.3), 1.0, 0.5, 0.4, (0.1, 0.3, 0.75, 1.0)),
    ("CUBE", "BOX", (0.35, -0.12, 1.6), 2.0, 0.6, 0.1, (0.85, 0.55, 0.1, 1.0)),
    ("CYLINDER", "CONVEX_HULL", (0.1, 0.2, 1.9), 1.5, 0.5, 0.2, (0.2, 0.6, 0.3, 1.0)),
    ("CONE", "CONVEX_HULL", (-0.12, -0.18, 2.2), 1.0, 0.5, 0.1, (0.55, 0.25, 0.6, 1.0)),
)


def make_checked_material(name, color_a, color_b, checks, aspect):
    """A gingham-like check over the UV map, which also shows how the cloth's UVs stretch;
    aspect (width / depth of the UV square's sheet) keeps the checks square."""
    material = scene_kit.make_material(name, color_a, 0.8)
    nodes, links = material.node_tree.nodes, material.node_tree.links
    checker = nodes.new("ShaderNodeTexChecker")
    checker.inputs["Color1"].default_value = color_a
    checker.inputs["Color2"].default_value = color_b
    checker.inputs["Scale"].default_value = checks
    coordinates = nodes.new("ShaderNodeTexCoord")
    mapping = nodes.new("ShaderNodeMapping")
    mapping.inputs["Scale"].default_value = (aspect, 1.0, 1.0)
    links.new(coordinates.outputs["UV"], mapping.inputs["Vector"])
    links.new(mapping.outputs["Vector"], checker.inputs["Vector"])
    links.new(checker.outputs["Color"], nodes.get("Principled BSDF").inputs["Base Color"])
    return material


def make_obstacle(obj, shape):
    """A passive rigid body (for rigid bodies) with a Collision modifier (for cloth)."""
    bpy.context.view_layer.objects.active = obj
    bpy.ops.rigidbody.object_add(type="PASSIVE")
    obj.rigid_body.collision_shape = shape
    obj.rigid_body.friction = 0.5
    bpy.ops.object.modifier_add(type="COLLISION")
    obj.collision.thickness_outer = COLLISION_DISTANCE
    obj.collision.cloth_friction = 20.0  # 0.2 as a Coulomb coefficient, so the cloth does not creep
    return obj


def make_table():
    parts = []
    bpy.ops.mesh.primitive_cube_add(location=(0.0, 0.0, TABLE_HEIGHT - 0.5 * TOP_THICKNESS))
    top = bpy.context.object
    top.scale = (0.5 * TABLE_WIDTH, 0.5 * TABLE_DEPTH, 0.5 * TOP_THICKNESS)
    parts.append(top)
    leg_height = TABLE_HEIGHT - TOP_THICKNESS
    for sx in (-1, 1):
        for sy in (-1, 1):
            bpy.ops.mesh.primitive_cube_add(location=(sx * (0.5 * TABLE_WIDTH - LEG_INSET),
                                                      sy * (0.5 * TABLE_DEPTH - LEG_INSET), 0.5 * leg_height))
            leg = bpy.context.object
            leg.scale = (0.5 * LEG_WIDTH, 0.5 * LEG_WIDTH, 0.5 * leg_height)
            parts.append(leg)
    # one object: its triangle mesh is the obstacle, legs and all
    bpy.ops.object.select_all(action="DESELECT")
    for part in parts:
        part.select_set(True)
    bpy.context.view_layer.objects.active = top
    bpy.ops.object.join()
    bpy.ops.object.transform_apply(location=False, rotation=False, scale=True)
    table = bpy.context.object
    table.name = "Table"
    table.data.name = "Table"
    table.data.materials.append(scene_kit.make_material("Wood", (0.35, 0.18, 0.08, 1.0), 0.6))
    return make_obstacle(table, "MESH")


def make_tablecloth():
    bpy.ops.mesh.primitive_grid_add(x_subdivisions=CLOTH_COLUMNS - 1, y_subdivisions=CLOTH_ROWS - 1,
                                    size=1.0, calc_uvs=True, location=(0.0, 0.0, TABLE_HEIGHT + CLOTH_GAP))
    cloth = bpy.context.object
    cloth.name = "Tablecloth"
    cloth.data.name = "Tablecloth"
    cloth.scale = (CLOTH_WIDTH, CLOTH_DEPTH, 1.0)
    bpy.ops.object.transform_apply(location=False, rotation=False, scale=True)
    bpy.ops.object.modifier_add(type="CLOTH")
    settings = cloth.modifiers["Cloth"].settings
    # close to Blender's Cotton preset
    settings.quality = 5
    settings.mass = 0.3
    settings.tension_stiffness = settings.compression_stiffness = 15.0
    settings.shear_stiffness = 15.0
    settings.bending_stiffness = 0.5
    settings.tension_damping = settings.compression_damping = settings.shear_damping = 5.0
    settings.air_damping = 1.0
    collisions = cloth.modifiers["Cloth"].collision_settings
    collisions.use_collision = True
    collisions.distance_min = COLLISION_DISTANCE
    collisions.use_self_collision = False
    cloth.modifiers["Cloth"].point_cache.frame_end = FRAME_END
    cloth.data.materials.append(make_checked_material("Gingham", (0.75, 0.08, 0.08, 1.0),
                                                      (0.9, 0.88, 0.85, 1.0), 12.0,
                                                      CLOTH_WIDTH / CLOTH_DEPTH))
    for polygon in cloth.data.polygons:
        polygon.use_smooth = True
    # after the Cloth modifier, so it thickens the simulated surface for rendering only
    cloth.modifiers.new("Thickness", "SOLIDIFY").thickness = 0.004
    return cloth


def make_drops():
    for kind, shape, location, mass, friction, restitution, color in DROPS:
        if kind == "SPHERE":
            bpy.ops.mesh.primitive_uv_sphere_add(segments=24, ring_count=12, radius=0.12, location=location)
        elif kind == "CUBE":
            # tilted, so it lands on an edge and tips over
            bpy.ops.mesh.primitive_cube_add(size=0.22, location=location,
                                            rotation=(math.radians(20.0), math.radians(10.0), 0.0))
        elif kind == "CYLINDER":
            bpy.ops.mesh.primitive_cylinder_add(vertices=20, radius=0.09, depth=0.3, location=location,
                                                rotation=(0.0, math.radians(15.0), 0.0))
        else:
            bpy.ops.mesh.primitive_cone_add(vertices=20, radius1=0.12, depth=0.25, location=location)
        obj = bpy.context.object
        obj.name = kind.title()
        obj.data.name = kind.title()
        obj.data.materials.append(scene_kit.make_material(kind.title(), color, 0.35))
        if kind in ("SPHERE", "CYLINDER"):
            for polygon in obj.data.polygons:
                polygon.use_smooth = True
        bpy.ops.rigidbody.object_add(type="ACTIVE")
        body = obj.rigid_body
        body.collision_shape = shape
        body.mass = mass
        body.friction = friction
        body.restitution = restitution
        # what Blender's cloth needs to collide with it (SimBake's rigid role still wins)
        bpy.ops.object.modifier_add(type="COLLISION")
        obj.collision.thickness_outer = COLLISION_DISTANCE


def make_stage():
    bpy.ops.mesh.primitive_plane_add(size=6.0, location=(0.0, 0.0, 0.0))
    floor = bpy.context.object
    floor.name = "Floor"
    floor.data.name = "Floor"
    floor.data.materials.append(scene_kit.make_material("Floor", (0.8, 0.8, 0.78, 1.0), 0.9))
    make_obstacle(floor, "BOX")
    # light from the front left, so the folds over the table's edges shade
    scene_kit.add_aimed("SUN", location=(-3.0, -2.0, 4.0), target=(0.0, 0.0, 0.0)).data.energy = 4.0
    bpy.context.scene.camera = scene_kit.add_aimed("CAMERA", location=(1.4, -3.0, 2.0),
                                                   target=(0.0, 0.0, 0.7))


def build():
    make_table()
    make_tablecloth()
    make_drops()
    make_stage()
    scene = scene_kit.configure_scene(FRAME_END)
    # the rigid body world exists once make_table() adds the first rigid body
    scene.rigidbody_world.point_cache.frame_start = 1
    scene.rigidbody_world.point_cache.frame_end = FRAME_END


# scene_kit.main registers SimBake only so the saved objects carry its settings, all at role None
scene_kit.main("tablecloth.blend", build)
