/* Cloth physics through the public API: free fall, settling, resolution independence,
 * animated pins, and the explicit integrators against the implicit one. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "simbake.h"
#include "testutil.h"

static const double g = 9.81;

typedef struct scene {
    sb_world *world;
    sb_cloth_id cloth;
    grid_mesh mesh;
} scene;

/* Square grid cloth in the plane z = 0 pinned at its corners (0, 0) and (n-1, 0)
 * (pin_count 2) or not at all (pin_count 0). */
static scene make_scene(int32_t n, const sb_world_def *wdef, sb_cloth_def cdef, int pin_count)
{
    scene s = {.mesh = grid_mesh_make(n, 1.0, 0.0)};
    int32_t pins[2] = {0, n - 1};
    cdef.vertex_count = s.mesh.vertex_count;
    cdef.positions = s.mesh.positions;
    cdef.triangle_count = s.mesh.triangle_count;
    cdef.triangles = s.mesh.triangles;
    cdef.pin_count = pin_count;
    cdef.pins = pins;
    cr_assert_eq(sb_world_create(wdef, &s.world), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_world_add_cloth(s.world, &cdef, &s.cloth), SB_OK, "%s", sb_last_error());
    return s;
}

static void free_scene(scene *s)
{
    sb_world_destroy(s->world);
    grid_mesh_free(&s->mesh);
}

static double *positions(const scene *s)
{
    double *x = malloc(sizeof(double) * 3 * (size_t)s->mesh.vertex_count);
    cr_assert_eq(sb_cloth_get_positions(s->world, s->cloth, x, s->mesh.vertex_count), SB_OK);
    return x;
}

/* Free fall lands at ½ g t² whatever the frame rate the caller steps at. */
static void check_free_fall(int integrator, double fps)
{
    sb_world_def wdef = sb_default_world_def();
    wdef.integrator = integrator;
    sb_cloth_def cdef = sb_default_cloth_def();
    cdef.air_drag = 0.0;
    if (integrator != SB_INTEGRATOR_IMPLICIT_EULER) { /* soft enough for explicit steps */
        cdef.stretch_stiffness = 10.0;
        cdef.shear_stiffness = 1.0;
        cdef.bend_stiffness = 1e-6;
    }
    scene s = make_scene(8, &wdef, cdef, 0);
    int frames = (int)lround(1.5 * fps);
    for (int f = 1; f <= frames; f++) cr_assert_eq(sb_world_step_to(s.world, f / fps), SB_OK, "%s", sb_last_error());
    double t = frames / fps, drop = 0.5 * g * t * t;
    double *x = positions(&s);
    for (int32_t i = 0; i < s.mesh.vertex_count; i++) {
        double fallen = s.mesh.positions[3 * i + 2] - x[3 * i + 2];
        cr_assert(fabs(fallen / drop - 1.0) < 1e-6, "fps %g integrator %d: fell %.9f m, expected %.9f m",
                  fps, integrator, fallen, drop);
        cr_assert_float_eq(x[3 * i], s.mesh.positions[3 * i], 1e-9);
    }
    double v[3 * 64];
    sb_cloth_get_velocities(s.world, s.cloth, v, s.mesh.vertex_count);
    cr_assert(fabs(-v[2] / (g * t) - 1.0) < 1e-6, "velocity %g, expected %g", -v[2], g * t);
    free(x);
    free_scene(&s);
}

Test(cloth, free_fall_is_exact_at_24_fps) { check_free_fall(SB_INTEGRATOR_IMPLICIT_EULER, 24.0); }
Test(cloth, free_fall_is_exact_at_60_fps) { check_free_fall(SB_INTEGRATOR_IMPLICIT_EULER, 60.0); }
Test(cloth, free_fall_is_exact_at_odd_rate) { check_free_fall(SB_INTEGRATOR_IMPLICIT_EULER, 7.3); }
Test(cloth, free_fall_rk4) { check_free_fall(SB_INTEGRATOR_RK4, 30.0); }
Test(cloth, free_fall_midpoint) { check_free_fall(SB_INTEGRATOR_MIDPOINT, 25.0); }

typedef struct settle_result {
    double peak_energy, final_energy;
    double peak_strain, final_strain;
    sb_world_stats stats;
} settle_result;

/* A 20x20 cloth (6x6 quick: test_quick) falls from horizontal and hangs from two corners for
 * `seconds`. */
static settle_result hang_and_settle(const sb_world_def *wdef, double stiffness, double seconds)
{
    sb_cloth_def cdef = sb_default_cloth_def();
    cdef.stretch_stiffness = stiffness;
    scene s = make_scene(test_quick() ? 6 : 20, wdef, cdef, 2);
    settle_result r = {0};
    int frames = (int)lround(24 * seconds);
    for (int f = 1; f <= frames; f++) {
        cr_assert_eq(sb_world_step_to(s.world, f / 24.0), SB_OK, "frame %d: %s", f, sb_last_error());
        sb_cloth_get_kinetic_energy(s.world, s.cloth, &r.final_energy);
        cr_assert(isfinite(r.final_energy), "frame %d: kinetic energy is not finite", f);
        r.peak_energy = fmax(r.peak_energy, r.final_energy);
        double *x = positions(&s);
        r.final_strain = grid_max_edge_strain(&s.mesh, x);
        r.peak_strain = fmax(r.peak_strain, r.final_strain);
        free(x);
    }
    sb_world_get_stats(s.world, &r.stats);
    free_scene(&s);
    return r;
}

/* Exactly one step per frame (no step is ever rejected): stiff cloth settles. */
Test(cloth, hanging_cloth_settles_at_one_step_per_frame, .timeout = 120)
{
    sb_world_def wdef = sb_default_world_def();
    wdef.max_step = 1.0 / 24.0;
    wdef.max_strain_change = 1e9;
    settle_result r = hang_and_settle(&wdef, 20000.0, 30.0);
    cr_assert_eq(r.stats.steps, 24 * 30, "took %lld steps", (long long)r.stats.steps);
    cr_assert_eq(r.stats.rejected_steps, 0);
    cr_assert_lt(r.final_energy, 1e-6 * r.peak_energy, "kinetic energy %g J, peak %g J",
                 r.final_energy, r.peak_energy);
    cr_assert_lt(r.final_strain, 0.02, "at rest an edge is stretched by %.2f%%", 100 * r.final_strain);
    /* large linearised steps stretch cloth that swings fast; bounded, never blowing up */
    cr_assert_lt(r.peak_strain, 0.5, "an edge stretched by %.1f%%", 100 * r.peak_strain);
}

/* With the step control on, no edge ever leaves 2% of its rest length. */
Test(cloth, step_control_keeps_every_edge_within_two_percent, .timeout = 120)
{
    sb_world_def wdef = sb_default_world_def();
    wdef.max_strain_change = 0.02;
    settle_result r = hang_and_settle(&wdef, 50000.0, 12.0);
    cr_assert_lt(r.peak_strain, 0.02, "an edge stretched by %.2f%%", 100 * r.peak_strain);
    cr_assert_gt(r.stats.rejected_steps, 0, "the control never had to act");
    cr_assert_lt(r.final_energy, 1e-6 * r.peak_energy);
}

/* Lowest point below the pins after the cloth has come to rest. */
static double settled_sag(int32_t n)
{
    sb_world_def wdef = sb_default_world_def();
    sb_cloth_def cdef = sb_default_cloth_def();
    cdef.stretch_stiffness = 300.0;
    cdef.shear_stiffness = 30.0;
    cdef.bend_stiffness = 1e-3;
    cdef.air_drag = 1.0;
    scene s = make_scene(n, &wdef, cdef, 2);
    for (int f = 1; f <= 24 * 12; f++)
        cr_assert_eq(sb_world_step_to(s.world, f / 24.0), SB_OK, "%s", sb_last_error());
    double *x = positions(&s), lowest = 0.0;
    for (int32_t i = 0; i < s.mesh.vertex_count; i++) lowest = fmin(lowest, x[3 * i + 2]);
    free(x);
    free_scene(&s);
    return -lowest;
}

Test(cloth, sag_does_not_depend_on_resolution, .timeout = 240)
{
    int32_t n = test_quick() ? 6 : 20;
    double coarse = settled_sag(n), fine = settled_sag(2 * n);
    cr_assert_gt(coarse, 0.5);
    cr_assert(fabs(fine / coarse - 1.0) < 0.05, "sag %.4f m at %dx%d, %.4f m at %dx%d", coarse, n, n, fine, 2 * n,
              2 * n);
}

Test(cloth, animated_pins_land_on_their_targets)
{
    sb_world_def wdef = sb_default_world_def();
    scene s = make_scene(10, &wdef, sb_default_cloth_def(), 2);
    double start[6] = {s.mesh.positions[0], s.mesh.positions[1], s.mesh.positions[2],
                       s.mesh.positions[27], s.mesh.positions[28], s.mesh.positions[29]};
    for (int f = 1; f <= 48; f++) {
        double t = f / 24.0, shift = 0.5 * sin(t * 3.0), targets[6];
        for (int k = 0; k < 6; k++) targets[k] = start[k] + (k % 3 == 0 ? shift : 0.0);
        cr_assert_eq(sb_cloth_set_pin_targets(s.world, s.cloth, t, targets, 2), SB_OK, "%s", sb_last_error());
        cr_assert_eq(sb_world_step_to(s.world, t), SB_OK, "%s", sb_last_error());
        double *x = positions(&s);
        for (int k = 0; k < 3; k++) {
            cr_assert_float_eq(x[k], targets[k], 1e-12);
            cr_assert_float_eq(x[27 + k], targets[3 + k], 1e-12);
        }
        free(x);
    }
    free_scene(&s);
}

/* A soft cloth integrated by RK4 with a tight error bound and by implicit Euler with
 * small steps ends in the same place: both paths see the same forces. */
Test(cloth, explicit_and_implicit_agree_on_soft_cloth, .timeout = 120)
{
    sb_cloth_def cdef = sb_default_cloth_def();
    cdef.stretch_stiffness = 20.0;
    cdef.shear_stiffness = 5.0;
    cdef.bend_stiffness = 1e-4;
    /* the explicit integrators do not limit strain; this soft cloth stretches past 10% */
    cdef.max_stretch = cdef.max_compression = 0.0;
    sb_world_def explicit_def = sb_default_world_def();
    explicit_def.integrator = SB_INTEGRATOR_RK4;
    explicit_def.error_tolerance = 1e-7;
    sb_world_def implicit_def = sb_default_world_def();
    implicit_def.max_step = 1.0 / 4000.0;
    implicit_def.cg_tolerance = 1e-8;
    scene a = make_scene(6, &explicit_def, cdef, 2), b = make_scene(6, &implicit_def, cdef, 2);
    cr_assert_eq(sb_world_step_to(a.world, 0.4), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_world_step_to(b.world, 0.4), SB_OK, "%s", sb_last_error());
    double *xa = positions(&a), *xb = positions(&b), worst = 0.0, moved = 0.0;
    for (int32_t i = 0; i < 3 * a.mesh.vertex_count; i++) {
        worst = fmax(worst, fabs(xa[i] - xb[i]));
        moved = fmax(moved, fabs(xa[i] - a.mesh.positions[i]));
    }
    cr_assert_gt(moved, 0.3);
    cr_assert_lt(worst, 2e-3, "RK4 and implicit Euler differ by %g m", worst);
    free(xa), free(xb);
    free_scene(&a), free_scene(&b);
}
