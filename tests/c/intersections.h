/* Exact intersection counts of a world's meshes (intersections.c), for tests and benchmarks. */
#ifndef SB_TEST_INTERSECTIONS_H
#define SB_TEST_INTERSECTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "cloth.h"
#include "collider.h"

/* Number of intersecting triangle pairs (exact test) among the cloths' current positions
 * and between them and the colliders at the time they were last prepared for (x1); -1 when
 * out of memory. Pairs of triangles of one cloth count only when include_self is set. */
int64_t count_intersections(cloth *const *cloths, int32_t cloth_count, collider *const *colliders,
                            int32_t collider_count, bool include_self);

#endif
