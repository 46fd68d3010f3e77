/* Helpers shared by the C tests: a seeded random generator and cloth builders. */
#ifndef SB_TESTUTIL_H
#define SB_TESTUTIL_H

#include <stdint.h>

#include "simbake.h"

typedef struct test_rng { uint64_t state; } test_rng;

static inline test_rng rng_seed(uint64_t seed) { return (test_rng){seed * 2654435761u + 1}; }
/* uniform in [lo, hi) */
double rng_uniform(test_rng *rng, double lo, double hi);

/* A square grid cloth of n x n vertices and side `size` m in the plane z = height,
 * centred on the origin; vertex (i, j) is index j * n + i (i along x). */
typedef struct grid_mesh {
    int32_t n, vertex_count, triangle_count;
    double *positions;
    int32_t *triangles;
} grid_mesh;

grid_mesh grid_mesh_make(int32_t n, double size, double height);
void grid_mesh_free(grid_mesh *mesh);

#endif
