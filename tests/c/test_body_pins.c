/* Cloth pins carried by a rigid body (sb_cloth_attach_pins_to_body, issue 32's flag on a pole
 * that swings on a hinge): the pins sit on the body's points after every step, move with the
 * body's velocity, leave the motion of a body that does not feel the cloth as it was (one way;
 * a body that does: test_body_pins_two_way.c), resume bit for bit, and bad calls are refused
 * with a message. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "simbake.h"
#include "testutil.h"

enum { FLAG_N = 8, FRAMES = 24, FRAME_SAVED = 10 };
static const double FPS = 24.0, G = 9.81, ANGLE = 0.6, HALF = 0.5;

/* A pole (a thin box 1 m long) on a hinge about y at its top end (the origin), let go at ANGLE
 * from the vertical; a 0.4 m flag of FLAG_N x FLAG_N vertices in the pole's plane, its column
 * nearest the pole pinned 2 cm off the pole's side; with `attach`, the pins follow the pole;
 * with `two_way`, the pole feels the cloth through a collider of its shape that it carries. */
typedef struct flag_scene {
    sb_world *world;
    grid_mesh grid;
    solid_mesh pole_mesh;
    int32_t pins[FLAG_N];
    sb_cloth_id cloth;
    sb_body_id pole;
} flag_scene;

static flag_scene build(bool with_flag, bool attach, bool two_way)
{
    flag_scene s = {.grid = grid_mesh_make(FLAG_N, 0.4, 0.0)};
    /* the pole that feels the cloth is let go on the flag's side: swinging towards it, it drives
     * the flag back over itself */
    double angle = two_way ? -ANGLE : ANGLE, c_a = cos(angle), s_a = sin(angle);
    sb_world_def wd = sb_default_world_def();
    wd.gravity[2] = -G;
    cr_assert_eq(sb_world_create(&wd, &s.world), SB_OK, "%s", sb_last_error());
    sb_body_def d = sb_default_body_def();
    d.shape = SB_SHAPE_BOX, d.mass = 2.0;
    d.half_extents[0] = d.half_extents[1] = 0.02, d.half_extents[2] = HALF;
    d.center[0] = HALF * s_a, d.center[2] = -HALF * c_a;
    d.rotation[0] = cos(angle / 2), d.rotation[2] = -sin(angle / 2); /* its top end at the origin */
    d.feels_cloth = two_way;
    cr_assert_eq(sb_world_add_body(s.world, &d, &s.pole), SB_OK, "%s", sb_last_error());
    if (two_way) {
        s.pole_mesh = box_mesh(d.half_extents, (double[3]){0.0, 0.0, -HALF});
        for (int32_t v = 0; v < s.pole_mesh.vertex_count; v++) {
            double *p = &s.pole_mesh.positions[3 * v], x = p[0], z = p[2];
            p[0] = x * c_a - z * s_a, p[2] = x * s_a + z * c_a;
        }
        sb_collider_def cd = solid_collider_def(&s.pole_mesh);
        sb_collider_id collider;
        cr_assert_eq(sb_world_add_collider(s.world, &cd, &collider), SB_OK, "%s", sb_last_error());
        cr_assert_eq(sb_collider_follow_body(s.world, collider, s.pole), SB_OK, "%s", sb_last_error());
    }
    sb_joint_def j = sb_default_joint_def();
    j.type = SB_JOINT_HINGE, j.body_a = s.pole;
    j.rotation[0] = sqrt(0.5), j.rotation[1] = sqrt(0.5); /* frame z = world -y: the hinge turns about y */
    sb_joint_id joint;
    cr_assert_eq(sb_world_add_joint(s.world, &j, &joint), SB_OK, "%s", sb_last_error());
    if (!with_flag) return s;
    /* the grid's (x, y) to the pole's plane (x + 0.24, 0, y - 0.5), turned with the pole */
    for (int32_t v = 0; v < s.grid.vertex_count; v++) {
        double *p = &s.grid.positions[3 * v];
        double x = p[0] + 0.24, z = p[1] - 0.5;
        p[0] = x * c_a - z * s_a, p[1] = 0.0, p[2] = x * s_a + z * c_a;
    }
    for (int32_t k = 0; k < FLAG_N; k++) s.pins[k] = k * FLAG_N;
    sb_cloth_def c = grid_cloth_def(&s.grid);
    c.pin_count = FLAG_N, c.pins = s.pins;
    cr_assert_eq(sb_world_add_cloth(s.world, &c, &s.cloth), SB_OK, "%s", sb_last_error());
    if (attach) cr_assert_eq(sb_cloth_attach_pins_to_body(s.world, s.cloth, s.pole), SB_OK, "%s", sb_last_error());
    return s;
}

static void free_scene(flag_scene *s)
{
    sb_world_destroy(s->world);
    grid_mesh_free(&s->grid);
    if (s->pole_mesh.positions) solid_mesh_free(&s->pole_mesh);
}

/* q v q* for q = (w, x, y, z) */
static void rotate(const double q[4], const double v[3], double out[3])
{
    double u[3] = {q[1], q[2], q[3]}, t[3] = {2 * (u[1] * v[2] - u[2] * v[1]), 2 * (u[2] * v[0] - u[0] * v[2]),
                                              2 * (u[0] * v[1] - u[1] * v[0])};
    for (int k = 0; k < 3; k++) out[k] = v[k] + q[0] * t[k];
    out[0] += u[1] * t[2] - u[2] * t[1], out[1] += u[2] * t[0] - u[0] * t[2], out[2] += u[0] * t[1] - u[1] * t[0];
}

static sb_body_state state_of(sb_world *w, sb_body_id b)
{
    sb_body_state s;
    cr_assert_eq(sb_body_get_state(w, b, &s), SB_OK, "%s", sb_last_error());
    return s;
}

/* The pins' points in the pole's frame (Rᵀ (p - x)), from where they are now. */
static void pins_in_pole_frame(flag_scene *s, double local[FLAG_N][3])
{
    double x[3 * FLAG_N * FLAG_N];
    cr_assert_eq(sb_cloth_get_positions(s->world, s->cloth, x, FLAG_N * FLAG_N), SB_OK);
    sb_body_state b = state_of(s->world, s->pole);
    double inverse[4] = {b.orientation[0], -b.orientation[1], -b.orientation[2], -b.orientation[3]};
    for (int k = 0; k < FLAG_N; k++) {
        double d[3];
        for (int a = 0; a < 3; a++) d[a] = x[3 * s->pins[k] + a] - b.position[a];
        rotate(inverse, d, local[k]);
    }
}

/* Steps the flag on the swinging pole: the pins after every step off the pole's points by at
 * most *worst, the range of the pole's angle, the flag's largest edge strain. */
static void swing_flag(bool two_way, double *worst_out, double *range_out, double *strain_out)
{
    flag_scene s = build(true, true, two_way);
    double local[FLAG_N][3], x[3 * FLAG_N * FLAG_N];
    pins_in_pole_frame(&s, local);
    double least_angle = INFINITY, most_angle = -INFINITY, strain = 0.0, worst = 0.0;
    for (int k = 1; k <= 2 * FRAMES; k++) {
        /* several steps a call at first, then one of the world's own steps a call */
        double t = k <= FRAMES ? k / FPS : sb_world_get_time(s.world) + 1.0 / 960.0;
        cr_assert_eq(sb_world_step_to(s.world, t), SB_OK, "%s", sb_last_error());
        cr_assert_eq(sb_cloth_get_positions(s.world, s.cloth, x, FLAG_N * FLAG_N), SB_OK);
        sb_body_state b = state_of(s.world, s.pole);
        for (int p = 0; p < FLAG_N; p++) {
            double want[3];
            rotate(b.orientation, local[p], want);
            for (int a = 0; a < 3; a++) worst = fmax(worst, fabs(x[3 * s.pins[p] + a] - (want[a] + b.position[a])));
        }
        strain = fmax(strain, grid_max_edge_strain(&s.grid, x));
        double angle = atan2(b.position[0], -b.position[2]);
        least_angle = fmin(least_angle, angle), most_angle = fmax(most_angle, angle);
    }
    *worst_out = worst, *range_out = most_angle - least_angle, *strain_out = strain;
    free_scene(&s);
}

static void check_swing(bool two_way)
{
    double worst, range, strain;
    swing_flag(two_way, &worst, &range, &strain);
    cr_log_info("%s: pins off the pole's points by %.3g m at most; the pole swung through %.3f rad; edges strained by "
                "%.3f at most\n",
                two_way ? "two way" : "one way", worst, range, strain);
    cr_assert(worst < 1e-12, "a pin left its point on the pole by %.3g m", worst);
    /* the pole really swung through the vertical, and the flag came along whole (the default
     * cloth's strain limit, max_stretch 0.1) */
    cr_assert(range > 0.9, "the pole only swung through %.3f rad", range);
    cr_assert(strain < 0.15, "the flag's edges strained by %.3f", strain);
}

Test(body_pins, the_pins_stay_on_the_swinging_poles_points_after_every_step)
{
    check_swing(false);
}

/* The pole carries a collider and feels the cloth: the coupled solve may move it after the
 * cloth's solve, and the pins are put back on its points (world_step.c). Here the flag swings
 * clear of the pole, so that path runs without moving it. */
Test(body_pins, the_pins_stay_on_a_pole_that_feels_the_cloth)
{
    check_swing(true);
}

Test(body_pins, pinned_vertices_move_with_a_kinematic_bodys_velocity)
{
    flag_scene s = build(true, false, false);
    /* a kinematic carrier where the pole is, sliding at (0.5, 0, 0.25) m/s without turning */
    sb_body_def d = sb_default_body_def();
    d.type = SB_BODY_KINEMATIC, d.shape = SB_SHAPE_BOX;
    d.half_extents[0] = d.half_extents[1] = d.half_extents[2] = 0.05;
    sb_body_id carrier;
    cr_assert_eq(sb_world_add_body(s.world, &d, &carrier), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_cloth_attach_pins_to_body(s.world, s.cloth, carrier), SB_OK, "%s", sb_last_error());
    double x0[3 * FLAG_N * FLAG_N], x[3 * FLAG_N * FLAG_N], v[3 * FLAG_N * FLAG_N];
    cr_assert_eq(sb_cloth_get_positions(s.world, s.cloth, x0, FLAG_N * FLAG_N), SB_OK);
    const double speed[3] = {0.5, 0.0, 0.25};
    double worst_position = 0.0, worst_velocity = 0.0;
    for (int f = 1; f <= FRAMES; f++) {
        double t = f / FPS;
        double m[16] = {1, 0, 0, speed[0] * t, 0, 1, 0, 0, 0, 0, 1, speed[2] * t, 0, 0, 0, 1};
        cr_assert_eq(sb_body_set_target(s.world, carrier, t, m), SB_OK, "%s", sb_last_error());
        cr_assert_eq(sb_world_step_to(s.world, t), SB_OK, "%s", sb_last_error());
        cr_assert_eq(sb_cloth_get_positions(s.world, s.cloth, x, FLAG_N * FLAG_N), SB_OK);
        cr_assert_eq(sb_cloth_get_velocities(s.world, s.cloth, v, FLAG_N * FLAG_N), SB_OK);
        for (int p = 0; p < FLAG_N; p++)
            for (int a = 0; a < 3; a++) {
                size_t k = 3 * (size_t)s.pins[p] + (size_t)a;
                worst_position = fmax(worst_position, fabs(x[k] - (x0[k] + speed[a] * t)));
                worst_velocity = fmax(worst_velocity, fabs(v[k] - speed[a]));
            }
    }
    cr_assert(worst_position < 1e-12, "a pin is %.3g m from its point on the carrier", worst_position);
    cr_assert(worst_velocity < 1e-9, "a pin's velocity is off the carrier's by %.3g m/s", worst_velocity);
    free_scene(&s);
}

/* Strands' pins (their roots) ride a body too: a rope hanging from a kinematic body that
 * slides and turns about z keeps its root on the body's point. */
Test(body_pins, a_ropes_root_rides_a_turning_kinematic_body)
{
    sb_world_def wd = sb_default_world_def();
    sb_world *w = NULL;
    cr_assert_eq(sb_world_create(&wd, &w), SB_OK, "%s", sb_last_error());
    sb_body_def d = sb_default_body_def();
    d.type = SB_BODY_KINEMATIC, d.shape = SB_SHAPE_BOX;
    d.half_extents[0] = d.half_extents[1] = d.half_extents[2] = 0.05;
    d.center[2] = 1.0;
    sb_body_id carrier;
    cr_assert_eq(sb_world_add_body(w, &d, &carrier), SB_OK, "%s", sb_last_error());
    enum { ROPE = 6 };
    double positions[3 * ROPE];
    for (int i = 0; i < ROPE; i++)
        positions[3 * i] = 0.2, positions[3 * i + 1] = 0.0, positions[3 * i + 2] = 0.9 - 0.1 * i;
    const int32_t counts[1] = {ROPE}, root[1] = {0};
    sb_strand_def rope = sb_default_strand_def();
    rope.positions = positions, rope.strand_vertex_counts = counts, rope.vertex_count = ROPE, rope.strand_count = 1;
    rope.pins = root, rope.pin_count = 1;
    sb_cloth_id strands;
    cr_assert_eq(sb_world_add_strands(w, &rope, &strands), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_cloth_attach_pins_to_body(w, strands, carrier), SB_OK, "%s", sb_last_error());
    double local[3] = {0.2, 0.0, -0.1}, x[3 * ROPE], worst = 0.0; /* the root from the body's centre */
    for (int f = 1; f <= FRAMES; f++) {
        double t = f / FPS, turn = 2.0 * t;
        double m[16] = {cos(turn), -sin(turn), 0, 0.3 * t, sin(turn), cos(turn), 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
        cr_assert_eq(sb_body_set_target(w, carrier, t, m), SB_OK, "%s", sb_last_error());
        cr_assert_eq(sb_world_step_to(w, t), SB_OK, "%s", sb_last_error());
        cr_assert_eq(sb_cloth_get_positions(w, strands, x, ROPE), SB_OK);
        sb_body_state b = state_of(w, carrier);
        double want[3];
        rotate(b.orientation, local, want);
        for (int a = 0; a < 3; a++) worst = fmax(worst, fabs(x[a] - (want[a] + b.position[a])));
    }
    sb_body_state b = state_of(w, carrier);
    cr_assert(fabs(b.position[0] - 0.3) < 1e-12 && fabs(b.orientation[0] - cos(1.0)) < 1e-9,
              "the carrier did not slide and turn by 2 rad");
    cr_assert(worst < 1e-12, "the rope's root left the body's point by %.3g m", worst);
    sb_world_destroy(w);
}

/* One way (the pole does not feel the cloth, sb_body_def.feels_cloth 0): the cloth's pull does not
 * reach the pole, which swings bit for bit as without it (two way: test_body_pins_two_way.c). */
Test(body_pins, the_pole_swings_as_it_would_without_the_flag)
{
    flag_scene with = build(true, true, false), without = build(false, false, false);
    for (int f = 1; f <= FRAMES; f++) {
        cr_assert_eq(sb_world_step_to(with.world, f / FPS), SB_OK, "%s", sb_last_error());
        cr_assert_eq(sb_world_step_to(without.world, f / FPS), SB_OK, "%s", sb_last_error());
    }
    sb_body_state a = state_of(with.world, with.pole), b = state_of(without.world, without.pole);
    cr_assert(memcmp(a.position, b.position, sizeof a.position) == 0 &&
                  memcmp(a.orientation, b.orientation, sizeof a.orientation) == 0,
              "the flag changed the pole's swing");
    free_scene(&with), free_scene(&without);
}

static void run(flag_scene *s, int from, int to)
{
    for (int f = from + 1; f <= to; f++)
        cr_assert_eq(sb_world_step_to(s->world, f / FPS), SB_OK, "frame %d: %s", f, sb_last_error());
}

static void *save(const flag_scene *s, uint64_t *size)
{
    cr_assert_eq(sb_world_get_state_size(s->world, size), SB_OK, "%s", sb_last_error());
    void *state = malloc(*size);
    cr_assert_eq(sb_world_save_state(s->world, state, *size), SB_OK, "%s", sb_last_error());
    return state;
}

Test(body_pins, a_resumed_world_goes_on_bit_for_bit)
{
    flag_scene straight = build(true, true, false);
    run(&straight, 0, FRAME_SAVED);
    uint64_t size, end_size, resumed_size;
    void *state = save(&straight, &size);
    run(&straight, FRAME_SAVED, FRAMES);
    void *end = save(&straight, &end_size);

    /* a world built without the attachment is another scene: refused */
    flag_scene loose = build(true, false, false);
    cr_assert_eq(sb_world_load_state(loose.world, state, size), SB_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(sb_last_error(), "the body carrying its pins"), "%s", sb_last_error());
    free_scene(&loose);

    flag_scene resumed = build(true, true, false);
    cr_assert_eq(sb_world_load_state(resumed.world, state, size), SB_OK, "%s", sb_last_error());
    run(&resumed, FRAME_SAVED, FRAMES);
    void *resumed_end = save(&resumed, &resumed_size);
    cr_assert(end_size == resumed_size && memcmp(end, resumed_end, end_size) == 0, "the states at the end differ");
    double a[3 * FLAG_N * FLAG_N], b[3 * FLAG_N * FLAG_N];
    cr_assert_eq(sb_cloth_get_positions(straight.world, straight.cloth, a, FLAG_N * FLAG_N), SB_OK);
    cr_assert_eq(sb_cloth_get_positions(resumed.world, resumed.cloth, b, FLAG_N * FLAG_N), SB_OK);
    cr_assert(memcmp(a, b, sizeof a) == 0, "the flags differ");
    free(state), free(end), free(resumed_end);
    free_scene(&straight), free_scene(&resumed);
}

Test(body_pins, bad_attachments_are_refused_with_a_message)
{
    flag_scene s = build(true, false, false);
    sb_cloth_id bare;
    grid_mesh apart = grid_mesh_make(4, 0.3, 5.0);
    sb_cloth_def c = grid_cloth_def(&apart);
    cr_assert_eq(sb_world_add_cloth(s.world, &c, &bare), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_cloth_attach_pins_to_body(NULL, s.cloth, s.pole), SB_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sb_cloth_attach_pins_to_body(s.world, (sb_cloth_id){7}, s.pole), SB_ERROR_NOT_FOUND);
    cr_assert_eq(sb_cloth_attach_pins_to_body(s.world, (sb_cloth_id){-1}, s.pole), SB_ERROR_NOT_FOUND);
    cr_assert_eq(sb_cloth_attach_pins_to_body(s.world, s.cloth, (sb_body_id){1}), SB_ERROR_NOT_FOUND);
    cr_assert_eq(sb_cloth_attach_pins_to_body(s.world, s.cloth, (sb_body_id){-1}), SB_ERROR_NOT_FOUND);
    cr_assert_eq(sb_cloth_attach_pins_to_body(s.world, bare, s.pole), SB_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(sb_last_error(), "no pins"), "%s", sb_last_error());
    cr_assert_eq(sb_cloth_attach_pins_to_body(s.world, s.cloth, s.pole), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_cloth_attach_pins_to_body(s.world, s.cloth, s.pole), SB_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(sb_last_error(), "already follow body 0"), "%s", sb_last_error());
    double targets[3 * FLAG_N] = {0};
    cr_assert_eq(sb_cloth_set_pin_targets(s.world, s.cloth, 1.0, targets, FLAG_N), SB_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(sb_last_error(), "follow body 0"), "%s", sb_last_error());
    /* nothing refused changed the swing: the pins still ride the pole */
    cr_assert_eq(sb_world_step_to(s.world, 0.1), SB_OK, "%s", sb_last_error());
    free_scene(&s);
    grid_mesh_free(&apart);
}
