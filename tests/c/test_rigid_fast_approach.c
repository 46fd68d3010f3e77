/* A box closing fast on another, many times the contact margin per substep, over frames of
 * several substeps: the contact is found in time whichever substep of the frame it starts in
 * (no overlap deeper than the margin), and the plastic collision shares the momentum. A guard
 * for contacts found less often than every substep: their reach must cover the closing. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>

#include "rigid_fixture.h"

static sb_body_def frictionless_box(double x, double speed)
{
    sb_body_def d = sb_default_body_def();
    d.shape = SB_SHAPE_BOX;
    d.center[0] = x;
    d.half_extents[0] = d.half_extents[1] = d.half_extents[2] = 0.1;
    d.friction = 0.0, d.restitution = 0.0;
    d.linear_velocity[0] = speed;
    return d;
}

Test(rigid_fast_approach, box_closing_fast_on_a_box_is_met_at_any_substep)
{
    const double speed = 6.0; /* 2.5 cm a substep of 1/240 s: five contact margins */
    double deepest = 0.0;
    for (int k = 0; k < 8; k++) {
        sb_world_def wd = sb_default_world_def();
        wd.gravity[2] = 0.0;
        sb_world *w = NULL;
        cr_assert_eq(sb_world_create(&wd, &w), SB_OK, "%s", sb_last_error());
        /* the gap closes at a different substep of the frame for each k */
        double gap = 0.3 + k * 0.0061;
        sb_body_def a = frictionless_box(0.0, speed), b = frictionless_box(0.2 + gap, 0.0);
        sb_body_id ia = rigid_add(w, &a), ib = rigid_add(w, &b);
        for (int frame = 1; frame <= 12; frame++) {
            cr_assert_eq(sb_world_step_to(w, frame / 24.0), SB_OK, "%s", sb_last_error());
            sb_body_state sa = rigid_state(w, ia), sb = rigid_state(w, ib);
            double overlap = 0.2 - (sb.position[0] - sa.position[0]);
            deepest = fmax(deepest, overlap);
            cr_assert(overlap <= wd.contact_margin, "gap %.4f m, frame %d: overlap %.4f m, deeper than the margin %.4f m",
                      gap, frame, overlap, wd.contact_margin);
        }
        sb_body_state sa = rigid_state(w, ia), sb = rigid_state(w, ib);
        /* plastic and frictionless: both at half the speed, the momentum kept */
        cr_assert(fabs(sa.linear_velocity[0] + sb.linear_velocity[0] - speed) < 1e-9 * speed,
                  "momentum %.12g, was %.12g", sa.linear_velocity[0] + sb.linear_velocity[0], speed);
        cr_assert(fabs(sb.linear_velocity[0] - 0.5 * speed) < 1e-3 * speed, "the struck box moves at %.6f m/s, not %.6f",
                  sb.linear_velocity[0], 0.5 * speed);
        sb_world_destroy(w);
    }
    printf("box closing at %.1f m/s on a box: deepest overlap at a frame %.2e m\n", speed, deepest);
}
