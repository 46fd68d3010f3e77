/* Symmetric-pattern sparse matrix of 3x3 blocks (block CSR, both triangles stored).
 * The pattern is built once from the elements; values are refilled every step. */
#ifndef SB_BSR_H
#define SB_BSR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct bsr {
    int32_t n;          /* block rows (= vertices) */
    int32_t *row_start; /* n + 1 */
    int32_t *cols;      /* block_count column indices, sorted within a row */
    int32_t *diag;      /* n: index of block (i, i) */
    double *vals;       /* block_count x 9, row-major blocks */
    int32_t block_count;
} bsr;

/* A set of elements of `verts_per_element` vertices each (triangles, hinges). */
typedef struct bsr_elements {
    const int32_t *verts; /* count x verts_per_element */
    int32_t count;
    int verts_per_element;
} bsr_elements;

/* Pattern from element sets: every pair of vertices of an element (and every vertex with
 * itself) gets a block. False when out of memory, or when the blocks would number more than
 * INT32_MAX (checked before any element is read). */
bool bsr_build_pattern(bsr *m, int32_t n, const bsr_elements *sets, int set_count);
/* Block index of (i, j), or -1 when the pattern has no such block. */
int32_t bsr_find(const bsr *m, int32_t i, int32_t j);
void bsr_zero(bsr *m);
/* y = A x (vectors of 3n) */
void bsr_matvec(const bsr *m, const double *x, double *y);
/* y = A x with A's pattern from m and its values from `single` (block_count x 9), rounded to
 * single precision: half the bytes to stream, summed in double. */
void bsr_matvec_single(const bsr *m, const float *single, const double *x, double *y);
void bsr_free(bsr *m);

/* Blocks of element e are (i, j) for its local vertices i, j: table[e * v * v + i * v + j]. */
bool bsr_element_table(const bsr *m, const int32_t *elements, int32_t element_count,
                       int verts_per_element, int32_t **out_table);

#endif
