"""Rigid transforms for baking keyframes, in plain Python (no bpy, no mathutils): 4x4
row-major matrices as 16 floats, 3x3 as nested lists, quaternions (w, x, y, z), and
Blender's rotation modes. Euler order 'XYZ' means X is applied first: R = Rz Ry Rx."""

import math

IDENTITY = [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0]
EULER_ORDERS = ("XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX")
ROTATION_PATHS = {"QUATERNION": ("rotation_quaternion", 4), "AXIS_ANGLE": ("rotation_axis_angle", 4)}
ROTATION_PATHS.update({order: ("rotation_euler", 3) for order in EULER_ORDERS})


def multiply(a, b):
    """a @ b for row-major 4x4 matrices."""
    return [sum(a[4 * r + k] * b[4 * k + c] for k in range(4)) for r in range(4) for c in range(4)]


def invert_affine(m):
    """Inverse of a row-major 4x4 affine matrix (16 values), or None if singular."""
    a, b, c, tx = m[0], m[1], m[2], m[3]
    d, e, f, ty = m[4], m[5], m[6], m[7]
    g, h, i, tz = m[8], m[9], m[10], m[11]
    det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)
    scale = max(abs(v) for v in (a, b, c, d, e, f, g, h, i)) or 1.0
    if abs(det) <= 1e-12 * scale ** 3:
        return None
    r = [(e * i - f * h) / det, (c * h - b * i) / det, (b * f - c * e) / det,
         (f * g - d * i) / det, (a * i - c * g) / det, (c * d - a * f) / det,
         (d * h - e * g) / det, (b * g - a * h) / det, (a * e - b * d) / det]
    t = [-(r[0] * tx + r[1] * ty + r[2] * tz), -(r[3] * tx + r[4] * ty + r[5] * tz),
         -(r[6] * tx + r[7] * ty + r[8] * tz)]
    return [r[0], r[1], r[2], t[0], r[3], r[4], r[5], t[1], r[6], r[7], r[8], t[2], 0.0, 0.0, 0.0, 1.0]


def rotation_part(m):
    """The 3x3 of a 4x4 row-major matrix."""
    return [[m[4 * r + c] for c in range(3)] for r in range(3)]


def column_lengths(m):
    return [math.sqrt(m[c] ** 2 + m[4 + c] ** 2 + m[8 + c] ** 2) for c in range(3)]


def mat3_multiply(a, b):
    return [[sum(a[r][k] * b[k][c] for k in range(3)) for c in range(3)] for r in range(3)]


def mat3_transpose(a):
    return [[a[c][r] for c in range(3)] for r in range(3)]


def orthonormalize(r):
    """The nearest rotation to a 3x3 that is one up to round-off (float32 matrices):
    Gram-Schmidt on the columns, x first."""
    cols = [[r[0][c], r[1][c], r[2][c]] for c in range(3)]

    def normalized(v):
        n = math.sqrt(sum(x * x for x in v)) or 1.0
        return [x / n for x in v]

    x = normalized(cols[0])
    y = [cols[1][k] - sum(cols[1][j] * x[j] for j in range(3)) * x[k] for k in range(3)]
    y = normalized(y)
    z = [x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2], x[0] * y[1] - x[1] * y[0]]
    return [[x[r], y[r], z[r]] for r in range(3)]


def rigid_part(m):
    """A world matrix with its scale taken out: 16 values, rotation orthonormal."""
    lengths = column_lengths(m)
    r = orthonormalize([[m[4 * row + c] / (lengths[c] or 1.0) for c in range(3)] for row in range(3)])
    return [r[0][0], r[0][1], r[0][2], m[3], r[1][0], r[1][1], r[1][2], m[7], r[2][0], r[2][1], r[2][2], m[11],
            0.0, 0.0, 0.0, 1.0]


# --- quaternions -------------------------------------------------------------------------

def quaternion_from_matrix(r):
    """Unit quaternion (w, x, y, z) of a rotation matrix (Shepperd's method), w >= 0."""
    trace = r[0][0] + r[1][1] + r[2][2]
    if trace > 0.0:
        s = 2.0 * math.sqrt(1.0 + trace)
        q = (0.25 * s, (r[2][1] - r[1][2]) / s, (r[0][2] - r[2][0]) / s, (r[1][0] - r[0][1]) / s)
    elif r[0][0] > r[1][1] and r[0][0] > r[2][2]:
        s = 2.0 * math.sqrt(1.0 + r[0][0] - r[1][1] - r[2][2])
        q = ((r[2][1] - r[1][2]) / s, 0.25 * s, (r[0][1] + r[1][0]) / s, (r[0][2] + r[2][0]) / s)
    elif r[1][1] > r[2][2]:
        s = 2.0 * math.sqrt(1.0 + r[1][1] - r[0][0] - r[2][2])
        q = ((r[0][2] - r[2][0]) / s, (r[0][1] + r[1][0]) / s, 0.25 * s, (r[1][2] + r[2][1]) / s)
    else:
        s = 2.0 * math.sqrt(1.0 + r[2][2] - r[0][0] - r[1][1])
        q = ((r[1][0] - r[0][1]) / s, (r[0][2] + r[2][0]) / s, (r[1][2] + r[2][1]) / s, 0.25 * s)
    n = math.sqrt(sum(c * c for c in q))
    if not n > 0.0:  # not a rotation (a zero scale): no turn
        return (1.0, 0.0, 0.0, 0.0)
    q = tuple(c / n for c in q)
    return q if q[0] >= 0.0 else tuple(-c for c in q)


def matrix_from_quaternion(q):
    w, x, y, z = q
    n = math.sqrt(w * w + x * x + y * y + z * z) or 1.0
    w, x, y, z = w / n, x / n, y / n, z / n
    return [[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]]


def matrix_from_axis_angle(angle, axis):
    n = math.sqrt(sum(a * a for a in axis))
    if n == 0.0:
        return [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    s = math.sin(0.5 * angle) / n
    return matrix_from_quaternion((math.cos(0.5 * angle), axis[0] * s, axis[1] * s, axis[2] * s))


# --- Euler angles --------------------------------------------------------------------------

def _axis_rotation(axis, angle):
    c, s = math.cos(angle), math.sin(angle)
    if axis == 0:
        return [[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]]
    if axis == 1:
        return [[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]]
    return [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]


def _order_axes(order):
    i, j, k = ("XYZ".index(a) for a in order)
    parity = 1.0 if (j - i) % 3 == 1 else -1.0  # XYZ, YZX, ZXY are even
    return i, j, k, parity


def matrix_from_euler(angles, order="XYZ"):
    """Rotation of Euler angles (about X, Y, Z, in radians) applied in `order`."""
    i, j, k, _ = _order_axes(order)
    return mat3_multiply(_axis_rotation(k, angles[k]), mat3_multiply(_axis_rotation(j, angles[j]),
                                                                       _axis_rotation(i, angles[i])))


def euler_from_matrix(r, order="XYZ"):
    """Euler angles (about X, Y, Z) of a rotation for `order`, middle angle in [-π/2, π/2]."""
    i, j, k, s = _order_axes(order)
    sin_b = max(-1.0, min(1.0, -s * r[k][i]))
    b = math.asin(sin_b)
    if math.sqrt(r[k][j] ** 2 + r[k][k] ** 2) > 1e-9:
        a = math.atan2(s * r[k][j], r[k][k])
        c = math.atan2(s * r[j][i], r[i][i])
    else:  # gimbal lock: only a ∓ c is defined, take c = 0
        a = math.atan2(-s * r[j][k], r[j][j])
        c = 0.0
    out = [0.0, 0.0, 0.0]
    out[i], out[j], out[k] = a, b, c
    return out


def _wrap_near(angle, reference):
    return angle + 2.0 * math.pi * round((reference - angle) / (2.0 * math.pi))


def compatible_euler(angles, previous, order="XYZ"):
    """The Euler angles of the same rotation closest to `previous`: each angle moved by whole
    turns, and the other branch (a + π, π - b, c + π) taken when it lies closer."""
    i, j, k, _ = _order_axes(order)
    other = [0.0, 0.0, 0.0]
    other[i], other[j], other[k] = angles[i] + math.pi, math.pi - angles[j], angles[k] + math.pi
    best = None
    for candidate in (angles, other):
        wrapped = [_wrap_near(candidate[n], previous[n]) for n in range(3)]
        distance = sum(abs(wrapped[n] - previous[n]) for n in range(3))
        if best is None or distance < best[0] - 1e-12:
            best = (distance, wrapped)
    return best[1]


class RotationChannels:
    """Successive rotations as the values of an object's rotation channels in its rotation
    mode, continuous from frame to frame: quaternions keep the sign nearest the last one,
    Euler angles stay compatible, axis-angle keeps its axis's side and unwraps its angle."""

    def __init__(self, mode, first=None):
        self.mode = mode
        self.path, self.size = ROTATION_PATHS[mode]
        self.previous = list(first) if first is not None else None  # the object's own values

    def values(self, r):
        if self.mode in EULER_ORDERS:
            angles = euler_from_matrix(r, self.mode)
            if self.previous is not None:
                angles = compatible_euler(angles, self.previous, self.mode)
            self.previous = angles
        elif self.mode == "QUATERNION":
            q = list(quaternion_from_matrix(r))
            if self.previous is not None and sum(a * b for a, b in zip(q, self.previous)) < 0.0:
                q = [-c for c in q]
            self.previous = q
        else:
            self.previous = _continuous_axis_angle(quaternion_from_matrix(r), self.previous)
        return list(self.previous)


def _continuous_axis_angle(q, previous):
    """(angle, axis x, y, z) of a quaternion, the axis on the side of the previous one (kept
    when the angle is nearly zero) and the angle moved by whole turns to lie nearest."""
    w = max(-1.0, min(1.0, q[0]))
    s = math.sqrt(max(0.0, 1.0 - w * w))
    angle = 2.0 * math.acos(w)
    previous_axis = previous[1:4] if previous is not None else [0.0, 0.0, 1.0]
    if s < 1e-9:
        axis = list(previous_axis)
        angle = 0.0
    else:
        axis = [q[1] / s, q[2] / s, q[3] / s]
        if sum(a * b for a, b in zip(axis, previous_axis)) < 0.0:
            axis, angle = [-a for a in axis], -angle
    if previous is not None:
        angle = _wrap_near(angle, previous[0])
    return [angle] + axis


def rotation_matrix_of(mode, values):
    """The rotation that an object's rotation channel values give in `mode`."""
    if mode in EULER_ORDERS:
        return matrix_from_euler(values, mode)
    if mode == "QUATERNION":
        return matrix_from_quaternion(values)
    return matrix_from_axis_angle(values[0], values[1:4])


def local_basis(world, parent_inverse):
    """matrix_basis that puts an object at `world`, given the inverse of its effective parent
    matrix (Blender's world matrix is parent @ parent inverse @ basis)."""
    return multiply(parent_inverse, world)


def basis_channels(basis, scale, delta_location, delta_rotation, channels):
    """Location and rotation channel values giving `basis` (T R S with the object's own
    scale, delta transforms included: basis = T(loc + dloc) (D R) S)."""
    location = [basis[3] - delta_location[0], basis[7] - delta_location[1], basis[11] - delta_location[2]]
    r = orthonormalize([[basis[4 * row + c] / (scale[c] or 1.0) for c in range(3)] for row in range(3)])
    return location, channels.values(mat3_multiply(mat3_transpose(delta_rotation), r))
