/* sb_struct_layout: each public struct's size and field offsets, in declaration order, so a
 * binding (the add-on's ctypes mirrors) can refuse a library whose structs differ from its own. */
#include <stddef.h>
#include <string.h>

#include "api_error.h"

typedef struct struct_layout {
    const char *name;
    uint64_t size;
    int32_t field_count;
    uint64_t offsets[64];
} struct_layout;

#define LAYOUT(type, ...)                                                                  \
    {#type, sizeof(type), (int32_t)(sizeof((uint64_t[]){__VA_ARGS__}) / sizeof(uint64_t)), \
     {__VA_ARGS__}}
#define AT(type, field) offsetof(type, field)

static const struct_layout LAYOUTS[] = {
    LAYOUT(sb_world_def, AT(sb_world_def, gravity), AT(sb_world_def, integrator), AT(sb_world_def, max_step),
           AT(sb_world_def, min_step), AT(sb_world_def, grow_after), AT(sb_world_def, max_strain_change),
           AT(sb_world_def, cg_tolerance), AT(sb_world_def, cg_max_iterations), AT(sb_world_def, error_tolerance),
           AT(sb_world_def, rigid_max_step), AT(sb_world_def, rigid_iterations), AT(sb_world_def, contact_margin),
           AT(sb_world_def, max_speed), AT(sb_world_def, threads), AT(sb_world_def, rigid_time_scale)),
    LAYOUT(sb_cloth_def, AT(sb_cloth_def, vertex_count), AT(sb_cloth_def, positions), AT(sb_cloth_def, triangle_count),
           AT(sb_cloth_def, triangles), AT(sb_cloth_def, uvs), AT(sb_cloth_def, density),
           AT(sb_cloth_def, stretch_stiffness), AT(sb_cloth_def, compression_stiffness), AT(sb_cloth_def, shear_stiffness), AT(sb_cloth_def, bend_stiffness),
           AT(sb_cloth_def, damping), AT(sb_cloth_def, air_drag), AT(sb_cloth_def, pin_count), AT(sb_cloth_def, pins),
           AT(sb_cloth_def, thickness), AT(sb_cloth_def, friction), AT(sb_cloth_def, self_collision),
           AT(sb_cloth_def, self_thickness), AT(sb_cloth_def, gravity_scale),
           AT(sb_cloth_def, shrink), AT(sb_cloth_def, pressure), AT(sb_cloth_def, pressure_scale),
           AT(sb_cloth_def, pressure_target_volume), AT(sb_cloth_def, pressure_weights),
           AT(sb_cloth_def, goal_stiffness), AT(sb_cloth_def, goal_damping), AT(sb_cloth_def, spring_count),
           AT(sb_cloth_def, springs),
           AT(sb_cloth_def, spring_rest_lengths), AT(sb_cloth_def, spring_tension_stiffness),
           AT(sb_cloth_def, spring_compression_stiffness), AT(sb_cloth_def, spring_max_force),
           AT(sb_cloth_def, internal_springs), AT(sb_cloth_def, internal_spring_max_length),
           AT(sb_cloth_def, internal_spring_max_diversion), AT(sb_cloth_def, internal_spring_normal_check),
           AT(sb_cloth_def, internal_tension_stiffness), AT(sb_cloth_def, internal_compression_stiffness),
           AT(sb_cloth_def, internal_vertex_stiffness), AT(sb_cloth_def, stretch_scale), AT(sb_cloth_def, compression_scale), AT(sb_cloth_def, shear_scale),
           AT(sb_cloth_def, bend_scale), AT(sb_cloth_def, self_friction), AT(sb_cloth_def, self_collision_off),
           AT(sb_cloth_def, object_collision_off), AT(sb_cloth_def, max_stretch), AT(sb_cloth_def, max_compression)),
    LAYOUT(sb_collider_def, AT(sb_collider_def, vertex_count), AT(sb_collider_def, positions),
           AT(sb_collider_def, triangle_count), AT(sb_collider_def, triangles), AT(sb_collider_def, thickness),
           AT(sb_collider_def, friction)),
    LAYOUT(sb_body_def, AT(sb_body_def, type), AT(sb_body_def, shape), AT(sb_body_def, vertex_count),
           AT(sb_body_def, vertices), AT(sb_body_def, triangle_count), AT(sb_body_def, triangles),
           AT(sb_body_def, center), AT(sb_body_def, radius), AT(sb_body_def, half_extents), AT(sb_body_def, rotation),
           AT(sb_body_def, mass), AT(sb_body_def, friction), AT(sb_body_def, restitution),
           AT(sb_body_def, linear_velocity), AT(sb_body_def, angular_velocity), AT(sb_body_def, linear_damping),
           AT(sb_body_def, angular_damping), AT(sb_body_def, collision_groups), AT(sb_body_def, use_deactivation),
           AT(sb_body_def, start_deactivated), AT(sb_body_def, deactivate_linear_velocity),
           AT(sb_body_def, deactivate_angular_velocity), AT(sb_body_def, deactivate_time),
           AT(sb_body_def, part_count), AT(sb_body_def, parts), AT(sb_body_def, feels_cloth)),
    LAYOUT(sb_body_part, AT(sb_body_part, shape), AT(sb_body_part, vertex_count), AT(sb_body_part, vertices),
           AT(sb_body_part, triangle_count), AT(sb_body_part, triangles), AT(sb_body_part, center),
           AT(sb_body_part, radius), AT(sb_body_part, half_extents), AT(sb_body_part, rotation)),
    LAYOUT(sb_body_state, AT(sb_body_state, position), AT(sb_body_state, orientation),
           AT(sb_body_state, linear_velocity), AT(sb_body_state, angular_velocity), AT(sb_body_state, linear_momentum),
           AT(sb_body_state, angular_momentum), AT(sb_body_state, kinetic_energy), AT(sb_body_state, mass),
           AT(sb_body_state, contact_force), AT(sb_body_state, contacts), AT(sb_body_state, sleeping)),
    LAYOUT(sb_cloth_info, AT(sb_cloth_info, vertex_count), AT(sb_cloth_info, triangle_count),
           AT(sb_cloth_info, degenerate_triangles), AT(sb_cloth_info, bend_edges),
           AT(sb_cloth_info, nonmanifold_edges), AT(sb_cloth_info, total_mass), AT(sb_cloth_info, rest_area),
           AT(sb_cloth_info, springs), AT(sb_cloth_info, internal_springs)),
    LAYOUT(sb_world_stats, AT(sb_world_stats, time), AT(sb_world_stats, steps), AT(sb_world_stats, rejected_steps),
           AT(sb_world_stats, cg_iterations), AT(sb_world_stats, last_cg_iterations), AT(sb_world_stats, last_step),
           AT(sb_world_stats, last_contacts), AT(sb_world_stats, collisions), AT(sb_world_stats, impact_zones),
           AT(sb_world_stats, strain_violations), AT(sb_world_stats, sleeping_bodies),
           AT(sb_world_stats, rigid_pair_tests), AT(sb_world_stats, rigid_body_moves)),
    LAYOUT(sb_failure, AT(sb_failure, kind), AT(sb_failure, object_kind), AT(sb_failure, object),
           AT(sb_failure, cg_iterations), AT(sb_failure, time), AT(sb_failure, step), AT(sb_failure, cg_residual),
           AT(sb_failure, strain_change), AT(sb_failure, speed)),
    LAYOUT(sb_field_def, AT(sb_field_def, type), AT(sb_field_def, shape), AT(sb_field_def, position),
           AT(sb_field_def, axis), AT(sb_field_def, strength), AT(sb_field_def, flow), AT(sb_field_def, noise),
           AT(sb_field_def, seed), AT(sb_field_def, falloff), AT(sb_field_def, side), AT(sb_field_def, falloff_power),
           AT(sb_field_def, use_min_distance), AT(sb_field_def, min_distance), AT(sb_field_def, use_max_distance),
           AT(sb_field_def, max_distance), AT(sb_field_def, radial_power), AT(sb_field_def, use_min_radius),
           AT(sb_field_def, min_radius), AT(sb_field_def, use_max_radius), AT(sb_field_def, max_radius),
           AT(sb_field_def, noise_size), AT(sb_field_def, global_coordinates), AT(sb_field_def, rest_length),
           AT(sb_field_def, damping), AT(sb_field_def, linear_drag), AT(sb_field_def, quadratic_drag)),
    LAYOUT(sb_strand_def, AT(sb_strand_def, positions), AT(sb_strand_def, strand_vertex_counts),
           AT(sb_strand_def, pins), AT(sb_strand_def, vertex_count), AT(sb_strand_def, strand_count),
           AT(sb_strand_def, pin_count), AT(sb_strand_def, mass_per_length), AT(sb_strand_def, stretch_stiffness),
           AT(sb_strand_def, bend_stiffness), AT(sb_strand_def, damping), AT(sb_strand_def, air_drag),
           AT(sb_strand_def, thickness), AT(sb_strand_def, friction), AT(sb_strand_def, gravity_scale),
           AT(sb_strand_def, max_stretch), AT(sb_strand_def, max_compression),
           AT(sb_strand_def, self_collision)),
    LAYOUT(sb_cloth_id, AT(sb_cloth_id, index)),
    LAYOUT(sb_collider_id, AT(sb_collider_id, index)),
    LAYOUT(sb_body_id, AT(sb_body_id, index)),
    LAYOUT(sb_field_id, AT(sb_field_id, index)),
    LAYOUT(sb_joint_id, AT(sb_joint_id, index)),
    LAYOUT(sb_joint_def, AT(sb_joint_def, type), AT(sb_joint_def, body_a), AT(sb_joint_def, body_b),
           AT(sb_joint_def, pivot), AT(sb_joint_def, rotation), AT(sb_joint_def, use_limit), AT(sb_joint_def, lower),
           AT(sb_joint_def, upper), AT(sb_joint_def, use_motor), AT(sb_joint_def, motor_velocity),
           AT(sb_joint_def, motor_max_force), AT(sb_joint_def, use_spring), AT(sb_joint_def, spring_stiffness),
           AT(sb_joint_def, spring_damping), AT(sb_joint_def, disable_collisions), AT(sb_joint_def, breakable),
           AT(sb_joint_def, breaking_threshold), AT(sb_joint_def, breaking_step)),
};

/* Bindings mirror every enum field as an int32 (the add-on: c_int32), and pass ids as a struct
 * of one int32 (a ctypes Structure of one c_int32 field). */
_Static_assert(sizeof(sb_result) == 4 && sizeof(sb_integrator) == 4 && sizeof(sb_body_type) == 4 &&
                   sizeof(sb_shape) == 4 && sizeof(sb_failure_kind) == 4 && sizeof(sb_object_kind) == 4 &&
                   sizeof(sb_field_type) == 4 && sizeof(sb_field_shape) == 4 && sizeof(sb_falloff_shape) == 4 &&
                   sizeof(sb_field_side) == 4 && sizeof(sb_joint_type) == 4,
               "an enum is 4 bytes");
_Static_assert(sizeof(sb_cloth_id) == 4 && sizeof(sb_collider_id) == 4 && sizeof(sb_body_id) == 4 &&
                   sizeof(sb_field_id) == 4 && sizeof(sb_joint_id) == 4,
               "an id is one int32");

SB_API sb_result sb_struct_layout(const char *struct_name, uint64_t *out_size, uint64_t *out_offsets,
                                  int32_t capacity, int32_t *out_field_count)
{
    if (!struct_name || !out_size || !out_field_count)
        return error_set(SB_ERROR_INVALID_ARGUMENT, "struct_name, out_size or out_field_count is NULL");
    if (capacity < 0 || (capacity > 0 && !out_offsets))
        return error_set(SB_ERROR_INVALID_ARGUMENT, "capacity %d with %s out_offsets", (int)capacity,
                         out_offsets ? "an" : "no");
    for (size_t i = 0; i < sizeof LAYOUTS / sizeof *LAYOUTS; i++) {
        const struct_layout *l = &LAYOUTS[i];
        if (strncmp(struct_name, l->name, 64) != 0) continue;
        *out_size = l->size;
        *out_field_count = l->field_count;
        for (int32_t k = 0; k < l->field_count && k < capacity; k++) out_offsets[k] = l->offsets[k];
        return SB_OK;
    }
    return error_set(SB_ERROR_NOT_FOUND, "no public struct named '%.64s'", struct_name);
}
