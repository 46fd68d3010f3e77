#include "rigid_body.h"

#include <stdlib.h>
#include <string.h>

#include "api_error.h"
#include "rigid_compound.h"
#include "rigid_mass_properties.h"
#include "rigid_round_solid.h"

#define PI 3.14159265358979323846

static sb_result validate_def(const sb_body_def *d);

/* A compound's parts, each as the body of its shape would be. */
static sb_result validate_parts(const sb_body_def *d)
{
    if (d->part_count < 1 || d->part_count > COMPOUND_PARTS_MAX || !d->parts)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "a compound body needs 1..%d parts, got %d%s", COMPOUND_PARTS_MAX,
                         (int)d->part_count, d->part_count > 0 && !d->parts ? " and no array" : "");
    for (int32_t i = 0; i < d->part_count; i++) {
        sb_shape shape = d->parts[i].shape;
        if (shape != SB_SHAPE_SPHERE && shape != SB_SHAPE_BOX && shape != SB_SHAPE_CONVEX_HULL &&
            shape != SB_SHAPE_CAPSULE && shape != SB_SHAPE_CYLINDER && shape != SB_SHAPE_CONE)
            return error_set(SB_ERROR_INVALID_ARGUMENT, "compound part %d has shape %d: a part is a sphere, a box, "
                             "a convex hull, a capsule, a cylinder or a cone", (int)i, (int)shape);
        sb_body_def part = compound_part_def(d, i);
        sb_result r = validate_def(&part);
        if (r != SB_OK) return compound_part_error(r, i);
    }
    return SB_OK;
}

static sb_result validate_def(const sb_body_def *d)
{
    if (!d) return error_set(SB_ERROR_INVALID_ARGUMENT, "body definition is NULL");
    if (d->type < SB_BODY_DYNAMIC || d->type > SB_BODY_STATIC)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "unknown body type %d", (int)d->type);
    if (d->shape < SB_SHAPE_SPHERE || d->shape > SB_SHAPE_CONE)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "unknown shape %d", (int)d->shape);
    if (d->shape == SB_SHAPE_COMPOUND) {
        sb_result r = validate_parts(d);
        if (r != SB_OK) return r;
    }
    if (d->shape == SB_SHAPE_MESH && d->type == SB_BODY_DYNAMIC)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "a moving body cannot have a mesh shape: use a convex hull");
    if (d->vertex_count < 0 || d->triangle_count < 0 || (d->vertex_count > 0 && !d->vertices) ||
        (d->triangle_count > 0 && !d->triangles))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "body vertices or triangles are missing");
    if (d->vertex_count > MAX_MESH_COUNT || d->triangle_count > MAX_MESH_COUNT)
        return error_set(SB_ERROR_INVALID_MESH, "body mesh is too large");
    if (!all_finite(d->vertices, 3 * (size_t)d->vertex_count))
        return error_set(SB_ERROR_INVALID_MESH, "a body vertex has a non-finite coordinate");
    for (size_t i = 0; i < 3 * (size_t)d->triangle_count; i++)
        if (d->triangles[i] < 0 || d->triangles[i] >= d->vertex_count)
            return error_set(SB_ERROR_INVALID_MESH, "body triangle %d uses vertex %d, outside 0..%d", (int)(i / 3),
                             (int)d->triangles[i], (int)d->vertex_count - 1);
    if ((d->shape == SB_SHAPE_CONVEX_HULL && d->vertex_count < 4) || (d->shape == SB_SHAPE_MESH && d->triangle_count < 1))
        return error_set(SB_ERROR_INVALID_MESH, "the body's mesh is empty");
    if (!all_finite(d->center, 3) || !all_finite(d->half_extents, 3) || !all_finite(d->rotation, 4) ||
        !isfinite(d->radius))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "body centre, radius, half extents or rotation is not finite");
    double largest = fmax(fabs(d->radius), fmax(fmax(fabs(d->half_extents[0]), fabs(d->half_extents[1])),
                                                 fabs(d->half_extents[2])));
    for (int k = 0; k < 3; k++) largest = fmax(largest, fabs(d->center[k]));
    for (size_t i = 0; i < 3 * (size_t)d->vertex_count; i++) largest = fmax(largest, fabs(d->vertices[i]));
    if (largest > MAX_COORDINATE)
        return error_set(SB_ERROR_INVALID_MESH, "a body coordinate or size is %.3g m (limit %.0g m)", largest,
                         MAX_COORDINATE);
    if (!(d->rotation[0] * d->rotation[0] + d->rotation[1] * d->rotation[1] + d->rotation[2] * d->rotation[2] +
              d->rotation[3] * d->rotation[3] > 1e-12))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "body rotation must be a unit quaternion (w, x, y, z), got zero");
    if (d->shape == SB_SHAPE_SPHERE && !(d->radius > 0.0))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "sphere radius must be positive, got %g", d->radius);
    if (d->shape == SB_SHAPE_BOX && !(d->half_extents[0] > 0.0 && d->half_extents[1] > 0.0 && d->half_extents[2] > 0.0))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "box half extents must be positive");
    if (d->shape == SB_SHAPE_CAPSULE && !(d->radius > 0.0 && d->half_extents[2] >= 0.0))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "a capsule's radius must be positive and its half length "
                         "(half_extents[2]) zero or positive, got %g and %g", d->radius, d->half_extents[2]);
    if ((d->shape == SB_SHAPE_CYLINDER || d->shape == SB_SHAPE_CONE) && !(d->radius > 0.0 && d->half_extents[2] > 0.0))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "a %s's radius and half height (half_extents[2]) must be "
                         "positive, got %g and %g", d->shape == SB_SHAPE_CONE ? "cone" : "cylinder", d->radius,
                         d->half_extents[2]);
    if (d->type == SB_BODY_DYNAMIC && !(d->mass > 0.0 && isfinite(d->mass)))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "body mass must be positive, got %g", d->mass);
    if (!(d->friction >= 0.0 && isfinite(d->friction)))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "body friction must be zero or positive, got %g", d->friction);
    if (!(d->restitution >= 0.0 && d->restitution <= 1.0))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "body restitution must be within 0..1, got %g", d->restitution);
    if (!(d->linear_damping >= 0.0 && d->linear_damping <= 1.0 && d->angular_damping >= 0.0 && d->angular_damping <= 1.0))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "body damping must be within 0..1");
    if (d->feels_cloth != 0 && d->feels_cloth != 1)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "body feels_cloth must be 0 or 1, got %d", (int)d->feels_cloth);
    if (!all_finite(d->linear_velocity, 3) || !all_finite(d->angular_velocity, 3))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "body velocity is not finite");
    if (!(d->deactivate_linear_velocity >= 0.0 && isfinite(d->deactivate_linear_velocity) &&
          d->deactivate_angular_velocity >= 0.0 && isfinite(d->deactivate_angular_velocity)))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "body deactivation velocities must be zero or positive, got %g "
                         "m/s and %g rad/s", d->deactivate_linear_velocity, d->deactivate_angular_velocity);
    if (!(d->deactivate_time >= 0.0 && isfinite(d->deactivate_time)))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "body deactivate_time must be zero or positive, got %g s",
                         d->deactivate_time);
    return SB_OK;
}

/* Type and material, as the definition gives them. */
static void copy_material(const sb_body_def *d, rigid_body_model *m)
{
    m->type = d->type;
    m->friction = d->friction;
    m->restitution = d->restitution;
    m->linear_damping = d->linear_damping;
    m->angular_damping = d->angular_damping;
    m->collision_groups = d->collision_groups;
    m->use_deactivation = d->type == SB_BODY_DYNAMIC && d->use_deactivation != 0;
    m->sleep_linear = d->deactivate_linear_velocity;
    m->sleep_angular = d->deactivate_angular_velocity;
    m->sleep_time = d->deactivate_time;
    m->feels_cloth = d->feels_cloth;
}

static vec3 centroid(const double *v, int32_t n)
{
    vec3 c = v3(0, 0, 0);
    for (int32_t i = 0; i < n; i++) c = v3_add(c, v3_load(&v[3 * (size_t)i]));
    return n > 0 ? v3_scale(c, 1.0 / n) : c;
}

/* The shape in world space for now (the body frame is not known yet), and its centre. */
static sb_result build_shape(const sb_body_def *d, rigid_body_model *m, vec3 *center)
{
    switch (d->shape) {
    case SB_SHAPE_SPHERE:
        m->shape = SHAPE_SPHERE;
        m->radius = d->radius;
        *center = v3_load(d->center);
        return SB_OK;
    case SB_SHAPE_BOX: {
        m->shape = SHAPE_POLYTOPE;
        if (!polytope_box(v3_load(d->half_extents), &m->hull))
            return error_set(SB_ERROR_OUT_OF_MEMORY, "out of memory");
        quat q = q_normalize((quat){d->rotation[0], d->rotation[1], d->rotation[2], d->rotation[3]});
        *center = v3_load(d->center);
        polytope_transform(&m->hull, q_to_m3(q), *center);
        return SB_OK;
    }
    case SB_SHAPE_CONVEX_HULL: {
        m->shape = SHAPE_POLYTOPE;
        vec3 *points = malloc((size_t)d->vertex_count * sizeof *points);
        if (!points) return error_set(SB_ERROR_OUT_OF_MEMORY, "out of memory");
        for (int32_t i = 0; i < d->vertex_count; i++) points[i] = v3_load(&d->vertices[3 * (size_t)i]);
        bool ok = polytope_from_points(points, d->vertex_count, &m->hull);
        free(points);
        if (!ok) return error_set(SB_ERROR_INVALID_MESH, "the body's vertices span no volume: no convex hull");
        *center = centroid(d->vertices, d->vertex_count);
        return SB_OK;
    }
    case SB_SHAPE_CAPSULE: { /* its segment along its own z axis */
        m->shape = SHAPE_CAPSULE;
        m->radius = m->segment_radius = d->radius;
        quat q = q_normalize((quat){d->rotation[0], d->rotation[1], d->rotation[2], d->rotation[3]});
        vec3 half = v3_scale(m3_mul_v(q_to_m3(q), v3(0, 0, 1)), d->half_extents[2]);
        *center = v3_load(d->center);
        m->segment[0] = v3_sub(*center, half), m->segment[1] = v3_add(*center, half);
        return SB_OK;
    }
    case SB_SHAPE_CYLINDER:
    case SB_SHAPE_CONE: { /* along its own z axis: base at -half, top or apex at +half */
        bool cone = d->shape == SB_SHAPE_CONE;
        m->shape = cone ? SHAPE_CONE : SHAPE_CYLINDER;
        m->segment_radius = d->radius;
        quat q = q_normalize((quat){d->rotation[0], d->rotation[1], d->rotation[2], d->rotation[3]});
        vec3 half = v3_scale(m3_mul_v(q_to_m3(q), v3(0, 0, 1)), d->half_extents[2]);
        *center = v3_load(d->center);
        m->segment[0] = v3_sub(*center, half), m->segment[1] = v3_add(*center, half);
        if (!rigid_round_solid_proxy(cone, m->segment[0], m->segment[1], d->radius, &m->hull))
            return error_set(SB_ERROR_OUT_OF_MEMORY, "out of memory");
        return SB_OK;
    }
    case SB_SHAPE_COMPOUND:
        return compound_build(d, m, center, build_shape);
    default:
        m->shape = SHAPE_MESH;
        *center = centroid(d->vertices, d->vertex_count);
        return SB_OK;
    }
}

static bool solid_properties(const sb_body_def *d, const rigid_body_model *m, mass_properties *mp);

/* A compound's parts' solids together. */
static bool compound_properties(const sb_body_def *d, const rigid_body_model *m, mass_properties *mp)
{
    mass_properties *parts = malloc((size_t)m->part_count * sizeof *parts);
    bool ok = parts != NULL;
    for (int32_t i = 0; ok && i < m->part_count; i++) {
        sb_body_def part = compound_part_def(d, i);
        const rigid_part *p = &m->parts[i];
        rigid_body_model alone = {.hull = p->hull, .segment = {p->segment[0], p->segment[1]}, .segment_radius = p->radius};
        ok = solid_properties(&part, &alone, &parts[i]);
    }
    ok = ok && mass_properties_combine(parts, m->part_count, mp);
    free(parts);
    return ok;
}

/* Mass properties of the body's solid per unit density, in world space. */
static bool solid_properties(const sb_body_def *d, const rigid_body_model *m, mass_properties *mp)
{
    if (d->shape == SB_SHAPE_COMPOUND) return compound_properties(d, m, mp);
    if (d->shape == SB_SHAPE_CAPSULE) {
        capsule_mass_properties(m->segment[0], m->segment[1], m->segment_radius, mp);
        return true;
    }
    if (d->shape == SB_SHAPE_CYLINDER || d->shape == SB_SHAPE_CONE) {
        round_solid_mass_properties(d->shape == SB_SHAPE_CONE, m->segment[0], m->segment[1], m->segment_radius, mp);
        return true;
    }
    if (d->shape == SB_SHAPE_SPHERE) {
        double r = d->radius;
        mp->volume = 4.0 / 3.0 * PI * r * r * r;
        mp->center = v3_load(d->center);
        mp->inertia = m3_scale(m3_identity(), 0.4 * mp->volume * r * r);
        return true;
    }
    /* a hull over a closed mesh: the mesh is the real solid */
    if (d->shape == SB_SHAPE_CONVEX_HULL && d->triangle_count > 0 &&
        mesh_is_closed(d->triangles, d->triangle_count, d->vertex_count) &&
        mesh_mass_properties(d->vertices, d->vertex_count, d->triangles, d->triangle_count, mp))
        return true;
    int32_t *tris, count;
    if (!polytope_triangles(&m->hull, &tris, &count)) return false;
    double *flat = malloc(3 * (size_t)m->hull.vertex_count * sizeof *flat);
    bool ok = flat != NULL;
    if (ok) {
        for (int32_t v = 0; v < m->hull.vertex_count; v++) v3_store(&flat[3 * (size_t)v], m->hull.vertices[v]);
        ok = mesh_mass_properties(flat, m->hull.vertex_count, tris, count, mp);
    }
    free(flat);
    free(tris);
    return ok;
}

/* The body frame, *center and *axes: a moving body's principal axes at its centre of mass,
 * with its mass and principal moments (its solid at the density its mass gives); any other
 * body keeps the shape's centre and world axes. */
static sb_result mass_properties_and_frame(const sb_body_def *d, rigid_body_model *m, vec3 *center, mat3 *axes)
{
    *axes = m3_identity();
    if (d->type != SB_BODY_DYNAMIC) return SB_OK;
    mass_properties mp;
    if (!solid_properties(d, m, &mp)) return error_set(SB_ERROR_INVALID_MESH, "the body's shape has no volume");
    double density = d->mass / mp.volume;
    vec3 moments;
    if (!principal_axes(m3_scale(mp.inertia, density), &moments, axes))
        return error_set(SB_ERROR_SOLVER, "no principal axes of inertia");
    m->mass = d->mass;
    m->inv_mass = 1.0 / d->mass;
    /* a thin body's smallest moment must stay positive for the inverse */
    double floor_moment = 1e-12 * fmax(moments.z, 1e-300);
    m->inertia = v3(fmax(moments.x, floor_moment), fmax(moments.y, floor_moment), fmax(moments.z, floor_moment));
    m->inv_inertia = v3(1.0 / m->inertia.x, 1.0 / m->inertia.y, 1.0 / m->inertia.z);
    *center = mp.center;
    return SB_OK;
}

/* A mesh's vertices moved into the body frame (p_b = rt p + shift), its triangles, their
 * boxes and the tree over them. */
static sb_result build_mesh(const sb_body_def *d, rigid_body_model *m, mat3 rt, vec3 shift)
{
    m->mesh_vertex_count = d->vertex_count, m->mesh_triangle_count = d->triangle_count;
    m->mesh_vertices = malloc(3 * (size_t)d->vertex_count * sizeof *m->mesh_vertices);
    m->mesh_triangles = malloc(3 * (size_t)d->triangle_count * sizeof *m->mesh_triangles);
    m->mesh_boxes = malloc((size_t)d->triangle_count * sizeof *m->mesh_boxes);
    if (!m->mesh_vertices || !m->mesh_triangles || !m->mesh_boxes)
        return error_set(SB_ERROR_OUT_OF_MEMORY, "out of memory");
    memcpy(m->mesh_triangles, d->triangles, 3 * (size_t)d->triangle_count * sizeof *m->mesh_triangles);
    for (int32_t i = 0; i < d->vertex_count; i++) {
        vec3 p = v3_add(m3_mul_v(rt, v3_load(&d->vertices[3 * (size_t)i])), shift);
        v3_store(&m->mesh_vertices[3 * (size_t)i], p);
        m->radius = fmax(m->radius, v3_len(p));
    }
    for (int32_t t = 0; t < d->triangle_count; t++) {
        aabb box = aabb_empty();
        const int32_t *corners = &m->mesh_triangles[3 * t];
        for (int k = 0; k < 3; k++) box = aabb_add_point(box, v3_load(&m->mesh_vertices[3 * (size_t)corners[k]]));
        m->mesh_boxes[t] = box;
    }
    if (!bvh_build(&m->mesh_tree, m->mesh_boxes, d->triangle_count))
        return error_set(SB_ERROR_OUT_OF_MEMORY, "out of memory");
    return SB_OK;
}

/* The shape from world space into the body frame at pose (x, q): p_b = Rᵀ (p - x). */
static sb_result shape_to_body_frame(const sb_body_def *d, rigid_body_model *m, vec3 x, quat q)
{
    mat3 rt = m3_transpose(q_to_m3(q));
    vec3 shift = v3_scale(m3_mul_v(rt, x), -1.0);
    if (m->shape == SHAPE_POLYTOPE || m->shape == SHAPE_CYLINDER || m->shape == SHAPE_CONE) {
        polytope_transform(&m->hull, rt, shift);
        m->radius = m->hull.radius;
        for (int k = 0; m->shape != SHAPE_POLYTOPE && k < 2; k++) m->segment[k] = v3_add(m3_mul_v(rt, m->segment[k]), shift);
    } else if (m->shape == SHAPE_MESH) {
        return build_mesh(d, m, rt, shift);
    } else if (m->shape == SHAPE_COMPOUND) {
        compound_to_body_frame(m, rt, shift);
    } else if (m->shape == SHAPE_CAPSULE) {
        for (int k = 0; k < 2; k++) m->segment[k] = v3_add(m3_mul_v(rt, m->segment[k]), shift);
        m->radius = fmax(v3_len(m->segment[0]), v3_len(m->segment[1])) + m->segment_radius;
    }
    return SB_OK;
}

/* The state at `time`: at the starting pose, a kinematic path that stays there, and a moving
 * body's momenta from the definition's velocities. */
static void initial_state(const sb_body_def *d, rigid_body *b, double time)
{
    rigid_body_state *s = &b->state;
    s->x = s->x_from = s->x_to = b->model.x_start;
    s->q = s->q_from = s->q_to = b->model.q_start;
    s->time_from = s->time_to = time;
    /* asleep from the start: a group of its own until something wakes it */
    s->sleep_group = b->model.use_deactivation && d->start_deactivated ? 0 : SLEEP_AWAKE; /* its index: the system's */
    rigid_body_update_derived(b);
    if (b->model.type == SB_BODY_DYNAMIC && s->sleep_group == SLEEP_AWAKE) {
        s->P = v3_scale(v3_load(d->linear_velocity), b->model.mass);
        s->L = rigid_body_angular_momentum(b, v3_load(d->angular_velocity));
        rigid_body_update_derived(b);
    }
}

sb_result rigid_body_create(const sb_body_def *d, double time, rigid_body **out)
{
    *out = NULL;
    sb_result r = validate_def(d);
    if (r != SB_OK) return r;
    rigid_body *b = calloc(1, sizeof *b);
    if (!b) return error_set(SB_ERROR_OUT_OF_MEMORY, "out of memory adding a body");
    rigid_body_model *m = &b->model;
    copy_material(d, m);
    vec3 center;
    mat3 axes;
    r = build_shape(d, m, &center);
    if (r == SB_OK) r = mass_properties_and_frame(d, m, &center, &axes);
    if (r == SB_OK) { /* the body frame is where the body starts */
        m->x_start = center, m->q_start = m3_to_q(axes);
        r = shape_to_body_frame(d, m, m->x_start, m->q_start);
    }
    if (r != SB_OK) {
        rigid_body_destroy(b);
        return r;
    }
    initial_state(d, b, time);
    *out = b;
    return SB_OK;
}

void rigid_body_destroy(rigid_body *b)
{
    if (!b) return;
    polytope_free(&b->model.hull);
    free(b->model.mesh_vertices), free(b->model.mesh_triangles), free(b->model.mesh_boxes);
    bvh_free(&b->model.mesh_tree);
    compound_free(&b->model);
    free(b);
}

/* R (d ⊙ Rᵀ v): a diagonal body-frame tensor d applied in world space */
static vec3 world_diagonal_times(mat3 r, vec3 d, vec3 v)
{
    vec3 local = m3_tmul_v(r, v);
    return m3_mul_v(r, v3(d.x * local.x, d.y * local.y, d.z * local.z));
}

static mat3 world_inverse_inertia(const rigid_body_model *m, mat3 r)
{
    mat3 d = {{{m->inv_inertia.x, 0, 0}, {0, m->inv_inertia.y, 0}, {0, 0, m->inv_inertia.z}}};
    return m3_mul(m3_mul(r, d), m3_transpose(r));
}

void rigid_body_update_derived(rigid_body *b)
{
    const rigid_body_model *m = &b->model;
    rigid_body_state *s = &b->state;
    s->q = q_normalize(s->q);
    s->R = q_to_m3(s->q);
    s->inv_inertia_world = world_inverse_inertia(m, s->R);
    if (m->type == SB_BODY_DYNAMIC) {
        s->v = v3_scale(s->P, m->inv_mass);
        s->w = world_diagonal_times(s->R, m->inv_inertia, s->L);
    }
}

vec3 rigid_body_angular_velocity(const rigid_body *b, quat q)
{
    return world_diagonal_times(q_to_m3(q), b->model.inv_inertia, b->state.L);
}

vec3 rigid_body_angular_momentum(const rigid_body *b, vec3 w)
{
    return world_diagonal_times(b->state.R, b->model.inertia, w);
}

/* q̇ = ½ (0, ω) q */
static quat q_rate(quat q, vec3 w)
{
    quat d = q_mul((quat){0.0, w.x, w.y, w.z}, q);
    return (quat){0.5 * d.w, 0.5 * d.x, 0.5 * d.y, 0.5 * d.z};
}

static quat q_add_scaled(quat q, quat d, double s)
{
    return (quat){q.w + s * d.w, q.x + s * d.x, q.y + s * d.y, q.z + s * d.z};
}

quat rigid_body_turn(const rigid_body *b, quat q, double h)
{
    quat k1 = q_rate(q, rigid_body_angular_velocity(b, q));
    quat q2 = q_normalize(q_add_scaled(q, k1, 0.5 * h));
    quat k2 = q_rate(q2, rigid_body_angular_velocity(b, q2));
    quat q3 = q_normalize(q_add_scaled(q, k2, 0.5 * h));
    quat k3 = q_rate(q3, rigid_body_angular_velocity(b, q3));
    quat q4 = q_normalize(q_add_scaled(q, k3, h));
    quat k4 = q_rate(q4, rigid_body_angular_velocity(b, q4));
    quat sum = {k1.w + 2 * k2.w + 2 * k3.w + k4.w, k1.x + 2 * k2.x + 2 * k3.x + k4.x,
                k1.y + 2 * k2.y + 2 * k3.y + k4.y, k1.z + 2 * k2.z + 2 * k3.z + k4.z};
    return q_normalize(q_add_scaled(q, sum, h / 6.0));
}

/* Spherical interpolation along the shorter arc. */
static quat q_slerp(quat a, quat b, double s)
{
    double dot = a.w * b.w + a.x * b.x + a.y * b.y + a.z * b.z;
    if (dot < 0.0) b = (quat){-b.w, -b.x, -b.y, -b.z}, dot = -dot;
    if (dot > 0.9999995) return q_normalize(q_add_scaled(a, q_add_scaled(b, a, -1.0), s));
    double angle = acos(fmin(dot, 1.0)), sa = sin(angle);
    double wa = sin((1.0 - s) * angle) / sa, wb = sin(s * angle) / sa;
    return q_normalize((quat){wa * a.w + wb * b.w, wa * a.x + wb * b.x, wa * a.y + wb * b.y, wa * a.z + wb * b.z});
}

void rigid_body_kinematic_pose(const rigid_body *b, double t, vec3 *x, quat *q)
{
    const rigid_body_state *path = &b->state;
    double span = path->time_to - path->time_from;
    double s = !(span > 0.0) || t >= path->time_to ? 1.0 : (t <= path->time_from ? 0.0 : (t - path->time_from) / span);
    *x = v3_add(path->x_from, v3_scale(v3_sub(path->x_to, path->x_from), s));
    *q = q_slerp(path->q_from, path->q_to, s);
}

aabb rigid_body_bounds(const rigid_body *b, double margin)
{
    const rigid_body_model *m = &b->model;
    const rigid_body_state *s = &b->state;
    aabb box = aabb_empty();
    if (m->shape == SHAPE_POLYTOPE || m->shape == SHAPE_CYLINDER || m->shape == SHAPE_CONE) {
        for (int32_t i = 0; i < m->hull.vertex_count; i++)
            box = aabb_add_point(box, v3_add(s->x, m3_mul_v(s->R, m->hull.vertices[i])));
    } else if (m->shape == SHAPE_CAPSULE) {
        for (int k = 0; k < 2; k++) box = aabb_add_point(box, v3_add(s->x, m3_mul_v(s->R, m->segment[k])));
        box = aabb_inflate(box, m->segment_radius);
    } else if (m->shape == SHAPE_COMPOUND) {
        for (int32_t i = 0; i < m->part_count; i++) box = aabb_union(box, compound_part_bounds(&m->parts[i], s->x, s->R));
    } else if (m->shape == SHAPE_MESH && m->mesh_tree.node_count > 0) {
        const aabb *root = &m->mesh_tree.nodes[0].box;
        for (int i = 0; i < 8; i++) {
            vec3 corner = v3(i & 1 ? root->hi.x : root->lo.x, i & 2 ? root->hi.y : root->lo.y, i & 4 ? root->hi.z : root->lo.z);
            box = aabb_add_point(box, v3_add(s->x, m3_mul_v(s->R, corner)));
        }
    } else {
        box = aabb_inflate(aabb_add_point(box, s->x), m->radius);
    }
    return aabb_inflate(box, margin);
}
