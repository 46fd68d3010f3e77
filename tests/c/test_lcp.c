/* The pivoting LCP solver against exhaustive enumeration of partitions, and the friction
 * coupling and singular (redundant-contact) cases against the complementarity conditions. */
#include <criterion/criterion.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "linalg_lcp.h"
#include "math3.h"
#include "testutil.h"

/* A = J Jᵀ (contact-like); with fewer columns than rows, A is singular. */
static void random_problem(test_rng *rng, lcp *p, int32_t n, bool friction, bool singular)
{
    p->n = n;
    p->a = calloc((size_t)n * n, sizeof(double));
    p->b = malloc(sizeof(double) * n), p->lo = malloc(sizeof(double) * n), p->hi = malloc(sizeof(double) * n);
    p->normal_of = malloc(sizeof(int32_t) * n), p->mu = malloc(sizeof(double) * n);
    int32_t k = singular ? (n > 2 ? n - 2 : 1) : n + 2;
    double *j = malloc(sizeof(double) * (size_t)n * k);
    for (int32_t i = 0; i < n * k; i++) j[i] = rng_uniform(rng, -1, 1);
    for (int32_t r = 0; r < n; r++)
        for (int32_t c = 0; c < n; c++) {
            double s = 0;
            for (int32_t t = 0; t < k; t++) s += j[r * k + t] * j[c * k + t];
            p->a[r * n + c] = s;
        }
    for (int32_t i = 0; i < n; i++) {
        p->b[i] = rng_uniform(rng, -2, 1);
        p->lo[i] = 0.0, p->hi[i] = INFINITY;
        p->normal_of[i] = -1, p->mu[i] = 0.0;
        if (friction && i % 3 != 0) { /* rows 3c+1, 3c+2: friction of contact c's normal 3c */
            p->normal_of[i] = i - i % 3;
            p->mu[i] = rng_uniform(rng, 0.1, 1.0);
        }
    }
    free(j);
}

static void free_problem(lcp *p)
{
    free(p->a), free(p->b), free(p->lo), free(p->hi), free(p->normal_of), free(p->mu);
}

/* The solution of a normal-only LCP by trying every partition. */
static bool enumerate(const lcp *p, double *solution)
{
    int32_t n = p->n;
    for (int32_t mask = 0; mask < (1 << n); mask++) {
        int32_t idx[16], nf = 0;
        double x[16] = {0}, m[256], rhs[16];
        for (int32_t i = 0; i < n; i++)
            if ((mask >> i) & 1) idx[nf++] = i;
        for (int32_t r = 0; r < nf; r++) {
            rhs[r] = -p->b[idx[r]];
            for (int32_t c = 0; c < nf; c++) m[r * nf + c] = p->a[idx[r] * n + idx[c]];
        }
        if (nf > 0 && LAPACKE_dposv(LAPACK_ROW_MAJOR, 'U', nf, 1, m, nf, rhs, 1) != 0) continue;
        for (int32_t r = 0; r < nf; r++) x[idx[r]] = rhs[r];
        bool ok = true;
        for (int32_t i = 0; i < n && ok; i++) {
            double w = p->b[i];
            for (int32_t j = 0; j < n; j++) w += p->a[i * n + j] * x[j];
            ok = (mask >> i) & 1 ? x[i] >= -1e-12 : w >= -1e-12;
        }
        if (ok) {
            memcpy(solution, x, sizeof(double) * (size_t)n);
            return true;
        }
    }
    return false;
}

Test(lcp, normal_contacts_match_the_solution_by_enumeration)
{
    test_rng rng = rng_seed(61);
    lcp_workspace ws = {0};
    for (int trial = 0; trial < 400; trial++) {
        lcp p = {0};
        int32_t n = 1 + trial % 8;
        random_problem(&rng, &p, n, false, false);
        double x[16] = {0}, expected[16];
        int8_t state[16] = {0};
        int32_t pivots;
        cr_assert(lcp_solve_pivoting(&p, x, state, &ws, 10 * p.n + 20, &pivots), "trial %d did not converge", trial);
        cr_assert(enumerate(&p, expected), "trial %d: enumeration found no solution", trial);
        for (int32_t i = 0; i < n; i++)
            cr_assert_float_eq(x[i], expected[i], 1e-7 * (1 + fabs(expected[i])), "trial %d row %d", trial, i);
        /* warm-started at its own answer, it takes no pivot */
        cr_assert(lcp_solve_pivoting(&p, x, state, &ws, 10 * p.n + 20, &pivots));
        cr_assert_eq(pivots, 0);
        free_problem(&p);
    }
    lcp_workspace_free(&ws);
}

/* Contact-like problems: A = J M⁻¹ Jᵀ for random bodies touching the ground or each other at
 * random points, each contact a normal and two friction rows. */
static void contact_problem(test_rng *rng, lcp *p, int32_t contacts)
{
    int32_t n = 3 * contacts, bodies = 1 + contacts / 2;
    p->n = n;
    p->a = calloc((size_t)n * n, sizeof(double));
    p->b = malloc(sizeof(double) * n), p->lo = malloc(sizeof(double) * n), p->hi = malloc(sizeof(double) * n);
    p->normal_of = malloc(sizeof(int32_t) * n), p->mu = malloc(sizeof(double) * n);
    double inv_mass[8], inv_inertia[8];
    for (int32_t k = 0; k < bodies; k++) inv_mass[k] = rng_uniform(rng, 0.2, 5), inv_inertia[k] = rng_uniform(rng, 0.5, 20);
    /* 6-dof rows per body: J[i][body][0..5] */
    double (*j)[8][6] = calloc((size_t)n, sizeof *j);
    for (int32_t c = 0; c < contacts; c++) {
        int32_t a = c % bodies, b = (c + 1) % bodies; /* b == a: against the ground */
        vec3 nrm = v3(rng_uniform(rng, -0.3, 0.3), rng_uniform(rng, -0.3, 0.3), 1.0);
        nrm = v3_scale(nrm, 1.0 / v3_len(nrm));
        vec3 t1 = v3_cross(nrm, v3(1, 0, 0));
        t1 = v3_scale(t1, 1.0 / v3_len(t1));
        vec3 dirs[3] = {nrm, t1, v3_cross(nrm, t1)};
        vec3 ra = v3(rng_uniform(rng, -1, 1), rng_uniform(rng, -1, 1), rng_uniform(rng, -1, 1));
        vec3 rb = v3(rng_uniform(rng, -1, 1), rng_uniform(rng, -1, 1), rng_uniform(rng, -1, 1));
        double mu = rng_uniform(rng, 0.1, 1.0);
        for (int k = 0; k < 3; k++) {
            int32_t row = 3 * c + k;
            vec3 aa = v3_cross(ra, dirs[k]), ab = v3_cross(rb, dirs[k]);
            double ja[6] = {dirs[k].x, dirs[k].y, dirs[k].z, aa.x, aa.y, aa.z};
            for (int d = 0; d < 6; d++) j[row][a][d] += ja[d];
            if (b != a) {
                double jb[6] = {-dirs[k].x, -dirs[k].y, -dirs[k].z, -ab.x, -ab.y, -ab.z};
                for (int d = 0; d < 6; d++) j[row][b][d] += jb[d];
            }
            p->lo[row] = k == 0 ? 0.0 : -INFINITY, p->hi[row] = INFINITY;
            p->normal_of[row] = k == 0 ? -1 : 3 * c, p->mu[row] = mu;
            /* approaching along the normal, sliding sideways */
            p->b[row] = k == 0 ? rng_uniform(rng, -2, 0.5) : rng_uniform(rng, -1, 1);
        }
    }
    for (int32_t r = 0; r < n; r++)
        for (int32_t c = 0; c < n; c++) {
            double sum = 0;
            for (int32_t k = 0; k < bodies; k++)
                for (int d = 0; d < 6; d++) sum += j[r][k][d] * j[c][k][d] * (d < 3 ? inv_mass[k] : inv_inertia[k]);
            p->a[r * n + c] = sum;
        }
    free(j);
}

Test(lcp, friction_stays_within_its_cone_on_contact_problems)
{
    test_rng rng = rng_seed(62);
    lcp_workspace ws = {0};
    int converged = 0, trials = 300;
    for (int trial = 0; trial < trials; trial++) {
        lcp p = {0};
        contact_problem(&rng, &p, 1 + trial % 6);
        double x[18] = {0};
        int8_t state[18] = {0};
        int32_t pivots;
        if (lcp_solve_pivoting(&p, x, state, &ws, 10 * p.n + 20, &pivots)) {
            converged++;
            /* within what the 1e-10 relative regularisation of A allows */
            double diagonal = 0, largest = 0;
            for (int32_t i = 0; i < p.n; i++) diagonal = fmax(diagonal, p.a[i * p.n + i]), largest = fmax(largest, fabs(x[i]));
            double allowed = 1e-8 * diagonal * largest + 1e-9;
            cr_assert_lt(lcp_violation(&p, x), allowed, "trial %d: violation %g", trial, lcp_violation(&p, x));
            for (int32_t i = 0; i < p.n; i++)
                if (p.normal_of[i] >= 0)
                    cr_assert_leq(fabs(x[i]), p.mu[i] * x[p.normal_of[i]] * (1 + 1e-9) + 1e-12, "trial %d row %d", trial, i);
        }
        free_problem(&p);
    }
    /* with friction the problem is not symmetric and pivoting is not guaranteed to end; the
     * caller falls back to Gauss-Seidel when it does not */
    cr_assert_geq(converged, trials * 98 / 100, "only %d of %d converged", converged, trials);
    lcp_workspace_free(&ws);
}

Test(lcp, redundant_contacts_still_solve)
{
    /* singular A (more contacts than the bodies' freedoms, as four coplanar contacts of a box
     * on the floor), with b made from a known solution so that one exists */
    test_rng rng = rng_seed(63);
    lcp_workspace ws = {0};
    for (int trial = 0; trial < 200; trial++) {
        lcp p = {0};
        int32_t n = 3 + trial % 9;
        random_problem(&rng, &p, n, false, true);
        double xs[16], ws_[16];
        for (int32_t i = 0; i < n; i++) {
            bool active = rng_uniform(&rng, 0, 1) < 0.5;
            xs[i] = active ? rng_uniform(&rng, 0, 2) : 0.0;
            ws_[i] = active ? 0.0 : rng_uniform(&rng, 0, 2);
        }
        for (int32_t i = 0; i < n; i++) {
            double ax = 0;
            for (int32_t j = 0; j < n; j++) ax += p.a[i * n + j] * xs[j];
            p.b[i] = ws_[i] - ax;
        }
        double x[16] = {0};
        int8_t state[16] = {0};
        int32_t pivots;
        cr_assert(lcp_solve_pivoting(&p, x, state, &ws, 10 * p.n + 20, &pivots), "trial %d did not converge", trial);
        cr_assert_lt(lcp_violation(&p, x), 1e-6, "trial %d: violation %g", trial, lcp_violation(&p, x));
        free_problem(&p);
    }
    lcp_workspace_free(&ws);
}

/* The in-house dense solves (lcp_cholesky_solve, lcp_lu_solve: the partition solves, in place
 * of dposv and dgesv) against LAPACKE on the same matrices, held to the bit rather than to a
 * tolerance: they do reference LAPACK's operations in its order (the host's LAPACKE is
 * netlib's, built without FMA contraction), and only skip updates by exact zeros, which change
 * no bit of a nonzero result (first_difference: zeros' signs). Any reordering of a sum would
 * show here as a last-bit difference, which a 1e-12 tolerance would let through; the test
 * names the first entry that differs. (Linked against OpenBLAS or MKL, whose kernels reorder
 * and fuse, these would hold only to rounding.)
 * Sizes past 64 take LAPACK's blocked path (its block size); banded matrices (contact rows in
 * island order: the tower's 120 rows have width ~24) exercise the skipped envelope. */
static void random_matrix(test_rng *rng, int32_t n, int32_t band, bool symmetric, double *a)
{
    int32_t k = n + 2; /* A = J Jᵀ + I/10 with J banded: symmetric positive definite */
    double *j = calloc((size_t)n * k, sizeof(double));
    for (int32_t r = 0; r < n; r++)
        for (int32_t t = 0; t < k; t++)
            if (abs(r - t) <= band / 2) j[(size_t)r * k + t] = rng_uniform(rng, -1, 1);
    for (int32_t c = 0; c < n; c++)
        for (int32_t r = 0; r < n; r++) {
            double s = r == c ? 0.1 : 0.0;
            for (int32_t t = 0; t < k; t++) s += j[(size_t)r * k + t] * j[(size_t)c * k + t];
            /* general: the coupled friction's non-symmetric entries, and some rows swapped in
             * by pivoting (entries that are large off the diagonal) */
            if (!symmetric && s != 0.0) s += rng_uniform(rng, -1.5, 1.5);
            a[(size_t)c * n + r] = s;
        }
    free(j);
}

/* The first entry that differs as a number: every nonzero bit for bit, but +0 and -0 equal.
 * The sign of a zero may differ: where LAPACK subtracts 0 l from -0 (giving +0) or scales
 * a zero below a column's last nonzero by a negative 1/pivot (giving -0), the skipped
 * operation leaves the zero as it was. A zero's sign only ever reaches other zeros (x ± 0 and
 * x·0 for finite x), so no nonzero entry of a factor or solution depends on it. */
static int32_t first_difference(const double *x, const double *y, int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        if (!(x[i] == y[i])) return i;
    return -1;
}

static const int32_t dense_sizes[] = {1, 2, 3, 7, 24, 63, 64, 65, 120, 150};

/* The spans of nonzero columns a caller gives (rows_solve knows them from how it built A) in
 * place of the scan: wider than the nonzeros, they add exact zeros only, so the same answer, the
 * same partition and the same pivots, to the bit (zeros' signs aside), on banded problems with
 * friction. */
Test(lcp, given_row_spans_give_the_scanned_answer)
{
    test_rng rng = rng_seed(64);
    lcp_workspace ws = {0};
    for (int trial = 0; trial < 60; trial++) {
        int32_t n = 3 * (1 + trial % 40), band = 1 + trial % 7;
        double *column_major = malloc(sizeof(double) * (size_t)n * n);
        random_matrix(&rng, n, band, true, column_major);
        lcp p = {0};
        p.n = n, p.a = column_major; /* symmetric: its own transpose */
        p.b = malloc(sizeof(double) * n), p.lo = malloc(sizeof(double) * n), p.hi = malloc(sizeof(double) * n);
        p.normal_of = malloc(sizeof(int32_t) * n), p.mu = malloc(sizeof(double) * n);
        int *first = malloc(sizeof(int) * n), *last = malloc(sizeof(int) * n);
        for (int32_t i = 0; i < n; i++) {
            p.b[i] = rng_uniform(&rng, -2, 1), p.lo[i] = 0.0, p.hi[i] = INFINITY;
            p.normal_of[i] = i % 3 ? i - i % 3 : -1, p.mu[i] = i % 3 ? rng_uniform(&rng, 0.1, 1.0) : 0.0;
            first[i] = i - band - 2 > 0 ? i - band - 2 : 0, last[i] = i + band + 2 < n ? i + band + 2 : n - 1;
        }
        double scanned[120] = {0}, given[120] = {0};
        int8_t state_scanned[120] = {0}, state_given[120] = {0};
        int32_t pivots_scanned, pivots_given;
        bool ok_scanned = lcp_solve_pivoting(&p, scanned, state_scanned, &ws, 10 * n + 20, &pivots_scanned);
        p.row_first = first, p.row_last = last;
        bool ok_given = lcp_solve_pivoting(&p, given, state_given, &ws, 10 * n + 20, &pivots_given);
        cr_assert_eq(ok_scanned, ok_given, "trial %d", trial);
        cr_assert_eq(pivots_scanned, pivots_given, "trial %d", trial);
        cr_assert_eq(memcmp(state_scanned, state_given, (size_t)n), 0, "trial %d: another partition", trial);
        cr_assert_eq(first_difference(scanned, given, n), -1, "trial %d: x differs at %d", trial,
                     first_difference(scanned, given, n));
        free(first), free(last), free_problem(&p);
    }
    lcp_workspace_free(&ws);
}

Test(lcp, cholesky_solve_is_lapacke_dposv_to_the_bit)
{
    test_rng rng = rng_seed(71);
    int32_t trials = test_quick() ? 1 : 4, compared = 0;
    for (size_t s = 0; s < sizeof dense_sizes / sizeof dense_sizes[0]; s++)
        for (int32_t trial = 0; trial < trials; trial++) {
            int32_t n = dense_sizes[s], band = trial % 2 ? 24 : 2 * n + 4;
            double *a = malloc(sizeof(double) * (size_t)n * n), *f = malloc(sizeof(double) * (size_t)n * n);
            double *l = malloc(sizeof(double) * (size_t)n * n), *x = malloc(sizeof(double) * n);
            double *y = malloc(sizeof(double) * n);
            int *last = malloc(sizeof(int) * n);
            random_matrix(&rng, n, band, true, a);
            for (int32_t i = 0; i < n; i++) x[i] = y[i] = i % 5 == 4 ? 0.0 : rng_uniform(&rng, -2, 2);
            memcpy(f, a, sizeof(double) * (size_t)n * n), memcpy(l, a, sizeof(double) * (size_t)n * n);
            cr_assert(lcp_cholesky_solve(n, f, x, last));
            cr_assert_eq(LAPACKE_dposv(LAPACK_COL_MAJOR, 'L', n, 1, l, n, y, n), 0);
            int32_t d = first_difference(x, y, n);
            cr_assert(d < 0, "n %d band %d: x[%d] %.17g, dposv %.17g", n, band, d, d < 0 ? 0 : x[d], d < 0 ? 0 : y[d]);
            for (int32_t c = 0; c < n; c++) { /* the factor too: its lower triangle */
                d = first_difference(&f[(size_t)c * n + c], &l[(size_t)c * n + c], n - c);
                cr_assert(d < 0, "n %d: L(%d, %d) differs from dpotrf's", n, c + d, c);
            }
            compared++;
            free(a), free(f), free(l), free(x), free(y), free(last);
        }
    cr_assert_eq(compared, trials * (int32_t)(sizeof dense_sizes / sizeof dense_sizes[0]));
}

Test(lcp, cholesky_solve_refuses_what_dposv_refuses)
{
    test_rng rng = rng_seed(72);
    for (int32_t n = 2; n <= 40; n += 19) {
        double *a = malloc(sizeof(double) * (size_t)n * n), *l = malloc(sizeof(double) * (size_t)n * n);
        double *x = calloc((size_t)n, sizeof(double)), *y = calloc((size_t)n, sizeof(double));
        int *last = malloc(sizeof(int) * n);
        random_matrix(&rng, n, 2 * n + 4, true, a);
        a[(size_t)(n / 2) * n + n / 2] = -1.0; /* a negative diagonal entry: indefinite */
        memcpy(l, a, sizeof(double) * (size_t)n * n);
        cr_assert_not(lcp_cholesky_solve(n, a, x, last));
        cr_assert_gt(LAPACKE_dposv(LAPACK_COL_MAJOR, 'L', n, 1, l, n, y, n), 0);
        free(a), free(l), free(x), free(y), free(last);
    }
}

Test(lcp, lu_solve_is_lapacke_dgesv_to_the_bit)
{
    test_rng rng = rng_seed(73);
    int32_t trials = test_quick() ? 1 : 4, swaps = 0;
    for (size_t s = 0; s < sizeof dense_sizes / sizeof dense_sizes[0]; s++)
        for (int32_t trial = 0; trial < trials; trial++) {
            int32_t n = dense_sizes[s], band = trial % 2 ? 24 : 2 * n + 4;
            double *a = malloc(sizeof(double) * (size_t)n * n), *f = malloc(sizeof(double) * (size_t)n * n);
            double *l = malloc(sizeof(double) * (size_t)n * n), *x = malloc(sizeof(double) * n);
            double *y = malloc(sizeof(double) * n);
            int *pivot = malloc(sizeof(int) * n), *last = malloc(sizeof(int) * n);
            lapack_int *ipiv = malloc(sizeof(lapack_int) * n);
            random_matrix(&rng, n, band, false, a);
            for (int32_t i = 0; i < n; i++) x[i] = y[i] = i % 5 == 4 ? 0.0 : rng_uniform(&rng, -2, 2);
            memcpy(f, a, sizeof(double) * (size_t)n * n), memcpy(l, a, sizeof(double) * (size_t)n * n);
            cr_assert(lcp_lu_solve(n, f, x, pivot, last));
            cr_assert_eq(LAPACKE_dgesv(LAPACK_COL_MAJOR, n, 1, l, n, ipiv, y, n), 0);
            for (int32_t i = 0; i < n; i++) {
                cr_assert_eq(pivot[i] + 1, ipiv[i], "n %d: row interchange %d", n, i);
                swaps += pivot[i] != i;
            }
            int32_t d = first_difference(f, l, n * n);
            cr_assert(d < 0, "n %d band %d: LU entry (%d, %d) %g differs from dgetrf's %g", n, band,
                      d < 0 ? 0 : d % n, d < 0 ? 0 : d / n, d < 0 ? 0 : f[d], d < 0 ? 0 : l[d]);
            d = first_difference(x, y, n);
            cr_assert(d < 0, "n %d band %d: x[%d] %.17g, dgesv %.17g", n, band, d, d < 0 ? 0 : x[d], d < 0 ? 0 : y[d]);
            free(a), free(f), free(l), free(x), free(y), free(pivot), free(last), free(ipiv);
        }
    cr_assert_gt(swaps, 0); /* pivoting was exercised */
}

Test(lcp, lu_solve_refuses_what_dgesv_refuses)
{
    test_rng rng = rng_seed(74);
    for (int32_t n = 2; n <= 40; n += 19) {
        double *a = malloc(sizeof(double) * (size_t)n * n), *l = malloc(sizeof(double) * (size_t)n * n);
        double *x = calloc((size_t)n, sizeof(double)), *y = calloc((size_t)n, sizeof(double));
        int *pivot = malloc(sizeof(int) * n), *last = malloc(sizeof(int) * n);
        lapack_int *ipiv = malloc(sizeof(lapack_int) * n);
        random_matrix(&rng, n, 2 * n + 4, false, a);
        /* a column of zeros: updates leave it exactly zero, so its pivot is an exact zero */
        for (int32_t r = 0; r < n; r++) a[(size_t)(n / 2) * n + r] = 0.0;
        memcpy(l, a, sizeof(double) * (size_t)n * n);
        cr_assert_not(lcp_lu_solve(n, a, x, pivot, last));
        cr_assert_gt(LAPACKE_dgesv(LAPACK_COL_MAJOR, n, 1, l, n, ipiv, y, n), 0);
        free(a), free(l), free(x), free(y), free(pivot), free(last), free(ipiv);
    }
}
