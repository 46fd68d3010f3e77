#include "cloth.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"

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
    struct { const char *name; double value; bool positive; } params[] = {
        {"density", d->density, true},
        {"stretch_stiffness", d->stretch_stiffness, false},
        {"shear_stiffness", d->shear_stiffness, false},
        {"bend_stiffness", d->bend_stiffness, false},
        {"damping", d->damping, false},
        {"air_drag", d->air_drag, false},
        {"thickness", d->thickness, false},
        {"self_thickness", d->self_thickness, false},
        {"friction", d->friction, false},
    };
    for (size_t i = 0; i < sizeof params / sizeof params[0]; i++) {
        double v = params[i].value;
        if (!isfinite(v) || v < 0.0 || (params[i].positive && v == 0.0))
            return error_set(SB_ERROR_INVALID_ARGUMENT, "cloth %s must be %s, got %g",
                             params[i].name, params[i].positive ? "positive" : "zero or positive", v);
    }
    if (d->pin_count < 0 || (d->pin_count > 0 && !d->pins))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "pin_count is %d but pins is %s",
                         (int)d->pin_count, d->pins ? "set" : "NULL");
    for (int32_t p = 0; p < d->pin_count; p++)
        if (d->pins[p] < 0 || d->pins[p] >= d->vertex_count)
            return error_set(SB_ERROR_INVALID_ARGUMENT, "pin %d names vertex %d, outside 0..%d",
                             (int)p, (int)d->pins[p], (int)d->vertex_count - 1);
    return SB_OK;
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

/* Hinges on every edge shared by exactly two triangles; edges with more are counted as
 * non-manifold and not bent. */
static bool build_hinges(cloth *c)
{
    const topology *t = &c->model.topo;
    c->model.hinges = malloc(((size_t)t->edge_count + 1) * 4 * sizeof *c->model.hinges);
    c->model.hinge_weight = malloc(((size_t)t->edge_count + 1) * sizeof *c->model.hinge_weight);
    c->model.hinge_rest_angle = malloc(((size_t)t->edge_count + 1) * sizeof *c->model.hinge_rest_angle);
    if (!c->model.hinges || !c->model.hinge_weight || !c->model.hinge_rest_angle) return false;
    int32_t hinges = 0, nonmanifold = 0;
    for (int32_t e = 0; e < t->edge_count; e++) {
        if (t->edge_face_count[e] > 2) nonmanifold++;
        if (t->edge_face_count[e] != 2) continue;
        int32_t *h = &c->model.hinges[4 * (size_t)hinges];
        h[0] = t->edges[2 * e], h[1] = t->edges[2 * e + 1];
        for (int side = 0; side < 2; side++) { /* the wing vertex opposite the edge */
            int32_t tri = t->edge_triangles[2 * e + side];
            for (int k = 0; k < 3; k++)
                if (t->triangle_edges[3 * tri + k] == e) h[2 + side] = c->model.triangles[3 * tri + (k + 2) % 3];
        }
        if (h[2] == h[3]) continue; /* the same triangle twice */
        vec3 x[4];
        for (int k = 0; k < 4; k++) x[k] = v3_load(&c->state.x[3 * (size_t)h[k]]);
        double angle;
        if (!dihedral_angle(x, &angle)) continue;
        double area = c->model.rest[t->edge_triangles[2 * e]].area + c->model.rest[t->edge_triangles[2 * e + 1]].area;
        c->model.hinge_weight[hinges] = 3.0 * v3_len2(v3_sub(x[1], x[0])) / area;
        c->model.hinge_rest_angle[hinges] = angle;
        hinges++;
    }
    c->model.hinge_count = hinges;
    c->model.info.bend_edges = hinges;
    c->model.info.nonmanifold_edges = nonmanifold;
    return true;
}

/* Elements are assembled ASSEMBLY_GROUP consecutive ones at a time, which keeps a region of
 * the matrix in cache (colouring.h). A mesh numbered without locality has groups that meet
 * too many others for few colours: it is coloured element by element instead. */
enum { ASSEMBLY_GROUP = 256, GROUPED_COLOURS_MAX = 16 };

static bool colour_elements(colouring *out, const int32_t *elements, int32_t count, int32_t per, int32_t vertices)
{
    if (!colouring_build(out, elements, count, per, vertices, ASSEMBLY_GROUP)) return false;
    if (!out->last_serial && out->colour_count <= GROUPED_COLOURS_MAX) return true;
    colouring_free(out);
    return colouring_build(out, elements, count, per, vertices, 1);
}

static bool build_solver(cloth *c, const double gravity[3])
{
    bsr_elements sets[2] = {{c->model.triangles, c->model.triangle_count, 3}, {c->model.hinges, c->model.hinge_count, 4}};
    if (!bsr_build_pattern(&c->scratch.system, c->model.vertex_count, sets, 2)) return false;
    if (!bsr_element_table(&c->scratch.system, c->model.triangles, c->model.triangle_count, 3, &c->model.triangle_blocks))
        return false;
    if (!bsr_element_table(&c->scratch.system, c->model.hinges, c->model.hinge_count, 4, &c->model.hinge_blocks))
        return false;
    if (!colour_elements(&c->model.triangle_colours, c->model.triangles, c->model.triangle_count, 3, c->model.vertex_count) ||
        !colour_elements(&c->model.hinge_colours, c->model.hinges, c->model.hinge_count, 4, c->model.vertex_count))
        return false;
    size_t len = 3 * (size_t)c->model.vertex_count;
    double **vectors[] = {&c->scratch.force, &c->scratch.rhs, &c->scratch.dv, &c->scratch.z, &c->scratch.x_new, &c->scratch.v_new, &c->scratch.correction,
                          &c->state.accel, &c->scratch.target_velocity, &c->scratch.target_offset, &c->scratch.external_force};
    for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++)
        if (!(*vectors[i] = calloc(len, sizeof(double)))) return false;
    c->scratch.filter_proj = calloc(3 * len, sizeof *c->scratch.filter_proj);
    c->state.contacts = malloc((size_t)c->model.vertex_count * sizeof *c->state.contacts);
    c->scratch.contacts_start = malloc((size_t)c->model.vertex_count * sizeof *c->scratch.contacts_start);
    c->scratch.boxes = malloc(((size_t)c->model.triangle_count + 1) * sizeof *c->scratch.boxes);
    if (!c->scratch.filter_proj || !c->state.contacts || !c->scratch.contacts_start || !c->scratch.boxes) return false;
    for (int32_t i = 0; i < c->model.vertex_count; i++) c->state.contacts[i] = (vertex_contact){.collider = -1};
    /* before the first step the best guess of the acceleration is free fall */
    for (size_t k = 0; k < len; k++) c->state.accel[k] = gravity[k % 3];
    c->state.cg = CG_HISTORY_START;
    return cg_workspace_init(&c->scratch.cg, c->model.vertex_count);
}

static sb_result out_of_memory(cloth *c)
{
    cloth_destroy(c);
    return error_set(SB_ERROR_OUT_OF_MEMORY, "out of memory while building the cloth");
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
    if (!c) return error_set(SB_ERROR_OUT_OF_MEMORY, "out of memory while building the cloth");
    int32_t nv = def->vertex_count;
    size_t len = 3 * (size_t)nv;
    c->model.vertex_count = nv;
    c->state.x = malloc(len * sizeof *c->state.x);
    c->model.rest_positions = malloc(len * sizeof *c->model.rest_positions);
    c->state.v = calloc(len, sizeof *c->state.v);
    c->model.mass = calloc((size_t)nv, sizeof *c->model.mass);
    c->model.vertex_area = calloc((size_t)nv, sizeof *c->model.vertex_area);
    c->model.triangles = malloc(3 * (size_t)def->triangle_count * sizeof *c->model.triangles);
    c->model.rest = malloc((size_t)def->triangle_count * sizeof *c->model.rest);
    c->scratch.filter_kind = calloc((size_t)nv, sizeof *c->scratch.filter_kind);
    c->model.pinned = calloc((size_t)nv, sizeof *c->model.pinned);
    c->state.collided = calloc((size_t)nv, sizeof *c->state.collided);
    if (!c->state.x || !c->model.rest_positions || !c->state.v || !c->model.mass || !c->model.vertex_area || !c->model.triangles || !c->model.rest || !c->scratch.filter_kind || !c->model.pinned || !c->state.collided)
        return out_of_memory(c);
    memcpy(c->state.x, def->positions, len * sizeof *c->state.x);
    memcpy(c->model.rest_positions, def->positions, len * sizeof *c->model.rest_positions);
    c->model.material = (cloth_material){def->stretch_stiffness, def->shear_stiffness, def->bend_stiffness,
                                   def->damping, def->air_drag};
    c->model.thickness = def->thickness;
    c->model.self_thickness = def->self_thickness > 0.0 ? def->self_thickness : def->thickness;
    c->model.friction = def->friction;
    c->model.self_collision = def->self_collision != 0;
    c->model.info.vertex_count = nv;
    c->model.info.triangle_count = def->triangle_count;

    /* rest frames; zero-area triangles are left out */
    int32_t kept = 0;
    for (int32_t t = 0; t < def->triangle_count; t++) {
        const int32_t *tri = &def->triangles[3 * (size_t)t];
        vec3 p[3];
        for (int k = 0; k < 3; k++) p[k] = v3_load(&def->positions[3 * (size_t)tri[k]]);
        bool distinct = tri[0] != tri[1] && tri[1] != tri[2] && tri[0] != tri[2];
        if (!distinct || !triangle_rest_frame(p, def->uvs ? &def->uvs[6 * (size_t)t] : NULL, &c->model.rest[kept])) {
            c->model.info.degenerate_triangles++;
            continue;
        }
        memcpy(&c->model.triangles[3 * (size_t)kept], tri, 3 * sizeof *tri);
        double third = c->model.rest[kept].area / 3.0;
        for (int k = 0; k < 3; k++) {
            c->model.vertex_area[tri[k]] += third;
            c->model.mass[tri[k]] += def->density * third;
        }
        c->model.info.rest_area += c->model.rest[kept].area;
        kept++;
    }
    c->model.triangle_count = kept;
    if (kept == 0) {
        cloth_destroy(c);
        return error_set(SB_ERROR_INVALID_MESH, "no triangle of the cloth has any area (%d degenerate)",
                         (int)def->triangle_count);
    }
    /* loose vertices (in no triangle with area) fall as particles of average vertex mass */
    double mean_mass = def->density * c->model.info.rest_area / nv;
    for (int32_t i = 0; i < nv; i++) {
        if (c->model.mass[i] <= 0.0) c->model.mass[i] = mean_mass;
        c->model.info.total_mass += c->model.mass[i];
    }
    if (!topology_build(&c->model.topo, c->model.triangles, c->model.triangle_count, nv) || !build_hinges(c))
        return out_of_memory(c);
    if (c->model.self_collision && !rest_neighbours_build(&c->model.near_at_rest, c->model.rest_positions, &c->model.topo, 3.0 * c->model.self_thickness))
        return out_of_memory(c);

    c->model.pin_count = def->pin_count;
    size_t pin_len = 3 * (size_t)def->pin_count + 1;
    c->model.pins = malloc(((size_t)def->pin_count + 1) * sizeof *c->model.pins);
    c->state.pin_from = malloc(pin_len * sizeof *c->state.pin_from);
    c->state.pin_to = malloc(pin_len * sizeof *c->state.pin_to);
    if (!c->model.pins || !c->state.pin_from || !c->state.pin_to) return out_of_memory(c);
    for (int32_t p = 0; p < def->pin_count; p++) {
        c->model.pins[p] = def->pins[p];
        c->model.pinned[def->pins[p]] = 1;
        memcpy(&c->state.pin_from[3 * (size_t)p], &c->state.x[3 * (size_t)def->pins[p]], 3 * sizeof(double));
        memcpy(&c->state.pin_to[3 * (size_t)p], &c->state.x[3 * (size_t)def->pins[p]], 3 * sizeof(double));
    }
    c->state.pin_time_from = c->state.pin_time_to = time;
    if (!build_solver(c, gravity)) return out_of_memory(c);
    *out = c;
    return SB_OK;
}

void cloth_destroy(cloth *c)
{
    if (!c) return;
    free(c->state.x), free(c->model.rest_positions), free(c->state.v), free(c->model.mass), free(c->model.vertex_area);
    free(c->model.triangles), free(c->model.rest);
    free(c->model.hinges), free(c->model.hinge_weight), free(c->model.hinge_rest_angle);
    free(c->model.pins), free(c->state.pin_from), free(c->state.pin_to), free(c->scratch.filter_kind);
    bsr_free(&c->scratch.system);
    free(c->model.triangle_blocks), free(c->model.hinge_blocks);
    colouring_free(&c->model.triangle_colours), colouring_free(&c->model.hinge_colours);
    free(c->scratch.force), free(c->scratch.rhs), free(c->scratch.dv), free(c->scratch.z), free(c->scratch.x_new), free(c->scratch.v_new);
    free(c->scratch.correction), free(c->state.accel);
    free(c->model.pinned), free(c->state.collided), free(c->scratch.filter_proj), free(c->scratch.target_velocity), free(c->scratch.target_offset);
    free(c->scratch.external_force), free(c->state.contacts), free(c->scratch.contacts_start), free(c->scratch.boxes);
    topology_free(&c->model.topo);
    rest_neighbours_free(&c->model.near_at_rest);
    bvh_free(&c->scratch.tree);
    cg_workspace_free(&c->scratch.cg);
    free(c);
}

void cloth_pin_state(const cloth *c, int32_t p, double t, double pos[3], double vel[3])
{
    const double *from = &c->state.pin_from[3 * (size_t)p], *to = &c->state.pin_to[3 * (size_t)p];
    double span = c->state.pin_time_to - c->state.pin_time_from;
    if (!(span > 0.0) || t >= c->state.pin_time_to) {
        for (int k = 0; k < 3; k++) pos[k] = to[k], vel[k] = 0.0;
        return;
    }
    double s = (t - c->state.pin_time_from) / span;
    if (s < 0.0) s = 0.0;
    for (int k = 0; k < 3; k++) {
        pos[k] = from[k] + s * (to[k] - from[k]);
        vel[k] = (to[k] - from[k]) / span;
    }
}

double cloth_kinetic_energy(const cloth *c, const double *v)
{
    double e = 0.0;
    for (int32_t i = 0; i < c->model.vertex_count; i++)
        e += 0.5 * c->model.mass[i] * v3_len2(v3_load(&v[3 * (size_t)i]));
    return e;
}
