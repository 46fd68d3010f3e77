#include "linalg_lcp.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { LCP_FRICTION_ROUNDS = 50 }; /* rounds of friction bounds from the normals */

void lcp_workspace_free(lcp_workspace *ws)
{
    free(ws->factor), free(ws->rhs), free(ws->w), free(ws->lo), free(ws->hi), free(ws->start), free(ws->trial), free(ws->free_index);
    free(ws->column_of), free(ws->pivot), free(ws->last), free(ws->row_first), free(ws->row_last);
    memset(ws, 0, sizeof *ws);
}

bool lcp_workspace_reserve(lcp_workspace *ws, int32_t n)
{
    if (n <= ws->capacity) return true;
    lcp_workspace_free(ws);
    size_t m = (size_t)n;
    ws->factor = malloc(m * m * sizeof *ws->factor);
    ws->rhs = malloc(m * sizeof *ws->rhs);
    ws->w = malloc(m * sizeof *ws->w);
    ws->lo = malloc(m * sizeof *ws->lo);
    ws->hi = malloc(m * sizeof *ws->hi);
    ws->start = malloc(m * sizeof *ws->start);
    ws->trial = malloc(m * sizeof *ws->trial);
    ws->column_of = malloc(m * sizeof *ws->column_of);
    ws->pivot = malloc(m * sizeof *ws->pivot);
    ws->last = malloc(m * sizeof *ws->last);
    ws->row_first = malloc(m * sizeof *ws->row_first);
    ws->row_last = malloc(m * sizeof *ws->row_last);
    ws->free_index = malloc(m * sizeof *ws->free_index);
    if (!ws->factor || !ws->rhs || !ws->w || !ws->lo || !ws->hi || !ws->start || !ws->trial || !ws->column_of || !ws->pivot || !ws->last || !ws->row_first ||
        !ws->row_last || !ws->free_index) {
        lcp_workspace_free(ws);
        return false;
    }
    ws->capacity = n;
    return true;
}

static void friction_bounds(const lcp *p, const double *x, double *lo, double *hi)
{
    for (int32_t i = 0; i < p->n; i++) {
        if (p->normal_of[i] < 0) {
            lo[i] = p->lo[i], hi[i] = p->hi[i];
        } else {
            double limit = p->mu[i] * fmax(x[p->normal_of[i]], 0.0);
            lo[i] = -limit, hi[i] = limit;
        }
    }
}

/* (F) x = rhs for a symmetric positive definite F (lower triangle, column-major, n x n), x
 * into rhs; false when F is not positive definite. The operations of reference LAPACK's
 * dposv (dpotrf: blocked, dpotrf2 recursive, its dsyrk/dgemm/dtrsm; dpotrs) in the same order,
 * each entry's updates over k ascending, off-diagonal entries scaled by 1/L_kk, so the result
 * is the same to the bit; but updates by exact zeros are skipped, and a column's nonzeros end
 * at its last nonzero row (contact rows are in island and pair order: A is banded, a tower's
 * 120 rows of width ~24, and the factor fills in only inside the envelope). For those 120
 * rows, 1/9 of the work. last: n ints, scratch. */
bool lcp_cholesky_solve(int32_t n, double *f, double *rhs, int *last)
{
    for (int32_t k = 0; k < n; k++) {
        double *ck = &f[(size_t)k * n];
        if (!(ck[k] > 0.0)) return false; /* dpotrf2: not positive, or NaN */
        ck[k] = sqrt(ck[k]);
        int32_t end = n - 1;
        while (end > k && ck[end] == 0.0) end--;
        last[k] = end;
        double inverse = 1.0 / ck[k];
        for (int32_t i = k + 1; i <= end; i++) ck[i] = inverse * ck[i];
        for (int32_t j = k + 1; j <= end; j++) {
            double l_jk = ck[j];
            if (l_jk == 0.0) continue;
            double *cj = &f[(size_t)j * n];
            for (int32_t i = j; i <= end; i++) cj[i] = cj[i] - l_jk * ck[i];
        }
    }
    for (int32_t k = 0; k < n; k++) { /* L y = rhs (dtrsm left, lower, no transpose) */
        if (rhs[k] == 0.0) continue;
        const double *ck = &f[(size_t)k * n];
        rhs[k] = rhs[k] / ck[k];
        for (int32_t i = k + 1; i <= last[k]; i++) rhs[i] = rhs[i] - rhs[k] * ck[i];
    }
    for (int32_t i = n - 1; i >= 0; i--) { /* Lᵀ x = y (dtrsm left, lower, transpose) */
        const double *ci = &f[(size_t)i * n];
        double t = rhs[i];
        for (int32_t k = i + 1; k <= last[i]; k++) t = t - ci[k] * rhs[k];
        rhs[i] = t / ci[i];
    }
    return true;
}

/* F x = rhs for a square F (column-major, n x n), x into rhs; false when F is singular. The
 * operations of reference LAPACK's dgesv (dgetrf: blocked, dgetrf2 recursive; dgetrs) in the
 * same order: partial pivoting on the first largest magnitude of the updated column (idamax),
 * the column below it scaled by 1/pivot (dscal), every entry's updates over k ascending; the
 * same result to the bit, with updates by exact zeros skipped and each column of L ending at
 * its last nonzero row (see lcp_cholesky_solve). pivot, last: n ints, scratch. */
bool lcp_lu_solve(int32_t n, double *f, double *rhs, int *pivot, int *last)
{
    for (int32_t k = 0; k < n; k++) {
        double *ck = &f[(size_t)k * n];
        int32_t p = k;
        double largest = fabs(ck[k]);
        for (int32_t i = k + 1; i < n; i++)
            if (fabs(ck[i]) > largest) largest = fabs(ck[i]), p = i;
        pivot[k] = p;
        if (ck[p] == 0.0) return false; /* dgetrf: singular, dgesv does not solve */
        if (p != k)
            for (int32_t j = 0; j < n; j++) {
                double t = f[(size_t)j * n + k];
                f[(size_t)j * n + k] = f[(size_t)j * n + p], f[(size_t)j * n + p] = t;
            }
        int32_t end = n - 1;
        while (end > k && ck[end] == 0.0) end--;
        if (fabs(ck[k]) >= DBL_MIN) { /* dlamch('S') */
            double inverse = 1.0 / ck[k];
            for (int32_t i = k + 1; i <= end; i++) ck[i] = inverse * ck[i];
        } else {
            for (int32_t i = k + 1; i <= end; i++) ck[i] = ck[i] / ck[k];
        }
        for (int32_t j = k + 1; j < n && end > k; j++) {
            double *cj = &f[(size_t)j * n];
            double u_kj = cj[k];
            if (u_kj == 0.0) continue;
            for (int32_t i = k + 1; i <= end; i++) cj[i] = cj[i] - u_kj * ck[i];
        }
    }
    for (int32_t k = 0; k < n; k++) { /* later interchanges moved L's rows: ends found again */
        const double *ck = &f[(size_t)k * n];
        last[k] = n - 1;
        while (last[k] > k && ck[last[k]] == 0.0) last[k]--;
    }
    for (int32_t k = 0; k < n; k++) { /* the interchanges (dlaswp), then L y = rhs (unit) */
        double t = rhs[k];
        rhs[k] = rhs[pivot[k]], rhs[pivot[k]] = t;
    }
    for (int32_t k = 0; k < n; k++) {
        if (rhs[k] == 0.0) continue;
        const double *ck = &f[(size_t)k * n];
        for (int32_t i = k + 1; i <= last[k]; i++) rhs[i] = rhs[i] - rhs[k] * ck[i];
    }
    for (int32_t k = n - 1; k >= 0; k--) { /* U x = y (dtrsm left, upper, no transpose) */
        if (rhs[k] == 0.0) continue;
        const double *ck = &f[(size_t)k * n];
        rhs[k] = rhs[k] / ck[k];
        for (int32_t i = 0; i < k; i++) rhs[i] = rhs[i] - rhs[k] * ck[i];
    }
    return true;
}

/* x for a partition: held rows at their bound, free rows from
 * (A_FF + εI) x_F = -(b_F + A_FN x_N); ε, relative 1e-10, makes A_FF definite when contacts are
 * redundant. With `coupled`, a held friction row is not at lo/hi but at ±μ times its normal,
 * which joins the system when that normal is free (then not symmetric: LU, else Cholesky). */
static bool solve_partition(const lcp *p, const double *lo, const double *hi, const int8_t *state, bool coupled,
                            double *x, lcp_workspace *ws)
{
    int32_t n = p->n, nf = 0, held = n; /* free rows from the front of free_index, held ones from its back */
    int32_t *column = ws->column_of;
    for (int32_t i = 0; i < n; i++) {
        column[i] = state[i] == LCP_FREE ? nf : -1;
        if (state[i] == LCP_FREE) ws->free_index[nf++] = i;
        else ws->free_index[--held] = i;
        if (state[i] != LCP_FREE && (!coupled || p->normal_of[i] < 0)) x[i] = state[i] == LCP_LOWER ? lo[i] : hi[i];
    }
    /* coupled friction of a held normal: known */
    for (int32_t i = 0; i < n && coupled; i++)
        if (state[i] != LCP_FREE && p->normal_of[i] >= 0 && column[p->normal_of[i]] < 0)
            x[i] = (state[i] == LCP_LOWER ? -1.0 : 1.0) * p->mu[i] * fmax(x[p->normal_of[i]], 0.0);
    if (nf == 0) return true;
    double diagonal = 0.0;
    for (int32_t i = 0; i < n; i++) diagonal = fmax(diagonal, p->a[(size_t)i * n + i]);
    double regular = 1e-10 * diagonal + 1e-300;
    /* Column-major: entry (r, c) of the free block at c nf + r. In the symmetric case row r
     * is column r, and only the lower triangle is read. */
    for (int32_t r = 0; r < nf; r++) {
        int32_t i = ws->free_index[r];
        const double *a_row = &p->a[(size_t)i * n];
        double *entry = coupled ? &ws->factor[r] : &ws->factor[(size_t)r * nf]; /* (r, c) at entry[c stride] */
        size_t stride = coupled ? (size_t)nf : 1;
        /* Cholesky reads the lower triangle only: (c, r) for c >= r */
        for (int32_t c = coupled ? 0 : r; c < nf; c++) entry[c * stride] = a_row[ws->free_index[c]];
        entry[r * stride] += regular;
        double rhs = -p->b[i];
        for (int32_t h = n - 1; h >= nf; h--) { /* the held rows, ascending */
            int32_t j = ws->free_index[h];
            if (coupled && p->normal_of[j] >= 0 && column[p->normal_of[j]] >= 0)
                entry[column[p->normal_of[j]] * stride] += a_row[j] * (state[j] == LCP_LOWER ? -1.0 : 1.0) * p->mu[j];
            else
                rhs -= a_row[j] * x[j];
        }
        ws->rhs[r] = rhs;
    }
    bool solved = coupled ? lcp_lu_solve(nf, ws->factor, ws->rhs, ws->pivot, ws->last)
                          : lcp_cholesky_solve(nf, ws->factor, ws->rhs, ws->last);
    if (!solved) return false;
    for (int32_t r = 0; r < nf; r++) x[ws->free_index[r]] = ws->rhs[r];
    for (int32_t i = 0; i < n && coupled; i++)
        if (state[i] != LCP_FREE && p->normal_of[i] >= 0 && column[p->normal_of[i]] >= 0)
            x[i] = (state[i] == LCP_LOWER ? -1.0 : 1.0) * p->mu[i] * fmax(x[p->normal_of[i]], 0.0);
    return true;
}

/* Whether index i's state contradicts x or w. A row whose bounds meet (friction of a
 * contact without normal force) is simply held. */
static bool infeasible_at(int32_t i, const double *x, const double *lo, const double *hi, const double *w,
                          const int8_t *state, double tol_x, double tol_w)
{
    if (!(hi[i] > lo[i])) return state[i] == LCP_FREE;
    return (state[i] == LCP_FREE && (x[i] < lo[i] - tol_x || x[i] > hi[i] + tol_x)) ||
           (state[i] == LCP_LOWER && w[i] < -tol_w) || (state[i] == LCP_UPPER && w[i] > tol_w);
}

static void flip_state(int8_t *state, int32_t i, const double *x, const double *lo, const double *hi)
{
    if (!(hi[i] > lo[i])) state[i] = LCP_LOWER;
    else if (state[i] != LCP_FREE) state[i] = LCP_FREE;
    else state[i] = x[i] < lo[i] ? LCP_LOWER : (x[i] > hi[i] ? LCP_UPPER : LCP_FREE);
}

/* w = A x + b. With `first`, `last` (each row's first and last nonzero column, see
 * nonzero_span, or wider spans the caller gave) the exact zeros outside them are left out: the same w but for the sign of a
 * zero, which no test of w tells apart (they compare it with a positive tolerance). */
static void residual(const lcp *p, const double *x, double *w, const int *first, const int *last)
{
    for (int32_t i = 0; i < p->n; i++) {
        double s = p->b[i];
        int32_t begin = first ? first[i] : 0, end = last ? last[i] : p->n - 1;
        for (int32_t j = begin; j <= end; j++) s += p->a[(size_t)i * p->n + j] * x[j];
        w[i] = s;
    }
}

/* Each row's first and last nonzero column (a row of zeros: an empty span). */
static void nonzero_span(const lcp *p, int *first, int *last)
{
    for (int32_t i = 0; i < p->n; i++) {
        const double *row = &p->a[(size_t)i * p->n];
        int32_t begin = 0, end = p->n - 1;
        while (begin <= end && row[begin] == 0.0) begin++;
        while (end >= begin && row[end] == 0.0) end--;
        first[i] = begin, last[i] = end;
    }
}

/* The boxed problem with the bounds lo, hi held fixed: block principal pivoting, every
 * infeasible index exchanged at once while that reduces their number, else Murty's single
 * pivot on the last one (which ends for a positive definite A). */
static bool solve_boxed(const lcp *p, const double *lo, const double *hi, double *x, int8_t *state,
                        lcp_workspace *ws, double tol_w, int32_t max_pivots, int32_t *pivots)
{
    int32_t n = p->n, best = n + 1, failures = 0;
    for (int32_t i = 0; i < n; i++)
        if (!(hi[i] > lo[i]) || (state[i] == LCP_UPPER && !isfinite(hi[i])) ||
            (state[i] == LCP_LOWER && !isfinite(lo[i])))
            state[i] = isfinite(lo[i]) ? LCP_LOWER : LCP_FREE;
    for (int32_t iteration = 0; iteration < 10 * n + 20; iteration++) {
        if (!solve_partition(p, lo, hi, state, false, x, ws)) return false;
        residual(p, x, ws->w, ws->row_first, ws->row_last);
        double xscale = 0.0;
        for (int32_t i = 0; i < n; i++) xscale = fmax(xscale, fabs(x[i]));
        double tol_x = 1e-9 * xscale + 1e-300;
        int32_t count = 0, last = -1;
        for (int32_t i = 0; i < n; i++)
            if (infeasible_at(i, x, lo, hi, ws->w, state, tol_x, tol_w)) count++, last = i;
        if (count == 0) return true;
        if (++*pivots > max_pivots) return false;
        if (count < best) {
            best = count, failures = 0;
        } else if (++failures >= 3) {
            flip_state(state, last, x, lo, hi);
            continue;
        }
        for (int32_t i = 0; i < n; i++)
            if (infeasible_at(i, x, lo, hi, ws->w, state, tol_x, tol_w)) flip_state(state, i, x, lo, hi);
    }
    return false;
}

/* Whether x meets every condition with the bounds its own normals give. */
static bool feasible(const lcp *p, const int8_t *state, const double *x, lcp_workspace *ws, double tol_w)
{
    friction_bounds(p, x, ws->lo, ws->hi);
    residual(p, x, ws->w, ws->row_first, ws->row_last);
    double xscale = 0.0;
    for (int32_t i = 0; i < p->n; i++) xscale = fmax(xscale, fabs(x[i]));
    for (int32_t i = 0; i < p->n; i++)
        if (infeasible_at(i, x, ws->lo, ws->hi, ws->w, state, 1e-9 * xscale + 1e-300, tol_w)) return false;
    return true;
}

/* Friction rows on the cone of the final normals: held ones exactly at it, free ones within. */
static void hold_friction_at_cone(const lcp *p, const int8_t *state, double *x, double *lo, double *hi)
{
    friction_bounds(p, x, lo, hi);
    for (int32_t i = 0; i < p->n; i++) {
        if (p->normal_of[i] < 0) continue;
        if (state[i] == LCP_FREE) x[i] = fmin(fmax(x[i], lo[i]), hi[i]);
        else x[i] = state[i] == LCP_LOWER ? lo[i] : hi[i];
    }
}

bool lcp_solve_pivoting(const lcp *p, double *x, int8_t *state, lcp_workspace *ws, int32_t max_pivots,
                        int32_t *pivots)
{
    int32_t n = p->n;
    *pivots = 0;
    if (n == 0) return true;
    if (!lcp_workspace_reserve(ws, n)) return false;
    double *lo = ws->lo, *hi = ws->hi, *start = ws->start;
    if (p->row_first && p->row_last) {
        memcpy(ws->row_first, p->row_first, (size_t)n * sizeof *ws->row_first);
        memcpy(ws->row_last, p->row_last, (size_t)n * sizeof *ws->row_last);
    } else {
        nonzero_span(p, ws->row_first, ws->row_last);
    }
    double scale = 0.0;
    for (int32_t i = 0; i < n; i++) {
        scale = fmax(scale, fabs(p->b[i]));
        if (!isfinite(x[i])) x[i] = 0.0;
        start[i] = x[i];
    }
    double tol_w = 1e-9 * scale + 1e-300;
    /* Friction bounds from the normal impulses, the boxed problem solved with them held,
     * again until the normals settle (a fixed point of this is the coupled solution); once a
     * round keeps its partition, that partition's coupled answer is tried directly. */
    for (int32_t round = 0; round < LCP_FRICTION_ROUNDS && *pivots <= max_pivots; round++) {
        friction_bounds(p, x, lo, hi);
        int32_t before = *pivots;
        if (!solve_boxed(p, lo, hi, x, state, ws, tol_w, max_pivots, pivots)) {
            memcpy(x, start, (size_t)n * sizeof *x);
            return false;
        }
        /* settled when held friction has the bound of the new normal, free friction is
         * inside it */
        double normal_scale = 0.0, change = 0.0;
        for (int32_t i = 0; i < n; i++) {
            if (p->normal_of[i] < 0) continue;
            double limit = p->mu[i] * fmax(x[p->normal_of[i]], 0.0);
            normal_scale = fmax(normal_scale, limit);
            change = fmax(change, state[i] == LCP_FREE ? fabs(x[i]) - limit : fabs(limit - hi[i]));
        }
        if (change <= 1e-9 * normal_scale + 1e-300) {
            hold_friction_at_cone(p, state, x, lo, hi);
            return true;
        }
        if (*pivots == before) {
            memcpy(ws->trial, x, (size_t)n * sizeof *x);
            /* the fixed point the rounds approach, for this partition */
            if (solve_partition(p, p->lo, p->hi, state, true, ws->trial, ws) &&
                feasible(p, state, ws->trial, ws, tol_w)) {
                memcpy(x, ws->trial, (size_t)n * sizeof *x);
                return true;
            }
        }
    }
    hold_friction_at_cone(p, state, x, lo, hi); /* not settled: the last answer */
    return false;
}

double lcp_violation(const lcp *p, const double *x)
{
    int32_t n = p->n;
    double *w = malloc((size_t)(n ? n : 1) * sizeof *w);
    double *lo = malloc((size_t)(n ? 2 * n : 1) * sizeof *lo);
    if (!w || !lo) {
        free(w), free(lo);
        return INFINITY;
    }
    double *hi = lo + n;
    friction_bounds(p, x, lo, hi);
    residual(p, x, w, NULL, NULL);
    double worst = 0.0;
    for (int32_t i = 0; i < n; i++) {
        double below = fmax(lo[i] - x[i], 0.0), above = fmax(x[i] - hi[i], 0.0);
        worst = fmax(worst, fmax(below, above));
        /* w's sign must match where x sits */
        double span = hi[i] - lo[i];
        double at_lo = x[i] - lo[i], at_hi = hi[i] - x[i];
        double tol = 1e-9 * (fabs(x[i]) + (isfinite(span) ? span : 0.0)) + 1e-12;
        if (at_lo > tol && at_hi > tol) worst = fmax(worst, fabs(w[i])); /* interior: w = 0 */
        else if (at_lo <= tol && !(at_hi <= tol)) worst = fmax(worst, fmax(-w[i], 0.0));
        else if (at_hi <= tol && !(at_lo <= tol)) worst = fmax(worst, fmax(w[i], 0.0));
    }
    free(w), free(lo);
    return worst;
}
