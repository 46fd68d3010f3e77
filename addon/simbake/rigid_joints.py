"""Blender's rigid body constraints as SimBake joints (native.World.add_joint). No bpy here:
functions take any objects with the same attributes.

As in Blender (rigidbody.cc): a constraint acts when its object is in the rigid body world's
Constraints collection, it is enabled and both of its objects are rigid bodies of the world;
its object's world matrix at the first frame gives the pivot and the axes (Hinge turns about
its Z, Slider and Piston move along its X); limits are those of Bullet's constraints, of
object2's frame relative to object1's; Breakable breaks the constraint when one of its rows
carries the Threshold impulse in one of Blender's substeps (Bullet's rule); Generic Spring's
springs pull each axis back to where it started; a Motor drives object1 relative to object2
along and about its X (Bullet's sign), its Max Impulse a force as Bullet's 6-DOF motor reads it
(per second, not per step). What is not carried over (Override Iterations, the old spring
type's damping) is warned about by unmapped.rigid_body_constraint."""

import math

from . import transforms

TYPES = {"FIXED": "FIXED", "POINT": "POINT", "HINGE": "HINGE", "SLIDER": "SLIDER", "PISTON": "PISTON",
         "GENERIC": "GENERIC", "GENERIC_SPRING": "GENERIC", "MOTOR": "GENERIC"}

# (SimBake's coordinate, Blender's name): 0..2 translation along X, Y, Z; 3..5 rotation about them
_AXES = ((0, "lin_x"), (1, "lin_y"), (2, "lin_z"), (3, "ang_x"), (4, "ang_y"), (5, "ang_z"))
LIMITED_AXES = {"FIXED": (), "POINT": (), "HINGE": (5,), "SLIDER": (0,), "PISTON": (0, 3),
                "GENERIC": (0, 1, 2, 3, 4, 5), "GENERIC_SPRING": (0, 1, 2, 3, 4, 5), "MOTOR": ()}
_SPRING_NAMES = ("x", "y", "z", "ang_x", "ang_y", "ang_z")


def constraint_objects(scene):
    """The objects whose constraints Blender simulates: those in the rigid body world's
    Constraints collection (the Connect operator puts its empties there)."""
    world = getattr(scene, "rigidbody_world", None)
    collection = getattr(world, "constraints", None) if world is not None else None
    if collection is None:
        return []
    return [obj for obj in collection.all_objects if getattr(obj, "rigid_body_constraint", None) is not None]


def breaking_step(world, fps):
    """Blender's rigid body substep, s: the step its Breaking Threshold is an impulse over.
    `fps`: frames per second (render.fps / render.fps_base)."""
    substeps = getattr(world, "substeps_per_frame", None)
    if substeps is not None:
        return getattr(world, "time_scale", 1.0) / (fps * substeps)
    return 1.0 / getattr(world, "steps_per_second", 60)  # Blender before 2.91


def limits(constraint):
    """{coordinate: (lower, upper)} of the constraint's limits in use, and warnings (without
    the object's name). Bullet leaves an axis free when its lower limit is above its upper; an
    angle range of a full turn or more is no limit; others are clipped to ±180°."""
    kind = constraint.type
    out, notes = {}, []
    for axis in LIMITED_AXES.get(kind, ()):
        name = _AXES[axis][1]
        if not getattr(constraint, f"use_limit_{name}", False):
            continue
        lower = float(getattr(constraint, f"limit_{name}_lower"))
        upper = float(getattr(constraint, f"limit_{name}_upper"))
        if lower > upper:
            continue
        if axis >= 3:
            if lower <= -math.pi and upper >= math.pi:
                continue
            if lower < -math.pi or upper > math.pi:
                notes.append(f"its {name.replace('_', ' ')} limits beyond ±180° are clipped to ±180°")
                lower, upper = max(lower, -math.pi), min(upper, math.pi)
        out[axis] = (lower, upper)
    return out, notes


def motors(constraint):
    """{coordinate: (velocity, max force)} of a Motor constraint. Bullet's motor row is
    J v = target with J = +X on object1 and -X on object2: object1 turns (moves) relative to
    object2, so SimBake's coordinate, object2's relative to object1, goes at -target."""
    if constraint.type != "MOTOR":
        return {}
    out = {}
    if constraint.use_motor_lin:
        out[0] = (-float(constraint.motor_lin_target_velocity), float(constraint.motor_lin_max_impulse))
    if constraint.use_motor_ang:
        out[3] = (-float(constraint.motor_ang_target_velocity), float(constraint.motor_ang_max_impulse))
    return out


def springs(constraint):
    """{coordinate: (stiffness, damping)} of a Generic Spring constraint's springs in use."""
    if constraint.type != "GENERIC_SPRING":
        return {}
    return {axis: (float(getattr(constraint, f"spring_stiffness_{name}")),
                   float(getattr(constraint, f"spring_damping_{name}")))
            for axis, name in enumerate(_SPRING_NAMES) if getattr(constraint, f"use_spring_{name}", False)}


def joint_settings(constraint, matrix_world, step):
    """Keyword arguments of native.World.add_joint but the bodies, for a constraint whose type
    SimBake has (TYPES), and warnings without the object's name. matrix_world: the constraint
    object's world matrix, 16 row-major."""
    rigid = transforms.rigid_part(matrix_world)
    rotation = transforms.quaternion_from_matrix(transforms.rotation_part(rigid))
    values = {"joint_type": TYPES[constraint.type], "pivot": (rigid[3], rigid[7], rigid[11]), "rotation": rotation,
              "disable_collisions": bool(constraint.disable_collisions)}
    values["limits"], notes = limits(constraint)
    values["motors"], values["springs"] = motors(constraint), springs(constraint)
    if constraint.use_breaking:
        threshold = float(constraint.breaking_threshold)
        if not threshold > 0.0:  # Bullet breaks it at the first step with any load
            threshold = 1e-12
        values["breaking_threshold"], values["breaking_step"] = threshold, step
    return values, notes


def plan(constraint_owners, bodies):
    """Which constraints become joints: [(owner, body a, body b)] and warnings. `bodies`: the
    bake's bodies by object (moving and obstacles). Blender leaves out a constraint that is off,
    has no second object or joins an object without a rigid body; so does the bake, saying so
    for the last two."""
    joints, warnings = [], []
    for owner in constraint_owners:
        constraint = owner.rigid_body_constraint
        if not constraint.enabled or constraint.type not in TYPES:
            continue  # off, as in Blender
        ends = (constraint.object1, constraint.object2)
        missing = [obj for obj in ends if obj is None or obj not in bodies]
        if missing:
            named = ", ".join("no object" if obj is None else obj.name for obj in missing)
            warnings.append(f"{owner.name}: its rigid body constraint joins {named}, not a rigid body of the bake; "
                            "Blender leaves it out, and so does SimBake")
            continue
        if ends[0] is ends[1]:
            continue
        joints.append((owner, bodies[ends[0]], bodies[ends[1]]))
    return joints, warnings
