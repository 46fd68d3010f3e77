/* Cloth condition functions (Baraff & Witkin 1998) and the energies built on them.
 *
 * Each condition C(x) is a scalar function of the positions of 3 (triangle) or 4
 * (hinge) vertices, with exact gradient and Hessian. An energy is
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

/* Stretch S_u = |w_u| - 1 and S_v = |w_v| - 1. */
void stretch_conditions(const tri_rest *rest, const vec3 x[3], condition *su, condition *sv,
                        bool want_hessian);
/* Shear C = w_u · w_v. */
void shear_condition(const tri_rest *rest, const vec3 x[3], condition *out, bool want_hessian);

/* Signed dihedral angle of the hinge x0-x1 between triangles (x0,x1,x2) and (x1,x0,x3);
 * 0 when flat. False (condition zeroed) when a wing has no area. */
bool bend_condition(const vec3 x[4], condition *out, bool want_hessian);
/* Angle only, for the rest state. */
bool dihedral_angle(const vec3 x[4], double *out_angle);

/* ½ k w (C - C0)² with gradient and Hessian (either output may be NULL). */
double condition_energy(const condition *c, double k, double w, double rest_value, double *grad,
                        double *hess);

#endif
