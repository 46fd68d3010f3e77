/* The filtered sparse CG against a dense LAPACKE solve of the same implicit-step system. */
#include <criterion/criterion.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cg.h"
#include "cloth.h"
#include "cloth_step.h"
#include "testutil.h"

/* 20x20 cloth pinned at its two corners of the row y = -0.5, deformed and moving, with the
 * system of one implicit step at one step per frame assembled. */
static cloth *hanging_cloth_with_system(void)
{
    grid_mesh g = grid_mesh_make(20, 1.0, 0.0);
    int32_t pins[2] = {0, 19};
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
    for (int32_t i = 0; i < c->vertex_count; i++) {
        c->x[3 * i] *= 1.03;
        c->x[3 * i + 2] += 0.02 * sin(7.0 * c->x[3 * i]) + rng_uniform(&rng, -0.005, 0.005);
        for (int a = 0; a < 3; a++) c->v[3 * i + a] = rng_uniform(&rng, -0.3, 0.3);
    }
    implicit_params params = {{0, 0, -9.81}, 1e-12, 10000, 1.0, INFINITY};
    cloth_build_system(c, 0.0, 1.0 / 24.0, &params);
    return c;
}

/* Dense copy of the block-sparse matrix, row-major N x N. */
static double *dense_from_bsr(const bsr *m)
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

/* Solves the filtered system densely: x = zc + Q y with Qᵀ A Q y = Qᵀ (b - A zc), where Q's
 * columns span each vertex's free directions and zc is the constrained part of z. Each
 * column of Q is one unit direction at one vertex, which keeps the products cheap. */
static void dense_filtered_solve(const bsr *m, const double *b, const uint8_t *kind,
                                 const double *normals, const double *z, double *x)
{
    size_t n = 3 * (size_t)m->n;
    double *a = dense_from_bsr(m);
    int32_t *col_vertex = malloc(n * sizeof *col_vertex);
    vec3 *col_dir = malloc(n * sizeof *col_dir);
    double *zc = calloc(n, sizeof *zc);
    size_t cols = 0;
    for (int32_t i = 0; i < m->n; i++) {
        vec3 zi = v3_load(&z[3 * i]);
        if (kind[i] == FILTER_FREE) {
            vec3 axes[3] = {v3(1, 0, 0), v3(0, 1, 0), v3(0, 0, 1)};
            for (int k = 0; k < 3; k++) col_vertex[cols] = i, col_dir[cols++] = axes[k];
        } else if (kind[i] == FILTER_FIXED) {
            v3_store(&zc[3 * i], zi);
        } else { /* free in the plane ⊥ normal: zc = n nᵀ z */
            vec3 nn = v3_load(&normals[3 * i]);
            vec3 t1 = fabs(nn.x) < 0.9 ? v3_cross(nn, v3(1, 0, 0)) : v3_cross(nn, v3(0, 1, 0));
            t1 = v3_scale(t1, 1.0 / v3_len(t1));
            v3_store(&zc[3 * i], v3_scale(nn, v3_dot(nn, zi)));
            col_vertex[cols] = i, col_dir[cols++] = t1;
            col_vertex[cols] = i, col_dir[cols++] = v3_cross(nn, t1);
        }
    }
    /* AQ (n x cols), then QᵀAQ and Qᵀ(b - A zc) */
    double *aq = malloc(n * cols * sizeof *aq), *red = malloc(cols * cols * sizeof *red);
    double *rhs = malloc(cols * sizeof *rhs), *r = malloc(n * sizeof *r);
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < cols; c++) {
            const double *row = &a[i * n + 3 * (size_t)col_vertex[c]];
            aq[i * cols + c] = row[0] * col_dir[c].x + row[1] * col_dir[c].y + row[2] * col_dir[c].z;
        }
    for (size_t i = 0; i < cols; i++)
        for (size_t j = 0; j < cols; j++) {
            const double *col = &aq[3 * (size_t)col_vertex[i] * cols + j];
            red[i * cols + j] = col_dir[i].x * col[0] + col_dir[i].y * col[cols] + col_dir[i].z * col[2 * cols];
        }
    for (size_t i = 0; i < n; i++) {
        double s = b[i];
        for (size_t k = 0; k < n; k++) s -= a[i * n + k] * zc[k];
        r[i] = s;
    }
    for (size_t c = 0; c < cols; c++) rhs[c] = v3_dot(col_dir[c], v3_load(&r[3 * (size_t)col_vertex[c]]));
    lapack_int info = LAPACKE_dposv(LAPACK_ROW_MAJOR, 'U', (lapack_int)cols, 1, red,
                                    (lapack_int)cols, rhs, 1);
    cr_assert_eq(info, 0, "dense system is not positive definite (info %d)", (int)info);
    memcpy(x, zc, n * sizeof *x);
    for (size_t c = 0; c < cols; c++)
        for (int k = 0; k < 3; k++) x[3 * (size_t)col_vertex[c] + k] += v3_comp(col_dir[c], k) * rhs[c];
    free(a), free(col_vertex), free(col_dir), free(zc), free(aq), free(red), free(rhs), free(r);
}

static double relative_difference(const double *a, const double *b, size_t n)
{
    double d = 0, s = 0;
    for (size_t i = 0; i < n; i++) {
        d += (a[i] - b[i]) * (a[i] - b[i]);
        s += b[i] * b[i];
    }
    return sqrt(d / s);
}

Test(cg, implicit_step_matches_dense_lapacke_solve)
{
    cloth *c = hanging_cloth_with_system();
    size_t n = 3 * (size_t)c->vertex_count;
    double *x_cg = calloc(n, sizeof *x_cg), *x_dense = calloc(n, sizeof *x_dense);
    cg_filter filter = {c->filter_kind, NULL};
    cg_result res = cg_solve(&c->system, c->rhs, &filter, c->z, x_cg, 1e-12, 10000, &c->cg);
    cr_assert(res.converged, "CG stopped after %d iterations at %g", res.iterations, res.relative_residual);
    dense_filtered_solve(&c->system, c->rhs, c->filter_kind, NULL, c->z, x_dense);
    double err = relative_difference(x_cg, x_dense, n);
    cr_assert_lt(err, 1e-8, "CG vs dense: relative difference %g after %d iterations", err, res.iterations);
    /* pinned vertices take their prescribed Δv exactly */
    for (int p = 0; p < c->pin_count; p++)
        for (int a = 0; a < 3; a++) cr_assert_eq(x_cg[3 * c->pins[p] + a], c->z[3 * c->pins[p] + a]);
    free(x_cg), free(x_dense);
    cloth_destroy(c);
}

Test(cg, plane_filters_match_dense_solve)
{
    cloth *c = hanging_cloth_with_system();
    size_t n = 3 * (size_t)c->vertex_count;
    uint8_t *kind = calloc((size_t)c->vertex_count, 1);
    double *proj = calloc(9 * (size_t)c->vertex_count, sizeof *proj);
    double *normals = calloc(n, sizeof *normals);
    double *z = calloc(n, sizeof *z);
    test_rng rng = rng_seed(5);
    for (int32_t i = 0; i < c->vertex_count; i++) {
        double pick = rng_uniform(&rng, 0, 1);
        for (int a = 0; a < 3; a++) z[3 * i + a] = rng_uniform(&rng, -0.2, 0.2);
        if (pick < 0.2) {
            kind[i] = FILTER_FIXED;
        } else if (pick < 0.5) { /* contact-like: free to slide in a plane */
            kind[i] = FILTER_PROJECT;
            vec3 nn = v3(rng_uniform(&rng, -1, 1), rng_uniform(&rng, -1, 1), rng_uniform(&rng, -1, 1));
            nn = v3_scale(nn, 1.0 / v3_len(nn));
            v3_store(&normals[3 * i], nn);
            mat3 s = m3_add(m3_identity(), m3_scale(m3_outer(nn, nn), -1.0));
            for (int r = 0; r < 3; r++)
                for (int q = 0; q < 3; q++) proj[9 * i + 3 * r + q] = s.m[r][q];
        }
    }
    double *x_cg = calloc(n, sizeof *x_cg), *x_dense = calloc(n, sizeof *x_dense);
    for (size_t i = 0; i < n; i++) x_cg[i] = rng_uniform(&rng, -1, 1); /* arbitrary guess */
    cg_filter filter = {kind, proj};
    cg_result res = cg_solve(&c->system, c->rhs, &filter, z, x_cg, 1e-12, 10000, &c->cg);
    cr_assert(res.converged);
    dense_filtered_solve(&c->system, c->rhs, kind, normals, z, x_dense);
    double err = relative_difference(x_cg, x_dense, n);
    cr_assert_lt(err, 1e-8, "CG vs dense with plane filters: %g", err);
    free(kind), free(proj), free(normals), free(z), free(x_cg), free(x_dense);
    cloth_destroy(c);
}

Test(cg, block_sparse_product_matches_dense)
{
    cloth *c = hanging_cloth_with_system();
    size_t n = 3 * (size_t)c->vertex_count;
    double *a = dense_from_bsr(&c->system);
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    test_rng rng = rng_seed(9);
    for (size_t i = 0; i < n; i++) x[i] = rng_uniform(&rng, -1, 1);
    bsr_matvec(&c->system, x, y);
    for (size_t i = 0; i < n; i++) {
        double s = 0;
        for (size_t k = 0; k < n; k++) s += a[i * n + k] * x[k];
        cr_assert_float_eq(y[i], s, 1e-9 * (1 + fabs(s)));
    }
    /* the assembled matrix is symmetric */
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < i; k++)
            cr_assert_float_eq(a[i * n + k], a[k * n + i], 1e-9 * (1 + fabs(a[i * n + k])));
    free(a), free(x), free(y);
    cloth_destroy(c);
}
