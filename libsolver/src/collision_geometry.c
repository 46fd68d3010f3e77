#include "collision_geometry.h"

#include <float.h>
#include <math.h>

vec3 closest_point_triangle(vec3 p, vec3 a, vec3 b, vec3 c, double bary[3])
{
    /* Voronoi regions of the triangle's features (Ericson, Real-Time Collision Detection 5.1.5) */
    vec3 ab = v3_sub(b, a), ac = v3_sub(c, a), ap = v3_sub(p, a);
    double d1 = v3_dot(ab, ap), d2 = v3_dot(ac, ap);
    if (d1 <= 0.0 && d2 <= 0.0) {
        bary[0] = 1, bary[1] = 0, bary[2] = 0;
        return a;
    }
    vec3 bp = v3_sub(p, b);
    double d3 = v3_dot(ab, bp), d4 = v3_dot(ac, bp);
    if (d3 >= 0.0 && d4 <= d3) {
        bary[0] = 0, bary[1] = 1, bary[2] = 0;
        return b;
    }
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 && d1 - d3 > 0.0) {
        double v = d1 / (d1 - d3);
        bary[0] = 1 - v, bary[1] = v, bary[2] = 0;
        return v3_madd(a, ab, v);
    }
    vec3 cp = v3_sub(p, c);
    double d5 = v3_dot(ab, cp), d6 = v3_dot(ac, cp);
    if (d6 >= 0.0 && d5 <= d6) {
        bary[0] = 0, bary[1] = 0, bary[2] = 1;
        return c;
    }
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 && d2 - d6 > 0.0) {
        double w = d2 / (d2 - d6);
        bary[0] = 1 - w, bary[1] = 0, bary[2] = w;
        return v3_madd(a, ac, w);
    }
    double va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 && (d4 - d3) + (d5 - d6) > 0.0) {
        double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        bary[0] = 0, bary[1] = 1 - w, bary[2] = w;
        return v3_madd(b, v3_sub(c, b), w);
    }
    double sum = va + vb + vc;
    if (sum > 0.0 && isfinite(sum)) {
        double v = vb / sum, w = vc / sum;
        bary[0] = 1 - v - w, bary[1] = v, bary[2] = w;
        return v3_add(a, v3_add(v3_scale(ab, v), v3_scale(ac, w)));
    }
    /* degenerate (zero-area) triangle: the nearest of its three edges */
    vec3 corners[3] = {a, b, c};
    double best = INFINITY;
    vec3 q = a;
    for (int e = 0; e < 3; e++) {
        double s, t;
        double d = closest_points_segments(p, p, corners[e], corners[(e + 1) % 3], &s, &t);
        if (d < best) {
            best = d;
            q = v3_madd(corners[e], v3_sub(corners[(e + 1) % 3], corners[e]), t);
            bary[e] = 1 - t, bary[(e + 1) % 3] = t, bary[(e + 2) % 3] = 0;
        }
    }
    return q;
}

static double clamp01(double x) { return x < 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x); }

double closest_points_segments(vec3 p0, vec3 p1, vec3 q0, vec3 q1, double *s, double *t)
{
    /* Ericson 5.1.9, with relative tolerances for degenerate and parallel segments */
    vec3 d1 = v3_sub(p1, p0), d2 = v3_sub(q1, q0), r = v3_sub(p0, q0);
    double a = v3_dot(d1, d1), e = v3_dot(d2, d2), f = v3_dot(d2, r);
    double tiny = DBL_EPSILON * DBL_EPSILON;
    if (a <= tiny && e <= tiny) {
        *s = *t = 0.0;
    } else if (a <= tiny) {
        *s = 0.0;
        *t = clamp01(f / e);
    } else {
        double c = v3_dot(d1, r);
        if (e <= tiny) {
            *t = 0.0;
            *s = clamp01(-c / a);
        } else {
            double b = v3_dot(d1, d2), denom = a * e - b * b;
            *s = denom > 1e-14 * a * e ? clamp01((b * f - c * e) / denom) : 0.0;
            *t = (b * *s + f) / e;
            if (*t < 0.0) {
                *t = 0.0;
                *s = clamp01(-c / a);
            } else if (*t > 1.0) {
                *t = 1.0;
                *s = clamp01((b - c) / a);
            }
        }
    }
    vec3 pc = v3_madd(p0, d1, *s), qc = v3_madd(q0, d2, *t);
    return v3_len2(v3_sub(pc, qc));
}

/* --- exact arithmetic on floating-point expansions (Shewchuk 1997) -------------------- */

enum { EXPANSION_MAX = 256 };

typedef struct expansion {
    int n;
    double e[EXPANSION_MAX]; /* nonoverlapping, increasing magnitude, zeros removed */
} expansion;

static inline void two_sum(double a, double b, double *x, double *y)
{
    *x = a + b;
    double bv = *x - a, av = *x - bv;
    *y = (a - av) + (b - bv);
}

/* e += b exactly (Shewchuk's GROW-EXPANSION with zero elimination) */
static void grow(expansion *e, double b)
{
    double q = b;
    int out = 0;
    for (int i = 0; i < e->n; i++) {
        double h;
        two_sum(q, e->e[i], &q, &h);
        if (h != 0.0) e->e[out++] = h;
    }
    if (q != 0.0 || out == 0) e->e[out++] = q;
    e->n = out;
}

static void add_product(expansion *sum, const expansion *a, const expansion *b, double sign)
{
    for (int i = 0; i < a->n; i++)
        for (int j = 0; j < b->n; j++) {
            double x = a->e[i] * b->e[j];
            double y = fma(a->e[i], b->e[j], -x); /* x + y == a_i b_j exactly */
            grow(sum, sign * y);
            grow(sum, sign * x);
        }
}

static expansion diff_expansion(double a, double b)
{
    expansion e = {0, {0}};
    grow(&e, a);
    grow(&e, -b);
    return e;
}

static int expansion_sign(const expansion *e)
{
    for (int i = e->n - 1; i >= 0; i--)
        if (e->e[i] != 0.0) return e->e[i] > 0.0 ? 1 : -1;
    return 0;
}

/* det[u, v, w] with u = b - a, v = c - a, w = d - a, all formed exactly */
static int orient3d_exact(vec3 a, vec3 b, vec3 c, vec3 d)
{
    expansion u[3] = {diff_expansion(b.x, a.x), diff_expansion(b.y, a.y), diff_expansion(b.z, a.z)};
    expansion v[3] = {diff_expansion(c.x, a.x), diff_expansion(c.y, a.y), diff_expansion(c.z, a.z)};
    expansion w[3] = {diff_expansion(d.x, a.x), diff_expansion(d.y, a.y), diff_expansion(d.z, a.z)};
    expansion det = {0, {0}};
    for (int i = 0; i < 3; i++) {
        int j = (i + 1) % 3, k = (i + 2) % 3;
        /* u_i (v_j w_k - v_k w_j) */
        expansion minor = {0, {0}};
        add_product(&minor, &v[j], &w[k], 1.0);
        add_product(&minor, &v[k], &w[j], -1.0);
        add_product(&det, &u[i], &minor, 1.0);
    }
    return expansion_sign(&det);
}

int orient3d(vec3 a, vec3 b, vec3 c, vec3 d)
{
    vec3 u = v3_sub(b, a), v = v3_sub(c, a), w = v3_sub(d, a);
    double det = u.x * (v.y * w.z - v.z * w.y) + u.y * (v.z * w.x - v.x * w.z) + u.z * (v.x * w.y - v.y * w.x);
    double permanent = fabs(u.x) * (fabs(v.y * w.z) + fabs(v.z * w.y)) +
                       fabs(u.y) * (fabs(v.z * w.x) + fabs(v.x * w.z)) +
                       fabs(u.z) * (fabs(v.x * w.y) + fabs(v.y * w.x));
    /* the rounded result's sign is right when it exceeds this bound (a generous multiple of
     * Shewchuk's (7 + 56 eps) eps, covering the rounded differences too) */
    if (fabs(det) > 1e-13 * permanent) return det > 0.0 ? 1 : -1;
    return orient3d_exact(a, b, c, d);
}

/* --- intersection tests ------------------------------------------------------------------ */

static double orient2d(const double p[2], const double q[2], const double r[2])
{
    return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]);
}

static bool segments_meet_2d(const double p[2], const double q[2], const double a[2], const double b[2])
{
    double o1 = orient2d(p, q, a), o2 = orient2d(p, q, b), o3 = orient2d(a, b, p), o4 = orient2d(a, b, q);
    if (((o1 > 0 && o2 < 0) || (o1 < 0 && o2 > 0)) && ((o3 > 0 && o4 < 0) || (o3 < 0 && o4 > 0))) return true;
    /* collinear touching */
    const double *pts[4] = {a, b, p, q};
    const double *seg[4][2] = {{p, q}, {p, q}, {a, b}, {a, b}};
    double o[4] = {o1, o2, o3, o4};
    for (int i = 0; i < 4; i++) {
        if (o[i] != 0.0) continue;
        const double *x = pts[i], *s0 = seg[i][0], *s1 = seg[i][1];
        if (fmin(s0[0], s1[0]) <= x[0] && x[0] <= fmax(s0[0], s1[0]) && fmin(s0[1], s1[1]) <= x[1] &&
            x[1] <= fmax(s0[1], s1[1]))
            return true;
    }
    return false;
}

static bool point_in_triangle_2d(const double p[2], const double a[2], const double b[2], const double c[2])
{
    double d1 = orient2d(a, b, p), d2 = orient2d(b, c, p), d3 = orient2d(c, a, p);
    bool neg = d1 < 0 || d2 < 0 || d3 < 0, pos = d1 > 0 || d2 > 0 || d3 > 0;
    return !(neg && pos);
}

/* Segment and triangle in one plane: decided in the coordinate plane the triangle's normal
 * is most aligned with. */
static bool coplanar_segment_meets_triangle(vec3 p, vec3 q, vec3 a, vec3 b, vec3 c)
{
    vec3 n = v3_cross(v3_sub(b, a), v3_sub(c, a));
    if (v3_len2(n) == 0.0) n = v3_cross(v3_sub(q, p), v3_sub(b, a));
    double ax = fabs(n.x), ay = fabs(n.y), az = fabs(n.z);
    int drop = ax >= ay && ax >= az ? 0 : (ay >= az ? 1 : 2);
    int i0 = drop == 0 ? 1 : 0, i1 = drop == 2 ? 1 : 2;
    double p2[2] = {v3_comp(p, i0), v3_comp(p, i1)}, q2[2] = {v3_comp(q, i0), v3_comp(q, i1)};
    double a2[2] = {v3_comp(a, i0), v3_comp(a, i1)}, b2[2] = {v3_comp(b, i0), v3_comp(b, i1)};
    double c2[2] = {v3_comp(c, i0), v3_comp(c, i1)};
    if (point_in_triangle_2d(p2, a2, b2, c2) || point_in_triangle_2d(q2, a2, b2, c2)) return true;
    return segments_meet_2d(p2, q2, a2, b2) || segments_meet_2d(p2, q2, b2, c2) || segments_meet_2d(p2, q2, c2, a2);
}

bool segment_meets_triangle(vec3 p, vec3 q, vec3 a, vec3 b, vec3 c)
{
    int sp = orient3d(a, b, c, p), sq = orient3d(a, b, c, q);
    if (sp == sq && sp != 0) return false;
    if (sp == 0 && sq == 0) return coplanar_segment_meets_triangle(p, q, a, b, c);
    /* the segment crosses (or touches) the plane: inside iff the line pq passes on the same
     * side of all three edges */
    int e0 = orient3d(p, q, a, b), e1 = orient3d(p, q, b, c), e2 = orient3d(p, q, c, a);
    bool neg = e0 < 0 || e1 < 0 || e2 < 0, pos = e0 > 0 || e1 > 0 || e2 > 0;
    return !(neg && pos);
}

bool triangles_intersect(const vec3 a[3], const vec3 b[3], unsigned shared_a, unsigned shared_b)
{
    int shared = __builtin_popcount(shared_a & 7u);
    if (shared >= 2) return false; /* neighbours across an edge */
    if (shared == 1) {
        /* triangles meeting at one vertex intersect elsewhere only if an edge opposite the
         * common vertex meets the other triangle */
        int sa = __builtin_ctz(shared_a), sb = __builtin_ctz(shared_b);
        return segment_meets_triangle(a[(sa + 1) % 3], a[(sa + 2) % 3], b[0], b[1], b[2]) ||
               segment_meets_triangle(b[(sb + 1) % 3], b[(sb + 2) % 3], a[0], a[1], a[2]);
    }
    for (int i = 0; i < 3; i++) {
        if (segment_meets_triangle(a[i], a[(i + 1) % 3], b[0], b[1], b[2])) return true;
        if (segment_meets_triangle(b[i], b[(i + 1) % 3], a[0], a[1], a[2])) return true;
    }
    return false;
}
