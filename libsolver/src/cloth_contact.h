/* Cloth vertices resting on colliders, held in the implicit solve (Baraff & Witkin 1998,
 * §5): a vertex within the contact distance (cloth + collider thickness) of a collider is
 * constrained in the surface normal to move with the collider (filter S = I - n nᵀ), pushed
 * back out to the contact distance through the position offset, and either sticks (static
 * friction: S = 0, it moves with the collider) or slides against a Coulomb friction force.
 * After each solve the constraint force decides: a surface that would have to pull lets the
 * vertex go for the next step; a sticking vertex whose tangential force exceeds μ times the
 * normal force starts sliding; a sliding vertex that comes to rest sticks. */
#ifndef SB_CONTACT_H
#define SB_CONTACT_H

#include "cloth.h"
#include "collider.h"

/* Sets the cloth's filters, prescribed motions and friction forces for the step [t, t + h];
 * colliders must be prepared for the step. Returns the number of vertices in contact. */
int32_t contacts_prepare(cloth *c, collider *const *colliders, int32_t collider_count, double h,
                         const double gravity[3]);

/* After an accepted solve: normal forces, releases and stick/slip for the next step. */
void contacts_after_solve(cloth *c, collider *const *colliders, double h);
/* The contacts as they were before contacts_prepare, for a step that was rejected. */
void contacts_rollback(cloth *c);
/* (A Δv - rhs)_i after a solve: the impulse the constraint gave vertex i over the step. A includes
 * the pressure's σ g gᵀ, whose product with Δv is σ g_i (g·Δv); g_dv is g·Δv. */
vec3 contact_constraint_residual(const cloth *c, int32_t i, double g_dv);

#endif
