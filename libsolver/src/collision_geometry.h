/* Geometric primitives for collision: closest points, exact orientation, intersections. */
#ifndef SB_GEOMETRY_H
#define SB_GEOMETRY_H

#include <stdbool.h>

#include "math3.h"

/* Closest point of triangle abc to p; bary receives its barycentric weights (sum 1). */
vec3 closest_point_triangle(vec3 p, vec3 a, vec3 b, vec3 c, double bary[3]);

/* Closest points of segments p0-p1 and q0-q1: P(s) = p0 + s (p1 - p0), Q(t) likewise, with
 * s, t in [0, 1]. Returns the squared distance. Degenerate and parallel segments are fine. */
double closest_points_segments(vec3 p0, vec3 p1, vec3 q0, vec3 q1, double *s, double *t);

/* Sign of det[b - a, c - a, d - a] (> 0 when d is above the plane abc with abc counter-
 * clockwise), computed exactly: -1, 0 or +1. */
int orient3d(vec3 a, vec3 b, vec3 c, vec3 d);

/* Whether the closed segment pq meets the closed triangle abc (exact for the non-coplanar
 * case; coplanar configurations are decided in the triangle's plane). */
bool segment_meets_triangle(vec3 p, vec3 q, vec3 a, vec3 b, vec3 c);

/* Whether triangles (a0 a1 a2) and (b0 b1 b2) intersect. `shared` vertices common to both
 * (by mesh index, matched by the caller) are passed as masks: bit i of shared_a set when a_i
 * is also a vertex of b. Touching only at shared vertices or edges does not count. */
bool triangles_intersect(const vec3 a[3], const vec3 b[3], unsigned shared_a, unsigned shared_b);

/* Möller–Trumbore: the s at which origin + s dir crosses triangle (a, b, c), or -1 when it does
 * not (parallel, outside the triangle, or s < 0). */
static inline double ray_crosses_triangle(vec3 origin, vec3 dir, vec3 a, vec3 b, vec3 c)
{
    vec3 e1 = v3_sub(b, a), e2 = v3_sub(c, a);
    vec3 p = v3_cross(dir, e2);
    double det = v3_dot(e1, p);
    if (det == 0.0) return -1.0;
    double inv = 1.0 / det;
    vec3 r = v3_sub(origin, a);
    double bu = v3_dot(r, p) * inv;
    if (bu < 0.0 || bu > 1.0) return -1.0;
    vec3 q = v3_cross(r, e1);
    double bv = v3_dot(dir, q) * inv;
    if (bv < 0.0 || bu + bv > 1.0) return -1.0;
    double s = v3_dot(e2, q) * inv;
    return s >= 0.0 ? s : -1.0;
}

#endif
