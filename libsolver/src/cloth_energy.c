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

/* Dihedral angle θ = atan2(s, c) with y = (nA, nB, e) as intermediate variables:
 *   e = x1 - x0, nA = e × (x2 - x0), nB = (x3 - x0) × e,
 *   s = det[nA, nB, e] / |e| = |nA||nB| sin θ,  c = nA·nB = |nA||nB| cos θ.
 * ∇²_x θ = Jᵀ ∇²_y θ J + Σ_k ∂θ/∂y_k ∇²_x y_k, where J = ∂y/∂x and the last term comes
 * from the normals being bilinear in x. */
typedef struct hinge_frame {
    vec3 e, a, b, na, nb;
    double s, c, r2;
} hinge_frame;

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

/* Adds the Hessian of g·(du × dv), du = Σ p_i dx_i, dv = Σ q_i dx_i, to a 12x12 matrix:
 * g·(du × dv) = duᵀ M dv with M = -[g]x. */
static void add_bilinear_cross(double *hess, vec3 g, const double p[4], const double q[4])
{
    mat3 m = m3_scale(skew(g), -1.0);
    mat3 mt = skew(g); /* Mᵀ */
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            if (p[i] * q[j] != 0.0) hess_add_block(hess, 12, i, j, m, p[i] * q[j]);
            if (q[i] * p[j] != 0.0) hess_add_block(hess, 12, i, j, mt, q[i] * p[j]);
        }
}

/* 9x9 helpers on y = (nA, nB, e): block (I, J) of a 9x9 row-major matrix. */
static void y_block_add(double *h9, int bi, int bj, mat3 m, double s)
{
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) h9[(3 * bi + a) * 9 + 3 * bj + b] += s * m.m[a][b];
}

/* θ's first derivatives in y, through s = T L with T = det[nA, nB, e] and L = 1/|e|, and
 * J = ∂y/∂x. */
typedef struct hinge_derivatives {
    hinge_frame h;
    double inv_e, triple; /* 1/|e|, T */
    double grad_t[9], grad_c[9], grad_l[9], grad_s[9]; /* ∇_y of T, c, L and s */
    double th_s, th_c; /* ∂θ/∂s, ∂θ/∂c */
    double grad_y[9];  /* ∇_y θ */
    mat3 jac[3][4]; /* 3x4 blocks */
} hinge_derivatives;

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

/* False when a wing has no usable normal. */
static bool hinge_derivatives_of(const vec3 x[4], hinge_derivatives *d)
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

/* ∇²_y θ = θ_ss ∇s ∇sᵀ + θ_sc (∇s ∇cᵀ + ∇c ∇sᵀ) + θ_cc ∇c ∇cᵀ + θ_s ∇²s + θ_c ∇²c. */
static void angle_hessian_in_y(const hinge_derivatives *d, double hess_y[81])
{
    const hinge_frame *h = &d->h;
    mat3 eye = m3_identity();
    double hess_t[81] = {0}, hess_c[81] = {0}, hess_l[81] = {0};
    y_block_add(hess_t, 0, 1, skew(h->e), -1.0);
    y_block_add(hess_t, 1, 0, skew(h->e), 1.0);
    y_block_add(hess_t, 0, 2, skew(h->nb), 1.0);
    y_block_add(hess_t, 2, 0, skew(h->nb), -1.0);
    y_block_add(hess_t, 1, 2, skew(h->na), -1.0);
    y_block_add(hess_t, 2, 1, skew(h->na), 1.0);
    y_block_add(hess_c, 0, 1, eye, 1.0);
    y_block_add(hess_c, 1, 0, eye, 1.0);
    double inv_e = d->inv_e, ie3 = inv_e * inv_e * inv_e;
    y_block_add(hess_l, 2, 2, eye, -ie3);
    y_block_add(hess_l, 2, 2, m3_outer(h->e, h->e), 3.0 * ie3 * inv_e * inv_e);

    double r4 = h->r2 * h->r2;
    double th_ss = -2.0 * h->s * h->c / r4, th_cc = 2.0 * h->s * h->c / r4;
    double th_sc = (h->s * h->s - h->c * h->c) / r4;
    const double *grad_t = d->grad_t, *grad_c = d->grad_c, *grad_l = d->grad_l, *grad_s = d->grad_s;
    for (int i = 0; i < 9; i++)
        for (int j = 0; j < 9; j++) {
            /* s = T L: ∇²s = L ∇²T + ∇T ∇Lᵀ + ∇L ∇Tᵀ + T ∇²L */
            double hs = inv_e * hess_t[i * 9 + j] + grad_t[i] * grad_l[j] +
                        grad_l[i] * grad_t[j] + d->triple * hess_l[i * 9 + j];
            hess_y[i * 9 + j] = th_ss * grad_s[i] * grad_s[j] +
                                th_sc * (grad_s[i] * grad_c[j] + grad_c[i] * grad_s[j]) +
                                th_cc * grad_c[i] * grad_c[j] + d->th_s * hs +
                                d->th_c * hess_c[i * 9 + j];
        }
}

/* Jᵀ H_y J: first W = H_y J (9 x 12), then Jᵀ W */
static void pull_back_hessian(const mat3 jac[3][4], const double hess_y[81], double hess[144])
{
    double jflat[9][12];
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < 4; i++)
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++) jflat[3 * k + a][3 * i + b] = jac[k][i].m[a][b];
    double w[9][12];
    for (int r = 0; r < 9; r++)
        for (int col = 0; col < 12; col++) {
            double sum = 0.0;
            for (int k = 0; k < 9; k++) sum += hess_y[r * 9 + k] * jflat[k][col];
            w[r][col] = sum;
        }
    for (int r = 0; r < 12; r++)
        for (int col = 0; col < 12; col++) {
            double sum = 0.0;
            for (int k = 0; k < 9; k++) sum += jflat[k][r] * w[k][col];
            hess[r * 12 + col] = sum;
        }
}

/* Σ_k ∂θ/∂y_k ∇²_x y_k, from the normals being bilinear: nA = de × da + ..., nB = db × de + ... */
static void add_normals_curvature(const double grad_y[9], double hess[144])
{
    static const double p_e[4] = {-1, 1, 0, 0}, p_a[4] = {-1, 0, 1, 0}, p_b[4] = {-1, 0, 0, 1};
    add_bilinear_cross(hess, v3_load(&grad_y[0]), p_e, p_a);
    add_bilinear_cross(hess, v3_load(&grad_y[3]), p_b, p_e);
}

bool bend_condition(const vec3 x[4], condition *out, bool want_hessian)
{
    condition_reset(out, 4, want_hessian);
    hinge_derivatives d;
    if (!hinge_derivatives_of(x, &d)) return false;
    out->value = atan2(d.h.s, d.h.c);
    angle_gradient_in_x(&d, out->grad);
    if (!want_hessian) return true;
    double hess_y[81];
    angle_hessian_in_y(&d, hess_y);
    pull_back_hessian(d.jac, hess_y, out->hess);
    add_normals_curvature(d.grad_y, out->hess);
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
