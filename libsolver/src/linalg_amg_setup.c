/* The hierarchy's patterns: aggregates, prolongator, W = A P and the coarse matrices. They
 * depend only on the fine matrix's pattern, so they are built once per cloth. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "linalg_amg.h"
#include "sort.h"

/* Stop coarsening at this many block rows: its dense Cholesky factor is 3n x 3n. */
enum { COARSEST_ROWS = 64 };

/* Greedy aggregation (Vaněk et al. 1996, §4): a row whose neighbours are all free starts an
 * aggregate of itself and them; rows left over join a neighbouring aggregate of that first
 * pass; rows still left group with their free neighbours. Returns the aggregate count. */
static int32_t aggregate(const bsr *a, int32_t *agg)
{
    int32_t n = a->n, count = 0;
    for (int32_t i = 0; i < n; i++) agg[i] = -1;
    for (int32_t i = 0; i < n; i++) {
        bool all_free = true;
        for (int32_t k = a->row_start[i]; k < a->row_start[i + 1] && all_free; k++)
            all_free = agg[a->cols[k]] < 0;
        if (!all_free) continue;
        for (int32_t k = a->row_start[i]; k < a->row_start[i + 1]; k++) agg[a->cols[k]] = count;
        count++;
    }
    int32_t first_pass = count;
    for (int32_t i = 0; i < n; i++) {
        if (agg[i] >= 0) continue;
        for (int32_t k = a->row_start[i]; k < a->row_start[i + 1]; k++) {
            int32_t g = agg[a->cols[k]];
            if (g >= 0 && g < first_pass) {
                agg[i] = g;
                break;
            }
        }
        /* marked as its own until the last pass, so later rows do not chain onto it */
        if (agg[i] < 0) agg[i] = -2;
    }
    for (int32_t i = 0; i < n; i++) {
        if (agg[i] != -2) continue;
        for (int32_t k = a->row_start[i]; k < a->row_start[i + 1]; k++)
            if (agg[a->cols[k]] == -2) agg[a->cols[k]] = count;
        count++;
    }
    return count;
}

/* Row i of the result is the sorted union, over the entries j of row i of `outer`, of row j
 * of `inner` (or of {j} itself when inner_start is NULL), mapped through `map` if given. */
static bool union_pattern(int32_t rows, const int32_t *outer_start, const int32_t *outer_idx,
                          const int32_t *inner_start, const int32_t *inner_cols, const int32_t *map,
                          int32_t col_count, int32_t **out_start, int32_t **out_cols)
{
    int32_t *mark = malloc(((size_t)col_count + 1) * sizeof *mark);
    int32_t *start = malloc(((size_t)rows + 1) * sizeof *start);
    int32_t *cols = NULL;
    if (!mark || !start) goto fail;
    for (int pass = 0; pass < 2; pass++) {
        for (int32_t c = 0; c < col_count; c++) mark[c] = -1;
        int32_t total = 0;
        for (int32_t i = 0; i < rows; i++) {
            if (pass == 0) start[i] = total;
            int32_t row_begin = total;
            for (int32_t k = outer_start[i]; k < outer_start[i + 1]; k++) {
                int32_t j = outer_idx[k];
                int32_t lo = inner_start ? inner_start[j] : 0, hi = inner_start ? inner_start[j + 1] : 1;
                for (int32_t e = lo; e < hi; e++) {
                    int32_t col = inner_start ? inner_cols[e] : j;
                    if (map) col = map[col];
                    if (mark[col] == i) continue;
                    mark[col] = i;
                    if (pass == 1) cols[total] = col;
                    total++;
                }
            }
            if (pass == 1) qsort(&cols[row_begin], (size_t)(total - row_begin), sizeof *cols, compare_i32);
        }
        if (pass == 0) {
            start[rows] = total;
            cols = malloc(((size_t)total + 1) * sizeof *cols);
            if (!cols) goto fail;
        }
    }
    free(mark);
    *out_start = start, *out_cols = cols;
    return true;
fail:
    free(mark), free(start), free(cols);
    return false;
}

/* Pᵀ by coarse row, fine rows ascending within each. */
static bool transpose(amg_level *lv, int32_t n)
{
    int32_t nc = lv->coarse_n, total = lv->p_start[n];
    lv->pt_start = calloc((size_t)nc + 2, sizeof *lv->pt_start);
    lv->pt_rows = malloc(((size_t)total + 1) * sizeof *lv->pt_rows);
    lv->pt_entry = malloc(((size_t)total + 1) * sizeof *lv->pt_entry);
    if (!lv->pt_start || !lv->pt_rows || !lv->pt_entry) return false;
    for (int32_t e = 0; e < total; e++) lv->pt_start[lv->p_cols[e] + 2]++;
    for (int32_t c = 0; c < nc; c++) lv->pt_start[c + 2] += lv->pt_start[c + 1];
    for (int32_t i = 0; i < n; i++)
        for (int32_t e = lv->p_start[i]; e < lv->p_start[i + 1]; e++) {
            int32_t slot = lv->pt_start[lv->p_cols[e] + 1]++;
            lv->pt_rows[slot] = i, lv->pt_entry[slot] = e;
        }
    return true;
}

static bool alloc_vectors(amg_level *lv, int32_t n)
{
    size_t len = 3 * (size_t)n + 1;
    lv->x = malloc(len * sizeof(double));
    lv->b = malloc(len * sizeof(double));
    lv->r = malloc(len * sizeof(double));
    lv->t = malloc(len * sizeof(double));
    lv->dinv = malloc(3 * len * sizeof(double));
    lv->partial = malloc(3 * ((size_t)n / AMG_ROW_CHUNK + 1) * sizeof(double));
    return lv->x && lv->b && lv->r && lv->t && lv->dinv && lv->partial;
}

/* The landing places of the Galerkin product's terms (linalg_amg.h), found once; the patterns
 * hold every term's entry, so no search fails. */
static bool product_maps(amg_level *lv, const bsr *a, const bsr *coarse)
{
    int32_t n = a->n, nc = coarse->n;
    lv->w_map_start = malloc(((size_t)n + 1) * sizeof *lv->w_map_start);
    lv->c_map_start = malloc(((size_t)nc + 1) * sizeof *lv->c_map_start);
    if (!lv->w_map_start || !lv->c_map_start) return false;
    size_t total = 0;
    for (int32_t i = 0; i < n; i++) {
        lv->w_map_start[i] = (int32_t)total;
        for (int32_t k = a->row_start[i]; k < a->row_start[i + 1]; k++)
            total += (size_t)(lv->p_start[a->cols[k] + 1] - lv->p_start[a->cols[k]]);
        if (total > INT32_MAX) return false;
    }
    lv->w_map_start[n] = (int32_t)total;
    lv->w_map = malloc((total + 1) * sizeof *lv->w_map);
    if (!lv->w_map) return false;
    for (int32_t i = 0; i < n; i++) {
        int32_t out = lv->w_map_start[i];
        for (int32_t k = a->row_start[i]; k < a->row_start[i + 1]; k++)
            for (int32_t e = lv->p_start[a->cols[k]]; e < lv->p_start[a->cols[k] + 1]; e++)
                lv->w_map[out++] = find_sorted_i32(lv->w_cols, lv->w_start[i], lv->w_start[i + 1], lv->p_cols[e]);
    }
    total = 0;
    for (int32_t c = 0; c < nc; c++) {
        lv->c_map_start[c] = (int32_t)total;
        for (int32_t s = lv->pt_start[c]; s < lv->pt_start[c + 1]; s++)
            total += (size_t)(lv->w_start[lv->pt_rows[s] + 1] - lv->w_start[lv->pt_rows[s]]);
        if (total > INT32_MAX) return false;
    }
    lv->c_map_start[nc] = (int32_t)total;
    lv->c_map = malloc((total + 1) * sizeof *lv->c_map);
    if (!lv->c_map) return false;
    for (int32_t c = 0; c < nc; c++) {
        int32_t out = lv->c_map_start[c];
        for (int32_t s = lv->pt_start[c]; s < lv->pt_start[c + 1]; s++)
            for (int32_t w = lv->w_start[lv->pt_rows[s]]; w < lv->w_start[lv->pt_rows[s] + 1]; w++)
                lv->c_map[out++] = bsr_find(coarse, c, lv->w_cols[w]);
    }
    return true;
}

/* Level l's aggregates and P, and level l+1's matrix pattern. Sets *stalled, building no
 * more, when aggregation barely shrinks the level: a coarser level would only add cost. */
static bool coarsen(amg *m, int l, const bsr *a, bool *stalled)
{
    amg_level *lv = &m->levels[l];
    int32_t n = a->n;
    lv->aggregate = malloc(((size_t)n + 1) * sizeof *lv->aggregate);
    if (!lv->aggregate) return false;
    lv->coarse_n = aggregate(a, lv->aggregate);
    *stalled = lv->coarse_n * 10 > n * 8;
    if (*stalled) return true;
    if (!union_pattern(n, a->row_start, a->cols, NULL, NULL, lv->aggregate, lv->coarse_n, &lv->p_start, &lv->p_cols))
        return false;
    lv->p_vals = malloc(((size_t)lv->p_start[n] + 1) * sizeof *lv->p_vals);
    lv->traces = malloc(((size_t)a->block_count + 1) * sizeof *lv->traces);
    if (!lv->p_vals || !lv->traces || !transpose(lv, n)) return false;
    if (!union_pattern(n, a->row_start, a->cols, lv->p_start, lv->p_cols, NULL, lv->coarse_n, &lv->w_start,
                       &lv->w_cols))
        return false;
    lv->w_vals = malloc(((size_t)lv->w_start[n] * 9 + 1) * sizeof *lv->w_vals);
    if (!lv->w_vals) return false;
    bsr *coarse = &m->levels[l + 1].a;
    coarse->n = lv->coarse_n;
    if (!union_pattern(lv->coarse_n, lv->pt_start, lv->pt_rows, lv->w_start, lv->w_cols, NULL, lv->coarse_n,
                       &coarse->row_start, &coarse->cols))
        return false;
    coarse->block_count = coarse->row_start[coarse->n];
    coarse->diag = malloc(((size_t)coarse->n + 1) * sizeof *coarse->diag);
    coarse->vals = malloc(((size_t)coarse->block_count * 9 + 1) * sizeof *coarse->vals);
    if (!coarse->diag || !coarse->vals) return false;
    for (int32_t i = 0; i < coarse->n; i++) coarse->diag[i] = bsr_find(coarse, i, i);
    return product_maps(lv, a, coarse);
}

bool amg_build(amg *m, const bsr *fine)
{
    memset(m, 0, sizeof *m);
    m->fine = fine;
    m->fine_single = malloc(((size_t)fine->block_count * 9 + 1) * sizeof *m->fine_single);
    if (!m->fine_single) return false;
    for (int l = 0; l < AMG_MAX_LEVELS; l++) {
        const bsr *a = l == 0 ? fine : &m->levels[l].a;
        m->level_count = l + 1;
        if (!alloc_vectors(&m->levels[l], a->n)) break;
        bool last = a->n <= COARSEST_ROWS || l + 1 == AMG_MAX_LEVELS;
        if (!last && !coarsen(m, l, a, &last)) break;
        if (last) {
            if (a->n <= COARSEST_ROWS) {
                size_t dim = 3 * (size_t)a->n;
                m->coarsest_factor = malloc((dim * dim + 1) * sizeof(double));
                if (!m->coarsest_factor) break;
            }
            return true;
        }
    }
    amg_free(m);
    return false;
}

static void free_level(amg_level *lv)
{
    bsr_free(&lv->a);
    free(lv->aggregate), free(lv->p_start), free(lv->p_cols), free(lv->p_vals), free(lv->traces);
    free(lv->pt_start), free(lv->pt_rows), free(lv->pt_entry);
    free(lv->w_start), free(lv->w_cols), free(lv->w_vals);
    free(lv->w_map_start), free(lv->w_map), free(lv->c_map_start), free(lv->c_map);
    free(lv->dinv), free(lv->x), free(lv->b), free(lv->r), free(lv->t), free(lv->partial);
}

void amg_free(amg *m)
{
    /* levels past level_count may hold a half-built coarse pattern */
    for (int l = 0; l < AMG_MAX_LEVELS; l++) free_level(&m->levels[l]);
    free(m->coarsest_factor), free(m->fine_single);
    memset(m, 0, sizeof *m);
}
