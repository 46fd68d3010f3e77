#include "testutil.h"

#include <stdlib.h>

double rng_uniform(test_rng *rng, double lo, double hi)
{
    /* xorshift64* */
    uint64_t x = rng->state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng->state = x;
    uint64_t r = x * 2685821657736338717ull;
    return lo + (hi - lo) * (double)(r >> 11) * (1.0 / 9007199254740992.0);
}

grid_mesh grid_mesh_make(int32_t n, double size, double height)
{
    grid_mesh m = {.n = n, .vertex_count = n * n, .triangle_count = 2 * (n - 1) * (n - 1)};
    m.positions = malloc(sizeof(double) * 3 * (size_t)m.vertex_count);
    m.triangles = malloc(sizeof(int32_t) * 3 * (size_t)m.triangle_count);
    double spacing = size / (n - 1);
    for (int32_t j = 0; j < n; j++)
        for (int32_t i = 0; i < n; i++) {
            double *p = &m.positions[3 * (j * n + i)];
            p[0] = -0.5 * size + i * spacing;
            p[1] = -0.5 * size + j * spacing;
            p[2] = height;
        }
    int32_t t = 0;
    for (int32_t j = 0; j + 1 < n; j++)
        for (int32_t i = 0; i + 1 < n; i++) {
            int32_t a = j * n + i, b = a + 1, c = a + n, d = c + 1;
            /* alternate the diagonal so the mesh has no preferred shear direction */
            if ((i + j) % 2 == 0) {
                int32_t tri[6] = {a, b, d, a, d, c};
                for (int k = 0; k < 6; k++) m.triangles[3 * t + k] = tri[k];
            } else {
                int32_t tri[6] = {a, b, c, b, d, c};
                for (int k = 0; k < 6; k++) m.triangles[3 * t + k] = tri[k];
            }
            t += 2;
        }
    return m;
}

void grid_mesh_free(grid_mesh *mesh)
{
    free(mesh->positions);
    free(mesh->triangles);
    mesh->positions = NULL;
    mesh->triangles = NULL;
}
