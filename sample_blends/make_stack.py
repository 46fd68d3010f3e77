"""Builds sample_blends/stack.blend: a tower of eight boxes on the floor, a pile of small boxes
dropped beside it from a loose grid, and a heavy box thrown from the left that knocks the top
of the tower over partway through.

    blender -b --factory-startup --python sample_blends/make_stack.py -- sample_blends/stack.blend
"""

import math
import os
import random
import sys

import bpy
from mathutils import Vector

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # Blender does not add it
import scene_kit  # noqa: E402

GRAVITY = 9.81                    # m/s², the scene's default; the throw is aimed with it
TOWER_X = -0.5                    # m, the tower's axis
TOWER_BOXES, TOWER_BOX = 8, 0.4   # count, edge length (m)
TOWER_BOX_MASS = 2.0              # kg
PILE_X = 1.0                      # m, centre of the pile
PILE_GRID, PILE_LAYERS = 3, 4     # a 3 x 3 grid, four layers high: 36 boxes
PILE_BOX = 0.25                   # m, edge length
PILE_SPACING = 0.36               # m between grid points: loose, so they tumble on landing, yet
                                  # wide enough that no two boxes start overlapping
PILE_BOTTOM = 0.3                 # m, height of the lowest layer's centres
PILE_TILT = math.radians(15.0)    # largest start rotation about each axis
PILE_JITTER = 0.02                # m, largest start offset from the grid point
PROJECTILE_BOX, PROJECTILE_MASS = 0.3, 5.0
PROJECTILE_START = (-3.2, 0.0, 1.2)
HIT_BOX = 5                       # the tower box it is aimed at, counted from 0 at the floor
HIT_TIME = 0.9                    # s after the start
FRAME_END = 72


def make_box(name, size, location, rotation, mass, material):
    bpy.ops.mesh.primitive_cube_add(size=size, location=location, rotation=rotation)
    box = bpy.context.object
    box.name = name
    box.data.name = name
    box.data.materials.append(material)
    settings = box.simbake
    settings.role = "RIGID"
    settings.shape = "BOX"
    settings.mass = mass
    settings.friction = 0.5
    return box


def make_tower():
    # two alternating colours, so the separate boxes read clearly when it falls
    colors = (scene_kit.make_material("Tower A", (0.8, 0.45, 0.1, 1.0)),
              scene_kit.make_material("Tower B", (0.9, 0.75, 0.35, 1.0)))
    for level in range(TOWER_BOXES):
        make_box(f"Tower {level}", TOWER_BOX, (TOWER_X, 0.0, (level + 0.5) * TOWER_BOX), (0.0, 0.0, 0.0),
                 TOWER_BOX_MASS, colors[level % 2])


def make_pile():
    rng = random.Random(7)  # seeded: the same pile every time the scene is built
    colors = [scene_kit.make_material(f"Pile {k}", color) for k, color in enumerate(
        ((0.15, 0.35, 0.75, 1.0), (0.2, 0.6, 0.35, 1.0), (0.85, 0.85, 0.85, 1.0), (0.55, 0.25, 0.6, 1.0)))]
    offset = 0.5 * (PILE_GRID - 1) * PILE_SPACING
    for i in range(PILE_GRID):
        for j in range(PILE_GRID):
            for k in range(PILE_LAYERS):
                # every other layer shifted by half a cell, so boxes land on edges and tip over
                # instead of settling into tidy columns
                stagger = 0.5 * PILE_SPACING * (k % 2)
                location = (PILE_X + i * PILE_SPACING - offset + stagger + rng.uniform(-PILE_JITTER, PILE_JITTER),
                            j * PILE_SPACING - offset + stagger + rng.uniform(-PILE_JITTER, PILE_JITTER),
                            PILE_BOTTOM + k * PILE_SPACING)
                rotation = tuple(rng.uniform(-PILE_TILT, PILE_TILT) for _ in range(3))
                make_box(f"Pile {i}{j}{k}", PILE_BOX, location, rotation, rng.uniform(1.0, 2.0),
                         rng.choice(colors))


def make_projectile():
    """A heavy box thrown on a ballistic arc that meets the tower's box HIT_BOX at HIT_TIME."""
    target = Vector((TOWER_X - 0.5 * (TOWER_BOX + PROJECTILE_BOX), 0.0, (HIT_BOX + 0.5) * TOWER_BOX))
    start = Vector(PROJECTILE_START)
    velocity = (target - start) / HIT_TIME
    velocity.z += 0.5 * GRAVITY * HIT_TIME
    box = make_box("Projectile", PROJECTILE_BOX, start, (0.0, 0.0, 0.0), PROJECTILE_MASS,
                   scene_kit.make_material("Projectile", (0.7, 0.05, 0.05, 1.0), 0.3))
    box.simbake.initial_velocity = velocity
    return box


def make_stage():
    bpy.ops.mesh.primitive_plane_add(size=10.0, location=(0.0, 0.0, 0.0))
    floor = bpy.context.object
    floor.name = "Floor"
    floor.data.materials.append(scene_kit.make_material("Floor", (0.8, 0.8, 0.78, 1.0), 0.9))
    floor.simbake.role = "COLLIDER"
    floor.simbake.friction = 0.5
    # light from the front left, so the boxes' sides shade differently
    scene_kit.add_aimed("SUN", location=(-3.0, -2.5, 4.0), target=(0.0, 0.0, 0.0)).data.energy = 4.0
    bpy.context.scene.camera = scene_kit.add_aimed("CAMERA", location=(0.8, -7.8, 3.2),
                                                   target=(0.3, 0.0, 1.3))



def build():
    make_tower()
    make_pile()
    make_projectile()
    make_stage()
    scene = scene_kit.configure_scene(FRAME_END)
    scene.gravity = (0.0, 0.0, -GRAVITY)


scene_kit.main("stack.blend", build)
