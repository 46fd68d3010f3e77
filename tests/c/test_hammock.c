/* Issue 32's hammock, part 1: a 5 kg box dropped 2 cm onto a pinned 0.2 kg cloth, the box feeling
 * the cloth (sb_body_def.feels_cloth), the strain limit off. What holds: the box never takes more
 * energy than it brought and the cloth's fall gave, it stays in the cloth and off the floor, and the
 * cloth never passes through it; since the box is in the cloth's implicit solve (coupled_solve.h),
 * at the default steps its rocking no longer grows (it turned over before) and it sags within 10%
 * of the static calculation below, as with steps of 1/1600 s.
 * Not yet: the strain limit on, rest within 1 mm over 5 s, level within 0.05 rad (it keeps rocking
 * by up to about 0.1 rad at the default steps, 0.06 at 1/1600 s: two_way_coupling.h).
 * The add-on's hammock (below, the Blender scene of the issue): its box, 0.2 m along the trough and
 * 0.2 m tall, is one the cloth cannot hold level (the strips' calculation: d²E/dθ² < 0 about the
 * axis across the trough): it tips and rolls along the trough; a box 0.4 m along it stays near
 * level. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "intersections.h"
#include "testutil.h"
#include "world.h"

static const double FPS = 24.0;
#define SPAN 1.0      /* m, the cloth's side; pinned along x = ±SPAN / 2 */
#define BOX_MASS 5.0  /* kg */
#define CLOTH_MASS 0.2
#define DROP 0.02     /* m, the box's bottom above the cloth at the start */
#define FLOOR_TOP -0.4

static const double BOX_HALF[3] = {0.1, 0.55, 0.05}; /* across the hammock, longer than it is wide */

typedef struct hammock {
    sb_world *w;
    grid_mesh sheet;
    solid_mesh box;
    int32_t *pins;
    sb_body_id body;
} hammock;

static hammock build_hammock(int32_t n, double max_step)
{
    hammock h = {.sheet = grid_mesh_make(n, SPAN, 0.0)};
    sb_world_def wd = sb_default_world_def();
    wd.max_step = max_step;
    cr_assert_eq(sb_world_create(&wd, &h.w), SB_OK, "%s", sb_last_error());
    sb_cloth_def cd = grid_cloth_def(&h.sheet);
    cd.density = CLOTH_MASS / (SPAN * SPAN);
    h.pins = malloc(2 * (size_t)n * sizeof *h.pins);
    for (int32_t j = 0; j < n; j++) h.pins[2 * j] = j * n, h.pins[2 * j + 1] = j * n + n - 1;
    cd.pin_count = 2 * n, cd.pins = h.pins;
    cd.max_stretch = cd.max_compression = 0.0; /* with it, the box is thrown back up (two_way_coupling.h) */
    sb_cloth_id sheet_id;
    cr_assert_eq(sb_world_add_cloth(h.w, &cd, &sheet_id), SB_OK, "%s", sb_last_error());
    double center[3] = {0.0, 0.0, BOX_HALF[2] + cd.thickness + DROP};
    sb_body_def d = sb_default_body_def();
    d.shape = SB_SHAPE_BOX, d.mass = BOX_MASS, d.feels_cloth = 1;
    memcpy(d.half_extents, BOX_HALF, sizeof d.half_extents);
    memcpy(d.center, center, sizeof center);
    cr_assert_eq(sb_world_add_body(h.w, &d, &h.body), SB_OK, "%s", sb_last_error());
    h.box = box_mesh(BOX_HALF, center);
    sb_collider_def def = solid_collider_def(&h.box);
    sb_collider_id id;
    cr_assert_eq(sb_world_add_collider(h.w, &def, &id), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_collider_follow_body(h.w, id, h.body), SB_OK, "%s", sb_last_error());
    sb_body_def floor = sb_default_body_def();
    floor.type = SB_BODY_STATIC, floor.shape = SB_SHAPE_BOX;
    floor.half_extents[0] = floor.half_extents[1] = 2.0, floor.half_extents[2] = 0.05;
    floor.center[2] = FLOOR_TOP - 0.05;
    sb_body_id floor_id;
    cr_assert_eq(sb_world_add_body(h.w, &floor, &floor_id), SB_OK, "%s", sb_last_error());
    return h;
}

static void free_hammock(hammock *h)
{
    sb_world_destroy(h->w);
    grid_mesh_free(&h->sheet);
    solid_mesh_free(&h->box);
    free(h->pins);
}

/* The static sag s of the box's bottom below the pins, in the plane across the hammock: the
 * strip under the bottom face sticks to it unstretched, each free side (rest length l0 =
 * SPAN/2 - half width, width W) pulls with T = k W (ℓ - l0) / l0 along ℓ = √(l0² + s²), and
 * m g = 2 T s / ℓ, whose right side grows with s: bisection. (The cloth's own weight left out.) */
static double static_sag(double weight, double k, double width, double l0)
{
    double lo = 0.0, hi = 10.0 * l0;
    for (int i = 0; i < 200; i++) {
        double s = 0.5 * (lo + hi), l = hypot(l0, s);
        double lift = 2.0 * k * width * (l - l0) / l0 * s / l;
        *(lift < weight ? &lo : &hi) = s;
    }
    return 0.5 * (lo + hi);
}

Test(hammock, the_static_sag_meets_the_shallow_limit)
{
    /* shallow: ℓ - l0 ≈ s² / (2 l0), so m g = k W s³ / l0³ */
    double k = 2000.0, width = 1.0, l0 = 0.4, weight = 1e-6 * k * width;
    double expected = l0 * cbrt(weight / (k * width));
    cr_assert_float_eq(static_sag(weight, k, width, l0), expected, 1e-3 * expected);
}

static double cloth_height(const cloth *c)
{
    double mz = 0.0, m = 0.0;
    for (int32_t i = 0; i < c->model.vertex_count; i++) mz += c->model.mass[i] * c->state.x[3 * (size_t)i + 2], m += c->model.mass[i];
    return mz / m;
}

typedef struct hammock_run {
    double given;    /* J, the most the box held beyond what it brought and the cloth's fall gave */
    double sag;      /* m, the box's bottom below the pins, mean over the last second */
    double tilt;     /* rad, the most the box's vertical leaned over the run */
    double early_tilt, late_tilt; /* rad, the same over its first and its second half (logged) */
} hammock_run;

/* Drops the box into a 15² hammock for `frames`, checking every frame that the box takes no energy
 * from nowhere, stays off the floor and out of the cloth. */
static hammock_run drop_into_hammock(double max_step, int frames)
{
    hammock h = build_hammock(15, max_step);
    const cloth *c = h.w->cloths[0];
    double g = -h.w->def.gravity[2], cloth_mass = 0.0;
    for (int32_t i = 0; i < c->model.vertex_count; i++) cloth_mass += c->model.mass[i];
    sb_body_state s;
    sb_body_get_state(h.w, h.body, &s);
    double box_energy0 = s.kinetic_energy + BOX_MASS * g * s.position[2], cloth_z0 = cloth_height(c);
    hammock_run run = {.given = -INFINITY};
    int sag_frames = 0;
    for (int f = 1; f <= frames; f++) {
        cr_assert_eq(sb_world_step_to(h.w, f / FPS), SB_OK, "frame %d: %s", f, sb_last_error());
        sb_body_get_state(h.w, h.body, &s);
        /* the box and the cloth start still and unstretched, and the cloth's damping only takes:
         * the box holds at most what it brought and what gravity gave the cloth since */
        double box_energy = s.kinetic_energy + BOX_MASS * g * s.position[2];
        double given = box_energy - box_energy0 - cloth_mass * g * (cloth_z0 - cloth_height(c));
        run.given = fmax(run.given, given);
        cr_assert_leq(given, 1e-9 * BOX_MASS * g, "frame %d: the box took %.3g J from nowhere", f, given);
        double bottom = s.position[2] - BOX_HALF[2];
        cr_assert_gt(bottom, FLOOR_TOP, "frame %d: the box fell through the hammock (bottom at %.3f m)", f, bottom);
        cr_assert_eq(count_intersections(h.w->cloths, 1, h.w->colliders, 1, false), 0, "frame %d", f);
        if (f > frames - (int)FPS) run.sag += -bottom, sag_frames++;
        /* the angle between the box's vertical and the world's: w² - x² - y² + z² = its cosine */
        const double *q = s.orientation;
        double tilt = acos(fmin(1.0, fabs(q[0] * q[0] - q[1] * q[1] - q[2] * q[2] + q[3] * q[3])));
        run.tilt = fmax(run.tilt, tilt);
        if (2 * f > frames) run.late_tilt = fmax(run.late_tilt, tilt);
        else run.early_tilt = fmax(run.early_tilt, tilt);
    }
    run.sag /= sag_frames;
    free_hammock(&h);
    return run;
}

static double expected_sag(void)
{
    return static_sag(BOX_MASS * 9.81, 2000.0, SPAN, 0.5 * SPAN - BOX_HALF[0]);
}

/* At the default steps (up to a frame) the box rebounds almost to the pins on its first bounce and
 * then rocks by up to 0.04-0.1 rad (with the cloth's friction or the edges' spring changed, or the
 * round-off of the solve: the rocking is chaotic) without growing: over 10 s it stays within its
 * first bounce's 0.095 rad (it grew by e every 0.15 s, and the box turned over, while the cloth's
 * contacts pushed it a step late: two_way_coupling.h). Over the sixth second the sag is the static
 * calculation's +7.1% (measured; +7.4% to +10.3% with other frictions), the box still bouncing by a
 * few millimetres. */
Test(hammock, a_box_dropped_into_a_pinned_hammock_takes_no_energy_and_its_rocking_does_not_grow, .timeout = 120)
{
    hammock_run run = drop_into_hammock(sb_default_world_def().max_step, test_quick() ? 12 : 144);
    double expected = expected_sag();
    cr_log_info("hammock at the default steps: the box took %.3g J at most beyond its own and the cloth's fall; "
                "over the last second mean sag %.4f m against a static %.4f m (%+.1f%%); tilted up to %.3f rad over "
                "the first half, %.3f rad over the last",
                run.given, run.sag, expected, 100.0 * (run.sag / expected - 1.0), run.early_tilt, run.late_tilt);
    if (test_quick()) return; /* still falling onto the cloth */
    cr_assert_lt(fabs(run.sag / expected - 1.0), 0.1, "sag %.4f m, static %.4f m", run.sag, expected);
    cr_assert_lt(run.tilt, 0.15, "the box tilted by %.3f rad", run.tilt);
}

/* With steps of 1/1600 s the box sags over the third second as the static calculation says (measured
 * +2.9% to +3.6%) and rocks by at most 0.011 to 0.057 rad (the round-off of the solve decides; up to
 * 0.066 rad over 7 s, not growing): its rocking, as at the default steps, does not depend on the step,
 * and was 0.004 rad before the box was in the cloth's solve (two_way_coupling.h). */
Test(hammock, with_short_steps_the_hammock_sags_as_its_stiffness_says, .timeout = 120)
{
    hammock_run run = drop_into_hammock(1.0 / 1600.0, test_quick() ? 4 : 72);
    double expected = expected_sag();
    cr_log_info("hammock at 1/1600 s steps: mean sag %.4f m over the last second against a static %.4f m (%+.1f%%); "
                "tilted up to %.3f rad; the box took %.3g J at most beyond its own and the cloth's fall",
                run.sag, expected, 100.0 * (run.sag / expected - 1.0), run.tilt, run.given);
    if (test_quick()) return; /* the box has not landed yet */
    cr_assert_lt(fabs(run.sag / expected - 1.0), 0.1, "sag %.4f m, static %.4f m", run.sag, expected);
    cr_assert_lt(run.tilt, 0.1, "the box tilted by %.3f rad", run.tilt);
}

/* Issue 32's hammock as the add-on bakes it (the Blender scene of the issue): a 5 kg box dropped
 * 5 cm into a 1.2 m hammock of 21² vertices pinned along x = ±0.6, SimBake's default cloth as the
 * add-on maps it (props.py: 0.15 kg/m², stretch 2000 N/m, shear 200 N/m, damping 0.01 s, friction
 * 0.5, max compression 0, max stretch as given), the box's friction 0.5, steps of up to a frame.
 * Checked every frame: the box never holds more energy than it brought and the cloth's fall gave;
 * once landed (frame 8) its centre stays below `ceiling` and above the cloth's lowest reach; the cloth
 * never passes through it (every sixth frame: the count takes longer than the frame). */
typedef struct addon_hammock_run {
    double given;          /* J, the most the box held beyond what it brought and the cloth's fall gave */
    double lowest, highest; /* m, its centre after landing (the pins at 0) */
    double tilt;           /* rad, the most its vertical leaned */
} addon_hammock_run;

static addon_hammock_run drop_into_addon_hammock(const double half[3], double max_stretch, double ceiling, int frames)
{
    const double span = 1.2, box_mass = 5.0;
    addon_hammock h = addon_hammock_make(21, half, 0.05);
    h.cloth.max_stretch = max_stretch;
    sb_world_def wd = sb_default_world_def();
    wd.max_step = 1.0 / FPS;
    sb_world *w;
    cr_assert_eq(sb_world_create(&wd, &w), SB_OK, "%s", sb_last_error());
    cr_assert(addon_hammock_add(w, &h), "%s", sb_last_error());
    sb_body_id body = h.body;

    const cloth *c = w->cloths[0];
    double g = -w->def.gravity[2], cloth_mass = 0.0;
    for (int32_t i = 0; i < c->model.vertex_count; i++) cloth_mass += c->model.mass[i];
    sb_body_state s;
    sb_body_get_state(w, body, &s);
    double box_energy0 = s.kinetic_energy + box_mass * g * s.position[2], cloth_z0 = cloth_height(c);
    addon_hammock_run run = {.given = -INFINITY, .lowest = INFINITY, .highest = -INFINITY};
    for (int f = 1; f <= frames; f++) {
        cr_assert_eq(sb_world_step_to(w, f / FPS), SB_OK, "frame %d: %s", f, sb_last_error());
        sb_body_get_state(w, body, &s);
        double given = s.kinetic_energy + box_mass * g * s.position[2] - box_energy0 -
                       cloth_mass * g * (cloth_z0 - cloth_height(c));
        run.given = fmax(run.given, given);
        cr_assert_leq(given, 1e-9 * box_mass * g, "frame %d: the box took %.3g J from nowhere", f, given);
        if (f % 6 == 0)
            cr_assert_eq(count_intersections(w->cloths, 1, w->colliders, 1, false), 0, "frame %d", f);
        const double *q = s.orientation;
        run.tilt = fmax(run.tilt, acos(fmin(1.0, fabs(q[0] * q[0] - q[1] * q[1] - q[2] * q[2] + q[3] * q[3]))));
        if (f < 8) continue; /* the box lands in frames 4-8 */
        run.lowest = fmin(run.lowest, s.position[2]), run.highest = fmax(run.highest, s.position[2]);
        cr_assert_lt(s.position[2], ceiling, "frame %d: the box was thrown out of the hammock (centre %.3f m)", f, s.position[2]);
        cr_assert_gt(s.position[2], -0.5 * span, "frame %d: the box fell out of the hammock (centre %.3f m)", f, s.position[2]);
    }
    sb_world_destroy(w);
    addon_hammock_free(&h);
    return run;
}

/* The add-on's box, 0.3 x 0.2 x 0.2 m, with the strain limit at 10%, stays below the pins. Its rounds (world_step.c)
 * credited the box, round after round, the momentum of the vertices they pulled up into it and the
 * response pushed back out: 122 J within frame 8, the box thrown 2.6 m up. The box now takes from
 * them at most what stops it along them (coupling_push_bodies): it never holds more energy than it
 * brought and the cloth's fall gave, and stays in the cloth (checked over 2 s; 3 s pass too). It
 * tilts by up to 1.57 rad, as with the strain limit off: along the trough the cloth cannot hold this
 * box level (the strips' calculation below: d²E/dθ² = -3.1 J/rad²), it rolls (two_way_coupling.h). */
Test(hammock, a_box_in_a_strain_limited_hammock_of_the_add_ons_default_cloth_is_not_thrown_out, .timeout = 300)
{
    const double half[3] = {0.15, 0.1, 0.1};
    /* 2 s, 29 s of CPU with the pinch steps' speed cap (world_step.c; 12 s before) */
    addon_hammock_run run = drop_into_addon_hammock(half, 0.1, 0.0, test_quick() ? 10 : 48);
    cr_log_info("the add-on's hammock: the box took %.3g J at most beyond its own and the cloth's fall; after landing "
                "its centre between %.3f and %.3f m (the pins at 0); tilted up to %.2f rad",
                run.given, run.lowest, run.highest, run.tilt);
}

/* Whether the cloth can hold a box level about the axis across the trough (x: the box tilting
 * along the trough, y), in the strips' picture of static_sag: the strip of width dy under the box's
 * bottom face at y (W wide along y) holds it with the force per width f(s) = 2 k (ℓ - l0) / l0 s / ℓ
 * of its depth s below the pins, the derivative of its energy e(s) = k (ℓ - l0)² / l0. Tilted by θ
 * with its bottom face's centre at depth s, the box's energy is
 *     E(s, θ) = ∫ e(s - y sin θ) dy (y over ±W/2) + m g (h cos θ - s),
 * h its centre's height above its bottom face; minimised over s (the sag follows), at θ = 0
 *     d²E/dθ² = f'(s0) W³ / 12 - m g h,   W f(s0) = m g,
 * (∂²E/∂s∂θ = 0 by symmetry). Negative: the level box is unstable, it tips and rolls along the
 * trough. The cloth beside the box (its shear, the tension along y of the dent) is left out. */
static double strip_force(double s, double k, double l0)
{
    double l = hypot(l0, s);
    return 2.0 * k * (l - l0) / l0 * s / l;
}

static double strip_energy(double s, double k, double l0)
{
    double l = hypot(l0, s);
    return k * (l - l0) * (l - l0) / l0;
}

static double strip_rocking_stiffness(double mass, double g, double k, double width, double l0, double height)
{
    double s0 = static_sag(mass * g, k, width, l0), ds = 1e-6 * s0;
    double stiffness = (strip_force(s0 + ds, k, l0) - strip_force(s0 - ds, k, l0)) / (2.0 * ds);
    return stiffness * width * width * width / 12.0 - mass * g * height;
}

/* E(s, θ) above, by Simpson's rule over y, minimised over s by golden section */
static double tilted_box_energy(double theta, double mass, double g, double k, double width, double l0, double height)
{
    const int parts = 400;
    double lo = 0.0, hi = l0, phi = 0.5 * (sqrt(5.0) - 1.0), best = INFINITY;
    for (int it = 0; it < 200; it++) {
        double probe[2] = {hi - phi * (hi - lo), lo + phi * (hi - lo)}, e[2];
        for (int p = 0; p < 2; p++) {
            double sum = 0.0, dy = width / parts;
            for (int q = 0; q <= parts; q++) {
                double y = -0.5 * width + q * dy, weight = q == 0 || q == parts ? 1.0 : q % 2 ? 4.0 : 2.0;
                sum += weight * strip_energy(probe[p] - y * sin(theta), k, l0);
            }
            e[p] = sum * dy / 3.0 + mass * g * (height * cos(theta) - probe[p]);
        }
        if (e[0] < e[1]) hi = probe[1];
        else lo = probe[0];
        best = fmin(e[0], e[1]);
    }
    return best;
}

/* The closed form against the energy itself (second difference of E minimised over the sag), for
 * the add-on's box and for one twice as long along the trough: the add-on's is unstable (-3.07
 * J/rad²: f' = 2748 N/m², the strips give 1.83 J/rad², its weight 4.91), the long one stable (+4.95). */
Test(hammock, the_strips_rocking_stiffness_meets_the_second_difference_of_their_energy)
{
    const double k = 2000.0, g = 9.81, mass = 5.0, l0 = 0.6 - 0.15, height = 0.1, widths[2] = {0.2, 0.4};
    double stiffness[2];
    for (int b = 0; b < 2; b++) {
        double w = widths[b], dt = 1e-2;
        stiffness[b] = strip_rocking_stiffness(mass, g, k, w, l0, height);
        double second = (tilted_box_energy(dt, mass, g, k, w, l0, height) - 2.0 * tilted_box_energy(0.0, mass, g, k, w, l0, height) +
                         tilted_box_energy(-dt, mass, g, k, w, l0, height)) / (dt * dt);
        cr_log_info("box %.1f m along the trough: d²E/dθ² %.4f J/rad², second difference %.4f", w, stiffness[b], second);
        cr_assert_float_eq(second, stiffness[b], 1e-2 * fabs(stiffness[b]) + 1e-3, "width %.1f: %.5f against %.5f", w,
                           second, stiffness[b]);
    }
    cr_assert_lt(stiffness[0], 0.0);
    cr_assert_gt(stiffness[1], 0.0);
}

/* A box the strips hold level (0.3 x 0.4 x 0.2 m, d²E/dθ² = +4.95 J/rad² above) in the add-on's
 * hammock with the strain limit off stays near level: tilts of 0.055 rad over 3 s were measured
 * (0.045 to 0.19 with the drop or its start moved by millimetres; 1.54 for the add-on's box, which
 * the strips cannot hold). Not yet: placed touching the cloth instead of dropped it tilts by up
 * to 0.6-0.8 rad, fed by the edge contacts (coupled_solve.h) at the bottom of its first plunge
 * (two_way_coupling.h). */
Test(hammock, a_box_the_cloth_can_hold_level_stays_level_in_the_add_ons_hammock, .timeout = 120)
{
    const double half[3] = {0.15, 0.2, 0.1};
    /* without the strain limit the cloth throws it back almost to where it was dropped from */
    addon_hammock_run run = drop_into_addon_hammock(half, 0.0, half[2] + 0.05, test_quick() ? 10 : 72);
    cr_log_info("a box 0.3 x 0.4 x 0.2 m in the add-on's hammock: tilted up to %.3f rad; the box took %.3g J at most "
                "beyond its own and the cloth's fall; after landing its centre between %.3f and %.3f m",
                run.tilt, run.given, run.lowest, run.highest);
    cr_assert_lt(run.tilt, 0.3, "the box tilted by %.3f rad", run.tilt);
}
