#include "cloth_energy.h"

#include <string.h>

/* The Hessian (144 doubles) is cleared only when it is asked for. */
static void condition_reset(condition *c, int vertex_count, bool want_hessian)
{
    c->vertex_count = vertex_count;
    c->value = 0.0;
    memset(c->grad, 0, sizeof c->grad);
    if (want_hessian) memset(c->hess, 0, sizeof c->hess);
}

/* [a]x, so that skew(a) v = a × v. */
static mat3 skew(vec3 a)
{
    return (mat3){{{0.0, -a.z, a.y}, {a.z, 0.0, -a.x}, {-a.y, a.x, 0.0}}};
}

/* hess[dofs x dofs] block (i,j) += s * m */
static void hess_add_block(double *hess, int dofs, int i, int j, mat3 m, double s)
{
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) hess[(3 * i + a) * dofs + 3 * j + b] += s * m.m[a][b];
}

bool tri_rest_from_uv(const double u[3], const double v[3], tri_rest *out)
{
    double du1 = u[1] - u[0], du2 = u[2] - u[0];
    double dv1 = v[1] - v[0], dv2 = v[2] - v[0];
    double det = du1 * dv2 - du2 * dv1;
    double scale = fmax(fmax(du1 * du1 + dv1 * dv1, du2 * du2 + dv2 * dv2),
                        (du1 - du2) * (du1 - du2) + (dv1 - dv2) * (dv1 - dv2));
    if (!isfinite(det) || !(scale > 0.0) || fabs(det) <= 1e-12 * scale) return false;
    /* [w_u w_v] = [Δx1 Δx2] [Δu Δv]^-1 written out per vertex. */
    out->cu[1] = dv2 / det;
    out->cu[2] = -dv1 / det;
    out->cu[0] = -(out->cu[1] + out->cu[2]);
    out->cv[1] = -du2 / det;
    out->cv[2] = du1 / det;
    out->cv[0] = -(out->cv[1] + out->cv[2]);
    out->area = 0.5 * fabs(det);
    return true;
}

static vec3 combine3(const double coef[3], const vec3 x[3])
{
    return v3_add(v3_add(v3_scale(x[0], coef[0]), v3_scale(x[1], coef[1])), v3_scale(x[2], coef[2]));
}

/* S = |w| - 1 with w = Σ coef_i x_i: ∇_i S = coef_i ŵ, ∇²_ij S = coef_i coef_j (I - ŵŵᵀ)/|w|. */
static void stretch_one(const double coef[3], vec3 w, condition *c, bool want_hessian)
{
    condition_reset(c, 3, want_hessian);
    double len = v3_len(w);
    c->value = len - 1.0;
    if (!(len > 1e-12)) return; /* collapsed: no defined direction, no force */
    vec3 wh = v3_scale(w, 1.0 / len);
    for (int i = 0; i < 3; i++) v3_store(&c->grad[3 * i], v3_scale(wh, coef[i]));
    if (!want_hessian) return;
    mat3 proj = m3_scale(m3_add(m3_identity(), m3_scale(m3_outer(wh, wh), -1.0)), 1.0 / len);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) hess_add_block(c->hess, 9, i, j, proj, coef[i] * coef[j]);
}

void stretch_conditions(const tri_rest *rest, const vec3 x[3], condition *su, condition *sv,
                        bool want_hessian)
{
    stretch_one(rest->cu, combine3(rest->cu, x), su, want_hessian);
    stretch_one(rest->cv, combine3(rest->cv, x), sv, want_hessian);
}

/* C = w_u·w_v: ∇_i C = cu_i w_v + cv_i w_u, ∇²_ij C = (cu_i cv_j + cv_i cu_j) I. */
void shear_condition(const tri_rest *rest, const vec3 x[3], condition *out, bool want_hessian)
{
    condition_reset(out, 3, want_hessian);
    vec3 wu = combine3(rest->cu, x), wv = combine3(rest->cv, x);
    out->value = v3_dot(wu, wv);
    for (int i = 0; i < 3; i++)
        v3_store(&out->grad[3 * i], v3_add(v3_scale(wv, rest->cu[i]), v3_scale(wu, rest->cv[i])));
    if (!want_hessian) return;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            hess_add_block(out->hess, 9, i, j, m3_identity(),
                           rest->cu[i] * rest->cv[j] + rest->cv[i] * rest->cu[j]);
}

static bool hinge_frame_init(const vec3 x[4], hinge_frame *h)
{
    h->e = v3_sub(x[1], x[0]);
    h->a = v3_sub(x[2], x[0]);
    h->b = v3_sub(x[3], x[0]);
    h->na = v3_cross(h->e, h->a);
    h->nb = v3_cross(h->b, h->e);
    double elen = v3_len(h->e);
    double e2 = elen * elen;
    double na2 = v3_len2(h->na), nb2 = v3_len2(h->nb);
    /* A wing whose height is below 1e-9 of the hinge length has no usable normal. */
    if (!(elen > 0.0) || !(na2 > 1e-18 * e2 * e2) || !(nb2 > 1e-18 * e2 * e2)) return false;
    h->s = v3_dot(v3_cross(h->na, h->nb), h->e) / elen;
    h->c = v3_dot(h->na, h->nb);
    h->r2 = h->s * h->s + h->c * h->c;
    return isfinite(h->r2) && h->r2 > 0.0;
}

bool dihedral_angle(const vec3 x[4], double *out_angle)
{
    hinge_frame h;
    if (!hinge_frame_init(x, &h)) {
        *out_angle = 0.0;
        return false;
    }
    *out_angle = atan2(h.s, h.c);
    return true;
}

/* ∇_y θ = θ_s ∇s + θ_c ∇c with θ_s = c / r², θ_c = -s / r², r² = s² + c². */
static void angle_gradient_in_y(hinge_derivatives *d)
{
    const hinge_frame *h = &d->h;
    double elen = v3_len(h->e);
    d->inv_e = 1.0 / elen;
    d->triple = h->s * elen;
    v3_store(&d->grad_t[0], v3_cross(h->nb, h->e));
    v3_store(&d->grad_t[3], v3_cross(h->e, h->na));
    v3_store(&d->grad_t[6], v3_cross(h->na, h->nb));
    v3_store(&d->grad_c[0], h->nb);
    v3_store(&d->grad_c[3], h->na);
    v3_store(&d->grad_c[6], v3(0, 0, 0));
    memset(d->grad_l, 0, sizeof d->grad_l);
    v3_store(&d->grad_l[6], v3_scale(h->e, -d->inv_e * d->inv_e * d->inv_e));
    for (int k = 0; k < 9; k++) d->grad_s[k] = d->inv_e * d->grad_t[k] + d->triple * d->grad_l[k];
    d->th_s = h->c / h->r2, d->th_c = -h->s / h->r2;
    for (int k = 0; k < 9; k++) d->grad_y[k] = d->th_s * d->grad_s[k] + d->th_c * d->grad_c[k];
}

/* J = ∂y/∂x of nA = e × a, nB = b × e, e = x1 - x0, with a = x2 - x0, b = x3 - x0. */
static void normals_jacobian(const hinge_frame *h, mat3 jac[3][4])
{
    mat3 zero = m3_zero(), eye = m3_identity();
    jac[0][0] = m3_add(skew(h->a), m3_scale(skew(h->e), -1.0)), jac[0][1] = m3_scale(skew(h->a), -1.0);
    jac[0][2] = skew(h->e), jac[0][3] = zero;
    jac[1][0] = m3_add(skew(h->e), m3_scale(skew(h->b), -1.0)), jac[1][1] = skew(h->b);
    jac[1][2] = zero, jac[1][3] = m3_scale(skew(h->e), -1.0);
    jac[2][0] = m3_scale(eye, -1.0), jac[2][1] = eye, jac[2][2] = zero, jac[2][3] = zero;
}

bool hinge_derivatives_of(const vec3 x[4], hinge_derivatives *d)
{
    if (!hinge_frame_init(x, &d->h)) return false;
    angle_gradient_in_y(d);
    normals_jacobian(&d->h, d->jac);
    return true;
}

/* ∇_x θ = Jᵀ ∇_y θ */
static void angle_gradient_in_x(const hinge_derivatives *d, double grad[12])
{
    for (int i = 0; i < 4; i++) {
        for (int a = 0; a < 3; a++) { /* Σ_k (J_ki)ᵀ ∂θ/∂y_k */
            double sum = 0.0;
            for (int k = 0; k < 3; k++)
                for (int b = 0; b < 3; b++) sum += d->jac[k][i].m[b][a] * d->grad_y[3 * k + b];
            grad[3 * i + a] = sum;
        }
    }
}

bool bend_condition(const vec3 x[4], condition *out)
{
    condition_reset(out, 4, false);
    hinge_derivatives d;
    if (!hinge_derivatives_of(x, &d)) return false;
    out->value = atan2(d.h.s, d.h.c);
    angle_gradient_in_x(&d, out->grad);
    return true;
}

double condition_energy(const condition *c, double k, double w, double rest_value, double *grad,
                        double *hess)
{
    int dofs = 3 * c->vertex_count;
    double d = c->value - rest_value;
    double kw = k * w;
    if (grad)
        for (int i = 0; i < dofs; i++) grad[i] = kw * d * c->grad[i];
    if (hess)
        for (int i = 0; i < dofs; i++)
            for (int j = 0; j < dofs; j++)
                hess[i * dofs + j] = kw * (c->grad[i] * c->grad[j] + d * c->hess[i * dofs + j]);
    return 0.5 * kw * d * d;
}
