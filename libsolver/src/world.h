/* The scene: its settings, cloths and clock. */
#ifndef SB_WORLD_H
#define SB_WORLD_H

#include "cloth.h"
#include "collider.h"
#include "collision.h"
#include "rigid_body.h"
#include "simbake.h"
#include "state_io.h"

typedef struct rigid_scratch rigid_scratch;

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
    collision_scratch *collision;
    rigid_body **bodies;
    int32_t body_count, body_capacity;
    rigid_scratch *rigid;
    sb_world_stats stats;
    sb_failure failure;      /* of the last sb_world_step_to */
    phase_seconds phases;
};

/* Advances every cloth to `time` (implemented in world_step.c). */
sb_result world_step_to(sb_world *w, double time);

/* Rigid bodies over [t, t + h] in steps of at most rigid_max_step (rigid_step.c); on
 * failure they are back at t. */
sb_result rigid_advance(sb_world *w, double t, double h);
void rigid_scratch_free(rigid_scratch *s);
/* Bodies back where the last rigid_advance found them. */
void rigid_undo_advance(sb_world *w);
/* Colliders carried by bodies move with them over the step rigid_advance just took. */
void rigid_carry_colliders(sb_world *w, double t, double h);
/* The rigid step's memory of the last one (the broad phase's order, warm-start impulses) in
 * a saved state (state.c); reading runs once per state_pass, false with the error set. */
void rigid_state_write(const sb_world *w, state_writer *out);
bool rigid_state_read(sb_world *w, state_reader *in);

#endif
