/* Baraff & Witkin's (1998, §5.3) per-vertex constraint filters: S_i is I (free), 0 (fixed)
 * or a projection I - n nᵀ / a line p pᵀ (FILTER_PROJECT, S_i given). */
#ifndef SB_FILTER_H
#define SB_FILTER_H

#include <stdint.h>

enum { FILTER_FREE = 0, FILTER_FIXED = 1, FILTER_PROJECT = 2 };

typedef struct cg_filter {
    const uint8_t *kind; /* n, FILTER_*; NULL means every vertex is free */
    const double *proj;  /* n x 9, S_i of FILTER_PROJECT vertices */
} cg_filter;

static inline int filter_kind(const cg_filter *f, int32_t i)
{
    return f && f->kind ? f->kind[i] : FILTER_FREE;
}

/* v_i <- S_i v_i for every vertex */
void filter_apply(const cg_filter *f, double *v, int32_t n);

/* out = S_i B S_j for a 3x3 block B (row-major), plus I - S_i when i == j: the block (i, j)
 * of S A S + (I - S). */
void filter_block(const cg_filter *f, int32_t i, int32_t j, const double *block, double out[9]);

#endif
