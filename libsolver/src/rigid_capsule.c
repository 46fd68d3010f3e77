#include "rigid_capsule.h"

#include "collision_geometry.h"

/* Relative: a nanometre on metre-sized shapes, far above rounding, far below any contact
 * depth that matters. */
static const double FLAT_TOLERANCE = 1e-9;

/* Signed distance from x to the polytope (negative inside; a triangle's back counts as
 * inside where x lies over it), the nearest point of its surface, the unit normal there
 * (towards x) and the face whose inside x lies over (-1: an edge or corner is nearest). */
static double point_poly(vec3 x, const world_poly *p, vec3 *nearest, vec3 *normal, int32_t *face)
{
    int32_t best = 0;
    double deepest = -INFINITY;
    for (int32_t f = 0; f < p->face_count; f++) {
        double d = v3_dot(p->n[f], x) - p->o[f];
        if (d > deepest) deepest = d, best = f;
    }
    bool over = true; /* does x lie over that face's polygon? */
    int32_t first = p->face_first[best], size = p->face_first[best + 1] - first;
    for (int32_t k = 0; k < size && over; k++) {
        vec3 p0 = p->v[p->face_loops[first + k]], p1 = p->v[p->face_loops[first + (k + 1) % size]];
        over = v3_dot(v3_cross(v3_sub(p1, p0), p->n[best]), v3_sub(x, p0)) <= 0.0;
    }
    if (over || (deepest <= 0.0 && p->face_count > 1)) {
        *nearest = v3_madd(x, p->n[best], -deepest);
        *normal = p->n[best];
        *face = best;
        return deepest;
    }
    double closest = INFINITY;
    for (int32_t e = 0; e < p->edge_count; e++) {
        double s, t;
        vec3 q0 = p->v[p->edges[2 * e]], q1 = p->v[p->edges[2 * e + 1]];
        double d2 = closest_points_segments(x, x, q0, q1, &s, &t);
        if (d2 < closest) closest = d2, *nearest = v3_madd(q0, v3_sub(q1, q0), t);
    }
    double d = sqrt(closest);
    *normal = d > 0.0 ? v3_scale(v3_sub(x, *nearest), 1.0 / d) : p->n[best];
    *face = -1;
    return d;
}

static double distance_at(vec3 a, vec3 d, double t, const world_poly *p)
{
    vec3 nearest, normal;
    int32_t face;
    return point_poly(v3_madd(a, d, t), p, &nearest, &normal, &face);
}

/* The part [*t0, *t1] of the segment a + t d over the polygon of face f (false: none). */
static bool clip_to_face(vec3 a, vec3 d, const world_poly *p, int32_t f, double *t0, double *t1)
{
    *t0 = 0.0, *t1 = 1.0;
    int32_t first = p->face_first[f], size = p->face_first[f + 1] - first;
    for (int32_t k = 0; k < size; k++) {
        vec3 p0 = p->v[p->face_loops[first + k]], p1 = p->v[p->face_loops[first + (k + 1) % size]];
        vec3 side = v3_cross(v3_sub(p1, p0), p->n[f]); /* outward from the face's edge */
        double at = v3_dot(side, v3_sub(a, p0)), rate = v3_dot(side, d);
        /* keep at + rate t <= 0 */
        if (rate > 0.0) *t1 = fmin(*t1, -at / rate);
        else if (rate < 0.0) *t0 = fmax(*t0, -at / rate);
        else if (at > 0.0) return false;
    }
    return *t0 <= *t1;
}

int32_t capsule_poly(vec3 a, vec3 b, double r, const world_poly *p, double margin, rigid_contact *out)
{
    vec3 d = v3_sub(b, a);
    /* golden-section search for the segment's point nearest the polytope */
    const double golden = 0.6180339887498949;
    double lo = 0.0, hi = 1.0, m1 = hi - golden * (hi - lo), m2 = lo + golden * (hi - lo);
    double f1 = distance_at(a, d, m1, p), f2 = distance_at(a, d, m2, p);
    for (int i = 0; i < 48 && v3_len2(d) > 0.0; i++) {
        if (f1 <= f2) hi = m2, m2 = m1, f2 = f1, m1 = hi - golden * (hi - lo), f1 = distance_at(a, d, m1, p);
        else lo = m1, m1 = m2, f1 = f2, m2 = lo + golden * (hi - lo), f2 = distance_at(a, d, m2, p);
    }
    /* the ends are candidates too: the search narrows onto them only in the limit */
    double t = 0.5 * (lo + hi), best = distance_at(a, d, t, p);
    double at_a = distance_at(a, d, 0.0, p), at_b = distance_at(a, d, 1.0, p);
    if (at_a < best) t = 0.0, best = at_a;
    if (at_b < best) t = 1.0, best = at_b;
    vec3 x = v3_madd(a, d, t), nearest, normal;
    int32_t face;
    double distance = point_poly(x, p, &nearest, &normal, &face);
    if (distance - r > margin) return 0;
    if (face < 0) {
        /* A segment lying flat on a face is as near the polytope all along the part over it,
         * and just beyond its edge the distance D grows by ε²/2D only (ε past the edge): flat to
         * rounding, so the search can end a hair outside the face and find an edge. That
         * gave one contact where the segment rests on two (a level box on a capsule rail: it
         * rocked from end to end and sank 4 mm). Off the face by no more than rounding, it
         * is over the face. */
        int32_t plane = 0;
        double height = -INFINITY;
        for (int32_t f = 0; f < p->face_count; f++) {
            double h = v3_dot(p->n[f], x) - p->o[f];
            if (h > height) height = h, plane = f;
        }
        if (distance - height <= FLAT_TOLERANCE * (r + v3_len(d) + fabs(distance))) face = plane;
    }
    double t0, t1;
    if (face >= 0 && clip_to_face(a, d, p, face, &t0, &t1)) { /* along a face: both ends over it */
        int32_t count = 0;
        vec3 n = p->n[face];
        for (int k = 0; k < 2; k++) {
            if (k == 1 && !(t1 > t0)) break;
            vec3 end = v3_madd(a, d, k == 0 ? t0 : t1);
            double sep = v3_dot(n, end) - p->o[face] - r;
            if (sep > margin) continue;
            out[count++] = (rigid_contact){v3_madd(end, n, -(sep + r)), n, sep};
        }
        if (count > 0) return count;
    }
    out[0] = (rigid_contact){nearest, normal, distance - r};
    return 1;
}
