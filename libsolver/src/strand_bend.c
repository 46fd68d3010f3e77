#include "strand_bend.h"

#include <string.h>

/* Below this sin θ the gradient's direction is lost to rounding (see the header). */
#define STRAIGHT_SIN 1e-10

double turning_angle(vec3 x0, vec3 x1, vec3 x2)
{
    vec3 a = v3_sub(x1, x0), b = v3_sub(x2, x1);
    double la = v3_len(a), lb = v3_len(b);
    if (!(la > 0.0 && lb > 0.0)) return 0.0;
    return atan2(v3_len(v3_cross(a, b)) / (la * lb), v3_dot(a, b) / (la * lb));
}

/* ∂²c/∂a² with u = â, w = b̂, c = u · w, |a| = len. */
static mat3 cos_hessian_same(vec3 u, vec3 w, double c, double len)
{
    mat3 m = m3_add(m3_outer(u, w), m3_outer(w, u));
    m = m3_add(m, m3_scale(m3_outer(u, u), -3.0 * c));
    m = m3_add(m, m3_scale(m3_identity(), c));
    return m3_scale(m, -1.0 / (len * len));
}

bool turning_angle_condition(const vec3 x[3], condition *out, bool want_hessian)
{
    memset(out, 0, sizeof *out);
    out->vertex_count = 3;
    vec3 a = v3_sub(x[1], x[0]), b = v3_sub(x[2], x[1]);
    double la = v3_len(a), lb = v3_len(b);
    if (!(la > 0.0 && lb > 0.0)) return false;
    vec3 u = v3_scale(a, 1.0 / la), w = v3_scale(b, 1.0 / lb);
    double c = v3_dot(u, w), s = v3_len(v3_cross(u, w));
    out->value = atan2(s, c);
    if (!(s > STRAIGHT_SIN)) return true;
    vec3 gca = v3_scale(v3_madd(w, u, -c), 1.0 / la), gcb = v3_scale(v3_madd(u, w, -c), 1.0 / lb);
    vec3 ga = v3_scale(gca, -1.0 / s), gb = v3_scale(gcb, -1.0 / s);
    /* x0: -ga, x1: ga - gb, x2: gb */
    const double ca[3] = {-1.0, 1.0, 0.0}, cb[3] = {0.0, -1.0, 1.0};
    for (int i = 0; i < 3; i++) {
        vec3 g = v3_add(v3_scale(ga, ca[i]), v3_scale(gb, cb[i]));
        out->grad[3 * i] = g.x, out->grad[3 * i + 1] = g.y, out->grad[3 * i + 2] = g.z;
    }
    if (!want_hessian) return true;
    mat3 pa = m3_add(m3_identity(), m3_scale(m3_outer(u, u), -1.0));
    mat3 pb = m3_add(m3_identity(), m3_scale(m3_outer(w, w), -1.0));
    double q = -c / (s * s * s);
    mat3 haa = m3_add(m3_scale(cos_hessian_same(u, w, c, la), -1.0 / s), m3_scale(m3_outer(gca, gca), q));
    mat3 hbb = m3_add(m3_scale(cos_hessian_same(w, u, c, lb), -1.0 / s), m3_scale(m3_outer(gcb, gcb), q));
    mat3 hab = m3_add(m3_scale(m3_mul(pa, pb), -1.0 / (s * la * lb)), m3_scale(m3_outer(gca, gcb), q));
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            /* Jᵀ H J block (i, j): ca_i ca_j Haa + ca_i cb_j Hab + cb_i ca_j Habᵀ + cb_i cb_j Hbb */
            for (int r = 0; r < 3; r++)
                for (int k = 0; k < 3; k++)
                    out->hess[(3 * i + r) * 9 + 3 * j + k] = ca[i] * ca[j] * haa.m[r][k] + ca[i] * cb[j] * hab.m[r][k] +
                                                             cb[i] * ca[j] * hab.m[k][r] + cb[i] * cb[j] * hbb.m[r][k];
        }
    return true;
}
