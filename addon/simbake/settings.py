"""Scene and object settings turned into solver input. No bpy here: functions take any
object with the same attributes (Blender's, or plain stand-ins in tests)."""

import hashlib
import json
from array import array
import math
import re

ROLES = ("NONE", "CLOTH", "RIGID", "COLLIDER", "STRANDS")

# Fields of the library's cloth definition that come from the object's settings.
CLOTH_MATERIAL_FIELDS = ("density", "stretch_stiffness", "shear_stiffness", "bend_stiffness",
                         "damping", "air_drag", "thickness", "friction", "self_collision", "self_thickness",
                         "max_stretch", "max_compression")
# Blender's cloth has no strain limit: with role None the library's applies (10% each way).

# With role Cloth, a pin group weight at or above this pins the vertex; lower ones are free.
PIN_WEIGHT_THRESHOLD = 0.5
# Blender's cloth pulls a vertex of pin weight w toward its animated position with a goal spring
# of weight w⁴, and pins it hard where w⁴ reaches SOFTGOALSNAP (cloth.cc, cloth_apply_vgroup).
BLENDER_HARD_PIN_GOAL = 0.999


class SettingsError(ValueError):
    """A setting that cannot be baked; the message names the object and the setting."""


def find_modifier(obj, modifier_type):
    for index, modifier in enumerate(obj.modifiers):
        if modifier.type == modifier_type:
            return index, modifier
    return None, None


def blender_rigid_body_moves(obj):
    """Whether Blender simulates the object's rigid body: active, dynamic and not animated.
    A bake of ours switches 'Animated' on while it is in place: the value before it counts."""
    rigid_body = obj.rigid_body
    text = obj.simbake.bake_record
    kinematic = json.loads(text).get("rigid_body_kinematic", rigid_body.kinematic) if text else rigid_body.kinematic
    return rigid_body.type == "ACTIVE" and rigid_body.enabled and not kinematic


def resolve_role(obj):
    """The role an object bakes with: its own SimBake role, or with role NONE what its
    Blender physics says (active rigid body, passive rigid body, cloth, collision). A Cloth
    modifier on a mesh of edges without faces bakes as strands."""
    role = obj.simbake.role
    if role != "NONE":
        return role
    if getattr(obj, "rigid_body", None) is not None:
        return "RIGID" if blender_rigid_body_moves(obj) else "COLLIDER"
    if find_modifier(obj, "CLOTH")[1] is not None:
        mesh = getattr(obj, "data", None)
        if hasattr(mesh, "polygons") and len(mesh.polygons) == 0 and len(mesh.edges) > 0:
            return "STRANDS"
        return "CLOTH"
    if find_modifier(obj, "COLLISION")[1] is not None:
        return "COLLIDER"
    return "NONE"


# Blender's cloth solver measures time in frames and scales gravity by 0.001 (cloth.cc,
# SIM_mass_spring.cc). Static shapes depend only on stiffness / weight, so with real gravity
# one Blender time unit is T = √0.001 s: stiffnesses scale by 1/T² = 1000, dampings by 1/T.
BLENDER_TIME_UNIT = math.sqrt(0.001)


def blender_cloth_material(modifier, vertex_count, rest_area, mean_edge_length):
    """SI material from a Blender Cloth modifier's settings on a mesh of `vertex_count`
    vertices, total area `rest_area` (m²) and mean edge length L (m); see
    docs/blender-physics-mapping.md. Blender's springs give force per unit strain
    (tension / L per metre of stretch, with the mean edge length L), its vertex mass is
    per vertex and its bending moment grows with L², so the mapping keeps the behaviour
    at the mesh's own resolution."""
    edge = max(mean_edge_length, 1e-6)
    area = max(rest_area, 1e-12)
    scale = 1.0 / BLENDER_TIME_UNIT ** 2
    cloth, collision = modifier.settings, modifier.collision_settings
    tension = cloth.tension_stiffness
    return {
        "density": cloth.mass * vertex_count / area,
        "stretch_stiffness": scale * tension / edge,
        # Blender's compressed structural springs push back with Compression / L per metre
        # (its Choi-Ko model is linear for any compression a cloth survives)
        "compression_stiffness": scale * cloth.compression_stiffness / edge,
        "shear_stiffness": scale * cloth.shear_stiffness / edge,
        # Blender's angular bending: hinge moment ≈ 0.05 bending L² θ (in its units); ours
        # is 3 k θ on a regular grid
        "bend_stiffness": scale * 0.05 * cloth.bending_stiffness * edge * edge / 3.0,
        # a dashpot of tension_damping / T kg/s per spring against k L per unit strain
        "damping": (cloth.tension_damping / BLENDER_TIME_UNIT) * edge / (scale * tension) if tension > 0 else 0.0,
        # 0.01 air_damping / T kg/s on each vertex, spread over the area
        "air_drag": 0.01 * cloth.air_damping / BLENDER_TIME_UNIT * vertex_count / area,
        "thickness": collision.distance_min,
        "self_collision": bool(collision.use_self_collision),
        # Blender's self distance is between the two parts; ours is each side's half of it
        "self_thickness": 0.5 * collision.self_distance_min,
        # Blender takes the friction of a cloth-object contact from the object alone
        "friction": 1.0,
        # Field Weights → Gravity scales the gravity on this cloth (it may be negative)
        "gravity_scale": cloth.effector_weights.gravity,
    }


def blender_cloth_groups(cloth_settings):
    """The vertex groups a Blender cloth's settings read, as scene_io.read_cloth's keywords
    (none for a cloth that is not Blender's)."""
    if cloth_settings is None:
        return {}
    return {"shrink_group": cloth_settings.vertex_group_shrink,
            "pressure_group": cloth_settings.vertex_group_pressure if cloth_settings.use_pressure else None,
            "intern_group": cloth_settings.vertex_group_intern if cloth_settings.use_internal_springs else None}


def blender_shrink(cloth_settings, vertex_count, weights=None):
    """Per-vertex shrink of a Blender cloth, or None when nothing shrinks: its Shrinking
    Factor, and with a shrink group shrink_min + (shrink_max - shrink_min) w (w: the vertex's
    weight in the group, 0 outside it). Blender scales each spring by the geometric mean of its
    ends' 1 - shrink; SimBake each triangle by 1 - its corners' mean (the same to first order)."""
    low = cloth_settings.shrink_min
    if weights is None:
        return array("d", [low]) * vertex_count if low != 0.0 else None
    high = cloth_settings.shrink_max
    factors = array("d", (low + (high - low) * w for w in weights))
    return factors if any(factors) else None


# Blender's stiffness vertex groups: the group, and the settings its weight moves the stiffness
# from and towards, for each library factor (docs/blender-physics-mapping.md).
BLENDER_STIFFNESS_GROUPS = (
    ("stretch_scale", "vertex_group_structural_stiffness", "tension_stiffness", "tension_stiffness_max"),
    ("compression_scale", "vertex_group_structural_stiffness", "compression_stiffness", "compression_stiffness_max"),
    ("shear_scale", "vertex_group_shear_stiffness", "shear_stiffness", "shear_stiffness_max"),
    ("bend_scale", "vertex_group_bending", "bending_stiffness", "bending_stiffness_max"),
)

# The library's stiffness each factor multiplies.
SCALED_STIFFNESS = {"stretch_scale": "stretch_stiffness", "compression_scale": "compression_stiffness",
                    "shear_scale": "shear_stiffness", "bend_scale": "bend_stiffness"}


def blender_stiffness_unit(field, mean_edge_length):
    """The library stiffness of one unit of Blender's stiffness for a factor's field, as
    blender_cloth_material maps it (linear: N/m or N·m per Blender unit)."""
    edge = max(mean_edge_length, 1e-6)
    scale = 1.0 / BLENDER_TIME_UNIT ** 2
    return scale * 0.05 * edge * edge / 3.0 if field == "bend_scale" else scale / edge


def blender_stiffness_factors(cloth_settings, material, weights, mean_edge_length):
    """Per-vertex stiffness factors of a Blender cloth's stiffness groups, as library fields
    ({} without groups); `weights` maps a group name to its per-vertex weights. Blender's
    spring between two vertices of mean weight w has stiffness k + w |k_max - k| (the absolute
    value is Blender's: a max below the stiffness still raises it), linear in w; a vertex's
    factor is that over k. Where k is 0 no factor can scale it: the library's stiffness (in
    `material`, changed here) becomes |k_max| mapped, and the factor w."""
    factors = {}
    for field, group_attribute, low_attribute, high_attribute in BLENDER_STIFFNESS_GROUPS:
        group = getattr(cloth_settings, group_attribute, "")
        if not group or weights.get(group) is None:
            continue
        low = getattr(cloth_settings, low_attribute)
        rise = abs(getattr(cloth_settings, high_attribute) - low)
        if rise == 0.0:
            continue
        if low > 0.0:
            factors[field] = array("d", (1.0 + w * rise / low for w in weights[group]))
        else:
            material[SCALED_STIFFNESS[field]] = blender_stiffness_unit(field, mean_edge_length) * rise
            factors[field] = array("d", weights[group])
    if "stretch_scale" in factors and "compression_scale" not in factors:
        # the library would scale compression by the stretch factors: Blender's stays as it is
        factors["compression_scale"] = array("d", [1.0]) * len(factors["stretch_scale"])
    return factors


# Blender's self friction slows sliding by self_friction x 0.01 x the normal velocity change,
# as its object friction does: the Coulomb coefficient is 0.01 x self_friction.
BLENDER_SELF_FRICTION_SCALE = 0.01


def blender_collision_groups(collision_settings, weights):
    """Library fields for a Blender cloth's collision vertex groups and self friction. Blender
    flags a vertex whose weight in the group is above 0, and leaves a triangle all of whose
    corners are flagged out of the collisions (cloth.cc, collision.cc): the group lists the
    vertices that do NOT collide."""
    fields = {}
    object_group = getattr(collision_settings, "vertex_group_object_collisions", "")
    if object_group and weights.get(object_group) is not None:
        fields["object_collision_off"] = array("B", (1 if w > 0.0 else 0 for w in weights[object_group]))
    if collision_settings.use_self_collision:
        fields["self_friction"] = BLENDER_SELF_FRICTION_SCALE * collision_settings.self_friction
        self_group = getattr(collision_settings, "vertex_group_self_collisions", "")
        if self_group and weights.get(self_group) is not None:
            fields["self_collision_off"] = array("B", (1 if w > 0.0 else 0 for w in weights[self_group]))
    return fields


def blender_group_names(cloth_settings, collision_settings):
    """The vertex groups the Blender cloth's stiffness and collision settings read."""
    names = [getattr(cloth_settings, attribute, "") for _, attribute, _, _ in BLENDER_STIFFNESS_GROUPS]
    names.append(getattr(collision_settings, "vertex_group_object_collisions", ""))
    if collision_settings.use_self_collision:
        names.append(getattr(collision_settings, "vertex_group_self_collisions", ""))
    return sorted({name for name in names if name})


def blender_colliders_met(collision_settings, colliders):
    """Which of `colliders` ((id, object) pairs) a Blender cloth meets: None for every one
    (the default), none with Object Collisions off, only those in its Collision Collection
    (or in a collection inside it) when it has one."""
    if not collision_settings.use_collision:
        return []
    collection = getattr(collision_settings, "collection", None)
    if collection is None:
        return None
    members = {obj.name for obj in collection.all_objects}
    return [collider_id for collider_id, obj in colliders if obj.name in members]


# Blender skips its gas term when the volume to keep is this small (SIM_mass_spring.cc).
BLENDER_MIN_PRESSURE_VOLUME = 1e-6


def enclosed_volume(positions, triangles, weights=None):
    """Volume (m³) the triangles enclose, 1/6 Σ w a·(b × c) over flat xyz positions and flat
    vertex indices, measured as the library measures the volume its pressure keeps: about the
    mean of all the vertices (so an open sheet encloses nothing wherever it is) and, with
    weights, each triangle by its corners' mean weight, a triangle with a corner of weight 0 left
    out (as in Blender's cloth_calc_rest_volume). Blender measures about the world origin, which
    gives an open sheet away from it a "volume"; SimBake's gas term must have a volume the
    library agrees on, or the bake is refused (cloth_pressure.c)."""
    count = len(positions) // 3
    if count == 0:
        return 0.0
    o = [sum(positions[k::3]) / count for k in range(3)]
    six_v = 0.0
    p = positions
    for t in range(0, len(triangles), 3):
        a, b, c = triangles[t], triangles[t + 1], triangles[t + 2]
        w = 1.0
        if weights is not None:
            if weights[a] == 0.0 or weights[b] == 0.0 or weights[c] == 0.0:
                continue
            w = (weights[a] + weights[b] + weights[c]) / 3.0
        ax, ay, az = p[3 * a] - o[0], p[3 * a + 1] - o[1], p[3 * a + 2] - o[2]
        bx, by, bz = p[3 * b] - o[0], p[3 * b + 1] - o[1], p[3 * b + 2] - o[2]
        cx, cy, cz = p[3 * c] - o[0], p[3 * c + 1] - o[1], p[3 * c + 2] - o[2]
        six_v += w * (ax * (by * cz - bz * cy) + ay * (bz * cx - bx * cz) + az * (bx * cy - by * cx))
    return six_v / 6.0


def blender_pressure(cloth_settings, positions, triangles, weights=None):
    """Library pressure fields of a Blender cloth (none with Pressure off). Blender pushes each
    face with pressure_factor (uniform_pressure_force + V0 / V - 1) in its units, V0 the Custom
    Volume or the rest volume, and no gas term when V0 is below 1e-6 m³; its force unit is
    1/T² = 1000 N (see BLENDER_TIME_UNIT). So p = 1000 factor uniform Pa plus a gas term of
    scale 1000 factor Pa: docs/blender-physics-mapping.md."""
    if not cloth_settings.use_pressure:
        return {}
    scale = cloth_settings.pressure_factor / BLENDER_TIME_UNIT ** 2
    fields = {"pressure": scale * cloth_settings.uniform_pressure_force, "pressure_scale": 0.0,
              "pressure_target_volume": 0.0}
    if cloth_settings.use_pressure_volume:
        keep = cloth_settings.target_volume
        fields["pressure_target_volume"] = max(keep, 0.0)
    else:
        keep = enclosed_volume(positions, triangles, weights)
    if keep > BLENDER_MIN_PRESSURE_VOLUME:
        fields["pressure_scale"] = scale
    return fields
def pinned_vertices(weights, threshold=PIN_WEIGHT_THRESHOLD):
    """Vertices of pin weight `threshold` or more, or none without a pin group (weights None)."""
    if weights is None:
        return array("i")
    return array("i", [i for i, w in enumerate(weights) if w >= threshold])


def blender_pins(weights):
    """The vertices Blender's cloth pins hard: weight⁴ of 0.999 or more."""
    if weights is None:
        return array("i")
    return array("i", [i for i, w in enumerate(weights) if w ** 4 >= BLENDER_HARD_PIN_GOAL])


def blender_goals(cloth_settings, weights, mean_edge_length):
    """Goal springs of a Blender cloth's soft pins: (stiffness per vertex in N/m, or None when
    no vertex has one; damping in N·s/m). Blender pulls each vertex of pin weight w with
    w⁴ < 0.999 toward its animated position with a spring of w⁴ pin_stiffness / L (L the
    mean edge length) and a damper of 0.01 goal_friction, in its units (SIM_mass_spring.cc,
    cloth_calc_force): 1000 w⁴ pin_stiffness / L N/m and 0.01 goal_friction / T N·s/m."""
    damping = 0.01 * getattr(cloth_settings, "goal_friction", 0.0) / BLENDER_TIME_UNIT
    if weights is None or cloth_settings.pin_stiffness <= 0.0:
        return None, damping
    scale = cloth_settings.pin_stiffness / (BLENDER_TIME_UNIT ** 2 * max(mean_edge_length, 1e-6))
    stiffness = array("d", (scale * w ** 4 if 0.0 < w ** 4 < BLENDER_HARD_PIN_GOAL else 0.0 for w in weights))
    return (stiffness if any(stiffness) else None), damping
def blender_springs(name, cloth_settings, edge_length, loose_edges, intern_weights=None):
    """Library spring fields (native.World.add_cloth's `springs`) for the Blender cloth of object
    `name`, or None when it has none: Sewing makes each loose edge (`loose_edges`: flat vertex
    pairs) a spring of rest length 0 (without Sewing, a structural spring at its length),
    Internal Springs are found by the library by Blender's rule. Stiffnesses map
    as tension does (1000 k / L with the mean edge length L); see
    docs/blender-physics-mapping.md. edge_length() gives L (only called when there are springs)."""
    sewing = cloth_settings.use_sewing_springs and len(loose_edges)
    if not len(loose_edges) and not cloth_settings.use_internal_springs:
        return None
    per_metre = 1.0 / BLENDER_TIME_UNIT ** 2 / max(edge_length(), 1e-6)
    fields = {}
    if len(loose_edges) and not sewing:
        # without Sewing Blender makes a loose edge a structural spring like any other edge:
        # it holds its ends at their distance (the library's default rest length)
        fields.update(springs=loose_edges, spring_tension_stiffness=per_metre * cloth_settings.tension_stiffness,
                      spring_compression_stiffness=per_metre * cloth_settings.compression_stiffness,
                      spring_max_force=0.0)
    if sewing:
        # a sewing spring's own stiffness weight is 1: tension + |max tension - tension|
        tension = cloth_settings.tension_stiffness
        k = per_metre * (tension + abs(cloth_settings.tension_stiffness_max - tension))
        fields.update(springs=loose_edges, spring_rest_lengths=array("d", bytes(8 * (len(loose_edges) // 2))),
                      spring_tension_stiffness=k, spring_compression_stiffness=k,
                      # Blender clamps k (l - L) at Max Sewing Force (0: no limit), in its force units
                      spring_max_force=cloth_settings.sewing_force_max / BLENDER_TIME_UNIT ** 2)
    if cloth_settings.use_internal_springs:
        tension, compression = cloth_settings.internal_tension_stiffness, cloth_settings.internal_compression_stiffness
        fields.update(internal_springs=True,
                      internal_spring_max_length=cloth_settings.internal_spring_max_length,
                      internal_spring_max_diversion=cloth_settings.internal_spring_max_diversion,
                      internal_spring_normal_check=bool(cloth_settings.internal_spring_normal_check),
                      internal_tension_stiffness=per_metre * tension,
                      internal_compression_stiffness=per_metre * compression)
        if intern_weights is not None:
            # Blender: k = k0 + w |k_max - k0| with w the mean of the two ends' weights; linear in
            # w, so each vertex's k0 + w |k_max - k0| averaged over the two ends is the same
            tension_span = abs(cloth_settings.internal_tension_stiffness_max - tension)
            compression_span = abs(cloth_settings.internal_compression_stiffness_max - compression)
            fields["internal_vertex_stiffness"] = array("d", (per_metre * (base + w * span) for w in intern_weights
                                                              for base, span in ((tension, tension_span),
                                                                                 (compression, compression_span))))
    for field, value in fields.items():
        if isinstance(value, float) and (not math.isfinite(value) or value < 0):
            raise SettingsError(f"{name}: cloth {field} is {value:g}; it must be zero or positive")
    return fields or None


def cloth_material(obj, vertex_count, measure):
    """Library material fields for a cloth object: its SimBake settings with role CLOTH,
    or its Blender Cloth modifier's settings mapped to SI with role NONE. measure() gives
    the mesh's area and mean edge length (only called for Blender's settings)."""
    props = obj.simbake
    modifier = find_modifier(obj, "CLOTH")[1]
    if props.role == "CLOTH" or modifier is None:
        material = {name: getattr(props, name) for name in CLOTH_MATERIAL_FIELDS}
    else:
        material = blender_cloth_material(modifier, vertex_count, *measure())
    for name, value in material.items():
        if name == "self_collision":
            continue
        if name == "gravity_scale" and math.isfinite(value):
            continue
        if name == "max_compression" and value >= 1.0:
            raise SettingsError(f"{obj.name}: cloth max_compression is {value:g}; it must be below 1 (0: no limit)")
        if not math.isfinite(value) or value < 0 or (name == "density" and value == 0):
            raise SettingsError(f"{obj.name}: cloth {name} is {value:g}; it must be "
                                f"{'positive' if name == 'density' else 'zero or positive'}")
    return material


# Blender's cloth slows sliding on a collision object by about 0.01 x its cloth friction
# times the normal velocity change: that is the Coulomb coefficient.
BLENDER_COLLISION_FRICTION_SCALE = 0.01


def collider_material(obj):
    """Thickness (m) and friction of a collider: its SimBake settings with role COLLIDER;
    with role NONE, its Collision modifier's (outer thickness, cloth friction) or its passive
    rigid body's friction."""
    props = obj.simbake
    modifier = find_modifier(obj, "COLLISION")[1]
    if props.role == "COLLIDER":
        material = {"thickness": props.thickness, "friction": props.friction}
    elif modifier is not None:
        collision = modifier.settings
        material = {"thickness": collision.thickness_outer,
                    "friction": BLENDER_COLLISION_FRICTION_SCALE * collision.cloth_friction}
    else:
        material = {"thickness": props.thickness, "friction": obj.rigid_body.friction}
    for name, value in material.items():
        if not math.isfinite(value) or value < 0:
            raise SettingsError(f"{obj.name}: collider {name} is {value:g}; it must be zero or positive")
    return {name: float(value) for name, value in material.items()}


def body_collider_material(obj, friction):
    """Thickness and friction a moving rigid body shows cloth. With role NONE and a Collision
    modifier, that modifier's (what Blender's cloth would meet); otherwise the body's own
    friction and the library's default thickness."""
    if obj.simbake.role == "NONE" and find_modifier(obj, "COLLISION")[1] is not None:
        return collider_material(obj)
    return {"friction": float(friction)}  # checked with the body's settings


def pin_group_name(obj):
    """The vertex group that pins a cloth or strands, or '' for none."""
    if obj.simbake.role in ("CLOTH", "STRANDS") or find_modifier(obj, "CLOTH")[1] is None:
        return obj.simbake.pin_group
    return find_modifier(obj, "CLOTH")[1].settings.vertex_group_mass


def frame_time(frame, frame_start, fps, fps_base=1.0):
    """Physical time in seconds of `frame` since `frame_start`."""
    return (frame - frame_start) * fps_base / fps


# Blender's last frame (MAXFRAME): a scene cannot be set to a frame after it.
LAST_FRAME = 1048574


def check_frame_range(frame_start, frame_end):
    if frame_end <= frame_start:
        raise SettingsError(f"frame range {frame_start}-{frame_end} is empty: the end frame must "
                            "come after the start frame")
    if frame_end > LAST_FRAME:
        raise SettingsError(f"frame range {frame_start}-{frame_end} ends after frame {LAST_FRAME}, "
                            "Blender's last frame")


def world_settings(scene_props, fps, fps_base, scene_gravity, use_gravity):
    """Keyword arguments for native.World from the scene's SimBake settings."""
    frame_seconds = fps_base / fps
    if scene_props.use_scene_gravity:
        gravity = tuple(scene_gravity) if use_gravity else (0.0, 0.0, 0.0)
    else:
        gravity = (0.0, 0.0, -9.81)
    return {
        "gravity": gravity,
        "max_step": frame_seconds / max(1, scene_props.substeps),
        "cg_tolerance": scene_props.tolerance,
    }


def cache_file_name(object_name, extension="pc2"):
    """A file name for an object's cache, safe on every file system and distinct for
    distinct object names."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", object_name).strip("._") or "object"
    if safe != object_name:
        safe += "-" + hashlib.sha1(object_name.encode("utf-8")).hexdigest()[:8]
    return f"{safe}.{extension}"
