/* The scene: its settings, cloths and clock. */
#ifndef SB_WORLD_H
#define SB_WORLD_H

#include "cloth.h"
#include "collider.h"
#include "collision_response.h"
#include "force_field.h"
#include "rigid_system.h"
#include "simbake.h"
#include "state_io.h"
#include "untangle.h"

/* Wall-clock seconds the implicit cloth steps spent in each part, rejected attempts included:
 * where the time goes, for the benchmarks. Not part of a saved state. */
typedef struct phase_seconds {
    double assembly; /* forces, their Jacobians and the system */
    double solve;    /* CG with its preconditioner (the multigrid's set-up too) */
    double pairs;    /* gathering and updating the collision candidates */
    double response; /* the rest of the collision response: proximity, impulses, zones */
} phase_seconds;

struct sb_world {
    sb_world_def def;
    double time;
    double preferred_step;   /* adapts: halves on rejection, doubles after successes */
    int32_t accepted_in_row;
    cloth **cloths;
    int32_t cloth_count, cloth_capacity;
    collider **colliders;
    int32_t collider_count, collider_capacity;
    force_field **fields;
    int32_t field_count, field_capacity;
    collision_scratch *collision;
    rigid_system rigid;      /* the bodies, stepped before the cloths */
    sb_world_stats stats;
    sb_failure failure;      /* of the last sb_world_step_to */
    phase_seconds phases;
    untangle_plan untangle;  /* tangles of the start pulled apart (untangle.h); not saved: analysed anew */
};

/* The world's fields acting on cloth `cloth_index` at time t. */
static inline field_list world_fields_on(const sb_world *w, int32_t cloth_index, double t)
{
    return (field_list){w->fields, w->field_count, cloth_index, t};
}

/* Advances every cloth to `time` (implemented in world_step.c). */
sb_result world_step_to(sb_world *w, double time);

#endif
