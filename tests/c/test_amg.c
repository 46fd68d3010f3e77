/* The multigrid preconditioner: its hierarchy, its coarse matrices against a dense Pᵀ Â P,
 * the V-cycle as a symmetric positive definite operator, and what it buys the CG. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "linalg_amg.h"
#include "linalg_cg.h"
#include "system_fixture.h"
#include "testutil.h"

/* Random fixed and plane filters on about a fifth of the vertices each. */
typedef struct filters {
    uint8_t *kind;
    double *proj;
} filters;

static filters random_filters(int32_t n, uint64_t seed)
{
    filters f = {calloc((size_t)n, 1), calloc(9 * (size_t)n, sizeof(double))};
    test_rng rng = rng_seed(seed);
    for (int32_t i = 0; i < n; i++) {
        double pick = rng_uniform(&rng, 0, 1);
        if (pick < 0.2) {
            f.kind[i] = FILTER_FIXED;
        } else if (pick < 0.4) {
            vec3 nn = v3(rng_uniform(&rng, -1, 1), rng_uniform(&rng, -1, 1), rng_uniform(&rng, -1, 1));
            nn = v3_scale(nn, 1.0 / v3_len(nn));
            mat3 s = m3_add(m3_identity(), m3_scale(m3_outer(nn, nn), -1.0));
            f.kind[i] = FILTER_PROJECT;
            for (int r = 0; r < 3; r++)
                for (int q = 0; q < 3; q++) f.proj[9 * (size_t)i + 3 * (size_t)r + (size_t)q] = s.m[r][q];
        }
    }
    return f;
}

static void filters_free(filters *f) { free(f->kind), free(f->proj); }

Test(amg, hierarchy_shrinks_to_a_small_coarsest_level)
{
    cloth *c = hanging_cloth_with_system(40);
    amg m;
    cr_assert(amg_build(&m, &c->scratch.system));
    cr_assert_geq(m.level_count, 3, "1600 rows in %d levels", m.level_count);
    for (int l = 0; l + 1 < m.level_count; l++) {
        const amg_level *lv = &m.levels[l];
        int32_t n = l == 0 ? c->scratch.system.n : lv->a.n;
        cr_assert_eq(m.levels[l + 1].a.n, lv->coarse_n);
        cr_assert_lt(lv->coarse_n * 4, n, "level %d: %d rows to %d", l, n, lv->coarse_n);
        /* every row in one aggregate, every aggregate holding a row, P reaching the row's own */
        int32_t *size = calloc((size_t)lv->coarse_n, sizeof *size);
        for (int32_t i = 0; i < n; i++) {
            cr_assert(lv->aggregate[i] >= 0 && lv->aggregate[i] < lv->coarse_n);
            size[lv->aggregate[i]]++;
            bool own = false;
            for (int32_t e = lv->p_start[i]; e < lv->p_start[i + 1]; e++) own = own || lv->p_cols[e] == lv->aggregate[i];
            cr_assert(own);
        }
        for (int32_t g = 0; g < lv->coarse_n; g++) cr_assert_gt(size[g], 0);
        free(size);
    }
    cr_assert_leq(m.levels[m.level_count - 1].a.n, 64);
    amg_free(&m);
    cloth_destroy(c);
}

/* Dense Â = S A S + (I - S), through filter_block, from A's values rounded to single
 * precision as the hierarchy takes them (linalg_amg.h). */
static double *dense_filtered(const bsr *a, const cg_filter *f)
{
    size_t dim = 3 * (size_t)a->n;
    double *d = calloc(dim * dim, sizeof *d);
    for (int32_t i = 0; i < a->n; i++)
        for (int32_t k = a->row_start[i]; k < a->row_start[i + 1]; k++) {
            double b[9], single[9];
            for (int e = 0; e < 9; e++) single[e] = (float)a->vals[9 * (size_t)k + (size_t)e];
            filter_block(f, i, a->cols[k], single, b);
            for (int r = 0; r < 3; r++)
                for (int q = 0; q < 3; q++) d[(3 * (size_t)i + (size_t)r) * dim + 3 * (size_t)a->cols[k] + (size_t)q] = b[3 * r + q];
        }
    return d;
}

Test(amg, coarse_matrix_is_the_galerkin_product_of_the_filtered_system)
{
    cloth *c = hanging_cloth_with_system(16);
    filters f = random_filters(c->model.vertex_count, 11);
    cg_filter filter = {f.kind, f.proj};
    amg m;
    cr_assert(amg_build(&m, &c->scratch.system));
    cr_assert(amg_update(&m, &c->scratch.system, &filter));
    const amg_level *lv = &m.levels[0];
    size_t fine = 3 * (size_t)c->model.vertex_count, coarse = 3 * (size_t)lv->coarse_n;
    double *ahat = dense_filtered(&c->scratch.system, &filter);
    double *p = calloc(fine * coarse, sizeof *p);
    for (int32_t i = 0; i < c->model.vertex_count; i++)
        for (int32_t e = lv->p_start[i]; e < lv->p_start[i + 1]; e++)
            for (int k = 0; k < 3; k++) p[(3 * (size_t)i + (size_t)k) * coarse + 3 * (size_t)lv->p_cols[e] + (size_t)k] = lv->p_vals[e];
    double *ap = calloc(fine * coarse, sizeof *ap), *expected = calloc(coarse * coarse, sizeof *expected);
    for (size_t i = 0; i < fine; i++)
        for (size_t k = 0; k < fine; k++)
            if (ahat[i * fine + k] != 0.0)
                for (size_t j = 0; j < coarse; j++) ap[i * coarse + j] += ahat[i * fine + k] * p[k * coarse + j];
    for (size_t i = 0; i < fine; i++)
        for (size_t I = 0; I < coarse; I++)
            if (p[i * coarse + I] != 0.0)
                for (size_t J = 0; J < coarse; J++) expected[I * coarse + J] += p[i * coarse + I] * ap[i * coarse + J];
    double *got = dense_from_bsr(&m.levels[1].a);
    double scale = 0.0;
    for (size_t k = 0; k < coarse * coarse; k++) scale = fmax(scale, fabs(expected[k]));
    for (size_t k = 0; k < coarse * coarse; k++)
        cr_assert_float_eq(got[k], expected[k], 1e-12 * scale, "entry %zu: %g, dense %g", k, got[k], expected[k]);
    free(ahat), free(p), free(ap), free(expected), free(got);
    filters_free(&f);
    amg_free(&m);
    cloth_destroy(c);
}

Test(amg, v_cycle_is_symmetric_and_positive)
{
    cloth *c = hanging_cloth_with_system(40);
    filters f = random_filters(c->model.vertex_count, 12);
    cg_filter filter = {f.kind, f.proj};
    amg m;
    cr_assert(amg_build(&m, &c->scratch.system));
    cr_assert(amg_update(&m, &c->scratch.system, &filter));
    size_t len = 3 * (size_t)c->model.vertex_count;
    double *u = malloc(len * sizeof *u), *v = malloc(len * sizeof *v);
    double *mu = malloc(len * sizeof *mu), *mv = malloc(len * sizeof *mv);
    test_rng rng = rng_seed(13);
    for (int trial = 0; trial < 4; trial++) {
        for (size_t k = 0; k < len; k++) u[k] = rng_uniform(&rng, -1, 1), v[k] = rng_uniform(&rng, -1, 1);
        amg_apply(&m, u, mu);
        amg_apply(&m, v, mv);
        double umv = 0, vmu = 0, umu = 0, norm = 0;
        for (size_t k = 0; k < len; k++) umv += u[k] * mv[k], vmu += v[k] * mu[k], umu += u[k] * mu[k];
        for (size_t k = 0; k < len; k++) norm += mu[k] * mu[k];
        cr_assert_gt(umu, 0.0);
        cr_assert_float_eq(umv, vmu, 1e-9 * sqrt(norm * (double)len), "uᵀMv %.15g, vᵀMu %.15g", umv, vmu);
    }
    free(u), free(v), free(mu), free(mv);
    filters_free(&f);
    amg_free(&m);
    cloth_destroy(c);
}

static cg_result solve(cloth *c, cg_multigrid_mode mode, double tolerance, double *x)
{
    size_t len = 3 * (size_t)c->model.vertex_count;
    memset(x, 0, len * sizeof *x);
    c->scratch.cg.multigrid_mode = mode;
    c->scratch.cg.multigrid_min_rows = 64 * 64;
    cg_filter filter = {c->scratch.filter_kind, c->scratch.filter_proj};
    return cg_solve(&c->scratch.system, c->scratch.rhs, &filter, c->scratch.z, x, tolerance, 100000, &c->scratch.cg, &c->state.cg);
}

/* Block Jacobi's iterations grow about as the cloth's width; the V-cycle's barely grow. */
Test(amg, iterations_barely_grow_with_the_cloth, .timeout = 600)
{
    int32_t sizes[2] = {32, 64}, jacobi[2], multigrid[2];
    for (int s = 0; s < 2; s++) {
        cloth *c = hanging_cloth_with_system(sizes[s]);
        double *x = malloc(3 * (size_t)c->model.vertex_count * sizeof *x);
        /* the default mode (with its size threshold at 64²) starts with block Jacobi and,
         * seeing it take that long, picks the multigrid for the next solve */
        cg_multigrid_mode mode = s == 1 ? CG_MULTIGRID_AUTO : CG_MULTIGRID_NEVER;
        cg_result r = solve(c, mode, 1e-8, x);
        cr_assert(r.converged && !r.multigrid);
        jacobi[s] = r.iterations;
        r = solve(c, s == 1 ? CG_MULTIGRID_AUTO : CG_MULTIGRID_ALWAYS, 1e-8, x);
        cr_assert(r.converged && r.multigrid);
        multigrid[s] = r.iterations;
        free(x);
        cloth_destroy(c);
    }
    cr_log_info("iterations, block Jacobi %d -> %d, multigrid %d -> %d", jacobi[0], jacobi[1], multigrid[0], multigrid[1]);
    cr_assert_gt(jacobi[1], 1.5 * jacobi[0], "Jacobi %d -> %d", jacobi[0], jacobi[1]);
    cr_assert_lt(multigrid[1], 1.3 * multigrid[0], "multigrid %d -> %d", multigrid[0], multigrid[1]);
    cr_assert_lt(4 * multigrid[1], jacobi[1], "multigrid %d, Jacobi %d", multigrid[1], jacobi[1]);
}

/* Every sum of the hierarchy runs in an order fixed by the matrix, so the solve is the same
 * bytes on any number of threads (48² rows are enough for the parallel loops). */
Test(amg, same_bytes_on_one_and_three_threads)
{
#ifdef _OPENMP
    int saved = omp_get_max_threads();
    double *x[2];
    for (int t = 0; t < 2; t++) {
        omp_set_num_threads(t == 0 ? 1 : 3);
        cloth *c = hanging_cloth_with_system(48);
        x[t] = malloc(3 * (size_t)c->model.vertex_count * sizeof(double));
        cg_result r = solve(c, CG_MULTIGRID_ALWAYS, 1e-8, x[t]);
        cr_assert(r.converged && r.multigrid);
        if (t == 1) cr_assert_eq(memcmp(x[0], x[1], 3 * (size_t)c->model.vertex_count * sizeof(double)), 0);
        cloth_destroy(c);
    }
    omp_set_num_threads(saved);
    free(x[0]), free(x[1]);
#else
    cr_skip("built without OpenMP");
#endif
}

/* A diagonal block that is not positive definite is no system for the hierarchy: the solve
 * falls back to block Jacobi instead of trusting a V-cycle built on it. */
Test(amg, falls_back_to_block_jacobi_on_a_diagonal_it_cannot_invert)
{
    cloth *c = hanging_cloth_with_system(20);
    double *d = &c->scratch.system.vals[9 * (size_t)c->scratch.system.diag[37]];
    d[4] = -d[4];
    amg m;
    cr_assert(amg_build(&m, &c->scratch.system));
    cr_assert_not(amg_update(&m, &c->scratch.system, NULL));
    amg_free(&m);
    double *x = malloc(3 * (size_t)c->model.vertex_count * sizeof *x);
    cg_result r = solve(c, CG_MULTIGRID_ALWAYS, 1e-8, x);
    cr_assert_not(r.multigrid);
    for (int32_t k = 0; k < 3 * c->model.vertex_count; k++) cr_assert(isfinite(x[k]));
    free(x);
    cloth_destroy(c);
}

/* Block Jacobi's last count says nothing once the multigrid's has grown past what block Jacobi
 * would need at that rate: the counts of the 256² drape's landing (87 before it, then the
 * multigrid at 45) keep the multigrid, where block Jacobi then took 514 iterations. */
Test(amg, auto_mode_keeps_the_multigrid_when_its_count_outgrows_block_jacobis)
{
    cloth *c = hanging_cloth_with_system(64);
    size_t len = 3 * (size_t)c->model.vertex_count;
    double *x = malloc(len * sizeof *x);
    c->state.cg.jacobi_iterations = 87, c->state.cg.multigrid_iterations = 45;
    cr_assert(solve(c, CG_MULTIGRID_AUTO, 1e-8, x).multigrid);
    /* while the multigrid's count stays low, block Jacobi's own count decides: 40 iterations
     * cost less than 10 of the multigrid (3.5 each, and its set-up) */
    c->state.cg.jacobi_iterations = 40, c->state.cg.multigrid_iterations = 10;
    c->state.cg.solves_since_probe = 0;
    cr_assert_not(solve(c, CG_MULTIGRID_AUTO, 1e-8, x).multigrid);
    free(x);
    cloth_destroy(c);
}

/* The default mode tries the other preconditioner every CG_MULTIGRID_PROBE_EVERY solves, and
 * goes back to block Jacobi when that has become the cheaper: solves that start from the
 * answer take it no iterations at all. */
Test(amg, auto_mode_returns_to_block_jacobi_when_it_becomes_cheaper)
{
    cloth *c = hanging_cloth_with_system(64);
    size_t len = 3 * (size_t)c->model.vertex_count;
    double *x = malloc(len * sizeof *x);
    cr_assert_not(solve(c, CG_MULTIGRID_AUTO, 1e-8, x).multigrid);
    cr_assert(solve(c, CG_MULTIGRID_AUTO, 1e-8, x).multigrid);
    cg_filter filter = {c->scratch.filter_kind, c->scratch.filter_proj};
    int multigrid_solves = 0;
    for (int s = 0; s < 2 * CG_MULTIGRID_PROBE_EVERY; s++) {
        cg_result r = cg_solve(&c->scratch.system, c->scratch.rhs, &filter, c->scratch.z, x, 1e-3, 1000, &c->scratch.cg, &c->state.cg);
        cr_assert_leq(r.iterations, 1);
        multigrid_solves += r.multigrid;
    }
    cr_assert(multigrid_solves > 0 && multigrid_solves < CG_MULTIGRID_PROBE_EVERY, "%d", multigrid_solves);
    cr_assert_not(cg_solve(&c->scratch.system, c->scratch.rhs, &filter, c->scratch.z, x, 1e-3, 1000, &c->scratch.cg, &c->state.cg).multigrid);
    free(x);
    cloth_destroy(c);
}
