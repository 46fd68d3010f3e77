#include "linalg_band.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Rows in all before the factor and the solves go parallel. */
enum { BAND_PARALLEL_ROWS = 4096, BAND_MAX_HALF_BLOCKS = 64 };

bool band_build(band_factor *b, const bsr *a, int32_t half_blocks)
{
    memset(b, 0, sizeof *b);
    if (half_blocks < 0 || half_blocks > BAND_MAX_HALF_BLOCKS) return false;
    b->half_blocks = half_blocks;
    size_t rows = (size_t)a->n + 1;
    b->offset = malloc(((size_t)a->block_count + 1) * sizeof *b->offset);
    b->chain_start = malloc(rows * sizeof *b->chain_start);
    b->l = malloc(rows * ((size_t)half_blocks + 1) * 9 * sizeof *b->l);
    b->inverse = malloc(rows * 9 * sizeof *b->inverse);
    if (!b->offset || !b->chain_start || !b->l || !b->inverse) {
        band_free(b);
        return false;
    }
    /* a chain ends before row i when no kept block of the rows before reaches i or beyond */
    int32_t reach = -1;
    b->exact = true;
    for (int32_t i = 0; i < a->n; i++) {
        if (reach < i) b->chain_start[b->chain_count++] = i;
        for (int32_t k = a->row_start[i]; k < a->row_start[i + 1]; k++) {
            int32_t j = a->cols[k];
            bool kept = abs(i - j) <= half_blocks;
            b->exact &= kept;
            b->offset[k] = (int8_t)(kept && j <= i ? i - j : -1);
            if (kept && j > reach) reach = j;
        }
    }
    b->chain_start[b->chain_count] = a->n;
    b->n = a->n;
    return true;
}

/* ---- 3x3 blocks, row-major ------------------------------------------------------------------ */

/* s -= a bᵀ */
static inline void sub_mul_transposed(double s[9], const double a[9], const double b[9])
{
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) s[3 * r + c] -= a[3 * r] * b[3 * c] + a[3 * r + 1] * b[3 * c + 1] + a[3 * r + 2] * b[3 * c + 2];
}

/* out = s mᵀ for m lower triangular */
static inline void mul_lower_transposed(const double s[9], const double m[9], double out[9])
{
    for (int r = 0; r < 3; r++) {
        const double *sr = &s[3 * r];
        out[3 * r] = sr[0] * m[0];
        out[3 * r + 1] = sr[0] * m[3] + sr[1] * m[4];
        out[3 * r + 2] = sr[0] * m[6] + sr[1] * m[7] + sr[2] * m[8];
    }
}

/* The Cholesky factor of the symmetric block s (its lower triangle read), inverted, into inv
 * (lower triangular); false when s is not positive definite. */
static inline bool cholesky_inverse(const double s[9], double inv[9])
{
    double d0 = s[0];
    if (!(d0 > 0.0)) return false;
    double l00 = sqrt(d0), l10 = s[3] / l00, l20 = s[6] / l00;
    double d1 = s[4] - l10 * l10;
    if (!(d1 > 0.0)) return false;
    double l11 = sqrt(d1), l21 = (s[7] - l20 * l10) / l11;
    double d2 = s[8] - l20 * l20 - l21 * l21;
    if (!(d2 > 0.0) || !isfinite(d2)) return false;
    double l22 = sqrt(d2);
    double m00 = 1.0 / l00, m11 = 1.0 / l11, m22 = 1.0 / l22;
    double m10 = -l10 * m00 * m11, m21 = -l21 * m11 * m22, m20 = -(l20 * m00 + l21 * m10) * m22;
    inv[0] = m00, inv[1] = 0.0, inv[2] = 0.0;
    inv[3] = m10, inv[4] = m11, inv[5] = 0.0;
    inv[6] = m20, inv[7] = m21, inv[8] = m22;
    return true;
}

/* ---- factor and solves ---------------------------------------------------------------------- */

/* Â's lower band of one chain into L's storage, then row by row
 *     L_ij = (Â_ij - Σ_{k<j} L_ik L_jkᵀ) L_jj⁻ᵀ,   L_ii L_iiᵀ = Â_ii - Σ_{k<i} L_ik L_ikᵀ,
 * each row filled just before it is factored (one pass over the storage, in cache). */
static bool factor_chain(band_factor *b, const bsr *a, const cg_filter *filter, int32_t chain)
{
    const int32_t w = b->half_blocks + 1, first = b->chain_start[chain], end = b->chain_start[chain + 1];
    double *l = b->l;
    for (int32_t i = first; i < end; i++) {
        int32_t reach = i - first < b->half_blocks ? i - first : b->half_blocks;
        double *li = &l[(size_t)i * (size_t)w * 9];
        memset(li, 0, (size_t)(reach + 1) * 9 * sizeof *li);
        for (int32_t k = a->row_start[i]; k < a->row_start[i + 1]; k++) {
            if (b->offset[k] < 0) continue;
            int32_t j = a->cols[k];
            if (filter_kind(filter, i) == FILTER_FREE && filter_kind(filter, j) == FILTER_FREE)
                memcpy(&li[9 * b->offset[k]], &a->vals[9 * (size_t)k], 9 * sizeof *li); /* most blocks: S = I */
            else
                filter_block(filter, i, j, &a->vals[9 * (size_t)k], &li[9 * b->offset[k]]);
        }
        for (int32_t d = reach; d >= 0; d--) { /* j = i - d, in ascending order */
            const double *lj = &l[(size_t)(i - d) * (size_t)w * 9];
            double s[9];
            memcpy(s, &li[9 * d], sizeof s);
            for (int32_t e = reach; e > d; e--) sub_mul_transposed(s, &li[9 * e], &lj[9 * (e - d)]); /* k = i - e */
            if (d > 0) mul_lower_transposed(s, &b->inverse[9 * (size_t)(i - d)], &li[9 * d]);
            else if (!cholesky_inverse(s, &b->inverse[9 * (size_t)i])) return false;
        }
    }
    return true;
}

bool band_factor_update(band_factor *b, const bsr *a, const cg_filter *filter)
{
    int failed = 0;
#pragma omp parallel for schedule(static) reduction(| : failed) if (b->n > BAND_PARALLEL_ROWS)
    for (int32_t chain = 0; chain < b->chain_count; chain++) failed |= !factor_chain(b, a, filter, chain);
    return !failed;
}

/* L y = in, then Lᵀ out = y, in out. */
static void solve_chain(const band_factor *b, int32_t chain, const double *in, double *out)
{
    const int32_t kb = b->half_blocks, w = kb + 1, first = b->chain_start[chain], end = b->chain_start[chain + 1];
    for (int32_t i = first; i < end; i++) {
        const double *li = &b->l[(size_t)i * (size_t)w * 9], *m = &b->inverse[9 * (size_t)i];
        double s[3] = {in[3 * (size_t)i], in[3 * (size_t)i + 1], in[3 * (size_t)i + 2]};
        for (int32_t d = 1; d <= kb && i - d >= first; d++) {
            const double *y = &out[3 * (size_t)(i - d)], *lb = &li[9 * d];
            for (int r = 0; r < 3; r++) s[r] -= lb[3 * r] * y[0] + lb[3 * r + 1] * y[1] + lb[3 * r + 2] * y[2];
        }
        double *y = &out[3 * (size_t)i];
        y[0] = m[0] * s[0];
        y[1] = m[3] * s[0] + m[4] * s[1];
        y[2] = m[6] * s[0] + m[7] * s[1] + m[8] * s[2];
    }
    for (int32_t i = end - 1; i >= first; i--) {
        const double *m = &b->inverse[9 * (size_t)i];
        double *x = &out[3 * (size_t)i];
        double s[3] = {x[0], x[1], x[2]};
        for (int32_t d = 1; d <= kb && i + d < end; d++) { /* Lᵀ's block (i, i + d) = L(i + d, i)ᵀ */
            const double *xd = &out[3 * (size_t)(i + d)], *lb = &b->l[((size_t)(i + d) * (size_t)w + (size_t)d) * 9];
            for (int c = 0; c < 3; c++) s[c] -= lb[c] * xd[0] + lb[3 + c] * xd[1] + lb[6 + c] * xd[2];
        }
        x[0] = m[0] * s[0] + m[3] * s[1] + m[6] * s[2];
        x[1] = m[4] * s[1] + m[7] * s[2];
        x[2] = m[8] * s[2];
    }
}

void band_apply(const band_factor *b, const double *in, double *out)
{
#pragma omp parallel for schedule(static) if (b->n > BAND_PARALLEL_ROWS)
    for (int32_t chain = 0; chain < b->chain_count; chain++) solve_chain(b, chain, in, out);
}

void band_free(band_factor *b)
{
    free(b->offset), free(b->chain_start), free(b->l), free(b->inverse);
    memset(b, 0, sizeof *b);
}
