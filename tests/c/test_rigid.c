/* Rigid-body dynamics against the analytic cases of the course notes ("Rigid Body
 * Simulation", "Collision and Contact") and Baraff 1989 §8: free motion, simultaneous
 * collisions, resting contact with friction, restitution, stacks. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "testutil.h"

#define G 9.81
#define PI 3.14159265358979323846

static sb_world *make_world(double gz)
{
    sb_world_def wd = sb_default_world_def();
    wd.gravity[2] = -gz;
    sb_world *w = NULL;
    cr_assert_eq(sb_world_create(&wd, &w), SB_OK, "%s", sb_last_error());
    return w;
}

static sb_body_id add_body(sb_world *w, sb_body_def *d)
{
    sb_body_id id = {-1};
    cr_assert_eq(sb_world_add_body(w, d, &id), SB_OK, "%s", sb_last_error());
    return id;
}

static sb_body_def box_def(int type, double x, double y, double z, double half, double mass)
{
    sb_body_def d = sb_default_body_def();
    d.type = type;
    d.shape = SB_SHAPE_BOX;
    d.center[0] = x, d.center[1] = y, d.center[2] = z;
    d.half_extents[0] = d.half_extents[1] = d.half_extents[2] = half;
    d.mass = mass;
    return d;
}

static sb_body_def sphere_def(double x, double y, double z, double radius, double mass)
{
    sb_body_def d = sb_default_body_def();
    d.shape = SB_SHAPE_SPHERE;
    d.center[0] = x, d.center[1] = y, d.center[2] = z;
    d.radius = radius;
    d.mass = mass;
    return d;
}

/* A static slab whose top face is the plane z = 0. */
static sb_body_id add_floor(sb_world *w, double friction, double restitution)
{
    sb_body_def d = box_def(SB_BODY_STATIC, 0, 0, -0.5, 50, 0);
    d.half_extents[2] = 0.5;
    d.friction = friction;
    d.restitution = restitution;
    return add_body(w, &d);
}

static sb_body_state state_of(sb_world *w, sb_body_id body)
{
    sb_body_state s;
    cr_assert_eq(sb_body_get_state(w, body, &s), SB_OK, "%s", sb_last_error());
    return s;
}

static void step_to(sb_world *w, double t)
{
    cr_assert_eq(sb_world_step_to(w, t), SB_OK, "%s", sb_last_error());
}

static double distance3(const double a[3], const double b[3])
{
    return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

static double norm3(const double a[3]) { return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); }

Test(rigid, torque_free_body_keeps_momentum_and_energy)
{
    sb_world *w = make_world(0);
    sb_body_def d = box_def(SB_BODY_DYNAMIC, 0, 0, 0, 0.1, 3.0);
    d.half_extents[1] = 0.2, d.half_extents[2] = 0.4; /* three different principal moments */
    d.rotation[0] = cos(0.3), d.rotation[1] = sin(0.3) * 0.6, d.rotation[2] = sin(0.3) * 0.8;
    d.linear_velocity[0] = 0.5;
    /* near the intermediate axis, so it tumbles */
    d.angular_velocity[0] = 0.3, d.angular_velocity[1] = 4.0, d.angular_velocity[2] = -0.7;
    sb_body_id b = add_body(w, &d);
    sb_body_state s0 = state_of(w, b);
    double max_energy_error = 0, max_momentum_error = 0;
    for (int frame = 1; frame <= 240; frame++) {
        step_to(w, frame / 24.0);
        sb_body_state s = state_of(w, b);
        for (int k = 0; k < 3; k++) {
            max_momentum_error = fmax(max_momentum_error, fabs(s.angular_momentum[k] - s0.angular_momentum[k]));
            cr_assert_float_eq(s.linear_momentum[k], s0.linear_momentum[k], 1e-12);
        }
        max_energy_error = fmax(max_energy_error, fabs(s.kinetic_energy - s0.kinetic_energy) / s0.kinetic_energy);
    }
    sb_body_state s = state_of(w, b);
    cr_assert_float_eq(s.position[0], 0.5 * 10.0, 1e-9);
    cr_assert_leq(max_momentum_error, 1e-9 * norm3(s0.angular_momentum));
    cr_assert_leq(max_energy_error, 1e-6, "kinetic energy drifted by %.3g relative", max_energy_error);
    /* It did tumble: the angular velocity changed direction a lot. */
    cr_log_info("torque-free: energy error %.3g, momentum error %.3g", max_energy_error, max_momentum_error);
    sb_world_destroy(w);
}

Test(rigid, three_spheres_collide_simultaneously)
{
    sb_world *w = make_world(0);
    const double r = 0.5, v = 2.0;
    sb_body_def d = sphere_def(-1.6, 0, 0, r, 1.0);
    d.restitution = 1.0;
    d.friction = 0.0;
    d.linear_velocity[0] = v;
    sb_body_id first = add_body(w, &d);
    d.linear_velocity[0] = 0;
    d.center[0] = 0;
    sb_body_id second = add_body(w, &d);
    d.center[0] = 2 * r; /* touching the second */
    sb_body_id third = add_body(w, &d);
    step_to(w, 0.5); /* the impact happens at t = 0.3 */
    double expected[3] = {-v / 3, 2 * v / 3, 2 * v / 3};
    sb_body_id ids[3] = {first, second, third};
    for (int i = 0; i < 3; i++) {
        sb_body_state s = state_of(w, ids[i]);
        cr_log_info("sphere %d: %.9f m/s", i, s.linear_velocity[0]);
        cr_assert_float_eq(s.linear_velocity[0], expected[i], 1e-6, "sphere %d: %.9f, expected %.9f", i,
                           s.linear_velocity[0], expected[i]);
        cr_assert_float_eq(s.linear_velocity[1], 0, 1e-12);
    }
    sb_world_destroy(w);
}

Test(rigid, heavy_ball_onto_light_ball_with_no_bounce_stops_both)
{
    sb_world *w = make_world(G);
    add_floor(w, 0.5, 0.0);
    const double r = 0.2;
    sb_body_def d = sphere_def(0, 0, r, r, 1.0);
    sb_body_id light = add_body(w, &d);
    d = sphere_def(0, 0, 3 * r + 0.5, r, 9.0);
    sb_body_id heavy = add_body(w, &d);
    /* falls 0.5 m: impact at t = sqrt(2 * 0.5 / g) = 0.319 s at 3.13 m/s */
    double t = 0;
    double impact_speed = 0;
    while (t < 0.6) {
        t += 1.0 / 240;
        step_to(w, t);
        sb_body_state sh = state_of(w, heavy);
        if (sh.contacts > 0) break;
        impact_speed = -sh.linear_velocity[2];
    }
    cr_assert_gt(impact_speed, 3.0);
    step_to(w, t + 1.0 / 240);
    sb_body_state sh = state_of(w, heavy), sl = state_of(w, light);
    cr_log_info("after impact: heavy %.3g m/s, light %.3g m/s", norm3(sh.linear_velocity), norm3(sl.linear_velocity));
    cr_assert_lt(norm3(sh.linear_velocity), 1e-3, "heavy ball moves at %.4g m/s", norm3(sh.linear_velocity));
    cr_assert_lt(norm3(sl.linear_velocity), 1e-3, "light ball moves at %.4g m/s", norm3(sl.linear_velocity));
    step_to(w, t + 1.0);
    sh = state_of(w, heavy), sl = state_of(w, light);
    cr_assert_float_eq(sl.position[2], r, 1e-4);
    cr_assert_float_eq(sh.position[2], 3 * r, 2e-4);
    sb_world_destroy(w);
}

Test(rigid, box_rests_on_floor)
{
    sb_world *w = make_world(G);
    add_floor(w, 0.5, 0.0);
    const double mass = 2.0;
    sb_body_def d = box_def(SB_BODY_DYNAMIC, 0.3, -0.2, 0.25, 0.25, mass);
    sb_body_id b = add_body(w, &d);
    sb_body_state s0 = state_of(w, b);
    for (int frame = 1; frame <= 240; frame++) {
        step_to(w, frame / 24.0);
        sb_body_state s = state_of(w, b);
        cr_assert_float_eq(s.contact_force[2], mass * G, 1e-6 * mass * G, "frame %d: contact force %.9g", frame,
                           s.contact_force[2]);
        cr_assert_float_eq(s.contact_force[0], 0, 1e-9);
        cr_assert_float_eq(s.contact_force[1], 0, 1e-9);
        cr_assert_geq(s.contacts, 4);
    }
    sb_body_state s = state_of(w, b);
    cr_log_info("box at rest: moved %.3g m in 10 s", distance3(s.position, s0.position));
    cr_assert_lt(distance3(s.position, s0.position), 1e-4, "moved %.3g m", distance3(s.position, s0.position));
    sb_world_destroy(w);
}

/* A box resting on a static slab tilted by `angle` about x; returns the box and the
 * downhill direction along the slab. */
static sb_body_id box_on_incline(sb_world *w, double angle, double friction, double downhill[3])
{
    const double half = 0.2;
    double qw = cos(angle / 2), qx = sin(angle / 2);
    sb_body_def slab = box_def(SB_BODY_STATIC, 0, 0, 0, 20, 0);
    slab.half_extents[2] = 0.5;
    slab.rotation[0] = qw, slab.rotation[1] = qx;
    slab.friction = 1.0;
    add_body(w, &slab);
    /* slab top normal n = R e_z = (0, -sin, cos); box centre at (0.5 + half) n */
    double n[3] = {0, -sin(angle), cos(angle)};
    sb_body_def d = box_def(SB_BODY_DYNAMIC, 0, (0.5 + half) * n[1], (0.5 + half) * n[2], half, 1.0);
    d.rotation[0] = qw, d.rotation[1] = qx;
    d.friction = friction;
    downhill[0] = 0, downhill[1] = -cos(angle), downhill[2] = -sin(angle);
    return add_body(w, &d);
}

Test(rigid, box_sticks_on_incline_with_enough_friction)
{
    sb_world *w = make_world(G);
    double downhill[3];
    sb_body_id b = box_on_incline(w, 20 * PI / 180, 0.5, downhill);
    sb_body_state s0 = state_of(w, b);
    step_to(w, 5.0);
    sb_body_state s = state_of(w, b);
    cr_log_info("incline mu 0.5: moved %.3g m in 5 s", distance3(s.position, s0.position));
    cr_assert_lt(distance3(s.position, s0.position), 1e-4, "moved %.3g m", distance3(s.position, s0.position));
    sb_world_destroy(w);
}

Test(rigid, box_slides_down_incline_at_coulomb_rate)
{
    const double angle = 20 * PI / 180, mu = 0.2;
    sb_world *w = make_world(G);
    double downhill[3];
    sb_body_id b = box_on_incline(w, angle, mu, downhill);
    step_to(w, 0.5);
    sb_body_state s1 = state_of(w, b);
    step_to(w, 1.5);
    sb_body_state s2 = state_of(w, b);
    double v1 = 0, v2 = 0;
    for (int k = 0; k < 3; k++) v1 += s1.linear_velocity[k] * downhill[k], v2 += s2.linear_velocity[k] * downhill[k];
    double measured = (v2 - v1) / 1.0, expected = G * (sin(angle) - mu * cos(angle));
    cr_log_info("incline mu %.2f: %.5g m/s², expected %.5g", mu, measured, expected);
    cr_assert_float_eq(measured, expected, 0.02 * expected, "slides at %.5g m/s², expected %.5g", measured, expected);
    /* It slides, it does not tumble. */
    cr_assert_lt(norm3(s2.angular_velocity), 1e-3);
    sb_world_destroy(w);
}

Test(rigid, ball_rebounds_to_restitution_squared_height)
{
    const double drop = 1.0, r = 0.1;
    const double restitutions[] = {0.5, 0.8};
    for (int i = 0; i < 2; i++) {
        sb_world *w = make_world(G);
        add_floor(w, 0.5, 1.0);
        sb_body_def d = sphere_def(0, 0, r + drop, r, 0.5);
        d.restitution = restitutions[i];
        sb_body_id b = add_body(w, &d);
        double t = 0, highest = 0;
        bool bounced = false;
        while (t < 2.0) {
            t += 1.0 / 960;
            step_to(w, t);
            sb_body_state s = state_of(w, b);
            if (s.linear_velocity[2] > 0) bounced = true;
            if (bounced) {
                if (s.linear_velocity[2] < 0) break;
                highest = fmax(highest, s.position[2] - r);
            }
        }
        double e = restitutions[i];
        cr_log_info("bounce e %.2f: rebound %.5g m of %.5g expected", e, highest, e * e * drop);
        cr_assert_float_eq(highest, e * e * drop, 0.02 * e * e * drop, "e %.2f: rebound %.5g, expected %.5g", e,
                           highest, e * e * drop);
        sb_world_destroy(w);
    }
}

Test(rigid, tower_of_ten_boxes_stands)
{
    sb_world *w = make_world(G);
    add_floor(w, 0.5, 0.0);
    const double half = 0.25;
    sb_body_id ids[10];
    for (int i = 0; i < 10; i++) {
        sb_body_def d = box_def(SB_BODY_DYNAMIC, 0, 0, half + 2 * half * i, half, 1.0);
        ids[i] = add_body(w, &d);
    }
    sb_body_state top0 = state_of(w, ids[9]);
    step_to(w, 10.0);
    sb_body_state top = state_of(w, ids[9]);
    double moved = distance3(top.position, top0.position);
    cr_log_info("tower of 10: top moved %.3g m in 10 s", moved);
    cr_assert_lt(moved, 1e-3, "top box moved %.3g m", moved);
    sb_world_destroy(w);
}

Test(rigid, pyramid_of_55_boxes_stands)
{
    sb_world *w = make_world(G);
    add_floor(w, 0.5, 0.0);
    const double half = 0.25, gap = 0.02;
    sb_body_id ids[55];
    int32_t count = 0;
    double start[55][3];
    for (int row = 0; row < 10; row++)
        for (int i = 0; i < 10 - row; i++) {
            double x = (i - (9 - row) * 0.5) * (2 * half + gap);
            sb_body_def d = box_def(SB_BODY_DYNAMIC, x, 0, half + 2 * half * row, half, 1.0);
            ids[count] = add_body(w, &d);
            sb_body_state s = state_of(w, ids[count]);
            for (int k = 0; k < 3; k++) start[count][k] = s.position[k];
            count++;
        }
    step_to(w, 10.0);
    double worst = 0;
    for (int i = 0; i < count; i++) {
        sb_body_state s = state_of(w, ids[i]);
        worst = fmax(worst, distance3(s.position, start[i]));
    }
    cr_log_info("pyramid of 55: largest displacement %.3g m in 10 s", worst);
    cr_assert_lt(worst, 0.01 * half, "a box moved %.3g m", worst);
    sb_world_destroy(w);
}

Test(rigid, pile_of_1000_boxes_settles_without_overlap_or_energy_gain, .timeout = 600)
{
    const int SIDE = test_quick() ? 4 : 10, COUNT = SIDE * SIDE * SIDE;
    const double half = 0.1, spacing = 0.26;
    sb_world *w = make_world(G);
    add_floor(w, 0.5, 0.0);
    /* four walls around a 3 m square */
    for (int k = 0; k < 4; k++) {
        double x = k < 2 ? (k == 0 ? -1.7 : 1.7) : 0, y = k >= 2 ? (k == 2 ? -1.7 : 1.7) : 0;
        sb_body_def wall = box_def(SB_BODY_STATIC, x, y, 1.0, 0.2, 0);
        wall.half_extents[0] = k < 2 ? 0.2 : 1.9, wall.half_extents[1] = k < 2 ? 1.9 : 0.2, wall.half_extents[2] = 1.0;
        add_body(w, &wall);
    }
    test_rng rng = rng_seed(64);
    sb_body_id *ids = malloc(sizeof *ids * COUNT);
    double (*center)[3] = malloc(sizeof(double[3]) * COUNT);
    double *energy0 = malloc(sizeof(double) * COUNT);
    double total0 = 0;
    for (int i = 0; i < COUNT; i++) {
        center[i][0] = (i % SIDE - (SIDE - 1) * 0.5) * spacing + rng_uniform(&rng, -0.02, 0.02);
        center[i][1] = (i / SIDE % SIDE - (SIDE - 1) * 0.5) * spacing + rng_uniform(&rng, -0.02, 0.02);
        center[i][2] = 0.3 + (i / (SIDE * SIDE)) * spacing;
        sb_body_def d = box_def(SB_BODY_DYNAMIC, center[i][0], center[i][1], center[i][2], half, 1.0);
        d.angular_velocity[0] = rng_uniform(&rng, -2, 2), d.angular_velocity[1] = rng_uniform(&rng, -2, 2);
        ids[i] = add_body(w, &d);
        sb_body_state s = state_of(w, ids[i]);
        energy0[i] = s.kinetic_energy + s.mass * G * s.position[2];
        total0 += energy0[i];
    }
    double total = 0;
    for (int frame = 1; frame <= 72; frame++) {
        step_to(w, frame / 24.0);
        total = 0;
        for (int i = 0; i < COUNT; i++) {
            sb_body_state s = state_of(w, ids[i]);
            total += s.kinetic_energy + s.mass * G * s.position[2];
        }
        cr_assert_leq(total, total0 + 1e-9 * fabs(total0), "frame %d: energy %.9g > %.9g at the start", frame, total,
                      total0);
    }
    double worst_overlap = 0, worst_gain = -INFINITY;
    double (*corners)[8][3] = malloc(sizeof(double[8][3]) * COUNT);
    for (int i = 0; i < COUNT; i++) {
        double m[16];
        cr_assert_eq(sb_body_get_transform(w, ids[i], m), SB_OK);
        box_corners(m, center[i], half, corners[i]);
        sb_body_state s = state_of(w, ids[i]);
        worst_gain = fmax(worst_gain, s.kinetic_energy + s.mass * G * s.position[2] - energy0[i]);
    }
    for (int i = 0; i < COUNT; i++)
        for (int j = i + 1; j < COUNT; j++) {
            double d[3] = {corners[i][0][0] - corners[j][0][0], corners[i][0][1] - corners[j][0][1],
                           corners[i][0][2] - corners[j][0][2]};
            if (norm3(d) > 8 * half) continue;
            worst_overlap = fmax(worst_overlap, box_overlap(corners[i], corners[j]));
        }
    cr_log_info("pile of %d: deepest overlap %.3g m (%.2f%% of the size), energy %.6g J of %.6g J, largest gain of "
                "one box %.3g J",
                COUNT, worst_overlap, 100 * worst_overlap / (2 * half), total, total0, worst_gain);
    cr_assert_leq(worst_overlap, 0.01 * 2 * half);
    cr_assert_leq(worst_gain, 0.0);
    free(ids), free(center), free(energy0), free(corners);
    sb_world_destroy(w);
}

#ifdef _OPENMP
#include <omp.h>
#include <string.h>

/* The final transforms of 500 boxes dropped in a heap for 1 s (1/6 s quick: test_quick) on
 * `threads` threads. */
static void drop_heap(int threads, double (*transforms)[16])
{
    enum { SIDE = 10, COUNT = 500 };
    omp_set_num_threads(threads);
    sb_world *w = make_world(G);
    add_floor(w, 0.5, 0.0);
    test_rng rng = rng_seed(7);
    sb_body_id ids[COUNT];
    for (int i = 0; i < COUNT; i++) {
        sb_body_def d = box_def(SB_BODY_DYNAMIC, (i % SIDE - 4.5) * 0.22 + rng_uniform(&rng, -0.05, 0.05),
                                (i / SIDE % SIDE - 4.5) * 0.22, 0.15 + (i / (SIDE * SIDE)) * 0.22, 0.1, 1.0);
        d.angular_velocity[0] = rng_uniform(&rng, -2, 2);
        ids[i] = add_body(w, &d);
    }
    for (int frame = 1, frames = test_quick() ? 4 : 24; frame <= frames; frame++) step_to(w, frame / 24.0);
    for (int i = 0; i < COUNT; i++) {
        cr_assert_eq(sb_body_get_transform(w, ids[i], transforms[i]), SB_OK);
        cr_assert_gt(state_of(w, ids[i]).position[2], 0.09, "box %d fell through the floor", i); /* it simulated */
    }
    sb_world_destroy(w);
}

Test(rigid, heap_moves_bit_identically_on_one_and_two_threads, .timeout = 120)
{
    double (*one)[16] = malloc(sizeof(double[16]) * 500), (*two)[16] = malloc(sizeof(double[16]) * 500);
    int saved = omp_get_max_threads();
    drop_heap(1, one);
    drop_heap(2, two);
    omp_set_num_threads(saved);
    cr_assert_eq(memcmp(one, two, sizeof(double[16]) * 500), 0, "the narrow phase's thread count changed the motion");
    free(one), free(two);
}
#endif
