/* Wind on strands (strand_wind.c): drag across each segment, the normal part of the relative
 * flow. Its velocity Jacobian in the implicit system against finite differences of the force;
 * a segment along the wind feels nothing and one across it s per metre; a free rope in a wind
 * of speed U = s / flow without gravity is carried at U, as linear drag gives, and a drag far
 * stiffer than the step brings it there without overshoot (the implicit drag); and a rope
 * pinned at its top settles at tan θ = F / (μ g), the force balance per metre. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "cloth_forces.h"
#include "strands.h"
#include "system_fixture.h"
#include "testutil.h"

static const double no_gravity[3] = {0.0, 0.0, 0.0};
static const double PI = 3.14159265358979323846;

/* One strand of n vertices from `positions`, unpinned, with no forces of its own. */
static cloth *bare_strand(const double *positions, int32_t n)
{
    sb_strand_def d = sb_default_strand_def();
    d.positions = positions, d.vertex_count = n, d.strand_count = 1, d.strand_vertex_counts = &n;
    d.stretch_stiffness = d.bend_stiffness = d.damping = d.air_drag = 0.0;
    cloth *c = NULL;
    cr_assert_eq(strands_create(&d, 0.0, no_gravity, &c), SB_OK, "%s", sb_last_error());
    return c;
}

static sb_field_def wind(double strength, double flow, double ax, double ay, double az)
{
    sb_field_def def = sb_default_field_def();
    def.type = SB_FIELD_WIND, def.strength = strength, def.flow = flow;
    def.axis[0] = ax, def.axis[1] = ay, def.axis[2] = az;
    return def;
}

Test(strand_wind, the_drag_jacobian_in_the_system_matches_finite_differences)
{
    enum { N = 9 };
    double p[3 * N];
    for (int i = 0; i < N; i++) p[3 * i] = 0.08 * i, p[3 * i + 1] = 0.05 * sin(1.3 * i), p[3 * i + 2] = 0.03 * cos(i);
    cloth *c = bare_strand(p, N);
    /* a falloff that varies along the strand, and a weight: the mean falloff must keep it exact */
    sb_field_def def = wind(5.0, 2.5, 0.3, 1.0, 0.4);
    def.falloff_power = 2.0, def.position[1] = -0.6;
    cr_assert_eq(field_validate(&def), SB_OK, "%s", sb_last_error());
    force_field field;
    field_init(&field, &def, 0.0);
    double weight = 0.7;
    field.cloth_weight = &weight, field.weight_count = 1;
    force_field *list[1] = {&field};
    field_list fields = {list, 1, 0, 0.0};

    test_rng rng = rng_seed(5);
    size_t n = 3 * N;
    double x[3 * N], v[3 * N], u[3 * N] = {0}, fp[3 * N], fm[3 * N];
    for (size_t k = 0; k < n; k++) x[k] = p[k] + rng_uniform(&rng, -0.02, 0.02), v[k] = rng_uniform(&rng, -0.8, 0.8);
    cloth_assemble(c, 0.0, x, v, u, no_gravity, &fields, 1.0);
    double *s1 = dense_from_bsr(&c->scratch.system);
    cloth_assemble(c, 0.0, x, v, u, no_gravity, &fields, 2.0);
    double *s2 = dense_from_bsr(&c->scratch.system);
    double *dfdx = calloc(n * n, sizeof *dfdx), *dfdv = calloc(n * n, sizeof *dfdv);
    double *dfdv_fd = calloc(n * n, sizeof *dfdv_fd);
    for (size_t r = 0; r < n; r++)
        for (size_t q = 0; q < n; q++) {
            double mass = r == q ? c->model.mass[r / 3] : 0.0;
            double a1 = s1[r * n + q] - mass, a2 = s2[r * n + q] - mass; /* -h Dv - h² Dx */
            dfdx[r * n + q] = (2.0 * a1 - a2) / 2.0;
            dfdv[r * n + q] = -a1 - dfdx[r * n + q];
        }
    const double eps = 1e-6;
    for (size_t q = 0; q < n; q++) {
        double keep = v[q];
        v[q] = keep + eps;
        cloth_forces(c, 0.0, x, v, no_gravity, &fields, fp);
        v[q] = keep - eps;
        cloth_forces(c, 0.0, x, v, no_gravity, &fields, fm);
        v[q] = keep;
        for (size_t r = 0; r < n; r++) dfdv_fd[r * n + q] = (fp[r] - fm[r]) / (2.0 * eps);
    }
    double fd_size = 0.0, dv_size = 0.0, dx_size = 0.0;
    for (size_t k = 0; k < n * n; k++)
        fd_size += dfdv_fd[k] * dfdv_fd[k], dv_size += dfdv[k] * dfdv[k], dx_size += dfdx[k] * dfdx[k];
    cr_assert_gt(sqrt(fd_size), 1e-3, "the drag's finite differences are zero: nothing tested");
    double diff = relative_difference(dfdv, dfdv_fd, n * n);
    cr_expect_lt(diff, 1e-6, "∂f/∂v differs from its finite differences by %.3g (relative)", diff);
    /* how the push turns with the segment stays explicit (unsymmetric: strand_wind.h) */
    cr_expect_lt(sqrt(dx_size), 1e-12 * sqrt(dv_size), "∂f/∂x (%.3g) is in the system", sqrt(dx_size));
    for (size_t r = 0; r < n; r++)
        for (size_t q = 0; q < r; q++)
            cr_assert_float_eq(dfdv[r * n + q], dfdv[q * n + r], 1e-12, "∂f/∂v not symmetric at %zu, %zu", r, q);
    free(s1), free(s2), free(dfdx), free(dfdv), free(dfdv_fd);
    cloth_destroy(c);
}

/* The total force of a wind on a two-segment strand at rest, straight along `dir`. */
static vec3 total_push(vec3 dir, const sb_field_def *def)
{
    double p[9];
    for (int i = 0; i < 3; i++) v3_store(&p[3 * i], v3_scale(dir, 0.25 * i));
    cloth *c = bare_strand(p, 3);
    force_field field;
    field_init(&field, def, 0.0);
    force_field *list[1] = {&field};
    field_list fields = {list, 1, 0, 0.0};
    double v[9] = {0}, f[9];
    cloth_forces(c, 0.0, p, v, no_gravity, &fields, f);
    cloth_destroy(c);
    return v3_add(v3_add(v3_load(&f[0]), v3_load(&f[3])), v3_load(&f[6]));
}

Test(strand_wind, a_segment_along_the_wind_feels_nothing_and_one_across_it_s_per_metre)
{
    sb_field_def def = wind(3.0, 0.0, 0.0, 0.0, 1.0);
    vec3 along = total_push(v3(0, 0, 1), &def);
    cr_assert_lt(v3_len(along), 1e-15, "a strand along the wind is pushed with %g N", v3_len(along));
    vec3 across = total_push(v3(1, 0, 0), &def);
    cr_assert_float_eq(across.z, 3.0 * 0.5, 1e-14, "0.5 m across a wind of 3 N/m: %g N", across.z);
    cr_assert_float_eq(across.x, 0.0, 1e-15);
    /* at 60° to the wind: the normal part, s sin 60° across the strand */
    vec3 slant = total_push(v3(sin(PI / 3), 0, cos(PI / 3)), &def);
    vec3 normal = v3(cos(PI / 3), 0, -sin(PI / 3));
    cr_assert_float_eq(v3_dot(slant, normal), -3.0 * 0.5 * sin(PI / 3), 1e-14);
    cr_assert_lt(fabs(v3_dot(slant, v3(sin(PI / 3), 0, cos(PI / 3)))), 1e-14, "a push along the strand");
}

static sb_world *world_make(void)
{
    sb_world_def wd = sb_default_world_def();
    wd.threads = 1, wd.cg_tolerance = 1e-6;
    sb_world *w = NULL;
    cr_assert_eq(sb_world_create(&wd, &w), SB_OK, "%s", sb_last_error());
    return w;
}

/* A 1 m rope of `segments` along `dir` from `start`. */
static void rope_positions(double *p, int32_t segments, const double start[3], const double dir[3])
{
    for (int32_t i = 0; i <= segments; i++)
        for (int k = 0; k < 3; k++) p[3 * i + k] = start[k] + dir[k] * i / (double)segments;
}

Test(strand_wind, a_free_rope_is_carried_at_the_winds_speed)
{
    /* linear drag c per metre on μ per metre: v = U (1 - exp(-c t / μ)) across the rope */
    enum { SEGMENTS = 10 };
    double p[3 * (SEGMENTS + 1)], v[3 * (SEGMENTS + 1)];
    const double start[3] = {0, 0, 0}, dir[3] = {1, 0, 0};
    rope_positions(p, SEGMENTS, start, dir);
    sb_world_def wd = sb_default_world_def();
    wd.threads = 1, wd.cg_tolerance = 1e-6, wd.gravity[2] = 0.0;
    sb_world *w = NULL;
    cr_assert_eq(sb_world_create(&wd, &w), SB_OK, "%s", sb_last_error());
    sb_strand_def d = sb_default_strand_def();
    int32_t count = SEGMENTS + 1;
    d.positions = p, d.vertex_count = count, d.strand_count = 1, d.strand_vertex_counts = &count;
    const double mu = d.mass_per_length, c = 0.05, speed = 2.0;
    sb_cloth_id id;
    cr_assert_eq(sb_world_add_strands(w, &d, &id), SB_OK, "%s", sb_last_error());
    sb_field_def def = wind(c * speed, c, 0.0, 1.0, 0.0);
    sb_field_id fid;
    cr_assert_eq(sb_world_add_field(w, &def, &fid), SB_OK, "%s", sb_last_error());
    const double times[] = {0.1, 1.0};
    for (int k = 0; k < 2; k++) {
        cr_assert_eq(sb_world_step_to(w, times[k]), SB_OK, "%s", sb_last_error());
        cr_assert_eq(sb_cloth_get_velocities(w, id, v, count), SB_OK);
        double expected = speed * (1.0 - exp(-c * times[k] / mu));
        for (int32_t i = 0; i < count; i++) {
            /* backward Euler lags the exponential by O(h c / μ): h = 1/24 s, c / μ = 5/s */
            cr_assert_float_eq(v[3 * i + 1], expected, 0.06 * speed, "t = %g: vertex %d at %g m/s, expected %g",
                               times[k], (int)i, v[3 * i + 1], expected);
            cr_assert_lt(fabs(v[3 * i]) + fabs(v[3 * i + 2]), 1e-9, "the rope moved along itself or up");
        }
    }
    /* and no faster than the wind: after 3 s (15 time constants) it moves with the air */
    cr_assert_eq(sb_world_step_to(w, 3.0), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_cloth_get_velocities(w, id, v, count), SB_OK);
    for (int32_t i = 0; i < count; i++)
        cr_assert_float_eq(v[3 * i + 1], speed, 1e-3 * speed, "after 3 s: vertex %d at %g m/s", (int)i, v[3 * i + 1]);
    sb_world_destroy(w);
}

Test(strand_wind, a_drag_far_stiffer_than_the_step_stays_stable)
{
    /* c / μ = 1000/s: an explicit drag would overshoot 42-fold a step of 1/24 s; the implicit
     * one brings the rope to the wind's speed without passing it */
    enum { SEGMENTS = 10 };
    double p[3 * (SEGMENTS + 1)], v[3 * (SEGMENTS + 1)];
    const double start[3] = {0, 0, 0}, dir[3] = {1, 0, 0};
    rope_positions(p, SEGMENTS, start, dir);
    sb_world_def wd = sb_default_world_def();
    wd.threads = 1, wd.cg_tolerance = 1e-6, wd.gravity[2] = 0.0;
    sb_world *w = NULL;
    cr_assert_eq(sb_world_create(&wd, &w), SB_OK, "%s", sb_last_error());
    sb_strand_def d = sb_default_strand_def();
    int32_t count = SEGMENTS + 1;
    d.positions = p, d.vertex_count = count, d.strand_count = 1, d.strand_vertex_counts = &count;
    sb_cloth_id id;
    cr_assert_eq(sb_world_add_strands(w, &d, &id), SB_OK, "%s", sb_last_error());
    const double c = 1000.0 * d.mass_per_length, speed = 2.0;
    sb_field_def def = wind(c * speed, c, 0.0, 1.0, 0.0);
    sb_field_id fid;
    cr_assert_eq(sb_world_add_field(w, &def, &fid), SB_OK, "%s", sb_last_error());
    for (int frame = 1; frame <= 12; frame++) {
        cr_assert_eq(sb_world_step_to(w, frame / 24.0), SB_OK, "%s", sb_last_error());
        cr_assert_eq(sb_cloth_get_velocities(w, id, v, count), SB_OK);
        for (int32_t i = 0; i < count; i++) {
            cr_assert_leq(v[3 * i + 1], speed * (1.0 + 1e-9), "frame %d: vertex %d overshot to %g m/s", frame,
                          (int)i, v[3 * i + 1]);
            cr_assert_gt(v[3 * i + 1], 0.9 * speed, "frame %d: vertex %d at %g m/s", frame, (int)i, v[3 * i + 1]);
        }
    }
    sb_world_destroy(w);
}

/* A 1 m rope pinned at its top in a steady horizontal wind of F N/m: where it settles, as the
 * angle of its chord from the vertical, and how far its vertices stray from that chord. */
static void settle(int32_t segments, double force, double *angle, double *straightness)
{
    double p[3 * 81], x[3 * 81];
    cr_assert_leq(segments, 80);
    const double start[3] = {0, 0, 1}, dir[3] = {0, 0, -1};
    rope_positions(p, segments, start, dir);
    sb_world *w = world_make();
    sb_strand_def d = sb_default_strand_def();
    int32_t count = segments + 1, pin = 0;
    d.positions = p, d.vertex_count = count, d.strand_count = 1, d.strand_vertex_counts = &count;
    d.pins = &pin, d.pin_count = 1;
    d.air_drag = 0.05;
    sb_cloth_id id;
    cr_assert_eq(sb_world_add_strands(w, &d, &id), SB_OK, "%s", sb_last_error());
    sb_field_def def = wind(force, 0.05, 1.0, 0.0, 0.0);
    sb_field_id fid;
    cr_assert_eq(sb_world_add_field(w, &def, &fid), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_world_step_to(w, test_quick() ? 4.0 : 6.0), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_cloth_get_positions(w, id, x, count), SB_OK);
    vec3 root = v3_load(&x[0]), chord = v3_sub(v3_load(&x[3 * segments]), root);
    *angle = atan2(chord.x, -chord.z);
    vec3 along = v3_scale(chord, 1.0 / v3_len(chord));
    *straightness = 0.0;
    for (int32_t i = 0; i <= segments; i++) {
        vec3 r = v3_sub(v3_load(&x[3 * i]), root);
        *straightness = fmax(*straightness, v3_len(v3_madd(r, along, -v3_dot(r, along))));
    }
    sb_world_destroy(w);
}

Test(strand_wind, a_pinned_rope_settles_at_the_angle_of_the_force_balance)
{
    /* per metre: wind F across the rope's normal part, gravity μ g: tan θ = F / (μ g) */
    const double mu_g = 0.01 * 9.81;
    const double degrees[] = {20.0, 45.0, 60.0};
    for (int k = 0; k < 3; k++) {
        double force = mu_g * tan(degrees[k] * PI / 180.0), angle, straightness;
        settle(20, force, &angle, &straightness);
        double expected = degrees[k] * PI / 180.0;
        cr_expect_lt(fabs(tan(angle) / tan(expected) - 1.0), 0.005, "wind %g N/m: settled at %.3f°, expected %.3f°",
                     force, angle * 180.0 / PI, degrees[k]);
        cr_expect_lt(straightness, 1e-3, "wind %g N/m: the rope strays %g m from straight", force, straightness);
    }
}
