/* Untangling from closed colliders (untangle.h): a cloth vertex is inside when a ray from it
 * crosses the collider an odd number of times, and is pulled out towards the nearest point of
 * its surface. Edges and triangles of the cloth that pass through the collider with every
 * corner outside (the cloth wraps it on two sides; a corner of it pokes through a triangle)
 * are found by points along them, and pulled out the way their deepest point comes out. A
 * cloth, or a part of one, wholly inside a closed collider crosses no triangle of it: its
 * vertices are found by the same ray test, and pulled out the same way. */
#include <string.h>

#include "collision_geometry.h"
#include "untangle_analysis.h"

typedef struct ray_context {
    const mesh_view *v;
    vec3 origin, dir;
    int32_t hits;
    double first; /* nearest crossing along the ray */
} ray_context;

static vec3 corner(const mesh_view *v, int32_t tri, int k) { return v3_load(&v->x[3 * (size_t)v->triangles[3 * tri + k]]); }

static double count_crossing(void *ctx, int32_t tri, double t_max)
{
    ray_context *r = ctx;
    double s = ray_crosses_triangle(r->origin, r->dir, corner(r->v, tri, 0), corner(r->v, tri, 1), corner(r->v, tri, 2));
    if (s >= 0.0) r->hits++, r->first = fmin(r->first, s);
    return t_max; /* every crossing counts, not the first only */
}

typedef struct nearest_context {
    const mesh_view *v;
    vec3 p, point;
    double best;
} nearest_context;

static void visit_nearest(void *ctx, int32_t tri)
{
    nearest_context *q = ctx;
    double bary[3];
    vec3 point = closest_point_triangle(q->p, corner(q->v, tri, 0), corner(q->v, tri, 1), corner(q->v, tri, 2), bary);
    double d = v3_len(v3_sub(point, q->p));
    if (d < q->best) q->best = d, q->point = point;
}

/* Whether p is inside the closed mesh (an odd number of crossings along a ray in a direction
 * no mesh of grid-aligned parts lines up with); if so the nearest point of its surface. */
bool inside_closed(const mesh_view *v, vec3 p, vec3 *nearest)
{
    if (!v->tree.built || v->tree.node_count == 0) return false;
    aabb root = v->tree.nodes[0].box;
    if (p.x < root.lo.x || p.y < root.lo.y || p.z < root.lo.z || p.x > root.hi.x || p.y > root.hi.y || p.z > root.hi.z)
        return false;
    ray_context r = {v, p, v3_scale(v3(0.5741, 0.5918, 0.5657), 1.0 / v3_len(v3(0.5741, 0.5918, 0.5657))), 0,
                     INFINITY};
    bvh_ray(&v->tree, p, r.dir, 2.0 * v3_len(v3_sub(root.hi, root.lo)), count_crossing, &r);
    if (r.hits % 2 == 0) return false;
    nearest_context q = {v, p, v3_madd(p, r.dir, r.first), r.first};
    aabb box = aabb_inflate(aabb_add_point(aabb_empty(), p), r.first);
    bvh_query(&v->tree, &box, visit_nearest, &q);
    *nearest = q.point;
    return true;
}

/* Pulls vertex g (of cloth c, numbered from cv->first) out along `out` (unit) until it is
 * `target` along it. */
static void pull_vertex(untangle_plan *p, const cloth *c, const mesh_view *cv, int32_t g, vec3 out, double depth,
                        double target, int32_t tangle)
{
    if (c->model.pinned[g - cv->first]) return;
    p->push[g] = v3_scale(out, depth / UNTANGLE_SECONDS);
    p->target[g] = target;
    p->mover_of[g] = tangle;
    p->pulled[g] = 1;
}

/* Points of the cloth near a crossing that may be inside the collider: along the cloth edge,
 * or over the cloth triangle a collider's edge passes through; and, for a corner of the
 * collider that pokes through only a little, points closing in on the crossing point. Returns
 * their number. */
enum { EDGE_SAMPLES = 8, MAX_SAMPLES = 24 };

static int crossing_samples(const analysis *an, const crossing *e, const vec3 *corners, int count,
                            vec3 samples[MAX_SAMPLES])
{
    static const double triangle_samples[7][3] = {{1. / 3, 1. / 3, 1. / 3}, {2. / 3, 1. / 6, 1. / 6},
                                                  {1. / 6, 2. / 3, 1. / 6}, {1. / 6, 1. / 6, 2. / 3},
                                                  {.5, .5, 0.},             {0., .5, .5},
                                                  {.5, 0., .5}};
    static const double closing[3] = {0.2, 0.04, 0.008};
    int n = 0;
    for (int k = 0; k < (count == 2 ? EDGE_SAMPLES : 7); k++) {
        vec3 point = v3(0, 0, 0);
        for (int j = 0; j < count; j++) {
            double w = count == 2 ? (j ? (k + 0.5) / EDGE_SAMPLES : 1.0 - (k + 0.5) / EDGE_SAMPLES) : triangle_samples[k][j];
            point = v3_madd(point, corners[j], w);
        }
        samples[n++] = point;
    }
    /* the crossing point: of the edge (cloth's or collider's) with the triangle's plane */
    vec3 p = an->x[e->p], q = an->x[e->q], t0 = an->x[e->t[0]];
    vec3 normal = v3_cross(v3_sub(an->x[e->t[1]], t0), v3_sub(an->x[e->t[2]], t0));
    double dp = v3_dot(v3_sub(p, t0), normal), dq = v3_dot(v3_sub(q, t0), normal);
    if (dp == dq) return n;
    vec3 at = v3_madd(p, v3_sub(q, p), dp / (dp - dq));
    for (int k = 0; k < 3; k++) {
        if (count == 2) {
            samples[n++] = v3_madd(at, v3_sub(corners[0], at), closing[k]);
            samples[n++] = v3_madd(at, v3_sub(corners[1], at), closing[k]);
        } else {
            for (int j = 0; j < 3; j++) samples[n++] = v3_madd(at, v3_sub(corners[j], at), closing[k]);
        }
    }
    return n;
}

/* The deepest of the points inside the collider (the furthest from its surface) into
 * *deepest, with its nearest surface point; false when none is inside. */
static bool deepest_sample(const mesh_view *kv, const vec3 *samples, int count, vec3 *deepest, vec3 *nearest)
{
    double best = 0.0;
    for (int k = 0; k < count; k++) {
        vec3 surface;
        if (!inside_closed(kv, samples[k], &surface)) continue;
        double depth = v3_len(v3_sub(surface, samples[k]));
        if (depth > best) best = depth, *deepest = samples[k], *nearest = surface;
    }
    return best > 0.0;
}

/* Edges whose ends are both outside the collider but that pass through it (a chord: the cloth
 * wraps it on two sides), and cloth triangles an edge of the collider passes through: their
 * corners pulled the way their deepest point comes out. */
static bool pull_chords(untangle_plan *p, const analysis *an, const cloth *c, const mesh_view *cv, int32_t object,
                        int32_t tangle)
{
    const mesh_view *kv = &an->views[object];
    bool any = false;
    for (int32_t i = 0; i < an->crossing_count; i++) {
        const crossing *e = &an->crossings[i];
        int32_t ends[3] = {e->p, e->q, -1};
        if (e->collider_edge) memcpy(ends, e->t, sizeof ends);
        if (e->object != object || ends[0] < cv->first || ends[0] >= cv->first + cv->vertex_count) continue;
        int count = e->collider_edge ? 3 : 2;
        bool pulled = false;
        vec3 corners[3], deepest = v3(0, 0, 0), nearest = v3(0, 0, 0);
        for (int k = 0; k < count; k++) pulled |= p->mover_of[ends[k]] >= 0, corners[k] = an->x[ends[k]];
        if (pulled) continue;
        vec3 samples[MAX_SAMPLES];
        if (!deepest_sample(kv, samples, crossing_samples(an, e, corners, count, samples), &deepest, &nearest)) continue;
        vec3 out = v3_sub(nearest, deepest);
        double depth = v3_len(out), margin = cv->thickness + kv->thickness;
        out = v3_scale(out, 1.0 / depth);
        for (int k = 0; k < count; k++)
            pull_vertex(p, c, cv, ends[k], out, depth + margin, v3_dot(an->x[ends[k]], out) + depth + margin, tangle);
        any = true;
    }
    return any;
}

int64_t untangle_pull_out_of_colliders(untangle_plan *p, const analysis *an, cloth *const *cloths, int32_t cloth_count,
                                       const int64_t *meets, bool *pulled_any)
{
    *pulled_any = false;
    int32_t collider_count = an->view_count - cloth_count;
    int64_t hidden = 0;
    for (int32_t a = 0; a < cloth_count; a++)
        for (int32_t k = 0; k < collider_count; k++) {
            const mesh_view *cv = &an->views[a], *kv = &an->views[cloth_count + k];
            int64_t pairs = meets[(size_t)a * (size_t)collider_count + (size_t)k];
            /* pairs < 0: the cloth does not meet the collider; 0: it may still lie wholly inside */
            if (!kv->closed || pairs < 0) continue;
            int32_t tangle = p->region[kv->first];
            bool any = false;
            for (int32_t i = 0; i < cv->vertex_count; i++) {
                int32_t g = cv->first + i;
                vec3 nearest, x = an->x[g];
                if (cloths[a]->model.pinned[i] || !inside_closed(kv, x, &nearest)) continue;
                vec3 out = v3_sub(nearest, x);
                double depth = v3_len(out);
                if (!(depth > 0.0)) continue;
                double speed = (depth + cv->thickness + kv->thickness) / UNTANGLE_SECONDS;
                p->push[g] = v3_scale(out, speed / depth);
                p->target[g] = v3_dot(nearest, out) / depth + cv->thickness + kv->thickness;
                p->mover_of[g] = tangle;
                p->pulled[g] = 1;
                any = true;
                hidden += pairs == 0;
            }
            if (pairs > 0) any |= pull_chords(p, an, cloths[a], cv, cloth_count + k, tangle);
            for (int32_t i = 0; i < kv->vertex_count && any; i++) p->group[kv->first + i] = tangle;
            p->active |= any, *pulled_any |= any;
        }
    return hidden;
}
