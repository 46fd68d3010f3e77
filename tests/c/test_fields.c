/* Force fields on cloth, against what they must do: a uniform push accelerates a free patch at
 * F/m, drag slows it exponentially at c/ρ, a harmonic field makes it oscillate at √(k/ρ), wind
 * presses a patch facing it and not one edge-on; Blender's falloff; the noise is
 * deterministic; animated fields are followed and resume bit for bit from a saved state. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cloth.h"
#include "cloth_forces.h"
#include "field_noise.h"
#include "simbake.h"
#include "testutil.h"

static const double density = 0.15; /* sb_default_cloth_def's */

/* CG to round-off, so a uniform motion comes out exact rather than within 1e-3 a step. */
static sb_world *world_without_gravity(double max_step)
{
    sb_world_def wdef = sb_default_world_def();
    wdef.gravity[2] = 0.0, wdef.max_step = max_step, wdef.cg_tolerance = 1e-12;
    sb_world *w;
    cr_assert_eq(sb_world_create(&wdef, &w), SB_OK, "%s", sb_last_error());
    return w;
}

/* A free 5 x 5 patch of `size` at height z, without air drag. */
static sb_cloth_id add_patch(sb_world *w, grid_mesh *g, double size, double z)
{
    *g = grid_mesh_make(5, size, z);
    sb_cloth_def def = grid_cloth_def(g);
    def.air_drag = 0.0;
    sb_cloth_id patch;
    cr_assert_eq(sb_world_add_cloth(w, &def, &patch), SB_OK, "%s", sb_last_error());
    return patch;
}

/* The patch's mean position (or velocity) along z. */
static double mean_z(const sb_world *w, sb_cloth_id patch, bool velocity)
{
    double x[3 * 25];
    cr_assert_eq((velocity ? sb_cloth_get_velocities : sb_cloth_get_positions)(w, patch, x, 25), SB_OK);
    double sum = 0.0;
    for (int i = 0; i < 25; i++) sum += x[3 * i + 2];
    return sum / 25.0;
}

/* A Force field of shape PLANE across +z pushes everything above it straight up, uniformly. */
static sb_field_def upward_push(double strength)
{
    sb_field_def def = sb_default_field_def();
    def.type = SB_FIELD_FORCE, def.shape = SB_FIELD_PLANE, def.strength = strength;
    return def;
}

/* A constant acceleration is integrated exactly (cloth_step.c: c = ½ h² ā, with the fields'
 * push in the first ā too): z(t) = ½ a t². */
static double pushed(double a, double t) { return 0.5 * a * t * t; }

Test(fields, a_uniform_force_accelerates_a_free_patch_at_f_over_m)
{
    const double weights[] = {1.0, 0.5, 0.0};
    for (int k = 0; k < 3; k++) {
        sb_world *w = world_without_gravity(1.0 / 24.0);
        grid_mesh g;
        sb_cloth_id patch = add_patch(w, &g, 0.4, 1.0);
        sb_field_def def = upward_push(0.6); /* N/m² */
        sb_field_id field;
        cr_assert_eq(sb_world_add_field(w, &def, &field), SB_OK, "%s", sb_last_error());
        cr_assert_eq(sb_cloth_set_field_weight(w, patch, field, weights[k]), SB_OK, "%s", sb_last_error());
        cr_assert_eq(sb_world_step_to(w, 0.5), SB_OK, "%s", sb_last_error());
        double expected = pushed(weights[k] * 0.6 / density, 0.5), moved = mean_z(w, patch, false) - 1.0;
        cr_expect(fabs(moved - expected) < 1e-9, "weight %g: the patch rose %.12g m, F/m predicts %.12g m", weights[k],
                  moved, expected);
        sb_world_destroy(w);
        grid_mesh_free(&g);
    }
}

Test(fields, an_animated_strength_is_followed)
{
    /* strength ramps 0 -> s over [0, T]: a = (s/ρ) t/T, so z(T) = (s/ρ) T²/6 */
    sb_world *w = world_without_gravity(1.0 / 240.0);
    grid_mesh g;
    sb_cloth_id patch = add_patch(w, &g, 0.4, 1.0);
    sb_field_def def = upward_push(0.0);
    sb_field_id field;
    cr_assert_eq(sb_world_add_field(w, &def, &field), SB_OK, "%s", sb_last_error());
    const double here[3] = {0, 0, 0}, up[3] = {0, 0, 1}, T = 0.5, s = 0.9;
    for (int frame = 1; frame <= 12; frame++) { /* one target per frame, as the add-on sends them */
        double t = T * frame / 12.0;
        cr_assert_eq(sb_field_set_target(w, field, t, here, up, s * t / T), SB_OK, "%s", sb_last_error());
        cr_assert_eq(sb_world_step_to(w, t), SB_OK, "%s", sb_last_error());
    }
    /* backward Euler takes each step's force at its end: for a ramp that leads by O(h), here
     * (summing the steps) a rise of α T³/6 + α h T²/4, 1.5 h/T = 1.25% more than the exact */
    double alpha = s / density / T, h = 1.0 / 240.0;
    double expected = alpha * T * T * T / 6.0 + alpha * h * T * T / 4.0, moved = mean_z(w, patch, false) - 1.0;
    cr_expect(fabs(moved / expected - 1.0) < 1e-3, "the patch rose %.6g m under the ramp, expected %.6g m", moved,
              expected);
    sb_world_destroy(w);
    grid_mesh_free(&g);
}

Test(fields, drag_slows_a_moving_patch_exponentially)
{
    const double c = 0.3, lambda = c / density; /* 1/s */
    sb_world *w = world_without_gravity(1.0 / 240.0);
    grid_mesh g;
    sb_cloth_id patch = add_patch(w, &g, 0.4, 1.0);
    sb_field_def push = upward_push(1.5), drag = sb_default_field_def();
    drag.type = SB_FIELD_DRAG, drag.linear_drag = c;
    sb_field_id pushing, dragging;
    cr_assert_eq(sb_world_add_field(w, &push, &pushing), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_world_add_field(w, &drag, &dragging), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_world_step_to(w, 0.2), SB_OK, "%s", sb_last_error());
    const double here[3] = {0, 0, 0}, up[3] = {0, 0, 1};
    cr_assert_eq(sb_field_set_target(w, pushing, 0.2 + 1.0 / 240.0, here, up, 0.0), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_world_step_to(w, 0.3), SB_OK, "%s", sb_last_error());
    double v1 = mean_z(w, patch, true);
    cr_assert_eq(sb_world_step_to(w, 0.8), SB_OK, "%s", sb_last_error());
    double v2 = mean_z(w, patch, true), expected = exp(-lambda * 0.5);
    cr_assert_gt(v1, 0.1, "the push did not set the patch moving (%g m/s)", v1);
    cr_expect(fabs(v2 / v1 / expected - 1.0) < 0.01, "drag kept %.5f of the speed over 0.5 s, e^(-c t/ρ) = %.5f",
              v2 / v1, expected);
    sb_world_destroy(w);
    grid_mesh_free(&g);
}

Test(fields, a_harmonic_field_oscillates_a_small_patch_at_sqrt_k_over_m)
{
    const double omega = 6.283185307179586, k = density * omega * omega; /* period 1 s */
    sb_world *w = world_without_gravity(1.0 / 240.0);
    grid_mesh g;
    sb_cloth_id patch = add_patch(w, &g, 0.02, 0.1);
    sb_field_def def = sb_default_field_def();
    def.type = SB_FIELD_HARMONIC, def.strength = k;
    sb_field_id field;
    cr_assert_eq(sb_world_add_field(w, &def, &field), SB_OK, "%s", sb_last_error());
    double crossings[4], previous = mean_z(w, patch, false);
    int found = 0;
    for (int i = 1; i <= 240 * 4 && found < 4; i++) {
        double t = i / 240.0;
        cr_assert_eq(sb_world_step_to(w, t), SB_OK, "%s", sb_last_error());
        double z = mean_z(w, patch, false);
        if (previous < 0.0 && z >= 0.0) crossings[found++] = t - 1.0 / 240.0 * z / (z - previous);
        previous = z;
    }
    cr_assert_eq(found, 4, "the patch crossed the field's centre upwards %d times in 4 s", found);
    for (int i = 1; i < 4; i++)
        cr_expect(fabs(crossings[i] - crossings[i - 1] - 1.0) < 0.01, "period %d: %.4f s, 2π/√(k/ρ) = 1 s", i,
                  crossings[i] - crossings[i - 1]);
    sb_world_destroy(w);
    grid_mesh_free(&g);
}

Test(fields, wind_presses_a_patch_facing_it_and_not_one_edge_on)
{
    for (int edge_on = 0; edge_on < 2; edge_on++) {
        sb_world *w = world_without_gravity(1.0 / 24.0);
        grid_mesh g;
        sb_cloth_id patch = add_patch(w, &g, 0.4, 1.0);
        sb_field_def def = sb_default_field_def();
        def.type = SB_FIELD_WIND, def.strength = 0.45, def.position[0] = -3.0;
        def.axis[0] = edge_on ? 1.0 : 0.0, def.axis[2] = edge_on ? 0.0 : 1.0;
        sb_field_id field;
        cr_assert_eq(sb_world_add_field(w, &def, &field), SB_OK, "%s", sb_last_error());
        cr_assert_eq(sb_world_step_to(w, 0.5), SB_OK, "%s", sb_last_error());
        double x[3 * 25];
        cr_assert_eq(sb_cloth_get_positions(w, patch, x, 25), SB_OK);
        double worst = 0.0, expected = edge_on ? 0.0 : pushed(0.45 / density, 0.5);
        for (int i = 0; i < 25; i++) {
            worst = fmax(worst, fabs(x[3 * i + 2] - 1.0 - expected));
            worst = fmax(worst, fabs(x[3 * i] - g.positions[3 * i]));
        }
        cr_expect(worst < 1e-9, "%s: a vertex is %.3g m from where the pressure p A / m puts it",
                  edge_on ? "edge-on" : "facing the wind", worst);
        sb_world_destroy(w);
        grid_mesh_free(&g);
    }
}

Test(fields, wind_on_a_tilted_patch_is_the_pressure_times_the_cosine_along_its_normal)
{
    grid_mesh g = grid_mesh_make(4, 0.5, 0.0);
    const double tilt = 0.7; /* about x */
    for (int i = 0; i < g.vertex_count; i++) {
        double y = g.positions[3 * i + 1];
        g.positions[3 * i + 1] = y * cos(tilt), g.positions[3 * i + 2] = y * sin(tilt);
    }
    sb_cloth_def cdef = grid_cloth_def(&g);
    cdef.air_drag = 0.0;
    const double no_gravity[3] = {0, 0, 0};
    cloth *c = NULL;
    cr_assert_eq(cloth_create(&cdef, 0.0, no_gravity, &c), SB_OK, "%s", sb_last_error());
    sb_field_def def = sb_default_field_def();
    def.type = SB_FIELD_WIND, def.strength = 2.0;
    force_field field;
    field_init(&field, &def, 0.0);
    force_field *list[1] = {&field};
    field_list fields = {list, 1, 0, 0.0};
    size_t n = 3 * (size_t)g.vertex_count;
    double *v = calloc(n, sizeof *v), *f = malloc(n * sizeof *f);
    cloth_forces(c, 0.0, g.positions, v, no_gravity, &fields, f);
    vec3 total = v3(0, 0, 0), normal = v3(0, -sin(tilt), cos(tilt));
    for (int i = 0; i < g.vertex_count; i++) total = v3_add(total, v3_load(&f[3 * i]));
    vec3 expected = v3_scale(normal, 2.0 * 0.25 * cos(tilt)); /* p A cos θ n̂ */
    cr_expect(v3_len(v3_sub(total, expected)) < 1e-12, "total wind force (%g, %g, %g), expected (%g, %g, %g)", total.x,
              total.y, total.z, expected.x, expected.y, expected.z);
    free(v), free(f);
    cloth_destroy(c);
    grid_mesh_free(&g);
}

static double falloff_at(const sb_field_def *def, vec3 x)
{
    force_field field;
    field_init(&field, def, 0.0);
    return field_sample_at(&field, &field.from, 1.0, 0.0, x).falloff;
}

Test(fields, falloff_follows_blender_at_min_and_max_distance_and_power)
{
    sb_field_def def = sb_default_field_def();
    def.type = SB_FIELD_FORCE, def.falloff_power = 2.0;
    cr_expect_float_eq(falloff_at(&def, v3(0, 2, 0)), 1.0 / 9.0, 1e-15, "(1 + r)^-power");
    def.use_min_distance = 1, def.min_distance = 1.0, def.use_max_distance = 1, def.max_distance = 3.0;
    cr_expect_eq(falloff_at(&def, v3(0.5, 0, 0)), 1.0, "full strength within min_distance");
    cr_expect_float_eq(falloff_at(&def, v3(0, 0, 2)), 0.25, 1e-15, "(1 + r - min)^-power");
    cr_expect_float_eq(falloff_at(&def, v3(0, 0, 3)), 1.0 / 9.0, 1e-15, "at max_distance itself");
    cr_expect_eq(falloff_at(&def, v3(3.01, 0, 0)), 0.0, "nothing beyond max_distance");
    /* tube: along the axis by the distance, across it by the radius */
    def = sb_default_field_def();
    def.falloff = SB_FALLOFF_TUBE, def.falloff_power = 1.0, def.radial_power = 2.0;
    def.use_max_radius = 1, def.max_radius = 1.5;
    cr_expect_float_eq(falloff_at(&def, v3(1, 0, 2)), (1.0 / 3.0) * 0.25, 1e-15, "tube: (1+|z|)^-1 (1+ρ)^-2");
    cr_expect_eq(falloff_at(&def, v3(0, 1.6, 0)), 0.0, "tube: nothing beyond max_radius");
    /* side: only where the axis points */
    def = sb_default_field_def();
    def.side = SB_FIELD_POSITIVE_SIDE;
    cr_expect_eq(falloff_at(&def, v3(0, 0, -0.1)), 0.0, "positive side only");
    cr_expect_eq(falloff_at(&def, v3(0, 0, 0.1)), 1.0, "positive side only");
}

/* Found by fuzz_cloth_features: a turbulence field met a cloth whose trial positions were NaN
 * (a pressure of DBL_MAX blew the step up), and the noise converted NaN to an int64 lattice
 * index (undefined behaviour; NaN noise on x86). Points no lattice index can hold get none. */
Test(fields, the_noise_is_zero_where_no_lattice_index_holds_the_point)
{
    const double bad[] = {NAN, INFINITY, -INFINITY, 1e300, -1e19, 9.3e18};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_assert_eq(noise_value3(bad[i], 0.5, 0.5, 7), 0.0, "noise at x = %g", bad[i]);
        cr_assert_eq(noise_value3(0.5, bad[i], 0.5, 7), 0.0, "noise at y = %g", bad[i]);
        cr_assert_eq(noise_value3(0.5, 0.5, bad[i], 7), 0.0, "noise at z = %g", bad[i]);
        vec3 t = noise_turbulence3(v3(bad[i], 0.0, 0.0), 7);
        cr_assert(t.x == 0.0 && t.y == 0.0 && t.z == 0.0, "turbulence at x = %g", bad[i]);
    }
    double near_limit = noise_value3(4.0e18, -4.0e18, 0.25, 7); /* still held: finite noise */
    cr_assert(fabs(near_limit) <= 1.0, "noise %g near the int64 limit", near_limit);
}

Test(fields, the_noise_is_deterministic_smooth_and_bounded_for_one_seed)
{
    test_rng rng = rng_seed(5);
    double largest = 0.0;
    for (int i = 0; i < 2000; i++) {
        vec3 p = v3(rng_uniform(&rng, -50, 50), rng_uniform(&rng, -50, 50), rng_uniform(&rng, -50, 50));
        double a = noise_value3(p.x, p.y, p.z, 7), b = noise_value3(p.x, p.y, p.z, 7);
        cr_assert(memcmp(&a, &b, sizeof a) == 0, "the same point and seed gave two values");
        cr_assert(fabs(a) <= 1.0, "noise %g outside [-1, 1]", a);
        double step = fabs(noise_value3(p.x + 1e-6, p.y, p.z, 7) - a);
        cr_assert_lt(step, 1e-4, "the noise jumps by %g over 1e-6", step);
        largest = fmax(largest, fabs(a));
        vec3 t = noise_turbulence3(p, 7);
        cr_assert(fabs(t.x) <= 1.0 && fabs(t.y) <= 1.0 && fabs(t.z) <= 1.0, "turbulence outside [-1, 1]³");
    }
    cr_expect_gt(largest, 0.5, "the noise hardly varies (largest %g)", largest);
    int differ = 0;
    for (int i = 0; i < 100; i++) differ += noise_value3(0.37 * i, 0.11 * i, 0.5, 7) != noise_value3(0.37 * i, 0.11 * i, 0.5, 8);
    cr_expect_gt(differ, 90, "another seed gives the same noise at %d of 100 points", 100 - differ);
}

/* A patch in a turbulence field with noisy strength, seed `seed`: its positions at 0.5 s. */
static void turbulent_bake(int32_t seed, double out[3 * 25])
{
    sb_world *w = world_without_gravity(1.0 / 24.0);
    grid_mesh g;
    sb_cloth_id patch = add_patch(w, &g, 0.4, 1.0);
    sb_field_def def = sb_default_field_def();
    def.type = SB_FIELD_TURBULENCE, def.strength = 1.0, def.noise = 0.5, def.seed = seed, def.noise_size = 0.3;
    sb_field_id field;
    cr_assert_eq(sb_world_add_field(w, &def, &field), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_world_step_to(w, 0.5), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_cloth_get_positions(w, patch, out, 25), SB_OK);
    sb_world_destroy(w);
    grid_mesh_free(&g);
}

Test(fields, a_turbulent_bake_repeats_bit_for_bit_for_one_seed)
{
    double a[75], b[75], c[75];
    turbulent_bake(3, a), turbulent_bake(3, b), turbulent_bake(4, c);
    cr_expect(memcmp(a, b, sizeof a) == 0, "two bakes with seed 3 differ");
    cr_expect(memcmp(a, c, sizeof a) != 0, "seeds 3 and 4 bake the same");
    double moved = 0.0;
    for (int i = 0; i < 75; i++) moved = fmax(moved, fabs(a[i] - (i % 3 == 2 ? 1.0 : a[i])));
    cr_expect_gt(moved, 1e-3, "the turbulence hardly moved the patch (%g m)", moved);
}

static void expect_refused(sb_world *w, const sb_field_def *def, const char *needle)
{
    sb_field_id field = {-1};
    cr_expect_eq(sb_world_add_field(w, def, &field), SB_ERROR_INVALID_ARGUMENT, "accepted a field that says '%s'",
                 needle);
    cr_expect(strstr(sb_last_error(), needle), "message '%s' does not say '%s'", sb_last_error(), needle);
    cr_expect_eq(field.index, -1, "a refused field got an id");
}

Test(fields, bad_definitions_and_calls_are_refused_with_reasons)
{
    sb_world *w = world_without_gravity(1.0 / 24.0);
    sb_field_def d = sb_default_field_def();
    d.type = (sb_field_type)9;
    expect_refused(w, &d, "field type 9");
    d = sb_default_field_def(), d.shape = (sb_field_shape)-1;
    expect_refused(w, &d, "field shape -1");
    d = sb_default_field_def(), d.strength = NAN;
    expect_refused(w, &d, "strength must be finite");
    d = sb_default_field_def(), d.flow = -0.5;
    expect_refused(w, &d, "flow must be zero or positive");
    d = sb_default_field_def(), d.falloff_power = -1.0;
    expect_refused(w, &d, "falloff_power must be zero or positive");
    d = sb_default_field_def(), d.axis[2] = 0.0;
    expect_refused(w, &d, "axis (0, 0, 0)");
    d = sb_default_field_def(), d.position[1] = 1e8;
    expect_refused(w, &d, "position is not finite or beyond");
    d = sb_default_field_def(), d.noise_size = 0.0;
    expect_refused(w, &d, "noise_size");
    cr_expect_eq(sb_world_add_field(w, NULL, &(sb_field_id){0}), SB_ERROR_INVALID_ARGUMENT);

    grid_mesh g;
    sb_cloth_id patch = add_patch(w, &g, 0.4, 1.0);
    d = sb_default_field_def();
    sb_field_id field;
    cr_assert_eq(sb_world_add_field(w, &d, &field), SB_OK, "%s", sb_last_error());
    const double here[3] = {0, 0, 0}, up[3] = {0, 0, 1}, none[3] = {0, 0, 0};
    cr_expect_eq(sb_field_set_target(w, field, 0.0, here, up, 1.0), SB_ERROR_INVALID_ARGUMENT, "a target now");
    cr_expect(strstr(sb_last_error(), "after the world time"), "%s", sb_last_error());
    cr_expect_eq(sb_field_set_target(w, field, 1.0, here, none, 1.0), SB_ERROR_INVALID_ARGUMENT);
    cr_expect(strstr(sb_last_error(), "target axis"), "%s", sb_last_error());
    cr_expect_eq(sb_field_set_target(w, field, 1.0, here, up, INFINITY), SB_ERROR_INVALID_ARGUMENT);
    cr_expect_eq(sb_field_set_target(w, (sb_field_id){1}, 1.0, here, up, 1.0), SB_ERROR_NOT_FOUND);
    cr_expect(strstr(sb_last_error(), "no field with id 1"), "%s", sb_last_error());
    cr_expect_eq(sb_cloth_set_field_weight(w, patch, field, NAN), SB_ERROR_INVALID_ARGUMENT);
    cr_expect_eq(sb_cloth_set_field_weight(w, (sb_cloth_id){3}, field, 1.0), SB_ERROR_NOT_FOUND);
    cr_expect_eq(sb_cloth_set_field_weight(w, patch, (sb_field_id){5}, 1.0), SB_ERROR_NOT_FOUND);
    sb_world_destroy(w);
    grid_mesh_free(&g);
}
