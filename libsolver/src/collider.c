#include "collider.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "math3.h"

sb_result collider_create(const sb_collider_def *d, double time, collider **out)
{
    *out = NULL;
    if (!d) return error_set(SB_ERROR_INVALID_ARGUMENT, "collider definition is NULL");
    if (d->vertex_count <= 0 || d->triangle_count <= 0)
        return error_set(SB_ERROR_INVALID_MESH, "collider mesh is empty (%d vertices, %d triangles)",
                         (int)d->vertex_count, (int)d->triangle_count);
    if (d->vertex_count > INT32_MAX / 16 || d->triangle_count > INT32_MAX / 16)
        return error_set(SB_ERROR_INVALID_MESH, "collider mesh is too large");
    if (!d->positions || !d->triangles)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "collider positions or triangles are NULL");
    for (size_t i = 0; i < 3 * (size_t)d->vertex_count; i++)
        if (!isfinite(d->positions[i]) || fabs(d->positions[i]) > MAX_COORDINATE)
            return error_set(SB_ERROR_INVALID_MESH, "collider vertex %d is not finite or beyond %.0g m", (int)(i / 3),
                             MAX_COORDINATE);
    for (size_t i = 0; i < 3 * (size_t)d->triangle_count; i++)
        if (d->triangles[i] < 0 || d->triangles[i] >= d->vertex_count)
            return error_set(SB_ERROR_INVALID_MESH, "collider triangle %d uses vertex %d, outside 0..%d",
                             (int)(i / 3), (int)d->triangles[i], (int)d->vertex_count - 1);
    if (!isfinite(d->thickness) || d->thickness < 0.0)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "collider thickness must be zero or positive, got %g", d->thickness);
    if (!isfinite(d->friction) || d->friction < 0.0)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "collider friction must be zero or positive, got %g", d->friction);

    collider *c = calloc(1, sizeof *c);
    if (!c) return error_set(SB_ERROR_OUT_OF_MEMORY, "out of memory building the collider");
    size_t len = 3 * (size_t)d->vertex_count;
    c->vertex_count = d->vertex_count;
    c->triangle_count = d->triangle_count;
    c->thickness = d->thickness;
    c->friction = d->friction;
    c->time_from = c->time_to = time;
    c->body = -1;
    c->triangles = malloc(3 * (size_t)d->triangle_count * sizeof *c->triangles);
    c->from = malloc(len * sizeof *c->from);
    c->to = malloc(len * sizeof *c->to);
    c->x0 = malloc(len * sizeof *c->x0);
    c->x1 = malloc(len * sizeof *c->x1);
    c->boxes = malloc((size_t)d->triangle_count * sizeof *c->boxes);
    if (!c->triangles || !c->from || !c->to || !c->x0 || !c->x1 || !c->boxes) {
        collider_destroy(c);
        return error_set(SB_ERROR_OUT_OF_MEMORY, "out of memory building the collider");
    }
    memcpy(c->triangles, d->triangles, 3 * (size_t)d->triangle_count * sizeof *c->triangles);
    memcpy(c->from, d->positions, len * sizeof *c->from);
    memcpy(c->to, d->positions, len * sizeof *c->to);
    /* a collider is where it was defined until a step prepares it elsewhere */
    memcpy(c->x0, d->positions, len * sizeof *c->x0);
    memcpy(c->x1, d->positions, len * sizeof *c->x1);
    if (!topology_build(&c->topo, c->triangles, c->triangle_count, c->vertex_count)) {
        collider_destroy(c);
        return error_set(SB_ERROR_OUT_OF_MEMORY, "out of memory building the collider");
    }
    *out = c;
    return SB_OK;
}

void collider_destroy(collider *c)
{
    if (!c) return;
    free(c->triangles), free(c->from), free(c->to), free(c->x0), free(c->x1), free(c->boxes), free(c->local);
    topology_free(&c->topo);
    bvh_free(&c->tree);
    free(c);
}

void collider_positions_at(const collider *c, double t, double *out)
{
    size_t len = 3 * (size_t)c->vertex_count;
    double span = c->time_to - c->time_from;
    if (!(span > 0.0) || t >= c->time_to) {
        memcpy(out, c->to, len * sizeof *out);
        return;
    }
    double s = t <= c->time_from ? 0.0 : (t - c->time_from) / span;
    for (size_t k = 0; k < len; k++) out[k] = c->from[k] + s * (c->to[k] - c->from[k]);
}

bool collider_prepare_step(collider *c, double t, double h)
{
    collider_positions_at(c, t, c->x0);
    collider_positions_at(c, t + h, c->x1);
    for (int32_t tri = 0; tri < c->triangle_count; tri++) {
        aabb box = aabb_empty();
        for (int k = 0; k < 3; k++) {
            size_t v = 3 * (size_t)c->triangles[3 * tri + k];
            box = aabb_add_point(box, v3_load(&c->x0[v]));
            box = aabb_add_point(box, v3_load(&c->x1[v]));
        }
        c->boxes[tri] = aabb_inflate(box, c->thickness);
    }
    return bvh_update(&c->tree, c->boxes, c->triangle_count);
}

bool collider_attach(collider *c, int32_t body, vec3 x, quat q, double t)
{
    size_t len = 3 * (size_t)c->vertex_count;
    if (!c->local && !(c->local = malloc(len * sizeof *c->local))) return false;
    collider_positions_at(c, t, c->local);
    mat3 r = q_to_m3(q);
    for (int32_t i = 0; i < c->vertex_count; i++) {
        double *p = &c->local[3 * (size_t)i];
        v3_store(p, m3_tmul_v(r, v3_sub(v3_load(p), x))); /* Rᵀ (p - x) */
    }
    c->body = body;
    return true;
}

static void place(const collider *c, vec3 x, quat q, double *out)
{
    mat3 r = q_to_m3(q);
    for (int32_t i = 0; i < c->vertex_count; i++) {
        size_t k = 3 * (size_t)i;
        v3_store(&out[k], v3_add(m3_mul_v(r, v3_load(&c->local[k])), x));
    }
}

void collider_follow(collider *c, vec3 x0, quat q0, vec3 x1, quat q1, double t, double h)
{
    place(c, x0, q0, c->from);
    place(c, x1, q1, c->to);
    c->time_from = t;
    c->time_to = t + h;
}
