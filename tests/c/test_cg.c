/* The filtered sparse CG against a dense LAPACKE solve of the same implicit-step system. */
#include <criterion/criterion.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "linalg_cg.h"
#include "cloth.h"
#include "cloth_step.h"
#include "linalg_band.h"
#include "strands.h"
#include "system_fixture.h"
#include "testutil.h"

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

Test(cg, implicit_step_matches_dense_lapacke_solve)
{
    cloth *c = hanging_cloth_with_system(20);
    size_t n = 3 * (size_t)c->model.vertex_count;
    double *x_cg = calloc(n, sizeof *x_cg), *x_dense = calloc(n, sizeof *x_dense);
    cg_filter filter = {c->scratch.filter_kind, NULL};
    cg_result res = cg_solve(&c->scratch.system, c->scratch.rhs, &filter, c->scratch.z, x_cg, 1e-12, 10000, &c->scratch.cg, &c->state.cg);
    cr_assert(res.converged, "CG stopped after %d iterations at %g", res.iterations, res.relative_residual);
    dense_filtered_solve(&c->scratch.system, c->scratch.rhs, c->scratch.filter_kind, NULL, c->scratch.z, x_dense);
    double err = relative_difference(x_cg, x_dense, n);
    cr_assert_lt(err, 1e-8, "CG vs dense: relative difference %g after %d iterations", err, res.iterations);
    /* pinned vertices take their prescribed Δv exactly */
    for (int p = 0; p < c->model.pin_count; p++)
        for (int a = 0; a < 3; a++) cr_assert_eq(x_cg[3 * c->model.pins[p] + a], c->scratch.z[3 * c->model.pins[p] + a]);
    free(x_cg), free(x_dense);
    cloth_destroy(c);
}

typedef enum test_preconditioner { TEST_JACOBI, TEST_MULTIGRID, TEST_BAND } test_preconditioner;

/* Fixed and plane filters on a third of the vertices each, an arbitrary initial guess; the
 * number of CG iterations it took. */
static int32_t check_plane_filters_against_dense(cloth *c, test_preconditioner kind_wanted, double tolerance)
{
    c->scratch.cg.multigrid_mode = kind_wanted == TEST_MULTIGRID ? CG_MULTIGRID_ALWAYS : CG_MULTIGRID_NEVER;
    if (kind_wanted == TEST_BAND)
        cr_assert(cg_workspace_use_band(&c->scratch.cg, &c->scratch.system, 2));
    size_t n = 3 * (size_t)c->model.vertex_count;
    uint8_t *kind = calloc((size_t)c->model.vertex_count, 1);
    double *proj = calloc(9 * (size_t)c->model.vertex_count, sizeof *proj);
    double *normals = calloc(n, sizeof *normals);
    double *z = calloc(n, sizeof *z);
    test_rng rng = rng_seed(5);
    for (int32_t i = 0; i < c->model.vertex_count; i++) {
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
    cg_result res = cg_solve(&c->scratch.system, c->scratch.rhs, &filter, z, x_cg, 1e-12, 10000, &c->scratch.cg, &c->state.cg);
    cr_assert(res.converged);
    cr_assert_eq(res.multigrid, kind_wanted == TEST_MULTIGRID);
    cr_assert_eq(res.band, kind_wanted == TEST_BAND);
    dense_filtered_solve(&c->scratch.system, c->scratch.rhs, kind, normals, z, x_dense);
    double err = relative_difference(x_cg, x_dense, n);
    cr_assert_lt(err, tolerance, "CG vs dense with plane filters (preconditioner %d): %g", (int)kind_wanted, err);
    free(kind), free(proj), free(normals), free(z), free(x_cg), free(x_dense);
    return res.iterations;
}

static void check_plane_filters_against_dense_solve(bool multigrid)
{
    cloth *c = hanging_cloth_with_system(20);
    check_plane_filters_against_dense(c, multigrid ? TEST_MULTIGRID : TEST_JACOBI, 1e-8);
    cloth_destroy(c);
}

Test(cg, plane_filters_match_dense_solve) { check_plane_filters_against_dense_solve(false); }

/* Three curled strands, bent off their rest shape and moving: their system is block
 * pentadiagonal per strand, so its banded factor is the filtered system's exact inverse. */
static cloth *curled_strands_with_system(void)
{
    enum { STRANDS = 3, SEGMENTS = 12, N = STRANDS * (SEGMENTS + 1) };
    double p[3 * N];
    int32_t counts[STRANDS], pins[STRANDS];
    for (int s = 0; s < STRANDS; s++) {
        counts[s] = SEGMENTS + 1, pins[s] = s * (SEGMENTS + 1);
        for (int i = 0; i <= SEGMENTS; i++) {
            double *q = &p[3 * (s * (SEGMENTS + 1) + i)];
            q[0] = 0.05 * cos(0.6 * i) + 0.2 * s, q[1] = 0.05 * sin(0.6 * i), q[2] = -0.02 * i;
        }
    }
    sb_strand_def d = sb_default_strand_def();
    d.positions = p, d.vertex_count = N, d.strand_vertex_counts = counts, d.strand_count = STRANDS;
    d.pins = pins, d.pin_count = STRANDS, d.bend_stiffness = 1e-3, d.damping = 0.05, d.air_drag = 0.1;
    cloth *c;
    double gravity[3] = {0, 0, -9.81};
    cr_assert_eq(strands_create(&d, 0.0, gravity, &c), SB_OK, "%s", sb_last_error());
    test_rng rng = rng_seed(8);
    for (int32_t i = 0; i < c->model.vertex_count; i++)
        for (int a = 0; a < 3; a++) {
            c->state.x[3 * i + a] += rng_uniform(&rng, -0.003, 0.003);
            c->state.v[3 * i + a] = rng_uniform(&rng, -0.3, 0.3);
        }
    implicit_params params = {{0, 0, -9.81}, 1e-12, 10000, 1.0, INFINITY, {NULL, 0, 0, 0.0}, NULL};
    cloth_build_system(c, 0.0, 1.0 / 24.0, &params);
    return c;
}

Test(cg, strands_banded_factor_solves_in_one_iteration)
{
    cloth *c = curled_strands_with_system();
    cr_assert_eq(c->scratch.cg.band.chain_count, 3, "one chain a strand, got %d", c->scratch.cg.band.chain_count);
    int32_t iterations = check_plane_filters_against_dense(c, TEST_BAND, 1e-8);
    cr_assert_leq(iterations, 2, "the exact factor took %d iterations", iterations);
    cloth_destroy(c);
    /* block Jacobi on the same system, for comparison: many more iterations, and the stiff
     * segments (condition number ~1e8) leave it further from the dense answer */
    c = curled_strands_with_system();
    band_free(&c->scratch.cg.band);
    int32_t jacobi = check_plane_filters_against_dense(c, TEST_JACOBI, 1e-6);
    cr_assert_gt(jacobi, 5 * iterations, "block Jacobi took %d iterations, the band %d", jacobi, iterations);
    cloth_destroy(c);
}

/* On a cloth, whose blocks reach far beyond two of the diagonal, the band (blocks left out)
 * still preconditions: CG reaches the dense answer, or block Jacobi takes over where the
 * truncated band is not positive definite. */
Test(cg, band_of_a_cloth_is_an_inexact_preconditioner)
{
    cloth *c = hanging_cloth_with_system(12);
    cr_assert(cg_workspace_use_band(&c->scratch.cg, &c->scratch.system, 2));
    size_t n = 3 * (size_t)c->model.vertex_count;
    double *x_cg = calloc(n, sizeof *x_cg), *x_dense = calloc(n, sizeof *x_dense);
    cg_filter filter = {c->scratch.filter_kind, NULL};
    cg_result res = cg_solve(&c->scratch.system, c->scratch.rhs, &filter, c->scratch.z, x_cg, 1e-12, 10000,
                             &c->scratch.cg, &c->state.cg);
    cr_assert(res.converged);
    cr_assert_gt(res.iterations, 2, "a truncated band cannot be exact");
    dense_filtered_solve(&c->scratch.system, c->scratch.rhs, c->scratch.filter_kind, NULL, c->scratch.z, x_dense);
    cr_assert_lt(relative_difference(x_cg, x_dense, n), 1e-8);
    free(x_cg), free(x_dense);
    cloth_destroy(c);
}

/* A matrix that is not positive definite: the factor refuses it. */
Test(cg, band_factor_refuses_an_indefinite_matrix)
{
    int32_t pairs[2] = {0, 1};
    bsr_elements set = {pairs, 1, 2};
    bsr m;
    cr_assert(bsr_build_pattern(&m, 2, &set, 1));
    band_factor b;
    cr_assert(band_build(&b, &m, 2));
    cr_assert_eq(b.chain_count, 1);
    bsr_zero(&m);
    for (int32_t k = 0; k < m.block_count; k++)
        for (int d = 0; d < 3; d++) m.vals[9 * k + 4 * d] = m.cols[k] == (k < m.row_start[1] ? 0 : 1) ? 1.0 : 2.0;
    cr_assert_not(band_factor_update(&b, &m, NULL), "[[I, 2I], [2I, I]] is indefinite");
    for (int32_t k = 0; k < m.block_count; k++)
        for (int d = 0; d < 3; d++) m.vals[9 * k + 4 * d] = m.cols[k] == (k < m.row_start[1] ? 0 : 1) ? 2.0 : 1.0;
    cr_assert(band_factor_update(&b, &m, NULL));
    /* [[2I, I], [I, 2I]]⁻¹ (1, 2, 3, 4, 5, 6) */
    double in[6] = {1, 2, 3, 4, 5, 6}, out[6];
    band_apply(&b, in, out);
    for (int a = 0; a < 3; a++) {
        cr_assert_float_eq(out[a], (2.0 * in[a] - in[3 + a]) / 3.0, 1e-14);
        cr_assert_float_eq(out[3 + a], (2.0 * in[3 + a] - in[a]) / 3.0, 1e-14);
    }
    band_free(&b);
    bsr_free(&m);
}

/* The V-cycle sees the filters through S A S + (I - S); the answer must not depend on it */
Test(cg, multigrid_with_plane_filters_matches_dense_solve) { check_plane_filters_against_dense_solve(true); }

Test(cg, block_sparse_product_matches_dense)
{
    cloth *c = hanging_cloth_with_system(20);
    size_t n = 3 * (size_t)c->model.vertex_count;
    double *a = dense_from_bsr(&c->scratch.system);
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    test_rng rng = rng_seed(9);
    for (size_t i = 0; i < n; i++) x[i] = rng_uniform(&rng, -1, 1);
    bsr_matvec(&c->scratch.system, x, y);
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
