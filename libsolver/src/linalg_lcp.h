/* Boxed linear complementarity problems, dense (Baraff 1994's contact forces, with Coulomb
 * friction as bounds that depend on the normal force):
 *     w = A x + b,  lo_i <= x_i <= hi_i,
 *     x_i = lo_i -> w_i >= 0,  x_i = hi_i -> w_i <= 0,  lo_i < x_i < hi_i -> w_i = 0,
 * with A symmetric positive semi-definite. A friction row i has its bounds at ±mu_i x_k,
 * k = normal_of[i], the normal impulse of its contact. */
#ifndef SB_LCP_H
#define SB_LCP_H

#include <stdbool.h>
#include <stdint.h>

typedef struct lcp {
    int32_t n;
    double *a;            /* n x n, row-major */
    double *b, *lo, *hi;  /* n each; hi may be INFINITY */
    int32_t *normal_of;   /* n: -1, or the normal row bounding this friction row */
    double *mu;           /* n: friction coefficients of friction rows */
    /* Optional (NULL: found by scanning A): per row, a first and last column outside which its
     * entries are exact zeros (a caller that built A knows them; the scan was 5% of a tower). */
    const int *row_first, *row_last;
} lcp;

enum { LCP_LOWER = -1, LCP_FREE = 0, LCP_UPPER = 1 };

typedef struct lcp_workspace {
    int32_t capacity;
    double *factor, *rhs, *w, *lo, *hi, *start, *trial;
    int32_t *free_index, *column_of;
    int *pivot; /* row interchanges of an LU factorisation */
    int *last;  /* per column of a factor: its last nonzero row */
    int *row_first, *row_last; /* per row of A: its first and last nonzero column */
} lcp_workspace;

/* Room for problems of n rows; false when out of memory. lcp_solve_pivoting makes room
 * itself, but cannot tell that failure from not converging: callers that must tell reserve first. */
bool lcp_workspace_reserve(lcp_workspace *ws, int32_t n);
void lcp_workspace_free(lcp_workspace *ws);

/* Block principal pivoting (Júdice & Pires; Murty's single pivots as the fallback, which end
 * for positive definite A) on the problem with friction bounds held at ±μ times the normal
 * impulses, repeated with the new normals until they settle; a partition that stays is
 * solved with the friction coupled (exact). At most max_pivots pivots in all. `state`
 * (LCP_*) warm-starts the partition and returns it; x warm-starts and returns the solution.
 * A gets a tiny multiple of its diagonal added (A may be singular: four coplanar contacts).
 * False if it did not converge (x: the last answer, friction inside its cone; or the start
 * when a partition could not be solved), or out of memory. */
bool lcp_solve_pivoting(const lcp *p, double *x, int8_t *state, lcp_workspace *ws, int32_t max_pivots,
                        int32_t *pivots);

/* The dense solves of a partition, in place of LAPACK's dposv and dgesv (column-major n x n F,
 * the solution into rhs; `last`, `pivot`: n ints of scratch). Cholesky reads F's lower
 * triangle; false when F is not positive definite (Cholesky) or singular (LU). The same
 * operations as reference LAPACK in the same order, exact zeros skipped: tests/c/test_lcp.c
 * holds them to LAPACKE's results. */
bool lcp_cholesky_solve(int32_t n, double *f, double *rhs, int *last);
bool lcp_lu_solve(int32_t n, double *f, double *rhs, int *pivot, int *last);

/* Largest violation of the complementarity conditions (for tests and checks). */
double lcp_violation(const lcp *p, const double *x);

#endif
