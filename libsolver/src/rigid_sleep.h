/* Sleeping islands (Blender's Deactivation; Bullet's btRigidBody::updateDeactivation and its
 * island manager; Box2D v3's solver sets): bodies that have been slow long enough sleep an
 * island at a time, and a sleeping island costs nothing per step: the broad phase still sees
 * its bounds (so that what comes near it wakes it), but no pair of it is tested for contact,
 * no row solved, no body moved.
 *
 * Rules, per rigid substep of length h:
 *   - an awake dynamic body with deactivation on and |v| < v_lin and |ω| < v_ang (strictly, as
 *     Bullet's squared test) adds h to its still time, else its still time is 0;
 *   - after the step, an island (awake dynamic bodies joined by contacts and joints this step)
 *     whose every body has deactivation on and a still time of at least its deactivate_time
 *     falls asleep: its velocities are set to zero and each body takes the island's group
 *     (the smallest body index in it);
 *   - before the step's contacts are solved, a group wakes (velocities from zero) when the
 *     narrow phase finds a contact between one of its bodies and an awake dynamic body or a
 *     kinematic body that moves this step, or when a joint holds one of its bodies to such a
 *     body; every sleeping body whose bounds overlap a woken body's wakes with it, and so on
 *     (Bullet joins islands by overlapping bounds). The step's contacts are then found again
 *     with the woken bodies in it;
 *   - a body touched (or held) by a moving kinematic body wakes with still time 0 (Bullet's
 *     activate(): ACTIVE_TAG, m_deactivationTime = 0); every other woken body wakes ready, with
 *     a still time of deactivate_time (Bullet's buildIslands: WANTS_DEACTIVATION, for which
 *     wantsSleeping() is true whatever the timer), and stays ready until it moves faster than
 *     its thresholds. So a woken body that stays slow sleeps again as soon as no body in its
 *     island is unready, without waiting deactivate_time again. */
#ifndef SB_RIGID_SLEEP_H
#define SB_RIGID_SLEEP_H

#include "rigid_scratch.h"

/* A pair of sleeping bodies whose bounds overlap, seen by the broad phase: kept for waking. */
bool rigid_sleep_note_pair(rigid_scratch *s, int32_t a, int32_t b);
/* Wakes the groups that the step's manifolds and joints touch (see above), flags each body woken
 * in s->woken; the number woken. */
int32_t rigid_sleep_wake(rigid_system *sys, rigid_scratch *s);
/* After the step: still times, and the islands that fall asleep. */
void rigid_sleep_update(rigid_system *sys, rigid_scratch *s, double h);
/* Bodies asleep now. */
int32_t rigid_sleep_count(const rigid_system *sys);

#endif
