/* The public calls that add force fields to a world, move them and weigh them per cloth. */
#include <math.h>
#include <stdlib.h>

#include "api_error.h"
#include "grow.h"
#include "world.h"

SB_API sb_field_def sb_default_field_def(void)
{
    return (sb_field_def){
        .type = SB_FIELD_WIND,
        .shape = SB_FIELD_POINT,
        .axis = {0.0, 0.0, 1.0},
        .strength = 1.0,
        .falloff = SB_FALLOFF_SPHERE,
        .side = SB_FIELD_BOTH_SIDES,
        .noise_size = 1.0,
    };
}

SB_API sb_result sb_world_add_field(sb_world *world, const sb_field_def *def, sb_field_id *out_field)
{
    if (!world || !out_field) return error_set(SB_ERROR_INVALID_ARGUMENT, "world or out_field is NULL");
    sb_result r = field_validate(def);
    if (r != SB_OK) return r;
    force_field *f = malloc(sizeof *f);
    if (!f || !grow((void **)&world->fields, &world->field_capacity, world->field_count + 1, sizeof *world->fields)) {
        free(f);
        return error_set(SB_ERROR_OUT_OF_MEMORY, "out of memory adding a field");
    }
    field_init(f, def, world->time);
    world->fields[world->field_count] = f;
    *out_field = (sb_field_id){world->field_count++};
    return SB_OK;
}

static sb_result find_field(const sb_world *world, sb_field_id field_id, force_field **out)
{
    if (!world) return error_set(SB_ERROR_INVALID_ARGUMENT, "world is NULL");
    if (field_id.index < 0 || field_id.index >= world->field_count)
        return error_set(SB_ERROR_NOT_FOUND, "no field with id %d (the world has %d)", (int)field_id.index,
                         (int)world->field_count);
    *out = world->fields[field_id.index];
    return SB_OK;
}

SB_API sb_result sb_field_set_target(sb_world *world, sb_field_id field_id, double time, const double position[3],
                                     const double axis[3], double strength)
{
    force_field *f = NULL;
    sb_result r = find_field(world, field_id, &f);
    if (r != SB_OK) return r;
    if (!position || !axis) return error_set(SB_ERROR_INVALID_ARGUMENT, "field position or axis is NULL");
    if (!isfinite(time) || !(time > world->time))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "field target time %g must be finite and after the world time %g",
                         time, world->time);
    vec3 at = v3_load(position), a = v3_load(axis);
    if (!v3_isfinite(at) || fabs(at.x) > MAX_COORDINATE || fabs(at.y) > MAX_COORDINATE || fabs(at.z) > MAX_COORDINATE)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "field %d: target position is not finite or beyond %.0g m",
                         (int)field_id.index, MAX_COORDINATE);
    if (!v3_isfinite(a) || !(v3_len(a) > 1e-12))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "field %d: target axis (%g, %g, %g) must be finite and not of "
                         "length 0", (int)field_id.index, a.x, a.y, a.z);
    if (!isfinite(strength))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "field %d: target strength must be finite, got %g",
                         (int)field_id.index, strength);
    f->from = field_pose_at(f, world->time);
    f->to = (field_pose){at, v3_scale(a, 1.0 / v3_len(a)), strength};
    f->time_from = world->time;
    f->time_to = time;
    return SB_OK;
}

SB_API sb_result sb_cloth_set_field_weight(sb_world *world, sb_cloth_id cloth_id, sb_field_id field_id, double weight)
{
    force_field *f = NULL;
    sb_result r = find_field(world, field_id, &f);
    if (r != SB_OK) return r;
    if (cloth_id.index < 0 || cloth_id.index >= world->cloth_count)
        return error_set(SB_ERROR_NOT_FOUND, "no cloth with id %d (the world has %d)", (int)cloth_id.index,
                         (int)world->cloth_count);
    if (!isfinite(weight))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "field weight must be finite, got %g", weight);
    if (cloth_id.index >= f->weight_count) {
        int32_t count = f->weight_count, capacity = count;
        if (!grow((void **)&f->cloth_weight, &capacity, cloth_id.index + 1, sizeof *f->cloth_weight))
            return error_set(SB_ERROR_OUT_OF_MEMORY, "out of memory weighing a field");
        for (int32_t i = count; i <= cloth_id.index; i++) f->cloth_weight[i] = 1.0;
        f->weight_count = cloth_id.index + 1;
    }
    f->cloth_weight[cloth_id.index] = weight;
    return SB_OK;
}
