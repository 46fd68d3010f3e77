"""Blender's force fields turned into the library's (simbake.h, "Force fields"). No bpy here:
functions take Blender's settings or stand-ins with the same attributes.

Blender's cloth feels a field per unit of its area: each triangle gets 0.02 x |e1 x e2| (twice
its area) x the field's vector at its corners (SIM_mass_spring.cc, face_wind and face_extern),
in Blender's units, where time is in frames scaled so that one unit is T = √0.001 s
(settings.BLENDER_TIME_UNIT). One Blender unit of force is then 1/T² = 1000 N, so a field
vector of 1 gives 0.04 x 1000 = 40 N per m² of cloth, and a Blender velocity is T times ours.
The field's own vector (strength x falloff x direction) is divided by the scene's frame rate
(effect.cc: `force / vel_to_sec`, which pd_point_from_loc sets to the fps); what multiplies the
velocity (flow, harmonic damping) is not. docs/blender-physics-mapping.md has the table."""

import math

from .settings import BLENDER_TIME_UNIT

# N/m² of cloth per unit of a Blender field's vector: 0.02 x 2 (its "area" is twice the
# triangle's) x 1000 (its unit of force, 1/T²)
PER_AREA = 0.02 * 2.0 / BLENDER_TIME_UNIT ** 2

CARRIED_TYPES = ("WIND", "FORCE", "VORTEX", "TURBULENCE", "DRAG", "HARMONIC")
SHAPES = {"POINT": "POINT", "LINE": "LINE", "PLANE": "PLANE"}
FALLOFFS = {"SPHERE": "SPHERE", "TUBE": "TUBE"}
SIDES = {"BOTH": "BOTH", "POSITIVE": "POSITIVE", "NEGATIVE": "NEGATIVE"}
# Blender clamps a Drag field's two coefficients to 2 (effect.cc, do_physical_effector)
DRAG_LIMIT = 2.0


def acts_on_cloth(field):
    """Whether Blender's cloth would feel this field and SimBake carries it over."""
    return (field is not None and getattr(field, "type", "NONE") in CARRIED_TYPES
            and getattr(field, "apply_to_location", True))


def pose(matrix_rows, field, fps):
    """(position, axis, strength in the library's unit) of a field object whose world matrix is
    `matrix_rows` (16 row-major values): its origin and its z axis, as Blender takes them."""
    m = list(matrix_rows)
    return (m[3], m[7], m[11]), (m[2], m[6], m[10]), strength(field, fps)


def strength(field, fps):
    """The field's strength in the library's unit (see definition)."""
    if field.type == "DRAG":
        return 0.0
    return PER_AREA * field.strength / fps


def definition(field, matrix_rows, fps):
    """(field_type, shape, falloff, side, settings) for native.World.add_field: Blender's field
    in the library's units, in a scene of `fps` frames per second."""
    position, axis, value = pose(matrix_rows, field, fps)
    kind = field.type
    settings = {
        "position": position,
        "axis": axis,
        "strength": value,
        # Blender subtracts flow x falloff x its velocity (T v) from the field's vector
        "flow": PER_AREA * BLENDER_TIME_UNIT * field.flow if kind not in ("DRAG", "HARMONIC") else 0.0,
        # Blender adds up to ±noise to the strength at every evaluation; ours is smooth in time
        "noise": PER_AREA * field.noise / fps,
        "seed": int(field.seed),
        "falloff_power": field.falloff_power,
        "use_min_distance": bool(field.use_min_distance),
        "min_distance": field.distance_min,
        "use_max_distance": bool(field.use_max_distance),
        "max_distance": field.distance_max,
        "radial_power": field.radial_falloff,
        "use_min_radius": bool(field.use_radial_min),
        "min_radius": field.radial_min,
        "use_max_radius": bool(field.use_radial_max),
        "max_radius": field.radial_max,
    }
    if kind == "TURBULENCE":
        # Blender's noise takes coordinates unscaled when its size is 0
        settings["noise_size"] = field.size if field.size > 0.0 else 1.0
        settings["global_coordinates"] = bool(field.use_global_coords)
    elif kind == "HARMONIC":
        settings["rest_length"] = field.rest_length
        # -damping 2 √|s| (T v) in Blender's units (times the fps, then divided by it)
        settings["damping"] = (PER_AREA * field.harmonic_damping * 2.0 * math.sqrt(abs(field.strength))
                               * BLENDER_TIME_UNIT)
    elif kind == "DRAG":
        # -(linear + quadratic fps |T v|) (T v) in Blender's units: its speed is taken per second
        # (|T v| fps) and the force divided by the fps again
        # (a negative drag, which pushes, is left out: unmapped.force_field warns)
        settings["linear_drag"] = PER_AREA * BLENDER_TIME_UNIT * max(0.0, min(field.linear_drag, DRAG_LIMIT))
        settings["quadratic_drag"] = (PER_AREA * BLENDER_TIME_UNIT ** 2 * fps
                                      * max(0.0, min(field.quadratic_drag, DRAG_LIMIT)))
    shape = SHAPES.get(field.shape, "POINT")
    return (kind, shape, FALLOFFS.get(field.falloff_type, "SPHERE"), SIDES.get(field.z_direction, "BOTH"),
            settings)


def cloth_weight(effector_weights, field_type, field_object, collection_objects):
    """How much a Blender cloth feels a field: Field Weights → All x the field type's weight, and
    0 for a field object outside its effector collection (`collection_objects`: the objects of
    that collection, None when it has none). None weights (a SimBake cloth): 1."""
    if collection_objects is not None and field_object not in collection_objects:
        return 0.0
    if effector_weights is None:
        return 1.0
    return effector_weights.all * getattr(effector_weights, field_type.lower())
