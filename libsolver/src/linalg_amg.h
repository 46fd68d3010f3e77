/* Smoothed-aggregation algebraic multigrid (Vaněk, Mandel & Brezina 1996) as the
 * preconditioner of the filtered CG on large cloths.
 *
 * It approximates Â⁻¹ for Â = S A S + (I - S), the system with Baraff & Witkin's filters
 * folded in: on the free directions Â is the matrix CG works with, and on the constrained
 * ones it is the identity, so pins and contacts are what the hierarchy sees.
 * Level l+1 groups the rows of level l into aggregates (a row and its pattern neighbours).
 * The prolongator P interpolates each aggregate's translation (scalar weights times I₃)
 * smoothed by one damped Jacobi step of a scalar picture of the matrix (the block traces),
 * so P adapts to stiffness and pins every step; the coarse matrix is Pᵀ A P.
 * One application is a symmetric V-cycle: a damped block-Jacobi sweep before and after the
 * coarse correction, a dense Cholesky factor (LAPACKE) on the coarsest level. The patterns
 * are built once per matrix pattern, the values at every solve. The hierarchy is built on the
 * system's values rounded to single precision: the V-cycle stays symmetric (it is that of the
 * rounded matrix), preconditions all the same (CG itself multiplies by the exact one), and its
 * fine products stream half the bytes. */
#ifndef SB_AMG_H
#define SB_AMG_H

#include <stdbool.h>
#include <stdint.h>

#include "linalg_bsr.h"
#include "linalg_filter.h"

/* Sums over a level's rows are taken in fixed chunks of rows, added in order: the same bits
 * for any number of threads. */
enum { AMG_MAX_LEVELS = 10, AMG_ROW_CHUNK = 1024 };

typedef struct amg_level {
    bsr a;              /* this level's matrix; level 0 uses the system's through the filter */
    int32_t *aggregate; /* n: the row of level l+1 that each row belongs to */
    int32_t coarse_n;
    int32_t *p_start, *p_cols; /* P by fine row, columns sorted */
    double *p_vals;
    double *traces;            /* per block of this level: its trace / 3 */
    int32_t *pt_start, *pt_rows, *pt_entry; /* Pᵀ by coarse row: fine row, index into p_vals */
    int32_t *w_start, *w_cols;              /* W = Â P by fine row, 3x3 blocks */
    double *w_vals;
    /* where each product term lands, in the order galerkin_product visits them: W's entry for
     * (block k of row i, P entry of its column), by row of this level; the coarse entry for
     * (Pᵀ entry, W entry of its row), by coarse row */
    int32_t *w_map_start, *w_map, *c_map_start, *c_map;
    double *dinv;            /* n x 9: inverse diagonal blocks of Â */
    double smoother_weight;  /* ω of the block-Jacobi sweeps */
    double *x, *b, *r, *t;   /* 3n each */
    double *partial;         /* 3 per chunk of AMG_ROW_CHUNK rows: sums of the power steps */
} amg_level;

typedef struct amg {
    int level_count;          /* 0: not built */
    amg_level levels[AMG_MAX_LEVELS];
    const bsr *fine;          /* pattern the hierarchy was built for */
    float *fine_single;       /* its values rounded to single precision: level 0's matrix (a
                               * preconditioner need not be exact; the V-cycle streams half) */
    const cg_filter *filter;  /* of the current solve */
    double *coarsest_factor;  /* dense Cholesky factor of the last level (3n x 3n) */
    bool coarsest_factored;
} amg;

/* Aggregates, prolongator, product and coarse patterns for `fine`'s pattern. False when out
 * of memory (the hierarchy is then empty). */
bool amg_build(amg *m, const bsr *fine);
/* Values of every level for the current values of `fine` and this solve's filter. False when
 * the hierarchy cannot precondition this matrix (a diagonal block that is not positive). */
bool amg_update(amg *m, const bsr *fine, const cg_filter *filter);
/* z = one V-cycle applied to r (vectors of 3n). */
void amg_apply(amg *m, const double *r, double *z);
void amg_free(amg *m);

#endif
