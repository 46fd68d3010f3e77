"""Blender physics settings that SimBake does not carry over, in words for the bake's warnings
(the report, the panel, the command line and the JSON report), so that none is ignored
silently. Each function takes Blender's settings (or stand-ins with the same attributes) and
returns warnings naming the object and the setting; a setting at the value SimBake's own model
has (Blender's default, mostly) is not one. docs/blender-physics-mapping.md says what is carried
over and how. No bpy here."""

NOT_CARRIED = "is not carried over by SimBake"


def _flag(settings, name):
    return bool(getattr(settings, name, False))


def _set(settings, name):
    return bool(getattr(settings, name, ""))


def _differs(settings, name, value, tolerance=1e-6):
    present = getattr(settings, name, None)
    return present is not None and abs(present - value) > tolerance * max(1.0, abs(value))


def blender_cloth(name, modifier):
    """A Cloth modifier baked with role None."""
    cloth, collision = modifier.settings, modifier.collision_settings
    found = []

    def warn(setting, instead):
        found.append(f"{name}: Cloth {setting} {NOT_CARRIED} ({instead})")

    if _flag(cloth, "use_pressure") and getattr(cloth, "fluid_density", 0.0) != 0.0:
        warn("Pressure Fluid Density", "the pressure inside is the same everywhere, with no fluid's weight")
    # soft pins are goal springs (settings.blender_goals); Blender gives the vertices outside
    # the pin group a goal of Goal Default
    if _set(cloth, "vertex_group_mass") and _differs(cloth, "goal_default", 0.0):
        warn("Goal Default", "vertices outside the pin group have no goal spring")
    if _flag(cloth, "use_dynamic_mesh"):
        warn("Dynamic Mesh", "the cloth is simulated without it")
    if getattr(cloth, "bending_model", "ANGULAR") != "ANGULAR":
        warn("Linear bending model", "bending is angular, mapped as for the Angular model")
    if _differs(cloth, "time_scale", 1.0):
        warn("Speed Multiplier", "the bake runs at the scene's own time")
    if getattr(collision, "impulse_clamp", 0.0) > 0.0:
        warn("Impulse Clamping", "collision impulses are not clamped")
    if _flag(collision, "use_self_collision"):
        if getattr(collision, "self_impulse_clamp", 0.0) > 0.0:
            warn("Self Collision Impulse Clamping", "self collision impulses are not clamped")
    return found


def blender_cloth_as_strands(name, modifier):
    """A Cloth modifier on a mesh of loose edges, baked as strands with role None (besides
    blender_cloth's; its soft pins are named once the mesh is read: blender_soft_pins)."""
    cloth, collision = modifier.settings, modifier.collision_settings
    found = []

    def warn(setting, instead):
        found.append(f"{name}: Cloth {setting} {NOT_CARRIED} on strands ({instead})")

    if _differs(cloth, "compression_stiffness", getattr(cloth, "tension_stiffness", 0.0)):
        warn("Compression stiffness", "strands stretch and compress with Tension")
    if _differs(cloth, "shrink_min", 0.0) or _set(cloth, "vertex_group_shrink"):
        warn("Shrinking", "strands keep their rest length")
    if _flag(cloth, "use_sewing_springs"):
        warn("Sewing", "loose edges are the strands themselves")
    for group, setting in (("vertex_group_structural_stiffness", "Structural Stiffness group"),
                           ("vertex_group_bending", "Bending Stiffness group")):
        if _set(cloth, group):
            warn(setting, "a strand has one stiffness along its length")
    # two strands of the object keep twice its Distance apart, not Self Collision's Distance
    if _flag(collision, "use_self_collision") and _differs(collision, "self_distance_min",
                                                           2.0 * getattr(collision, "distance_min", 0.0)):
        warn("Self Collision Distance", "two strands keep twice the collision Distance apart")
    if _flag(collision, "use_self_collision") and _set(collision, "vertex_group_self_collisions"):
        warn("Self Collisions Vertex Group", "every strand of the object meets the others")
    if _set(collision, "vertex_group_object_collisions"):
        warn("Collisions Vertex Group", "every strand vertex meets the colliders")
    return found


def blender_soft_pins(name, soft_pins):
    """Vertices a Blender cloth's pin group pins softly, on strands (which pin hard only)."""
    if not soft_pins:
        return []
    return [f"{name}: Cloth Pin Stiffness {NOT_CARRIED} on strands ({soft_pins} vertex(es) of pin weight "
            "between 0 and 1 are free: strand roots are pinned hard, where weight⁴ ≥ 0.999, or not at all)"]


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


def rigid_body(name, body):
    """An active or passive rigid body's settings."""
    found = []

    def warn(setting, instead):
        found.append(f"{name}: Rigid Body {setting} {NOT_CARRIED} ({instead})")

    if _flag(body, "use_margin"):
        warn("Collision Margin", "contacts keep SimBake's own 5 mm margin")
    return found


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


CARRIED_FIELD_TYPES = ("WIND", "FORCE", "VORTEX", "TURBULENCE", "DRAG", "HARMONIC")


def force_field(name, field, rigid_bodies_baked=False):
    """A force field that cloth or rigid bodies of the bake would feel in Blender: its type when
    SimBake has none like it, else the settings of it that are not carried over (fields.py), and
    that it moves no rigid body when the bake has some."""
    kind = getattr(field, "type", "NONE")
    if kind == "NONE":
        return []
    label = kind.replace("_", " ").title()
    if kind not in CARRIED_FIELD_TYPES:
        return [f"{name}: {label} force field {NOT_CARRIED} (nothing in the bake feels it)"]
    found = []

    def warn(setting, instead):
        found.append(f"{name}: {label} force field {setting} {NOT_CARRIED} ({instead})")

    shape = getattr(field, "shape", "POINT")
    if shape not in ("POINT", "LINE", "PLANE"):
        warn(f"Shape {shape.title()}", "it acts from its origin, as shape Point")
    if getattr(field, "falloff_type", "SPHERE") not in ("SPHERE", "TUBE"):
        warn(f"{field.falloff_type.title()} falloff", "it falls off as a Sphere")
    if _flag(field, "use_absorption"):
        warn("Absorption", "colliders do not shield the cloth from it")
    if kind == "FORCE" and _flag(field, "use_gravity_falloff"):
        warn("Gravitation", "it does not fall off as 1/r²")
    if kind == "VORTEX" and shape != "POINT":
        warn(f"inward pull and drag of shape {shape.title()}", "only its swirl around the axis acts")
    if kind == "WIND" and _differs(field, "wind_factor", 1.0):
        warn("Wind Factor below 1", "all of it presses on the faces")
    if kind != "WIND" and _differs(field, "wind_factor", 0.0):
        warn("Wind Factor", "all of it acts on the vertices")
    if kind == "DRAG" and min(getattr(field, "linear_drag", 0.0), getattr(field, "quadratic_drag", 0.0)) < 0.0:
        warn("negative drag", "a negative coefficient is taken as 0")
    if kind in ("HARMONIC", "DRAG") and getattr(field, "noise", 0.0) > 0.0:
        warn("Noise on its damping", "the noise varies its strength only")
    if rigid_bodies_baked:
        warn("on rigid bodies", "it acts on cloth only")
    return found
