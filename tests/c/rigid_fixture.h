/* Criterion helpers of the rigid-body tests: a world, a body added, its state read, each
 * asserting SB_OK with the library's message. */
#ifndef SB_RIGID_FIXTURE_H
#define SB_RIGID_FIXTURE_H

#include <criterion/criterion.h>
#include <math.h>

#include "simbake.h"

/* A world with the library's defaults (gravity -9.81 along z). */
static inline sb_world *rigid_world(void)
{
    sb_world_def wd = sb_default_world_def();
    sb_world *w = NULL;
    cr_assert_eq(sb_world_create(&wd, &w), SB_OK, "%s", sb_last_error());
    return w;
}

static inline sb_body_id rigid_add(sb_world *w, const sb_body_def *d)
{
    sb_body_id id;
    cr_assert_eq(sb_world_add_body(w, d, &id), SB_OK, "%s", sb_last_error());
    return id;
}

static inline sb_body_state rigid_state(sb_world *w, sb_body_id id)
{
    sb_body_state s;
    cr_assert_eq(sb_body_get_state(w, id, &s), SB_OK, "%s", sb_last_error());
    return s;
}

/* A capsule, cylinder or cone of radius r and half height `half` along its local z. */
static inline sb_body_def round_solid(sb_shape shape, double x, double y, double z, double r, double half,
                                      const double q[4])
{
    sb_body_def d = sb_default_body_def();
    d.shape = shape;
    d.center[0] = x, d.center[1] = y, d.center[2] = z;
    d.radius = r, d.half_extents[2] = half;
    for (int k = 0; k < 4; k++) d.rotation[k] = q[k];
    return d;
}

/* A static compound of two capsule rails along y (radius 0.2 m, core 2 m) at x = 2.7 and 3.3,
 * their tops at z = 0.4: a box 0.2 m thick resting across them has its centre at z = 0.5. */
static inline sb_body_id add_capsule_rails(sb_world *w)
{
    sb_body_part rails[2] = {sb_default_body_part(), sb_default_body_part()};
    for (int k = 0; k < 2; k++) {
        rails[k].shape = SB_SHAPE_CAPSULE, rails[k].radius = 0.2, rails[k].half_extents[2] = 1.0;
        rails[k].center[0] = 3.0 + (k ? 0.3 : -0.3), rails[k].center[2] = 0.2;
        const double eighth_turn = 0.78539816339744830962; /* z turned onto y about x by a quarter turn */
        rails[k].rotation[0] = cos(eighth_turn), rails[k].rotation[1] = -sin(eighth_turn);
        rails[k].rotation[2] = rails[k].rotation[3] = 0.0;
    }
    sb_body_def holder = sb_default_body_def();
    holder.type = SB_BODY_STATIC, holder.shape = SB_SHAPE_COMPOUND, holder.part_count = 2, holder.parts = rails;
    return rigid_add(w, &holder);
}

#endif
