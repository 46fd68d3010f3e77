#include "strand_wind.h"

void strand_wind_on_segment(const cloth *c, int32_t s, const force_field *field, const field_pose *pose,
                            double weight, double time, const double *x, const double *v, double *f,
                            const assembly *as)
{
    const int32_t *ends = &c->model.springs.pairs[2 * (size_t)s];
    vec3 p[2], vel[2];
    for (int k = 0; k < 2; k++) p[k] = v3_load(&x[3 * (size_t)ends[k]]), vel[k] = v3_load(&v[3 * (size_t)ends[k]]);
    vec3 e = v3_sub(p[1], p[0]);
    double length = v3_len(e);
    if (!(length > 0.0)) return;
    vec3 t = v3_scale(e, 1.0 / length);
    field_sample sample[2];
    for (int k = 0; k < 2; k++) sample[k] = field_sample_at(field, pose, weight, time, p[k]);
    if (sample[0].falloff == 0.0 && sample[1].falloff == 0.0) return;
    double flow = 0.5 * (sample[0].falloff + sample[1].falloff) * field->def.flow; /* f̄o flow */
    vec3 w[2];
    for (int k = 0; k < 2; k++)
        w[k] = v3_madd(v3_scale(pose->axis, sample[k].falloff * sample[k].strength), vel[k], -flow);
    for (int k = 0; k < 2; k++) {
        vec3 load = v3_scale(v3_add(v3_scale(w[k], 2.0), w[1 - k]), length / 6.0);
        vec3 normal = v3_madd(load, t, -v3_dot(load, t)); /* P load */
        double *fk = &f[3 * (size_t)ends[k]];
        for (int a = 0; a < 3; a++) fk[a] += v3_comp(normal, a);
    }
    if (!as || !(flow > 0.0)) return;
    double k_flow = as->h * length * flow / 6.0; /* -h ∂f/∂v, per (1 + δij) P */
    const int32_t *blocks = &c->scratch.spring_blocks[4 * (size_t)s]; /* (i,i) (i,j) (j,i) (j,j) */
    for (int b = 0; b < 4; b++) {
        double *blk = &as->system->vals[9 * (size_t)blocks[b]];
        double scale = k_flow * (b == 0 || b == 3 ? 2.0 : 1.0);
        for (int r = 0; r < 3; r++)
            for (int q = 0; q < 3; q++)
                blk[3 * r + q] += scale * ((r == q ? 1.0 : 0.0) - v3_comp(t, r) * v3_comp(t, q));
    }
}
