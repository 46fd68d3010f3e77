"""The strand material of an object with role Strands (its SimBake settings) or of a Blender
Cloth modifier on a mesh of loose edges (its settings mapped to SI; docs/blender-physics-mapping.md,
"Cloth modifier on loose edges → SimBake strands"). No bpy here: functions take any object with
the same attributes (Blender's, or plain stand-ins in tests)."""

import math

from .settings import BLENDER_TIME_UNIT, SettingsError, find_modifier

# Object settings (Object.simbake) → fields of the library's strand definition.
STRAND_PROPERTIES = {
    "strand_mass_per_length": "mass_per_length",
    "strand_stretch_stiffness": "stretch_stiffness",
    "strand_bend_stiffness": "bend_stiffness",
    "damping": "damping",
    "strand_air_drag": "air_drag",
    "thickness": "thickness",
    "friction": "friction",
    "strand_max_stretch": "max_stretch",
    "strand_max_compression": "max_compression",
    "self_collision": "self_collision",
}


def is_edge_mesh(mesh):
    """Whether a mesh has edges and no faces: what a Cloth modifier bakes as strands."""
    return len(mesh.polygons) == 0 and len(mesh.edges) > 0


def blender_strand_material(modifier, vertex_count, total_length, mean_edge_length):
    """SI strand material from a Blender Cloth modifier on `vertex_count` vertices of loose
    edges, `total_length` (m) of edge in all, mean edge length L (m).

    Blender makes each edge a structural spring pulling with t / L per metre of stretch, t
    newtons per unit strain in its units (1000 N in SI with T = √0.001 s): EA = 1000 t.
    On an edge-only mesh it adds a hair bending spring where two edges follow each other in the
    mesh's edge list (cloth.cc, cloth_build_springs), pulling the third vertex toward its rest
    direction with b per metre; a turn θ moves it L θ at a lever of L, a moment b L² θ, where
    the strand's is EI / L θ: EI = 1000 b L³."""
    edge = max(mean_edge_length, 1e-6)
    length = max(total_length, 1e-12)
    scale = 1.0 / BLENDER_TIME_UNIT ** 2
    cloth, collision = modifier.settings, modifier.collision_settings
    tension = cloth.tension_stiffness
    return {
        "mass_per_length": cloth.mass * vertex_count / length,
        "stretch_stiffness": scale * tension,
        "bend_stiffness": scale * cloth.bending_stiffness * edge ** 3,
        # a dashpot of tension_damping / T kg/s per spring against its stiffness 1000 t / L
        "damping": (cloth.tension_damping / BLENDER_TIME_UNIT) * edge / (scale * tension) if tension > 0 else 0.0,
        # 0.01 air_damping / T kg/s on each vertex, spread over the length
        "air_drag": 0.01 * cloth.air_damping / BLENDER_TIME_UNIT * vertex_count / length,
        "thickness": collision.distance_min,
        # the object's strands against each other; two of them keep twice the thickness apart
        # (Blender's Self Collision Distance is named by unmapped.blender_cloth_as_strands)
        "self_collision": float(bool(collision.use_self_collision)),
        "friction": 1.0,  # Blender takes a cloth–object contact's friction from the object alone
        "gravity_scale": cloth.effector_weights.gravity,
    }


def blender_field_scale(vertex_count, total_length):
    """The weight, times its Field Weights, with which strands from a Blender Cloth modifier on
    `vertex_count` vertices of loose edges, `total_length` (m) in all, feel the scene's fields.

    Blender's cloth on an edge-only mesh takes its hair path (SIM_mass_spring.cc,
    cloth_calc_force: no triangles, so every field's vector goes to
    SIM_mass_spring_force_vertex_wind): each vertex gets 0.01 x the vector, where a triangle
    gets 0.02 x twice its area, 0.04 per m² (fields.py). The library's fields push strands per
    metre with the number they push cloth per m², so Blender's 0.01 per vertex, spread over the
    length as its mass and air damping are, is a weight of 0.01 n / ℓ / 0.04 = n / (4 ℓ) (ℓ in m)."""
    return vertex_count / (4.0 * max(total_length, 1e-12))


def strand_material(obj, vertex_count, measure):
    """Library strand fields for `obj`: its SimBake settings with role Strands, or its Blender
    Cloth modifier's settings mapped to SI with role None. measure() gives the strands' total
    length and mean edge length (m; only called for Blender's settings)."""
    modifier = find_modifier(obj, "CLOTH")[1]
    if obj.simbake.role == "STRANDS" or modifier is None:
        material = {field: float(getattr(obj.simbake, name)) for name, field in STRAND_PROPERTIES.items()}
    else:
        material = blender_strand_material(modifier, vertex_count, *measure())
    for name, value in material.items():
        if name == "gravity_scale" and math.isfinite(value):
            continue
        if name == "max_compression" and value >= 1.0:
            raise SettingsError(f"{obj.name}: strand max_compression is {value:g}; it must be below 1 (0: no limit)")
        if name == "max_stretch" and value > 10.0:
            raise SettingsError(f"{obj.name}: strand max_stretch is {value:g}; it must be at most 10 (0: no limit)")
        if not math.isfinite(value) or value < 0 or (name == "mass_per_length" and value == 0):
            raise SettingsError(f"{obj.name}: strand {name} is {value:g}; it must be "
                                f"{'positive' if name == 'mass_per_length' else 'zero or positive'}")
    return material
