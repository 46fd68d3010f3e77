/* sb_world_def.rigid_time_scale (Blender's Rigid Body World Speed): rigid bodies live
 * time_scale seconds per second of the world, so a body in free fall drops ½ g (s t)² by world
 * time t; kinematic bodies keep to the world's clock (a target set for world time 1 s is
 * reached then); values out of (0, 100] are refused with a message. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"

static sb_world *make_world(double scale)
{
    sb_world_def wd = sb_default_world_def();
    wd.rigid_time_scale = scale;
    sb_world *w = NULL;
    cr_assert_eq(sb_world_create(&wd, &w), SB_OK, "%s", sb_last_error());
    return w;
}

static sb_body_id add_sphere(sb_world *w, int type, double z)
{
    sb_body_def d = sb_default_body_def();
    d.type = type, d.shape = SB_SHAPE_SPHERE, d.radius = 0.5, d.center[2] = z;
    sb_body_id id;
    cr_assert_eq(sb_world_add_body(w, &d, &id), SB_OK, "%s", sb_last_error());
    return id;
}

Test(rigid_time_scale, a_falling_body_lives_scaled_time_and_kinematic_bodies_keep_the_worlds)
{
    const double g = 9.81, t = 0.75;
    double scales[] = {1.0, 2.0, 0.5};
    for (int i = 0; i < 3; i++) {
        double s = scales[i];
        sb_world *w = make_world(s);
        sb_body_id ball = add_sphere(w, SB_BODY_DYNAMIC, 100.0);
        sb_body_id pusher = add_sphere(w, SB_BODY_KINEMATIC, -100.0);
        double shift[16] = {1, 0, 0, 3.0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
        cr_assert_eq(sb_body_set_target(w, pusher, t, shift), SB_OK, "%s", sb_last_error());
        cr_assert_eq(sb_world_step_to(w, t), SB_OK, "%s", sb_last_error());
        sb_body_state b, k;
        cr_assert_eq(sb_body_get_state(w, ball, &b), SB_OK);
        cr_assert_eq(sb_body_get_state(w, pusher, &k), SB_OK);
        double drop = 100.0 - b.position[2], expected = 0.5 * g * (s * t) * (s * t);
        printf("rigid_time_scale %.1f: fell %.6f m by world time %.2f s (½ g (s t)² = %.6f m), speed %.4f m/s "
               "(g s t = %.4f); kinematic body at x = %.6f m\n", s, drop, t, expected, -b.linear_velocity[2],
               g * s * t, k.position[0]);
        cr_assert(fabs(drop - expected) < 1e-9 * expected, "fell %.12g m, expected %.12g", drop, expected);
        cr_assert(fabs(-b.linear_velocity[2] - g * s * t) < 1e-9, "speed %g", -b.linear_velocity[2]);
        cr_assert(fabs(k.position[0] - 3.0) < 1e-12, "the kinematic body is at %g, not its target 3", k.position[0]);
        sb_world_destroy(w);
    }
}

Test(rigid_time_scale, values_out_of_range_are_refused)
{
    double bad[] = {0.0, -1.0, NAN, INFINITY, 100.5};
    for (int i = 0; i < 5; i++) {
        sb_world_def wd = sb_default_world_def();
        wd.rigid_time_scale = bad[i];
        sb_world *w = (sb_world *)&wd;
        cr_assert_eq(sb_world_create(&wd, &w), SB_ERROR_INVALID_ARGUMENT, "%g accepted", bad[i]);
        cr_assert_null(w);
        cr_assert_not_null(strstr(sb_last_error(), "rigid_time_scale"), "%s", sb_last_error());
    }
    cr_assert_eq(sb_default_world_def().rigid_time_scale, 1.0);
    /* the bodies' own substeps stay bounded: a million at most per world step */
    sb_world_def wd = sb_default_world_def();
    wd.rigid_max_step = wd.max_step / 2e4, wd.rigid_time_scale = 60.0;
    sb_world *w = NULL;
    cr_assert_eq(sb_world_create(&wd, &w), SB_ERROR_INVALID_ARGUMENT);
    cr_assert_not_null(strstr(sb_last_error(), "a million"), "%s", sb_last_error());
}
