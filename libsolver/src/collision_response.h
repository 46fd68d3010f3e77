/* Collision response after the implicit solve (Bridson, Fedkiw & Anderson 2002): the step
 * moves every cloth vertex in a straight line from x (start) to x_new (candidate end), and
 * every collider vertex likewise. Then
 *   1. proximity: features of different objects (or distant parts of one cloth with self
 *      collision) that end closer than their thicknesses are pushed apart, with friction; of a
 *      collider, only its faces and its sharp edges and vertices (collider.h): along smooth
 *      parts the cloth's vertices held off the faces hold its edges off as well; where a cloth
 *      limits its strain, the pushes and the limits' projection in turn until both hold;
 *   2. continuous detection (vertex-face, edge-edge) along those straight paths finds every
 *      crossing; each gets an inelastic impulse, with friction; repeated a few rounds;
 *   3. rigid impact zones, the failsafe: vertices of remaining collisions are merged into
 *      zones that move rigidly (a zone holding pinned or collider vertices follows their
 *      motion, fitted as a rigid transform), until no collision is left.
 * Impulses change the average velocity of the step; the end velocity changes as much.
 * Starting free of intersections, every step ends free of them. */
#ifndef SB_COLLISION_H
#define SB_COLLISION_H

#include <stdint.h>

#include "cloth.h"
#include "collider.h"

typedef struct collision_report {
    int32_t proximity;   /* pairs pushed apart */
    int32_t impulses;    /* continuous collisions resolved by impulses */
    int32_t zone_rounds; /* rounds of impact zones needed (0 when impulses sufficed) */
    int32_t unresolved;  /* collisions left (only with non-rigidly moving pins/colliders) */
    bool needs_zones;    /* impulses left collisions and zones were not allowed: nothing written */
    double pairs_seconds; /* wall clock spent gathering and updating the candidate pairs */
} collision_report;

typedef struct collision_scratch collision_scratch;

void collision_scratch_free(collision_scratch *s);

/* Resolves collisions of the step [t, t + h] in place in each cloth's x_new and v_new.
 * Colliders must be prepared for the step. When impulses leave collisions and `allow_zones`
 * is false, it stops there, changes nothing and sets report->needs_zones: the caller is to
 * retry a shorter step. Marks the vertices it moved in each cloth's state.collided (added to
 * the marks there with keep_collided). A cloth that limits its strain has its limits projected
 * together with the proximity pass, each vertex as its scratch.held says (the pass makes the
 * free ones it pushes heavy; cloth_strain_limit.h). False only when out of memory. */
bool collisions_resolve(collision_scratch **scratch, cloth *const *cloths, int32_t cloth_count,
                        collider *const *colliders, int32_t collider_count, double h, bool allow_zones,
                        bool keep_collided, collision_report *report);

/* Pairs the response skips from now on while `plan` pulls tangles apart (untangle.h); false
 * when out of memory. */
struct untangle_plan;
bool collisions_set_untangle(collision_scratch **scratch, const struct untangle_plan *plan);

/* Whether impulse rounds that took the collisions from `before` to `hits` could, shrinking at
 * that rate, end them within the rounds left after `done` (of IMPULSE_ROUNDS, 8): hits ·
 * rate^k <= 1 takes k = ln hits / ln(before / hits) more. */
bool impulses_can_finish(int32_t before, int32_t hits, int32_t done);

#endif
