#include "strands.h"

#include <stdlib.h>
#include <string.h>

#include "api_error.h"
#include "strand_bend.h"

static vec3 position(const sb_strand_def *d, int32_t i) { return v3_load(&d->positions[3 * (size_t)i]); }

static sb_result validate_def(const sb_strand_def *d)
{
    if (!d) return error_set(SB_ERROR_INVALID_ARGUMENT, "strand definition is NULL");
    if (d->vertex_count < 2 || d->vertex_count > MAX_MESH_COUNT)
        return error_set(SB_ERROR_INVALID_MESH, "strands need 2 to %d vertices, got %d", (int)MAX_MESH_COUNT,
                         (int)d->vertex_count);
    if (!d->positions) return error_set(SB_ERROR_INVALID_ARGUMENT, "strand positions are NULL");
    if (d->strand_count <= 0 || !d->strand_vertex_counts)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "strand_count is %d and strand_vertex_counts is %s; give at "
                         "least one strand", (int)d->strand_count, d->strand_vertex_counts ? "set" : "NULL");
    int64_t total = 0;
    for (int32_t s = 0; s < d->strand_count; s++) {
        if (d->strand_vertex_counts[s] < 2)
            return error_set(SB_ERROR_INVALID_MESH, "strand %d has %d vertices; a strand needs at least 2", (int)s,
                             (int)d->strand_vertex_counts[s]);
        total += d->strand_vertex_counts[s];
    }
    if (total != d->vertex_count)
        return error_set(SB_ERROR_INVALID_MESH, "the strands' vertex counts add up to %lld, but vertex_count is %d",
                         (long long)total, (int)d->vertex_count);
    for (int32_t i = 0; i < d->vertex_count; i++)
        for (int k = 0; k < 3; k++) {
            double p = d->positions[3 * (size_t)i + (size_t)k];
            if (!isfinite(p)) return error_set(SB_ERROR_INVALID_MESH, "strand vertex %d has a non-finite coordinate", (int)i);
            if (fabs(p) > MAX_COORDINATE)
                return error_set(SB_ERROR_INVALID_MESH, "strand vertex %d lies %.3g m from the origin (limit %.0g m)",
                                 (int)i, fabs(p), MAX_COORDINATE);
        }
    for (int32_t s = 0, first = 0; s < d->strand_count; first += d->strand_vertex_counts[s++])
        for (int32_t i = first; i + 1 < first + d->strand_vertex_counts[s]; i++)
            if (!(v3_len(v3_sub(position(d, i + 1), position(d, i))) > 0.0))
                return error_set(SB_ERROR_INVALID_MESH, "strand %d: the segment from vertex %d to %d has no length",
                                 (int)s, (int)i, (int)i + 1);
    if (!(isfinite(d->mass_per_length) && d->mass_per_length > 0.0))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "strand mass_per_length must be positive, got %g kg/m",
                         d->mass_per_length);
    struct { const char *name; double value; } params[] = {
        {"stretch_stiffness", d->stretch_stiffness}, {"bend_stiffness", d->bend_stiffness},
        {"damping", d->damping}, {"air_drag", d->air_drag}, {"thickness", d->thickness}, {"friction", d->friction},
    };
    for (size_t i = 0; i < sizeof params / sizeof params[0]; i++)
        if (!(isfinite(params[i].value) && params[i].value >= 0.0))
            return error_set(SB_ERROR_INVALID_ARGUMENT, "strand %s must be zero or positive, got %g", params[i].name,
                             params[i].value);
    if (!(d->max_stretch >= 0.0 && d->max_stretch <= 10.0))
        return error_set(SB_ERROR_INVALID_ARGUMENT,
                         "strand max_stretch must be 0 (no limit) or a fraction up to 10 (0.1: 10%%), got %g",
                         d->max_stretch);
    if (!(d->max_compression >= 0.0 && d->max_compression < 1.0))
        return error_set(SB_ERROR_INVALID_ARGUMENT,
                         "strand max_compression must be 0 (no limit) or a fraction below 1 (0.1: 10%%), got %g",
                         d->max_compression);
    if (!isfinite(d->gravity_scale))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "strand gravity_scale must be finite, got %g", d->gravity_scale);
    if (d->pin_count < 0 || (d->pin_count > 0 && !d->pins))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "pin_count is %d but pins is %s", (int)d->pin_count,
                         d->pins ? "set" : "NULL");
    for (int32_t p = 0; p < d->pin_count; p++) {
        if (d->pins[p] < 0 || d->pins[p] >= d->vertex_count)
            return error_set(SB_ERROR_INVALID_ARGUMENT, "pin %d names vertex %d, outside 0..%d", (int)p,
                             (int)d->pins[p], (int)d->vertex_count - 1);
        for (int32_t q = 0; q < p; q++)
            if (d->pins[q] == d->pins[p])
                return error_set(SB_ERROR_INVALID_ARGUMENT, "vertex %d is pinned twice", (int)d->pins[p]);
    }
    return SB_OK;
}

/* Segments as springs of stiffness EA / L, the same in tension and compression (a strand
 * compressed along its length buckles into bending instead: the spring's transverse term is
 * dropped there, cloth_springs.h). Masses and drag lengths from half of each segment. */
static bool build_segments(cloth_model *m, const sb_strand_def *d)
{
    int32_t segments = d->vertex_count - d->strand_count;
    spring_set *sp = &m->springs;
    sp->count = sp->given = segments;
    sp->pairs = malloc(2 * ((size_t)segments + 1) * sizeof *sp->pairs);
    sp->rest = malloc(((size_t)segments + 1) * sizeof *sp->rest);
    sp->stiffness = malloc(2 * ((size_t)segments + 1) * sizeof *sp->stiffness);
    sp->max_force = calloc((size_t)segments + 1, sizeof *sp->max_force);
    if (!sp->pairs || !sp->rest || !sp->stiffness || !sp->max_force) return false;
    int32_t s = 0;
    for (int32_t k = 0, first = 0; k < d->strand_count; first += d->strand_vertex_counts[k++])
        for (int32_t i = first; i + 1 < first + d->strand_vertex_counts[k]; i++, s++) {
            double length = v3_len(v3_sub(position(d, i + 1), position(d, i)));
            sp->pairs[2 * (size_t)s] = i, sp->pairs[2 * (size_t)s + 1] = i + 1;
            sp->rest[s] = length;
            sp->stiffness[2 * (size_t)s] = sp->stiffness[2 * (size_t)s + 1] = d->stretch_stiffness / length;
            for (int e = 0; e < 2; e++) {
                m->vertex_area[i + e] += 0.5 * length;
                m->mass[i + e] += 0.5 * length * d->mass_per_length;
            }
            m->info.rest_area += length;
        }
    for (int32_t i = 0; i < m->vertex_count; i++) m->info.total_mass += m->mass[i];
    return true;
}

/* A bending element at every interior vertex, k = EI / l̄, θ0 of the rest shape. */
static bool build_angles(cloth_model *m, const sb_strand_def *d)
{
    int32_t count = d->vertex_count - 2 * d->strand_count;
    m->angles = malloc(3 * ((size_t)count + 1) * sizeof *m->angles);
    m->angle_stiffness = malloc(((size_t)count + 1) * sizeof *m->angle_stiffness);
    m->angle_rest = malloc(((size_t)count + 1) * sizeof *m->angle_rest);
    if (!m->angles || !m->angle_stiffness || !m->angle_rest) return false;
    int32_t a = 0;
    for (int32_t k = 0, first = 0; k < d->strand_count; first += d->strand_vertex_counts[k++])
        for (int32_t i = first + 1; i + 1 < first + d->strand_vertex_counts[k]; i++, a++) {
            vec3 p0 = position(d, i - 1), p1 = position(d, i), p2 = position(d, i + 1);
            double mean = 0.5 * (v3_len(v3_sub(p1, p0)) + v3_len(v3_sub(p2, p1)));
            m->angles[3 * (size_t)a] = i - 1, m->angles[3 * (size_t)a + 1] = i, m->angles[3 * (size_t)a + 2] = i + 1;
            m->angle_stiffness[a] = d->bend_stiffness / mean;
            m->angle_rest[a] = turning_angle(p0, p1, p2);
        }
    m->angle_count = count;
    return true;
}

static sb_result build_model(cloth_model *m, const sb_strand_def *d)
{
    int32_t nv = d->vertex_count;
    m->strands = true;
    m->vertex_count = nv;
    m->rest_positions = malloc(3 * (size_t)nv * sizeof *m->rest_positions);
    m->mass = calloc((size_t)nv, sizeof *m->mass);
    m->vertex_area = calloc((size_t)nv, sizeof *m->vertex_area);
    m->triangles = malloc(sizeof *m->triangles); /* none, but never NULL for the code that walks them */
    m->rest = malloc(sizeof *m->rest);
    m->pinned = calloc((size_t)nv, sizeof *m->pinned);
    m->pins = malloc(((size_t)d->pin_count + 1) * sizeof *m->pins);
    m->goals = malloc(sizeof *m->goals);
    m->goal_stiffness = malloc(sizeof *m->goal_stiffness);
    if (!m->rest_positions || !m->mass || !m->vertex_area || !m->triangles || !m->rest || !m->pinned || !m->pins ||
        !m->goals || !m->goal_stiffness)
        return SB_ERROR_OUT_OF_MEMORY;
    memcpy(m->rest_positions, d->positions, 3 * (size_t)nv * sizeof *m->rest_positions);
    /* the triangles' and hinges' stiffnesses are 0: a strand has neither */
    m->material = (cloth_material){0.0, 0.0, 0.0, 0.0, d->damping, d->air_drag};
    m->thickness = m->self_thickness = d->thickness;
    /* segments against segments in the collision response (collision_strand_pairs.c) */
    m->self_collision = d->self_collision != 0;
    m->friction = d->friction;
    m->meets_collider_count = -1;
    m->gravity_scale = d->gravity_scale;
    /* segments projected into the limits after each step (cloth_strain_limit.h) */
    m->max_stretch = d->max_stretch, m->max_compression = d->max_compression;
    m->info.vertex_count = nv;
    m->pin_count = d->pin_count;
    for (int32_t p = 0; p < d->pin_count; p++) m->pins[p] = d->pins[p], m->pinned[d->pins[p]] = 1;
    if (!build_segments(m, d) || !build_angles(m, d) || !topology_build(&m->topo, m->triangles, 0, nv) ||
        !cloth_colour_elements(&m->triangle_colours, m->triangles, 0, 3, nv) ||
        !cloth_colour_elements(&m->hinge_colours, m->hinges, 0, 4, nv) ||
        !cloth_colour_elements(&m->spring_colours, m->springs.pairs, m->springs.count, 2, nv) ||
        !cloth_colour_elements(&m->angle_colours, m->angles, m->angle_count, 3, nv))
        return SB_ERROR_OUT_OF_MEMORY;
    return SB_OK;
}

sb_result strands_create(const sb_strand_def *def, double time, const double gravity[3], cloth **out)
{
    *out = NULL;
    sb_result r = validate_def(def);
    if (r != SB_OK) return r;
    cloth *c = calloc(1, sizeof *c);
    /* a strand's system is block pentadiagonal (segments: neighbours; bending: second
     * neighbours): its exact banded factor preconditions the CG (linalg_band.h) */
    if (!c || build_model(&c->model, def) != SB_OK || !cloth_init_dynamics(c, time, gravity) ||
        !cg_workspace_use_band(&c->scratch.cg, &c->scratch.system, STRAND_BAND_BLOCKS)) {
        cloth_destroy(c);
        return error_set(SB_ERROR_OUT_OF_MEMORY, "out of memory while building the strands");
    }
    *out = c;
    return SB_OK;
}
