/* Goal springs (Blender's soft pins): a vertex pulled toward a moving goal by
 * f = -k (x - g) - c (v - ġ), inside the implicit solve. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cloth.h"
#include "cloth_forces.h"
#include "cloth_step.h"
#include "system_fixture.h"
#include "testutil.h"

static const double GRAVITY[3] = {0.0, 0.0, -9.81};

/* A deformed, moving 4 x 4 cloth pinned at one corner, its goals (every other vertex, of
 * stiffness 40 + 10 i N/m when `with_goals`) on their way from the rest shape to a shifted
 * and tilted one; the implicit system of a step 0.1 -> 0.1 + h is assembled. */
static cloth *goal_cloth(bool with_goals, double h)
{
    grid_mesh g = grid_mesh_make(4, 0.6, 0.0);
    sb_cloth_def def = grid_cloth_def(&g);
    double stiffness[16];
    for (int i = 0; i < 16; i++) stiffness[i] = i % 2 ? 0.0 : 40.0 + 10.0 * i;
    int32_t pin = 5;
    def.pin_count = 1, def.pins = &pin;
    def.goal_stiffness = with_goals ? stiffness : NULL;
    def.goal_damping = 0.7;
    cloth *c = NULL;
    cr_assert_eq(cloth_create(&def, 0.0, GRAVITY, &c), SB_OK, "%s", sb_last_error());
    grid_mesh_free(&g);
    test_rng rng = rng_seed(11);
    for (int32_t i = 0; i < 16; i++)
        for (int a = 0; a < 3; a++) {
            c->state.x[3 * i + a] += rng_uniform(&rng, -0.02, 0.02);
            c->state.v[3 * i + a] = rng_uniform(&rng, -0.4, 0.4);
        }
    for (int32_t p = 0; p < c->model.goal_count; p++) {
        double *to = &c->state.goal_to[3 * p];
        to[0] += 0.3, to[2] += 0.2 * to[1] - 0.1;
    }
    c->state.goal_time_to = 1.0;
    implicit_params params = {{0, 0, -9.81}, 1e-12, 10000, 1.0, INFINITY, {NULL, 0, 0, 0.0}, NULL};
    cloth_build_system(c, 0.1, h, &params);
    return c;
}

/* What the goals add to the force at (x, v) at time t: the cloth with goals minus the one
 * without, same state. */
static void goal_force_difference(const cloth *with, const cloth *without, double t, const double *x,
                                  const double *v, double *out)
{
    size_t len = 3 * (size_t)with->model.vertex_count;
    double *f0 = malloc(len * sizeof *f0);
    cloth_forces(with, t, x, v, GRAVITY, NULL, out);
    cloth_forces(without, t, x, v, GRAVITY, NULL, f0);
    for (size_t k = 0; k < len; k++) out[k] -= f0[k];
    free(f0);
}

Test(goal, the_assembled_system_holds_the_goal_forces_derivatives)
{
    const double h = 1.0 / 48.0, eps = 1e-6;
    cloth *with = goal_cloth(true, h), *without = goal_cloth(false, h);
    cr_assert_eq(with->model.goal_count, 8, "every other vertex has a goal");
    cr_assert_eq(without->model.goal_count, 0);
    size_t len = 48;
    /* the matrices differ by -h ∂Δf/∂v - h² ∂Δf/∂x, measured by central differences */
    double *a_with = dense_from_bsr(&with->scratch.system), *a_without = dense_from_bsr(&without->scratch.system);
    double *expected = calloc(len * len, sizeof *expected), *measured = calloc(len * len, sizeof *measured);
    double *x = malloc(len * sizeof *x), *v = malloc(len * sizeof *v);
    double *fp = malloc(len * sizeof *fp), *fm = malloc(len * sizeof *fm);
    for (size_t col = 0; col < len; col++) {
        for (int which = 0; which < 2; which++) {
            memcpy(x, with->state.x, len * sizeof *x), memcpy(v, with->state.v, len * sizeof *v);
            double *moved = which == 0 ? x : v;
            moved[col] += eps;
            goal_force_difference(with, without, 0.1 + h, x, v, fp);
            moved[col] -= 2 * eps;
            goal_force_difference(with, without, 0.1 + h, x, v, fm);
            double weight = which == 0 ? h * h : h;
            for (size_t row = 0; row < len; row++)
                expected[row * len + col] -= weight * (fp[row] - fm[row]) / (2 * eps);
        }
    }
    for (size_t k = 0; k < len * len; k++) measured[k] = a_with[k] - a_without[k];
    double diff = relative_difference(measured, expected, len * len);
    cr_assert_lt(diff, 1e-8, "the goals' matrix blocks are off by %g (relative)", diff);
    /* a goal vertex's block is (h c + h² k) I: 0.7 h + h² 40 for vertex 0 */
    cr_assert_float_eq(measured[0], 0.7 * h + h * h * 40.0, 1e-12);

    /* the right-hand sides differ by h Δf0 + h² ∂Δf/∂x u, the goals where they are at t + h */
    double *df = malloc(len * sizeof *df);
    goal_force_difference(with, without, 0.1 + h, with->state.x, with->state.v, df);
    const double *u = with->scratch.v_new; /* the u of the assembly, left there by cloth_build_system */
    double worst = 0.0, scale = 0.0;
    for (size_t row = 0; row < len; row++) {
        double expect = h * df[row];
        for (size_t col = 0; col < len; col++) {
            memcpy(x, with->state.x, len * sizeof *x);
            x[col] += eps;
            goal_force_difference(with, without, 0.1 + h, x, with->state.v, fp);
            x[col] -= 2 * eps;
            goal_force_difference(with, without, 0.1 + h, x, with->state.v, fm);
            expect += h * h * (fp[row] - fm[row]) / (2 * eps) * u[col];
        }
        worst = fmax(worst, fabs(with->scratch.rhs[row] - without->scratch.rhs[row] - expect));
        scale = fmax(scale, fabs(expect));
    }
    cr_assert_gt(scale, 1e-3, "the goals pull");
    cr_assert_lt(worst, 1e-8 * scale, "the goals' right-hand side is off by %g of %g", worst, scale);
    free(a_with), free(a_without), free(expected), free(measured), free(x), free(v), free(fp), free(fm), free(df);
    cloth_destroy(with), cloth_destroy(without);
}

Test(goal, the_goal_velocity_is_the_paths_mean_over_the_step)
{
    cloth *c = goal_cloth(true, 0.05);
    double g[3], gdot[3], start[3], ignored[3];
    cloth_goal_motion(c, 0, 0.1, 0.3, g, gdot);
    cloth_goal_motion(c, 0, 0.1, 0.1, start, ignored);
    for (int a = 0; a < 3; a++) cr_assert_float_eq(gdot[a], (g[a] - start[a]) / 0.2, 1e-12);
    cr_assert_float_eq(gdot[0], 0.3, 1e-12, "0.3 m over the path's 1 s");
    /* a step past the path's end: the goal stands still for part of it */
    cloth_goal_motion(c, 0, 0.9, 1.1, g, gdot);
    cr_assert_float_eq(gdot[0], 0.3 * 0.1 / 0.2, 1e-12);
    cloth_goal_motion(c, 0, 1.2, 1.2, g, gdot);
    cr_assert_eq(gdot[0], 0.0, "after the path's end the goal stays");
    cloth_destroy(c);
}

static sb_world *new_world(double max_step)
{
    sb_world_def wdef = sb_default_world_def();
    wdef.max_step = max_step;
    wdef.cg_tolerance = 1e-8;
    sb_world *w = NULL;
    cr_assert_eq(sb_world_create(&wdef, &w), SB_OK, "%s", sb_last_error());
    return w;
}

/* At rest the goal springs carry the whole weight: their forces k (g_i - x_i) add up to M g,
 * the cloth's own forces cancelling in the sum, so the mean sag is M g / (n k) exactly. */
Test(goal, a_soft_pinned_patch_settles_at_its_weight_over_the_stiffness)
{
    grid_mesh g = grid_mesh_make(6, 0.5, 1.0);
    sb_cloth_def def = grid_cloth_def(&g);
    const double k = 0.5;
    double stiffness[36];
    for (int i = 0; i < 36; i++) stiffness[i] = k;
    def.goal_stiffness = stiffness;
    def.goal_damping = 0.05;
    sb_world *w = new_world(1.0 / 24.0);
    sb_cloth_id id;
    cr_assert_eq(sb_world_add_cloth(w, &def, &id), SB_OK, "%s", sb_last_error());
    sb_cloth_info info;
    cr_assert_eq(sb_cloth_get_info(w, id, &info), SB_OK);
    double x[108];
    for (int f = 1; f <= 10 * 24; f++) cr_assert_eq(sb_world_step_to(w, f / 24.0), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_cloth_get_positions(w, id, x, 36), SB_OK);
    double sag = 0.0;
    for (int i = 0; i < 36; i++) sag += (1.0 - x[3 * i + 2]) / 36.0;
    double expected = info.total_mass * 9.81 / (36 * k);
    cr_assert_gt(expected, 0.01, "the test needs a sag to measure (%g m)", expected);
    cr_assert_float_eq(sag, expected, 1e-4 * expected, "mean sag %.6g m, M g / (n k) = %.6g m", sag, expected);
    double v[108], fastest = 0.0;
    cr_assert_eq(sb_cloth_get_velocities(w, id, v, 36), SB_OK);
    for (int k3 = 0; k3 < 108; k3++) fastest = fmax(fastest, fabs(v[k3]));
    cr_assert_lt(fastest, 1e-5, "the patch has settled (%g m/s)", fastest);
    sb_world_destroy(w);
    grid_mesh_free(&g);
}

/* One triangle, every corner on a goal spring of the same k and c and of the same mass, moves
 * as one point: with no gravity and no air its offset from a goal that starts moving at speed
 * V is e(t) = -(V/ω_d) e^{-ζω t} sin(ω_d t), the damped spring's answer (ω² = k/m,
 * 2ζω = c/m, ω_d = ω √(1-ζ²)). Returns the largest distance from that path over 1.6 s, as a
 * fraction of the amplitude V/ω_d, in a world of `wdef`. */
static double damped_spring_error(sb_world_def wdef)
{
    static const double tri[9] = {0, 0, 0, 0.2, 0, 0, 0, 0.2, 0};
    static const int32_t tris[3] = {0, 1, 2};
    sb_cloth_def def = sb_default_cloth_def();
    def.vertex_count = 3, def.positions = tri, def.triangle_count = 1, def.triangles = tris;
    def.air_drag = 0.0, def.gravity_scale = 0.0;
    double m = def.density * 0.02 / 3.0, omega = 4.0 * acos(-1.0) /* 2 Hz */, zeta = 0.2;
    double stiffness[3] = {m * omega * omega, m * omega * omega, m * omega * omega};
    def.goal_stiffness = stiffness;
    def.goal_damping = 2.0 * zeta * omega * m;
    sb_world *w = NULL;
    cr_assert_eq(sb_world_create(&wdef, &w), SB_OK, "%s", sb_last_error());
    sb_cloth_id id;
    cr_assert_eq(sb_world_add_cloth(w, &def, &id), SB_OK, "%s", sb_last_error());
    const double speed = 0.5, end = 2.0;
    double goal_end[9];
    for (int k = 0; k < 9; k++) goal_end[k] = tri[k] + (k % 3 == 0 ? speed * end : 0.0);
    cr_assert_eq(sb_cloth_set_goal_targets(w, id, end, goal_end, 3), SB_OK, "%s", sb_last_error());
    double omega_d = omega * sqrt(1 - zeta * zeta), amplitude = speed / omega_d, worst = 0.0, peak = 0.0;
    for (int f = 1; f <= 40; f++) {
        double t = f * 0.04, x[9];
        cr_assert_eq(sb_world_step_to(w, t), SB_OK, "%s", sb_last_error());
        cr_assert_eq(sb_cloth_get_positions(w, id, x, 3), SB_OK);
        double expected = -amplitude * exp(-zeta * omega * t) * sin(omega_d * t);
        for (int i = 0; i < 3; i++) {
            double lag = x[3 * i] - (tri[3 * i] + speed * t);
            worst = fmax(worst, fabs(lag - expected));
            peak = fmax(peak, fabs(lag));
            cr_assert_float_eq(x[3 * i + 1], tri[3 * i + 1], 1e-9, "no motion across the path");
        }
    }
    cr_assert_gt(peak, 0.5 * amplitude, "the soft pin lags behind its goal (%g m)", peak);
    sb_world_destroy(w);
    return worst / amplitude;
}

/* Backward Euler's error is first order in the step: 0.26% of the amplitude at 1/2000 s (1.1%
 * with the goal taken at the start of each step instead). */
Test(goal, a_soft_pin_follows_a_moving_goal_as_a_damped_spring)
{
    sb_world_def wdef = sb_default_world_def();
    wdef.max_step = 1.0 / 2000.0, wdef.cg_tolerance = 1e-8;
    double error = damped_spring_error(wdef);
    cr_assert_lt(error, 0.006, "off the damped spring's path by %.3g of its amplitude", error);
}

/* The explicit integrators take the goals from the same forces, at each stage's time (RK4:
 * 4e-10 of the amplitude off). */
Test(goal, explicit_integrators_follow_the_moving_goal_too)
{
    sb_world_def wdef = sb_default_world_def();
    wdef.integrator = SB_INTEGRATOR_RK4, wdef.error_tolerance = 1e-7;
    double error = damped_spring_error(wdef);
    cr_assert_lt(error, 1e-6, "RK4 is off the damped spring's path by %.3g of its amplitude", error);
}

/* A cloth pinned at one corner, its other vertices on goals of stiffness `goal_scale` x 0.5 to 3.65 N/m. */
typedef struct goal_world {
    sb_world *world;
    grid_mesh grid;
    sb_cloth_id cloth;
} goal_world;

static goal_world goal_world_make(double goal_scale)
{
    goal_world s = {.world = new_world(1.0 / 24.0), .grid = grid_mesh_make(8, 0.7, 0.5)};
    sb_cloth_def def = grid_cloth_def(&s.grid);
    double stiffness[64];
    for (int i = 0; i < 64; i++) stiffness[i] = goal_scale * (0.5 + 0.05 * i);
    int32_t pins[1] = {0};
    def.pin_count = 1, def.pins = pins;
    def.goal_stiffness = stiffness, def.goal_damping = 0.02;
    cr_assert_eq(sb_world_add_cloth(s.world, &def, &s.cloth), SB_OK, "%s", sb_last_error());
    return s;
}

static void goal_world_free(goal_world *s)
{
    sb_world_destroy(s->world);
    grid_mesh_free(&s->grid);
}

static void step_frames(goal_world *s, int from, int to)
{
    for (int f = from + 1; f <= to; f++)
        cr_assert_eq(sb_world_step_to(s->world, f / 24.0), SB_OK, "%s", sb_last_error());
}

Test(goal, a_state_saved_with_goals_mid_path_resumes_bit_for_bit)
{
    goal_world straight = goal_world_make(1.0);
    /* the goals swing up and over to arrive at frame 30; the state is saved at frame 10 */
    double targets[192];
    for (int i = 0; i < 64; i++) {
        const double *p = &straight.grid.positions[3 * i];
        targets[3 * i] = p[0] + 0.2, targets[3 * i + 1] = p[1], targets[3 * i + 2] = p[2] + 0.3 * p[0];
    }
    cr_assert_eq(sb_cloth_set_goal_targets(straight.world, straight.cloth, 30 / 24.0, targets, 64), SB_OK, "%s",
                 sb_last_error());
    step_frames(&straight, 0, 10);
    uint64_t size;
    cr_assert_eq(sb_world_get_state_size(straight.world, &size), SB_OK);
    void *state = malloc(size);
    cr_assert_eq(sb_world_save_state(straight.world, state, size), SB_OK, "%s", sb_last_error());
    double at_save[192], end_straight[192], end_resumed[192];
    cr_assert_eq(sb_cloth_get_positions(straight.world, straight.cloth, at_save, 64), SB_OK);
    step_frames(&straight, 10, 36);
    cr_assert_eq(sb_cloth_get_positions(straight.world, straight.cloth, end_straight, 64), SB_OK);

    goal_world resumed = goal_world_make(1.0);
    cr_assert_eq(sb_world_load_state(resumed.world, state, size), SB_OK, "%s", sb_last_error());
    step_frames(&resumed, 10, 36);
    cr_assert_eq(sb_cloth_get_positions(resumed.world, resumed.cloth, end_resumed, 64), SB_OK);
    cr_assert(memcmp(end_straight, end_resumed, sizeof end_straight) == 0, "the resumed cloth went elsewhere");
    /* the goals' path after the save moved the cloth: the state had to carry it */
    double moved = 0.0;
    for (int i = 0; i < 64; i++) moved = fmax(moved, fabs(end_straight[3 * i] - at_save[3 * i]));
    cr_assert_gt(moved, 0.05, "the cloth followed its goals after the save (%g m)", moved);

    /* other goal springs: the state does not fit */
    goal_world other = goal_world_make(2.0);
    cr_assert_eq(sb_world_load_state(other.world, state, size), SB_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(sb_last_error(), "goal springs"), "%s", sb_last_error());
    free(state);
    goal_world_free(&straight), goal_world_free(&resumed), goal_world_free(&other);
}

static void expect_cloth_refused(const sb_cloth_def *def, const char *needle)
{
    sb_world *w = new_world(1.0 / 24.0);
    sb_cloth_id id;
    cr_assert_eq(sb_world_add_cloth(w, def, &id), SB_ERROR_INVALID_ARGUMENT, "%s", sb_last_error());
    cr_assert(strstr(sb_last_error(), needle), "message \"%s\" lacks \"%s\"", sb_last_error(), needle);
    sb_world_destroy(w);
}

Test(goal, bad_goals_are_refused_with_a_message)
{
    grid_mesh g = grid_mesh_make(3, 1.0, 0.0);
    sb_cloth_def def = grid_cloth_def(&g);
    double stiffness[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    def.goal_stiffness = stiffness;
    stiffness[4] = NAN;
    expect_cloth_refused(&def, "goal_stiffness of vertex 4 is nan");
    stiffness[4] = -1.0;
    expect_cloth_refused(&def, "goal_stiffness of vertex 4 is -1");
    stiffness[4] = INFINITY;
    expect_cloth_refused(&def, "goal_stiffness of vertex 4 is inf");
    stiffness[4] = 1.0;
    def.goal_damping = NAN;
    expect_cloth_refused(&def, "goal_damping");
    def.goal_damping = -0.5;
    expect_cloth_refused(&def, "goal_damping must be zero or positive, got -0.5");
    def.goal_damping = 0.1;

    sb_world *w = new_world(1.0 / 24.0);
    sb_cloth_id id;
    cr_assert_eq(sb_world_add_cloth(w, &def, &id), SB_OK, "%s", sb_last_error());
    double targets[27];
    memcpy(targets, g.positions, sizeof targets);
    cr_assert_eq(sb_cloth_set_goal_targets(w, id, 1.0, targets, 8), SB_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(sb_last_error(), "has 9 vertices, got 8"), "%s", sb_last_error());
    cr_assert_eq(sb_cloth_set_goal_targets(w, id, 1.0, NULL, 9), SB_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(sb_last_error(), "NULL"), "%s", sb_last_error());
    cr_assert_eq(sb_cloth_set_goal_targets(w, id, 0.0, targets, 9), SB_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(sb_last_error(), "after the world time"), "%s", sb_last_error());
    cr_assert_eq(sb_cloth_set_goal_targets(w, id, NAN, targets, 9), SB_ERROR_INVALID_ARGUMENT);
    targets[13] = NAN;
    cr_assert_eq(sb_cloth_set_goal_targets(w, id, 1.0, targets, 9), SB_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(sb_last_error(), "goal target of vertex 4 is not finite"), "%s", sb_last_error());
    targets[13] = 2e7;
    cr_assert_eq(sb_cloth_set_goal_targets(w, id, 1.0, targets, 9), SB_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sb_cloth_set_goal_targets(w, (sb_cloth_id){3}, 1.0, targets, 9), SB_ERROR_NOT_FOUND);
    cr_assert_eq(sb_cloth_set_goal_targets(NULL, id, 1.0, targets, 9), SB_ERROR_INVALID_ARGUMENT);
    targets[13] = g.positions[13];
    cr_assert_eq(sb_cloth_set_goal_targets(w, id, 1.0, targets, 9), SB_OK, "%s", sb_last_error());
    sb_world_destroy(w);
    grid_mesh_free(&g);
}

/* A pinned vertex keeps its pin: its goal is dropped, and the rest keep theirs. */
Test(goal, a_pinned_vertex_has_no_goal)
{
    grid_mesh g = grid_mesh_make(3, 1.0, 0.0);
    sb_cloth_def def = grid_cloth_def(&g);
    double stiffness[9] = {5, 0, 5, 0, 0, 0, 5, 0, 5};
    int32_t pin = 2;
    def.pin_count = 1, def.pins = &pin, def.goal_stiffness = stiffness;
    cloth *c = NULL;
    cr_assert_eq(cloth_create(&def, 0.0, GRAVITY, &c), SB_OK, "%s", sb_last_error());
    cr_assert_eq(c->model.goal_count, 3);
    cr_assert_eq(c->model.goals[0], 0);
    cr_assert_eq(c->model.goals[1], 6);
    cr_assert_eq(c->model.goals[2], 8);
    cloth_destroy(c);
    grid_mesh_free(&g);
}

/* Goals are assembled in parallel on large cloths, each thread its own vertices: the result
 * does not depend on the number of threads, to the bit. */
static void hang_on_goals(int32_t threads, double *out)
{
    grid_mesh g = grid_mesh_make(36, 1.0, 0.5); /* 2450 triangles: assembled in parallel */
    sb_cloth_def def = grid_cloth_def(&g);
    double *stiffness = malloc((size_t)g.vertex_count * sizeof *stiffness);
    double *targets = malloc(3 * (size_t)g.vertex_count * sizeof *targets);
    for (int32_t i = 0; i < g.vertex_count; i++) stiffness[i] = i % 36 < 4 ? 20.0 + i % 7 : 0.0;
    def.goal_stiffness = stiffness, def.goal_damping = 0.01;
    sb_world_def wdef = sb_default_world_def();
    wdef.threads = threads;
    sb_world *w = NULL;
    sb_cloth_id id;
    cr_assert_eq(sb_world_create(&wdef, &w), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_world_add_cloth(w, &def, &id), SB_OK, "%s", sb_last_error());
    for (int32_t k = 0; k < 3 * g.vertex_count; k++) targets[k] = g.positions[k] + (k % 3 == 2 ? 0.2 : 0.0);
    cr_assert_eq(sb_cloth_set_goal_targets(w, id, 0.25, targets, g.vertex_count), SB_OK, "%s", sb_last_error());
    for (int f = 1; f <= 6; f++) cr_assert_eq(sb_world_step_to(w, f / 24.0), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_cloth_get_positions(w, id, out, g.vertex_count), SB_OK);
    sb_world_destroy(w);
    free(stiffness), free(targets);
    grid_mesh_free(&g);
}

Test(goal, goals_give_the_same_bits_on_any_number_of_threads)
{
    enum { N = 3 * 36 * 36 };
    double *one = malloc(N * sizeof *one), *two = malloc(N * sizeof *two);
    hang_on_goals(1, one);
    hang_on_goals(2, two);
    cr_assert(memcmp(one, two, N * sizeof *one) == 0, "two threads moved the cloth elsewhere");
    cr_assert_gt(one[3 * 2 + 2], 0.5 + 0.01, "the goals lifted their vertices");
    free(one), free(two);
}
