/* Cloth condition functions (Baraff & Witkin 1998) and the energies built on them.
 *
 * Each condition C(x) is a scalar function of the positions of 3 (triangle) or 4
 * (hinge) vertices, with exact gradient and Hessian (the hinge's Hessian with the tests,
 * see bend_condition). An energy is
 *     E = ½ k w (C - C0)²,   ∇E = k w (C - C0) ∇C,   ∇²E = k w (∇C ∇Cᵀ + (C - C0) ∇²C),
 * with k the material stiffness and w a rest-shape weight (area, hinge weight). */
#ifndef SB_CLOTH_ENERGY_H
#define SB_CLOTH_ENERGY_H

#include <stdbool.h>

#include "math3.h"

#define COND_MAX_VERTS 4
#define COND_MAX_DOFS (3 * COND_MAX_VERTS)

/* Hessian is dofs x dofs row-major; dof 3*i+a is coordinate a of vertex i. */
typedef struct condition {
    int vertex_count;
    double value;
    double grad[COND_MAX_DOFS];
    double hess[COND_MAX_DOFS * COND_MAX_DOFS];
} condition;

/* Rest state of a triangle in its (u,v) material frame:
 * w_u = Σ cu[i] x_i = ∂x/∂u, w_v = Σ cv[i] x_i = ∂x/∂v; area in m². */
typedef struct tri_rest {
    double cu[3], cv[3];
    double area;
} tri_rest;

/* Rest data from the corners' material coordinates; false if the triangle is degenerate. */
bool tri_rest_from_uv(const double u[3], const double v[3], tri_rest *out);

/* tri_rest_from_uv backwards: the corners' material coordinates, corner 0 at the origin (those of
 * corners 1 and 2 are the columns of [[cu1, cv1], [cu2, cv2]]⁻¹). */
static inline void tri_rest_corners(const tri_rest *r, double u[3], double v[3])
{
    double det = r->cu[1] * r->cv[2] - r->cv[1] * r->cu[2];
    u[0] = 0.0, u[1] = r->cv[2] / det, u[2] = -r->cv[1] / det;
    v[0] = 0.0, v[1] = -r->cu[2] / det, v[2] = r->cu[1] / det;
}

/* Stretch S_u = |w_u| - 1 and S_v = |w_v| - 1. */
void stretch_conditions(const tri_rest *rest, const vec3 x[3], condition *su, condition *sv,
                        bool want_hessian);
/* Shear C = w_u · w_v. */
void shear_condition(const tri_rest *rest, const vec3 x[3], condition *out, bool want_hessian);

/* Signed dihedral angle of the hinge x0-x1 between triangles (x0,x1,x2) and (x1,x0,x3);
 * 0 when flat. False (condition zeroed) when a wing has no area. Gradient only: the solver
 * never takes bending's second-order term, so its Hessian is the tests' (tests/c/bend_hessian.c). */
bool bend_condition(const vec3 x[4], condition *out);
/* Angle only, for the rest state. */
bool dihedral_angle(const vec3 x[4], double *out_angle);

/* Dihedral angle θ = atan2(s, c) with y = (nA, nB, e) as intermediate variables:
 *   e = x1 - x0, nA = e × (x2 - x0), nB = (x3 - x0) × e,
 *   s = det[nA, nB, e] / |e| = |nA||nB| sin θ,  c = nA·nB = |nA||nB| cos θ. */
typedef struct hinge_frame {
    vec3 e, a, b, na, nb;
    double s, c, r2;
} hinge_frame;

/* θ's first derivatives in y, through s = T L with T = det[nA, nB, e] and L = 1/|e|, and
 * J = ∂y/∂x: bend_condition's gradient is Jᵀ ∇_y θ, and the tests' Hessian is built on the
 * same values, which is why they are declared here. */
typedef struct hinge_derivatives {
    hinge_frame h;
    double inv_e, triple; /* 1/|e|, T */
    double grad_t[9], grad_c[9], grad_l[9], grad_s[9]; /* ∇_y of T, c, L and s */
    double th_s, th_c; /* ∂θ/∂s, ∂θ/∂c */
    double grad_y[9];  /* ∇_y θ */
    mat3 jac[3][4];    /* 3x4 blocks */
} hinge_derivatives;

/* False when a wing has no usable normal (d is then not to be read). */
bool hinge_derivatives_of(const vec3 x[4], hinge_derivatives *d);

/* ½ k w (C - C0)² with gradient and Hessian (either output may be NULL). */
double condition_energy(const condition *c, double k, double w, double rest_value, double *grad,
                        double *hess);

#endif
