/* Filtered, block-Jacobi preconditioned conjugate gradient (Baraff & Witkin 1998, §5.3).
 *
 * Solves A x = b for SPD A where each vertex i may be constrained: the filter S_i is I
 * (free), 0 (fixed) or a projection I - n nᵀ / a line p pᵀ (FILTER_PROJECT, S_i given).
 * The constrained part of x_i is (I - S_i) z_i exactly, at every iteration. */
#ifndef SB_CG_H
#define SB_CG_H

#include <stdbool.h>
#include <stdint.h>

#include "bsr.h"

enum { FILTER_FREE = 0, FILTER_FIXED = 1, FILTER_PROJECT = 2 };

typedef struct cg_filter {
    const uint8_t *kind; /* n, FILTER_*; NULL means every vertex is free */
    const double *proj;  /* n x 9, S_i of FILTER_PROJECT vertices */
} cg_filter;

typedef struct cg_workspace {
    int32_t n;
    double *r, *c, *q, *s, *precond; /* 3n each; precond is n x 9 */
    double *partial;                 /* partial sums of dot products */
} cg_workspace;

typedef struct cg_result {
    int32_t iterations;
    double relative_residual; /* sqrt(rᵀP⁻¹r / bᵀP⁻¹b) of the filtered system */
    bool converged;
} cg_result;

bool cg_workspace_init(cg_workspace *ws, int32_t n);
void cg_workspace_free(cg_workspace *ws);

/* x holds the initial guess of the free part on entry and the solution on return. */
cg_result cg_solve(const bsr *a, const double *b, const cg_filter *filter, const double *z,
                   double *x, double tolerance, int32_t max_iterations, cg_workspace *ws);

#endif
