/* The hierarchy's values at every solve, and the V-cycle (linalg_amg.h). */
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "linalg_amg.h"
#include "math3.h"

enum { PARALLEL_ROWS = 2048 };

static const bsr *level_matrix(const amg *m, int l) { return l == 0 ? m->fine : &m->levels[l].a; }

/* Entry k (of row i) of level l's matrix as the hierarchy sees it: on level 0 in single
 * precision and through the filter. `tmp` holds it when it had to be computed. */
static inline const double *level_block(const amg *m, int l, int32_t i, int32_t k, double tmp[9])
{
    const bsr *a = level_matrix(m, l);
    if (l > 0) return &a->vals[9 * (size_t)k];
    for (int e = 0; e < 9; e++) tmp[e] = m->fine_single[9 * (size_t)k + (size_t)e];
    if (!m->filter || !m->filter->kind) return tmp;
    int32_t j = a->cols[k];
    if (m->filter->kind[i] != FILTER_FREE || m->filter->kind[j] != FILTER_FREE) filter_block(m->filter, i, j, tmp, tmp);
    return tmp;
}

static inline double trace3(const double *b) { return (b[0] + b[4] + b[8]) / 3.0; }

/* y = Â x on level 0: S A S x + (I - S) x, with `scratch` of 3n (A in single precision). */
static void filtered_matvec(const bsr *a, const float *single, const cg_filter *filter, const double *x, double *y,
                            double *scratch)
{
    if (!filter || !filter->kind) {
        bsr_matvec_single(a, single, x, y);
        return;
    }
    size_t len = 3 * (size_t)a->n;
    memcpy(scratch, x, len * sizeof *scratch);
    filter_apply(filter, scratch, a->n);
    bsr_matvec_single(a, single, scratch, y);
    filter_apply(filter, y, a->n);
#pragma omp parallel for schedule(static) if (a->n > PARALLEL_ROWS)
    for (size_t k = 0; k < len; k++) y[k] += x[k] - scratch[k];
}

static void level_matvec(amg *m, int l, const double *x, double *y)
{
    if (l == 0) filtered_matvec(m->fine, m->fine_single, m->filter, x, y, m->levels[0].t);
    else bsr_matvec(&m->levels[l].a, x, y);
}

/* Inverse diagonal blocks; false when one is not positive definite enough to invert. */
static bool invert_diagonal(amg *m, int l)
{
    const bsr *a = level_matrix(m, l);
    amg_level *lv = &m->levels[l];
    bool ok = true;
#pragma omp parallel for schedule(static) reduction(&& : ok) if (a->n > PARALLEL_ROWS)
    for (int32_t i = 0; i < a->n; i++) {
        double tmp[9];
        const double *d = level_block(m, l, i, a->diag[i], tmp);
        mat3 block = {{{d[0], d[1], d[2]}, {d[3], d[4], d[5]}, {d[6], d[7], d[8]}}}, inv;
        bool good = d[0] > 0.0 && d[4] > 0.0 && d[8] > 0.0 && m3_inverse(block, &inv);
        if (!good) inv = m3_identity();
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++) lv->dinv[9 * (size_t)i + 3 * (size_t)r + (size_t)c] = inv.m[r][c];
        ok = ok && good;
    }
    return ok;
}

/* P = (I - ω D⁻¹ A) P_tent on the scalar picture of the matrix (block traces): translations
 * of an aggregate, spread to its neighbours as the stiffness couples them. ω = 4 / (3 ρ)
 * with ρ bounded by Gershgorin. */
static void smooth_prolongator(amg *m, int l)
{
    const bsr *a = level_matrix(m, l);
    amg_level *lv = &m->levels[l];
    double rho = 1.0;
#pragma omp parallel for schedule(static) reduction(max : rho) if (a->n > PARALLEL_ROWS)
    for (int32_t i = 0; i < a->n; i++) {
        double tmp[9], sum = 0.0;
        for (int32_t k = a->row_start[i]; k < a->row_start[i + 1]; k++) {
            lv->traces[k] = trace3(level_block(m, l, i, k, tmp));
            sum += fabs(lv->traces[k]);
        }
        double d = lv->traces[a->diag[i]];
        if (d > 0.0) rho = fmax(rho, sum / d);
    }
    double omega = 4.0 / (3.0 * rho);
#pragma omp parallel for schedule(static) if (a->n > PARALLEL_ROWS)
    for (int32_t i = 0; i < a->n; i++) {
        int32_t first = lv->p_start[i], last = lv->p_start[i + 1];
        double d = lv->traces[a->diag[i]];
        for (int32_t e = first; e < last; e++) lv->p_vals[e] = lv->p_cols[e] == lv->aggregate[i] ? 1.0 : 0.0;
        if (!(d > 0.0)) continue;
        for (int32_t k = a->row_start[i]; k < a->row_start[i + 1]; k++) {
            int32_t g = lv->aggregate[a->cols[k]], e = first;
            while (lv->p_cols[e] != g) e++;
            lv->p_vals[e] -= omega * lv->traces[k] / d;
        }
    }
}

static inline void add_scaled(double *out, const double *block, double s)
{
    for (int k = 0; k < 9; k++) out[k] += s * block[k];
}

/* Level l+1's matrix: W = A P, then Pᵀ W, each row by one thread in a fixed order. */
static void galerkin_product(amg *m, int l)
{
    const bsr *a = level_matrix(m, l);
    amg_level *lv = &m->levels[l];
    bsr *coarse = &m->levels[l + 1].a;
#pragma omp parallel for schedule(static) if (a->n > PARALLEL_ROWS)
    for (int32_t i = 0; i < a->n; i++) {
        int32_t lo = lv->w_start[i], hi = lv->w_start[i + 1];
        memset(&lv->w_vals[9 * (size_t)lo], 0, 9 * (size_t)(hi - lo) * sizeof *lv->w_vals);
        const int32_t *map = &lv->w_map[lv->w_map_start[i]];
        for (int32_t k = a->row_start[i]; k < a->row_start[i + 1]; k++) {
            double tmp[9];
            const double *block = level_block(m, l, i, k, tmp);
            int32_t j = a->cols[k];
            for (int32_t e = lv->p_start[j]; e < lv->p_start[j + 1]; e++)
                add_scaled(&lv->w_vals[9 * (size_t)*map++], block, lv->p_vals[e]);
        }
    }
#pragma omp parallel for schedule(static) if (coarse->n > PARALLEL_ROWS)
    for (int32_t c = 0; c < coarse->n; c++) {
        int32_t lo = coarse->row_start[c], hi = coarse->row_start[c + 1];
        memset(&coarse->vals[9 * (size_t)lo], 0, 9 * (size_t)(hi - lo) * sizeof *coarse->vals);
        const int32_t *map = &lv->c_map[lv->c_map_start[c]];
        for (int32_t s = lv->pt_start[c]; s < lv->pt_start[c + 1]; s++) {
            int32_t i = lv->pt_rows[s];
            double p = lv->p_vals[lv->pt_entry[s]];
            for (int32_t w = lv->w_start[i]; w < lv->w_start[i + 1]; w++)
                add_scaled(&coarse->vals[9 * (size_t)*map++], &lv->w_vals[9 * (size_t)w], p);
        }
    }
}

static void apply_dinv(const amg_level *lv, int32_t n, const double *in, double *out, double scale, bool add)
{
#pragma omp parallel for schedule(static) if (n > PARALLEL_ROWS)
    for (int32_t i = 0; i < n; i++) {
        const double *p = &lv->dinv[9 * (size_t)i], *v = &in[3 * (size_t)i];
        for (int r = 0; r < 3; r++) {
            double y = scale * (p[3 * r] * v[0] + p[3 * r + 1] * v[1] + p[3 * r + 2] * v[2]);
            out[3 * (size_t)i + (size_t)r] = add ? out[3 * (size_t)i + (size_t)r] + y : y;
        }
    }
}

/* One power step from v (|v|² = norm2): with r = Â v, vᵀÂv and vᵀDv, and v = D⁻¹r / |v|, the
 * next (a step grows it by at most λmax); returns |v|² of the next. Sums by chunks of rows. */
static double power_step(amg *m, int l, double norm2, double *vav, double *vdv)
{
    const bsr *a = level_matrix(m, l);
    amg_level *lv = &m->levels[l];
    double *v = lv->x, *r = lv->r, scale = 1.0 / sqrt(norm2);
    level_matvec(m, l, v, r);
    int32_t chunks = (a->n + AMG_ROW_CHUNK - 1) / AMG_ROW_CHUNK;
#pragma omp parallel for schedule(static) if (a->n > PARALLEL_ROWS)
    for (int32_t c = 0; c < chunks; c++) {
        double sum_vav = 0.0, sum_vdv = 0.0, sum_next = 0.0;
        int32_t end = (c + 1) * AMG_ROW_CHUNK < a->n ? (c + 1) * AMG_ROW_CHUNK : a->n;
        for (int32_t i = c * AMG_ROW_CHUNK; i < end; i++) {
            double tmp[9], *vi = &v[3 * (size_t)i];
            const double *d = level_block(m, l, i, a->diag[i], tmp), *ri = &r[3 * (size_t)i];
            const double *p = &lv->dinv[9 * (size_t)i];
            for (int k = 0; k < 3; k++) {
                sum_vav += vi[k] * ri[k];
                sum_vdv += vi[k] * (d[3 * k] * vi[0] + d[3 * k + 1] * vi[1] + d[3 * k + 2] * vi[2]);
            }
            for (int k = 0; k < 3; k++) {
                vi[k] = scale * (p[3 * k] * ri[0] + p[3 * k + 1] * ri[1] + p[3 * k + 2] * ri[2]);
                sum_next += vi[k] * vi[k];
            }
        }
        lv->partial[3 * c] = sum_vav, lv->partial[3 * c + 1] = sum_vdv, lv->partial[3 * c + 2] = sum_next;
    }
    double next = 0.0;
    *vav = *vdv = 0.0;
    for (int32_t c = 0; c < chunks; c++)
        *vav += lv->partial[3 * c], *vdv += lv->partial[3 * c + 1], next += lv->partial[3 * c + 2];
    return next;
}

/* ω = 4 / (3 λ) of the block-Jacobi sweeps, λ the largest eigenvalue of D⁻¹A by power
 * iteration from the same start at every solve, so that a solve depends on its matrix alone
 * (and a resumed bake goes on bit for bit). The Rayleigh quotient vᵀAv / vᵀDv never exceeds
 * λmax; from a start with every frequency in it, eight steps come close (docs/solver-tuning.md),
 * and the 1.1 keeps ω λmax below 2, a convergent and positive smoother, while the estimate
 * is still low. */
static void estimate_smoother_weight(amg *m, int l)
{
    enum { POWER_STEPS = 8 };
    const bsr *a = level_matrix(m, l);
    amg_level *lv = &m->levels[l];
    size_t len = 3 * (size_t)a->n;
    double lambda = 0.0, norm2 = 0.0, *v = lv->x;
    for (size_t k = 0; k < len; k++) {
        v[k] = 1.0 + 0.5 * (double)((k * 7919u) % 13u) / 13.0;
        norm2 += v[k] * v[k];
    }
    for (int it = 0; it < POWER_STEPS && norm2 > 0.0 && isfinite(norm2); it++) {
        double vav, vdv;
        norm2 = power_step(m, l, norm2, &vav, &vdv);
        if (vdv > 0.0) lambda = fmax(lambda, vav / vdv);
    }
    lv->smoother_weight = lambda > 0.0 ? 4.0 / (3.0 * 1.1 * lambda) : 0.5;
}

static void factor_coarsest(amg *m)
{
    int l = m->level_count - 1;
    const bsr *a = level_matrix(m, l);
    m->coarsest_factored = false;
    if (!m->coarsest_factor) return;
    size_t dim = 3 * (size_t)a->n;
    double *f = m->coarsest_factor;
    memset(f, 0, dim * dim * sizeof *f);
    for (int32_t i = 0; i < a->n; i++)
        for (int32_t k = a->row_start[i]; k < a->row_start[i + 1]; k++) {
            double tmp[9];
            const double *block = level_block(m, l, i, k, tmp);
            size_t j = (size_t)a->cols[k];
            for (int r = 0; r < 3; r++)
                for (int c = 0; c < 3; c++) f[(3 * (size_t)i + (size_t)r) * dim + 3 * j + (size_t)c] = block[3 * r + c];
        }
    m->coarsest_factored = LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', (lapack_int)dim, f, (lapack_int)dim) == 0;
}

bool amg_update(amg *m, const bsr *fine, const cg_filter *filter)
{
    if (m->level_count == 0 || m->fine != fine) return false;
    m->filter = filter;
    size_t values = 9 * (size_t)fine->block_count;
    bool representable = true; /* a value beyond single precision leaves block Jacobi to it */
#pragma omp parallel for schedule(static) reduction(&& : representable) if (fine->n > PARALLEL_ROWS)
    for (size_t e = 0; e < values; e++) {
        m->fine_single[e] = (float)fine->vals[e];
        representable = representable && fabs(fine->vals[e]) <= FLT_MAX;
    }
    if (!representable) return false;
    for (int l = 0; l < m->level_count; l++) {
        if (!invert_diagonal(m, l)) return false;
        estimate_smoother_weight(m, l);
        if (l + 1 < m->level_count) {
            smooth_prolongator(m, l);
            galerkin_product(m, l);
        }
    }
    factor_coarsest(m);
    return true;
}

/* r = b - A x on level l */
static void residual(amg *m, int l, const double *b, const double *x, double *r, int32_t n)
{
    level_matvec(m, l, x, r);
#pragma omp parallel for schedule(static) if (n > PARALLEL_ROWS)
    for (size_t k = 0; k < 3 * (size_t)n; k++) r[k] = b[k] - r[k];
}

static void cycle(amg *m, int l, const double *b, double *x)
{
    amg_level *lv = &m->levels[l];
    int32_t n = level_matrix(m, l)->n;
    double w = lv->smoother_weight;
    if (l == m->level_count - 1 && m->coarsest_factored) {
        size_t dim = 3 * (size_t)n;
        memcpy(x, b, dim * sizeof *x);
        LAPACKE_dpotrs(LAPACK_ROW_MAJOR, 'L', (lapack_int)dim, 1, m->coarsest_factor, (lapack_int)dim, x, 1);
        return;
    }
    apply_dinv(lv, n, b, x, w, false);
    residual(m, l, b, x, lv->r, n);
    if (l == m->level_count - 1) { /* no direct solve: two more sweeps, still symmetric */
        apply_dinv(lv, n, lv->r, x, w, true);
        residual(m, l, b, x, lv->r, n);
        apply_dinv(lv, n, lv->r, x, w, true);
        return;
    }
    amg_level *next = &m->levels[l + 1];
    int32_t nc = lv->coarse_n;
#pragma omp parallel for schedule(static) if (nc > PARALLEL_ROWS)
    for (int32_t c = 0; c < nc; c++) {
        double s0 = 0, s1 = 0, s2 = 0;
        for (int32_t s = lv->pt_start[c]; s < lv->pt_start[c + 1]; s++) {
            const double *ri = &lv->r[3 * (size_t)lv->pt_rows[s]];
            double p = lv->p_vals[lv->pt_entry[s]];
            s0 += p * ri[0], s1 += p * ri[1], s2 += p * ri[2];
        }
        next->b[3 * (size_t)c] = s0, next->b[3 * (size_t)c + 1] = s1, next->b[3 * (size_t)c + 2] = s2;
    }
    cycle(m, l + 1, next->b, next->x);
    /* x += P x_c, and the residual follows without a product by A: r -= (A P) x_c = W x_c */
#pragma omp parallel for schedule(static) if (n > PARALLEL_ROWS)
    for (int32_t i = 0; i < n; i++) {
        double *xi = &x[3 * (size_t)i], *ri = &lv->r[3 * (size_t)i];
        for (int32_t e = lv->p_start[i]; e < lv->p_start[i + 1]; e++) {
            const double *xc = &next->x[3 * (size_t)lv->p_cols[e]];
            double p = lv->p_vals[e];
            for (int r = 0; r < 3; r++) xi[r] += p * xc[r];
        }
        for (int32_t e = lv->w_start[i]; e < lv->w_start[i + 1]; e++) {
            const double *wb = &lv->w_vals[9 * (size_t)e], *xc = &next->x[3 * (size_t)lv->w_cols[e]];
            for (int r = 0; r < 3; r++) ri[r] -= wb[3 * r] * xc[0] + wb[3 * r + 1] * xc[1] + wb[3 * r + 2] * xc[2];
        }
    }
    apply_dinv(lv, n, lv->r, x, w, true);
}

void amg_apply(amg *m, const double *r, double *z) { cycle(m, 0, r, z); }
