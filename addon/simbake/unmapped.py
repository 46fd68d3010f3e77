"""Blender physics settings that SimBake does not carry over, in words for the bake's warnings
(the report, the panel, the command line and the JSON report), so that none is ignored
silently. Each function takes Blender's settings (or stand-ins with the same attributes) and
returns warnings naming the object and the setting; a setting at the value SimBake's own model
has (Blender's default, mostly) is not one. docs/blender-physics-mapping.md says what is carried
over and how. No bpy here."""

NOT_CARRIED = "is not carried over by SimBake"
HARD_PIN_WEIGHT = 0.99975  # Blender pins a vertex hard when weight⁴ ≥ 0.999; below, a goal spring


def _flag(settings, name):
    return bool(getattr(settings, name, False))


def _set(settings, name):
    return bool(getattr(settings, name, ""))


def _differs(settings, name, value, tolerance=1e-6):
    present = getattr(settings, name, None)
    return present is not None and abs(present - value) > tolerance * max(1.0, abs(value))


def blender_cloth(name, modifier, soft_pin_count):
    """A Cloth modifier baked with role None. `soft_pin_count`: vertices of its pin group with a
    weight between 0 and Blender's hard-pin weight (Blender pulls them with goal springs)."""
    cloth, collision = modifier.settings, modifier.collision_settings
    found = []

    def warn(setting, instead):
        found.append(f"{name}: Cloth {setting} {NOT_CARRIED} ({instead})")

    if soft_pin_count:
        warn(f"soft pins (Pin Stiffness, {soft_pin_count} pin weight(s) below 1)",
             "weights of 0.5 or more pin hard, lower ones are free")
    switches = (("use_pressure", "Pressure"), ("use_internal_springs", "Internal Springs"),
                ("use_sewing_springs", "Sewing"), ("use_dynamic_mesh", "Dynamic Mesh"))
    for attribute, label in switches:
        if _flag(cloth, attribute):
            warn(label, "the cloth is simulated without it")
    groups = (("vertex_group_structural_stiffness", "Structural stiffness group"),
              ("vertex_group_shear_stiffness", "Shear stiffness group"),
              ("vertex_group_bending", "Bending stiffness group"))
    for attribute, label in groups:
        if _set(cloth, attribute):
            warn(label, "the stiffness is the same over the whole cloth")
    if getattr(cloth, "bending_model", "ANGULAR") != "ANGULAR":
        warn("Linear bending model", "bending is angular, mapped as for the Angular model")
    if _differs(cloth, "time_scale", 1.0):
        warn("Speed Multiplier", "the bake runs at the scene's own time")
    if not _flag(collision, "use_collision"):
        warn("Object Collisions off", "the cloth still collides with every collider")
    if _set(collision, "collection"):
        warn("Collision Collection", "the cloth collides with every collider of the bake")
    if _set(collision, "vertex_group_object_collisions"):
        warn("Object Collisions vertex group", "every vertex collides")
    if getattr(collision, "impulse_clamp", 0.0) > 0.0:
        warn("Impulse Clamping", "collision impulses are not clamped")
    if _flag(collision, "use_self_collision"):
        if _differs(collision, "self_friction", 5.0):
            warn("Self Collision friction", "self contacts use the cloth's friction")
        if _set(collision, "vertex_group_self_collisions"):
            warn("Self Collision vertex group", "every vertex collides with the cloth")
        if getattr(collision, "self_impulse_clamp", 0.0) > 0.0:
            warn("Self Collision Impulse Clamping", "self collision impulses are not clamped")
    return found


def collision_modifier(name, collision):
    """A Collision modifier's settings (obj.collision) that shape what cloth does on it."""
    found = []
    if getattr(collision, "permeability", 0.0) > 0.0:
        found.append(f"{name}: Collision Permeability {NOT_CARRIED} (no cloth passes through it)")
    if getattr(collision, "stickiness", 0.0) > 0.0:
        found.append(f"{name}: Collision Stickiness {NOT_CARRIED} (cloth slides with its friction only)")
    if _flag(collision, "use_normal"):
        found.append(f"{name}: Collision Single Sided {NOT_CARRIED} (cloth is held off both sides)")
    return found


DEFAULT_COLLISION_COLLECTIONS = (True,) + (False,) * 19


def rigid_body(name, body):
    """An active or passive rigid body's settings."""
    found = []

    def warn(setting, instead):
        found.append(f"{name}: Rigid Body {setting} {NOT_CARRIED} ({instead})")

    if tuple(getattr(body, "collision_collections", DEFAULT_COLLISION_COLLECTIONS)) != DEFAULT_COLLISION_COLLECTIONS:
        warn("Collision Collections", "it collides with every body")
    if _flag(body, "use_deactivation") or _flag(body, "use_start_deactivated"):
        warn("Deactivation", "it is simulated whenever it moves")
    if getattr(body, "collision_shape", "") == "COMPOUND":
        warn("Compound Parent shape", "its children are not joined to it")
    if _flag(body, "use_margin"):
        warn("Collision Margin", "contacts keep SimBake's own 5 mm margin")
    return found


def rigid_body_world(world):
    """The scene's rigid body world."""
    if world is not None and _differs(world, "time_scale", 1.0):
        return [f"Scene: Rigid Body World Speed {NOT_CARRIED} (the bake runs at the scene's own time)"]
    return []


def rigid_body_constraint(name, constraint):
    """An object's rigid body constraint that joins bodies of the bake (rigid_joints.py maps
    the rest: type, pivot and axes, limits, springs, motors, breaking, disabled collisions)."""
    if not _flag(constraint, "enabled"):
        return []
    kind = str(getattr(constraint, "type", ""))
    joined = [o.name for o in (getattr(constraint, "object1", None), getattr(constraint, "object2", None)) if o]
    found = []

    def warn(setting, instead):
        found.append(f"{name}: Rigid Body Constraint {setting} {NOT_CARRIED} ({instead})")

    springs = [axis for axis in ("x", "y", "z", "ang_x", "ang_y", "ang_z") if _flag(constraint, f"use_spring_{axis}")]
    if kind == "GENERIC_SPRING" and springs and getattr(constraint, "spring_type", "SPRING2") == "SPRING1":
        warn(f"Spring Type Blender 2.7 ({' and '.join(joined) or 'no objects'})",
             "its damping is read as Blender 2.8's, N·s/m or N·m·s/rad")
    if _flag(constraint, "use_override_solver_iterations"):
        warn("Override Iterations", "joints are solved exactly with their island, or with the world's iterations")
    return found


def force_field(name, field):
    """A force field that cloth or rigid bodies of the bake would feel in Blender."""
    kind = getattr(field, "type", "NONE")
    if kind == "NONE":
        return []
    return [f"{name}: {kind.replace('_', ' ').title()} force field {NOT_CARRIED} (nothing in the bake feels it)"]
