/* Pressure of a gas inside a closed cloth (Blender's cloth Pressure).
 *
 * With each kept triangle t = (a, b, c) weighted by w_t (1 without pressure weights), and
 * positions taken relative to the rest shape's centroid o (a closed mesh encloses the same
 * volume from any point; o only keeps the round-off small):
 *   V      = 1/6 Σ_t w_t x_a·(x_b × x_c)
 *   ∂V/∂x_a = 1/6 Σ_t w_t x_b × x_c                       (cyclic in a, b, c)
 *   ∂²V/∂x_a∂x_b = -1/6 Σ_t w_t [x_c]×,  ∂²V/∂x_b∂x_a = +1/6 Σ_t w_t [x_c]×   ([y]× z = y × z)
 *   p(V)   = pressure + scale (V_target / V - 1),  p'(V) = -scale V_target / V²
 *   f      = p ∇V,   ∂f/∂x = p ∇²V + p' ∇V ∇Vᵀ.
 * ∇²V couples only the corners of one triangle: it goes into the system's triangle blocks.
 * p' ∇V ∇Vᵀ couples every vertex with every other: it stays out of the sparse matrix and the
 * CG applies it as a rank-one term σ g gᵀ, σ = -h² p' ≥ 0 (linalg_cg.h).
 * ∇²V has zero diagonal blocks and a zero trace, so -h² p ∇²V is indefinite; it is kept all
 * the same, since it is what holds the pressure's direction to the faces as they turn: the
 * system is M + h² (stiffness) and stays positive definite while h² p |x| is small beside
 * the masses and the membrane's tension stiffness, and where it would not, the CG stops at
 * its first non-positive curvature, the step is rejected and halved, and M/h² wins
 * (test_pressure.c checks the balloon's system has no negative eigenvalue at its steps). */
#ifndef SB_CLOTH_PRESSURE_H
#define SB_CLOTH_PRESSURE_H

#include <stdbool.h>

#include "linalg_bsr.h"

struct cloth;

/* Blender's cap on the gas term, (V_target / V - 1) <= 200 + |pressure| / scale: reached only
 * when the volume has all but collapsed (or turned inside out), where p' is then 0. */
#define PRESSURE_MAX_RATIO 200.0

/* What the definition fixes about a cloth's pressure. */
typedef struct cloth_pressure {
    bool on;                 /* pressure or scale not 0 */
    double pressure, scale;  /* Pa */
    double target_volume;    /* m³ (the rest volume when the definition gave 0) */
    double origin[3];        /* the rest shape's centroid: where volumes are measured from */
    double *triangle_weight; /* triangle_count (kept triangles), or NULL: all 1 */
} cloth_pressure;

/* The (weighted) volume the triangles of `triangles` (count x 3) enclose at x, seen from origin. */
double pressure_volume(const cloth_pressure *pr, const int32_t *triangles, int32_t count, const double *x);

/* p(V) and p'(V). */
double pressure_at(const cloth_pressure *pr, double volume, double *slope);

/* Adds p ∇V to f (vertex_count x 3) at x and returns p. With a system (h > 0) also adds
 * -h² p ∇²V into its triangle blocks (table: triangle_count x 9), h² (p ∇²V u + p' ∇V (∇V·u))
 * to rhs, writes ∇V into gradient and σ = -h² p' into *sigma. */
double pressure_forces(const struct cloth *c, const double *x, double *f, bsr *system, const int32_t *table,
                       double h, const double *u, double *rhs, double *gradient, double *sigma);

#endif
