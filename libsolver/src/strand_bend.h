/* Bending of a strand at an interior vertex (Kass, "Cloth and Fur Energy Functions", Hair
 * Model): the turning angle θ between the segments a = x1 - x0 and b = x2 - x1,
 *     θ = atan2(|â × b̂|, â · b̂)   in [0, π],
 * with energy E = ½ k (θ - θ0)², k = EI / l̄ (l̄ the mean rest length of the two segments), so
 * that E sums to ½ EI ∫ κ² ds whatever the sampling. θ is unsigned and there is no twist: a
 * strand keeps how much it turns at each vertex, not in which plane (Kass' model has no twist).
 *
 * With c = â · b̂ = cos θ and s = sin θ, dθ = -dc / s and d²θ/dc² = -c / s³, so
 *     ∇θ = -∇c / s,   ∇²θ = -∇²c / s - (c / s³) ∇c ∇cᵀ,
 *     ∂c/∂a = (b̂ - c â) / |a|,   ∂c/∂b = (â - c b̂) / |b|,
 *     ∂²c/∂a² = -(â b̂ᵀ + b̂ âᵀ - 3c â âᵀ + c I) / |a|²   (∂²c/∂b² alike, â and b̂ swapped),
 *     ∂²c/∂a∂b = (I - â âᵀ)(I - b̂ b̂ᵀ) / (|a| |b|),
 * and ∂/∂x0 = -∂/∂a, ∂/∂x1 = ∂/∂a - ∂/∂b, ∂/∂x2 = ∂/∂b. Straight (or folded back) the
 * direction of ∇θ is undefined: there the condition has zero gradient and Hessian. */
#ifndef SB_STRAND_BEND_H
#define SB_STRAND_BEND_H

#include <stdbool.h>

#include "cloth_energy.h"

/* θ of the three points into *out (3 vertices), its exact Hessian too when want_hessian;
 * false (and *out zero) when a segment has no length. */
bool turning_angle_condition(const vec3 x[3], condition *out, bool want_hessian);

/* θ of the three points (0 when a segment has no length). */
double turning_angle(vec3 x0, vec3 x1, vec3 x2);

#endif
