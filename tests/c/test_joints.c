/* Joints (sb_world_add_joint): pendulums on a hinge and on a point joint swing with the
 * physical pendulum's period and never gain energy; a chain of point joints keeps its links
 * together; a fixed joint makes two boxes one rigid body; a hinge limit stops the swing; a
 * breakable joint breaks above its threshold and holds below; joints keep their bodies from
 * colliding when asked; a saved world with broken joints resumes bit for bit; bad
 * definitions are refused with a message. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define PI 3.14159265358979323846
static const double G = 9.81;

static sb_world *make_world(double gravity)
{
    sb_world_def wd = sb_default_world_def();
    wd.gravity[2] = -gravity;
    sb_world *w = NULL;
    cr_assert_eq(sb_world_create(&wd, &w), SB_OK, "%s", sb_last_error());
    return w;
}

static sb_body_id add_box(sb_world *w, int type, double x, double y, double z, double hx, double hy, double hz,
                          double mass)
{
    sb_body_def d = sb_default_body_def();
    d.type = type, d.shape = SB_SHAPE_BOX, d.mass = mass;
    d.center[0] = x, d.center[1] = y, d.center[2] = z;
    d.half_extents[0] = hx, d.half_extents[1] = hy, d.half_extents[2] = hz;
    sb_body_id id;
    cr_assert_eq(sb_world_add_body(w, &d, &id), SB_OK, "%s", sb_last_error());
    return id;
}

static sb_joint_id add_joint(sb_world *w, sb_joint_def d)
{
    sb_joint_id id;
    cr_assert_eq(sb_world_add_joint(w, &d, &id), SB_OK, "%s", sb_last_error());
    return id;
}

static sb_body_state state_of(sb_world *w, sb_body_id b)
{
    sb_body_state s;
    cr_assert_eq(sb_body_get_state(w, b, &s), SB_OK, "%s", sb_last_error());
    return s;
}

/* Where a point p of body b when it was added is now. */
static void moved_point(sb_world *w, sb_body_id b, const double p[3], double out[3])
{
    double m[16];
    cr_assert_eq(sb_body_get_transform(w, b, m), SB_OK);
    for (int r = 0; r < 3; r++) out[r] = m[4 * r] * p[0] + m[4 * r + 1] * p[1] + m[4 * r + 2] * p[2] + m[4 * r + 3];
}

static double distance(const double a[3], const double b[3])
{
    return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

/* A rod (box 2h x 2h x 2 half) hanging from the world at its top end (0, 0, 0), turned out
 * by `angle` about y; swings until `seconds`. Period from the times x crosses 0 going the
 * same way; energy relative to the start, its largest rise, and the pivot's largest gap. */
typedef struct swing { double period, energy_rise, energy_end, gap, peak_first, peak_last; } swing;

static swing swing_pendulum(sb_joint_type type, sb_body_id (*hang)(sb_world *, double, double), double angle,
                            double seconds, double *expected_period)
{
    double half = 0.5, thin = 0.02, mass = 2.0;
    sb_world *w = make_world(G);
    sb_body_def d = sb_default_body_def();
    d.shape = SB_SHAPE_BOX, d.mass = mass;
    d.half_extents[0] = thin, d.half_extents[1] = thin, d.half_extents[2] = half;
    d.center[0] = half * sin(angle), d.center[2] = -half * cos(angle);
    d.rotation[0] = cos(angle / 2), d.rotation[2] = -sin(angle / 2); /* its top end at the origin */
    sb_body_id rod;
    cr_assert_eq(sb_world_add_body(w, &d, &rod), SB_OK, "%s", sb_last_error());
    sb_joint_def j = sb_default_joint_def();
    j.type = type, j.body_a = rod;
    j.rotation[0] = sqrt(0.5), j.rotation[1] = sqrt(0.5); /* frame z = world -y: the hinge turns about y */
    if (hang) j.body_b = hang(w, 0.0, 0.0);
    add_joint(w, j);
    /* I about the pivot: m/3 (thin² + half²) + m half² */
    double inertia = mass / 3.0 * (thin * thin + half * half) + mass * half * half;
    *expected_period = 2.0 * PI * sqrt(inertia / (mass * G * half));
    double top[3] = {0, 0, 0}, now[3];
    double e0 = 0.0, rise = 0.0, energy = 0.0, gap = 0.0, last_x = 0.0, first = -1.0, last = -1.0;
    double peak = -INFINITY, peak_first = NAN, peak_last = NAN;
    int crossings = 0;
    double dt = 1.0 / 240.0;
    for (int k = 0; k <= (int)(seconds / dt + 0.5); k++) {
        if (k > 0) cr_assert_eq(sb_world_step_to(w, k * dt), SB_OK, "%s", sb_last_error());
        sb_body_state s = state_of(w, rod);
        energy = s.kinetic_energy + mass * G * s.position[2];
        if (k == 0) e0 = energy;
        rise = fmax(rise, energy - e0);
        peak = fmax(peak, energy);
        moved_point(w, rod, top, now);
        gap = fmax(gap, distance(top, now));
        double x = s.position[0];
        if (k > 0 && last_x > 0.0 && x <= 0.0) { /* downward crossing, interpolated */
            double at = (k - 1 + last_x / (last_x - x)) * dt;
            if (first < 0.0) first = at;
            else if (isnan(peak_first)) peak_first = peak;
            last = at, crossings++;
            peak_last = peak, peak = -INFINITY;
        }
        last_x = x;
    }
    sb_world_destroy(w);
    double scale = fabs(e0 - (-mass * G * half)); /* energy above the rest position */
    return (swing){(last - first) / (crossings - 1), rise / scale, (energy - e0) / scale, gap,
                   (peak_first - e0) / scale, (peak_last - e0) / scale};
}

static sb_body_id hang_on_static(sb_world *w, double x, double z)
{
    return add_box(w, SB_BODY_STATIC, x, 0.0, z + 0.2, 0.1, 0.1, 0.1, 1.0);
}

/* The pendulum's period at amplitude θ0: T0 (1 + θ0²/16 + 11 θ0⁴/3072 + ...). */
static void check_swing(const char *name, swing s, double expected, double amplitude)
{
    expected *= 1.0 + amplitude * amplitude / 16.0 + 11.0 * pow(amplitude, 4) / 3072.0;
    printf("%s: period %.5f s, expected %.5f (%+.3f%%); energy above rest: rises at most %.2e within a swing "
           "(O(h ω)), peak %.3e in the first swing, %.3e in the last, %.3e at the end; pivot gap %.2e m\n", name,
           s.period, expected, 100 * (s.period / expected - 1), s.energy_rise, s.peak_first, s.peak_last,
           s.energy_end, s.gap);
    cr_assert_lt(fabs(s.period / expected - 1.0), 0.002, "period %g s, expected %g s", s.period, expected);
    /* the step's own O(h ω) wobble of the energy within a swing, never a gain from swing to swing */
    cr_assert_lt(s.energy_rise, 0.01, "energy rose by %g of the swing's", s.energy_rise);
    cr_assert_leq(s.peak_last, s.peak_first, "energy grew from %g to %g", s.peak_first, s.peak_last);
    cr_assert_lt(s.energy_end, 0.0, "more energy at the end than at the start: %g", s.energy_end);
    cr_assert_gt(s.energy_end, -0.01 * 10.0, "lost %g of the swing's energy in 10 s", -s.energy_end);
    cr_assert_lt(s.gap, 1e-6, "the pivot drifted %g m apart", s.gap);
}

Test(joints, a_hinge_pendulum_swings_with_the_physical_pendulums_period)
{
    double expected;
    swing s = swing_pendulum(SB_JOINT_HINGE, NULL, 0.1, 10.0, &expected);
    check_swing("hinge to the world", s, expected, 0.1);
}

Test(joints, a_pendulum_on_a_point_joint_to_a_static_body_swings_alike)
{
    double expected;
    swing s = swing_pendulum(SB_JOINT_POINT, hang_on_static, 0.1, 10.0, &expected);
    check_swing("point joint to a static body", s, expected, 0.1);
}

/* A chain of LINKS boxes, each 2 LINK_HALF long, joined end to end by point joints, the first
 * to the world at the origin, starting straight at `tilt` from hanging down (pi/2: sideways). */
enum { LINKS = 10 };
static const double LINK_HALF = 0.1;

static void make_chain(sb_world *w, double tilt, sb_body_id links[LINKS], double pivots[LINKS][3],
                       double breaking_threshold)
{
    double dir[3] = {sin(tilt), 0.0, -cos(tilt)}, turn = 0.5 * (PI / 2 - tilt); /* the box's x along dir */
    for (int i = 0; i < LINKS; i++) {
        sb_body_def d = sb_default_body_def();
        d.shape = SB_SHAPE_BOX, d.mass = 0.5;
        d.half_extents[0] = LINK_HALF, d.half_extents[1] = d.half_extents[2] = 0.02;
        d.rotation[0] = cos(turn), d.rotation[2] = sin(turn);
        for (int k = 0; k < 3; k++) d.center[k] = (2 * i + 1) * LINK_HALF * dir[k], pivots[i][k] = 2 * i * LINK_HALF * dir[k];
        cr_assert_eq(sb_world_add_body(w, &d, &links[i]), SB_OK, "%s", sb_last_error());
        sb_joint_def j = sb_default_joint_def();
        j.body_a = links[i];
        j.body_b = i == 0 ? (sb_body_id){-1} : links[i - 1];
        memcpy(j.pivot, pivots[i], sizeof j.pivot);
        j.breakable = i > 0 && breaking_threshold > 0.0, j.breaking_threshold = breaking_threshold;
        add_joint(w, j);
    }
}

/* The largest gap between the two ends of any joint of the chain. */
static double chain_gap(sb_world *w, const sb_body_id links[LINKS], double pivots[LINKS][3])
{
    double gap = 0.0, on_a[3], on_b[3];
    for (int i = 0; i < LINKS; i++) {
        moved_point(w, links[i], pivots[i], on_a);
        if (i == 0) memcpy(on_b, pivots[0], sizeof on_b);
        else moved_point(w, links[i - 1], pivots[i], on_b);
        gap = fmax(gap, distance(on_a, on_b));
    }
    return gap;
}

static double chain_energy(sb_world *w, const sb_body_id links[LINKS])
{
    double e = 0.0;
    for (int i = 0; i < LINKS; i++) {
        sb_body_state s = state_of(w, links[i]);
        e += s.kinetic_energy + s.mass * G * s.position[2];
    }
    return e;
}

/* Swings the chain for `seconds`: the largest joint gap, the largest energy gain and the
 * energy lost at the end, both as fractions of the energy above hanging straight down. */
static void swing_chain(double tilt, double seconds, double *gap, double *gain, double *lost)
{
    sb_world *w = make_world(G);
    sb_body_id links[LINKS];
    double pivots[LINKS][3];
    make_chain(w, tilt, links, pivots, 0.0);
    double e0 = chain_energy(w, links), dt = 1.0 / 24.0;
    double above = e0 + 0.5 * G * LINKS * LINKS * 2 * LINK_HALF * 0.5; /* Σ m g (2i+1) LINK_HALF, m = 0.5 */
    *gap = *gain = 0.0;
    for (int k = 1; k <= (int)(seconds / dt + 0.5); k++) {
        cr_assert_eq(sb_world_step_to(w, k * dt), SB_OK, "%s", sb_last_error());
        *gap = fmax(*gap, chain_gap(w, links, pivots));
        *gain = fmax(*gain, (chain_energy(w, links) - e0) / above);
    }
    *lost = (e0 - chain_energy(w, links)) / above;
    sb_world_destroy(w);
}

Test(joints, a_chain_of_point_joints_dropped_sideways_keeps_its_links_together)
{
    double gap, gain, lost;
    swing_chain(PI / 2, 10.0, &gap, &gain, &lost);
    printf("chain of %d links dropped sideways, 10 s (2400 substeps): largest joint gap %.2e m, energy gain at most "
           "%.2e, lost %.1f%% (the whip's fast turns, O(h ω²) per second)\n", LINKS, gap, gain, 100 * lost);
    cr_assert_lt(gap, 1e-6, "a joint came %g m apart", gap);
    cr_assert_leq(gain, 1e-6, "the chain gained %g of its energy", gain);
}

Test(joints, a_hanging_chain_swings_keeping_its_links_and_its_energy)
{
    double gap, gain, lost;
    swing_chain(0.3, 10.0, &gap, &gain, &lost);
    printf("chain of %d links swinging from 0.3 rad, 10 s: largest joint gap %.2e m, energy gain at most %.2e, lost "
           "%.2f%% of the swing's\n", LINKS, gap, gain, 100 * lost);
    cr_assert_lt(gap, 1e-6, "a joint came %g m apart", gap);
    cr_assert_leq(gain, 0.01, "the chain gained %g of its energy", gain);
    cr_assert_lt(lost, 0.01 * 10.0, "the chain lost %g of its energy in 10 s", lost);
}

/* A chain of n thin links (10 cm, 0.1 kg) hanging from the world, swinging from 0.3 rad for
 * `seconds`: the largest gap of any joint. */
static double long_chain_gap(int n, double seconds)
{
    sb_world *w = make_world(G);
    sb_body_id *links = malloc((size_t)n * sizeof *links);
    double (*pivots)[3] = malloc((size_t)n * sizeof *pivots), tilt = 0.3, half = 0.05;
    double dir[3] = {sin(tilt), 0.0, -cos(tilt)}, turn = 0.5 * (PI / 2 - tilt);
    for (int i = 0; i < n; i++) {
        sb_body_def d = sb_default_body_def();
        d.shape = SB_SHAPE_BOX, d.mass = 0.1;
        d.half_extents[0] = half, d.half_extents[1] = d.half_extents[2] = 0.01;
        d.rotation[0] = cos(turn), d.rotation[2] = sin(turn);
        for (int k = 0; k < 3; k++) d.center[k] = (2 * i + 1) * half * dir[k], pivots[i][k] = 2 * i * half * dir[k];
        cr_assert_eq(sb_world_add_body(w, &d, &links[i]), SB_OK, "%s", sb_last_error());
        sb_joint_def j = sb_default_joint_def();
        j.body_a = links[i], j.body_b = i == 0 ? (sb_body_id){-1} : links[i - 1];
        memcpy(j.pivot, pivots[i], sizeof j.pivot);
        add_joint(w, j);
    }
    double gap = 0.0, on_a[3], on_b[3];
    for (int f = 1; f <= (int)(seconds * 24 + 0.5); f++) {
        cr_assert_eq(sb_world_step_to(w, f / 24.0), SB_OK, "%s", sb_last_error());
        for (int i = 0; i < n; i++) {
            moved_point(w, links[i], pivots[i], on_a);
            if (i == 0) memcpy(on_b, pivots[0], sizeof on_b);
            else moved_point(w, links[i - 1], pivots[i], on_b);
            gap = fmax(gap, distance(on_a, on_b));
        }
    }
    free(links), free(pivots);
    sb_world_destroy(w);
    return gap;
}

Test(joints, long_chains_hold_pivoted_exactly_and_iteratively_stably)
{
    /* 60 links: 180 rows, pivoted; 120 links: 360 rows, Gauss-Seidel with warm starts and no
       projection (a projection by Gauss-Seidel too pulled such chains apart by metres) */
    double exact = long_chain_gap(60, 3.0), iterative = long_chain_gap(120, 3.0);
    printf("long chains swinging 3 s: 60 links apart at most %.1e m, 120 links %.1e m\n", exact, iterative);
    cr_assert_lt(exact, 1e-9, "60 links came %g m apart", exact);
    cr_assert_lt(iterative, 0.05, "120 links came %g m apart", iterative);
}

Test(joints, a_fixed_joint_makes_two_boxes_one_rigid_body)
{
    /* no gravity: box a spins and moves, box b rests; fixed together they turn as one body */
    sb_world *w = make_world(0.0);
    sb_body_def d = sb_default_body_def();
    d.shape = SB_SHAPE_BOX, d.mass = 1.0;
    d.half_extents[0] = d.half_extents[1] = d.half_extents[2] = 0.25;
    d.angular_velocity[0] = 2.0, d.angular_velocity[2] = 5.0, d.linear_velocity[1] = 1.0;
    sb_body_id a, b;
    cr_assert_eq(sb_world_add_body(w, &d, &a), SB_OK);
    d = sb_default_body_def();
    d.shape = SB_SHAPE_BOX, d.mass = 3.0, d.center[0] = 0.5;
    d.half_extents[0] = d.half_extents[1] = d.half_extents[2] = 0.25;
    cr_assert_eq(sb_world_add_body(w, &d, &b), SB_OK);
    sb_joint_def j = sb_default_joint_def();
    j.type = SB_JOINT_FIXED, j.body_a = a, j.body_b = b, j.pivot[0] = 0.25;
    add_joint(w, j);
    double momentum0[3] = {0, 1.0, 0}; /* of a; b rests */
    double largest = 0.0, ma[16], mb[16];
    for (int k = 1; k <= 48; k++) {
        cr_assert_eq(sb_world_step_to(w, k / 24.0), SB_OK, "%s", sb_last_error());
        cr_assert_eq(sb_body_get_transform(w, a, ma), SB_OK);
        cr_assert_eq(sb_body_get_transform(w, b, mb), SB_OK);
        for (int e = 0; e < 12; e++) largest = fmax(largest, fabs(ma[e] - mb[e])); /* the same motion */
    }
    sb_body_state sa = state_of(w, a), sb = state_of(w, b);
    double rotated = acos(fmin(1.0, fabs(ma[0]))); /* it did turn */
    printf("fixed joint: the two boxes' motions differ by at most %.2e over 2 s (they turned %.2f rad)\n", largest,
           rotated);
    cr_assert_lt(largest, 1e-9, "the boxes moved apart: %g", largest);
    cr_assert_gt(rotated, 0.5);
    for (int k = 0; k < 3; k++)
        cr_assert_lt(fabs(sa.linear_momentum[k] + sb.linear_momentum[k] - momentum0[k]), 1e-9, "momentum changed");
    sb_world_destroy(w);
}

Test(joints, a_hinge_limit_stops_the_swing)
{
    sb_world *w = make_world(G);
    sb_body_def d = sb_default_body_def();
    d.shape = SB_SHAPE_BOX, d.mass = 1.0, d.center[2] = -0.5;
    d.half_extents[0] = d.half_extents[1] = 0.02, d.half_extents[2] = 0.5;
    d.angular_velocity[1] = 6.0, d.linear_velocity[0] = -3.0; /* about the top: enough for about 100° */
    sb_body_id rod;
    cr_assert_eq(sb_world_add_body(w, &d, &rod), SB_OK);
    sb_joint_def j = sb_default_joint_def();
    j.type = SB_JOINT_HINGE, j.body_a = rod;
    j.rotation[0] = sqrt(0.5), j.rotation[1] = sqrt(0.5); /* z along -y */
    j.use_limit[5] = 1, j.lower[5] = -PI / 6, j.upper[5] = PI / 6;
    add_joint(w, j);
    double largest = 0.0, bottom[3] = {0, 0, -1}, at[3];
    for (int k = 1; k <= 240; k++) {
        cr_assert_eq(sb_world_step_to(w, k / 240.0), SB_OK, "%s", sb_last_error());
        moved_point(w, rod, bottom, at);
        largest = fmax(largest, fabs(atan2(at[0], -at[2])));
    }
    printf("hinge limited to ±30°: the rod swung to %.3f°\n", largest * 180 / PI);
    cr_assert_lt(largest, PI / 6 + 1e-3, "swung to %g rad past the limit %g", largest, PI / 6);
    cr_assert_gt(largest, PI / 6 - 1e-2, "never reached the limit: %g", largest);
    sb_world_destroy(w);
}

/* A box hanging from the world on a breakable fixed joint, the threshold `ratio` times the
 * impulse its weight puts on the joint per breaking_step. */
static void hang_breakable(double ratio, int32_t *broken, double *when, double *drop)
{
    sb_world *w = make_world(G);
    double mass = 2.0, step = 1.0 / 60.0;
    sb_body_id box = add_box(w, SB_BODY_DYNAMIC, 0.0, 0.0, -0.2, 0.1, 0.1, 0.1, mass);
    sb_joint_def j = sb_default_joint_def();
    j.type = SB_JOINT_FIXED, j.body_a = box, j.pivot[2] = -0.1;
    j.breakable = 1, j.breaking_step = step, j.breaking_threshold = ratio * mass * G * step;
    sb_joint_id joint = add_joint(w, j);
    cr_assert_eq(sb_world_step_to(w, 1.0), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_joint_get_broken(w, joint, broken, when), SB_OK);
    *drop = -0.2 - state_of(w, box).position[2];
    sb_joint_id listed[2] = {{-7}, {-7}};
    double times[2] = {0, 0};
    int32_t count = -1;
    cr_assert_eq(sb_world_get_broken_joints(w, listed, times, 2, &count), SB_OK);
    cr_assert_eq(count, *broken);
    if (count) cr_assert(listed[0].index == joint.index && times[0] == *when);
    sb_world_destroy(w);
}

Test(joints, a_breakable_joint_breaks_above_its_threshold_and_holds_below)
{
    int32_t broken;
    double when, drop;
    hang_breakable(1.02, &broken, &when, &drop);
    printf("threshold 2%% above the load: broken %d, dropped %.2e m\n", broken, drop);
    cr_assert_eq(broken, 0, "broke at %g s under a load below its threshold", when);
    cr_assert_eq(when, -1.0);
    cr_assert_lt(fabs(drop), 1e-9, "the box moved %g m", drop);
    hang_breakable(0.98, &broken, &when, &drop);
    printf("threshold 2%% below the load: broken %d at %.4f s, dropped %.3f m\n", broken, when, drop);
    cr_assert_eq(broken, 1, "held a load above its threshold");
    cr_assert_lt(when, 0.01, "broke late: %g s", when);
    /* and fell freely from then on */
    cr_assert_lt(fabs(drop - 0.5 * G * (1.0 - when) * (1.0 - when)), 0.01, "dropped %g m", drop);
}

Test(joints, a_slider_moves_along_its_axis_only_and_stops_at_its_limit)
{
    sb_world *w = make_world(G);
    sb_body_id box = add_box(w, SB_BODY_DYNAMIC, 0.0, 0.0, 0.0, 0.1, 0.1, 0.1, 1.0);
    sb_joint_def j = sb_default_joint_def();
    j.type = SB_JOINT_SLIDER, j.body_a = box;
    j.rotation[0] = cos(PI / 8), j.rotation[2] = sin(PI / 8); /* x axis 45° down: (1, 0, -1) / √2 */
    j.use_limit[0] = 1, j.lower[0] = -0.3, j.upper[0] = 0.3;
    add_joint(w, j);
    cr_assert_eq(sb_world_step_to(w, 0.2), SB_OK, "%s", sb_last_error());
    sb_body_state s = state_of(w, box);
    double along = (s.position[0] - s.position[2]) / sqrt(2.0), across = (s.position[0] + s.position[2]) / sqrt(2.0);
    /* a frictionless slope, g/√2, integrated as the step does (x += h v⁺): ½ a t (t + h) */
    double h = 1.0 / 240.0, expected = 0.5 * G / sqrt(2.0) * 0.2 * (0.2 + h);
    printf("slider at 45°: %.5f m along after 0.2 s (%.5f expected), %.1e across\n", along, expected, across);
    cr_assert_lt(fabs(along / expected - 1.0), 1e-9, "%g m along, %g expected", along, expected);
    cr_assert_lt(fabs(across) + fabs(s.position[1]), 1e-9);
    cr_assert_eq(sb_world_step_to(w, 1.0), SB_OK, "%s", sb_last_error());
    s = state_of(w, box);
    along = (s.position[0] - s.position[2]) / sqrt(2.0);
    printf("slider: stopped at %.5f m (limit 0.3)\n", along);
    cr_assert_lt(fabs(along - 0.3), 1e-6, "stopped at %g", along);
    sb_world_destroy(w);
}

Test(joints, a_motor_brings_a_free_wheel_to_its_speed_and_holds_it)
{
    /* a ball of I = 2/5 m r² = 0.072 kg m² on a hinge about z, driven at 10 rad/s with 2 N·m at most */
    sb_world *w = make_world(G);
    sb_body_id base = add_box(w, SB_BODY_STATIC, 0.0, 0.0, -1.0, 0.1, 0.1, 0.1, 1.0);
    sb_body_def d = sb_default_body_def();
    d.shape = SB_SHAPE_SPHERE, d.radius = 0.3, d.mass = 2.0;
    sb_body_id wheel;
    cr_assert_eq(sb_world_add_body(w, &d, &wheel), SB_OK);
    sb_joint_def j = sb_default_joint_def();
    j.type = SB_JOINT_HINGE, j.body_a = base, j.body_b = wheel;
    j.use_motor[5] = 1, j.motor_velocity[5] = 10.0, j.motor_max_force[5] = 2.0;
    add_joint(w, j);
    double inertia = 0.4 * 2.0 * 0.3 * 0.3;
    cr_assert_eq(sb_world_step_to(w, 0.2), SB_OK, "%s", sb_last_error());
    double spinning_up = state_of(w, wheel).angular_velocity[2];
    cr_assert_eq(sb_world_step_to(w, 1.0), SB_OK, "%s", sb_last_error());
    double at_speed = state_of(w, wheel).angular_velocity[2];
    cr_assert_eq(sb_world_step_to(w, 3.0), SB_OK, "%s", sb_last_error());
    sb_body_state held = state_of(w, wheel);
    printf("motor: %.4f rad/s after 0.2 s (%.4f with the torque limit), %.9f after 1 s, %.9f after 3 s; the wheel's "
           "centre moved %.1e m\n", spinning_up, 2.0 / inertia * 0.2, at_speed, held.angular_velocity[2],
           fabs(held.position[0]) + fabs(held.position[1]) + fabs(held.position[2]));
    cr_assert_lt(fabs(spinning_up / (2.0 / inertia * 0.2) - 1.0), 1e-6, "not spun up at the torque limit");
    cr_assert_lt(fabs(at_speed - 10.0), 1e-9);
    cr_assert_lt(fabs(held.angular_velocity[2] - 10.0), 1e-9);
    cr_assert_lt(fabs(held.angular_velocity[0]) + fabs(held.angular_velocity[1]), 1e-9);
    cr_assert_lt(fabs(held.position[0]) + fabs(held.position[1]) + fabs(held.position[2]), 1e-9);
    sb_world_destroy(w);
}

Test(joints, a_slider_with_a_spring_oscillates_at_its_natural_frequency)
{
    /* 2 kg on a horizontal slider with k = 50 N/m: ω = √(k/m) = 5 rad/s, pushed at 1 m/s */
    sb_world *w = make_world(G);
    sb_body_id base = add_box(w, SB_BODY_STATIC, 0.0, 0.0, -1.0, 0.1, 0.1, 0.1, 1.0);
    sb_body_def d = sb_default_body_def();
    d.shape = SB_SHAPE_BOX, d.mass = 2.0, d.linear_velocity[0] = 1.0;
    d.half_extents[0] = d.half_extents[1] = d.half_extents[2] = 0.1;
    sb_body_id slider;
    cr_assert_eq(sb_world_add_body(w, &d, &slider), SB_OK);
    sb_joint_def j = sb_default_joint_def();
    j.type = SB_JOINT_SLIDER, j.body_a = base, j.body_b = slider;
    j.use_spring[0] = 1, j.spring_stiffness[0] = 50.0;
    add_joint(w, j);
    double dt = 1.0 / 240.0, last_x = 0.0, first = -1.0, last = -1.0, peak = 0.0, drift = 0.0;
    int crossings = 0;
    for (int k = 1; k <= 5 * 240; k++) {
        cr_assert_eq(sb_world_step_to(w, k * dt), SB_OK, "%s", sb_last_error());
        sb_body_state s = state_of(w, slider);
        double x = s.position[0];
        peak = fmax(peak, fabs(x));
        drift = fmax(drift, fabs(s.position[1]) + fabs(s.position[2]));
        if (last_x > 0.0 && x <= 0.0) {
            double at = (k - 1 + last_x / (last_x - x)) * dt;
            if (first < 0.0) first = at;
            last = at, crossings++;
        }
        last_x = x;
    }
    double period = (last - first) / (crossings - 1), expected = 2 * PI / 5.0;
    printf("slider spring: period %.5f s, expected %.5f (%+.3f%%); swing %.4f m (0.2 undamped), off its axis %.1e m\n",
           period, expected, 100 * (period / expected - 1), peak, drift);
    cr_assert_lt(fabs(period / expected - 1.0), 0.002);
    cr_assert(peak > 0.18 && peak <= 0.2, "swing %g m", peak);
    cr_assert_lt(drift, 1e-9);
    sb_world_destroy(w);
}

/* Two overlapping boxes in zero gravity, joined by a generic joint with no limits (it holds
 * nothing): how far they moved in 1 s. */
static double overlap_motion(int32_t disable_collisions)
{
    sb_world *w = make_world(0.0);
    sb_body_id a = add_box(w, SB_BODY_DYNAMIC, 0.0, 0.0, 0.0, 0.25, 0.25, 0.25, 1.0);
    sb_body_id b = add_box(w, SB_BODY_DYNAMIC, 0.4, 0.0, 0.0, 0.25, 0.25, 0.25, 1.0);
    sb_joint_def j = sb_default_joint_def();
    j.type = SB_JOINT_GENERIC, j.body_a = a, j.body_b = b, j.disable_collisions = disable_collisions;
    add_joint(w, j);
    cr_assert_eq(sb_world_step_to(w, 1.0), SB_OK, "%s", sb_last_error());
    double moved = fabs(state_of(w, a).position[0]) + fabs(state_of(w, b).position[0] - 0.4);
    sb_world_destroy(w);
    return moved;
}

Test(joints, a_joint_keeps_its_bodies_from_colliding_when_asked)
{
    double kept = overlap_motion(1), pushed = overlap_motion(0);
    printf("overlapping boxes joined: moved %.1e m with disable_collisions, %.3f m without\n", kept, pushed);
    cr_assert_eq(kept, 0.0, "moved %g m", kept);
    cr_assert_gt(pushed, 0.05, "moved only %g m", pushed);
}

/* A chain dropped sideways whose joints break as the swing loads them. */
static sb_world *breaking_chain(sb_body_id links[LINKS])
{
    sb_world *w = make_world(G);
    double pivots[LINKS][3];
    make_chain(w, PI / 2, links, pivots, 0.25); /* 0.25 N·s per 1/240 s: 60 N */
    return w;
}

/* Saved at `saved` s, resumed to 1.5 s: the same bits and breaking times as without the stop;
 * how many joints had broken when it was saved, and at the end. */
static void resume_breaking_chain(double saved, int32_t *broken_then, int32_t *broken_end)
{
    sb_body_id links[LINKS];
    sb_world *w = breaking_chain(links);
    cr_assert_eq(sb_world_step_to(w, saved), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_world_get_broken_joints(w, NULL, NULL, 0, broken_then), SB_OK);
    uint64_t size = 0;
    cr_assert_eq(sb_world_get_state_size(w, &size), SB_OK);
    void *state = malloc(size);
    cr_assert_eq(sb_world_save_state(w, state, size), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_world_step_to(w, 1.5), SB_OK, "%s", sb_last_error());
    double straight[LINKS * 16], resumed[LINKS * 16], times_a[LINKS], times_b[LINKS];
    int32_t count_b = 0;
    cr_assert_eq(sb_world_get_body_transforms(w, straight, LINKS), SB_OK);
    cr_assert_eq(sb_world_get_broken_joints(w, NULL, times_a, LINKS, broken_end), SB_OK);

    sb_body_id again[LINKS];
    sb_world *w2 = breaking_chain(again);
    cr_assert_eq(sb_world_load_state(w2, state, size), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_world_step_to(w2, 1.5), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_world_get_body_transforms(w2, resumed, LINKS), SB_OK);
    cr_assert_eq(sb_world_get_broken_joints(w2, NULL, times_b, LINKS, &count_b), SB_OK);
    printf("breaking chain saved at %.2f s: %d joints broken then, %d at 1.5 s:", saved, *broken_then, *broken_end);
    for (int i = 0; i < *broken_end; i++) printf(" %.4f s", times_a[i]);
    printf("\n");
    cr_assert_eq(count_b, *broken_end);
    cr_assert_eq(memcmp(times_a, times_b, (size_t)count_b * sizeof *times_a), 0, "other breaking times");
    cr_assert_eq(memcmp(straight, resumed, sizeof straight), 0, "the resumed world went another way");

    /* a world whose joints differ refuses the state */
    sb_world *other = make_world(G);
    double pivots[LINKS][3];
    make_chain(other, PI / 2, again, pivots, 0.3);
    cr_assert_eq(sb_world_load_state(other, state, size), SB_ERROR_INVALID_ARGUMENT);
    cr_assert_not_null(strstr(sb_last_error(), "joints"), "%s", sb_last_error());
    free(state);
    sb_world_destroy(w), sb_world_destroy(w2), sb_world_destroy(other);
}

Test(joints, a_saved_world_with_broken_joints_resumes_bit_for_bit)
{
    int32_t then, end;
    resume_breaking_chain(0.3, &then, &end); /* the joint breaks after the resume */
    cr_assert(then == 0 && end == 1, "%d joints broken before the stop, %d in all", then, end);
    resume_breaking_chain(0.5, &then, &end); /* and before it */
    cr_assert(then == 1 && end == 1, "%d joints broken before the stop, %d in all", then, end);
}

static void expect_refused(sb_world *w, sb_joint_def d, sb_result code, const char *words)
{
    sb_joint_id id = {77};
    cr_assert_eq(sb_world_add_joint(w, &d, &id), code, "expected %s, got '%s'", sb_result_name(code), sb_last_error());
    cr_assert_eq(id.index, 77, "the id was written on failure");
    cr_assert_not_null(strstr(sb_last_error(), words), "message '%s' does not mention '%s'", sb_last_error(), words);
}

Test(joints, bad_joint_definitions_are_refused_with_a_message)
{
    sb_world *w = make_world(G);
    add_box(w, SB_BODY_DYNAMIC, 0, 0, 0, 0.1, 0.1, 0.1, 1.0);
    add_box(w, SB_BODY_DYNAMIC, 1, 0, 0, 0.1, 0.1, 0.1, 1.0);
    sb_joint_def d = sb_default_joint_def();
    cr_assert_eq(sb_world_add_joint(NULL, &d, &(sb_joint_id){0}), SB_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sb_world_add_joint(w, NULL, &(sb_joint_id){0}), SB_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sb_world_add_joint(w, &d, NULL), SB_ERROR_INVALID_ARGUMENT);
    d.type = 6;
    expect_refused(w, d, SB_ERROR_INVALID_ARGUMENT, "type");
    d = sb_default_joint_def(), d.body_a.index = 2;
    expect_refused(w, d, SB_ERROR_NOT_FOUND, "body_a");
    d = sb_default_joint_def(), d.body_a.index = -1;
    expect_refused(w, d, SB_ERROR_INVALID_ARGUMENT, "world");
    d = sb_default_joint_def(), d.body_b.index = 5;
    expect_refused(w, d, SB_ERROR_NOT_FOUND, "body_b");
    d = sb_default_joint_def(), d.body_b.index = 0;
    expect_refused(w, d, SB_ERROR_INVALID_ARGUMENT, "itself");
    d = sb_default_joint_def(), d.pivot[1] = NAN;
    expect_refused(w, d, SB_ERROR_INVALID_ARGUMENT, "pivot");
    d = sb_default_joint_def(), d.pivot[1] = 2e7;
    expect_refused(w, d, SB_ERROR_INVALID_ARGUMENT, "pivot");
    d = sb_default_joint_def(), d.rotation[0] = 0.0;
    expect_refused(w, d, SB_ERROR_INVALID_ARGUMENT, "rotation");
    d = sb_default_joint_def(), d.rotation[3] = INFINITY;
    expect_refused(w, d, SB_ERROR_INVALID_ARGUMENT, "rotation");
    d = sb_default_joint_def(), d.type = SB_JOINT_HINGE, d.use_limit[5] = 1, d.lower[5] = 1.0, d.upper[5] = 0.5;
    expect_refused(w, d, SB_ERROR_INVALID_ARGUMENT, "lower is above upper");
    d.lower[5] = -4.0;
    expect_refused(w, d, SB_ERROR_INVALID_ARGUMENT, "z rotation must be within [-pi, pi]");
    d = sb_default_joint_def(), d.type = SB_JOINT_SLIDER, d.use_limit[0] = 1, d.upper[0] = NAN;
    expect_refused(w, d, SB_ERROR_INVALID_ARGUMENT, "x translation must be finite");
    d = sb_default_joint_def(), d.use_motor[3] = 1, d.motor_max_force[3] = -1.0;
    expect_refused(w, d, SB_ERROR_INVALID_ARGUMENT, "motor of the x rotation");
    d = sb_default_joint_def(), d.use_motor[4] = 1, d.motor_velocity[4] = NAN;
    expect_refused(w, d, SB_ERROR_INVALID_ARGUMENT, "velocity not finite");
    d = sb_default_joint_def(), d.use_spring[5] = 1, d.spring_damping[5] = INFINITY;
    expect_refused(w, d, SB_ERROR_INVALID_ARGUMENT, "spring of the z rotation");
    d = sb_default_joint_def(), d.breakable = 1, d.breaking_threshold = 0.0;
    expect_refused(w, d, SB_ERROR_INVALID_ARGUMENT, "breaking_threshold");
    d = sb_default_joint_def(), d.breakable = 1, d.breaking_step = -1.0;
    expect_refused(w, d, SB_ERROR_INVALID_ARGUMENT, "breaking_step");
    /* limits on coordinates the type locks are not read; an unbreakable joint's threshold neither */
    d = sb_default_joint_def(), d.type = SB_JOINT_FIXED, d.use_limit[0] = 1, d.lower[0] = NAN, d.breaking_threshold = -1;
    sb_joint_id id;
    cr_assert_eq(sb_world_add_joint(w, &d, &id), SB_OK, "%s", sb_last_error());
    cr_assert_eq(id.index, 0);
    cr_assert_eq(sb_joint_get_broken(w, (sb_joint_id){1}, NULL, NULL), SB_ERROR_NOT_FOUND);
    cr_assert_eq(sb_joint_get_broken(NULL, id, NULL, NULL), SB_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sb_world_get_broken_joints(w, NULL, NULL, -1, &(int32_t){0}), SB_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sb_world_get_broken_joints(w, NULL, NULL, 0, NULL), SB_ERROR_INVALID_ARGUMENT);
    sb_world_destroy(w);
}
