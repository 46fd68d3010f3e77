#include "collider.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api_error.h"
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
static bool mark_sharp_features(collider_model *m, const double *x)
{
    const topology *t = &m->topo;
    m->sharp_edge = calloc((size_t)t->edge_count + 1, 1);
    m->sharp_vertex = calloc((size_t)m->vertex_count, 1);
    vec3 *vertex_normal = calloc((size_t)m->vertex_count, sizeof *vertex_normal);
    if (!m->sharp_edge || !m->sharp_vertex || !vertex_normal) {
        free(vertex_normal);
        return false;
    }
    for (int32_t e = 0; e < t->edge_count; e++) {
        const int32_t *faces = &t->edge_triangles[2 * (size_t)e];
        bool sharp = t->edge_face_count[e] != 2;
        if (!sharp) {
            vec3 n0 = unit_or_zero(face_normal(x, &m->triangles[3 * (size_t)faces[0]]));
            vec3 n1 = unit_or_zero(face_normal(x, &m->triangles[3 * (size_t)faces[1]]));
            sharp = v3_dot(n0, n1) < SHARP_ANGLE_COS;
        }
        m->sharp_edge[e] = sharp;
        if (t->edge_face_count[e] < 2) m->sharp_vertex[t->edges[2 * e]] = m->sharp_vertex[t->edges[2 * e + 1]] = 1;
    }
    for (int32_t f = 0; f < m->triangle_count; f++) {
        vec3 n = face_normal(x, &m->triangles[3 * (size_t)f]);
        for (int k = 0; k < 3; k++) {
            int32_t v = m->triangles[3 * f + k];
            vertex_normal[v] = v3_add(vertex_normal[v], n);
        }
    }
    for (int32_t f = 0; f < m->triangle_count; f++) {
        vec3 n = unit_or_zero(face_normal(x, &m->triangles[3 * (size_t)f]));
        for (int k = 0; k < 3; k++) {
            int32_t v = m->triangles[3 * f + k];
            if (v3_dot(n, unit_or_zero(vertex_normal[v])) < SHARP_ANGLE_COS) m->sharp_vertex[v] = 1;
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
    c->model.vertex_count = d->vertex_count;
    c->model.triangle_count = d->triangle_count;
    c->model.thickness = d->thickness;
    c->model.friction = d->friction;
    c->state.time_from = c->state.time_to = time;
    c->model.body = -1;
    c->model.triangles = malloc(3 * (size_t)d->triangle_count * sizeof *c->model.triangles);
    c->state.from = malloc(len * sizeof *c->state.from);
    c->state.to = malloc(len * sizeof *c->state.to);
    c->scratch.x0 = malloc(len * sizeof *c->scratch.x0);
    c->scratch.x1 = malloc(len * sizeof *c->scratch.x1);
    c->scratch.boxes = malloc((size_t)d->triangle_count * sizeof *c->scratch.boxes);
    if (!c->model.triangles || !c->state.from || !c->state.to || !c->scratch.x0 || !c->scratch.x1 ||
        !c->scratch.boxes) {
        collider_destroy(c);
        return error_set(SB_ERROR_OUT_OF_MEMORY, "out of memory building the collider");
    }
    memcpy(c->model.triangles, d->triangles, 3 * (size_t)d->triangle_count * sizeof *c->model.triangles);
    memcpy(c->state.from, d->positions, len * sizeof *c->state.from);
    memcpy(c->state.to, d->positions, len * sizeof *c->state.to);
    /* a collider is where it was defined until a step prepares it elsewhere */
    memcpy(c->scratch.x0, d->positions, len * sizeof *c->scratch.x0);
    memcpy(c->scratch.x1, d->positions, len * sizeof *c->scratch.x1);
    if (!topology_build(&c->model.topo, c->model.triangles, c->model.triangle_count, c->model.vertex_count) ||
        !mark_sharp_features(&c->model, d->positions)) {
        collider_destroy(c);
        return error_set(SB_ERROR_OUT_OF_MEMORY, "out of memory building the collider");
    }
    *out = c;
    return SB_OK;
}

void collider_destroy(collider *c)
{
    if (!c) return;
    free(c->model.triangles), free(c->model.local), free(c->model.sharp_edge), free(c->model.sharp_vertex);
    topology_free(&c->model.topo);
    free(c->state.from), free(c->state.to);
    free(c->scratch.x0), free(c->scratch.x1), free(c->scratch.boxes);
    bvh_free(&c->state.tree);
    free(c);
}

void collider_positions_at(const collider *c, double t, double *out)
{
    size_t len = 3 * (size_t)c->model.vertex_count;
    double span = c->state.time_to - c->state.time_from;
    if (!(span > 0.0) || t >= c->state.time_to) {
        memcpy(out, c->state.to, len * sizeof *out);
        return;
    }
    double s = t <= c->state.time_from ? 0.0 : (t - c->state.time_from) / span;
    for (size_t k = 0; k < len; k++) out[k] = c->state.from[k] + s * (c->state.to[k] - c->state.from[k]);
}

bool collider_prepare_step(collider *c, double t, double h)
{
    collider_positions_at(c, t, c->scratch.x0);
    collider_positions_at(c, t + h, c->scratch.x1);
    c->scratch.reaction = c->scratch.reaction_moment = v3(0, 0, 0);
    c->scratch.limit_reaction = c->scratch.limit_reaction_moment = v3(0, 0, 0);
    for (int32_t tri = 0; tri < c->model.triangle_count; tri++) {
        aabb box = aabb_empty();
        for (int k = 0; k < 3; k++) {
            size_t v = 3 * (size_t)c->model.triangles[3 * tri + k];
            box = aabb_add_point(box, v3_load(&c->scratch.x0[v]));
            box = aabb_add_point(box, v3_load(&c->scratch.x1[v]));
        }
        c->scratch.boxes[tri] = aabb_inflate(box, c->model.thickness);
    }
    return bvh_update(&c->state.tree, c->scratch.boxes, c->model.triangle_count);
}

bool collider_attach(collider *c, int32_t body, vec3 x, quat q, double t)
{
    size_t len = 3 * (size_t)c->model.vertex_count;
    if (!c->model.local && !(c->model.local = malloc(len * sizeof *c->model.local))) return false;
    collider_positions_at(c, t, c->model.local);
    mat3 r = q_to_m3(q);
    for (int32_t i = 0; i < c->model.vertex_count; i++) {
        double *p = &c->model.local[3 * (size_t)i];
        v3_store(p, m3_tmul_v(r, v3_sub(v3_load(p), x))); /* Rᵀ (p - x) */
    }
    c->model.body = body;
    return true;
}

static void place(const collider *c, vec3 x, quat q, double *out)
{
    mat3 r = q_to_m3(q);
    for (int32_t i = 0; i < c->model.vertex_count; i++) {
        size_t k = 3 * (size_t)i;
        v3_store(&out[k], v3_add(m3_mul_v(r, v3_load(&c->model.local[k])), x));
    }
}

void collider_follow(collider *c, vec3 x0, quat q0, vec3 x1, quat q1, double t, double h)
{
    place(c, x0, q0, c->state.from);
    place(c, x1, q1, c->state.to);
    c->state.time_from = t;
    c->state.time_to = t + h;
}
