#include "cg.h"

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
    if (!ws->r || !ws->c || !ws->q || !ws->s || !ws->precond || !ws->partial) {
        cg_workspace_free(ws);
        return false;
    }
    return true;
}

void cg_workspace_free(cg_workspace *ws)
{
    free(ws->r), free(ws->c), free(ws->q), free(ws->s), free(ws->precond), free(ws->partial);
    memset(ws, 0, sizeof *ws);
}

static inline int filter_kind(const cg_filter *f, int32_t i)
{
    return f && f->kind ? f->kind[i] : FILTER_FREE;
}

/* v_i <- S_i v_i for every vertex */
static void apply_filter(const cg_filter *f, double *v, int32_t n)
{
    if (!f || !f->kind) return;
#pragma omp parallel for schedule(static) if (n > 4096)
    for (int32_t i = 0; i < n; i++) {
        double *vi = &v[3 * (size_t)i];
        switch (f->kind[i]) {
        case FILTER_FIXED: vi[0] = vi[1] = vi[2] = 0.0; break;
        case FILTER_PROJECT: {
            const double *s = &f->proj[9 * (size_t)i];
            double a = vi[0], b = vi[1], c = vi[2];
            vi[0] = s[0] * a + s[1] * b + s[2] * c;
            vi[1] = s[3] * a + s[4] * b + s[5] * c;
            vi[2] = s[6] * a + s[7] * b + s[8] * c;
            break;
        }
        default: break;
        }
    }
}

/* Block-Jacobi: the inverse of each 3x3 diagonal block (scalar Jacobi if it is singular). */
static void build_preconditioner(const bsr *a, double *precond)
{
#pragma omp parallel for schedule(static) if (a->n > 4096)
    for (int32_t i = 0; i < a->n; i++) {
        const double *d = &a->vals[9 * (size_t)a->diag[i]];
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

cg_result cg_solve(const bsr *a, const double *b, const cg_filter *filter, const double *z,
                   double *x, double tolerance, int32_t max_iterations, cg_workspace *ws)
{
    int32_t n = a->n;
    size_t len = 3 * (size_t)n;
    double *r = ws->r, *c = ws->c, *q = ws->q, *s = ws->s;
    cg_result result = {0};

    /* x = S x_guess + (I - S) z */
    if (filter && filter->kind) {
        memcpy(s, x, len * sizeof *s);
        apply_filter(filter, s, n);
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

    build_preconditioner(a, ws->precond);
    /* δ0 = filter(b)ᵀ P⁻¹ filter(b) */
    memcpy(r, b, len * sizeof *r);
    apply_filter(filter, r, n);
    apply_preconditioner(ws->precond, r, s, n);
    double delta0 = vec_dot(r, s, len, ws->partial);

    bsr_matvec(a, x, q);
    for (size_t k = 0; k < len; k++) r[k] = b[k] - q[k];
    apply_filter(filter, r, n);
    apply_preconditioner(ws->precond, r, c, n);
    apply_filter(filter, c, n);
    double delta = vec_dot(r, c, len, ws->partial);
    double threshold = tolerance * tolerance * delta0;

    int32_t it = 0;
    while (delta > threshold && it < max_iterations) {
        bsr_matvec(a, c, q);
        apply_filter(filter, q, n);
        double cq = vec_dot(c, q, len, ws->partial);
        if (!(cq > 0.0)) break; /* lost positive definiteness or converged to round-off */
        double alpha = delta / cq;
#pragma omp parallel for schedule(static) if (len > 12288)
        for (size_t k = 0; k < len; k++) {
            x[k] += alpha * c[k];
            r[k] -= alpha * q[k];
        }
        apply_preconditioner(ws->precond, r, s, n);
        double delta_old = delta;
        delta = vec_dot(r, s, len, ws->partial);
        double beta = delta / delta_old;
#pragma omp parallel for schedule(static) if (len > 12288)
        for (size_t k = 0; k < len; k++) c[k] = s[k] + beta * c[k];
        apply_filter(filter, c, n);
        it++;
    }
    result.iterations = it;
    result.relative_residual = delta0 > 0.0 ? sqrt(fmax(delta, 0.0) / delta0) : 0.0;
    result.converged = delta <= threshold || delta0 == 0.0;
    return result;
}
