/* The scene: its settings, cloths and clock. */
#ifndef SB_WORLD_H
#define SB_WORLD_H

#include "cloth.h"
#include "collider.h"
#include "collision.h"
#include "simbake.h"

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
    sb_world_stats stats;
};

/* Advances every cloth to `time` (implemented in world_step.c). */
sb_result world_step_to(sb_world *w, double time);

#endif
