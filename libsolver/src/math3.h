/* Small inline 3-vector and 3x3-matrix math (double, row-major mat3). */
#ifndef SB_MATH3_H
#define SB_MATH3_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct vec3 { double x, y, z; } vec3;
typedef struct mat3 { double m[3][3]; } mat3;

static inline vec3 v3(double x, double y, double z) { return (vec3){x, y, z}; }
static inline vec3 v3_load(const double *p) { return (vec3){p[0], p[1], p[2]}; }
static inline void v3_store(double *p, vec3 a) { p[0] = a.x; p[1] = a.y; p[2] = a.z; }
static inline vec3 v3_add(vec3 a, vec3 b) { return (vec3){a.x + b.x, a.y + b.y, a.z + b.z}; }
static inline vec3 v3_sub(vec3 a, vec3 b) { return (vec3){a.x - b.x, a.y - b.y, a.z - b.z}; }
static inline vec3 v3_scale(vec3 a, double s) { return (vec3){a.x * s, a.y * s, a.z * s}; }
static inline vec3 v3_madd(vec3 a, vec3 b, double s) { return (vec3){a.x + b.x * s, a.y + b.y * s, a.z + b.z * s}; }
static inline double v3_dot(vec3 a, vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline vec3 v3_cross(vec3 a, vec3 b)
{
    return (vec3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
static inline double v3_len2(vec3 a) { return v3_dot(a, a); }
static inline double v3_len(vec3 a) { return sqrt(v3_dot(a, a)); }
static inline bool v3_isfinite(vec3 a) { return isfinite(a.x) && isfinite(a.y) && isfinite(a.z); }
static inline bool all_finite(const double *a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(a[i])) return false;
    return true;
}
static inline double v3_comp(vec3 a, int i) { return i == 0 ? a.x : (i == 1 ? a.y : a.z); }

static inline mat3 m3_zero(void) { return (mat3){{{0}}}; }
static inline mat3 m3_identity(void) { return (mat3){{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}; }
static inline mat3 m3_scale(mat3 a, double s)
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) a.m[i][j] *= s;
    return a;
}
static inline mat3 m3_add(mat3 a, mat3 b)
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) a.m[i][j] += b.m[i][j];
    return a;
}
/* a b^T */
static inline mat3 m3_outer(vec3 a, vec3 b)
{
    return (mat3){{{a.x * b.x, a.x * b.y, a.x * b.z},
                   {a.y * b.x, a.y * b.y, a.y * b.z},
                   {a.z * b.x, a.z * b.y, a.z * b.z}}};
}
static inline vec3 m3_mul_v(mat3 a, vec3 v)
{
    return (vec3){a.m[0][0] * v.x + a.m[0][1] * v.y + a.m[0][2] * v.z,
                  a.m[1][0] * v.x + a.m[1][1] * v.y + a.m[1][2] * v.z,
                  a.m[2][0] * v.x + a.m[2][1] * v.y + a.m[2][2] * v.z};
}
static inline double m3_det(mat3 a)
{
    return a.m[0][0] * (a.m[1][1] * a.m[2][2] - a.m[1][2] * a.m[2][1]) -
           a.m[0][1] * (a.m[1][0] * a.m[2][2] - a.m[1][2] * a.m[2][0]) +
           a.m[0][2] * (a.m[1][0] * a.m[2][1] - a.m[1][1] * a.m[2][0]);
}
/* Inverse by cofactors; returns false (and leaves *out alone) for a singular matrix. */
static inline bool m3_inverse(mat3 a, mat3 *out)
{
    double det = m3_det(a);
    double scale = 0.0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) scale = fmax(scale, fabs(a.m[i][j]));
    if (!(fabs(det) > 1e-300) || fabs(det) <= 1e-14 * scale * scale * scale) return false;
    double inv = 1.0 / det;
    mat3 r;
    r.m[0][0] = (a.m[1][1] * a.m[2][2] - a.m[1][2] * a.m[2][1]) * inv;
    r.m[0][1] = (a.m[0][2] * a.m[2][1] - a.m[0][1] * a.m[2][2]) * inv;
    r.m[0][2] = (a.m[0][1] * a.m[1][2] - a.m[0][2] * a.m[1][1]) * inv;
    r.m[1][0] = (a.m[1][2] * a.m[2][0] - a.m[1][0] * a.m[2][2]) * inv;
    r.m[1][1] = (a.m[0][0] * a.m[2][2] - a.m[0][2] * a.m[2][0]) * inv;
    r.m[1][2] = (a.m[0][2] * a.m[1][0] - a.m[0][0] * a.m[1][2]) * inv;
    r.m[2][0] = (a.m[1][0] * a.m[2][1] - a.m[1][1] * a.m[2][0]) * inv;
    r.m[2][1] = (a.m[0][1] * a.m[2][0] - a.m[0][0] * a.m[2][1]) * inv;
    r.m[2][2] = (a.m[0][0] * a.m[1][1] - a.m[0][1] * a.m[1][0]) * inv;
    *out = r;
    return true;
}

static inline mat3 m3_transpose(mat3 a)
{
    mat3 t;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) t.m[i][j] = a.m[j][i];
    return t;
}
static inline mat3 m3_mul(mat3 a, mat3 b)
{
    mat3 r = m3_zero();
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++) r.m[i][j] += a.m[i][k] * b.m[k][j];
    return r;
}
/* Rᵀ v */
static inline vec3 m3_tmul_v(mat3 a, vec3 v)
{
    return (vec3){a.m[0][0] * v.x + a.m[1][0] * v.y + a.m[2][0] * v.z,
                  a.m[0][1] * v.x + a.m[1][1] * v.y + a.m[2][1] * v.z,
                  a.m[0][2] * v.x + a.m[1][2] * v.y + a.m[2][2] * v.z};
}

/* Unit quaternions for orientation: q = (w, x, y, z), rotating body to world. */
typedef struct quat { double w, x, y, z; } quat;

static inline quat q_identity(void) { return (quat){1, 0, 0, 0}; }
static inline quat q_mul(quat a, quat b)
{
    return (quat){a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z, a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                  a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x, a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
}
static inline quat q_conj(quat a) { return (quat){a.w, -a.x, -a.y, -a.z}; }
static inline quat q_normalize(quat a)
{
    double n = sqrt(a.w * a.w + a.x * a.x + a.y * a.y + a.z * a.z);
    return n > 0.0 ? (quat){a.w / n, a.x / n, a.y / n, a.z / n} : q_identity();
}
/* rotation of `angle` about unit `axis` */
static inline quat q_axis_angle(vec3 axis, double angle)
{
    double s = sin(0.5 * angle);
    return (quat){cos(0.5 * angle), axis.x * s, axis.y * s, axis.z * s};
}
/* the rotation vector θ k as a quaternion (exact exponential map) */
static inline quat q_from_rotation_vector(vec3 r)
{
    double angle = v3_len(r);
    if (angle < 1e-300) return q_identity();
    return q_axis_angle(v3_scale(r, 1.0 / angle), angle);
}
/* The rotation vector (axis × angle, shorter way round) of a unit quaternion. */
static inline vec3 q_to_rotation_vector(quat q)
{
    if (q.w < 0.0) q = (quat){-q.w, -q.x, -q.y, -q.z};
    double sin_half = sqrt(q.x * q.x + q.y * q.y + q.z * q.z);
    if (!(sin_half > 1e-300)) return (vec3){0.0, 0.0, 0.0};
    double scale = 2.0 * atan2(sin_half, q.w) / sin_half;
    return (vec3){q.x * scale, q.y * scale, q.z * scale};
}
static inline mat3 q_to_m3(quat q)
{
    double w = q.w, x = q.x, y = q.y, z = q.z;
    return (mat3){{{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
                   {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
                   {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}}};
}
/* a rotation matrix (orthonormal, det +1) as a quaternion (Shepperd's method) */
static inline quat m3_to_q(mat3 r)
{
    double tr = r.m[0][0] + r.m[1][1] + r.m[2][2];
    quat q;
    if (tr > 0.0) {
        double s = 2.0 * sqrt(1.0 + tr);
        q = (quat){0.25 * s, (r.m[2][1] - r.m[1][2]) / s, (r.m[0][2] - r.m[2][0]) / s, (r.m[1][0] - r.m[0][1]) / s};
    } else if (r.m[0][0] > r.m[1][1] && r.m[0][0] > r.m[2][2]) {
        double s = 2.0 * sqrt(1.0 + r.m[0][0] - r.m[1][1] - r.m[2][2]);
        q = (quat){(r.m[2][1] - r.m[1][2]) / s, 0.25 * s, (r.m[0][1] + r.m[1][0]) / s, (r.m[0][2] + r.m[2][0]) / s};
    } else if (r.m[1][1] > r.m[2][2]) {
        double s = 2.0 * sqrt(1.0 + r.m[1][1] - r.m[0][0] - r.m[2][2]);
        q = (quat){(r.m[0][2] - r.m[2][0]) / s, (r.m[0][1] + r.m[1][0]) / s, 0.25 * s, (r.m[1][2] + r.m[2][1]) / s};
    } else {
        double s = 2.0 * sqrt(1.0 + r.m[2][2] - r.m[0][0] - r.m[1][1]);
        q = (quat){(r.m[1][0] - r.m[0][1]) / s, (r.m[0][2] + r.m[2][0]) / s, (r.m[1][2] + r.m[2][1]) / s, 0.25 * s};
    }
    return q_normalize(q);
}
static inline vec3 q_rotate(quat q, vec3 v) { return m3_mul_v(q_to_m3(q), v); }

#endif
