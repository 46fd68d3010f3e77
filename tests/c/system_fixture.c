#include "system_fixture.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "cloth_step.h"
#include "testutil.h"

cloth *hanging_cloth_with_system(int32_t n)
{
    grid_mesh g = grid_mesh_make(n, 1.0, 0.0);
    int32_t pins[2] = {0, n - 1};
    sb_cloth_def def = sb_default_cloth_def();
    def.vertex_count = g.vertex_count;
    def.positions = g.positions;
    def.triangle_count = g.triangle_count;
    def.triangles = g.triangles;
    def.stretch_stiffness = 5000.0;
    def.bend_stiffness = 1e-3;
    def.pin_count = 2;
    def.pins = pins;
    cloth *c;
    double gravity[3] = {0, 0, -9.81};
    cr_assert_eq(cloth_create(&def, 0.0, gravity, &c), SB_OK, "%s", sb_last_error());
    grid_mesh_free(&g);
    /* stretch, wrinkle and set it moving so every term of the Hessian is active */
    test_rng rng = rng_seed(3);
    for (int32_t i = 0; i < c->model.vertex_count; i++) {
        c->state.x[3 * i] *= 1.03;
        c->state.x[3 * i + 2] += 0.02 * sin(7.0 * c->state.x[3 * i]) + rng_uniform(&rng, -0.005, 0.005);
        for (int a = 0; a < 3; a++) c->state.v[3 * i + a] = rng_uniform(&rng, -0.3, 0.3);
    }
    implicit_params params = {{0, 0, -9.81}, 1e-12, 10000, 1.0, INFINITY, {NULL, 0, 0, 0.0}, NULL};
    cloth_build_system(c, 0.0, 1.0 / 24.0, &params);
    return c;
}

double *dense_from_bsr(const bsr *m)
{
    size_t n = 3 * (size_t)m->n;
    double *a = calloc(n * n, sizeof *a);
    for (int32_t i = 0; i < m->n; i++)
        for (int32_t k = m->row_start[i]; k < m->row_start[i + 1]; k++)
            for (int r = 0; r < 3; r++)
                for (int s = 0; s < 3; s++)
                    a[(3 * (size_t)i + r) * n + 3 * (size_t)m->cols[k] + s] = m->vals[9 * (size_t)k + 3 * r + s];
    return a;
}

double relative_difference(const double *a, const double *b, size_t n)
{
    double d = 0, s = 0;
    for (size_t i = 0; i < n; i++) {
        d += (a[i] - b[i]) * (a[i] - b[i]);
        s += b[i] * b[i];
    }
    return sqrt(d / s);
}
