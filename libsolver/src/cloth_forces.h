/* Cloth forces and the implicit-Euler system built from them.
 *
 * For every condition C with stiffness k, weight w and damping k_d = damping k:
 *   f   = -k w (C - C0) ∇C - k_d w Ċ ∇C,            Ċ = ∇C · v
 *   ∂f/∂x ≈ -k w (∇C ∇Cᵀ + (C - C0) ∇²C)   (the last term only where it is positive
 *                                           semi-definite: stretch under tension)
 *   ∂f/∂v = -k_d w ∇C ∇Cᵀ
 * plus gravity m g, air drag -air_drag A_i v_i, goal springs -k (x_i - g_i) - c (v_i - ġ_i),
 * springs (cloth_springs.c), pressure (cloth_pressure.c) and the world's force fields
 * (cloth_fields.c). The implicit step (course notes,
 * Implicit Methods eq. 4-5) solves (M - h ∂f/∂v - h² ∂f/∂x) Δv = h f0 + h² ∂f/∂x u,
 * with u = v0 in the notes' form (cloth_step.c explains its u). */
#ifndef SB_CLOTH_FORCES_H
#define SB_CLOTH_FORCES_H

#include "cloth.h"
#include "force_field.h"

/* f (vertex_count x 3) at state (x, v) at time t, under the world's gravity (times the cloth's
 * scale) and `fields` (NULL: none). */
void cloth_forces(const cloth *c, double t, const double *x, const double *v, const double gravity[3],
                  const field_list *fields, double *f);

/* Fills c->system with M - h ∂f/∂v - h² ∂f/∂x, c->force with f0 and c->rhs with
 * h f0 + h² ∂f/∂x u, all at state (x, v) of time t, for a step to t + h (goals where they are
 * at t + h, moving at their mean velocity over the step). With pressure, the matrix of the step
 * is c->system + σ g gᵀ (g = c->pressure_gradient, σ = c->pressure_sigma): cloth_pressure.h. */
void cloth_assemble(cloth *c, double t, const double *x, const double *v, const double *u,
                    const double gravity[3], const field_list *fields, double h);

#endif
