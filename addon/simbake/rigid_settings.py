"""Rigid bodies from object settings: SimBake's own (role RIGID or COLLIDER) or Blender's
Rigid Body settings (role NONE), and the collision shape from the object's mesh. No bpy
here: functions take any object with the same attributes."""

import math

from . import transforms
from .settings import SettingsError

# Blender's collision shapes that SimBake has; the others become the mesh's convex hull.
SAME_SHAPES = ("BOX", "SPHERE", "CONVEX_HULL", "MESH", "CAPSULE", "CYLINDER", "CONE")

# Blender's Deactivation → the library's sleeping (sb_body_def): settings of a moving body.
DEACTIVATION = {"use_deactivation": "use_deactivation", "use_start_deactivated": "start_deactivated",
                "deactivate_linear_velocity": "deactivate_linear_velocity",
                "deactivate_angular_velocity": "deactivate_angular_velocity"}


def collision_groups(collections):
    """Blender's 20 Collision Collections as the library's mask: bit k for collection k + 1
    (two bodies collide when they share one)."""
    return sum(1 << k for k, on in enumerate(collections) if on)


def world_time_scale(rigid_world):
    """The rigid body world's Speed (time_scale) as the library's rigid_time_scale: the
    bodies' seconds per second of the scene. Raises SettingsError when nothing could move."""
    scale = getattr(rigid_world, "time_scale", 1.0) if rigid_world is not None else 1.0
    if not (math.isfinite(scale) and 0.0 < scale <= 100.0):
        raise SettingsError(f"the rigid body world's Speed is {scale:g}; SimBake needs it above 0 and at most 100")
    return scale


# the shapes a part of a compound can have (convex ones)
PART_SHAPES = ("BOX", "SPHERE", "CONVEX_HULL", "CAPSULE", "CYLINDER", "CONE")


def body_settings(obj, moving, has_parts=False):
    """Keyword arguments of native.World.add_body but the type and the geometry, and
    warnings: for a moving (dynamic) body or an obstacle; `has_parts`: the object is a
    Compound Parent with children to make its shape (rigid_compound.py). Raises SettingsError
    naming the object."""
    props = obj.simbake
    rigid_body = getattr(obj, "rigid_body", None)
    warnings = []
    if props.role in ("RIGID", "COLLIDER") or rigid_body is None:
        shape = props.shape if props.role == "RIGID" else "MESH"
        values = {"mass": props.mass, "friction": props.friction, "restitution": props.restitution}
        if props.role == "RIGID":
            values["linear_velocity"] = tuple(props.initial_velocity)
            values["angular_velocity"] = tuple(props.initial_angular_velocity)
    else:
        shape = rigid_body.collision_shape
        if shape == "COMPOUND" and not has_parts:
            warnings.append(f"{obj.name}: a Compound Parent with no rigid body children is baked as its mesh's "
                            "convex hull")
            shape = "CONVEX_HULL"
        elif shape not in SAME_SHAPES + ("COMPOUND",):
            warnings.append(f"{obj.name}: its {shape.lower()} collision shape is baked as the mesh's convex hull")
            shape = "CONVEX_HULL"
        values = {"mass": rigid_body.mass, "friction": rigid_body.friction, "restitution": rigid_body.restitution,
                  "linear_damping": rigid_body.linear_damping, "angular_damping": rigid_body.angular_damping,
                  "collision_groups": collision_groups(rigid_body.collision_collections)}
        if moving:
            values.update({ours: getattr(rigid_body, blenders) for blenders, ours in DEACTIVATION.items()})
    # two-way coupling with the bake's cloth (role NONE too: the switch is SimBake's own)
    values["feels_cloth"] = 1 if props.feels_cloth else 0
    if moving and shape == "MESH":
        warnings.append(f"{obj.name}: a moving body cannot be a triangle mesh; it is baked as the mesh's convex hull")
        shape = "CONVEX_HULL"
    values["shape"] = shape
    for name in ("mass", "friction", "restitution", "linear_damping", "angular_damping", "deactivate_linear_velocity",
                 "deactivate_angular_velocity"):
        value = values.get(name)
        if value is None:
            continue
        if not math.isfinite(value) or value < 0 or (name == "mass" and moving and value == 0):
            raise SettingsError(f"{obj.name}: rigid body {name} is {value:g}; it must be "
                                f"{'positive' if name == 'mass' else 'zero or positive'}")
    if values["restitution"] > 1:
        raise SettingsError(f"{obj.name}: restitution (bounciness) is {values['restitution']:g}; it must be at most 1")
    return values, warnings


# Blender's modifiers that only move vertices (eModifierTypeType_OnlyDeform): the mesh of
# Source 'Deform' has those at the start of the stack applied, up to the first that builds geometry
DEFORM_ONLY = frozenset(("ARMATURE", "CAST", "CLOTH", "COLLISION", "CORRECTIVE_SMOOTH", "CURVE", "DISPLACE", "HOOK",
                         "LAPLACIANDEFORM", "LAPLACIANSMOOTH", "LATTICE", "MESH_CACHE", "MESH_DEFORM", "SHRINKWRAP",
                         "SIMPLE_DEFORM", "SMOOTH", "SOFT_BODY", "SURFACE_DEFORM", "WARP", "WAVE"))


def mesh_source(obj):
    """Which mesh a body's hull or triangle mesh is built from, as Blender's rigid body Source
    says (rigidbody_get_mesh): 'BASE' (the mesh itself, no shape keys or modifiers), 'DEFORM'
    (shape keys and the deforming modifiers at the start of the stack) or 'FINAL' (every
    modifier). SimBake's own roles take the final mesh; so do boxes and spheres, whose size
    Blender takes from the evaluated bounding box."""
    body = getattr(obj, "rigid_body", None)
    if obj.simbake.role != "NONE" or body is None or body.collision_shape not in ("CONVEX_HULL", "MESH"):
        return "FINAL"
    return getattr(body, "mesh_source", "DEFORM")


def deform_cut(modifiers):
    """Index of the first modifier shown in the viewport that builds geometry (its and the later
    ones are hidden for Source 'Deform'); len(modifiers) when there is none."""
    for index, modifier in enumerate(modifiers):
        if modifier.show_viewport and modifier.type not in DEFORM_ONLY:
            return index
    return len(modifiers)


def part_shape(obj):
    """The shape a child of a Compound Parent gives it, and warnings: a part is convex."""
    shape = obj.rigid_body.collision_shape
    if shape in PART_SHAPES:
        return shape, []
    return "CONVEX_HULL", [f"{obj.name}: its {shape.lower()} collision shape, a part of its parent's compound, is "
                           "baked as the mesh's convex hull"]


def shape_geometry(shape, moving, world_matrix, local_positions, world_positions, triangles):
    """The add_body geometry of a shape: a box, sphere, capsule, cylinder or cone around the mesh's local
    bounding box (as Blender's rigid body shapes), or its vertices and triangles in world space.
    Returns (shape, keyword arguments): a flat box that cannot move becomes its mesh."""
    if shape in ("BOX", "SPHERE", "CAPSULE", "CYLINDER", "CONE"):
        if not local_positions:
            raise SettingsError("the mesh has no vertices")
        lo = [min(local_positions[k::3]) for k in range(3)]
        hi = [max(local_positions[k::3]) for k in range(3)]
        scale = transforms.column_lengths(world_matrix)
        half = [0.5 * (hi[k] - lo[k]) * scale[k] for k in range(3)]
        mid = [0.5 * (hi[k] + lo[k]) for k in range(3)]
        m = world_matrix
        center = [m[4 * r] * mid[0] + m[4 * r + 1] * mid[1] + m[4 * r + 2] * mid[2] + m[4 * r + 3] for r in range(3)]
        largest = max(half)
        if not largest > 0:
            raise SettingsError("the mesh has no extent")
        if shape == "SPHERE":
            return shape, {"center": center, "radius": largest}
        rotation = transforms.quaternion_from_matrix(transforms.rotation_part(transforms.rigid_part(m)))
        if shape in ("CYLINDER", "CONE"):  # along local z, as Blender's: radius the larger half-width, the half height
            radius = max(half[0], half[1])
            if not (radius > 0 and half[2] > 0):
                raise SettingsError(f"the {shape.lower()} has no width or no height")
            return shape, {"center": center, "radius": radius, "half_extents": (0.0, 0.0, half[2]), "rotation": rotation}
        if shape == "CAPSULE":  # along local z: radius the larger half-width, the core what the ends leave
            radius = max(half[0], half[1])
            if not radius > 0:
                raise SettingsError("the capsule has no width")
            return shape, {"center": center, "radius": radius, "half_extents": (0.0, 0.0, max(0.0, half[2] - radius)),
                           "rotation": rotation}
        if min(half) < 1e-6 * largest:
            if not moving:  # a ground plane: its faces are its exact surface
                return "MESH", {"vertices": world_positions, "triangles": triangles}
            half = [max(h, 1e-3 * largest) for h in half]
        rotation = transforms.quaternion_from_matrix(transforms.rotation_part(transforms.rigid_part(m)))
        return shape, {"center": center, "half_extents": half, "rotation": rotation}
    if shape == "MESH" and not len(triangles):
        raise SettingsError("the mesh has no faces to collide with")
    return shape, {"vertices": world_positions, "triangles": triangles}

