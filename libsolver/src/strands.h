/* Strands (hair, ropes, cables) as polylines, after Kass ("Cloth and Fur Energy Functions",
 * Hair Model and Discretization): built as a cloth without triangles, stepped by the same
 * implicit Euler solve, pins, contacts with colliders, fields and saved state.
 *   stretch: each segment a spring of stiffness EA / L (L its rest length), so a strand's
 *            stretch energy ½ Σ (EA / L)(l - L)² is that of the continuum, ½ EA ∫ ε² ds;
 *   bend:    at each interior vertex E = ½ (EI / l̄)(θ - θ0)² on the turning angle θ
 *            (strand_bend.h), θ0 from the rest shape, so a curl given at rest is kept;
 *   mass:    mass per length × half of each adjacent segment, lumped on the vertex;
 *   drag:    -air_drag × the vertex's length (half of each adjacent segment) × v.
 * No twist: Kass' model has none, so nothing keeps a curl in its plane, only its turning. */
#ifndef SB_STRANDS_H
#define SB_STRANDS_H

#include "cloth.h"

/* The blocks of a strand's system lie within this many of the diagonal: its segments couple
 * neighbours, its bending second neighbours. */
enum { STRAND_BAND_BLOCKS = 2 };

/* The CG tolerance strands are solved to at least (world_step.c). */
#define STRAND_CG_TOLERANCE 1e-6

/* Validates the definition and builds the strands at `time` under `gravity`; on failure
 * returns the error (message set) and *out stays NULL. */
sb_result strands_create(const sb_strand_def *def, double time, const double gravity[3], cloth **out);

#endif
