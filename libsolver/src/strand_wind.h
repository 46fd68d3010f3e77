/* Wind on a strand (a rope, a hair, a cable): drag on a thin cylinder, per metre of strand.
 * Air crossing a cylinder pushes it along the part of the relative flow normal to its axis;
 * what flows along the axis slides past (its skin friction is left out). On segment
 * (x_i, x_j), t̂ = (x_j - x_i)/ℓ its direction, ℓ its current length, P = I - t̂ t̂ᵀ, the
 * field's vector at end k is
 *     w_k = fo_k s a - f̄ flow v_k      (f̄ = (fo_i + fo_j)/2, the segment's mean falloff),
 * that is flow (U a - v_k) with U = s / flow the wind's speed: a per-length drag coefficient
 * (kg/(m s)) times the relative velocity. The force per metre P w varies linearly along the
 * segment, and integrating it against the ends' hat functions gives
 *     f_i = ℓ P (2 w_i + w_j)/6,   f_j = ℓ P (w_i + 2 w_j)/6,
 * as a triangle's pressure is spread over its corners (cloth_fields.c).
 *
 * In the implicit solve: ∂f_i/∂v_j = -(ℓ f̄ flow/6)(1 + δij) P, symmetric negative
 * semi-definite (the mean falloff keeps it symmetric), so the drag is taken implicitly and
 * exactly. How the push turns with the segment (∂f/∂x, ∂(ℓ P W)/∂e = W t̂ᵀ - t̂ Wᵀ - (t̂·W) P for
 * W = 2w_i + w_j) is unsymmetric whatever W (a follower load, as a cloth triangle's pressure):
 * it stays explicit. It changes as the strand turns, over the field's and the strand's size,
 * not over a segment's stiffness. */
#ifndef SB_STRAND_WIND_H
#define SB_STRAND_WIND_H

#include "cloth.h"
#include "cloth_assembly.h"
#include "force_field.h"

/* Adds wind field `field` (at `pose`, the strands' weight `weight`) on segment s of strands c
 * at state (x, v) to f and, with an assembly, -h ∂f/∂v to its matrix. */
void strand_wind_on_segment(const cloth *c, int32_t s, const force_field *field, const field_pose *pose,
                            double weight, double time, const double *x, const double *v, double *f,
                            const assembly *as);

#endif
