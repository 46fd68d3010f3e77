#include "collider.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "math3.h"

#define SHARP_ANGLE_COS 0.8660254037844386 /* cos 30° */

static vec3 face_normal(const double *x, const int32_t *tri)
{
    vec3 a = v3_load(&x[3 * (size_t)tri[0]]), b = v3_load(&x[3 * (size_t)tri[1]]), c = v3_load(&x[3 * (size_t)tri[2]]);
    return v3_cross(v3_sub(b, a), v3_sub(c, a)); /* twice the area */
}

static vec3 unit_or_zero(vec3 v)
{
    double len = v3_len(v);
    return len > 0.0 ? v3_scale(v, 1.0 / len) : v3(0, 0, 0);
}

/* Sharp edges and vertices of the shape at x (see collider.h); false when out of memory. */
static bool mark_sharp_features(collider *c, const double *x)
{
    const topology *t = &c->topo;
    c->sharp_edge = calloc((size_t)t->edge_count + 1, 1);
    c->sharp_vertex = calloc((size_t)c->vertex_count, 1);
    vec3 *vertex_normal = calloc((size_t)c->vertex_count, sizeof *vertex_normal);
    if (!c->sharp_edge || !c->sharp_vertex || !vertex_normal) {
        free(vertex_normal);
        return false;
    }
    for (int32_t e = 0; e < t->edge_count; e++) {
        const int32_t *faces = &t->edge_triangles[2 * (size_t)e];
        bool sharp = t->edge_face_count[e] != 2;
        if (!sharp) {
            vec3 n0 = unit_or_zero(face_normal(x, &c->triangles[3 * (size_t)faces[0]]));
            vec3 n1 = unit_or_zero(face_normal(x, &c->triangles[3 * (size_t)faces[1]]));
            sharp = v3_dot(n0, n1) < SHARP_ANGLE_COS;
        }
        c->sharp_edge[e] = sharp;
        if (t->edge_face_count[e] < 2) c->sharp_vertex[t->edges[2 * e]] = c->sharp_vertex[t->edges[2 * e + 1]] = 1;
    }
    for (int32_t f = 0; f < c->triangle_count; f++) {
        vec3 n = face_normal(x, &c->triangles[3 * (size_t)f]);
        for (int k = 0; k < 3; k++) vertex_normal[c->triangles[3 * f + k]] = v3_add(vertex_normal[c->triangles[3 * f + k]], n);
    }
    for (int32_t f = 0; f < c->triangle_count; f++) {
        vec3 n = unit_or_zero(face_normal(x, &c->triangles[3 * (size_t)f]));
        for (int k = 0; k < 3; k++) {
            int32_t v = c->triangles[3 * f + k];
            if (v3_dot(n, unit_or_zero(vertex_normal[v])) < SHARP_ANGLE_COS) c->sharp_vertex[v] = 1;
        }
    }
    free(vertex_normal);
    return true;
}

sb_result collider_create(const sb_collider_def *d, double time, collider **out)
{
    *out = NULL;
    if (!d) return error_set(SB_ERROR_INVALID_ARGUMENT, "collider definition is NULL");
    if (d->vertex_count <= 0 || d->triangle_count <= 0)
        return error_set(SB_ERROR_INVALID_MESH, "collider mesh is empty (%d vertices, %d triangles)",
                         (int)d->vertex_count, (int)d->triangle_count);
    if (d->vertex_count > MAX_MESH_COUNT || d->triangle_count > MAX_MESH_COUNT)
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
    if (!topology_build(&c->topo, c->triangles, c->triangle_count, c->vertex_count) ||
        !mark_sharp_features(c, d->positions)) {
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
    free(c->sharp_edge), free(c->sharp_vertex);
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
