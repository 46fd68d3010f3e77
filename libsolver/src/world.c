/* Public API: world creation, cloths, read-back. Every entry point validates first. */
#include "world.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"

SB_API sb_world_def sb_default_world_def(void)
{
    return (sb_world_def){
        .gravity = {0.0, 0.0, -9.81},
        .integrator = SB_INTEGRATOR_IMPLICIT_EULER,
        .max_step = 1.0 / 24.0,
        .min_step = 1e-6,
        .grow_after = 4,
        .max_strain_change = 0.1,
        .cg_tolerance = 1e-5,
        .cg_max_iterations = 1000,
        .error_tolerance = 1e-4,
    };
}

SB_API sb_cloth_def sb_default_cloth_def(void)
{
    return (sb_cloth_def){
        .density = 0.15,
        .stretch_stiffness = 2000.0,
        .shear_stiffness = 200.0,
        .bend_stiffness = 1e-5,
        .damping = 0.01,
        .air_drag = 0.1,
        .thickness = 0.005,
        .friction = 0.5,
        .self_collision = 0,
    };
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
    if (d->integrator < SB_INTEGRATOR_IMPLICIT_EULER || d->integrator > SB_INTEGRATOR_RK4)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "unknown integrator %d", (int)d->integrator);
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
    return SB_OK;
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
    collision_scratch_free(world->collision);
    free(world);
}

/* Room for one more pointer in a growing array. */
static bool grow_array(void **items, int32_t count, int32_t *capacity)
{
    if (count < *capacity) return true;
    int32_t cap = *capacity ? 2 * *capacity : 4;
    void *grown = realloc(*items, (size_t)cap * sizeof(void *));
    if (!grown) return false;
    *items = grown;
    *capacity = cap;
    return true;
}

static bool explicit_integrator(const sb_world *world)
{
    return world->def.integrator != SB_INTEGRATOR_IMPLICIT_EULER;
}

SB_API sb_result sb_world_add_cloth(sb_world *world, const sb_cloth_def *def, int32_t *out_cloth)
{
    if (!world || !out_cloth)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "world or out_cloth is NULL");
    if (def && def->self_collision && explicit_integrator(world))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "self collision needs the implicit integrator");
    if (!grow_array((void **)&world->cloths, world->cloth_count, &world->cloth_capacity))
        return error_set(SB_ERROR_OUT_OF_MEMORY, "out of memory adding a cloth");
    cloth *c = NULL;
    sb_result r = cloth_create(def, world->time, world->def.gravity, &c);
    if (r != SB_OK) return r;
    world->cloths[world->cloth_count] = c;
    *out_cloth = world->cloth_count++;
    return SB_OK;
}

SB_API sb_result sb_world_add_collider(sb_world *world, const sb_collider_def *def, int32_t *out_collider)
{
    if (!world || !out_collider)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "world or out_collider is NULL");
    if (explicit_integrator(world))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "colliders need the implicit integrator");
    if (!grow_array((void **)&world->colliders, world->collider_count, &world->collider_capacity))
        return error_set(SB_ERROR_OUT_OF_MEMORY, "out of memory adding a collider");
    collider *c = NULL;
    sb_result r = collider_create(def, world->time, &c);
    if (r != SB_OK) return r;
    world->colliders[world->collider_count] = c;
    *out_collider = world->collider_count++;
    return SB_OK;
}

SB_API sb_result sb_collider_set_positions(sb_world *world, int32_t id, double time, const double *positions,
                                           int32_t vertex_count)
{
    if (!world) return error_set(SB_ERROR_INVALID_ARGUMENT, "world is NULL");
    if (id < 0 || id >= world->collider_count)
        return error_set(SB_ERROR_NOT_FOUND, "no collider with id %d (the world has %d)", (int)id,
                         (int)world->collider_count);
    collider *c = world->colliders[id];
    if (vertex_count != c->vertex_count)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "collider %d has %d vertices, got %d positions",
                         (int)id, (int)c->vertex_count, (int)vertex_count);
    if (!positions) return error_set(SB_ERROR_INVALID_ARGUMENT, "collider positions are NULL");
    if (!isfinite(time) || !(time > world->time))
        return error_set(SB_ERROR_INVALID_ARGUMENT,
                         "collider target time %g must be finite and after the world time %g", time, world->time);
    for (size_t i = 0; i < 3 * (size_t)vertex_count; i++)
        if (!isfinite(positions[i]))
            return error_set(SB_ERROR_INVALID_ARGUMENT, "collider position %d is not finite", (int)(i / 3));
    collider_positions_at(c, world->time, c->from);
    memcpy(c->to, positions, 3 * (size_t)vertex_count * sizeof *positions);
    c->time_from = world->time;
    c->time_to = time;
    return SB_OK;
}

static sb_result find_cloth(const sb_world *world, int32_t id, cloth **out)
{
    if (!world) return error_set(SB_ERROR_INVALID_ARGUMENT, "world is NULL");
    if (id < 0 || id >= world->cloth_count)
        return error_set(SB_ERROR_NOT_FOUND, "no cloth with id %d (the world has %d)", (int)id,
                         (int)world->cloth_count);
    *out = world->cloths[id];
    return SB_OK;
}

SB_API sb_result sb_cloth_get_info(const sb_world *world, int32_t id, sb_cloth_info *out_info)
{
    cloth *c = NULL;
    sb_result r = find_cloth(world, id, &c);
    if (r != SB_OK) return r;
    if (!out_info) return error_set(SB_ERROR_INVALID_ARGUMENT, "out_info is NULL");
    *out_info = c->info;
    return SB_OK;
}

SB_API sb_result sb_cloth_set_pin_targets(sb_world *world, int32_t id, double time,
                                          const double *positions, int32_t pin_count)
{
    cloth *c = NULL;
    sb_result r = find_cloth(world, id, &c);
    if (r != SB_OK) return r;
    if (pin_count != c->pin_count)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "cloth %d has %d pins, got %d targets", (int)id,
                         (int)c->pin_count, (int)pin_count);
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
        cloth_pin_state(c, p, world->time, &c->pin_from[3 * (size_t)p], vel);
    }
    memcpy(c->pin_to, positions, 3 * (size_t)pin_count * sizeof *positions);
    c->pin_time_from = world->time;
    c->pin_time_to = time;
    return SB_OK;
}

SB_API sb_result sb_world_step_to(sb_world *world, double time)
{
    if (!world) return error_set(SB_ERROR_INVALID_ARGUMENT, "world is NULL");
    if (!isfinite(time) || time < world->time)
        return error_set(SB_ERROR_INVALID_ARGUMENT,
                         "cannot step to time %g: it must be finite and not before now (%g)",
                         time, world->time);
    return world_step_to(world, time);
}

SB_API double sb_world_get_time(const sb_world *world) { return world ? world->time : 0.0; }

SB_API sb_result sb_world_get_stats(const sb_world *world, sb_world_stats *out_stats)
{
    if (!world || !out_stats) return error_set(SB_ERROR_INVALID_ARGUMENT, "world or out_stats is NULL");
    *out_stats = world->stats;
    out_stats->time = world->time;
    return SB_OK;
}

static sb_result copy_state(const sb_world *world, int32_t id, bool velocities, double *out,
                            int32_t vertex_count)
{
    cloth *c = NULL;
    sb_result r = find_cloth(world, id, &c);
    if (r != SB_OK) return r;
    if (!out) return error_set(SB_ERROR_INVALID_ARGUMENT, "output buffer is NULL");
    if (vertex_count != c->vertex_count)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "cloth %d has %d vertices, buffer is for %d",
                         (int)id, (int)c->vertex_count, (int)vertex_count);
    memcpy(out, velocities ? c->v : c->x, 3 * (size_t)vertex_count * sizeof *out);
    return SB_OK;
}

SB_API sb_result sb_cloth_get_positions(const sb_world *world, int32_t id, double *out,
                                        int32_t vertex_count)
{
    return copy_state(world, id, false, out, vertex_count);
}

SB_API sb_result sb_cloth_get_velocities(const sb_world *world, int32_t id, double *out,
                                         int32_t vertex_count)
{
    return copy_state(world, id, true, out, vertex_count);
}

SB_API sb_result sb_cloth_get_kinetic_energy(const sb_world *world, int32_t id, double *out)
{
    cloth *c = NULL;
    sb_result r = find_cloth(world, id, &c);
    if (r != SB_OK) return r;
    if (!out) return error_set(SB_ERROR_INVALID_ARGUMENT, "output is NULL");
    *out = cloth_kinetic_energy(c, c->v);
    return SB_OK;
}
