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
#include "threads.h"
#include "threads_load.h"
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
    thread_load load;        /* what the thread count of a world of def.threads = 0 was chosen from */
    untangle_plan untangle;  /* tangles of the start pulled apart (untangle.h); its pulls are saved */
};

/* The thread count around one of the world's public calls (threads.h: threads_enter; give the
 * caller's back with threads_leave): the world's own when def.threads > 0; with 0, the
 * caller's, or fewer when other processes keep the cores busy (threads_load.h). */
static inline int32_t world_threads_enter(sb_world *w)
{
    if (w->def.threads > 0) return threads_enter(w->def.threads);
    int32_t ceiling = thread_count(), chosen = threads_load_choose(&w->load, ceiling);
    return chosen < ceiling ? threads_enter(chosen) : 0;
}

/* The world's fields acting on cloth `cloth_index` at time t. */
static inline field_list world_fields_on(const sb_world *w, int32_t cloth_index, double t)
{
    return (field_list){w->fields, w->field_count, cloth_index, t};
}

/* Advances every cloth to `time` (implemented in world_step.c). */
sb_result world_step_to(sb_world *w, double time);

#endif
