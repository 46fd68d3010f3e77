/* Solver trouble ends sb_world_step_to with SB_ERROR_SOLVER, a message saying what to change,
 * and sb_world_get_failure saying what went wrong where; the world stays at its last good
 * state and can go on. Each failure is injected through the physics, not faked. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "simbake.h"
#include "testutil.h"

typedef struct scene {
    sb_world *world;
    grid_mesh grid;
    int32_t pins[2];
    sb_cloth_id cloth;
} scene;

/* A 10 x 10 cloth of 1 m at z = 1, pinned at two corners when `pinned`. */
static scene make_scene(const sb_world_def *wdef, bool pinned)
{
    scene s = {.grid = grid_mesh_make(10, 1.0, 1.0), .pins = {0, 9}};
    cr_assert_eq(sb_world_create(wdef, &s.world), SB_OK, "%s", sb_last_error());
    sb_cloth_def def = sb_default_cloth_def();
    def.vertex_count = s.grid.vertex_count;
    def.positions = s.grid.positions;
    def.triangle_count = s.grid.triangle_count;
    def.triangles = s.grid.triangles;
    if (pinned) def.pin_count = 2, def.pins = s.pins;
    cr_assert_eq(sb_world_add_cloth(s.world, &def, &s.cloth), SB_OK, "%s", sb_last_error());
    return s;
}

static void free_scene(scene *s)
{
    sb_world_destroy(s->world);
    grid_mesh_free(&s->grid);
}

static sb_failure expect_failure(sb_world *w, double until, sb_failure_kind kind, const char *needle)
{
    sb_result r = sb_world_step_to(w, until);
    cr_assert_eq(r, SB_ERROR_SOLVER, "got %s: %s", sb_result_name(r), sb_last_error());
    cr_assert(strstr(sb_last_error(), needle), "message \"%s\" lacks \"%s\"", sb_last_error(), needle);
    sb_failure f;
    cr_assert_eq(sb_world_get_failure(w, &f), SB_OK);
    cr_assert_eq(f.kind, kind, "kind %d, expected %d", f.kind, kind);
    cr_assert_float_eq(f.time, sb_world_get_time(w), 0.0, "the world stays where the failed step began");
    return f;
}

Test(failure, energy_blow_up_is_caught_by_the_speed_limit)
{
    sb_world_def wdef = sb_default_world_def();
    wdef.max_speed = 0.5; /* a free fall passes 0.5 m/s after 51 ms */
    scene s = make_scene(&wdef, false);
    sb_failure f = expect_failure(s.world, 1.0, SB_FAILURE_SPEED, "max_speed");
    cr_assert_eq(f.object_kind, SB_OBJECT_CLOTH);
    cr_assert_eq(f.object, s.cloth.index);
    cr_assert(f.speed > 0.5, "speed %g", f.speed);
    cr_assert(f.time > 0.04 && f.time < 0.06, "failed at t = %g s", f.time);
    double v[300];
    cr_assert_eq(sb_cloth_get_velocities(s.world, s.cloth, v, 100), SB_OK);
    for (int k = 0; k < 300; k++) cr_assert(fabs(v[k]) <= 0.5, "the kept state is the last good one");
    free_scene(&s);
}

Test(failure, pins_that_jump_tear_the_cloth_and_say_so)
{
    sb_world_def wdef = sb_default_world_def();
    wdef.max_speed = INFINITY;
    scene s = make_scene(&wdef, true);
    cr_assert_eq(sb_world_step_to(s.world, 0.1), SB_OK, "%s", sb_last_error());
    double far[6] = {-0.5, -0.5, 10001.0, 0.4, -0.5, 10001.0}; /* 10 km up within one frame */
    cr_assert_eq(sb_cloth_set_pin_targets(s.world, s.cloth, 0.1 + 1.0 / 24.0, far, 2), SB_OK);
    sb_failure f = expect_failure(s.world, 0.2, SB_FAILURE_STRAIN, "pins");
    cr_assert_eq(f.object_kind, SB_OBJECT_CLOTH);
    cr_assert(f.strain_change > wdef.max_strain_change);
    cr_assert(f.step < 2.0 * wdef.min_step, "it tried down to the smallest step, last %g s", f.step);
    free_scene(&s);
}

Test(failure, a_linear_solve_that_cannot_converge_says_so)
{
    sb_world_def wdef = sb_default_world_def();
    wdef.cg_max_iterations = 1;
    wdef.min_step = wdef.max_step; /* no smaller step to fall back on */
    scene s = make_scene(&wdef, true);
    sb_failure f = expect_failure(s.world, 1.0, SB_FAILURE_CG, "conjugate gradient");
    cr_assert_eq(f.cg_iterations, 1);
    cr_assert(f.cg_residual > 1e-2, "residual %g", f.cg_residual);
    free_scene(&s);
}

Test(failure, the_world_goes_on_after_a_failure_and_clears_it)
{
    sb_world_def wdef = sb_default_world_def();
    wdef.max_speed = INFINITY;
    scene s = make_scene(&wdef, true);
    double far[6] = {-0.5, -0.5, 10001.0, 0.4, -0.5, 10001.0};
    cr_assert_eq(sb_cloth_set_pin_targets(s.world, s.cloth, 1.0 / 24.0, far, 2), SB_OK);
    expect_failure(s.world, 0.1, SB_FAILURE_STRAIN, "strain");
    double home[6] = {-0.5, -0.5, 1.0, 0.4, -0.5, 1.0};
    cr_assert_eq(sb_cloth_set_pin_targets(s.world, s.cloth, sb_world_get_time(s.world) + 1.0, home, 2), SB_OK);
    cr_assert_eq(sb_world_step_to(s.world, sb_world_get_time(s.world) + 0.5), SB_OK, "%s", sb_last_error());
    sb_failure f;
    cr_assert_eq(sb_world_get_failure(s.world, &f), SB_OK);
    cr_assert_eq(f.kind, SB_FAILURE_NONE);
    free_scene(&s);
}

Test(failure, a_rigid_body_beyond_the_speed_limit_is_named)
{
    sb_world_def wdef = sb_default_world_def();
    sb_world *w = NULL;
    cr_assert_eq(sb_world_create(&wdef, &w), SB_OK);
    sb_body_def calm = sb_default_body_def(), wild = calm;
    calm.shape = wild.shape = SB_SHAPE_SPHERE;
    calm.radius = wild.radius = 0.1;
    wild.center[0] = 5.0;
    wild.linear_velocity[0] = 2000.0;
    sb_body_id calm_id, wild_id;
    cr_assert_eq(sb_world_add_body(w, &calm, &calm_id), SB_OK);
    cr_assert_eq(sb_world_add_body(w, &wild, &wild_id), SB_OK);
    sb_failure f = expect_failure(w, 0.1, SB_FAILURE_SPEED, "body 1");
    cr_assert_eq(f.object_kind, SB_OBJECT_BODY);
    cr_assert_eq(f.object, wild_id.index);
    cr_assert_float_eq(f.speed, 2000.0, 1.0);
    sb_world_destroy(w);
}

Test(failure, the_speed_limit_must_be_positive)
{
    sb_world_def wdef = sb_default_world_def();
    sb_world *w = NULL;
    const double bad[] = {0.0, -1.0, NAN};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        wdef.max_speed = bad[i];
        cr_assert_eq(sb_world_create(&wdef, &w), SB_ERROR_INVALID_ARGUMENT);
        cr_assert(strstr(sb_last_error(), "max_speed"));
    }
    cr_assert_eq(sb_world_get_failure(NULL, NULL), SB_ERROR_INVALID_ARGUMENT);
}

/* Each cloth's figures are its own: the second cloth's linear solve fails before it measures
 * speed or strain, and the failure must not carry the first cloth's. */
Test(failure, a_failing_cloth_reports_its_own_figures_not_the_one_before_it)
{
    sb_world_def wdef = sb_default_world_def();
    wdef.cg_max_iterations = 1;
    wdef.min_step = wdef.max_step;
    sb_world *w;
    cr_assert_eq(sb_world_create(&wdef, &w), SB_OK);
    grid_mesh first = grid_mesh_make(6, 1.0, 1.0), second = grid_mesh_make(10, 1.0, 3.0);
    /* almost no stiffness: the system is its mass matrix, which one Jacobi iteration solves */
    sb_cloth_def soft = grid_cloth_def(&first);
    soft.stretch_stiffness = soft.shear_stiffness = 1e-9, soft.bend_stiffness = 1e-15, soft.damping = 0.0;
    int32_t pins[2] = {0, 9};
    sb_cloth_id soft_id, stiff_id;
    cr_assert_eq(sb_world_add_cloth(w, &soft, &soft_id), SB_OK, "%s", sb_last_error());
    sb_cloth_def stiff = grid_cloth_def(&second);
    stiff.pin_count = 2, stiff.pins = pins;
    cr_assert_eq(sb_world_add_cloth(w, &stiff, &stiff_id), SB_OK, "%s", sb_last_error());
    sb_failure f = expect_failure(w, 1.0, SB_FAILURE_CG, "conjugate gradient");
    cr_assert_eq(f.object, stiff_id.index);
    cr_assert_eq(f.speed, 0.0, "the failed cloth never measured a speed, yet %g m/s was reported", f.speed);
    cr_assert_eq(f.strain_change, 0.0, "strain change %g", f.strain_change);
    sb_world_destroy(w);
    grid_mesh_free(&first), grid_mesh_free(&second);
}

Test(failure, an_explicit_integrator_past_its_tolerance_says_so_by_kind)
{
    sb_world_def wdef = sb_default_world_def();
    wdef.integrator = SB_INTEGRATOR_EXPLICIT_EULER;
    wdef.error_tolerance = 1e-12;
    wdef.min_step = wdef.max_step / 4;
    scene s = make_scene(&wdef, true);
    sb_failure f = expect_failure(s.world, 1.0, SB_FAILURE_TOLERANCE, "error_tolerance");
    cr_assert_eq(f.object_kind, SB_OBJECT_NONE);
    free_scene(&s);
}
