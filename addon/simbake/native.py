"""ctypes bindings to libsimbake. No bpy here: usable and testable in plain Python.

Buffers are `array.array` objects ('d' float64, 'f' float32, 'i' int32) so these bindings
need no numpy. Every call that fails raises NativeError with the library's message. ctypes
releases the GIL during each call, so a bake can run in a worker thread.
"""

import ctypes
import os
from array import array

# The add-on works with library versions of this major.minor.
REQUIRED_VERSION = (0, 17)
LIBRARY_NAME = "libsimbake.so"

INTEGRATORS = {"IMPLICIT_EULER": 0, "EXPLICIT_EULER": 1, "MIDPOINT": 2, "RK4": 3}
BODY_TYPES = {"DYNAMIC": 0, "KINEMATIC": 1, "STATIC": 2}
SHAPES = {"SPHERE": 0, "BOX": 1, "CONVEX_HULL": 2, "MESH": 3, "COMPOUND": 4, "CAPSULE": 5, "CYLINDER": 6,
          "CONE": 7}
FAILURE_KINDS = {0: "NONE", 1: "CG", 2: "STRAIN", 3: "NOT_FINITE", 4: "SPEED", 5: "OUT_OF_MEMORY", 6: "TOLERANCE"}
OBJECT_KINDS = {0: None, 1: "CLOTH", 2: "BODY"}
FIELD_TYPES = {"WIND": 0, "FORCE": 1, "VORTEX": 2, "TURBULENCE": 3, "DRAG": 4, "HARMONIC": 5}
FIELD_SHAPES = {"POINT": 0, "LINE": 1, "PLANE": 2}
FALLOFF_SHAPES = {"SPHERE": 0, "TUBE": 1}
FIELD_SIDES = {"BOTH": 0, "POSITIVE": 1, "NEGATIVE": 2}
JOINT_TYPES = {"FIXED": 0, "POINT": 1, "HINGE": 2, "SLIDER": 3, "PISTON": 4, "GENERIC": 5}
WORLD = -1  # the body index of the world, as a joint's body_b


class NativeError(RuntimeError):
    """A failed library call: `code` is the sb_result name, the text its message."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


class SolverFailure(NativeError):
    """sb_world_step_to failed: `failure` is the library's sb_failure as a dict (kind and
    object_kind by name)."""

    def __init__(self, code, message, failure):
        super().__init__(code, message)
        self.failure = failure


class LibraryUnavailable(RuntimeError):
    """The library is missing, cannot be loaded or is of another version."""


class ClothId(ctypes.Structure):
    """sb_cloth_id: a cloth's index in its world (the order of adding, from 0), passed by value."""
    _fields_ = [("index", ctypes.c_int32)]


class ColliderId(ctypes.Structure):
    """sb_collider_id: a collider's index in its world, passed by value."""
    _fields_ = [("index", ctypes.c_int32)]


class BodyId(ctypes.Structure):
    """sb_body_id: a rigid body's index in its world, passed by value."""
    _fields_ = [("index", ctypes.c_int32)]


class FieldId(ctypes.Structure):
    """sb_field_id: a force field's index in its world, passed by value."""
    _fields_ = [("index", ctypes.c_int32)]


class FieldDef(ctypes.Structure):
    _fields_ = [
        ("type", ctypes.c_int32),  # sb_field_type
        ("shape", ctypes.c_int32),  # sb_field_shape
        ("position", ctypes.c_double * 3),
        ("axis", ctypes.c_double * 3),
        ("strength", ctypes.c_double),
        ("flow", ctypes.c_double),
        ("noise", ctypes.c_double),
        ("seed", ctypes.c_int32),
        ("falloff", ctypes.c_int32),  # sb_falloff_shape
        ("side", ctypes.c_int32),  # sb_field_side
        ("falloff_power", ctypes.c_double),
        ("use_min_distance", ctypes.c_int32),
        ("min_distance", ctypes.c_double),
        ("use_max_distance", ctypes.c_int32),
        ("max_distance", ctypes.c_double),
        ("radial_power", ctypes.c_double),
        ("use_min_radius", ctypes.c_int32),
        ("min_radius", ctypes.c_double),
        ("use_max_radius", ctypes.c_int32),
        ("max_radius", ctypes.c_double),
        ("noise_size", ctypes.c_double),
        ("global_coordinates", ctypes.c_int32),
        ("rest_length", ctypes.c_double),
        ("damping", ctypes.c_double),
        ("linear_drag", ctypes.c_double),
        ("quadratic_drag", ctypes.c_double),
    ]


class StrandDef(ctypes.Structure):
    _fields_ = [
        ("positions", ctypes.POINTER(ctypes.c_double)),
        ("strand_vertex_counts", ctypes.POINTER(ctypes.c_int32)),
        ("pins", ctypes.POINTER(ctypes.c_int32)),
        ("vertex_count", ctypes.c_int32),
        ("strand_count", ctypes.c_int32),
        ("pin_count", ctypes.c_int32),
        ("mass_per_length", ctypes.c_double),
        ("stretch_stiffness", ctypes.c_double),
        ("bend_stiffness", ctypes.c_double),
        ("damping", ctypes.c_double),
        ("air_drag", ctypes.c_double),
        ("thickness", ctypes.c_double),
        ("friction", ctypes.c_double),
        ("gravity_scale", ctypes.c_double),
        ("max_stretch", ctypes.c_double),
        ("max_compression", ctypes.c_double),
        ("self_collision", ctypes.c_int32),
    ]


class WorldDef(ctypes.Structure):
    _fields_ = [
        ("gravity", ctypes.c_double * 3),
        ("integrator", ctypes.c_int32),  # sb_integrator: every enum is 4 bytes
        ("max_step", ctypes.c_double),
        ("min_step", ctypes.c_double),
        ("grow_after", ctypes.c_int32),
        ("max_strain_change", ctypes.c_double),
        ("cg_tolerance", ctypes.c_double),
        ("cg_max_iterations", ctypes.c_int32),
        ("error_tolerance", ctypes.c_double),
        ("rigid_max_step", ctypes.c_double),
        ("rigid_iterations", ctypes.c_int32),
        ("contact_margin", ctypes.c_double),
        ("max_speed", ctypes.c_double),
        ("threads", ctypes.c_int32),
        ("rigid_time_scale", ctypes.c_double),
    ]


class ClothDef(ctypes.Structure):
    _fields_ = [
        ("vertex_count", ctypes.c_int32),
        ("positions", ctypes.POINTER(ctypes.c_double)),
        ("triangle_count", ctypes.c_int32),
        ("triangles", ctypes.POINTER(ctypes.c_int32)),
        ("uvs", ctypes.POINTER(ctypes.c_double)),
        ("density", ctypes.c_double),
        ("stretch_stiffness", ctypes.c_double),
        ("compression_stiffness", ctypes.c_double),
        ("shear_stiffness", ctypes.c_double),
        ("bend_stiffness", ctypes.c_double),
        ("damping", ctypes.c_double),
        ("air_drag", ctypes.c_double),
        ("pin_count", ctypes.c_int32),
        ("pins", ctypes.POINTER(ctypes.c_int32)),
        ("thickness", ctypes.c_double),
        ("friction", ctypes.c_double),
        ("self_collision", ctypes.c_int32),
        ("self_thickness", ctypes.c_double),
        ("gravity_scale", ctypes.c_double),
        ("shrink", ctypes.POINTER(ctypes.c_double)),
        ("pressure", ctypes.c_double),
        ("pressure_scale", ctypes.c_double),
        ("pressure_target_volume", ctypes.c_double),
        ("pressure_weights", ctypes.POINTER(ctypes.c_double)),
        ("goal_stiffness", ctypes.POINTER(ctypes.c_double)),
        ("goal_damping", ctypes.c_double),
        ("spring_count", ctypes.c_int32),
        ("springs", ctypes.POINTER(ctypes.c_int32)),
        ("spring_rest_lengths", ctypes.POINTER(ctypes.c_double)),
        ("spring_tension_stiffness", ctypes.c_double),
        ("spring_compression_stiffness", ctypes.c_double),
        ("spring_max_force", ctypes.c_double),
        ("internal_springs", ctypes.c_int32),
        ("internal_spring_max_length", ctypes.c_double),
        ("internal_spring_max_diversion", ctypes.c_double),
        ("internal_spring_normal_check", ctypes.c_int32),
        ("internal_tension_stiffness", ctypes.c_double),
        ("internal_compression_stiffness", ctypes.c_double),
        ("internal_vertex_stiffness", ctypes.POINTER(ctypes.c_double)),
        ("stretch_scale", ctypes.POINTER(ctypes.c_double)),
        ("compression_scale", ctypes.POINTER(ctypes.c_double)),
        ("shear_scale", ctypes.POINTER(ctypes.c_double)),
        ("bend_scale", ctypes.POINTER(ctypes.c_double)),
        ("self_friction", ctypes.c_double),
        ("self_collision_off", ctypes.POINTER(ctypes.c_uint8)),
        ("object_collision_off", ctypes.POINTER(ctypes.c_uint8)),
        ("max_stretch", ctypes.c_double),
        ("max_compression", ctypes.c_double),
    ]


# ClothDef's optional per-vertex arrays: their array typecodes and ctypes element types
PER_VERTEX_FIELDS = {"shrink": ("d", ctypes.c_double), "pressure_weights": ("d", ctypes.c_double),
                     "goal_stiffness": ("d", ctypes.c_double),
                     "stretch_scale": ("d", ctypes.c_double), "compression_scale": ("d", ctypes.c_double),
                     "shear_scale": ("d", ctypes.c_double), "bend_scale": ("d", ctypes.c_double),
                     "self_collision_off": ("B", ctypes.c_uint8), "object_collision_off": ("B", ctypes.c_uint8)}

# sb_cloth_set_colliders's count for every collider
ALL_COLLIDERS = -1


class ColliderDef(ctypes.Structure):
    _fields_ = [
        ("vertex_count", ctypes.c_int32),
        ("positions", ctypes.POINTER(ctypes.c_double)),
        ("triangle_count", ctypes.c_int32),
        ("triangles", ctypes.POINTER(ctypes.c_int32)),
        ("thickness", ctypes.c_double),
        ("friction", ctypes.c_double),
    ]


class BodyPart(ctypes.Structure):
    """sb_body_part: one convex part of a compound body"""
    _fields_ = [
        ("shape", ctypes.c_int32),  # sb_shape
        ("vertex_count", ctypes.c_int32),
        ("vertices", ctypes.POINTER(ctypes.c_double)),
        ("triangle_count", ctypes.c_int32),
        ("triangles", ctypes.POINTER(ctypes.c_int32)),
        ("center", ctypes.c_double * 3),
        ("radius", ctypes.c_double),
        ("half_extents", ctypes.c_double * 3),
        ("rotation", ctypes.c_double * 4),
    ]


class BodyDef(ctypes.Structure):
    _fields_ = [
        ("type", ctypes.c_int32),  # sb_body_type
        ("shape", ctypes.c_int32),  # sb_shape
        ("vertex_count", ctypes.c_int32),
        ("vertices", ctypes.POINTER(ctypes.c_double)),
        ("triangle_count", ctypes.c_int32),
        ("triangles", ctypes.POINTER(ctypes.c_int32)),
        ("center", ctypes.c_double * 3),
        ("radius", ctypes.c_double),
        ("half_extents", ctypes.c_double * 3),
        ("rotation", ctypes.c_double * 4),
        ("mass", ctypes.c_double),
        ("friction", ctypes.c_double),
        ("restitution", ctypes.c_double),
        ("linear_velocity", ctypes.c_double * 3),
        ("angular_velocity", ctypes.c_double * 3),
        ("linear_damping", ctypes.c_double),
        ("angular_damping", ctypes.c_double),
        ("collision_groups", ctypes.c_uint32),  # bit k: Blender's collision collection k + 1
        ("use_deactivation", ctypes.c_int32),
        ("start_deactivated", ctypes.c_int32),
        ("deactivate_linear_velocity", ctypes.c_double),
        ("deactivate_angular_velocity", ctypes.c_double),
        ("deactivate_time", ctypes.c_double),
        ("part_count", ctypes.c_int32),
        ("parts", ctypes.POINTER(BodyPart)),
        ("feels_cloth", ctypes.c_int32),
    ]


class JointId(ctypes.Structure):
    """sb_joint_id"""
    _fields_ = [("index", ctypes.c_int32)]


class JointDef(ctypes.Structure):
    _fields_ = [
        ("type", ctypes.c_int32),  # sb_joint_type
        ("body_a", BodyId),
        ("body_b", BodyId),
        ("pivot", ctypes.c_double * 3),
        ("rotation", ctypes.c_double * 4),
        ("use_limit", ctypes.c_int32 * 6),
        ("lower", ctypes.c_double * 6),
        ("upper", ctypes.c_double * 6),
        ("use_motor", ctypes.c_int32 * 6),
        ("motor_velocity", ctypes.c_double * 6),
        ("motor_max_force", ctypes.c_double * 6),
        ("use_spring", ctypes.c_int32 * 6),
        ("spring_stiffness", ctypes.c_double * 6),
        ("spring_damping", ctypes.c_double * 6),
        ("disable_collisions", ctypes.c_int32),
        ("breakable", ctypes.c_int32),
        ("breaking_threshold", ctypes.c_double),
        ("breaking_step", ctypes.c_double),
    ]


class BodyState(ctypes.Structure):
    _fields_ = [
        ("position", ctypes.c_double * 3),
        ("orientation", ctypes.c_double * 4),
        ("linear_velocity", ctypes.c_double * 3),
        ("angular_velocity", ctypes.c_double * 3),
        ("linear_momentum", ctypes.c_double * 3),
        ("angular_momentum", ctypes.c_double * 3),
        ("kinetic_energy", ctypes.c_double),
        ("mass", ctypes.c_double),
        ("contact_force", ctypes.c_double * 3),
        ("contacts", ctypes.c_int32),
        ("sleeping", ctypes.c_int32),
    ]


class ClothInfo(ctypes.Structure):
    _fields_ = [
        ("vertex_count", ctypes.c_int32),
        ("triangle_count", ctypes.c_int32),
        ("degenerate_triangles", ctypes.c_int32),
        ("bend_edges", ctypes.c_int32),
        ("nonmanifold_edges", ctypes.c_int32),
        ("total_mass", ctypes.c_double),
        ("rest_area", ctypes.c_double),
        ("springs", ctypes.c_int32),
        ("internal_springs", ctypes.c_int32),
    ]


class WorldStats(ctypes.Structure):
    _fields_ = [
        ("time", ctypes.c_double),
        ("steps", ctypes.c_int64),
        ("rejected_steps", ctypes.c_int64),
        ("cg_iterations", ctypes.c_int64),
        ("last_cg_iterations", ctypes.c_int32),
        ("last_step", ctypes.c_double),
        ("last_contacts", ctypes.c_int32),
        ("collisions", ctypes.c_int64),
        ("impact_zones", ctypes.c_int64),
        ("strain_violations", ctypes.c_int64),
        ("sleeping_bodies", ctypes.c_int32),
        ("rigid_pair_tests", ctypes.c_int64),
        ("rigid_body_moves", ctypes.c_int64),
    ]


class Failure(ctypes.Structure):
    _fields_ = [
        ("kind", ctypes.c_int32),  # sb_failure_kind
        ("object_kind", ctypes.c_int32),  # sb_object_kind
        ("object", ctypes.c_int32),  # the index of the cloth's or body's id
        ("cg_iterations", ctypes.c_int32),
        ("time", ctypes.c_double),
        ("step", ctypes.c_double),
        ("cg_residual", ctypes.c_double),
        ("strain_change", ctypes.c_double),
        ("speed", ctypes.c_double),
    ]


_P = ctypes.POINTER
_SIGNATURES = {
    "sb_version": (ctypes.c_int32, []),
    "sb_version_string": (ctypes.c_char_p, []),
    "sb_last_error": (ctypes.c_char_p, []),
    "sb_result_name": (ctypes.c_char_p, [ctypes.c_int32]),
    "sb_struct_layout": (ctypes.c_int, [ctypes.c_char_p, _P(ctypes.c_uint64), _P(ctypes.c_uint64), ctypes.c_int32,
                                        _P(ctypes.c_int32)]),
    "sb_default_world_def": (WorldDef, []),
    "sb_default_cloth_def": (ClothDef, []),
    "sb_default_collider_def": (ColliderDef, []),
    "sb_default_body_def": (BodyDef, []),
    "sb_default_body_part": (BodyPart, []),
    "sb_default_field_def": (FieldDef, []),
    "sb_world_add_field": (ctypes.c_int, [ctypes.c_void_p, _P(FieldDef), _P(FieldId)]),
    "sb_field_set_target": (ctypes.c_int, [ctypes.c_void_p, FieldId, ctypes.c_double, _P(ctypes.c_double),
                                           _P(ctypes.c_double), ctypes.c_double]),
    "sb_cloth_set_field_weight": (ctypes.c_int, [ctypes.c_void_p, ClothId, FieldId, ctypes.c_double]),
    "sb_default_joint_def": (JointDef, []),
    "sb_world_create": (ctypes.c_int, [_P(WorldDef), _P(ctypes.c_void_p)]),
    "sb_world_destroy": (None, [ctypes.c_void_p]),
    "sb_world_add_cloth": (ctypes.c_int, [ctypes.c_void_p, _P(ClothDef), _P(ClothId)]),
    "sb_default_strand_def": (StrandDef, []),
    "sb_world_add_strands": (ctypes.c_int, [ctypes.c_void_p, _P(StrandDef), _P(ClothId)]),
    "sb_cloth_get_info": (ctypes.c_int, [ctypes.c_void_p, ClothId, _P(ClothInfo)]),
    "sb_cloth_count_intersections": (ctypes.c_int, [ctypes.c_void_p, ClothId, ClothId, _P(ctypes.c_int64)]),
    "sb_cloth_count_collider_intersections": (
        ctypes.c_int, [ctypes.c_void_p, ClothId, ColliderId, _P(ctypes.c_int64)]),
    "sb_cloth_count_vertices_inside_collider": (
        ctypes.c_int, [ctypes.c_void_p, ClothId, ColliderId, _P(ctypes.c_int64)]),
    "sb_world_add_collider": (ctypes.c_int, [ctypes.c_void_p, _P(ColliderDef), _P(ColliderId)]),
    "sb_collider_set_positions": (
        ctypes.c_int, [ctypes.c_void_p, ColliderId, ctypes.c_double, _P(ctypes.c_double), ctypes.c_int32]),
    "sb_collider_follow_body": (ctypes.c_int, [ctypes.c_void_p, ColliderId, BodyId]),
    "sb_cloth_set_colliders": (ctypes.c_int, [ctypes.c_void_p, ClothId, _P(ColliderId), ctypes.c_int32]),
    "sb_cloth_attach_pins_to_body": (ctypes.c_int, [ctypes.c_void_p, ClothId, BodyId]),
    "sb_cloth_set_pin_targets": (
        ctypes.c_int, [ctypes.c_void_p, ClothId, ctypes.c_double, _P(ctypes.c_double), ctypes.c_int32]),
    "sb_cloth_set_goal_targets": (
        ctypes.c_int, [ctypes.c_void_p, ClothId, ctypes.c_double, _P(ctypes.c_double), ctypes.c_int32]),
    "sb_world_add_body": (ctypes.c_int, [ctypes.c_void_p, _P(BodyDef), _P(BodyId)]),
    "sb_world_add_joint": (ctypes.c_int, [ctypes.c_void_p, _P(JointDef), _P(JointId)]),
    "sb_joint_get_broken": (ctypes.c_int, [ctypes.c_void_p, JointId, _P(ctypes.c_int32), _P(ctypes.c_double)]),
    "sb_world_get_broken_joints": (
        ctypes.c_int, [ctypes.c_void_p, _P(JointId), _P(ctypes.c_double), ctypes.c_int32, _P(ctypes.c_int32)]),
    "sb_body_set_target": (ctypes.c_int, [ctypes.c_void_p, BodyId, ctypes.c_double, _P(ctypes.c_double)]),
    "sb_body_get_transform": (ctypes.c_int, [ctypes.c_void_p, BodyId, _P(ctypes.c_double)]),
    "sb_body_get_state": (ctypes.c_int, [ctypes.c_void_p, BodyId, _P(BodyState)]),
    "sb_world_get_body_transforms": (ctypes.c_int, [ctypes.c_void_p, _P(ctypes.c_double), ctypes.c_int32]),
    "sb_world_step_to": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_double]),
    "sb_world_get_time": (ctypes.c_double, [ctypes.c_void_p]),
    "sb_world_get_stats": (ctypes.c_int, [ctypes.c_void_p, _P(WorldStats)]),
    "sb_world_get_failure": (ctypes.c_int, [ctypes.c_void_p, _P(Failure)]),
    "sb_world_get_state_size": (ctypes.c_int, [ctypes.c_void_p, _P(ctypes.c_uint64)]),
    "sb_world_save_state": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint64]),
    "sb_world_load_state": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_uint64]),
    "sb_cloth_get_positions": (
        ctypes.c_int, [ctypes.c_void_p, ClothId, _P(ctypes.c_double), ctypes.c_int32]),
    "sb_transform_points": (
        ctypes.c_int, [_P(ctypes.c_double), _P(ctypes.c_double), _P(ctypes.c_double), ctypes.c_int32]),
    "sb_transform_points_f32_to_f64": (
        ctypes.c_int, [_P(ctypes.c_double), _P(ctypes.c_float), _P(ctypes.c_double), ctypes.c_int32]),
    "sb_transform_points_f64_to_f32": (
        ctypes.c_int, [_P(ctypes.c_double), _P(ctypes.c_double), _P(ctypes.c_float), ctypes.c_int32]),
}

# the library's public structs and their mirrors here (checked on load: layout_mismatches)
MIRRORS = {"sb_world_def": WorldDef, "sb_cloth_def": ClothDef, "sb_collider_def": ColliderDef,
           "sb_body_def": BodyDef, "sb_body_part": BodyPart, "sb_body_state": BodyState, "sb_cloth_info": ClothInfo,
           "sb_world_stats": WorldStats, "sb_failure": Failure, "sb_cloth_id": ClothId,
           "sb_collider_id": ColliderId, "sb_body_id": BodyId, "sb_field_def": FieldDef, "sb_field_id": FieldId,
           "sb_joint_id": JointId, "sb_joint_def": JointDef, "sb_strand_def": StrandDef}

_library = None


def layout_mismatches(lib, mirrors=MIRRORS):
    """How the ctypes mirrors differ from the library's structs, in words (empty: they agree)."""
    wrong = []
    for c_name, mirror in mirrors.items():
        size, count = ctypes.c_uint64(), ctypes.c_int32()
        offsets = (ctypes.c_uint64 * 64)()
        if lib.sb_struct_layout(c_name.encode(), ctypes.byref(size), offsets, 64, ctypes.byref(count)) != 0:
            wrong.append(f"{c_name}: {lib.sb_last_error().decode()}")
            continue
        fields = [field[0] for field in mirror._fields_]
        ours, theirs = [getattr(mirror, name).offset for name in fields], list(offsets[:count.value])
        if len(theirs) != len(fields):
            wrong.append(f"{c_name} has {len(theirs)} fields in the library, {len(fields)} here")
        elif ours != theirs:
            at = next(k for k in range(len(ours)) if ours[k] != theirs[k])
            wrong.append(f"{c_name}.{fields[at]} is at byte {theirs[at]} in the library, {ours[at]} here")
        elif size.value != ctypes.sizeof(mirror):
            wrong.append(f"{c_name} is {size.value} bytes in the library, {ctypes.sizeof(mirror)} here")
    return wrong


def library_candidates():
    """Where the library is looked for, in order. $SIMBAKE_LIBRARY, when set, is the only
    place looked at."""
    if os.environ.get("SIMBAKE_LIBRARY"):
        return [os.environ["SIMBAKE_LIBRARY"]]
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [os.path.join(here, LIBRARY_NAME)]
    # a source checkout: <repo>/addon/simbake -> <repo>/build/libsolver
    candidates.append(os.path.join(here, os.pardir, os.pardir, "build", "libsolver", LIBRARY_NAME))
    return candidates


def load():
    """The loaded library; raises LibraryUnavailable with a way to fix it."""
    global _library
    if _library is not None:
        return _library
    tried = []
    for path in library_candidates():
        if not os.path.exists(path):
            tried.append(path)
            continue
        try:
            lib = ctypes.CDLL(os.path.abspath(path))
        except OSError as error:
            raise LibraryUnavailable(f"cannot load {path}: {error}. Rebuild it with "
                                     "'cmake -S . -B build && cmake --build build'.") from error
        for name, (restype, argtypes) in _SIGNATURES.items():
            try:
                function = getattr(lib, name)
            except AttributeError as error:
                raise LibraryUnavailable(f"{path} has no {name}: it is of another version; rebuild "
                                         "it from this add-on's source.") from error
            function.restype = restype
            function.argtypes = argtypes
        version = lib.sb_version()
        found = (version // 10000, version // 100 % 100)
        if found != REQUIRED_VERSION:
            raise LibraryUnavailable(
                f"{path} is version {lib.sb_version_string().decode()}, this add-on needs "
                f"{REQUIRED_VERSION[0]}.{REQUIRED_VERSION[1]}.x; rebuild the library from the same source.")
        wrong = layout_mismatches(lib)
        if wrong:
            raise LibraryUnavailable(f"{path} does not match this add-on's copies of its structs ("
                                     + "; ".join(wrong) + "); rebuild the library from the add-on's own source.")
        _library = lib
        return lib
    raise LibraryUnavailable("libsimbake.so not found (looked in: " + ", ".join(tried) + "). Build it with "
                             "'cmake -S . -B build && cmake --build build', or set SIMBAKE_LIBRARY.")


def availability():
    """(True, version) or (False, reason): for a panel to show, never raises."""
    try:
        return True, load().sb_version_string().decode()
    except LibraryUnavailable as error:
        return False, str(error)


def _check(result):
    if result != 0:
        lib = load()
        raise NativeError(lib.sb_result_name(result).decode(), lib.sb_last_error().decode())


def _ptr(buffer, ctype):
    """ctypes pointer into an array.array (kept alive by the caller)."""
    if buffer is None:
        return None
    if len(buffer) == 0:
        return ctypes.cast(ctypes.create_string_buffer(8), _P(ctype))
    return ctypes.cast((ctype * len(buffer)).from_buffer(buffer), _P(ctype))


def _as_array(values, typecode):
    if isinstance(values, array) and values.typecode == typecode:
        return values
    return array(typecode, values)


def default_world_def():
    return load().sb_default_world_def()


def matrix_rows(matrix):
    """A 4x4 matrix (nested sequences, e.g. mathutils.Matrix) as 16 row-major doubles."""
    return array("d", [float(matrix[r][c]) for r in range(4) for c in range(4)])


def transform_points(matrix16, points, out_typecode="d"):
    """Applies a row-major 4x4 affine matrix to a flat xyz array; float32 or float64 in and out."""
    lib = load()
    count = len(points) // 3
    m = _ptr(_as_array(matrix16, "d"), ctypes.c_double)
    if points.typecode == "f" and out_typecode == "d":
        out = array("d", bytes(8 * len(points)))
        _check(lib.sb_transform_points_f32_to_f64(m, _ptr(points, ctypes.c_float), _ptr(out, ctypes.c_double), count))
        return out
    if points.typecode == "d" and out_typecode == "f":
        out = array("f", bytes(4 * len(points)))
        _check(lib.sb_transform_points_f64_to_f32(m, _ptr(points, ctypes.c_double), _ptr(out, ctypes.c_float), count))
        return out
    src = _as_array(points, "d")
    result = array("d", bytes(8 * len(src)))
    _check(lib.sb_transform_points(m, _ptr(src, ctypes.c_double), _ptr(result, ctypes.c_double), count))
    return result if out_typecode == "d" else array("f", result)


class World:
    """A simulation world. Use as a context manager, or call close().

    Cloths, colliders and bodies are named here by their index, a plain int (the order of
    adding, from 0, each kind apart); each call wraps it in the library's typed id (ClothId,
    ColliderId, BodyId)."""

    def __init__(self, gravity=(0.0, 0.0, -9.81), max_step=1.0 / 24.0, cg_tolerance=None,
                 integrator="IMPLICIT_EULER", **settings):
        self._handle = None  # so that close() and __del__ work even if creation fails
        self._lib = load()
        definition = self._lib.sb_default_world_def()
        definition.gravity[:] = [float(g) for g in gravity]
        definition.max_step = float(max_step)
        definition.integrator = INTEGRATORS[integrator]
        if cg_tolerance is not None:
            definition.cg_tolerance = float(cg_tolerance)
        for name, value in settings.items():
            setattr(definition, name, value)
        handle = ctypes.c_void_p()
        _check(self._lib.sb_world_create(ctypes.byref(definition), ctypes.byref(handle)))
        self._handle = handle
        self._cloth_sizes = []
        self._body_count = 0

    def close(self):
        if self._handle:
            self._lib.sb_world_destroy(self._handle)
            self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()

    def add_cloth(self, positions, triangles, uvs=None, pins=(), shrink=None, pressure_weights=None,
                  goal_stiffness=None, springs=None, **material):
        """positions: flat xyz (world, m); triangles: flat vertex indices; uvs: per corner
        (u, v), flat; pins: vertex indices; per-vertex arrays (None: the library's default), as
        arguments or in `material`: shrink (the fraction the rest shape is smaller),
        pressure_weights (in [0, 1]), goal_stiffness (N/m of the spring pulling a vertex to its
        goal), stretch_scale, compression_scale, shear_scale, bend_scale (factors on the
        stiffnesses), self_collision_off and object_collision_off (0 or 1); springs: None or a
        dict of ClothDef spring fields, "springs" flat vertex pairs, "spring_rest_lengths" and
        "internal_vertex_stiffness" (vertex_count x 2) sequences, the rest numbers; material: the
        other ClothDef fields. Returns the cloth id."""
        positions = _as_array(positions, "d")
        triangles = _as_array(triangles, "i")
        pins = _as_array(pins, "i")
        uvs = _as_array(uvs, "d") if uvs is not None else None
        if uvs is not None and len(uvs) and len(uvs) != 2 * len(triangles):
            raise NativeError("SB_ERROR_INVALID_ARGUMENT", f"uvs: expected 6 values per triangle (u, v at each corner), {2 * len(triangles)} "
                               f"for {len(triangles) // 3} triangles, got {len(uvs)}")
        material.update(shrink=shrink, pressure_weights=pressure_weights, goal_stiffness=goal_stiffness)
        per_vertex = {}
        for name, (typecode, ctype) in PER_VERTEX_FIELDS.items():
            values = material.pop(name, None)
            if values is None:
                continue
            values = _as_array(values, typecode)
            if len(values) != len(positions) // 3:
                raise NativeError("SB_ERROR_INVALID_ARGUMENT", f"{name}: expected one value per vertex, "
                                   f"{len(positions) // 3}, got {len(values)}")
            per_vertex[name] = (values, ctype)
        definition = self._lib.sb_default_cloth_def()
        definition.vertex_count = len(positions) // 3
        definition.positions = _ptr(positions, ctypes.c_double)
        definition.triangle_count = len(triangles) // 3
        definition.triangles = _ptr(triangles, ctypes.c_int32)
        definition.uvs = _ptr(uvs, ctypes.c_double) if uvs is not None and len(uvs) else None
        definition.pin_count = len(pins)
        definition.pins = _ptr(pins, ctypes.c_int32) if len(pins) else None
        for name, (values, ctype) in per_vertex.items():
            setattr(definition, name, _ptr(values, ctype))
        for name, value in material.items():
            setattr(definition, name, int(bool(value)) if name == "self_collision" else float(value))
        keep = self._set_springs(definition, dict(springs or {}))
        cloth = ClothId()
        _check(self._lib.sb_world_add_cloth(self._handle, ctypes.byref(definition), ctypes.byref(cloth)))
        del keep  # the spring arrays had to live through the call
        self._cloth_sizes.append(definition.vertex_count)
        return cloth.index

    def add_strands(self, positions, strand_vertex_counts, pins=(), **material):
        """Strands (hair, ropes) as polylines: positions flat xyz (world, m), strand k the next
        strand_vertex_counts[k] of them; pins: vertex indices (roots); material: the other
        StrandDef fields (mass_per_length, stretch_stiffness, bend_stiffness, damping, air_drag,
        thickness, friction, gravity_scale, max_stretch, max_compression, self_collision).
        Returns their cloth id: the cloth calls (positions, pin targets) take it."""
        positions = _as_array(positions, "d")
        counts = _as_array(strand_vertex_counts, "i")
        pins = _as_array(pins, "i")
        definition = self._lib.sb_default_strand_def()
        definition.vertex_count = len(positions) // 3
        definition.positions = _ptr(positions, ctypes.c_double)
        definition.strand_count = len(counts)
        definition.strand_vertex_counts = _ptr(counts, ctypes.c_int32) if len(counts) else None
        definition.pin_count = len(pins)
        definition.pins = _ptr(pins, ctypes.c_int32) if len(pins) else None
        for name, value in material.items():
            setattr(definition, name, int(value) if name == "self_collision" else float(value))
        strands = ClothId()
        _check(self._lib.sb_world_add_strands(self._handle, ctypes.byref(definition), ctypes.byref(strands)))
        self._cloth_sizes.append(definition.vertex_count)
        return strands.index

    @staticmethod
    def _set_springs(definition, springs):
        """Spring fields into the definition; returns the arrays it points into (to keep alive)."""
        keep = []
        pairs = springs.pop("springs", None)
        if pairs is not None and len(pairs):
            pairs = _as_array(pairs, "i")
            if len(pairs) % 2:
                raise NativeError("SB_ERROR_INVALID_ARGUMENT", f"springs: expected vertex pairs, got {len(pairs)} indices")
            definition.spring_count = len(pairs) // 2
            definition.springs = _ptr(pairs, ctypes.c_int32)
            keep.append(pairs)
        for name, count in (("spring_rest_lengths", definition.spring_count),
                            ("internal_vertex_stiffness", 2 * definition.vertex_count)):
            values = springs.pop(name, None)
            if values is None:
                continue
            values = _as_array(values, "d")
            if len(values) != count:
                raise NativeError("SB_ERROR_INVALID_ARGUMENT", f"{name}: expected {count} values, got {len(values)}")
            setattr(definition, name, _ptr(values, ctypes.c_double) if count else None)
            keep.append(values)
        for name, value in springs.items():
            setattr(definition, name, int(bool(value)) if name in ("internal_springs", "internal_spring_normal_check")
                    else float(value))
        return keep
    def add_field(self, field_type="WIND", shape="POINT", falloff="SPHERE", side="BOTH", **settings):
        """A force field as it is now (simbake.h, "Force fields"): type, shape, falloff and side
        by name, settings FieldDef fields (position, axis, strength, flow, ...). Returns its id."""
        definition = self._lib.sb_default_field_def()
        definition.type = FIELD_TYPES[field_type]
        definition.shape = FIELD_SHAPES[shape]
        definition.falloff = FALLOFF_SHAPES[falloff]
        definition.side = FIELD_SIDES[side]
        for name, value in settings.items():
            field = getattr(definition, name)
            if isinstance(field, ctypes.Array):
                field[:] = [float(v) for v in value]
            elif isinstance(field, int):
                setattr(definition, name, int(value))
            else:
                setattr(definition, name, float(value))
        field = FieldId()
        _check(self._lib.sb_world_add_field(self._handle, ctypes.byref(definition), ctypes.byref(field)))
        return field.index

    def set_field_target(self, field, time, position, axis, strength):
        """The field moves in a straight line to `position`, turns to `axis` and changes its
        strength linearly to `strength`, arriving at `time`."""
        position, axis = _as_array(position, "d"), _as_array(axis, "d")
        _check(self._lib.sb_field_set_target(self._handle, FieldId(field), float(time), _ptr(position, ctypes.c_double),
                                             _ptr(axis, ctypes.c_double), float(strength)))

    def set_field_weight(self, cloth, field, weight):
        """How much the cloth feels the field (1 until set; 0: not at all)."""
        _check(self._lib.sb_cloth_set_field_weight(self._handle, ClothId(cloth), FieldId(field), float(weight)))

    def add_collider(self, positions, triangles, thickness=None, friction=None):
        """positions: flat xyz (world, m, now); triangles: flat vertex indices. Returns its id."""
        positions = _as_array(positions, "d")
        triangles = _as_array(triangles, "i")
        definition = self._lib.sb_default_collider_def()
        definition.vertex_count = len(positions) // 3
        definition.positions = _ptr(positions, ctypes.c_double)
        definition.triangle_count = len(triangles) // 3
        definition.triangles = _ptr(triangles, ctypes.c_int32)
        if thickness is not None:
            definition.thickness = float(thickness)
        if friction is not None:
            definition.friction = float(friction)
        collider = ColliderId()
        _check(self._lib.sb_world_add_collider(self._handle, ctypes.byref(definition), ctypes.byref(collider)))
        return collider.index

    def set_collider_positions(self, collider, time, positions):
        """The collider's vertices move in straight lines to `positions`, arriving at `time`."""
        positions = _as_array(positions, "d")
        _check(self._lib.sb_collider_set_positions(self._handle, ColliderId(collider), float(time),
                                                   _ptr(positions, ctypes.c_double), len(positions) // 3))

    def follow_body(self, collider, body):
        """From now on the collider is carried by the body (two-way if the body feels the
        cloth: BodyDef.feels_cloth)."""
        _check(self._lib.sb_collider_follow_body(self._handle, ColliderId(collider), BodyId(body)))

    def _body_parts(self, parts):
        """A compound's parts as an sb_body_part array, and the arrays it points into (to keep
        alive while the library reads them). parts: dicts of shape, vertices, triangles and
        BodyPart fields (center, radius, half_extents, rotation)."""
        out = (BodyPart * len(parts))()
        keep = []
        for k, part in enumerate(parts):
            definition = self._lib.sb_default_body_part()
            definition.shape = SHAPES[part.get("shape", "BOX")]
            vertices = _as_array(part.get("vertices", ()), "d")
            triangles = _as_array(part.get("triangles", ()), "i")
            keep += [vertices, triangles]
            definition.vertex_count = len(vertices) // 3
            definition.vertices = _ptr(vertices, ctypes.c_double) if len(vertices) else None
            definition.triangle_count = len(triangles) // 3
            definition.triangles = _ptr(triangles, ctypes.c_int32) if len(triangles) else None
            for name in ("center", "half_extents", "rotation"):
                if name in part:
                    getattr(definition, name)[:] = [float(v) for v in part[name]]
            if "radius" in part:
                definition.radius = float(part["radius"])
            out[k] = definition
        return out, keep

    def add_body(self, body_type="DYNAMIC", shape="CONVEX_HULL", vertices=(), triangles=(), parts=(), **settings):
        """A rigid body as it is now, in world space. vertices: flat xyz (hull points or mesh);
        triangles: flat vertex indices (a closed mesh gives the mass distribution); parts: a
        COMPOUND's convex parts (see _body_parts); settings: BodyDef fields (center, radius,
        half_extents, rotation (w, x, y, z), mass, friction, restitution, linear_velocity,
        angular_velocity, linear_damping, angular_damping, collision_groups, use_deactivation,
        start_deactivated, deactivate_linear_velocity, deactivate_angular_velocity,
        deactivate_time, feels_cloth (0 or 1)). Returns the body id."""
        vertices = _as_array(vertices, "d")
        triangles = _as_array(triangles, "i")
        part_array, _keep = self._body_parts(parts)
        definition = self._lib.sb_default_body_def()
        definition.part_count = len(parts)
        definition.parts = part_array if len(parts) else None
        definition.type = BODY_TYPES[body_type]
        definition.shape = SHAPES[shape]
        definition.vertex_count = len(vertices) // 3
        definition.vertices = _ptr(vertices, ctypes.c_double) if len(vertices) else None
        definition.triangle_count = len(triangles) // 3
        definition.triangles = _ptr(triangles, ctypes.c_int32) if len(triangles) else None
        for name, value in settings.items():
            field = getattr(definition, name)
            if isinstance(field, ctypes.Array):
                field[:] = [float(v) for v in value]
            else:  # int fields (collision_groups, switches) stay ints
                setattr(definition, name, int(value) if isinstance(field, int) else float(value))
        body = BodyId()
        _check(self._lib.sb_world_add_body(self._handle, ctypes.byref(definition), ctypes.byref(body)))
        self._body_count += 1
        return body.index

    def add_joint(self, joint_type, body_a, body_b=WORLD, pivot=(0.0, 0.0, 0.0), rotation=(1.0, 0.0, 0.0, 0.0),
                  limits=None, motors=None, springs=None, disable_collisions=True, breaking_threshold=None,
                  breaking_step=None):
        """A joint between bodies a and b (WORLD: the world) as they are now. pivot: world
        point; rotation: the joint frame's world orientation (w, x, y, z); limits: {axis:
        (lower, upper)}, axes 0..2 translation along the frame's x, y, z (m), 3..5 rotation about
        them (rad); motors: {axis: (velocity, max force)} (m/s or rad/s, N or N·m); springs:
        {axis: (stiffness, damping)} pulling the axis back to where it is now; breaking_threshold:
        N·s over a step of breaking_step s (None: unbreakable). Returns the joint id."""
        definition = self._lib.sb_default_joint_def()
        definition.type = JOINT_TYPES[joint_type]
        definition.body_a, definition.body_b = BodyId(body_a), BodyId(body_b)
        definition.pivot[:] = [float(v) for v in pivot]
        definition.rotation[:] = [float(v) for v in rotation]
        for axis, (lower, upper) in (limits or {}).items():
            definition.use_limit[axis] = 1
            definition.lower[axis], definition.upper[axis] = float(lower), float(upper)
        for axis, (velocity, force) in (motors or {}).items():
            definition.use_motor[axis] = 1
            definition.motor_velocity[axis], definition.motor_max_force[axis] = float(velocity), float(force)
        for axis, (stiffness, damping) in (springs or {}).items():
            definition.use_spring[axis] = 1
            definition.spring_stiffness[axis], definition.spring_damping[axis] = float(stiffness), float(damping)
        definition.disable_collisions = 1 if disable_collisions else 0
        if breaking_threshold is not None:
            definition.breakable = 1
            definition.breaking_threshold = float(breaking_threshold)
            if breaking_step is not None:
                definition.breaking_step = float(breaking_step)
        joint = JointId()
        _check(self._lib.sb_world_add_joint(self._handle, ctypes.byref(definition), ctypes.byref(joint)))
        return joint.index

    def joint_broken(self, joint):
        """When the joint broke (s), or None while it holds."""
        broken, when = ctypes.c_int32(), ctypes.c_double()
        _check(self._lib.sb_joint_get_broken(self._handle, JointId(joint), ctypes.byref(broken), ctypes.byref(when)))
        return when.value if broken.value else None

    def broken_joints(self):
        """{joint id: time it broke (s)} of every joint broken so far."""
        count = ctypes.c_int32()
        _check(self._lib.sb_world_get_broken_joints(self._handle, None, None, 0, ctypes.byref(count)))
        ids, times = (JointId * max(count.value, 1))(), (ctypes.c_double * max(count.value, 1))()
        _check(self._lib.sb_world_get_broken_joints(self._handle, ids, times, count.value, ctypes.byref(count)))
        return {ids[k].index: times[k] for k in range(count.value)}

    def set_body_target(self, body, time, matrix16):
        """A kinematic body moves to the pose `matrix16` (row-major rigid displacement from its
        pose when added) gives it, arriving at `time`."""
        matrix = _as_array(matrix16, "d")
        _check(self._lib.sb_body_set_target(self._handle, BodyId(body), float(time), _ptr(matrix, ctypes.c_double)))

    def body_transform(self, body):
        """The rigid displacement since the body was added: 16 row-major doubles."""
        out = array("d", bytes(16 * 8))
        _check(self._lib.sb_body_get_transform(self._handle, BodyId(body), _ptr(out, ctypes.c_double)))
        return out

    def body_transforms(self):
        """body_transform of every body in id order, 16 doubles each, flat."""
        out = array("d", bytes(16 * 8 * self._body_count))
        self.body_transforms_into(out)
        return out

    @property
    def body_count(self):
        return self._body_count

    def body_transforms_into(self, out, start=0):
        """body_transforms written into the array("d") `out` from index `start`: no buffer
        and no pointer cast a frame (a bake keeps every frame's in one array)."""
        count = self._body_count
        if not (isinstance(out, array) and out.typecode == "d") or start < 0 or len(out) < start + 16 * count:
            raise ValueError(f"body_transforms_into: needs an array('d') with {16 * count} values from {start}")
        if count:  # an array of doubles passes as the double pointer itself
            view = (ctypes.c_double * (16 * count)).from_buffer(out, 8 * start)
            _check(self._lib.sb_world_get_body_transforms(self._handle, view, count))

    def transform_rows(self, out, rows):
        """`rows` ctypes arrays of body_transforms' length over the array("d") `out`, one after
        the other from its start: made once for a bake's frames, so that body_transforms_to
        writes each frame with no buffer and no cast."""
        width = 16 * self._body_count
        if not (isinstance(out, array) and out.typecode == "d") or not width or rows < 1 or len(out) < width * rows:
            raise ValueError(f"transform_rows: needs an array('d') of {rows} x {width} values")
        return ((ctypes.c_double * width) * rows).from_buffer(out)

    def body_transforms_to(self, row):
        """body_transforms written into `row`, one of transform_rows' arrays."""
        count = self._body_count
        if len(row) != 16 * count:
            raise ValueError(f"body_transforms_to: needs a row of {16 * count} doubles, got {len(row)}")
        result = self._lib.sb_world_get_body_transforms(self._handle, row, count)
        if result:
            _check(result)

    def body_state(self, body):
        state = BodyState()
        _check(self._lib.sb_body_get_state(self._handle, BodyId(body), ctypes.byref(state)))
        return {name: (list(getattr(state, name)) if isinstance(getattr(state, name), ctypes.Array)
                       else getattr(state, name)) for name, _ in BodyState._fields_}

    def cloth_info(self, cloth):
        info = ClothInfo()
        _check(self._lib.sb_cloth_get_info(self._handle, ClothId(cloth), ctypes.byref(info)))
        return {name: getattr(info, name) for name, _ in ClothInfo._fields_}

    def count_intersections(self, cloth, other=None, collider=None):
        """Intersecting triangle pairs now between the cloth and another cloth (itself when
        `other` is the cloth: 0 unless it collides with itself) or a collider (0 when it does
        not meet it): what starts tangled."""
        pairs = ctypes.c_int64(0)
        if collider is not None:
            _check(self._lib.sb_cloth_count_collider_intersections(self._handle, ClothId(cloth), ColliderId(collider),
                                                                   ctypes.byref(pairs)))
        else:
            _check(self._lib.sb_cloth_count_intersections(self._handle, ClothId(cloth),
                                                          ClothId(cloth if other is None else other),
                                                          ctypes.byref(pairs)))
        return pairs.value

    def count_inside(self, cloth, collider):
        """The cloth's vertices inside a closed collider now (0 when it does not meet it, or
        the collider has no inside): a cloth wholly inside crosses no triangle of it."""
        inside = ctypes.c_int64(0)
        _check(self._lib.sb_cloth_count_vertices_inside_collider(self._handle, ClothId(cloth), ColliderId(collider),
                                                                 ctypes.byref(inside)))
        return inside.value

    def set_colliders(self, cloth, colliders):
        """The colliders (ids) the cloth meets from now on; None: every collider, those added
        later too (the default)."""
        if colliders is None:
            _check(self._lib.sb_cloth_set_colliders(self._handle, ClothId(cloth), None, ALL_COLLIDERS))
            return
        ids = (ColliderId * max(1, len(colliders)))(*[ColliderId(int(k)) for k in colliders])
        _check(self._lib.sb_cloth_set_colliders(self._handle, ClothId(cloth), ids, len(colliders)))

    def attach_pins_to_body(self, cloth, body):
        """From now on the cloth's pins are carried by the body, where they are in its frame now
        (one way: the cloth's pull does not reach the body); set_pin_targets is then refused."""
        _check(self._lib.sb_cloth_attach_pins_to_body(self._handle, ClothId(cloth), BodyId(body)))

    def set_pin_targets(self, cloth, time, positions):
        positions = _as_array(positions, "d")
        _check(self._lib.sb_cloth_set_pin_targets(self._handle, ClothId(cloth), float(time),
                                                  _ptr(positions, ctypes.c_double), len(positions) // 3))

    def set_goal_targets(self, cloth, time, positions):
        """positions: flat xyz of every vertex (world, m): where the goals arrive at `time`."""
        positions = _as_array(positions, "d")
        _check(self._lib.sb_cloth_set_goal_targets(self._handle, ClothId(cloth), float(time),
                                                   _ptr(positions, ctypes.c_double), len(positions) // 3))

    def step_to(self, time):
        """Raises SolverFailure (with what went wrong, and where) if the solver gives up."""
        try:
            _check(self._lib.sb_world_step_to(self._handle, float(time)))
        except NativeError as error:
            raise SolverFailure(error.code, str(error), self.failure()) from None

    def failure(self):
        """What went wrong in the last step_to: sb_failure as a dict."""
        failure = Failure()
        _check(self._lib.sb_world_get_failure(self._handle, ctypes.byref(failure)))
        out = {name: getattr(failure, name) for name, _ in Failure._fields_}
        out["kind"] = FAILURE_KINDS.get(out["kind"], "UNKNOWN")
        out["object_kind"] = OBJECT_KINDS.get(out["object_kind"])
        return out

    @property
    def time(self):
        return self._lib.sb_world_get_time(self._handle)

    def save_state(self):
        """Everything the world needs to go on from now, as bytes (sb_world_save_state)."""
        size = ctypes.c_uint64()
        _check(self._lib.sb_world_get_state_size(self._handle, ctypes.byref(size)))
        buffer = ctypes.create_string_buffer(size.value)
        _check(self._lib.sb_world_save_state(self._handle, buffer, size.value))
        return buffer.raw

    def load_state(self, state):
        """Continues from a state save_state gave, in a world built with the same objects;
        raises NativeError (naming what differs) otherwise."""
        state = bytes(state)
        _check(self._lib.sb_world_load_state(self._handle, state, len(state)))

    def stats(self):
        stats = WorldStats()
        _check(self._lib.sb_world_get_stats(self._handle, ctypes.byref(stats)))
        return {name: getattr(stats, name) for name, _ in WorldStats._fields_}

    def positions(self, cloth):
        """World positions of a cloth's vertices, flat float64."""
        out = array("d", bytes(24 * self._cloth_sizes[cloth]))
        _check(self._lib.sb_cloth_get_positions(self._handle, ClothId(cloth), _ptr(out, ctypes.c_double),
                                                self._cloth_sizes[cloth]))
        return out
