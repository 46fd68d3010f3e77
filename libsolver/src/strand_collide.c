#include "strand_collide.h"

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

int32_t strands_sweep_colliders(cloth *c, collider *const *colliders, int32_t collider_count)
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
