/* Extra springs of a cloth between vertex pairs: the ones the definition gives (Blender's
 * sewing: loose edges of rest length 0, their force limited) and the internal springs the
 * library finds through a closed cloth's volume (Blender 2.83+), all inside the implicit solve.
 *
 * A spring from x_i to x_j, d = x_j - x_i, l = |d|, u = d / l, rest length L:
 *   energy ½ k (l - L)²,  force on j  f = -k (l - L) u  (on i: -f),
 *   K = ∂f/∂x_j = -k (u uᵀ + (l - L)/l (I - u uᵀ)),  ∂f/∂x_i = -K,
 * k the tension stiffness where l > L, the compression stiffness where l < L. Damping
 * f_d = -k_d (u · (v_j - v_i)) u, ∂f_d/∂v_j = -k_d u uᵀ, with k_d = damping * k. */
#ifndef SB_CLOTH_SPRINGS_H
#define SB_CLOTH_SPRINGS_H

#include <stdbool.h>
#include <stdint.h>

#include "math3.h"
#include "simbake.h"

#define SPRING_PI 3.14159265358979323846 /* C17 has no M_PI */

/* The force on x_j of one spring, and its Jacobians K = ∂f/∂x_j and D = ∂f/∂v_j (either may be
 * NULL). `definite`: the transverse term of K, -k (l - L)/l (I - u uᵀ), is kept only where it
 * makes K negative semi-definite (tension): compressed, it would make the system matrix
 * indefinite, and it is dropped as the triangles' stretch drops it. max_force > 0 limits the
 * pull (see the definition for K then). Rest length 0 is smooth: f = -k d, K = -k I. */
vec3 spring_force(vec3 xi, vec3 xj, vec3 vi, vec3 vj, double rest, double k_tension, double k_compression,
                  double max_force, double damping, bool definite, mat3 *K, mat3 *D);

/* The springs of a definition (given, then internal) into freshly allocated arrays: pairs
 * (count x 2), rest lengths, stiffness (count x 2: tension, compression), force limits.
 * rest_positions are the definition's; `shrink` (optional) scales default rest lengths.
 * Triangles: the kept ones (count x 3), for the internal springs' rays. Returns false when out
 * of memory (the arrays then freed and NULL). The definition was validated. */
typedef struct spring_set {
    int32_t count, given, internal;
    int32_t *pairs;
    double *rest, *stiffness, *max_force;
} spring_set;

bool springs_build(const sb_cloth_def *def, const int32_t *triangles, int32_t triangle_count, spring_set *out);
void springs_free(spring_set *s);

/* Validation of the spring fields of a definition (message set), SB_OK when fine. */
sb_result springs_validate(const sb_cloth_def *def);

#endif
