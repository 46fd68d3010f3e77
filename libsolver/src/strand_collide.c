#include "strand_collide.h"

#include "collision_ccd.h"
#include "collision_geometry.h"

typedef struct sweep {
    const collider *col;
    vec3 origin, dir;   /* the vertex's path: origin + s dir, s in [0, 1] */
    int32_t hit;        /* nearest triangle crossed, -1: none */
    double s;           /* where */
    vec3 side;          /* unit normal of that triangle towards the path's start */
} sweep;

/* The path crosses triangle t at s in [0, t_max]. */
static double sweep_triangle(void *ctx, int32_t t, double t_max)
{
    sweep *sw = ctx;
    const int32_t *tri = &sw->col->model.triangles[3 * (size_t)t];
    const double *x1 = sw->col->scratch.x1;
    vec3 a = v3_load(&x1[3 * (size_t)tri[0]]), b = v3_load(&x1[3 * (size_t)tri[1]]), c = v3_load(&x1[3 * (size_t)tri[2]]);
    double s = ray_crosses_triangle(sw->origin, sw->dir, a, b, c);
    if (!(s >= 0.0) || s > t_max) return t_max;
    vec3 n = v3_cross(v3_sub(b, a), v3_sub(c, a));
    double len = v3_len(n);
    if (!(len > 0.0)) return t_max;
    n = v3_scale(n, 1.0 / len);
    if (v3_dot(n, sw->dir) > 0.0) n = v3_scale(n, -1.0); /* towards where the path comes from */
    sw->hit = t, sw->s = s, sw->side = n;
    return s;
}

static int32_t sweep_vertices(cloth *c, collider *const *colliders, int32_t collider_count)
{
    int32_t stopped = 0;
    for (int32_t i = 0; i < c->model.vertex_count; i++) {
        if (c->scratch.filter_kind[i] == FILTER_FIXED) continue;
        size_t at = 3 * (size_t)i;
        vec3 x0 = v3_load(&c->state.x[at]), x1 = v3_load(&c->scratch.x_new[at]);
        vec3 path = v3_sub(x1, x0);
        if (!(v3_len2(path) > 0.0)) continue;
        sweep best = {.hit = -1, .s = 2.0};
        int32_t best_collider = -1;
        for (int32_t k = 0; k < collider_count; k++) {
            if (!cloth_meets_collider(&c->model, k)) continue;
            sweep sw = {colliders[k], x0, path, -1, 0.0, v3(0, 0, 0)};
            bvh_ray(&colliders[k]->state.tree, x0, path, fmin(best.s, 1.0), sweep_triangle, &sw);
            if (sw.hit >= 0 && sw.s < best.s) best = sw, best_collider = k;
        }
        if (best_collider < 0) continue;
        double distance = c->model.thickness + colliders[best_collider]->model.thickness;
        vec3 at_hit = v3_madd(x0, path, best.s);
        vec3 v = v3_load(&c->scratch.v_new[at]);
        double into = v3_dot(v, best.side);
        if (into < 0.0) v = v3_madd(v, best.side, -into);
        v3_store(&c->scratch.x_new[at], v3_madd(at_hit, best.side, distance));
        v3_store(&c->scratch.v_new[at], v);
        c->state.collided[i] = 1;
        stopped++;
    }
    return stopped;
}

/* Segments against the colliders' sharp edges (collider.h). Across a flat edge a segment
 * would have to cross one of its two faces, which takes one of its vertices through it (the
 * vertex sweep); across a sharp one, say a thin slab's, both vertices can stay outside. */
typedef struct edge_sweep {
    const collider *col;
    vec3 x0[2], x1[2];  /* the segment's ends at the step's start and at its end */
    double tolerance;   /* the contact distance */
    bool found;
    ccd_hit hit;        /* its earliest touch so far of an edge it would end too near */
    double gap;         /* how far it would end from that edge along the touch's normal */
} edge_sweep;

/* A segment that would end nearer an edge than this fraction of the contact distance is
 * pushed back to it; the slack keeps one that the push left at the distance (to rounding)
 * from counting as stopped again in the next round (world_step.c sweeps until none is). */
#define EDGE_SLACK 1e-2

static void sweep_triangle_edges(void *ctx, int32_t t)
{
    edge_sweep *es = ctx;
    const collider_model *m = &es->col->model;
    const collider_scratch *cs = &es->col->scratch;
    for (int k = 0; k < 3; k++) {
        int32_t e = m->topo.triangle_edges[3 * (size_t)t + k];
        if (!topology_owns_edge(&m->topo, t, k) || !m->sharp_edge[e]) continue; /* each edge once */
        size_t p = 3 * (size_t)m->topo.edges[2 * (size_t)e], q = 3 * (size_t)m->topo.edges[2 * (size_t)e + 1];
        vec3 x0[4] = {es->x0[0], es->x0[1], v3_load(&cs->x0[p]), v3_load(&cs->x0[q])};
        vec3 x1[4] = {es->x1[0], es->x1[1], v3_load(&cs->x1[p]), v3_load(&cs->x1[q])};
        if (!point_boxes_within(x0, x1, 2, es->tolerance)) continue;
        ccd_hit hit;
        if (!ccd_edge_edge(x0, x1, es->tolerance, &hit) || (es->found && hit.t >= es->hit.t)) continue;
        /* a touch it moves away from (a segment resting on the edge, lifted) needs nothing;
         * only the earliest that needs a push is taken, so that one needing none cannot hide it */
        vec3 separation = v3(0, 0, 0);
        for (int j = 0; j < 4; j++) separation = v3_madd(separation, x1[j], hit.w[j]);
        double gap = v3_dot(separation, hit.normal);
        if (gap < (1.0 - EDGE_SLACK) * es->tolerance) es->found = true, es->hit = hit, es->gap = gap;
    }
}

/* Segment k's earliest touch of a sharp collider edge over the step, and its response: the
 * segment's point there, p = (1-s) a + s b, is put at the contact distance d from the edge's
 * point at the step's end along the touch's normal n (the side the segment came from), and
 * loses the velocity into it. The ends take the push by their weights, as the response does
 * an edge–edge impulse of equal masses (Bridson et al. 2002, §7.1): Δa = (1-s) δ n / W,
 * Δb = s δ n / W with W = (1-s)² + s² over the free ends, so that p moves by δ. Returns
 * whether it moved the segment. */
static bool sweep_segment(cloth *c, collider *const *colliders, int32_t collider_count, int32_t k)
{
    const int32_t *ends = &c->model.springs.pairs[2 * (size_t)k];
    edge_sweep best = {.found = false};
    int32_t best_collider = -1;
    vec3 x0[2], x1[2];
    aabb box = aabb_empty();
    for (int j = 0; j < 2; j++) {
        x0[j] = v3_load(&c->state.x[3 * (size_t)ends[j]]), x1[j] = v3_load(&c->scratch.x_new[3 * (size_t)ends[j]]);
        box = aabb_add_point(aabb_add_point(box, x0[j]), x1[j]);
    }
    for (int32_t m = 0; m < collider_count; m++) {
        if (!cloth_meets_collider(&c->model, m)) continue;
        double d = c->model.thickness + colliders[m]->model.thickness;
        edge_sweep es = {.col = colliders[m], .x0 = {x0[0], x0[1]}, .x1 = {x1[0], x1[1]}, .tolerance = d};
        aabb reach = aabb_inflate(box, d);
        bvh_query(&colliders[m]->state.tree, &reach, sweep_triangle_edges, &es);
        if (es.found && (!best.found || es.hit.t < best.hit.t)) best = es, best_collider = m;
    }
    if (best_collider < 0) return false;
    const double *w = best.hit.w;
    vec3 n = best.hit.normal;
    double gap = best.gap, d = best.tolerance;
    double free_w[2], W = 0.0;
    for (int j = 0; j < 2; j++) {
        free_w[j] = c->scratch.filter_kind[ends[j]] == FILTER_FIXED ? 0.0 : w[j];
        W += free_w[j] * free_w[j];
    }
    if (!(W > 1e-6)) return false; /* the touch is at a fixed end: that end holds it */
    double into = 0.0;
    for (int j = 0; j < 2; j++) into += w[j] * v3_dot(v3_load(&c->scratch.v_new[3 * (size_t)ends[j]]), n);
    for (int j = 0; j < 2; j++) {
        if (free_w[j] == 0.0) continue;
        size_t at = 3 * (size_t)ends[j];
        v3_store(&c->scratch.x_new[at], v3_madd(x1[j], n, free_w[j] * (d - gap) / W));
        if (into < 0.0) v3_store(&c->scratch.v_new[at], v3_madd(v3_load(&c->scratch.v_new[at]), n, -free_w[j] * into / W));
        c->state.collided[ends[j]] = 1;
    }
    return true;
}

int32_t strands_sweep_colliders(cloth *c, collider *const *colliders, int32_t collider_count)
{
    int32_t stopped = sweep_vertices(c, colliders, collider_count);
    for (int32_t k = 0; k < c->model.springs.count; k++) stopped += sweep_segment(c, colliders, collider_count, k);
    return stopped;
}
