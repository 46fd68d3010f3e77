/* Public API: world creation, cloths, read-back. Every entry point validates first. */
#include "world.h"

#include <stdlib.h>
#include <string.h>

#include "api_error.h"
#include "cloth_springs.h"
#include "collision_scratch.h"
#include "grow.h"
#include "rigid_mass_properties.h"
#include "rigid_sleep.h"
#include "strands.h"
#include "threads.h"

SB_API sb_world_def sb_default_world_def(void)
{
    return (sb_world_def){
        .gravity = {0.0, 0.0, -9.81},
        .integrator = SB_INTEGRATOR_IMPLICIT_EULER,
        .max_step = 1.0 / 24.0,
        .min_step = 1e-6,
        .grow_after = 4,
        .max_strain_change = 0.25,
        .cg_tolerance = 1e-3,
        .cg_max_iterations = 1000,
        .error_tolerance = 1e-4,
        .rigid_max_step = 1.0 / 240.0,
        .rigid_iterations = 10,
        .contact_margin = 0.005,
        .max_speed = 1000.0,
        .threads = 0,
        .rigid_time_scale = 1.0,
    };
}

SB_API sb_cloth_def sb_default_cloth_def(void)
{
    return (sb_cloth_def){
        .density = 0.15,
        .stretch_stiffness = 2000.0,
        .compression_stiffness = -1.0,
        .gravity_scale = 1.0,
        .spring_tension_stiffness = 1000.0,
        .spring_compression_stiffness = -1.0,
        .internal_spring_max_diversion = SPRING_PI / 4.0,
        .internal_tension_stiffness = 1000.0,
        .internal_compression_stiffness = 1000.0,
        .shear_stiffness = 200.0,
        .bend_stiffness = 1e-5,
        .damping = 0.01,
        .air_drag = 0.1,
        .thickness = 0.005,
        .friction = 0.5,
        .self_collision = 0,
        .self_friction = -1.0,
        .max_stretch = 0.1,
        .max_compression = 0.1,
    };
}

SB_API sb_body_def sb_default_body_def(void)
{
    return (sb_body_def){.type = SB_BODY_DYNAMIC, .shape = SB_SHAPE_CONVEX_HULL, .rotation = {1, 0, 0, 0},
                         .mass = 1.0, .friction = 0.5, .restitution = 0.0, .collision_groups = 1u,
                         .deactivate_linear_velocity = 0.4, .deactivate_angular_velocity = 0.5,
                         .deactivate_time = 2.0};
}

SB_API sb_body_part sb_default_body_part(void)
{
    return (sb_body_part){.shape = SB_SHAPE_BOX, .rotation = {1, 0, 0, 0}};
}

SB_API sb_collider_def sb_default_collider_def(void)
{
    return (sb_collider_def){.thickness = 0.002, .friction = 1.0};
}

static sb_result validate_world_def(const sb_world_def *d)
{
    if (!d) return error_set(SB_ERROR_INVALID_ARGUMENT, "world definition is NULL");
    for (int k = 0; k < 3; k++)
        if (!isfinite(d->gravity[k]))
            return error_set(SB_ERROR_INVALID_ARGUMENT, "gravity has a non-finite component");
    /* an enum field holds whatever int32 a binding wrote there */
    int32_t integrator = (int32_t)d->integrator;
    if (integrator < SB_INTEGRATOR_IMPLICIT_EULER || integrator > SB_INTEGRATOR_RK4)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "unknown integrator %d", (int)integrator);
    if (!(d->max_step > 0.0) || !isfinite(d->max_step))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "max_step must be positive, got %g", d->max_step);
    if (!(d->min_step > 0.0) || !(d->min_step <= d->max_step))
        return error_set(SB_ERROR_INVALID_ARGUMENT,
                         "min_step must be positive and at most max_step (%g), got %g",
                         d->max_step, d->min_step);
    if (d->grow_after < 1)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "grow_after must be at least 1, got %d",
                         (int)d->grow_after);
    if (!(d->max_strain_change > 0.0) || !isfinite(d->max_strain_change))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "max_strain_change must be positive, got %g",
                         d->max_strain_change);
    if (!(d->cg_tolerance > 0.0 && d->cg_tolerance < 1.0))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "cg_tolerance must be in (0, 1), got %g",
                         d->cg_tolerance);
    if (d->cg_max_iterations < 1)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "cg_max_iterations must be at least 1, got %d",
                         (int)d->cg_max_iterations);
    if (!(d->error_tolerance > 0.0) || !isfinite(d->error_tolerance))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "error_tolerance must be positive, got %g",
                         d->error_tolerance);
    if (!(d->rigid_max_step > 0.0) || !isfinite(d->rigid_max_step))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "rigid_max_step must be positive, got %g", d->rigid_max_step);
    if (d->max_step / d->rigid_max_step > 1e6)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "max_step (%g s) is more than a million rigid_max_step (%g s)",
                         d->max_step, d->rigid_max_step);
    if (d->rigid_iterations < 1)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "rigid_iterations must be at least 1, got %d",
                         (int)d->rigid_iterations);
    if (!(d->contact_margin >= 0.0) || !isfinite(d->contact_margin))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "contact_margin must be zero or positive, got %g",
                         d->contact_margin);
    if (!(d->max_speed > 0.0))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "max_speed must be positive, got %g", d->max_speed);
    if (!(d->rigid_time_scale > 0.0 && d->rigid_time_scale <= 100.0))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "rigid_time_scale must be within (0, 100], got %g",
                         d->rigid_time_scale);
    if (d->max_step * d->rigid_time_scale / d->rigid_max_step > 1e6)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "max_step (%g s) x rigid_time_scale (%g) is more than a million "
                         "rigid_max_step (%g s)", d->max_step, d->rigid_time_scale, d->rigid_max_step);
    if (d->threads < 0 || d->threads > MAX_THREADS)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "threads must be within 0..%d (0: OpenMP's own number), got %d",
                         (int)MAX_THREADS, (int)d->threads);
    return SB_OK;
}

/* What the rigid bodies step by, from the world's definition. */
static rigid_settings rigid_settings_of(const sb_world_def *d)
{
    return (rigid_settings){.gravity = v3_load(d->gravity), .max_step = d->rigid_max_step,
                            .iterations = d->rigid_iterations, .contact_margin = d->contact_margin,
                            .max_speed = d->max_speed, .time_scale = d->rigid_time_scale};
}

SB_API sb_result sb_world_create(const sb_world_def *def, sb_world **out_world)
{
    if (!out_world) return error_set(SB_ERROR_INVALID_ARGUMENT, "out_world is NULL");
    *out_world = NULL;
    sb_result r = validate_world_def(def);
    if (r != SB_OK) return r;
    sb_world *w = calloc(1, sizeof *w);
    if (!w) return error_set(SB_ERROR_OUT_OF_MEMORY, "out of memory creating the world");
    w->def = *def;
    w->preferred_step = def->max_step;
    rigid_system_init(&w->rigid, rigid_settings_of(def));
    *out_world = w;
    return SB_OK;
}

SB_API void sb_world_destroy(sb_world *world)
{
    if (!world) return;
    for (int32_t i = 0; i < world->cloth_count; i++) cloth_destroy(world->cloths[i]);
    free(world->cloths);
    for (int32_t i = 0; i < world->collider_count; i++) collider_destroy(world->colliders[i]);
    free(world->colliders);
    for (int32_t i = 0; i < world->field_count; i++) field_free(world->fields[i]), free(world->fields[i]);
    free(world->fields);
    rigid_system_free(&world->rigid);
    collision_scratch_free(world->collision);
    untangle_free(&world->untangle);
    free(world);
}

/* Room for one more pointer in a growing array. */
static bool explicit_integrator(const sb_world *world)
{
    return world->def.integrator != SB_INTEGRATOR_IMPLICIT_EULER;
}

/* Collision handling numbers the vertices of all cloths and colliders in one int32 range,
 * with arrays of several values per vertex: their sum is held to one object's limit. */
static sb_result check_world_vertices(const sb_world *world, int32_t adding)
{
    int64_t total = adding > 0 ? adding : 0;
    for (int32_t i = 0; i < world->cloth_count; i++) total += world->cloths[i]->model.vertex_count;
    for (int32_t i = 0; i < world->collider_count; i++) total += world->colliders[i]->model.vertex_count;
    if (total > MAX_MESH_COUNT)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "the world's cloths and colliders would have %lld vertices in "
                         "all, more than the %d one world can hold", (long long)total, (int)MAX_MESH_COUNT);
    return SB_OK;
}

SB_API sb_result sb_world_add_cloth(sb_world *world, const sb_cloth_def *def, sb_cloth_id *out_cloth)
{
    if (!world || !out_cloth)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "world or out_cloth is NULL");
    if (def && check_world_vertices(world, def->vertex_count) != SB_OK) return SB_ERROR_INVALID_ARGUMENT;
    if (def && def->self_collision && explicit_integrator(world))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "self collision needs the implicit integrator");
    if (!grow((void **)&world->cloths, &world->cloth_capacity, world->cloth_count + 1, sizeof *world->cloths))
        return error_set(SB_ERROR_OUT_OF_MEMORY, "out of memory adding a cloth");
    cloth *c = NULL;
    int32_t caller_threads = world_threads_enter(world);
    sb_result r = cloth_create(def, world->time, world->def.gravity, &c);
    threads_leave(caller_threads);
    if (r != SB_OK) return r;
    world->cloths[world->cloth_count] = c;
    *out_cloth = (sb_cloth_id){world->cloth_count++};
    world->untangle.analysed = false; /* it may start tangled */
    return SB_OK;
}

SB_API sb_strand_def sb_default_strand_def(void)
{
    return (sb_strand_def){.mass_per_length = 0.01, .stretch_stiffness = 1e4, .bend_stiffness = 1e-4,
                           .damping = 0.01, .thickness = 0.005, .friction = 0.5, .gravity_scale = 1.0,
                           .max_stretch = 0.1, .max_compression = 0.1, .self_collision = 1};
}

SB_API sb_result sb_world_add_strands(sb_world *world, const sb_strand_def *def, sb_cloth_id *out_strands)
{
    if (!world || !out_strands) return error_set(SB_ERROR_INVALID_ARGUMENT, "world or out_strands is NULL");
    if (def && check_world_vertices(world, def->vertex_count) != SB_OK) return SB_ERROR_INVALID_ARGUMENT;
    if (def && def->self_collision && explicit_integrator(world))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "strands' self collision needs the implicit integrator "
                         "(set self_collision to 0)");
    if (!grow((void **)&world->cloths, &world->cloth_capacity, world->cloth_count + 1, sizeof *world->cloths))
        return error_set(SB_ERROR_OUT_OF_MEMORY, "out of memory adding strands");
    cloth *c = NULL;
    int32_t caller_threads = world_threads_enter(world);
    sb_result r = strands_create(def, world->time, world->def.gravity, &c);
    threads_leave(caller_threads);
    if (r != SB_OK) return r;
    world->cloths[world->cloth_count] = c;
    *out_strands = (sb_cloth_id){world->cloth_count++};
    return SB_OK;
}

SB_API sb_result sb_world_add_collider(sb_world *world, const sb_collider_def *def, sb_collider_id *out_collider)
{
    if (!world || !out_collider)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "world or out_collider is NULL");
    if (def && check_world_vertices(world, def->vertex_count) != SB_OK) return SB_ERROR_INVALID_ARGUMENT;
    if (explicit_integrator(world))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "colliders need the implicit integrator");
    if (!grow((void **)&world->colliders, &world->collider_capacity, world->collider_count + 1,
              sizeof *world->colliders))
        return error_set(SB_ERROR_OUT_OF_MEMORY, "out of memory adding a collider");
    collider *c = NULL;
    int32_t caller_threads = world_threads_enter(world);
    sb_result r = collider_create(def, world->time, &c);
    threads_leave(caller_threads);
    if (r != SB_OK) return r;
    world->colliders[world->collider_count] = c;
    *out_collider = (sb_collider_id){world->collider_count++};
    world->untangle.analysed = false; /* it may start through a cloth */
    return SB_OK;
}

static sb_result find_collider(const sb_world *world, sb_collider_id collider_id, collider **out)
{
    int32_t id = collider_id.index;
    if (!world) return error_set(SB_ERROR_INVALID_ARGUMENT, "world is NULL");
    if (id < 0 || id >= world->collider_count)
        return error_set(SB_ERROR_NOT_FOUND, "no collider with id %d (the world has %d)", (int)id,
                         (int)world->collider_count);
    *out = world->colliders[id];
    return SB_OK;
}

static sb_result find_body(const sb_world *world, sb_body_id body_id, rigid_body **out)
{
    int32_t id = body_id.index;
    if (!world) return error_set(SB_ERROR_INVALID_ARGUMENT, "world is NULL");
    const rigid_system *rigid = &world->rigid;
    if (id < 0 || id >= rigid->body_count)
        return error_set(SB_ERROR_NOT_FOUND, "no body with id %d (the world has %d)", (int)id, (int)rigid->body_count);
    *out = rigid->bodies[id];
    return SB_OK;
}

SB_API sb_result sb_collider_set_positions(sb_world *world, sb_collider_id collider_id, double time,
                                           const double *positions, int32_t vertex_count)
{
    collider *c = NULL;
    int32_t id = collider_id.index;
    sb_result r = find_collider(world, collider_id, &c);
    if (r != SB_OK) return r;
    if (c->model.body >= 0)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "collider %d follows body %d; it cannot be moved by hand",
                         (int)id, (int)c->model.body);
    if (vertex_count != c->model.vertex_count)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "collider %d has %d vertices, got %d positions",
                         (int)id, (int)c->model.vertex_count, (int)vertex_count);
    if (!positions) return error_set(SB_ERROR_INVALID_ARGUMENT, "collider positions are NULL");
    if (!isfinite(time) || !(time > world->time))
        return error_set(SB_ERROR_INVALID_ARGUMENT,
                         "collider target time %g must be finite and after the world time %g", time, world->time);
    for (size_t i = 0; i < 3 * (size_t)vertex_count; i++)
        if (!isfinite(positions[i]) || fabs(positions[i]) > MAX_COORDINATE)
            return error_set(SB_ERROR_INVALID_ARGUMENT, "collider position %d is not finite or beyond %.0g m",
                             (int)(i / 3), MAX_COORDINATE);
    collider_positions_at(c, world->time, c->state.from);
    memcpy(c->state.to, positions, 3 * (size_t)vertex_count * sizeof *positions);
    c->state.time_from = world->time;
    c->state.time_to = time;
    return SB_OK;
}

SB_API sb_result sb_collider_follow_body(sb_world *world, sb_collider_id collider_id, sb_body_id body_id)
{
    collider *c = NULL;
    rigid_body *b = NULL;
    int32_t id = collider_id.index, body = body_id.index;
    sb_result r = find_collider(world, collider_id, &c);
    if (r == SB_OK) r = find_body(world, body_id, &b);
    if (r != SB_OK) return r;
    if (c->model.body >= 0)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "collider %d already follows body %d", (int)id, (int)c->model.body);
    if (!collider_attach(c, body, b->state.x, b->state.q, world->time))
        return error_set(SB_ERROR_OUT_OF_MEMORY, "out of memory attaching collider %d", (int)id);
    return SB_OK;
}

SB_API sb_result sb_world_add_body(sb_world *world, const sb_body_def *def, sb_body_id *out_body)
{
    if (!world || !out_body) return error_set(SB_ERROR_INVALID_ARGUMENT, "world or out_body is NULL");
    if (explicit_integrator(world))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "rigid bodies need the implicit integrator");
    int32_t index = 0, caller_threads = world_threads_enter(world);
    sb_result r = rigid_system_add_body(&world->rigid, def, world->time, &index);
    threads_leave(caller_threads);
    if (r == SB_OK) *out_body = (sb_body_id){index};
    return r;
}

SB_API sb_joint_def sb_default_joint_def(void)
{
    return (sb_joint_def){.type = SB_JOINT_POINT, .body_a = {0}, .body_b = {-1}, .rotation = {1, 0, 0, 0},
                          .disable_collisions = 1, .breaking_threshold = 10.0, .breaking_step = 1.0 / 240.0};
}

SB_API sb_result sb_world_add_joint(sb_world *world, const sb_joint_def *def, sb_joint_id *out_joint)
{
    if (!world || !def || !out_joint) return error_set(SB_ERROR_INVALID_ARGUMENT, "world, def or out_joint is NULL");
    int32_t index = 0;
    sb_result r = rigid_system_add_joint(&world->rigid, def, &index);
    if (r == SB_OK) *out_joint = (sb_joint_id){index};
    return r;
}

SB_API sb_result sb_joint_get_broken(const sb_world *world, sb_joint_id joint, int32_t *out_broken, double *out_time)
{
    if (!world) return error_set(SB_ERROR_INVALID_ARGUMENT, "world is NULL");
    if (joint.index < 0 || joint.index >= world->rigid.joint_count)
        return error_set(SB_ERROR_NOT_FOUND, "no joint with id %d (the world has %d)", (int)joint.index,
                         (int)world->rigid.joint_count);
    const rigid_joint *j = &world->rigid.joints[joint.index];
    if (out_broken) *out_broken = j->broken;
    if (out_time) *out_time = j->broken_time;
    return SB_OK;
}

SB_API sb_result sb_world_get_broken_joints(const sb_world *world, sb_joint_id *out_joints, double *out_times,
                                            int32_t capacity, int32_t *out_count)
{
    if (!world || !out_count) return error_set(SB_ERROR_INVALID_ARGUMENT, "world or out_count is NULL");
    if (capacity < 0) return error_set(SB_ERROR_INVALID_ARGUMENT, "capacity must not be negative, got %d", (int)capacity);
    int32_t n = 0;
    for (int32_t i = 0; i < world->rigid.joint_count; i++) {
        const rigid_joint *j = &world->rigid.joints[i];
        if (!j->broken) continue;
        if (n < capacity && out_joints) out_joints[n] = (sb_joint_id){i};
        if (n < capacity && out_times) out_times[n] = j->broken_time;
        n++;
    }
    *out_count = n;
    return SB_OK;
}

/* Rigid displacement M (4x4 row-major) as rotation r and translation t; false if not rigid. */
static bool rigid_from_matrix(const double m[16], mat3 *r, vec3 *t)
{
    for (int k = 0; k < 12; k++)
        if (!isfinite(m[k])) return false;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) r->m[i][j] = m[4 * i + j];
    *t = v3(m[3], m[7], m[11]);
    mat3 rtr = m3_mul(m3_transpose(*r), *r);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            if (fabs(rtr.m[i][j] - (i == j ? 1.0 : 0.0)) > 1e-6) return false;
    return m3_det(*r) > 0.0;
}

SB_API sb_result sb_body_set_target(sb_world *world, sb_body_id body_id, double time, const double transform[16])
{
    rigid_body *b = NULL;
    int32_t id = body_id.index;
    sb_result r = find_body(world, body_id, &b);
    if (r != SB_OK) return r;
    if (b->model.type != SB_BODY_KINEMATIC)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "body %d is not kinematic: only kinematic bodies follow targets", (int)id);
    if (!transform) return error_set(SB_ERROR_INVALID_ARGUMENT, "transform is NULL");
    if (!isfinite(time) || !(time > world->time))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "body target time %g must be finite and after the world time %g",
                         time, world->time);
    mat3 rot;
    vec3 t;
    if (!rigid_from_matrix(transform, &rot, &t))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "body %d target is not a rigid transform (rotation and "
                         "translation only, no scale or shear)", (int)id);
    vec3 x;
    quat q;
    rigid_body_kinematic_pose(b, world->time, &x, &q);
    b->state.x_from = x, b->state.q_from = q;
    b->state.x_to = v3_add(m3_mul_v(rot, b->model.x_start), t);
    b->state.q_to = q_normalize(q_mul(m3_to_q(rot), b->model.q_start));
    b->state.time_from = world->time, b->state.time_to = time;
    return SB_OK;
}

static void displacement(const rigid_body *b, double out[16])
{
    /* p_now = R(q) R(q0)ᵀ (p - x0) + x */
    mat3 rot = m3_mul(b->state.R, m3_transpose(q_to_m3(b->model.q_start)));
    vec3 t = v3_sub(b->state.x, m3_mul_v(rot, b->model.x_start));
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) out[4 * i + j] = rot.m[i][j];
        out[4 * i + 3] = v3_comp(t, i);
    }
    out[12] = out[13] = out[14] = 0.0, out[15] = 1.0;
}

SB_API sb_result sb_body_get_transform(const sb_world *world, sb_body_id body, double out[16])
{
    rigid_body *b = NULL;
    sb_result r = find_body(world, body, &b);
    if (r != SB_OK) return r;
    if (!out) return error_set(SB_ERROR_INVALID_ARGUMENT, "output is NULL");
    displacement(b, out);
    return SB_OK;
}

SB_API sb_result sb_world_get_body_transforms(const sb_world *world, double *out, int32_t body_count)
{
    if (!world || !out) return error_set(SB_ERROR_INVALID_ARGUMENT, "world or output is NULL");
    if (body_count != world->rigid.body_count)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "body_count is %d, the world has %d bodies", (int)body_count,
                         (int)world->rigid.body_count);
    for (int32_t i = 0; i < body_count; i++) displacement(world->rigid.bodies[i], &out[16 * (size_t)i]);
    return SB_OK;
}

SB_API sb_result sb_body_get_state(const sb_world *world, sb_body_id body, sb_body_state *out)
{
    rigid_body *b = NULL;
    sb_result r = find_body(world, body, &b);
    if (r != SB_OK) return r;
    if (!out) return error_set(SB_ERROR_INVALID_ARGUMENT, "output is NULL");
    memset(out, 0, sizeof *out);
    const rigid_body_state *s = &b->state;
    v3_store(out->position, s->x);
    out->orientation[0] = s->q.w, out->orientation[1] = s->q.x, out->orientation[2] = s->q.y, out->orientation[3] = s->q.z;
    v3_store(out->linear_velocity, s->v);
    v3_store(out->angular_velocity, s->w);
    v3_store(out->linear_momentum, s->P);
    v3_store(out->angular_momentum, s->L);
    out->mass = b->model.mass;
    out->kinetic_energy = b->model.type == SB_BODY_DYNAMIC ? 0.5 * (v3_dot(s->P, s->v) + v3_dot(s->L, s->w)) : 0.0;
    v3_store(out->contact_force, s->contact_force);
    out->contacts = s->contacts;
    out->sleeping = s->sleep_group != SLEEP_AWAKE;
    return SB_OK;
}

SB_API sb_result sb_mass_properties(const double *vertices, int32_t vertex_count, const int32_t *triangles,
                                    int32_t triangle_count, double density, double *out_mass, double out_center[3],
                                    double out_inertia[9])
{
    if (!vertices || !triangles || !out_mass || !out_center || !out_inertia)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "an argument is NULL");
    if (!(density > 0.0) || !isfinite(density))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "density must be positive, got %g", density);
    if (vertex_count <= 0 || triangle_count <= 0 || vertex_count > MAX_MESH_COUNT || triangle_count > MAX_MESH_COUNT)
        return error_set(SB_ERROR_INVALID_MESH, "mesh has %d vertices and %d triangles", (int)vertex_count,
                         (int)triangle_count);
    for (size_t i = 0; i < 3 * (size_t)vertex_count; i++)
        if (!isfinite(vertices[i])) return error_set(SB_ERROR_INVALID_MESH, "vertex %d is not finite", (int)(i / 3));
    for (size_t i = 0; i < 3 * (size_t)triangle_count; i++)
        if (triangles[i] < 0 || triangles[i] >= vertex_count)
            return error_set(SB_ERROR_INVALID_MESH, "triangle %d uses vertex %d, outside 0..%d", (int)(i / 3),
                             (int)triangles[i], (int)vertex_count - 1);
    if (!mesh_is_closed(triangles, triangle_count, vertex_count))
        return error_set(SB_ERROR_INVALID_MESH, "the mesh is not closed: it bounds no solid");
    mass_properties mp;
    if (!mesh_mass_properties(vertices, vertex_count, triangles, triangle_count, &mp))
        return error_set(SB_ERROR_INVALID_MESH, "the mesh encloses no volume");
    double mass = density * mp.volume, inertia[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) inertia[3 * i + j] = density * mp.inertia.m[i][j];
    bool finite = isfinite(mass) && v3_isfinite(mp.center);
    for (int k = 0; k < 9; k++) finite = finite && isfinite(inertia[k]);
    if (!finite)
        return error_set(SB_ERROR_INVALID_MESH, "the mass properties overflow: the mesh or the density is too "
                         "large (mass %g kg)", mass);
    *out_mass = mass;
    v3_store(out_center, mp.center);
    memcpy(out_inertia, inertia, sizeof inertia);
    return SB_OK;
}

static sb_result find_cloth(const sb_world *world, sb_cloth_id cloth_id, cloth **out)
{
    int32_t id = cloth_id.index;
    if (!world) return error_set(SB_ERROR_INVALID_ARGUMENT, "world is NULL");
    if (id < 0 || id >= world->cloth_count)
        return error_set(SB_ERROR_NOT_FOUND, "no cloth with id %d (the world has %d)", (int)id,
                         (int)world->cloth_count);
    *out = world->cloths[id];
    return SB_OK;
}

SB_API sb_result sb_cloth_get_info(const sb_world *world, sb_cloth_id cloth_id, sb_cloth_info *out_info)
{
    cloth *c = NULL;
    sb_result r = find_cloth(world, cloth_id, &c);
    if (r != SB_OK) return r;
    if (!out_info) return error_set(SB_ERROR_INVALID_ARGUMENT, "out_info is NULL");
    *out_info = c->model.info;
    return SB_OK;
}

SB_API sb_result sb_cloth_set_colliders(sb_world *world, sb_cloth_id cloth_id, const sb_collider_id *colliders,
                                        int32_t count)
{
    cloth *c = NULL;
    sb_result r = find_cloth(world, cloth_id, &c);
    if (r != SB_OK) return r;
    if (count < SB_ALL_COLLIDERS)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "collider count %d is negative (SB_ALL_COLLIDERS, -1: every "
                         "collider)", (int)count);
    if (count == SB_ALL_COLLIDERS && colliders)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "colliders are listed but the count is SB_ALL_COLLIDERS");
    if (count > 0 && !colliders)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "collider count is %d but colliders is NULL", (int)count);
    uint8_t *meets = NULL;
    if (count >= 0) {
        if (!(meets = calloc((size_t)world->collider_count + 1, 1)))
            return error_set(SB_ERROR_OUT_OF_MEMORY, "out of memory choosing a cloth's colliders");
        for (int32_t i = 0; i < count; i++) {
            int32_t k = colliders[i].index;
            r = k >= 0 && k < world->collider_count
                    ? (meets[k] ? error_set(SB_ERROR_INVALID_ARGUMENT, "collider %d is listed twice", (int)k) : SB_OK)
                    : error_set(SB_ERROR_NOT_FOUND, "no collider with id %d (the world has %d)", (int)k,
                                (int)world->collider_count);
            if (r != SB_OK) return free(meets), r;
            meets[k] = 1;
        }
    }
    free(c->model.meets_collider);
    c->model.meets_collider = meets;
    c->model.meets_collider_count = count >= 0 ? world->collider_count : -1;
    /* the collision pairs were gathered with the old set */
    if (world->collision) world->collision->have_pairs = false;
    return SB_OK;
}

SB_API sb_result sb_cloth_set_pin_targets(sb_world *world, sb_cloth_id cloth_id, double time,
                                          const double *positions, int32_t pin_count)
{
    cloth *c = NULL;
    int32_t id = cloth_id.index;
    sb_result r = find_cloth(world, cloth_id, &c);
    if (r != SB_OK) return r;
    if (c->model.pin_local)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "the pins of cloth %d follow body %d; they cannot be moved by hand",
                         (int)id, (int)c->model.pin_body);
    if (pin_count != c->model.pin_count)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "cloth %d has %d pins, got %d targets", (int)id,
                         (int)c->model.pin_count, (int)pin_count);
    if (pin_count > 0 && !positions)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "pin target positions are NULL");
    if (!isfinite(time) || !(time > world->time))
        return error_set(SB_ERROR_INVALID_ARGUMENT,
                         "pin target time %g must be finite and after the world time %g", time,
                         world->time);
    for (int32_t i = 0; i < 3 * pin_count; i++)
        if (!isfinite(positions[i]))
            return error_set(SB_ERROR_INVALID_ARGUMENT, "pin target %d is not finite", (int)(i / 3));
    for (int32_t p = 0; p < pin_count; p++) {
        double vel[3];
        cloth_pin_state(c, p, world->time, &c->state.pin_from[3 * (size_t)p], vel);
    }
    if (pin_count > 0) memcpy(c->state.pin_to, positions, 3 * (size_t)pin_count * sizeof *positions);
    c->state.pin_time_from = world->time;
    c->state.pin_time_to = time;
    return SB_OK;
}

SB_API sb_result sb_cloth_attach_pins_to_body(sb_world *world, sb_cloth_id cloth_id, sb_body_id body_id)
{
    cloth *c = NULL;
    rigid_body *b = NULL;
    int32_t id = cloth_id.index;
    sb_result r = find_cloth(world, cloth_id, &c);
    if (r == SB_OK) r = find_body(world, body_id, &b);
    if (r != SB_OK) return r;
    if (c->model.pin_count == 0)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "cloth %d has no pins to attach to body %d", (int)id,
                         (int)body_id.index);
    if (c->model.pin_local)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "the pins of cloth %d already follow body %d", (int)id,
                         (int)c->model.pin_body);
    if (!cloth_attach_pins(c, body_id.index, b->state.x, b->state.q, world->time))
        return error_set(SB_ERROR_OUT_OF_MEMORY, "out of memory attaching the pins of cloth %d", (int)id);
    return SB_OK;
}

SB_API sb_result sb_cloth_set_goal_targets(sb_world *world, sb_cloth_id cloth_id, double time,
                                           const double *positions, int32_t vertex_count)
{
    cloth *c = NULL;
    sb_result r = find_cloth(world, cloth_id, &c);
    if (r != SB_OK) return r;
    if (vertex_count != c->model.vertex_count)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "cloth %d has %d vertices, got %d goal targets",
                         (int)cloth_id.index, (int)c->model.vertex_count, (int)vertex_count);
    if (!positions) return error_set(SB_ERROR_INVALID_ARGUMENT, "goal target positions are NULL");
    if (!isfinite(time) || !(time > world->time))
        return error_set(SB_ERROR_INVALID_ARGUMENT,
                         "goal target time %g must be finite and after the world time %g", time, world->time);
    for (int32_t i = 0; i < 3 * vertex_count; i++)
        if (!isfinite(positions[i]) || fabs(positions[i]) > MAX_COORDINATE)
            return error_set(SB_ERROR_INVALID_ARGUMENT, "goal target of vertex %d is not finite or beyond %.0g m",
                             (int)(i / 3), MAX_COORDINATE);
    cloth_state *s = &c->state;
    for (int32_t p = 0; p < c->model.goal_count; p++) {
        double vel[3];
        cloth_goal_motion(c, p, world->time, world->time, &s->goal_from[3 * (size_t)p], vel);
    }
    for (int32_t p = 0; p < c->model.goal_count; p++)
        memcpy(&s->goal_to[3 * (size_t)p], &positions[3 * (size_t)c->model.goals[p]], 3 * sizeof *positions);
    s->goal_time_from = world->time;
    s->goal_time_to = time;
    return SB_OK;
}

SB_API sb_result sb_world_step_to(sb_world *world, double time)
{
    if (!world) return error_set(SB_ERROR_INVALID_ARGUMENT, "world is NULL");
    if (!isfinite(time) || time < world->time)
        return error_set(SB_ERROR_INVALID_ARGUMENT,
                         "cannot step to time %g: it must be finite and not before now (%g)",
                         time, world->time);
    world->failure = (sb_failure){.object_kind = SB_OBJECT_NONE};
    int32_t caller_threads = world_threads_enter(world);
    sb_result r = world_step_to(world, time);
    threads_leave(caller_threads);
    return r;
}

SB_API sb_result sb_world_get_failure(const sb_world *world, sb_failure *out_failure)
{
    if (!world || !out_failure) return error_set(SB_ERROR_INVALID_ARGUMENT, "world or out_failure is NULL");
    *out_failure = world->failure;
    return SB_OK;
}

SB_API double sb_world_get_time(const sb_world *world) { return world ? world->time : 0.0; }

SB_API sb_result sb_world_get_stats(const sb_world *world, sb_world_stats *out_stats)
{
    if (!world || !out_stats) return error_set(SB_ERROR_INVALID_ARGUMENT, "world or out_stats is NULL");
    *out_stats = world->stats;
    out_stats->time = world->time;
    out_stats->sleeping_bodies = rigid_sleep_count(&world->rigid);
    return SB_OK;
}

static sb_result copy_state(const sb_world *world, sb_cloth_id cloth_id, bool velocities, double *out,
                            int32_t vertex_count)
{
    cloth *c = NULL;
    int32_t id = cloth_id.index;
    sb_result r = find_cloth(world, cloth_id, &c);
    if (r != SB_OK) return r;
    if (!out) return error_set(SB_ERROR_INVALID_ARGUMENT, "output buffer is NULL");
    if (vertex_count != c->model.vertex_count)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "cloth %d has %d vertices, buffer is for %d",
                         (int)id, (int)c->model.vertex_count, (int)vertex_count);
    memcpy(out, velocities ? c->state.v : c->state.x, 3 * (size_t)vertex_count * sizeof *out);
    return SB_OK;
}

SB_API sb_result sb_cloth_get_positions(const sb_world *world, sb_cloth_id cloth_id, double *out,
                                        int32_t vertex_count)
{
    return copy_state(world, cloth_id, false, out, vertex_count);
}

SB_API sb_result sb_cloth_get_velocities(const sb_world *world, sb_cloth_id cloth_id, double *out,
                                         int32_t vertex_count)
{
    return copy_state(world, cloth_id, true, out, vertex_count);
}

SB_API sb_result sb_cloth_count_intersections(const sb_world *world, sb_cloth_id cloth_id, sb_cloth_id other_id,
                                              int64_t *out_pairs)
{
    cloth *c = NULL, *other = NULL;
    sb_result r = find_cloth(world, cloth_id, &c);
    if (r == SB_OK) r = find_cloth(world, other_id, &other);
    if (r != SB_OK) return r;
    if (!out_pairs) return error_set(SB_ERROR_INVALID_ARGUMENT, "out_pairs is NULL");
    int64_t pairs = c == other && !c->model.self_collision ? 0 : intersecting_pairs(c, other, NULL);
    if (pairs < 0) return error_set(SB_ERROR_OUT_OF_MEMORY, "out of memory counting intersections");
    *out_pairs = pairs;
    return SB_OK;
}

SB_API sb_result sb_cloth_count_collider_intersections(const sb_world *world, sb_cloth_id cloth_id,
                                                       sb_collider_id collider_id, int64_t *out_pairs)
{
    cloth *c = NULL;
    collider *k = NULL;
    sb_result r = find_cloth(world, cloth_id, &c);
    if (r == SB_OK) r = find_collider(world, collider_id, &k);
    if (r != SB_OK) return r;
    if (!out_pairs) return error_set(SB_ERROR_INVALID_ARGUMENT, "out_pairs is NULL");
    int64_t pairs = cloth_meets_collider(&c->model, collider_id.index) ? intersecting_pairs(c, NULL, k) : 0;
    if (pairs < 0) return error_set(SB_ERROR_OUT_OF_MEMORY, "out of memory counting intersections");
    *out_pairs = pairs;
    return SB_OK;
}

SB_API sb_result sb_cloth_count_vertices_inside_collider(const sb_world *world, sb_cloth_id cloth_id,
                                                          sb_collider_id collider_id, int64_t *out_vertices)
{
    cloth *c = NULL;
    collider *k = NULL;
    sb_result r = find_cloth(world, cloth_id, &c);
    if (r == SB_OK) r = find_collider(world, collider_id, &k);
    if (r != SB_OK) return r;
    if (!out_vertices) return error_set(SB_ERROR_INVALID_ARGUMENT, "out_vertices is NULL");
    int64_t inside = cloth_meets_collider(&c->model, collider_id.index) ? vertices_inside_collider(c, k) : 0;
    if (inside < 0) return error_set(SB_ERROR_OUT_OF_MEMORY, "out of memory counting vertices inside a collider");
    *out_vertices = inside;
    return SB_OK;
}

SB_API sb_result sb_cloth_get_kinetic_energy(const sb_world *world, sb_cloth_id cloth_id, double *out)
{
    cloth *c = NULL;
    sb_result r = find_cloth(world, cloth_id, &c);
    if (r != SB_OK) return r;
    if (!out) return error_set(SB_ERROR_INVALID_ARGUMENT, "output is NULL");
    *out = cloth_kinetic_energy(c, c->state.v);
    return SB_OK;
}
