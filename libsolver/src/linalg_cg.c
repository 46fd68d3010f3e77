#include "linalg_cg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "math3.h"

enum { DOT_CHUNK = 4096 };

static size_t dot_chunks(size_t count) { return (count + DOT_CHUNK - 1) / DOT_CHUNK; }

/* a·b over fixed chunks of DOT_CHUNK, summed in order: bit-identical for any number of
 * threads. `partial` holds dot_chunks(count) values. */
static double vec_dot(const double *a, const double *b, size_t count, double *partial)
{
    size_t chunks = dot_chunks(count);
#pragma omp parallel for schedule(static) if (chunks > 1)
    for (size_t c = 0; c < chunks; c++) {
        size_t end = (c + 1) * DOT_CHUNK < count ? (c + 1) * DOT_CHUNK : count;
        double s = 0.0;
        for (size_t i = c * DOT_CHUNK; i < end; i++) s += a[i] * b[i];
        partial[c] = s;
    }
    double total = 0.0;
    for (size_t c = 0; c < chunks; c++) total += partial[c];
    return total;
}

bool cg_workspace_init(cg_workspace *ws, int32_t n)
{
    memset(ws, 0, sizeof *ws);
    ws->n = n;
    size_t len = 3 * (size_t)n + 1;
    ws->r = malloc(len * sizeof(double));
    ws->c = malloc(len * sizeof(double));
    ws->q = malloc(len * sizeof(double));
    ws->s = malloc(len * sizeof(double));
    ws->precond = malloc(3 * len * sizeof(double));
    ws->partial = malloc(dot_chunks(len) * sizeof(double));
    ws->multigrid_min_rows = CG_MULTIGRID_MIN_ROWS;
    if (!ws->r || !ws->c || !ws->q || !ws->s || !ws->precond || !ws->partial) {
        cg_workspace_free(ws);
        return false;
    }
    return true;
}

void cg_workspace_free(cg_workspace *ws)
{
    free(ws->r), free(ws->c), free(ws->q), free(ws->s), free(ws->precond), free(ws->partial);
    amg_free(&ws->multigrid);
    band_free(&ws->band);
    memset(ws, 0, sizeof *ws);
}

bool cg_workspace_use_band(cg_workspace *ws, const bsr *a, int32_t half_blocks)
{
    band_free(&ws->band);
    return band_build(&ws->band, a, half_blocks);
}

/* Block-Jacobi: the inverse of each 3x3 diagonal block (scalar Jacobi if it is singular), of
 * A + σ g gᵀ with a rank-one term. */
static void build_preconditioner(const bsr *a, const cg_rank_one *r1, double *precond)
{
#pragma omp parallel for schedule(static) if (a->n > 4096)
    for (int32_t i = 0; i < a->n; i++) {
        double d[9];
        memcpy(d, &a->vals[9 * (size_t)a->diag[i]], sizeof d);
        if (r1) {
            const double *g = &r1->g[3 * (size_t)i];
            for (int r = 0; r < 3; r++)
                for (int c = 0; c < 3; c++) d[3 * r + c] += r1->sigma * g[r] * g[c];
        }
        mat3 m = {{{d[0], d[1], d[2]}, {d[3], d[4], d[5]}, {d[6], d[7], d[8]}}}, inv;
        if (!m3_inverse(m, &inv)) {
            inv = m3_zero();
            for (int k = 0; k < 3; k++) inv.m[k][k] = d[4 * k] > 0.0 ? 1.0 / d[4 * k] : 1.0;
        }
        double *p = &precond[9 * (size_t)i];
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++) p[3 * r + c] = inv.m[r][c];
    }
}

static void apply_preconditioner(const double *precond, const double *in, double *out, int32_t n)
{
#pragma omp parallel for schedule(static) if (n > 4096)
    for (int32_t i = 0; i < n; i++) {
        const double *p = &precond[9 * (size_t)i];
        const double *v = &in[3 * (size_t)i];
        double a = v[0], b = v[1], c = v[2];
        out[3 * (size_t)i] = p[0] * a + p[1] * b + p[2] * c;
        out[3 * (size_t)i + 1] = p[3] * a + p[4] * b + p[5] * c;
        out[3 * (size_t)i + 2] = p[6] * a + p[7] * b + p[8] * c;
    }
}

/* out = (A + σ g gᵀ) in */
static void apply_operator(const bsr *a, const cg_rank_one *r1, const double *in, double *out, double *partial)
{
    bsr_matvec(a, in, out);
    if (!r1) return;
    size_t len = 3 * (size_t)a->n;
    double s = r1->sigma * vec_dot(r1->g, in, len, partial);
    for (size_t k = 0; k < len; k++) out[k] += s * r1->g[k];
}

static bool multigrid_wanted(const bsr *a, const cg_workspace *ws, cg_history *h)
{
    switch (ws->multigrid_mode) {
    case CG_MULTIGRID_ALWAYS: return true;
    case CG_MULTIGRID_NEVER: return false;
    default: break;
    }
    if (a->n < ws->multigrid_min_rows || h->jacobi_iterations < 0) return false;
    double multigrid = h->multigrid_iterations >= 0 ? h->multigrid_iterations
                                                    : h->jacobi_iterations / CG_JACOBI_PER_MULTIGRID;
    /* block Jacobi's last count goes stale while the multigrid runs; the cloth has got harder
     * when the multigrid's count outgrows it */
    double jacobi = fmax(h->jacobi_iterations, CG_JACOBI_PER_MULTIGRID * multigrid);
    bool cheaper = CG_MULTIGRID_ITERATION_COST * (multigrid + 1.0) + CG_MULTIGRID_SETUP_COST < jacobi;
    if (++h->solves_since_probe < CG_MULTIGRID_PROBE_EVERY) return cheaper;
    h->solves_since_probe = 0;
    return !cheaper;
}

/* Whether this solve gets the multigrid, built on first use and filled for this matrix. */
static bool multigrid_ready(const bsr *a, const cg_filter *filter, cg_workspace *ws, cg_history *h)
{
    if (!multigrid_wanted(a, ws, h) || ws->multigrid_unavailable) return false;
    if (ws->multigrid.level_count == 0 || ws->multigrid.fine != a) {
        amg_free(&ws->multigrid);
        if (!amg_build(&ws->multigrid, a)) {
            ws->multigrid_unavailable = true;
            return false;
        }
    }
    return amg_update(&ws->multigrid, a, filter);
}

typedef enum preconditioner { PRECONDITION_JACOBI, PRECONDITION_MULTIGRID, PRECONDITION_BAND } preconditioner;

static void precondition(cg_workspace *ws, preconditioner kind, const double *in, double *out)
{
    switch (kind) {
    case PRECONDITION_MULTIGRID: amg_apply(&ws->multigrid, in, out); break;
    case PRECONDITION_BAND: band_apply(&ws->band, in, out); break;
    default: apply_preconditioner(ws->precond, in, out, ws->n); break;
    }
}

/* For the filtered residual in ws->r: δ0 = filter(b)ᵀ M filter(b), the first direction
 * c = filter(M r) and δ = rᵀ c, with M the preconditioner. False when either is not positive
 * (or not finite), which a preconditioner never gives. */
static bool start_directions(cg_workspace *ws, preconditioner kind, const cg_filter *filter, const double *b,
                             double *delta0, double *delta)
{
    int32_t n = ws->n;
    size_t len = 3 * (size_t)n;
    memcpy(ws->s, b, len * sizeof *ws->s);
    filter_apply(filter, ws->s, n);
    precondition(ws, kind, ws->s, ws->q);
    *delta0 = vec_dot(ws->s, ws->q, len, ws->partial);
    precondition(ws, kind, ws->r, ws->c);
    filter_apply(filter, ws->c, n);
    *delta = vec_dot(ws->r, ws->c, len, ws->partial);
    return *delta0 >= 0.0 && *delta >= 0.0;
}

cg_result cg_solve(const bsr *a, const double *b, const cg_filter *filter, const double *z,
                   double *x, double tolerance, int32_t max_iterations, cg_workspace *ws, cg_history *h)
{
    return cg_solve_rank_one(a, NULL, b, filter, z, x, tolerance, max_iterations, ws, h);
}

cg_result cg_solve_rank_one(const bsr *a, const cg_rank_one *r1, const double *b, const cg_filter *filter,
                            const double *z, double *x, double tolerance, int32_t max_iterations, cg_workspace *ws,
                            cg_history *h)
{
    if (r1 && (r1->sigma == 0.0 || !r1->g)) r1 = NULL;
    int32_t n = a->n;
    size_t len = 3 * (size_t)n;
    double *r = ws->r, *c = ws->c, *q = ws->q, *s = ws->s;
    cg_result result = {0};

    /* x = S x_guess + (I - S) z */
    if (filter && filter->kind) {
        memcpy(s, x, len * sizeof *s);
        filter_apply(filter, s, n);
        for (int32_t i = 0; i < n; i++) {
            int kind = filter_kind(filter, i);
            for (int k = 0; k < 3; k++) {
                size_t idx = 3 * (size_t)i + (size_t)k;
                if (kind == FILTER_FREE) continue;
                double zc = z[idx];
                if (kind == FILTER_PROJECT) { /* (I - S) z */
                    const double *sp = &filter->proj[9 * (size_t)i + 3 * (size_t)k];
                    const double *zi = &z[3 * (size_t)i];
                    zc = zi[k] - (sp[0] * zi[0] + sp[1] * zi[1] + sp[2] * zi[2]);
                }
                x[idx] = s[idx] + zc;
            }
        }
    }

    apply_operator(a, r1, x, q, ws->partial);
    for (size_t k = 0; k < len; k++) r[k] = b[k] - q[k];
    filter_apply(filter, r, n);
    /* the band's exact factor where the owner asked for it (block Jacobi where it is not
     * positive definite), else the multigrid or block Jacobi */
    preconditioner kind = ws->band.n == n ? (band_factor_update(&ws->band, a, filter) ? PRECONDITION_BAND
                                                                                       : PRECONDITION_JACOBI)
                          : multigrid_ready(a, filter, ws, h) ? PRECONDITION_MULTIGRID
                                                              : PRECONDITION_JACOBI;
    if (kind == PRECONDITION_JACOBI) build_preconditioner(a, r1, ws->precond);
    int32_t it = 0;
    if (kind == PRECONDITION_BAND && ws->band.exact && !r1) {
        /* the factor is the filtered system's inverse: one step solves it to round-off, checked
         * by the Euclidean residual |S (b - A x)| / |S b|; CG goes on from there only if not */
        band_apply(&ws->band, r, c);
        filter_apply(filter, c, n);
        for (size_t k = 0; k < len; k++) x[k] += c[k];
        apply_operator(a, NULL, x, q, ws->partial);
        for (size_t k = 0; k < len; k++) r[k] = b[k] - q[k], s[k] = b[k];
        filter_apply(filter, r, n);
        filter_apply(filter, s, n);
        double rr = vec_dot(r, r, len, ws->partial), bb = vec_dot(s, s, len, ws->partial);
        it = 1;
        if (rr <= tolerance * tolerance * bb) {
            result.iterations = 1;
            result.relative_residual = bb > 0.0 ? sqrt(rr / bb) : 0.0;
            result.converged = true;
            result.band = true;
            return result;
        }
    }
    double delta0, delta;
    if (!start_directions(ws, kind, filter, b, &delta0, &delta)) {
        kind = PRECONDITION_JACOBI; /* not positive: this hierarchy is no preconditioner */
        build_preconditioner(a, r1, ws->precond);
        start_directions(ws, kind, filter, b, &delta0, &delta);
    }
    double threshold = tolerance * tolerance * delta0;

    while (delta > threshold && it < max_iterations) {
        apply_operator(a, r1, c, q, ws->partial);
        filter_apply(filter, q, n);
        double cq = vec_dot(c, q, len, ws->partial);
        if (!(cq > 0.0)) break; /* lost positive definiteness or converged to round-off */
        double alpha = delta / cq;
#pragma omp parallel for schedule(static) if (len > 12288)
        for (size_t k = 0; k < len; k++) {
            x[k] += alpha * c[k];
            r[k] -= alpha * q[k];
        }
        precondition(ws, kind, r, s);
        double delta_old = delta;
        delta = vec_dot(r, s, len, ws->partial);
        it++;
        if (kind != PRECONDITION_JACOBI && !(delta >= 0.0)) {
            /* round-off made the V-cycle (or the factor) indefinite: restart the directions with
             * block Jacobi, measuring the residual in its norm from here on */
            kind = PRECONDITION_JACOBI;
            build_preconditioner(a, r1, ws->precond);
            start_directions(ws, kind, filter, b, &delta0, &delta);
            threshold = tolerance * tolerance * delta0;
            continue;
        }
        double beta = delta / delta_old;
#pragma omp parallel for schedule(static) if (len > 12288)
        for (size_t k = 0; k < len; k++) c[k] = s[k] + beta * c[k];
        filter_apply(filter, c, n);
    }
    result.multigrid = kind == PRECONDITION_MULTIGRID;
    result.band = kind == PRECONDITION_BAND;
    if (kind == PRECONDITION_MULTIGRID) h->multigrid_iterations = it;
    else if (kind == PRECONDITION_JACOBI) h->jacobi_iterations = it;
    result.iterations = it;
    result.relative_residual = delta0 > 0.0 ? sqrt(fmax(delta, 0.0) / delta0) : 0.0;
    result.converged = delta <= threshold || delta0 == 0.0;
    return result;
}
