/* An exact banded Cholesky factor as the preconditioner of the filtered CG, for systems whose
 * blocks lie near the diagonal: strands (strands.h), where a strand's segments couple each
 * vertex to its neighbours and its bending to the second ones, so the system is block
 * pentadiagonal along each strand and strands do not couple at all.
 *
 * Block Jacobi needs of the order of (segments)² iterations on such a chain (the segments'
 * stiffness EA/L on a vertex's small mass makes the system's condition number grow as the
 * square of the chain's length): over a thousand on 30-segment hair. This factor is of
 * Â = S A S + (I - S) restricted to the band |i - j| <= half_blocks, the system with Baraff &
 * Witkin's filters folded in as for the multigrid (linalg_amg.h): for a residual r = S r,
 * y = Â⁻¹ r satisfies y = S y (since (I - S) S = 0), and where A has no block outside the band
 * Â⁻¹ is the filtered system's exact inverse, so CG ends after one iteration. Blocks outside
 * the band are left out of Â (a preconditioner, no longer exact, as long as Â stays positive
 * definite); the rank-one term of cg_rank_one is left out too. Where the band holds every
 * block (exact) and there is no rank-one term, CG takes the factor's answer as it is when its
 * residual meets the tolerance: one product with the factor and two with A a solve.
 *
 * The rows split into chains no band block crosses (each strand one): a chain's factor is a
 * block Cholesky L Lᵀ = Â of 3x3 blocks, L block lower triangular with half_blocks blocks below
 * the diagonal (no fill-in outside the band), about 150 multiply-adds a row for two; computed
 * apart from the other chains (in parallel), the same bits for any number of threads. */
#ifndef SB_BAND_H
#define SB_BAND_H

#include <stdbool.h>
#include <stdint.h>

#include "linalg_bsr.h"
#include "linalg_filter.h"

typedef struct band_factor {
    int32_t n;             /* block rows, 0: not built */
    int32_t half_blocks;   /* blocks (i, j) with |i - j| <= half_blocks are kept */
    bool exact;            /* every block of the pattern is kept: Â⁻¹ is the filtered inverse */
    int32_t chain_count;
    int32_t *chain_start;  /* chain_count + 1 block rows: where each chain begins */
    int8_t *offset;        /* per block of the matrix (i, j): i - j when kept and j <= i, else -1 */
    double *l;             /* n x (half_blocks + 1) x 9: L's block (i, i - d) at [i][d] */
    double *inverse;       /* n x 9: L's diagonal blocks inverted (lower triangular) */
} band_factor;

/* Chains and storage for a's pattern, keeping its blocks within `half_blocks` of the
 * diagonal. False when out of memory. */
bool band_build(band_factor *b, const bsr *a, int32_t half_blocks);
/* Factors Â of a's current values under the filter; false when Â is not positive definite
 * (or not finite): the caller preconditions otherwise. */
bool band_factor_update(band_factor *b, const bsr *a, const cg_filter *filter);
/* out = Â⁻¹ in (vectors of 3n; in and out may not alias). */
void band_apply(const band_factor *b, const double *in, double *out);
void band_free(band_factor *b);

#endif
