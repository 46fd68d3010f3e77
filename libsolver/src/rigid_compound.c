#include "rigid_compound.h"

#include <stdio.h>
#include <stdlib.h>

#include "api_error.h"

sb_body_def compound_part_def(const sb_body_def *d, int32_t i)
{
    const sb_body_part *p = &d->parts[i];
    sb_body_def out = {.type = d->type, .shape = p->shape, .vertex_count = p->vertex_count, .vertices = p->vertices,
                       .triangle_count = p->triangle_count, .triangles = p->triangles, .radius = p->radius,
                       .mass = 1.0};
    for (int k = 0; k < 3; k++)
        out.center[k] = p->center[k], out.half_extents[k] = p->half_extents[k];
    for (int k = 0; k < 4; k++) out.rotation[k] = p->rotation[k];
    return out;
}

sb_result compound_part_error(sb_result r, int32_t i)
{
    char message[1024];
    snprintf(message, sizeof message, "%s", sb_last_error()); /* error_set writes over it */
    return error_set(r, "compound part %d: %s", (int)i, message);
}

sb_result compound_build(const sb_body_def *d, rigid_body_model *m, vec3 *center,
                         sb_result (*build)(const sb_body_def *part, rigid_body_model *out, vec3 *center))
{
    m->shape = SHAPE_COMPOUND;
    m->parts = calloc((size_t)d->part_count, sizeof *m->parts);
    if (!m->parts) return error_set(SB_ERROR_OUT_OF_MEMORY, "out of memory");
    m->part_count = d->part_count;
    vec3 sum = v3(0, 0, 0);
    for (int32_t i = 0; i < d->part_count; i++) {
        sb_body_def part = compound_part_def(d, i);
        rigid_body_model built = {0};
        vec3 c;
        sb_result r = build(&part, &built, &c);
        bool round = built.shape == SHAPE_CYLINDER || built.shape == SHAPE_CONE;
        m->parts[i] = (rigid_part){.shape = built.shape, .center = c, .radius = round ? built.segment_radius : built.radius,
                                   .hull = built.hull, .segment = {built.segment[0], built.segment[1]}};
        if (r != SB_OK) return compound_part_error(r, i);
        sum = v3_add(sum, c);
    }
    *center = v3_scale(sum, 1.0 / d->part_count);
    return SB_OK;
}

void compound_to_body_frame(rigid_body_model *m, mat3 rt, vec3 shift)
{
    m->radius = 0.0;
    m->placed_vertices = m->placed_normals = m->placed_offsets = 0;
    for (int32_t i = 0; i < m->part_count; i++) {
        rigid_part *p = &m->parts[i];
        p->center = v3_add(m3_mul_v(rt, p->center), shift);
        if (p->shape == SHAPE_POLYTOPE || p->shape == SHAPE_CYLINDER || p->shape == SHAPE_CONE) {
            for (int k = 0; p->shape != SHAPE_POLYTOPE && k < 2; k++)
                p->segment[k] = v3_add(m3_mul_v(rt, p->segment[k]), shift);
            polytope_transform(&p->hull, rt, shift);
            m->radius = fmax(m->radius, p->hull.radius);
            p->first_vertex = m->placed_vertices, p->first_normal = m->placed_normals;
            p->first_offset = m->placed_offsets;
            m->placed_vertices += p->hull.vertex_count;
            m->placed_normals += p->hull.face_count + 2 * p->hull.edge_count;
            m->placed_offsets += p->hull.face_count;
        } else if (p->shape == SHAPE_CAPSULE) {
            for (int k = 0; k < 2; k++) p->segment[k] = v3_add(m3_mul_v(rt, p->segment[k]), shift);
            m->radius = fmax(m->radius, fmax(v3_len(p->segment[0]), v3_len(p->segment[1])) + p->radius);
        } else {
            m->radius = fmax(m->radius, v3_len(p->center) + p->radius);
        }
    }
}

aabb compound_part_bounds(const rigid_part *p, vec3 x, mat3 r)
{
    aabb box = aabb_empty();
    if (p->shape == SHAPE_SPHERE) return aabb_inflate(aabb_add_point(box, v3_add(x, m3_mul_v(r, p->center))), p->radius);
    if (p->shape == SHAPE_CAPSULE) {
        for (int k = 0; k < 2; k++) box = aabb_add_point(box, v3_add(x, m3_mul_v(r, p->segment[k])));
        return aabb_inflate(box, p->radius);
    }
    for (int32_t i = 0; i < p->hull.vertex_count; i++) box = aabb_add_point(box, v3_add(x, m3_mul_v(r, p->hull.vertices[i])));
    return box;
}

void compound_free(rigid_body_model *m)
{
    for (int32_t i = 0; i < m->part_count; i++) polytope_free(&m->parts[i].hull);
    free(m->parts);
    m->parts = NULL, m->part_count = 0;
}
