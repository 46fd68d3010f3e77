#include "linalg_filter.h"

#include <string.h>

void filter_apply(const cg_filter *f, double *v, int32_t n)
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

static const double identity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};

/* S_i of a vertex, or NULL when it is I */
static const double *projection(const cg_filter *f, int32_t i, int kind)
{
    return kind == FILTER_PROJECT ? &f->proj[9 * (size_t)i] : NULL;
}

static void multiply(const double *a, const double *b, double out[9])
{
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            out[3 * r + c] = a[3 * r] * b[c] + a[3 * r + 1] * b[3 + c] + a[3 * r + 2] * b[6 + c];
}

void filter_block(const cg_filter *f, int32_t i, int32_t j, const double *block, double out[9])
{
    int ki = filter_kind(f, i), kj = filter_kind(f, j);
    if (ki == FILTER_FIXED || kj == FILTER_FIXED) {
        memset(out, 0, 9 * sizeof *out);
    } else {
        const double *si = projection(f, i, ki), *sj = projection(f, j, kj);
        double tmp[9];
        if (si) multiply(si, block, tmp);
        else memcpy(tmp, block, sizeof tmp);
        if (sj) multiply(tmp, sj, out);
        else memcpy(out, tmp, sizeof tmp);
    }
    if (i == j && ki != FILTER_FREE) {
        const double *si = ki == FILTER_PROJECT ? projection(f, i, ki) : NULL;
        for (int k = 0; k < 9; k++) out[k] += identity[k] - (si ? si[k] : 0.0);
    }
}
