#include "cloth_pressure.h"

#include <math.h>
#include <string.h>

#include "cloth.h"

static inline vec3 relative(const cloth_pressure *pr, const double *x, int32_t v)
{
    const double *p = &x[3 * (size_t)v];
    return v3(p[0] - pr->origin[0], p[1] - pr->origin[1], p[2] - pr->origin[2]);
}

static inline double weight(const cloth_pressure *pr, int32_t t)
{
    return pr->triangle_weight ? pr->triangle_weight[t] : 1.0;
}

double pressure_volume(const cloth_pressure *pr, const int32_t *triangles, int32_t count, const double *x)
{
    double six_v = 0.0;
    for (int32_t t = 0; t < count; t++) {
        const int32_t *tri = &triangles[3 * (size_t)t];
        double w = weight(pr, t);
        if (w == 0.0) continue;
        vec3 a = relative(pr, x, tri[0]), b = relative(pr, x, tri[1]), c = relative(pr, x, tri[2]);
        six_v += w * v3_dot(a, v3_cross(b, c));
    }
    return six_v / 6.0;
}

double pressure_at(const cloth_pressure *pr, double volume, double *slope)
{
    *slope = 0.0;
    if (pr->scale == 0.0) return pr->pressure;
    double cap = PRESSURE_MAX_RATIO + fabs(pr->pressure) / pr->scale;
    double ratio = volume > 0.0 ? pr->target_volume / volume - 1.0 : INFINITY;
    if (ratio >= cap) return pr->pressure + pr->scale * cap;
    *slope = -pr->scale * pr->target_volume / (volume * volume);
    return pr->pressure + pr->scale * ratio;
}

double pressure_forces(const cloth *c, const double *x, double *f, bsr *system, const int32_t *table, double h,
                       const double *u, double *rhs, double *gradient, double *sigma)
{
    const cloth_model *m = &c->model;
    const cloth_pressure *pr = &m->pressure;
    double slope;
    double p = pressure_at(pr, pressure_volume(pr, m->triangles, m->triangle_count, x), &slope);
    double h2 = h * h;
    if (system) memset(gradient, 0, 3 * (size_t)m->vertex_count * sizeof *gradient);
    for (int32_t t = 0; t < m->triangle_count; t++) {
        double w = weight(pr, t);
        if (w == 0.0) continue;
        const int32_t *tri = &m->triangles[3 * (size_t)t];
        vec3 q[3] = {relative(pr, x, tri[0]), relative(pr, x, tri[1]), relative(pr, x, tri[2])};
        double s = w / 6.0;
        for (int i = 0; i < 3; i++) {
            vec3 g = v3_scale(v3_cross(q[(i + 1) % 3], q[(i + 2) % 3]), s);
            double *fi = &f[3 * (size_t)tri[i]];
            fi[0] += p * g.x, fi[1] += p * g.y, fi[2] += p * g.z;
            if (system) {
                double *gi = &gradient[3 * (size_t)tri[i]];
                gi[0] += g.x, gi[1] += g.y, gi[2] += g.z;
            }
        }
        if (!system) continue;
        /* H_ij = ∓s [x_k]×: minus where j follows i round the triangle, plus where it precedes */
        for (int i = 0; i < 3; i++) {
            vec3 hu = v3(0, 0, 0); /* (H u)_i */
            for (int j = 0; j < 3; j++) {
                if (j == i) continue;
                int k = 3 - i - j;
                double sign = j == (i + 1) % 3 ? -s : s;
                vec3 y = v3_scale(q[k], sign);
                hu = v3_add(hu, v3_cross(y, v3_load(&u[3 * (size_t)tri[j]])));
                double cross[9] = {0, -y.z, y.y, y.z, 0, -y.x, -y.y, y.x, 0};
                double *blk = &system->vals[9 * (size_t)table[9 * (size_t)t + 3 * (size_t)i + (size_t)j]];
                for (int e = 0; e < 9; e++) blk[e] -= h2 * p * cross[e];
            }
            double *ri = &rhs[3 * (size_t)tri[i]];
            ri[0] += h2 * p * hu.x, ri[1] += h2 * p * hu.y, ri[2] += h2 * p * hu.z;
        }
    }
    if (system) {
        size_t len = 3 * (size_t)m->vertex_count;
        double gu = 0.0;
        for (size_t k = 0; k < len; k++) gu += gradient[k] * u[k];
        for (size_t k = 0; k < len; k++) rhs[k] += h2 * slope * gu * gradient[k];
        *sigma = -h2 * slope;
    }
    return p;
}
