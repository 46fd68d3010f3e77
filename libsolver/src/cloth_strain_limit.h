/* Strain limiting (Wang, O'Brien & Ramamoorthi 2010, "Multi-resolution isotropic strain
 * limiting"; ARCSim, Narain, Samii & O'Brien 2012): after a step, each triangle's in-plane
 * deformation F = ∂x/∂u (3 x 2, u the rest material coordinates) has its two singular values
 * clamped into [1 - max_compression, 1 + max_stretch]. An edge e of the rest triangle becomes
 * F e with σ_min |e| <= |F e| <= σ_max |e|, so with every triangle within the limits every edge
 * is too: the guarantee holds per edge, not just on average.
 *
 * The projection is Gauss-Seidel over the triangle colours (cloth_colouring.h), so each
 * triangle sees what the ones before it did and the result is the same on any number of
 * threads; sweeps repeat until no triangle is beyond a limit by more than STRAIN_SLACK.
 *
 * Where it sits in a step (world_step.c): after the implicit solve, before the collision
 * response, pins fixed; the response then sees limited paths. Its proximity pass pushes the
 * layers of a fold apart, which stretches the triangles round them: the pass and sweeps of
 * this projection take turns inside the response until a sweep moves nothing
 * (collision_response.c), the vertices the pass pushed made heavy. Its impulses and zones may
 * stretch triangles again (a landing at 20 m/s stops the front of the cloth while the rest
 * still moves), so the projection runs again, the vertices the response moved or a collider
 * holds made heavy (they barely move), and the response checks the paths it changed; round
 * after round while a triangle is beyond its limit, for at most STRAIN_ROUNDS. The response
 * always has the last word: non-penetration wins over the limit where both cannot hold (a
 * vertex squeezed between two colliders); the world then counts the step in
 * sb_world_stats.strain_violations. The drape of Blender's default cloth with self collision
 * (64², 48 frames) ends every step with its edges within the limits (0.900008 .. 1.099991 of
 * rest), 0 to 3 of some 85 steps counted beyond them by less than that (where the turns
 * stalled), where taking turns only round by round left 61 of 92 beyond, edges 0.85 .. 1.13.
 * The explicit integrators do not limit strain.
 *
 * Strands (strands.c) have no triangles: their segments (the model's springs) are projected
 * instead, the same way: each segment's stretch |x_j - x_i| / L clamped into the limits by
 * moving its two ends along it by inverse mass (heavy and fixed ends as for triangles),
 * Gauss-Seidel over the spring colours, root to tip within a group. A 1 m rope of 20
 * segments released horizontally, one step of 1/24 s a frame, limits 0.5%: every segment
 * within 0.5% at the end of every step, the whole within 0.4999%, where without a limit one
 * segment changed by 44% and the whole by 3.3% (tests/c/test_strands.c).  */
#ifndef SB_CLOTH_STRAIN_LIMIT_H
#define SB_CLOTH_STRAIN_LIMIT_H

#include <stdbool.h>

#include "cloth.h"

/* Relative excess over a limit that counts as within it: well below what a test of edge
 * lengths (1e-6) can see, well above round-off. */
#define STRAIN_SLACK 1e-9

/* Mass factor of STRAIN_HEAVY vertices: they move a tenth of what their neighbours do (heavier
 * ones slow the sweeps down as much as they hold them). */
#define STRAIN_HEAVY_FACTOR 10.0

/* A step whose projection would change a vertex's velocity by more than this is a pinch
 * (world_step.c, cloth_strain_limit.c). */
#define PINCH_SPEED 20.0 /* m/s */

/* What the projection may do with a vertex (cloth_scratch.held). */
enum { STRAIN_FREE = 0, STRAIN_HEAVY = 1, STRAIN_FIXED = 2 };

typedef struct strain_limit_report {
    int32_t sweeps;      /* Gauss-Seidel sweeps taken */
    bool moved;          /* whether it moved any vertex */
    double worst_excess; /* largest relative excess of a σ over its limit left (0: none) */
} strain_limit_report;

/* Whether the cloth limits its strain at all. */
static inline bool strain_limit_on(const cloth_model *m) { return m->max_stretch > 0.0 || m->max_compression > 0.0; }

/* Largest relative excess over the limits of any triangle at positions x: max of σ_max /
 * (1 + max_stretch) - 1 and 1 - σ_min / (1 - max_compression), or 0. */
double strain_limit_excess(const cloth *c, const double *x);

/* Projects the step's end positions x_new into the limits, each vertex as scratch.held says:
 * STRAIN_FREE ones by their mass, STRAIN_HEAVY ones as if ten times heavier, STRAIN_FIXED
 * ones (pins) not at all. A triangle's corners keep their weighted centre where none is fixed:
 * where none is heavy either, linear momentum is kept exactly. Each moved
 * vertex's end velocity v_new changes by its displacement / h: the velocity that carried it
 * beyond the limit goes with it. An element that starts the step beyond a limit (a pinch
 * between pins and a body that does not give) is brought back at a bounded rate instead, outside
 * tangles, and no vertex is left faster than PINCH_SPEED or than it was (cloth_strain_limit.c).
 * Returns what it did. */
strain_limit_report strain_limit_project(cloth *c, double h);

/* One Gauss-Seidel sweep of that projection (0 where the cloth limits nothing); the largest
 * excess it found, before projecting: at most STRAIN_SLACK means it moved nothing. The
 * collision response alternates such sweeps with its proximity pass (collision_response.c). */
double strain_limit_sweep(cloth *c, double h);

#endif
