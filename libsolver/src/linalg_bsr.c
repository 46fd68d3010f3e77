#include "linalg_bsr.h"

#include <stdlib.h>
#include <string.h>

#include "sort.h"

bool bsr_build_pattern(bsr *m, int32_t n, const bsr_elements *sets, int set_count)
{
    memset(m, 0, sizeof *m);
    m->n = n;
    /* rows and columns are indexed in int32: refuse a pattern whose bound n + Σ e v (v - 1)
     * would not fit, before reading any element */
    uint64_t bound = (uint64_t)(n > 0 ? n : 0);
    for (int s = 0; s < set_count; s++) {
        uint64_t v = (uint64_t)(sets[s].verts_per_element > 0 ? sets[s].verts_per_element : 0);
        bound += (uint64_t)(sets[s].count > 0 ? sets[s].count : 0) * v * (v > 0 ? v - 1 : 0);
    }
    if (bound > INT32_MAX) return false;
    int32_t *count = calloc((size_t)n + 1, sizeof *count);
    if (!count) return false;
    /* upper bound per row: the diagonal plus v-1 neighbours per element touching it */
    for (int32_t i = 0; i < n; i++) count[i] = 1;
    for (int s = 0; s < set_count; s++) {
        size_t v = (size_t)sets[s].verts_per_element;
        for (int32_t e = 0; e < sets[s].count; e++)
            for (size_t a = 0; a < v; a++) count[sets[s].verts[e * v + a]] += (int32_t)(v - 1);
    }
    size_t total = 0;
    for (int32_t i = 0; i < n; i++) total += (size_t)count[i];
    int32_t *start = malloc(((size_t)n + 1) * sizeof *start);
    int32_t *fill = malloc((size_t)n * sizeof *fill);
    int32_t *cols = malloc((total ? total : 1) * sizeof *cols);
    if (!start || !fill || !cols) {
        free(count), free(start), free(fill), free(cols);
        return false;
    }
    start[0] = 0;
    for (int32_t i = 0; i < n; i++) start[i + 1] = start[i] + count[i];
    for (int32_t i = 0; i < n; i++) {
        cols[start[i]] = i;
        fill[i] = start[i] + 1;
    }
    for (int s = 0; s < set_count; s++) {
        size_t v = (size_t)sets[s].verts_per_element;
        const int32_t *el = sets[s].verts;
        for (int32_t e = 0; e < sets[s].count; e++)
            for (size_t a = 0; a < v; a++)
                for (size_t b = 0; b < v; b++)
                    if (a != b) cols[fill[el[e * v + a]]++] = el[e * v + b];
    }
    /* sort and compact each row in place */
    int32_t out = 0;
    for (int32_t i = 0; i < n; i++) {
        int32_t s = start[i], len = fill[i] - s;
        qsort(&cols[s], (size_t)len, sizeof *cols, compare_i32);
        int32_t row_begin = out;
        for (int32_t k = 0; k < len; k++)
            if (k == 0 || cols[s + k] != cols[s + k - 1]) cols[out++] = cols[s + k];
        start[i] = row_begin;
    }
    start[n] = out;
    free(count);
    free(fill);
    m->row_start = start;
    m->block_count = out;
    int32_t *shrunk = realloc(cols, (out ? (size_t)out : 1) * sizeof *cols);
    m->cols = shrunk ? shrunk : cols; /* shrinking failed: keep the larger buffer */
    m->diag = malloc(((size_t)n ? (size_t)n : 1) * sizeof *m->diag);
    m->vals = calloc((size_t)out * 9 + 1, sizeof *m->vals);
    if (!m->diag || !m->vals) {
        bsr_free(m);
        return false;
    }
    for (int32_t i = 0; i < n; i++) m->diag[i] = bsr_find(m, i, i);
    return true;
}

int32_t bsr_find(const bsr *m, int32_t i, int32_t j)
{
    return find_sorted_i32(m->cols, m->row_start[i], m->row_start[i + 1], j);
}

bool bsr_element_table(const bsr *m, const int32_t *elements, int32_t element_count,
                       int verts_per_element, int32_t **out_table)
{
    size_t v = (size_t)verts_per_element;
    int32_t *table = malloc(((size_t)element_count * v * v + 1) * sizeof *table);
    if (!table) return false;
    for (int32_t e = 0; e < element_count; e++)
        for (size_t a = 0; a < v; a++)
            for (size_t b = 0; b < v; b++)
                table[(size_t)e * v * v + a * v + b] =
                    bsr_find(m, elements[e * v + a], elements[e * v + b]);
    *out_table = table;
    return true;
}

void bsr_zero(bsr *m) { memset(m->vals, 0, (size_t)m->block_count * 9 * sizeof *m->vals); }

void bsr_matvec(const bsr *m, const double *x, double *y)
{
#pragma omp parallel for schedule(static) if (m->n > 2048)
    for (int32_t i = 0; i < m->n; i++) {
        double y0 = 0, y1 = 0, y2 = 0;
        for (int32_t k = m->row_start[i]; k < m->row_start[i + 1]; k++) {
            const double *b = &m->vals[9 * (size_t)k];
            const double *xj = &x[3 * (size_t)m->cols[k]];
            y0 += b[0] * xj[0] + b[1] * xj[1] + b[2] * xj[2];
            y1 += b[3] * xj[0] + b[4] * xj[1] + b[5] * xj[2];
            y2 += b[6] * xj[0] + b[7] * xj[1] + b[8] * xj[2];
        }
        y[3 * (size_t)i] = y0;
        y[3 * (size_t)i + 1] = y1;
        y[3 * (size_t)i + 2] = y2;
    }
}

void bsr_matvec_single(const bsr *m, const float *single, const double *x, double *y)
{
#pragma omp parallel for schedule(static) if (m->n > 2048)
    for (int32_t i = 0; i < m->n; i++) {
        double y0 = 0, y1 = 0, y2 = 0;
        for (int32_t k = m->row_start[i]; k < m->row_start[i + 1]; k++) {
            const float *b = &single[9 * (size_t)k];
            const double *xj = &x[3 * (size_t)m->cols[k]];
            y0 += b[0] * xj[0] + b[1] * xj[1] + b[2] * xj[2];
            y1 += b[3] * xj[0] + b[4] * xj[1] + b[5] * xj[2];
            y2 += b[6] * xj[0] + b[7] * xj[1] + b[8] * xj[2];
        }
        y[3 * (size_t)i] = y0;
        y[3 * (size_t)i + 1] = y1;
        y[3 * (size_t)i + 2] = y2;
    }
}

void bsr_free(bsr *m)
{
    free(m->row_start);
    free(m->cols);
    free(m->diag);
    free(m->vals);
    memset(m, 0, sizeof *m);
}
