/* Filtered, preconditioned conjugate gradient (Baraff & Witkin 1998, §5.3).
 *
 * Solves A x = b for SPD A where each vertex i may be constrained by its filter S_i
 * (linalg_filter.h). The constrained part of x_i is (I - S_i) z_i exactly, at every iteration.
 * The preconditioner is block Jacobi or a smoothed-aggregation multigrid V-cycle (linalg_amg.h),
 * whose iteration count grows far more slowly with the size of the cloth but which costs
 * about three block-Jacobi iterations per iteration and thirty per solve to set up. */
#ifndef SB_CG_H
#define SB_CG_H

#include <stdbool.h>
#include <stdint.h>

#include "linalg_amg.h"
#include "linalg_band.h"
#include "linalg_bsr.h"
#include "linalg_filter.h"

/* CG_MULTIGRID_AUTO (the default), on systems of at least multigrid_min_rows block rows,
 * picks for each solve the preconditioner whose last solve would cost less again, counted in
 * block-Jacobi iterations: a multigrid solve costs CG_MULTIGRID_ITERATION_COST per iteration
 * plus CG_MULTIGRID_SETUP_COST. Block Jacobi needs at least CG_JACOBI_PER_MULTIGRID times
 * the multigrid's iterations (more the stiffer and larger the cloth): that guesses the
 * multigrid's count before its first solve, and raises block Jacobi's last count when the
 * multigrid's has outgrown it (the cloth got harder since). Every CG_MULTIGRID_PROBE_EVERY
 * solves the other preconditioner is tried once, so neither count goes stale as the cloth
 * changes. The constants' measurements: docs/solver-tuning.md. */
typedef enum cg_multigrid_mode { CG_MULTIGRID_AUTO, CG_MULTIGRID_ALWAYS, CG_MULTIGRID_NEVER } cg_multigrid_mode;
/* The default multigrid_min_rows, above a 128² cloth: below it the multigrid saved CG time
 * only on stiff cloths, and stretched the soft ones more (docs/solver-tuning.md). */
enum { CG_MULTIGRID_MIN_ROWS = 32768, CG_MULTIGRID_PROBE_EVERY = 64 };
#define CG_MULTIGRID_ITERATION_COST 3.5
#define CG_MULTIGRID_SETUP_COST 28.0
#define CG_JACOBI_PER_MULTIGRID 6.0

typedef struct cg_workspace {
    int32_t n;
    double *r, *c, *q, *s, *precond; /* 3n each; precond is n x 9 */
    double *partial;                 /* partial sums of dot products */
    amg multigrid;                   /* built on the first solve that uses it */
    cg_multigrid_mode multigrid_mode;
    int32_t multigrid_min_rows;      /* AUTO: smaller systems keep block Jacobi */
    bool multigrid_unavailable;      /* building it failed (memory): block Jacobi from then on */
    band_factor band;                /* built by cg_workspace_use_band: preconditions every solve */
} cg_workspace;

/* What AUTO remembers of the solves so far to choose the next one's preconditioner: part of
 * the state of whatever owns the system, since a resumed bake must choose as the first did. */
typedef struct cg_history {
    int32_t jacobi_iterations;       /* of the last solve of each kind, -1 before the first */
    int32_t multigrid_iterations;
    int32_t solves_since_probe;
} cg_history;

#define CG_HISTORY_START ((cg_history){-1, -1, 0})

typedef struct cg_result {
    int32_t iterations;
    double relative_residual; /* sqrt(rᵀP⁻¹r / bᵀP⁻¹b) of the filtered system (a direct band
                                 solve: the Euclidean |S r| / |S b|) */
    bool converged;
    bool multigrid; /* the V-cycle preconditioned the solve (to its end) */
    bool band;      /* the band's factor did */
} cg_result;

/* The operator A + σ g gᵀ (σ >= 0, g: 3n values): a dense rank-one term, such as a cloth's
 * pressure stiffness (cloth_pressure.h), applied without ever entering the sparse matrix. It
 * keeps A positive definite; the block-Jacobi preconditioner takes its diagonal blocks σ g_i g_iᵀ
 * too, the multigrid is built on A alone (still a positive definite preconditioner, so CG
 * stays correct; a rank-one change costs it at most about one more iteration). */
typedef struct cg_rank_one {
    const double *g;
    double sigma;
} cg_rank_one;

bool cg_workspace_init(cg_workspace *ws, int32_t n);
void cg_workspace_free(cg_workspace *ws);
/* From now on every solve with a's pattern is preconditioned by the exact banded factor
 * (linalg_band.h) of the blocks within half_blocks of the diagonal, block Jacobi taking over
 * where that factor is not positive definite; the multigrid is not tried. False when out of
 * memory (then nothing changes). */
bool cg_workspace_use_band(cg_workspace *ws, const bsr *a, int32_t half_blocks);

/* x holds the initial guess of the free part on entry and the solution on return. */
cg_result cg_solve(const bsr *a, const double *b, const cg_filter *filter, const double *z,
                   double *x, double tolerance, int32_t max_iterations, cg_workspace *ws, cg_history *history);
/* The same for the operator A + σ g gᵀ; rank_one NULL (or σ = 0): cg_solve, to the bit. */
cg_result cg_solve_rank_one(const bsr *a, const cg_rank_one *rank_one, const double *b, const cg_filter *filter,
                            const double *z, double *x, double tolerance, int32_t max_iterations, cg_workspace *ws,
                            cg_history *history);

#endif
