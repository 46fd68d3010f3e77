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
        lcp p;
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
        lcp p;
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
        lcp p;
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
