/* Two-way coupling of cloth and the rigid bodies that carry colliders (sb_body_def.feels_cloth),
 * staggered: the bodies step first, the cloth meets the colliders where the bodies went (so it
 * never passes through them), and what the cloth got from each collider over the step
 * (collider_react: the contacts held in the solve, their friction, the response's impulses)
 * goes, opposite, to the body at the end of the step.
 *
 * Stability. The body feels the cloth one step late, so it is an explicit coupling: like
 * symplectic Euler on a spring, it holds while the mass the cloth's contacts drag along over
 * a step is small next to the body's. A cloth vertex held on the body along n moves, over a
 * step h, against its system row (M - h ∂f/∂v - h² ∂f/∂x): the contacts held on one collider
 * moving together along their normals resist as the apparent mass
 *   S = Σ_i Σ_j n_iᵀ A_ij n_j      (i, j held on that collider)
 * (the cloth's mass there, plus h times its damping, plus h² times its stiffness towards the
 * cloth around). The body meets them with its effective mass along a contact normal at
 * offset r from its centre, 1 / (1/M + (r × n)ᵀ I⁻¹ (r × n)), the least over the contacts. A
 * step whose S is more than COUPLING_MASS_RATIO times that is tried again at half its length
 * (down to min_step, below which it is taken as it is).
 *
 * Not traced: the rigid impact zones of the response (its failsafe) and the momentum that
 * pinned vertices take; so the pair's momentum is kept to within about 0.5% through a ball's
 * impact on a free sheet (test_two_way_coupling.c), not exactly. Known to fail: a heavy body
 * landing on a pinned cloth that reaches its strain limit (a 5 kg box dropped 2 cm into a
 * pinned 0.2 kg hammock) is thrown back up: round after round of the strain limit
 * (world_step.c) moves the vertices held on it towards the rest of the cloth, into the body,
 * the response pushes them back out, and coupling_strain_limit counts (F - 1) m Δv to the body
 * each round: 26 N·s within one frame, the box bringing 7. Without the strain limit it lands
 * without blowing up but rocks and does not settle (7 s after, sag 0.143 m against a static
 * 0.119 m, the box still moving by centimetres); hence feels_cloth is 0 unless asked for. */
#ifndef SB_TWO_WAY_COUPLING_H
#define SB_TWO_WAY_COUPLING_H

#include <stdbool.h>

#include "world.h"

/* Marks the colliders whose body is dynamic, awake and feels the cloth (collider
 * scratch.pushes_body);
 * the world's colliders must have followed their bodies for the step. */
void coupling_mark_colliders(sb_world *w);
/* After the cloths' solves: whether every pushed body is heavy enough for the step (above). */
bool coupling_stable(const sb_world *w);
/* strain_limit_project, and the momentum its heavy vertices held on a pushed body's collider
 * (by a contact, or the response's impulse that last moved it: cloth_scratch.pushed_by) took:
 * a triangle's projection keeps Σ w_k Δx_k = 0 with weights w_k = m_k (F m_k for the heavy
 * ones, F = STRAIN_HEAVY_FACTOR), so the cloth's momentum changes by -Σ_heavy (F - 1) m_k Δv_k,
 * which the collider holding vertex k gave: it takes (F - 1) m_k Δv_k. */
void coupling_strain_limit(sb_world *w, cloth *c, double h);
/* At the end of an accepted step: each pushed body takes its colliders' reactions. */
void coupling_push_bodies(sb_world *w);

#endif
