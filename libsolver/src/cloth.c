#include "cloth.h"

#include <stdlib.h>
#include <string.h>

#include "api_error.h"

static sb_result validate_def(const sb_cloth_def *d)
{
    if (!d) return error_set(SB_ERROR_INVALID_ARGUMENT, "cloth definition is NULL");
    if (d->vertex_count <= 0 || d->triangle_count <= 0)
        return error_set(SB_ERROR_INVALID_MESH, "cloth mesh is empty (%d vertices, %d triangles)",
                         (int)d->vertex_count, (int)d->triangle_count);
    if (d->vertex_count > MAX_MESH_COUNT || d->triangle_count > MAX_MESH_COUNT)
        return error_set(SB_ERROR_INVALID_MESH, "cloth mesh is too large (%d vertices, %d triangles)",
                         (int)d->vertex_count, (int)d->triangle_count);
    if (!d->positions || !d->triangles)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "cloth positions or triangles are NULL");
    for (int32_t i = 0; i < d->vertex_count; i++)
        for (int k = 0; k < 3; k++) {
            double p = d->positions[3 * (size_t)i + (size_t)k];
            if (!isfinite(p))
                return error_set(SB_ERROR_INVALID_MESH, "vertex %d has a non-finite coordinate", (int)i);
            if (fabs(p) > MAX_COORDINATE)
                return error_set(SB_ERROR_INVALID_MESH,
                                 "vertex %d lies %.3g m from the origin (limit %.0g m)", (int)i,
                                 fabs(p), MAX_COORDINATE);
        }
    for (int32_t t = 0; t < d->triangle_count; t++)
        for (int k = 0; k < 3; k++) {
            int32_t v = d->triangles[3 * (size_t)t + (size_t)k];
            if (v < 0 || v >= d->vertex_count)
                return error_set(SB_ERROR_INVALID_MESH,
                                 "triangle %d uses vertex %d, outside 0..%d", (int)t, (int)v,
                                 (int)d->vertex_count - 1);
        }
    if (d->uvs && !all_finite(d->uvs, 6 * (size_t)d->triangle_count))
        return error_set(SB_ERROR_INVALID_MESH, "cloth UVs contain a non-finite value");
    if (!isfinite(d->gravity_scale))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "cloth gravity_scale must be finite, got %g", d->gravity_scale);
    for (int32_t i = 0; d->shrink && i < d->vertex_count; i++)
        if (!(fabs(d->shrink[i]) < 1.0))
            return error_set(SB_ERROR_INVALID_ARGUMENT, "cloth shrink of vertex %d is %g; it must lie between -1 and 1",
                             (int)i, d->shrink[i]);
    if (!isfinite(d->pressure))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "cloth pressure must be finite, got %g Pa", d->pressure);
    for (int32_t i = 0; d->pressure_weights && i < d->vertex_count; i++)
        if (!(d->pressure_weights[i] >= 0.0 && d->pressure_weights[i] <= 1.0))
            return error_set(SB_ERROR_INVALID_ARGUMENT,
                             "cloth pressure weight of vertex %d is %g; it must lie between 0 and 1", (int)i,
                             d->pressure_weights[i]);
    struct { const char *name; const double *values; } scales[] = {
        {"stretch_scale", d->stretch_scale}, {"compression_scale", d->compression_scale},
        {"shear_scale", d->shear_scale}, {"bend_scale", d->bend_scale},
    };
    for (size_t k = 0; k < sizeof scales / sizeof scales[0]; k++)
        for (int32_t i = 0; scales[k].values && i < d->vertex_count; i++)
            if (!(isfinite(scales[k].values[i]) && scales[k].values[i] >= 0.0))
                return error_set(SB_ERROR_INVALID_ARGUMENT,
                                 "cloth %s of vertex %d is %g; it must be finite and zero or positive",
                                 scales[k].name, (int)i, scales[k].values[i]);
    struct { const char *name; const uint8_t *values; } flags[] = {
        {"self_collision_off", d->self_collision_off}, {"object_collision_off", d->object_collision_off},
    };
    for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++)
        for (int32_t i = 0; flags[k].values && i < d->vertex_count; i++)
            if (flags[k].values[i] > 1)
                return error_set(SB_ERROR_INVALID_ARGUMENT, "cloth %s of vertex %d is %d; it must be 0 or 1",
                                 flags[k].name, (int)i, (int)flags[k].values[i]);
    if (!(isfinite(d->self_friction)))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "cloth self_friction must be finite, got %g", d->self_friction);
    if (!(d->max_stretch >= 0.0 && d->max_stretch <= 10.0))
        return error_set(SB_ERROR_INVALID_ARGUMENT,
                         "cloth max_stretch must be 0 (no limit) or a fraction up to 10 (0.1: 10%%), got %g",
                         d->max_stretch);
    if (!(d->max_compression >= 0.0 && d->max_compression < 1.0))
        return error_set(SB_ERROR_INVALID_ARGUMENT,
                         "cloth max_compression must be 0 (no limit) or a fraction below 1 (0.1: 10%%), got %g",
                         d->max_compression);
    struct { const char *name; double value; bool positive; } params[] = {
        {"density", d->density, true},
        {"stretch_stiffness", d->stretch_stiffness, false},
        /* negative and finite: the default, the stretch stiffness */
        {"compression_stiffness", isfinite(d->compression_stiffness) && d->compression_stiffness < 0.0
                                      ? 0.0 : d->compression_stiffness, false},
        {"shear_stiffness", d->shear_stiffness, false},
        {"bend_stiffness", d->bend_stiffness, false},
        {"damping", d->damping, false},
        {"air_drag", d->air_drag, false},
        {"thickness", d->thickness, false},
        {"self_thickness", d->self_thickness, false},
        {"friction", d->friction, false},
        {"pressure_scale", d->pressure_scale, false},
        {"pressure_target_volume", d->pressure_target_volume, false},
    };
    for (size_t i = 0; i < sizeof params / sizeof params[0]; i++) {
        double v = params[i].value;
        if (!isfinite(v) || v < 0.0 || (params[i].positive && v == 0.0))
            return error_set(SB_ERROR_INVALID_ARGUMENT, "cloth %s must be %s, got %g",
                             params[i].name, params[i].positive ? "positive" : "zero or positive", v);
    }
    if (!isfinite(d->goal_damping) || d->goal_damping < 0.0)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "cloth goal_damping must be zero or positive, got %g",
                         d->goal_damping);
    for (int32_t i = 0; d->goal_stiffness && i < d->vertex_count; i++)
        if (!isfinite(d->goal_stiffness[i]) || d->goal_stiffness[i] < 0.0)
            return error_set(SB_ERROR_INVALID_ARGUMENT,
                             "cloth goal_stiffness of vertex %d is %g; it must be zero or positive",
                             (int)i, d->goal_stiffness[i]);
    if (d->pin_count < 0 || (d->pin_count > 0 && !d->pins))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "pin_count is %d but pins is %s",
                         (int)d->pin_count, d->pins ? "set" : "NULL");
    for (int32_t p = 0; p < d->pin_count; p++)
        if (d->pins[p] < 0 || d->pins[p] >= d->vertex_count)
            return error_set(SB_ERROR_INVALID_ARGUMENT, "pin %d names vertex %d, outside 0..%d",
                             (int)p, (int)d->pins[p], (int)d->vertex_count - 1);
    return springs_validate(d);
}

/* Material frame of one rest triangle: in-plane axes t (warp) and n × t (weft); corners'
 * (u, v) are their rest positions in that frame, so the rest state is exactly unstretched.
 * The warp direction comes from the UVs when given, else from world +X (or +Y). */
static bool triangle_rest_frame(const vec3 p[3], const double *uv, tri_rest *out)
{
    vec3 n = v3_cross(v3_sub(p[1], p[0]), v3_sub(p[2], p[0]));
    double nlen = v3_len(n);
    double longest = fmax(fmax(v3_len2(v3_sub(p[1], p[0])), v3_len2(v3_sub(p[2], p[0]))),
                          v3_len2(v3_sub(p[2], p[1])));
    if (!(nlen > 1e-12 * longest)) return false;
    n = v3_scale(n, 1.0 / nlen);

    vec3 warp = v3(0, 0, 0);
    tri_rest uv_rest;
    if (uv) {
        double u[3] = {uv[0], uv[2], uv[4]}, v[3] = {uv[1], uv[3], uv[5]};
        if (tri_rest_from_uv(u, v, &uv_rest))
            warp = v3_add(v3_add(v3_scale(p[0], uv_rest.cu[0]), v3_scale(p[1], uv_rest.cu[1])),
                          v3_scale(p[2], uv_rest.cu[2]));
    }
    warp = v3_madd(warp, n, -v3_dot(warp, n));
    if (!(v3_len(warp) > 1e-9 * sqrt(longest))) {
        warp = v3_madd(v3(1, 0, 0), n, -n.x);
        if (v3_len(warp) < 0.3) warp = v3_madd(v3(0, 1, 0), n, -n.y);
    }
    warp = v3_scale(warp, 1.0 / v3_len(warp));
    vec3 weft = v3_cross(n, warp);
    double u[3], v[3];
    for (int i = 0; i < 3; i++) {
        vec3 d = v3_sub(p[i], p[0]);
        u[i] = v3_dot(d, warp);
        v[i] = v3_dot(d, weft);
    }
    return tri_rest_from_uv(u, v, out);
}

/* Each triangle's rest shape scaled by s = 1 - its corners' mean shrink: material coordinates
 * by s, so w = ∂x/∂u by 1/s and the area by s². Masses, vertex areas and the hinges' weights
 * 3|e|²/(A1+A2), which a uniform scale leaves alone, stay those of the given shape. */
static void shrink_rest_shapes(cloth_model *m, const double *shrink)
{
    for (int32_t t = 0; t < m->triangle_count; t++) {
        const int32_t *tri = &m->triangles[3 * (size_t)t];
        double s = 1.0 - (shrink[tri[0]] + shrink[tri[1]] + shrink[tri[2]]) / 3.0;
        tri_rest *rest = &m->rest[t];
        for (int k = 0; k < 3; k++) rest->cu[k] /= s, rest->cv[k] /= s;
        rest->area *= s * s;
    }
}

/* Hinges on every edge shared by exactly two triangles; edges with more are counted as
 * non-manifold and not bent. */
static bool build_hinges(cloth_model *m)
{
    const topology *t = &m->topo;
    m->hinges = malloc(((size_t)t->edge_count + 1) * 4 * sizeof *m->hinges);
    m->hinge_weight = malloc(((size_t)t->edge_count + 1) * sizeof *m->hinge_weight);
    m->hinge_rest_angle = malloc(((size_t)t->edge_count + 1) * sizeof *m->hinge_rest_angle);
    if (!m->hinges || !m->hinge_weight || !m->hinge_rest_angle) return false;
    int32_t hinges = 0, nonmanifold = 0;
    for (int32_t e = 0; e < t->edge_count; e++) {
        if (t->edge_face_count[e] > 2) nonmanifold++;
        if (t->edge_face_count[e] != 2) continue;
        int32_t *h = &m->hinges[4 * (size_t)hinges];
        h[0] = t->edges[2 * e], h[1] = t->edges[2 * e + 1];
        for (int side = 0; side < 2; side++) { /* the wing vertex opposite the edge */
            int32_t tri = t->edge_triangles[2 * e + side];
            for (int k = 0; k < 3; k++)
                if (t->triangle_edges[3 * tri + k] == e) h[2 + side] = m->triangles[3 * tri + (k + 2) % 3];
        }
        if (h[2] == h[3]) continue; /* the same triangle twice */
        vec3 x[4];
        for (int k = 0; k < 4; k++) x[k] = v3_load(&m->rest_positions[3 * (size_t)h[k]]);
        double angle;
        if (!dihedral_angle(x, &angle)) continue;
        double area = m->rest[t->edge_triangles[2 * e]].area + m->rest[t->edge_triangles[2 * e + 1]].area;
        m->hinge_weight[hinges] = 3.0 * v3_len2(v3_sub(x[1], x[0])) / area;
        m->hinge_rest_angle[hinges] = angle;
        hinges++;
    }
    m->hinge_count = hinges;
    m->info.bend_edges = hinges;
    m->info.nonmanifold_edges = nonmanifold;
    return true;
}

/* Elements are assembled ASSEMBLY_GROUP consecutive ones at a time, which keeps a region of
 * the matrix in cache (cloth_colouring.h). A mesh numbered without locality has groups that meet
 * too many others for few colours: it is coloured element by element instead. */
enum { ASSEMBLY_GROUP = 256, GROUPED_COLOURS_MAX = 16 };

bool cloth_colour_elements(colouring *out, const int32_t *elements, int32_t count, int32_t per, int32_t vertices)
{
    if (!colouring_build(out, elements, count, per, vertices, ASSEMBLY_GROUP)) return false;
    if (!out->last_serial && out->colour_count <= GROUPED_COLOURS_MAX) return true;
    colouring_free(out);
    return colouring_build(out, elements, count, per, vertices, 1);
}

/* Rest frames, areas and lumped masses of the triangles with area (the others are counted
 * and left out); false when none has any. */
static bool build_triangles(cloth_model *m, const sb_cloth_def *def)
{
    int32_t kept = 0;
    for (int32_t t = 0; t < def->triangle_count; t++) {
        const int32_t *tri = &def->triangles[3 * (size_t)t];
        vec3 p[3];
        for (int k = 0; k < 3; k++) p[k] = v3_load(&def->positions[3 * (size_t)tri[k]]);
        bool distinct = tri[0] != tri[1] && tri[1] != tri[2] && tri[0] != tri[2];
        if (!distinct || !triangle_rest_frame(p, def->uvs ? &def->uvs[6 * (size_t)t] : NULL, &m->rest[kept])) {
            m->info.degenerate_triangles++;
            continue;
        }
        memcpy(&m->triangles[3 * (size_t)kept], tri, 3 * sizeof *tri);
        double third = m->rest[kept].area / 3.0;
        for (int k = 0; k < 3; k++) {
            m->vertex_area[tri[k]] += third;
            m->mass[tri[k]] += def->density * third;
        }
        m->info.rest_area += m->rest[kept].area;
        kept++;
    }
    m->triangle_count = kept;
    if (kept == 0) return false;
    /* loose vertices (in no triangle with area) fall as particles of average vertex mass */
    double mean_mass = def->density * m->info.rest_area / m->vertex_count;
    for (int32_t i = 0; i < m->vertex_count; i++) {
        if (m->mass[i] <= 0.0) m->mass[i] = mean_mass;
        m->info.total_mass += m->mass[i];
    }
    return true;
}

/* Pressure's constants: the weight of each kept triangle (its corners' mean, 0 when one corner
 * is 0, as Blender leaves such triangles out), where volumes are measured from, and the target
 * volume, which the gas term needs positive. */
static sb_result build_pressure(cloth_model *m, const sb_cloth_def *def)
{
    cloth_pressure *pr = &m->pressure;
    pr->pressure = def->pressure;
    pr->scale = def->pressure_scale;
    pr->on = pr->pressure != 0.0 || pr->scale > 0.0;
    if (!pr->on) return SB_OK;
    for (int32_t i = 0; i < m->vertex_count; i++)
        for (int k = 0; k < 3; k++) pr->origin[k] += m->rest_positions[3 * (size_t)i + (size_t)k] / m->vertex_count;
    if (def->pressure_weights) {
        if (!(pr->triangle_weight = malloc(((size_t)m->triangle_count + 1) * sizeof *pr->triangle_weight)))
            return error_set(SB_ERROR_OUT_OF_MEMORY, "out of memory while building the cloth");
        for (int32_t t = 0; t < m->triangle_count; t++) {
            const int32_t *tri = &m->triangles[3 * (size_t)t];
            double wa = def->pressure_weights[tri[0]], wb = def->pressure_weights[tri[1]],
                   wc = def->pressure_weights[tri[2]];
            pr->triangle_weight[t] = wa == 0.0 || wb == 0.0 || wc == 0.0 ? 0.0 : (wa + wb + wc) / 3.0;
        }
    }
    double rest_volume = pressure_volume(pr, m->triangles, m->triangle_count, m->rest_positions);
    pr->target_volume = def->pressure_target_volume > 0.0 ? def->pressure_target_volume : rest_volume;
    if (pr->scale > 0.0 && !(pr->target_volume > 0.0))
        return error_set(SB_ERROR_INVALID_ARGUMENT,
                         "cloth pressure_scale needs a volume to keep, but the rest shape encloses %g m^3 and "
                         "no pressure_target_volume is given (is the mesh closed, its triangles wound "
                         "counter-clockwise seen from outside?)", rest_volume);
    return SB_OK;
}

/* Each element's mean of its vertices' factors (`per` vertices from `elements`, the first
 * `used` of them averaged: a hinge's edge ends); NULL factors leave *out NULL. */
static bool element_scales(const double *factors, const int32_t *elements, int32_t count, int per, int used,
                           double **out)
{
    if (!factors) return true;
    if (!(*out = malloc(((size_t)count + 1) * sizeof **out))) return false;
    for (int32_t e = 0; e < count; e++) {
        const int32_t *v = &elements[(size_t)per * (size_t)e];
        double sum = 0.0;
        for (int k = 0; k < used; k++) sum += factors[v[k]];
        (*out)[e] = sum / used;
    }
    return true;
}

/* The LEFT_OUT_OF_* bits of every feature (cloth.h's left_out) from the vertices' flags. */
static bool build_left_out(cloth_model *m, const sb_cloth_def *def)
{
    if (!def->self_collision_off && !def->object_collision_off) return true;
    left_out *l = &m->left_out;
    const topology *t = &m->topo;
    l->vertex = calloc((size_t)m->vertex_count, 1);
    l->edge = malloc((size_t)t->edge_count + 1);
    l->triangle = malloc((size_t)m->triangle_count + 1);
    uint8_t *seen = calloc((size_t)m->vertex_count, 1);
    if (!l->vertex || !l->edge || !l->triangle || !seen) return free(seen), false;
    for (int32_t i = 0; i < m->vertex_count; i++)
        l->vertex[i] = (uint8_t)((def->object_collision_off && def->object_collision_off[i] ? LEFT_OUT_OF_OBJECTS : 0) |
                                 (def->self_collision_off && def->self_collision_off[i] ? LEFT_OUT_OF_SELF : 0));
    memset(l->edge, LEFT_OUT_OF_OBJECTS | LEFT_OUT_OF_SELF, (size_t)t->edge_count);
    for (int32_t tri = 0; tri < m->triangle_count; tri++) {
        const int32_t *v = &m->triangles[3 * (size_t)tri];
        l->triangle[tri] = l->vertex[v[0]] & l->vertex[v[1]] & l->vertex[v[2]];
    }
    /* a vertex's bits only now, so the triangles above saw every vertex's own */
    for (int32_t tri = 0; tri < m->triangle_count; tri++) {
        const int32_t *v = &m->triangles[3 * (size_t)tri];
        uint8_t bits = l->triangle[tri];
        for (int k = 0; k < 3; k++) {
            l->vertex[v[k]] = seen[v[k]] ? l->vertex[v[k]] & bits : bits;
            seen[v[k]] = 1;
            l->edge[t->triangle_edges[3 * (size_t)tri + (size_t)k]] &= bits;
        }
    }
    free(seen);
    return true;
}

static sb_result out_of_memory(void)
{
    return error_set(SB_ERROR_OUT_OF_MEMORY, "out of memory while building the cloth");
}

static bool has_goal(const sb_cloth_def *def, const cloth_model *m, int32_t i)
{
    return def->goal_stiffness[i] > 0.0 && !m->pinned[i];
}

/* The model of a valid definition: what it gives, and what follows from it once. */
static sb_result build_model(cloth_model *m, const sb_cloth_def *def)
{
    int32_t nv = def->vertex_count;
    m->vertex_count = nv;
    m->rest_positions = malloc(3 * (size_t)nv * sizeof *m->rest_positions);
    m->mass = calloc((size_t)nv, sizeof *m->mass);
    m->vertex_area = calloc((size_t)nv, sizeof *m->vertex_area);
    m->triangles = malloc(3 * (size_t)def->triangle_count * sizeof *m->triangles);
    m->rest = malloc((size_t)def->triangle_count * sizeof *m->rest);
    m->pinned = calloc((size_t)nv, sizeof *m->pinned);
    m->pins = malloc(((size_t)def->pin_count + 1) * sizeof *m->pins);
    if (!m->rest_positions || !m->mass || !m->vertex_area || !m->triangles || !m->rest || !m->pinned || !m->pins)
        return out_of_memory();
    memcpy(m->rest_positions, def->positions, 3 * (size_t)nv * sizeof *m->rest_positions);
    m->material = (cloth_material){def->stretch_stiffness, def->shear_stiffness, def->bend_stiffness,
                                   def->compression_stiffness < 0.0 ? def->stretch_stiffness
                                                                    : def->compression_stiffness,
                                   def->damping, def->air_drag};
    m->thickness = def->thickness;
    m->self_thickness = def->self_thickness > 0.0 ? def->self_thickness : def->thickness;
    m->friction = def->friction;
    m->self_friction = def->self_friction < 0.0 ? def->friction * def->friction : def->self_friction;
    m->meets_collider_count = -1;
    m->gravity_scale = def->gravity_scale;
    m->self_collision = def->self_collision != 0;
    m->max_stretch = def->max_stretch, m->max_compression = def->max_compression;
    m->info.vertex_count = nv;
    m->info.triangle_count = def->triangle_count;
    if (!build_triangles(m, def))
        return error_set(SB_ERROR_INVALID_MESH, "no triangle of the cloth has any area (%d degenerate)",
                         (int)def->triangle_count);
    if (!topology_build(&m->topo, m->triangles, m->triangle_count, nv) || !build_hinges(m)) return out_of_memory();
    if (def->shrink) shrink_rest_shapes(m, def->shrink);
    const double *compression = def->compression_scale ? def->compression_scale : def->stretch_scale;
    if (!element_scales(def->stretch_scale, m->triangles, m->triangle_count, 3, 3, &m->triangle_stretch_scale) ||
        !element_scales(compression, m->triangles, m->triangle_count, 3, 3, &m->triangle_compression_scale) ||
        !element_scales(def->shear_scale, m->triangles, m->triangle_count, 3, 3, &m->triangle_shear_scale) ||
        !element_scales(def->bend_scale, m->hinges, m->hinge_count, 4, 2, &m->hinge_bend_scale) ||
        !build_left_out(m, def))
        return out_of_memory();
    sb_result pressure = build_pressure(m, def);
    if (pressure != SB_OK) return pressure;
    if (m->self_collision &&
        !rest_neighbours_build(&m->near_at_rest, m->rest_positions, &m->topo, 3.0 * m->self_thickness))
        return out_of_memory();
    m->pin_count = def->pin_count;
    for (int32_t p = 0; p < def->pin_count; p++) m->pins[p] = def->pins[p], m->pinned[def->pins[p]] = 1;
    /* goals: every unpinned vertex with a stiffness; a pin holds its vertex exactly anyway */
    m->goal_damping = def->goal_damping;
    for (int32_t i = 0; def->goal_stiffness && i < nv; i++) m->goal_count += has_goal(def, m, i);
    m->goals = malloc(((size_t)m->goal_count + 1) * sizeof *m->goals);
    m->goal_stiffness = malloc(((size_t)m->goal_count + 1) * sizeof *m->goal_stiffness);
    if (!m->goals || !m->goal_stiffness) return out_of_memory();
    for (int32_t i = 0, p = 0; p < m->goal_count; i++)
        if (has_goal(def, m, i)) m->goals[p] = i, m->goal_stiffness[p++] = def->goal_stiffness[i];
    if (!springs_build(def, m->triangles, m->triangle_count, &m->springs)) return out_of_memory();
    m->info.springs = m->springs.given;
    m->info.internal_springs = m->springs.internal;
    if (!cloth_colour_elements(&m->triangle_colours, m->triangles, m->triangle_count, 3, nv) ||
        !cloth_colour_elements(&m->hinge_colours, m->hinges, m->hinge_count, 4, nv) ||
        !cloth_colour_elements(&m->spring_colours, m->springs.pairs, m->springs.count, 2, nv))
        return out_of_memory();
    return SB_OK;
}

/* At rest where defined, pins held where they are, no contacts; before the first step the
 * best guess of the acceleration is free fall. */
static bool init_state(cloth_state *s, const cloth_model *m, double time, const double gravity[3])
{
    size_t len = 3 * (size_t)m->vertex_count, pin_len = 3 * (size_t)m->pin_count + 1;
    s->x = malloc(len * sizeof *s->x);
    s->v = calloc(len, sizeof *s->v);
    s->accel = malloc(len * sizeof *s->accel);
    s->contacts = malloc((size_t)m->vertex_count * sizeof *s->contacts);
    s->collided = calloc((size_t)m->vertex_count, sizeof *s->collided);
    s->pin_from = malloc(pin_len * sizeof *s->pin_from);
    s->pin_to = malloc(pin_len * sizeof *s->pin_to);
    if (!s->x || !s->v || !s->accel || !s->contacts || !s->collided || !s->pin_from || !s->pin_to) return false;
    memcpy(s->x, m->rest_positions, len * sizeof *s->x);
    for (size_t k = 0; k < len; k++) s->accel[k] = gravity[k % 3] * m->gravity_scale;
    for (int32_t i = 0; i < m->vertex_count; i++) s->contacts[i] = (vertex_contact){.collider = -1};
    for (int32_t p = 0; p < m->pin_count; p++) {
        memcpy(&s->pin_from[3 * (size_t)p], &s->x[3 * (size_t)m->pins[p]], 3 * sizeof(double));
        memcpy(&s->pin_to[3 * (size_t)p], &s->x[3 * (size_t)m->pins[p]], 3 * sizeof(double));
    }
    s->pin_time_from = s->pin_time_to = time;
    size_t goal_len = 3 * (size_t)m->goal_count + 1;
    s->goal_from = malloc(goal_len * sizeof *s->goal_from);
    s->goal_to = malloc(goal_len * sizeof *s->goal_to);
    if (!s->goal_from || !s->goal_to) return false;
    for (int32_t p = 0; p < m->goal_count; p++) {
        memcpy(&s->goal_from[3 * (size_t)p], &s->x[3 * (size_t)m->goals[p]], 3 * sizeof(double));
        memcpy(&s->goal_to[3 * (size_t)p], &s->x[3 * (size_t)m->goals[p]], 3 * sizeof(double));
    }
    s->goal_time_from = s->goal_time_to = time;
    s->cg = CG_HISTORY_START;
    return true;
}

/* The implicit step's matrix (pattern of the triangles' and hinges' vertex pairs) and the
 * vectors a step works in. */
static bool init_scratch(cloth_scratch *s, const cloth_model *m)
{
    bsr_elements sets[4] = {{m->triangles, m->triangle_count, 3}, {m->hinges, m->hinge_count, 4},
                            {m->springs.pairs, m->springs.count, 2}, {m->angles, m->angle_count, 3}};
    if (!bsr_build_pattern(&s->system, m->vertex_count, sets, 4) ||
        !bsr_element_table(&s->system, m->angles, m->angle_count, 3, &s->angle_blocks) ||
        !bsr_element_table(&s->system, m->triangles, m->triangle_count, 3, &s->triangle_blocks) ||
        !bsr_element_table(&s->system, m->hinges, m->hinge_count, 4, &s->hinge_blocks) ||
        !bsr_element_table(&s->system, m->springs.pairs, m->springs.count, 2, &s->spring_blocks))
        return false;
    size_t len = 3 * (size_t)m->vertex_count;
    double **vectors[] = {&s->force, &s->rhs, &s->dv, &s->z, &s->x_new, &s->v_new, &s->correction,
                          &s->target_velocity, &s->target_offset, &s->external_force, &s->v_before_limit,
                          &s->x_before_limit};
    for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++)
        if (!(*vectors[i] = calloc(len, sizeof(double)))) return false;
    s->filter_kind = calloc((size_t)m->vertex_count, sizeof *s->filter_kind);
    s->held = calloc((size_t)m->vertex_count, sizeof *s->held);
    s->pushed_by = malloc((size_t)m->vertex_count * sizeof *s->pushed_by);
    s->filter_proj = calloc(3 * len, sizeof *s->filter_proj);
    s->contacts_start = malloc((size_t)m->vertex_count * sizeof *s->contacts_start);
    /* the collision response's boxes: of the triangles, or of a strand's segments */
    int32_t primitives = m->strands ? m->springs.count : m->triangle_count;
    s->boxes = malloc(((size_t)primitives + 1) * sizeof *s->boxes);
    if (!s->filter_kind || !s->held || !s->pushed_by || !s->filter_proj || !s->contacts_start || !s->boxes) return false;
    if (m->pressure.on && !(s->pressure_gradient = calloc(len, sizeof *s->pressure_gradient))) return false;
    return cg_workspace_init(&s->cg, m->vertex_count);
}

bool cloth_init_dynamics(cloth *c, double time, const double gravity[3])
{
    return init_state(&c->state, &c->model, time, gravity) && init_scratch(&c->scratch, &c->model);
}

sb_result cloth_create(const sb_cloth_def *def, double time, const double gravity[3], cloth **out)
{
    *out = NULL;
    sb_result r = validate_def(def);
    if (r != SB_OK) return r;
    for (int32_t i = 0; i < def->pin_count; i++)
        for (int32_t j = 0; j < i; j++)
            if (def->pins[i] == def->pins[j])
                return error_set(SB_ERROR_INVALID_ARGUMENT, "vertex %d is pinned twice",
                                 (int)def->pins[i]);
    cloth *c = calloc(1, sizeof *c);
    if (!c) return out_of_memory();
    r = build_model(&c->model, def);
    if (r == SB_OK && !cloth_init_dynamics(c, time, gravity)) r = out_of_memory();
    if (r != SB_OK) {
        cloth_destroy(c);
        return r;
    }
    *out = c;
    return SB_OK;
}

void cloth_destroy(cloth *c)
{
    if (!c) return;
    cloth_model *m = &c->model;
    free(m->rest_positions), free(m->mass), free(m->vertex_area), free(m->triangles), free(m->rest);
    free(m->hinges), free(m->hinge_weight), free(m->hinge_rest_angle), free(m->pins), free(m->pinned);
    free(m->pin_local);
    free(m->goals), free(m->goal_stiffness);
    topology_free(&m->topo);
    rest_neighbours_free(&m->near_at_rest);
    free(m->pressure.triangle_weight);
    springs_free(&m->springs);
    colouring_free(&m->triangle_colours), colouring_free(&m->hinge_colours), colouring_free(&m->spring_colours);
    free(m->triangle_stretch_scale), free(m->triangle_compression_scale), free(m->triangle_shear_scale);
    free(m->hinge_bend_scale);
    free(m->angles), free(m->angle_stiffness), free(m->angle_rest);
    colouring_free(&m->angle_colours);
    free(m->left_out.vertex), free(m->left_out.edge), free(m->left_out.triangle), free(m->meets_collider);
    cloth_state *s = &c->state;
    free(s->x), free(s->v), free(s->accel), free(s->contacts), free(s->collided), free(s->pin_from), free(s->pin_to);
    free(s->goal_from), free(s->goal_to);
    cloth_scratch *w = &c->scratch;
    free(w->boxes);
    bvh_free(&w->tree);
    free(w->filter_kind), free(w->held), free(w->filter_proj), free(w->target_velocity), free(w->target_offset);
    free(w->external_force), free(w->v_before_limit), free(w->x_before_limit), free(w->pushed_by), free(w->contacts_start);
    free(w->strain_moved_at), free(w->strain_seen_at), free(w->strain_excess), free(w->pin_reach), free(w->reach_pin);
    bsr_free(&w->system);
    free(w->triangle_blocks), free(w->hinge_blocks), free(w->spring_blocks), free(w->angle_blocks);
    free(w->force), free(w->rhs), free(w->dv), free(w->z), free(w->x_new), free(w->v_new), free(w->correction);
    free(w->pressure_gradient);
    cg_workspace_free(&w->cg);
    free(c);
}

/* A point moving in a straight line from `from` at t_from to `to` at t_to, then staying. */
static void path_point(const double from[3], const double to[3], double t_from, double t_to, double t,
                       double pos[3], double vel[3])
{
    double span = t_to - t_from;
    if (!(span > 0.0) || t >= t_to) {
        for (int k = 0; k < 3; k++) pos[k] = to[k], vel[k] = 0.0;
        return;
    }
    double s = (t - t_from) / span;
    if (s < 0.0) s = 0.0;
    for (int k = 0; k < 3; k++) {
        pos[k] = from[k] + s * (to[k] - from[k]);
        vel[k] = (to[k] - from[k]) / span;
    }
}

void cloth_pin_state(const cloth *c, int32_t p, double t, double pos[3], double vel[3])
{
    const cloth_state *s = &c->state;
    path_point(&s->pin_from[3 * (size_t)p], &s->pin_to[3 * (size_t)p], s->pin_time_from, s->pin_time_to, t, pos, vel);
}

bool cloth_attach_pins(cloth *c, int32_t body, vec3 x, quat q, double t)
{
    size_t len = 3 * (size_t)c->model.pin_count;
    if (!c->model.pin_local && !(c->model.pin_local = malloc(len * sizeof *c->model.pin_local))) return false;
    mat3 r = q_to_m3(q);
    for (int32_t p = 0; p < c->model.pin_count; p++) {
        double pos[3], vel[3];
        cloth_pin_state(c, p, t, pos, vel);
        v3_store(&c->model.pin_local[3 * (size_t)p], m3_tmul_v(r, v3_sub(v3_load(pos), x))); /* Rᵀ (p - x) */
    }
    c->model.pin_body = body;
    return true;
}

void cloth_carry_pins(cloth *c, vec3 x0, quat q0, vec3 x1, quat q1, double t, double h)
{
    mat3 r0 = q_to_m3(q0), r1 = q_to_m3(q1);
    cloth_state *s = &c->state;
    for (int32_t p = 0; p < c->model.pin_count; p++) {
        size_t k = 3 * (size_t)p;
        vec3 local = v3_load(&c->model.pin_local[k]);
        v3_store(&s->pin_from[k], v3_add(m3_mul_v(r0, local), x0));
        v3_store(&s->pin_to[k], v3_add(m3_mul_v(r1, local), x1));
    }
    s->pin_time_from = t;
    s->pin_time_to = t + h;
}

void cloth_goal_motion(const cloth *c, int32_t p, double t0, double t1, double pos[3], double vel[3])
{
    const cloth_state *s = &c->state;
    const double *from = &s->goal_from[3 * (size_t)p], *to = &s->goal_to[3 * (size_t)p];
    path_point(from, to, s->goal_time_from, s->goal_time_to, t1, pos, vel);
    if (!(t1 > t0)) return;
    /* the mean over the step: exact for the path's piece the step crosses, whatever its kink */
    double start[3], ignored[3];
    path_point(from, to, s->goal_time_from, s->goal_time_to, t0, start, ignored);
    for (int k = 0; k < 3; k++) vel[k] = (pos[k] - start[k]) / (t1 - t0);
}

double cloth_kinetic_energy(const cloth *c, const double *v)
{
    double e = 0.0;
    for (int32_t i = 0; i < c->model.vertex_count; i++)
        e += 0.5 * c->model.mass[i] * v3_len2(v3_load(&v[3 * (size_t)i]));
    return e;
}
