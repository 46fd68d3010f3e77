/* Coherent sort and sweep (course notes, "Rigid Body Simulation" §7.2): bodies stay sorted
 * by the low end of their boxes along x from one step to the next, so an insertion sort
 * does little work; a sweep along that order finds every pair of overlapping boxes. About
 * O(n + k) for n bodies and k overlaps when motion is coherent. */
#ifndef SB_BROADPHASE_H
#define SB_BROADPHASE_H

#include <stdbool.h>
#include <stdint.h>

#include "collision_bvh.h"

typedef struct broadphase {
    int32_t count, capacity;
    int32_t *order; /* body ids by box.lo.x */
} broadphase;

/* Reports every pair (a < b by id) whose boxes overlap and that `wanted` accepts. */
typedef bool (*broadphase_filter)(void *ctx, int32_t a, int32_t b);
typedef void (*broadphase_report)(void *ctx, int32_t a, int32_t b);
bool broadphase_pairs(broadphase *bp, const aabb *boxes, int32_t count, broadphase_filter wanted,
                      broadphase_report report, void *ctx);
void broadphase_free(broadphase *bp);

#endif
