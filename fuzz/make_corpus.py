#!/usr/bin/env python3
"""Writes the seed corpus fuzz/corpus/<target>/ in the byte format of fuzz_input.h.

Each seed is a small meaningful scene; the fuzzer mutates from there. Readers return
defaults past the end of the input, so a seed stops as soon as the rest may be defaults.
Run again after changing a decoder (it rewrites every seed)."""
import math
import pathlib
import struct

CORPUS = pathlib.Path(__file__).resolve().parent / "corpus"

# --- the encoding of fuzz_input.h -------------------------------------------------------
DEFAULT = b"\x00"
NAN, INF, NEG_INF, ZERO, DBL_MAX, DBL_TRUE_MIN = b"\x02", b"\x03", b"\x04", b"\x05", b"\x07", b"\x0a"


def num(value):
    """A double in the shortest tag that holds it exactly."""
    if math.isnan(value):
        return NAN
    if math.isinf(value):
        return INF if value > 0 else NEG_INF
    sixteenths = value * 16
    if sixteenths == int(sixteenths) and -128 <= sixteenths <= 127:
        return bytes([15, int(sixteenths) & 0xFF])
    if abs(value) < 3e38 and struct.unpack("<f", struct.pack("<f", value))[0] == value:
        return b"\x0e" + struct.pack("<f", value)
    return b"\x01" + struct.pack("<d", value)


def nums(values):
    return b"".join(num(v) for v in values)


def i32(value):
    return bytes([value + 6]) if 0 <= value <= 249 else b"\x01" + struct.pack("<i", value)


def byte(value):
    return bytes([value])


def mesh(points, triangles):
    assert len(points) <= 252
    return (byte(len(points)) + nums(c for p in points for c in p) + byte(len(triangles)) +
            bytes(i for t in triangles for i in t))


WORLD_FIELDS = ["gravity_x", "gravity_y", "gravity_z", "integrator", "max_step", "min_step",
                "grow_after", "max_strain_change", "cg_tolerance", "cg_max_iterations",
                "error_tolerance", "rigid_max_step", "rigid_iterations", "contact_margin",
                "max_speed", "rigid_time_scale"]
WORLD_INTS = {"integrator": byte, "grow_after": i32, "cg_max_iterations": i32, "rigid_iterations": i32}


def world(**fields):
    """World definition, defaults except the fields given (raw bytes or numbers)."""
    out = b""
    for name in WORLD_FIELDS:
        value = fields.pop(name, None)
        if value is None:
            out += DEFAULT
        elif isinstance(value, bytes):
            out += value
        else:
            out += WORLD_INTS.get(name, num)(value)
    assert not fields, fields
    return out


def identity_matrix():
    return byte(0)


def quaternion_matrix(q, t=(0, 0, 0)):
    return byte(1) + nums(q) + nums(t)


def scale_matrix(s, t=(0, 0, 0)):
    return byte(2) + num(s) + nums(t)


def raw_matrix(values):
    return byte(3) + b"".join(v if isinstance(v, bytes) else num(v) for v in values)


# --- shapes ------------------------------------------------------------------------------
def grid(n, spacing=0.125, z=1.0):
    points = [(i * spacing, j * spacing, z) for j in range(n) for i in range(n)]
    triangles = []
    for j in range(n - 1):
        for i in range(n - 1):
            a, b, c, d = j * n + i, j * n + i + 1, (j + 1) * n + i, (j + 1) * n + i + 1
            triangles += [(a, b, d), (a, d, c)]
    return points, triangles


def quad(half, z):
    points = [(-half, -half, z), (half, -half, z), (half, half, z), (-half, half, z)]
    return points, [(0, 1, 2), (0, 2, 3)]


def cube(half=0.5, center=(0, 0, 0)):
    cx, cy, cz = center
    points = [(cx + x * half, cy + y * half, cz + z * half) for z in (-1, 1) for y in (-1, 1) for x in (-1, 1)]
    triangles = [(0, 2, 1), (1, 2, 3), (4, 5, 6), (5, 7, 6), (0, 1, 4), (1, 5, 4),
                 (2, 6, 3), (3, 6, 7), (0, 4, 2), (2, 4, 6), (1, 3, 5), (3, 7, 5)]
    return points, triangles


TETRAHEDRON = ([(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)], [(0, 2, 1), (0, 1, 3), (0, 3, 2), (1, 2, 3)])
OCTAHEDRON = ([(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)],
              [(0, 2, 4), (2, 1, 4), (1, 3, 4), (3, 0, 4), (2, 0, 5), (1, 2, 5), (3, 1, 5), (0, 3, 5)])


# --- fuzz_cloth --------------------------------------------------------------------------
def cloth(shape, world_bytes=b"", uvs=None, material=(), self_collision=0, pins=(), lie=0,
          collider=None, second=None, step=None, rest=b""):
    """World, cloth mesh, UVs, the 8 material doubles (defaults after those given),
    self_collision, pins, lie byte, optional collider (mesh, thickness, friction), optional
    second cloth (the offset of a copy), step."""
    out = (world_bytes or world()) + mesh(*shape)
    out += byte(1) + nums(uvs) if uvs is not None else byte(0)
    out += b"".join(m if isinstance(m, bytes) else num(m) for m in material) + DEFAULT * (8 - len(material))
    out += i32(self_collision) + byte(len(pins)) + bytes(pins) + byte(lie)
    out += byte(1) + mesh(*collider) + DEFAULT * 2 if collider else byte(0)
    out += byte(1) + nums(second) if second else byte(0)
    if step is not None or rest:
        out += num(step) if step is not None else DEFAULT
    return out + rest


def pin_targets(pin_count, time=None, values=()):
    """sb_cloth_set_pin_targets: time, (pins + 1) x 3 targets (rest positions after those
    given), the right count, not NULL."""
    assert len(values) <= 3 * (pin_count + 1)
    return ((num(time) if time is not None else DEFAULT) + nums(values) +
            DEFAULT * (3 * (pin_count + 1) - len(values)) + byte(0) + byte(0))


def grid_uvs(shape):
    points, triangles = shape
    return [c for t in triangles for v in t for c in (points[v][0], points[v][1])]


def cloth_seeds():
    g4, g3, g5 = grid(4), grid(3), grid(5)
    draped = grid(5, z=0.51)
    seeds = {
        "grid4_drop": cloth(g4),
        "grid4_pinned_corners": cloth(g4, pins=(0, 3)),
        "grid3_uvs": cloth(g3, uvs=grid_uvs(g3)),
        "grid5_on_collider": cloth(draped, collider=quad(1.0, 0.5)),
        # read-back counts right, pin targets left at rest, the collider rising 5 cm by t = 0.07
        # read-back counts right, no pins, then the collider rises 5 cm by t = 0.07
        "grid5_collider_rises": cloth(draped, collider=quad(1.0, 0.5), step=0.05,
                                      rest=byte(0) * 2 + pin_targets(0) + num(0.07) +
                                      nums(c for p in quad(1.0, 0.55)[0] for c in p)),
        # the four corners lifted 2 cm by t = 0.1
        "grid4_pins_move": cloth(g4, pins=(0, 3, 12, 15), step=0.02,
                                 rest=byte(0) * 2 + pin_targets(4, 0.1, [c + (0.02 if k == 2 else 0)
                                                                          for i in (0, 3, 12, 15)
                                                                          for k, c in enumerate(g4[0][i])])),
        "grid4_self_collision": cloth(g4, self_collision=1),
        # the corner pins carried by a falling ball of radius 0.1 with its cube collider (feels_cloth
        # 0), the world's reads of pin and collider targets taken as they come, then
        # sb_cloth_attach_pins_to_body to the ball, pin targets by hand (refused), a step of 0.02 s
        "grid4_pins_on_ball": (world() + mesh(*g4) + byte(0) + DEFAULT * 8 + i32(0) + byte(2) + bytes((0, 3)) +
                               byte(0) + byte(1) + mesh(*cube(0.1, (0, 0, 1.3))) + DEFAULT * 2 + byte(1) +
                               nums((0, 0, 1.3)) + num(0.1) + DEFAULT * 4 + byte(0) + byte(0) + num(0.02) +
                               byte(0) * 2 + pin_targets(2) + DEFAULT * 28 + byte(0) * 2 + DEFAULT + byte(0) * 2 +
                               byte(1) + byte(0) + pin_targets(2) + num(0.02) + byte(0) * 2),
        "two_cloths_stacked": cloth(draped, collider=quad(1.0, 0.5), second=(0.0625, 0.0625, 0.0625)),
        "grid3_rk4": cloth(g3, world_bytes=world(integrator=3)),
        "grid3_midpoint": cloth(g3, world_bytes=world(integrator=2)),
        "grid3_explicit_euler": cloth(g3, world_bytes=world(integrator=1, error_tolerance=1e-2)),
        "grid4_stiff_tiny_cg": cloth(g4, world_bytes=world(cg_max_iterations=2, max_step=0.01),
                                     material=(0.15, 1e6, 1e5, 1.0)),
        "degenerate_and_duplicate": cloth(([(0, 0, 1), (1, 0, 1), (2, 0, 1), (0, 1, 1)],
                                           [(0, 1, 2), (0, 1, 3), (0, 1, 3), (3, 3, 3)])),
        "nonmanifold_edge": cloth(([(0, 0, 1), (1, 0, 1), (0, 1, 1), (0, -1, 1), (0, 0, 2)],
                                   [(0, 1, 2), (1, 0, 3), (0, 1, 4)])),
        "single_triangle": cloth(([(0, 0, 1), (1, 0, 1), (0, 1, 1)], [(0, 1, 2)])),
        "index_out_of_range": cloth(([(0, 0, 1), (1, 0, 1), (0, 1, 1)], [(0, 1, 3)])),
        "nan_density": cloth(g3, material=(NAN,)),
        "zero_stiffness_no_gravity": cloth(g3, world_bytes=world(gravity_z=0.0), material=(0.15, 0.0, 0.0, 0.0)),
        "invalid_world": cloth(g3, world_bytes=world(min_step=NAN, grow_after=-1)),
        "extreme_world": cloth(g3, world_bytes=world(max_step=DBL_TRUE_MIN, min_step=DBL_TRUE_MIN, grow_after=2**31 - 1,
                                                     cg_max_iterations=2**31 - 1, max_strain_change=DBL_MAX,
                                                     cg_tolerance=0.9, max_speed=INF)),
    }
    return seeds


# --- fuzz_rigid --------------------------------------------------------------------------
def body(body_type, shape, points=(), triangles=(), center=(0, 0, 0), radius=0.5, half=(0.5, 0.5, 0.5),
         rotation=(1, 0, 0, 0), mass=1.0, friction=0.5, restitution=0.0, velocity=(0, 0, 0), spin=(0, 0, 0),
         lie=0, groups=1, sleep=0, sleep_time=None, parts=None, feels=0):
    """sleep: bit 0 use_deactivation, bit 1 start_deactivated; parts: a compound's parts
    (part(...) each), None for the other shapes."""
    compound = b""
    if parts is not None:
        compound = byte(len(parts)) + b"".join(parts) + (byte(1) if not parts else b"")
    return (byte(body_type) + byte(shape) + mesh(points, triangles) + nums(center) + num(radius) + nums(half) +
            nums(rotation) + num(mass) + num(friction) + num(restitution) + nums(velocity) + nums(spin) +
            DEFAULT * 2 + i32(groups) + byte(sleep) + DEFAULT * 2 +
            (num(sleep_time) if sleep_time is not None else DEFAULT) + compound + byte(feels) + byte(lie))


def part(shape, points=(), triangles=(), center=(0, 0, 0), radius=0.3, half=(0.3, 0.3, 0.3), rotation=(1, 0, 0, 0),
         lie=0):
    return (byte(shape) + mesh(points, triangles) + nums(center) + num(radius) + nums(half) + nums(rotation) +
            byte(lie))


DYNAMIC, KINEMATIC, STATIC = 0, 1, 2
SPHERE, BOX, HULL, MESH, COMPOUND, CAPSULE, CYLINDER, CONE = 0, 1, 2, 3, 4, 5, 6, 7


def step_spec(target_body=0, target_time=None, matrix=identity_matrix(), length=None):
    return (byte(target_body) + (num(target_time) if target_time is not None else DEFAULT) + matrix + byte(0) +
            (num(length) if length is not None else DEFAULT))


def rigid(bodies, world_bytes=b"", collider=None, steps=(step_spec(),)):
    out = (world_bytes or world()) + byte(len(bodies)) + b"".join(bodies)
    out += byte(1) + mesh(*collider[0]) + byte(collider[1]) if collider else byte(0)
    return out + byte(len(steps) - 1) + b"".join(steps)


def rigid_seeds():
    ground = body(STATIC, MESH, *quad(4.0, 0.0))
    box_on_ground = body(DYNAMIC, BOX, center=(0, 0, 0.5))
    half_turn_z = (math.cos(math.pi / 4), 0, 0, math.sin(math.pi / 4))
    return {
        "box_on_static_mesh": rigid([ground, box_on_ground], steps=(step_spec(length=0.05),) * 3),
        "sphere_on_static_box": rigid([body(STATIC, BOX, center=(0, 0, -0.5)),
                                       body(DYNAMIC, SPHERE, center=(0, 0, 0.55), radius=0.5)]),
        "hull_points_on_ground": rigid([ground, body(DYNAMIC, HULL, *([(x, y, z) for x, y, z in TETRAHEDRON[0]],
                                                                       ()))]),
        "hull_closed_cube": rigid([ground, body(DYNAMIC, HULL, *cube(0.25, (0, 0, 0.3)))]),
        "kinematic_box_pushes_sphere": rigid(
            [body(KINEMATIC, BOX, center=(-1, 0, 0.5)), body(DYNAMIC, SPHERE, center=(0.1, 0, 0.5), radius=0.5)],
            world_bytes=world(gravity_z=0.0),
            steps=(step_spec(0, 0.1, quaternion_matrix(half_turn_z, (1, 0, 0)), 0.05), step_spec(length=0.05))),
        "stacked_unnormalised_rotation": rigid([ground, body(DYNAMIC, BOX, center=(0, 0, 0.5), rotation=(2, 0, 0, 0)),
                                                body(DYNAMIC, BOX, center=(0, 0, 1.5), rotation=(1, 0, 0, 0.1))]),
        "collider_follows_body": rigid([box_on_ground], collider=(quad(0.5, 1.0), 0)),
        "bouncing_spheres": rigid([body(STATIC, SPHERE, radius=1.0),
                                   body(DYNAMIC, SPHERE, center=(0, 0, 1.6), velocity=(0, 0, -5), restitution=1.0)]),
        "explicit_world_refuses": rigid([box_on_ground], world_bytes=world(integrator=1)),
        "dynamic_mesh_refused": rigid([body(DYNAMIC, MESH, *quad(1.0, 0.0))]),
        "kinematic_scaled_target": rigid([body(KINEMATIC, SPHERE, center=(0, 0, 1))],
                                         steps=(step_spec(0, 0.1, scale_matrix(2.0)),)),
        "kinematic_raw_nan_target": rigid([body(KINEMATIC, HULL, *cube())],
                                          steps=(step_spec(0, 0.1, raw_matrix([1, 0, 0, NAN] + [0] * 12)),)),
        "spinning_box": rigid([ground, body(DYNAMIC, BOX, center=(0, 0, 1), spin=(0, 0, 30), mass=5.0)]),
        "zero_rotation_and_mass": rigid([body(DYNAMIC, BOX, rotation=(0, 0, 0, 0)),
                                         body(DYNAMIC, SPHERE, mass=0.0)]),
        "huge_box": rigid([body(DYNAMIC, BOX, half=(1e80, 1e80, 1e80))]),
        "stack_falls_asleep": rigid([ground, body(DYNAMIC, BOX, center=(0, 0, 0.5), sleep=1, sleep_time=0.01),
                                     body(DYNAMIC, BOX, center=(0, 0, 1.5), sleep=1, sleep_time=0.01)],
                                    steps=(step_spec(length=0.05),) * 3),
        "start_deactivated_hit": rigid([body(DYNAMIC, BOX, center=(0, 0, 1), sleep=3),
                                        body(DYNAMIC, BOX, center=(0.2, 0, 2.01), velocity=(0, 0, -3)),
                                        body(KINEMATIC, BOX, center=(-1, 0, 1), sleep=3)],
                                       steps=(step_spec(2, 0.1, quaternion_matrix((1, 0, 0, 0), (1, 0, 0)), 0.05),
                                              step_spec(length=0.05))),
        "disjoint_collision_groups": rigid([body(STATIC, BOX, center=(0, 0, -0.5), groups=-1),
                                            body(DYNAMIC, BOX, center=(0, 0, 0.5), groups=2),
                                            body(DYNAMIC, BOX, center=(0, 0, 0.9), groups=1),
                                            body(DYNAMIC, SPHERE, center=(2, 0, 0.5), groups=0)]),
        "rigid_time_scaled": rigid([ground, box_on_ground, body(DYNAMIC, SPHERE, center=(0.2, 0, 2), radius=0.3)],
                                   world_bytes=world(rigid_time_scale=2.5), steps=(step_spec(length=0.05),) * 2),
        "compound_table_on_ground": rigid([ground, body(DYNAMIC, COMPOUND, mass=5.0, parts=[
            part(BOX, center=(0, 0, 0.8), half=(0.6, 0.4, 0.03))] + [
            part(BOX, center=(x, y, 0.4), half=(0.03, 0.03, 0.37)) for x in (-0.5, 0.5) for y in (-0.3, 0.3)])],
            steps=(step_spec(length=0.05),) * 3),
        "compound_sphere_hull_on_static_compound": rigid([
            body(STATIC, COMPOUND, parts=[part(BOX, center=(-1, 0, -0.5), half=(1, 1, 0.5)),
                                          part(SPHERE, center=(1, 0, -0.5), radius=0.6)]),
            body(DYNAMIC, COMPOUND, parts=[part(SPHERE, center=(0, 0, 0.4), radius=0.2),
                                           part(HULL, *cube(0.2, (0.3, 0, 0.5)))])]),
        "capsule_on_slope_and_mesh": rigid([ground, body(STATIC, BOX, center=(2, 0, -0.5), rotation=(0.99, 0, 0.13, 0)),
                                            body(DYNAMIC, CAPSULE, center=(2, 0, 0.3), radius=0.2, half=(0, 0, 0.4),
                                                 rotation=(0.7071, 0.7071, 0, 0)),
                                            body(DYNAMIC, CAPSULE, center=(0, 0, 0.3), radius=0.2, half=(0, 0, 0.4))],
                                           steps=(step_spec(length=0.05),) * 3),
        "cylinders_and_cones": rigid([ground, body(DYNAMIC, CYLINDER, center=(0, 0, 0.3), radius=0.2, half=(0, 0, 0.3)),
                                      body(DYNAMIC, CYLINDER, center=(1, 0, 0.3), radius=0.2, half=(0, 0, 0.4),
                                           rotation=(0.7071, 0.7071, 0, 0)),
                                      body(DYNAMIC, CONE, center=(-1, 0, 0.3), radius=0.3, half=(0, 0, 0.3)),
                                      body(DYNAMIC, CONE, center=(0.1, 0, 1.0), radius=0.2, half=(0, 0, 0.2),
                                           rotation=(0.7071, 0, 0.7071, 0)),
                                      body(DYNAMIC, SPHERE, center=(0, 0.1, 1.6), radius=0.2),
                                      body(DYNAMIC, CAPSULE, center=(1, 0, 1.2), radius=0.1, half=(0, 0, 0.2))],
                                     steps=(step_spec(length=0.05),) * 3),
        "cylinder_cone_bad_and_as_parts": rigid([body(DYNAMIC, CYLINDER, radius=0.0), body(DYNAMIC, CONE, half=(0, 0, -1)),
                                    body(DYNAMIC, COMPOUND, parts=[part(CYLINDER), part(CONE)])]),
        "compound_of_capsules": rigid([ground, body(DYNAMIC, COMPOUND, parts=[
            part(CAPSULE, center=(0, 0, 0.5), radius=0.1, half=(0, 0, 0.3)),
            part(CAPSULE, center=(0.3, 0, 0.5), radius=0.1, half=(0, 0, 0.0), rotation=(0.7071, 0, 0.7071, 0))])]),
        "compound_bad_parts": rigid([body(DYNAMIC, COMPOUND, parts=[part(MESH, *quad(1.0, 0.0)), part(BOX, lie=2)]),
                                     body(DYNAMIC, COMPOUND, parts=[])]),
        "rigid_world_extremes": rigid([box_on_ground], world_bytes=world(rigid_iterations=1, contact_margin=1.0,
                                                                          rigid_max_step=0.05, max_speed=INF)),
    }


# --- fuzz_mass_properties ----------------------------------------------------------------
def mass(shape, density=None, lie=0):
    return mesh(*shape) + (num(density) if density is not None else DEFAULT) + byte(lie)


def mass_properties_seeds():
    points, triangles = TETRAHEDRON
    return {
        "tetrahedron": mass(TETRAHEDRON),
        "cube": mass(cube()),
        "cube_off_origin": mass(cube(0.25, (3, -2, 1)), density=7800.0),
        "octahedron": mass(OCTAHEDRON),
        "open_tetrahedron": mass((points, triangles[:3])),
        "inside_out_tetrahedron": mass((points, [(a, c, b) for a, b, c in triangles])),
        "flat_closed": mass(([(0, 0, 0), (1, 0, 0), (0, 1, 0)], [(0, 1, 2), (0, 2, 1)])),
        "zero_density": mass(TETRAHEDRON, density=0.0),
        "index_out_of_range": mass((points, triangles[:3] + [(1, 2, 9)])),
        "vertex_count_lie": mass(TETRAHEDRON, lie=1),
        "null_triangles": mass(TETRAHEDRON, lie=6),
    }


# --- fuzz_transform ----------------------------------------------------------------------
def transform(matrix, points, lie=0, in_place=0):
    return matrix + byte(len(points)) + nums(c for p in points for c in p) + byte(lie) + byte(in_place)


def transform_seeds():
    points = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0.5, -2, 3)]
    quarter_z = (math.cos(math.pi / 4), 0, 0, math.sin(math.pi / 4))
    return {
        "identity": transform(identity_matrix(), points),
        "scale_translate": transform(scale_matrix(2.0, (1, 2, 3)), points),
        "rotate_z": transform(quaternion_matrix(quarter_z, (0, 0, 1)), points, in_place=1),
        "shear_raw": transform(raw_matrix([1, 0.5, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]), points),
        "nan_matrix": transform(raw_matrix([NAN] + [0] * 15), points),
        "huge_points": transform(scale_matrix(1e300), [(1e300, -1e300, 3)]),
        "nan_points": transform(identity_matrix(), [(math.nan, math.inf, -math.inf)]),
        "negative_count": transform(identity_matrix(), points, lie=2),
        "no_points": transform(identity_matrix(), []),
    }


# --- fuzz_cloth_features -----------------------------------------------------------------
def features(shape=0, pins=(), pressure=(), weights=None, goals=b"\x00", springs=((0, 5), (1, 6)), internal=b"",
             scales=None, self_collision=0, shrink=None, collision_off=None, colliders=(0.85,), fields=((),),
             weights_set=(), set_colliders=b""):
    """World, shape (0 grid of 9, 1 octahedron of 6), pins, pressure doubles, the optional
    per-vertex arrays (flag + values), springs, internal spring settings (defaults unless
    given), colliders (heights), fields (each a tuple of the leading doubles after type and
    shape, or bytes), field weights, sb_cloth_set_colliders bytes."""
    n = 6 if shape else 9
    opt = lambda values: byte(1) + nums(values) if values is not None else byte(0)
    out = world() + byte(shape) + byte(len(pins)) + bytes(pins)
    out += b"".join(num(p) for p in pressure) + DEFAULT * (3 - len(pressure)) + opt(weights)
    out += goals + DEFAULT + byte(len(springs)) + bytes(i for s in springs for i in s) + byte(0) + DEFAULT * 3
    out += internal or (DEFAULT * 6 + byte(0))
    out += b"".join(opt(None if scales is None else [scales[k]] * n) for k in range(4))
    out += DEFAULT + i32(self_collision) + DEFAULT * 2 + opt(shrink)
    out += (byte(1) + bytes(collision_off) if collision_off is not None else byte(0)) + byte(0)
    out += byte(len(colliders)) + nums(colliders)
    out += byte(len(fields)) + b"".join(f if isinstance(f, bytes) else field(0) for f in fields)
    out += byte(len(weights_set)) + b"".join(byte(f) + num(w) for f, w in weights_set)
    return out + (set_colliders or byte(0))


def field(kind, field_shape=0, position=(0, 0, 1.5), axis=(0, 0, 1), strength=1.0, flow=0.0, noise=0.0):
    """A field: type, shape, position, axis, strength, flow, noise; the other 19 values default."""
    return (byte(kind) + byte(field_shape) + nums(position) + nums(axis) + num(strength) + num(flow) + num(noise) +
            DEFAULT * 19)


def cloth_features_seeds():
    return {
        "defaults": b"",
        "grid_goals_springs_wind": features(),
        "octahedron_pressure_internal": features(shape=1, pressure=(50.0, 100.0), goals=byte(1), springs=(),
                                                 internal=i32(1) + num(0.5) + DEFAULT + i32(1) + DEFAULT * 2 +
                                                 byte(0)),
        "octahedron_weighted_pressure": features(shape=1, pressure=(-20.0, 100.0, 0.004),
                                                 weights=[1, 0.5, 1, 1, 0, 1], goals=byte(1), springs=()),
        "grid_scales_self_collision": features(scales=(0.5, 2.0, 0.0, 3.0), self_collision=1,
                                               shrink=[0.1] * 9, collision_off=[1, 1, 0, 1, 1, 0, 0, 0, 0]),
        "grid_pinned_no_goals": features(pins=(0, 2), goals=byte(1), springs=((3, 5),)),
        "every_field_type": features(fields=tuple(field(k) for k in range(6)) [:3],
                                     weights_set=((0, 0.5), (1, 2.0), (2, 0.0))),
        "vortex_turbulence_harmonic": features(fields=(field(2, 1), field(3, 2, strength=2.0), field(5))),
        "two_colliders_one_met": features(colliders=(0.85, 0.75), set_colliders=byte(2) + byte(1) + byte(1)),
        "no_colliders_met": features(colliders=(0.85,), set_colliders=byte(2) + byte(0)),
        "colliders_misuse": features(colliders=(0.85, 0.75), set_colliders=byte(2) + byte(2) + byte(0) + byte(0)),
    }


# --- fuzz_joints ----------------------------------------------------------------------------
def joint(kind=1, a=0, b=0, pivot=None, limits=(), motors=(), springs=(), breakable=None, threshold=None):
    """A joint: type byte (0 the default, point; else 1 + sb_joint_type), body a + 1 (0: the
    default), body b + 1 (0: the world), pivot; per coordinate limit/motor/spring settings
    (coordinate: (lower, upper)), (velocity, force), (stiffness, damping)."""
    out = byte(kind) + byte(a) + byte(b) + (nums(pivot) if pivot else DEFAULT * 3) + DEFAULT * 4
    for c in range(6):
        lim, mot, spr = dict(limits).get(c), dict(motors).get(c), dict(springs).get(c)
        out += (i32(1) + nums(lim) if lim else byte(0) + DEFAULT * 2)
        out += (i32(1) + nums(mot) if mot else byte(0) + DEFAULT * 2)
        out += (i32(1) + nums(spr) if spr else byte(0) + DEFAULT * 2)
    out += DEFAULT + (i32(breakable) if breakable is not None else DEFAULT)
    return out + (num(threshold) if threshold is not None else DEFAULT) + DEFAULT


def joints(bodies, joint_list, steps=(0.05,)):
    out = world() + byte(len(bodies) - 1) + b"".join(bodies) + byte(len(joint_list)) + b"".join(joint_list)
    return out + byte(len(steps) - 1) + nums(steps)


def jbody(body_type=0, shape=0, center=(0, 0, 1), size=0.2):
    return byte(body_type) + byte(shape) + nums(center) + num(size) + DEFAULT * 3


def joints_seeds():
    FIXED, POINT, HINGE, SLIDER, PISTON, GENERIC = range(1, 7)
    two = [jbody(center=(0, 0, 1)), jbody(center=(0.5, 0, 1))]
    return {
        "defaults": b"",
        "chain_of_balls": joints([jbody(center=(0.5 * i, 0, 1)) for i in range(4)],
                                 [joint(POINT, i + 1, i if i else 0, pivot=(0.5 * i - 0.25, 0, 1), breakable=0)
                                  for i in range(4)], steps=(0.05,) * 3),
        "hinge_limited_motor": joints(two, [joint(HINGE, 1, 2, pivot=(0.25, 0, 1), limits=((5, (-0.5, 0.5)),),
                                                  motors=((5, (2.0, 5.0)),), breakable=0)], steps=(0.05,) * 2),
        "slider_spring": joints(two, [joint(SLIDER, 1, 0, pivot=(0, 0, 1), springs=((0, (100.0, 1.0)),),
                                            limits=((0, (-0.2, 0.2)),), breakable=0)]),
        "piston_and_fixed": joints(two + [jbody(1, 1, center=(1, 0, 1))],
                                   [joint(PISTON, 1, 0, pivot=(0, 0, 1), motors=((0, (1.0, 10.0)), (3, (1.0, 1.0)))),
                                    joint(FIXED, 2, 3, pivot=(0.75, 0, 1))]),
        "generic_all_limits": joints(two, [joint(GENERIC, 1, 2, pivot=(0.25, 0, 1),
                                                 limits=tuple((c, (-0.1, 0.1)) for c in range(6)),
                                                 springs=((3, (10.0, 0.1)),), breakable=0)]),
        "breaks_under_load": joints([jbody(center=(0, 0, 1), size=0.3)],
                                    [joint(POINT, 1, 0, pivot=(0, 0, 1.3), breakable=1, threshold=0.001)],
                                    steps=(0.05,) * 3),
        "static_and_kinematic": joints([jbody(2, 0, center=(0, 0, 0)), jbody(1, 1, center=(0, 0, 1)),
                                        jbody(center=(0.5, 0, 1))],
                                       [joint(POINT, 1, 3, pivot=(0.25, 0, 0.5)), joint(HINGE, 2, 3)]),
    }


# --- fuzz_state --------------------------------------------------------------------------
def state_edits(*edits):
    return b"".join(struct.pack("<IB", offset, xor) for offset, xor in edits)


def state_seeds():
    return {
        "genuine": byte(0),
        "cut_in_half": byte(1) + struct.pack("<I", 1 << 31),
        "stale_checksum": byte(2) + state_edits((100, 1)),
        "counts": state_edits((0, 1), (4, 1), (8, 0x80)),
        "cloth_positions": byte(0) + state_edits((120, 0x7f), (140, 0xff)),
        "spread": byte(0) + state_edits(*[(97 * k, 0x55) for k in range(1, 40)]),
    }


def main():
    for target, seeds in [("fuzz_cloth", cloth_seeds()), ("fuzz_cloth_features", cloth_features_seeds()),
                          ("fuzz_rigid", rigid_seeds()), ("fuzz_joints", joints_seeds()),
                          ("fuzz_mass_properties", mass_properties_seeds()), ("fuzz_transform", transform_seeds()),
                          ("fuzz_state", state_seeds())]:
        directory = CORPUS / target
        directory.mkdir(parents=True, exist_ok=True)
        for stale in directory.iterdir():
            stale.unlink()
        for name, data in seeds.items():
            (directory / name).write_bytes(data)
        print(f"{target}: {len(seeds)} seeds")


if __name__ == "__main__":
    main()
