/* ∇²_x θ = Jᵀ ∇²_y θ J + Σ_k ∂θ/∂y_k ∇²_x y_k, where J = ∂y/∂x and the last term comes from
 * the normals being bilinear in x (y, s and c as in cloth_energy.h). */
#include "bend_hessian.h"

#include <string.h>

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

bool bend_condition_with_hessian(const vec3 x[4], condition *out)
{
    memset(out->hess, 0, sizeof out->hess);
    hinge_derivatives d;
    if (!bend_condition(x, out) || !hinge_derivatives_of(x, &d)) return false;
    double hess_y[81];
    angle_hessian_in_y(&d, hess_y);
    pull_back_hessian(d.jac, hess_y, out->hess);
    add_normals_curvature(d.grad_y, out->hess);
    return true;
}
