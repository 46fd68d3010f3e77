/* Joints (sb_world_add_joint): pendulums on a hinge and on a point joint swing with the
 * physical pendulum's period and never gain energy; a chain of point joints keeps its links
 * together; a fixed joint makes two boxes one rigid body; a hinge limit stops the swing; a
 * breakable joint breaks above its threshold and holds below; joints keep their bodies from
 * colliding when asked; a saved world with broken joints resumes bit for bit; bad
 * definitions are refused with a message. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
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
        j.breakable = breaking_threshold > 0.0, j.breaking_threshold = breaking_threshold;
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
