/* Extra springs (Blender's sewing) and internal springs: the force and its Jacobians against
 * finite differences, panels sewn together, the force limit, the internal springs Blender's
 * rule gives on meshes checked by hand, and a closed cloth holding its volume with them. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloth_forces.h"
#include "cloth_springs.h"
#include "system_fixture.h"
#include "testutil.h"

/* ---- the force and its Jacobians ---------------------------------------------------------- */

typedef struct spring_case {
    double rest, k_tension, k_compression, max_force, damping;
} spring_case;

static vec3 force_at(const spring_case *sc, vec3 xi, vec3 xj, vec3 vi, vec3 vj, mat3 *K, mat3 *D, bool definite)
{
    return spring_force(xi, xj, vi, vj, sc->rest, sc->k_tension, sc->k_compression, sc->max_force, sc->damping,
                        definite, K, D);
}

/* Largest |K - ∂f_j/∂x_j| (and the x_i and v_j columns) by central differences, relative to |K|. */
static double jacobian_error(const spring_case *sc, vec3 xi, vec3 xj, vec3 vi, vec3 vj)
{
    mat3 K, D;
    force_at(sc, xi, xj, vi, vj, &K, &D, false);
    const double h = 1e-6;
    double worst = 0.0, scale = 1e-12;
    for (int r = 0; r < 3; r++)
        for (int q = 0; q < 3; q++) scale = fmax(scale, fmax(fabs(K.m[r][q]), fabs(D.m[r][q])));
    for (int b = 0; b < 3; b++) {
        vec3 e = v3(b == 0, b == 1, b == 2);
        /* position of j, position of i (∂f_j/∂x_i = -K), velocity of j; damping's dependence on
         * the positions is left out of K by design, so positions are differenced at rest */
        vec3 zero = v3(0, 0, 0);
        vec3 dj = v3_scale(v3_sub(force_at(sc, xi, v3_madd(xj, e, h), zero, zero, NULL, NULL, false),
                                  force_at(sc, xi, v3_madd(xj, e, -h), zero, zero, NULL, NULL, false)),
                           0.5 / h);
        vec3 di = v3_scale(v3_sub(force_at(sc, v3_madd(xi, e, h), xj, zero, zero, NULL, NULL, false),
                                  force_at(sc, v3_madd(xi, e, -h), xj, zero, zero, NULL, NULL, false)),
                           0.5 / h);
        vec3 dv = v3_scale(v3_sub(force_at(sc, xi, xj, vi, v3_madd(vj, e, h), NULL, NULL, false),
                                  force_at(sc, xi, xj, vi, v3_madd(vj, e, -h), NULL, NULL, false)),
                           0.5 / h);
        for (int r = 0; r < 3; r++) {
            worst = fmax(worst, fabs(v3_comp(dj, r) - K.m[r][b]));
            worst = fmax(worst, fabs(v3_comp(di, r) + K.m[r][b]));
            worst = fmax(worst, fabs(v3_comp(dv, r) - D.m[r][b]));
        }
    }
    return worst / scale;
}

Test(springs, force_is_minus_the_energy_gradient)
{
    /* f_j = -∂E/∂x_j with E = ½ k (l - L)², by differences of the energy */
    spring_case sc = {0.3, 50.0, 20.0, 0.0, 0.0};
    vec3 xi = v3(0.1, -0.2, 0.05), zero = v3(0, 0, 0);
    vec3 stretched[2] = {v3(0.4, 0.1, 0.2), v3(0.1, -0.1, 0.1)}; /* l > L, l < L */
    for (int c = 0; c < 2; c++) {
        vec3 xj = stretched[c];
        vec3 f = force_at(&sc, xi, xj, zero, zero, NULL, NULL, true);
        for (int b = 0; b < 3; b++) {
            vec3 e = v3(b == 0, b == 1, b == 2);
            double h = 1e-6, energy[2];
            for (int s = 0; s < 2; s++) {
                double l = v3_len(v3_sub(v3_madd(xj, e, s ? -h : h), xi)), k = l > sc.rest ? 50.0 : 20.0;
                energy[s] = 0.5 * k * (l - sc.rest) * (l - sc.rest);
            }
            cr_assert_float_eq(v3_comp(f, b), -(energy[0] - energy[1]) / (2 * h), 1e-7, "case %d axis %d", c, b);
        }
    }
}

Test(springs, jacobians_match_finite_differences)
{
    test_rng rng = rng_seed(11);
    spring_case cases[] = {
        {0.5, 80.0, 30.0, 0.0, 0.02},  /* a spring at rest length 0.5 */
        {0.0, 80.0, 80.0, 0.0, 0.02},  /* rest length 0: sewing */
        {0.0, 80.0, 80.0, 5.0, 0.02},  /* sewing, force limited */
        {0.5, 80.0, 30.0, 5.0, 0.02},  /* limited spring of positive rest length */
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
        for (int trial = 0; trial < 20; trial++) {
            vec3 xi = v3(rng_uniform(&rng, -1, 1), rng_uniform(&rng, -1, 1), rng_uniform(&rng, -1, 1));
            vec3 xj = v3(rng_uniform(&rng, -1, 1), rng_uniform(&rng, -1, 1), rng_uniform(&rng, -1, 1));
            vec3 vi = v3(rng_uniform(&rng, -1, 1), 0.3, 0), vj = v3(0.2, rng_uniform(&rng, -1, 1), -0.4);
            double err = jacobian_error(&cases[c], xi, xj, vi, vj);
            cr_assert(err < 1e-6, "case %zu trial %d: Jacobian off by %g of its size", c, trial, err);
        }
}

Test(springs, limited_force_never_exceeds_its_limit_and_zero_length_is_smooth)
{
    spring_case sc = {0.0, 100.0, 100.0, 2.0, 0.0};
    vec3 zero = v3(0, 0, 0);
    mat3 K;
    /* 1 m apart: unlimited 100 N, limited to 2 N, along the spring */
    vec3 f = force_at(&sc, zero, v3(0, 0, 1), zero, zero, &K, NULL, true);
    cr_assert_float_eq(f.z, -2.0, 1e-12);
    cr_assert_float_eq(K.m[2][2], 0.0, 1e-12, "no stiffness along a limited spring");
    cr_assert_float_eq(K.m[0][0], -2.0, 1e-12, "F / l across it");
    /* within F / k = 2 cm the spring is linear, and at zero length K = -k I with no force */
    f = force_at(&sc, zero, v3(0.01, 0, 0), zero, zero, &K, NULL, true);
    cr_assert_float_eq(f.x, -1.0, 1e-12);
    f = force_at(&sc, zero, zero, zero, zero, &K, NULL, true);
    cr_assert(f.x == 0.0 && f.y == 0.0 && f.z == 0.0 && isfinite(K.m[1][1]));
    cr_assert_float_eq(K.m[0][0], -100.0, 1e-12);
    cr_assert_float_eq(K.m[0][1], 0.0, 1e-12);
}

Test(springs, compressed_spring_drops_only_its_indefinite_part)
{
    spring_case sc = {1.0, 100.0, 40.0, 0.0, 0.0};
    vec3 zero = v3(0, 0, 0), xj = v3(0.6, 0.0, 0.0); /* l = 0.6 < L */
    mat3 exact, definite;
    force_at(&sc, zero, xj, zero, zero, &exact, NULL, false);
    force_at(&sc, zero, xj, zero, zero, &definite, NULL, true);
    /* along the spring both are -k_c; across it the exact one is -k_c (l - L)/l > 0 */
    cr_assert_float_eq(definite.m[0][0], -40.0, 1e-12);
    cr_assert_float_eq(exact.m[0][0], -40.0, 1e-12);
    cr_assert_float_eq(exact.m[1][1], -40.0 * (0.6 - 1.0) / 0.6, 1e-12);
    cr_assert_float_eq(definite.m[1][1], 0.0, 1e-12);
    /* in tension the two are the same */
    force_at(&sc, zero, v3(1.5, 0, 0), zero, zero, &exact, NULL, false);
    force_at(&sc, zero, v3(1.5, 0, 0), zero, zero, &definite, NULL, true);
    cr_assert(memcmp(&exact, &definite, sizeof exact) == 0);
}

Test(springs, implicit_system_holds_the_springs_exact_jacobians)
{
    /* A 3 x 3 grid whose triangles have no stiffness, held by three springs only: one sewing
     * spring, one limited, one stretched. Assembled at (x, 0), the system must be
     * M - h ∂f/∂v - h² ∂f/∂x and the right-hand side h f + h² ∂f/∂x u, the derivatives by
     * central differences of the forces. */
    grid_mesh g = grid_mesh_make(3, 1.0, 0.0);
    int32_t pairs[6] = {0, 8, 2, 6, 1, 7};
    double rest[3] = {0.0, 0.5, 0.5};
    sb_cloth_def def = grid_cloth_def(&g);
    def.stretch_stiffness = def.compression_stiffness = def.shear_stiffness = def.bend_stiffness = 0.0;
    def.air_drag = 0.0, def.damping = 0.05;
    def.spring_count = 3, def.springs = pairs, def.spring_rest_lengths = rest;
    def.spring_tension_stiffness = 100.0, def.spring_max_force = 30.0; /* the 1.4 m diagonals pull 140 N */
    const double no_gravity[3] = {0, 0, 0};
    cloth *c;
    cr_assert_eq(cloth_create(&def, 0.0, no_gravity, &c), SB_OK, "%s", sb_last_error());
    int32_t nv = g.vertex_count, dofs = 3 * nv;
    test_rng rng = rng_seed(5);
    double x[27], v[27] = {0}, u[27], f[27], fp[27], fm[27];
    for (int k = 0; k < dofs; k++) x[k] = g.positions[k] + rng_uniform(&rng, -0.1, 0.1), u[k] = rng_uniform(&rng, -1, 1);
    x[3 * 7 + 1] += 0.3; /* spring 1-7 stretched beyond 0.5 m, not limited (k (l - L) < 30 N) */
    const double h = 0.1, step = 1e-6;
    cloth_assemble(c, 0.0, x, v, u, no_gravity, NULL, h);
    double *A = dense_from_bsr(&c->scratch.system);
    cloth_forces(c, 0.0, x, v, no_gravity, NULL, f);
    double worst = 0.0, largest = 0.0, rhs_worst = 0.0;
    double Jx[27 * 27], Jv[27 * 27];
    for (int b = 0; b < dofs; b++) {
        double xs[27], vs[27];
        memcpy(xs, x, sizeof xs), memcpy(vs, v, sizeof vs);
        xs[b] += step, cloth_forces(c, 0.0, xs, v, no_gravity, NULL, fp);
        xs[b] -= 2 * step, cloth_forces(c, 0.0, xs, v, no_gravity, NULL, fm);
        for (int a = 0; a < dofs; a++) Jx[a * dofs + b] = (fp[a] - fm[a]) / (2 * step);
        vs[b] += step, cloth_forces(c, 0.0, x, vs, no_gravity, NULL, fp);
        vs[b] -= 2 * step, cloth_forces(c, 0.0, x, vs, no_gravity, NULL, fm);
        for (int a = 0; a < dofs; a++) Jv[a * dofs + b] = (fp[a] - fm[a]) / (2 * step);
    }
    for (int a = 0; a < dofs; a++) {
        double expected_rhs = h * f[a];
        for (int b = 0; b < dofs; b++) {
            double expected = (a == b ? c->model.mass[a / 3] : 0.0) - h * Jv[a * dofs + b] - h * h * Jx[a * dofs + b];
            worst = fmax(worst, fabs(A[a * dofs + b] - expected));
            largest = fmax(largest, fabs(h * h * Jx[a * dofs + b]));
            expected_rhs += h * h * Jx[a * dofs + b] * u[b];
        }
        rhs_worst = fmax(rhs_worst, fabs(c->scratch.rhs[a] - expected_rhs));
    }
    cr_assert(largest > 0.1, "the springs are in the system (largest h² ∂f/∂x entry %g)", largest);
    cr_assert(worst < 1e-6 * largest, "system off by %g (entries up to %g)", worst, largest);
    cr_assert(rhs_worst < 1e-6 * largest, "right-hand side off by %g", rhs_worst);
    free(A);
    cloth_destroy(c);
    grid_mesh_free(&g);
}

/* ---- sewing two panels -------------------------------------------------------------------- */

/* Two n x n panels of side 0.3 m, the second `gap` above the first, without gravity; the
 * vertices of their edges at y = -0.15 sewn pairwise (rest length 0). */
typedef struct sewing {
    int32_t n, vertex_count, triangle_count, spring_count;
    double *positions;
    int32_t *triangles, *springs;
} sewing;

static sewing sewing_make(int32_t n, double gap)
{
    grid_mesh g = grid_mesh_make(n, 0.3, 0.0);
    sewing s = {n, 2 * g.vertex_count, 2 * g.triangle_count, n, NULL, NULL, NULL};
    s.positions = malloc(3 * (size_t)s.vertex_count * sizeof *s.positions);
    s.triangles = malloc(3 * (size_t)s.triangle_count * sizeof *s.triangles);
    s.springs = malloc(2 * (size_t)n * sizeof *s.springs);
    for (int32_t i = 0; i < g.vertex_count; i++)
        for (int k = 0; k < 3; k++) {
            s.positions[3 * i + k] = g.positions[3 * i + k];
            s.positions[3 * (g.vertex_count + i) + k] = g.positions[3 * i + k] + (k == 2 ? gap : 0.0);
        }
    for (int32_t t = 0; t < 3 * g.triangle_count; t++) {
        s.triangles[t] = g.triangles[t];
        s.triangles[3 * g.triangle_count + t] = g.triangles[t] + g.vertex_count;
    }
    for (int32_t i = 0; i < n; i++) s.springs[2 * i] = i, s.springs[2 * i + 1] = g.vertex_count + i; /* row j = 0 */
    grid_mesh_free(&g);
    return s;
}

static void sewing_free(sewing *s) { free(s->positions), free(s->triangles), free(s->springs); }

/* Largest distance between sewn vertices after `seconds`, and the upper panel's mean velocity
 * along z. */
static double sew(const sewing *s, double max_force, double damping, double seconds, double *upper_velocity)
{
    sb_world_def wdef = sb_default_world_def();
    wdef.gravity[2] = 0.0;
    sb_world *w;
    cr_assert_eq(sb_world_create(&wdef, &w), SB_OK);
    sb_cloth_def def = sb_default_cloth_def();
    def.vertex_count = s->vertex_count, def.positions = s->positions;
    def.triangle_count = s->triangle_count, def.triangles = s->triangles;
    def.spring_count = s->spring_count, def.springs = s->springs;
    double zero_rest[64] = {0};
    def.spring_rest_lengths = zero_rest;
    def.spring_tension_stiffness = 200.0;
    def.spring_max_force = max_force;
    def.damping = damping;
    sb_cloth_id cloth_id;
    cr_assert_eq(sb_world_add_cloth(w, &def, &cloth_id), SB_OK, "%s", sb_last_error());
    sb_cloth_info info;
    cr_assert_eq(sb_cloth_get_info(w, cloth_id, &info), SB_OK);
    cr_assert_eq(info.springs, s->spring_count);
    cr_assert_eq(sb_world_step_to(w, seconds), SB_OK, "%s", sb_last_error());
    double *x = malloc(3 * (size_t)s->vertex_count * sizeof *x), *v = malloc(3 * (size_t)s->vertex_count * sizeof *v);
    cr_assert_eq(sb_cloth_get_positions(w, cloth_id, x, s->vertex_count), SB_OK);
    cr_assert_eq(sb_cloth_get_velocities(w, cloth_id, v, s->vertex_count), SB_OK);
    double worst = 0.0, vz = 0.0;
    for (int32_t k = 0; k < s->spring_count; k++) {
        const double *a = &x[3 * s->springs[2 * k]], *b = &x[3 * s->springs[2 * k + 1]];
        worst = fmax(worst, hypot(hypot(a[0] - b[0], a[1] - b[1]), a[2] - b[2]));
    }
    /* the upper panel's momentum over its mass: masses lumped, a third of each triangle's */
    double mass = 0.0;
    for (int32_t t = s->triangle_count / 2; t < s->triangle_count; t++) {
        const int32_t *tri = &s->triangles[3 * t];
        vec3 a = v3_load(&s->positions[3 * tri[0]]), b = v3_load(&s->positions[3 * tri[1]]),
             c = v3_load(&s->positions[3 * tri[2]]);
        double third = v3_len(v3_cross(v3_sub(b, a), v3_sub(c, a))) / 6.0;
        for (int k = 0; k < 3; k++) vz += third * v[3 * tri[k] + 2];
        mass += 3.0 * third;
    }
    *upper_velocity = vz / mass;
    free(x), free(v);
    sb_world_destroy(w);
    return worst;
}

Test(springs, sewn_panels_close)
{
    sewing s = sewing_make(8, 0.1);
    double vz;
    double gap = sew(&s, 0.0, sb_default_cloth_def().damping, 1.0, &vz);
    /* 10 cm apart at first; the cloth's thickness is 5 mm */
    cr_log_info("sewn panels: largest gap after 1 s %.2e m", gap);
    cr_assert(gap < sb_default_cloth_def().thickness, "the seam is still %g m open after 1 s", gap);
    sewing_free(&s);
}

Test(springs, force_limit_slows_the_closing_and_bounds_the_momentum)
{
    sewing s = sewing_make(8, 0.1);
    const double t = 0.1;
    /* undamped: damping (k_d = damping x the spring's stiffness, as Blender's sewing springs are
     * damped) is not limited, and would hide what the limit does */
    double v_free, v_strong, v_weak;
    double gap_free = sew(&s, 0.0, 0.0, t, &v_free);
    double gap_strong = sew(&s, 0.02, 0.0, t, &v_strong);
    double gap_weak = sew(&s, 0.005, 0.0, t, &v_weak);
    cr_assert(gap_free < gap_strong && gap_strong < gap_weak, "gaps after %g s: %g (no limit), %g (0.02 N), "
              "%g (0.005 N)", t, gap_free, gap_strong, gap_weak);
    /* each panel feels n F from the seam while every spring is longer than F / k (for the first
     * 20 ms here), so its mean velocity after t is n F t / M: never more, and nearly that much */
    const double t_pull = 0.02, limits[2] = {0.005, 0.02};
    double panel_mass = sb_default_cloth_def().density * 0.3 * 0.3;
    for (int k = 0; k < 2; k++) {
        double v_up, bound = s.spring_count * limits[k] * t_pull / panel_mass;
        sew(&s, limits[k], 0.0, t_pull, &v_up);
        cr_assert(-v_up <= bound * (1 + 1e-6) && -v_up > 0.95 * bound,
                  "limit %g N: upper panel at %g m/s; the limited force gives it %g", limits[k], -v_up, bound);
    }
    cr_log_info("sewing: largest gap after %g s %.4f m (no limit), %.4f m (0.02 N), %.4f m (0.005 N)", t, gap_free,
                gap_strong, gap_weak);
    (void)v_free, (void)v_strong, (void)v_weak;
    sewing_free(&s);
}

Test(springs, bad_springs_are_refused_with_a_reason)
{
    sewing s = sewing_make(3, 0.1);
    sb_world *w;
    sb_world_def wdef = sb_default_world_def();
    cr_assert_eq(sb_world_create(&wdef, &w), SB_OK);
    sb_cloth_def def = sb_default_cloth_def();
    def.vertex_count = s.vertex_count, def.positions = s.positions;
    def.triangle_count = s.triangle_count, def.triangles = s.triangles;
    def.spring_count = s.spring_count;
    sb_cloth_id id;
    cr_assert_eq(sb_world_add_cloth(w, &def, &id), SB_ERROR_INVALID_ARGUMENT, "springs NULL");
    int32_t bad[6] = {0, 9, 1, 18, 2, 2};
    def.springs = bad, def.spring_count = 2;
    cr_assert_eq(sb_world_add_cloth(w, &def, &id), SB_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(sb_last_error(), "spring 1 joins vertices 1 and 18"), "%s", sb_last_error());
    def.spring_count = 3, bad[3] = 10;
    cr_assert_eq(sb_world_add_cloth(w, &def, &id), SB_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(sb_last_error(), "with itself"), "%s", sb_last_error());
    double rest[2] = {0.0, NAN};
    def.spring_count = 2, def.spring_rest_lengths = rest;
    cr_assert_eq(sb_world_add_cloth(w, &def, &id), SB_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(sb_last_error(), "rest length"), "%s", sb_last_error());
    rest[1] = 0.1, def.spring_max_force = -1.0;
    cr_assert_eq(sb_world_add_cloth(w, &def, &id), SB_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(sb_last_error(), "spring_max_force"), "%s", sb_last_error());
    def.spring_max_force = 0.0, def.internal_spring_max_diversion = 2.0;
    cr_assert_eq(sb_world_add_cloth(w, &def, &id), SB_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(sb_last_error(), "max_diversion"), "%s", sb_last_error());
    def.internal_spring_max_diversion = 0.0;
    cr_assert_eq(sb_world_add_cloth(w, &def, &id), SB_OK, "%s", sb_last_error());
    sb_world_destroy(w);
    sewing_free(&s);
}

/* ---- internal springs --------------------------------------------------------------------- */

static spring_set internal_springs_of(const solid_mesh *m, double max_length, double diversion, bool normal_check)
{
    sb_cloth_def def = sb_default_cloth_def();
    def.vertex_count = m->vertex_count, def.positions = m->positions;
    def.triangle_count = m->triangle_count, def.triangles = m->triangles;
    def.internal_springs = 1, def.internal_spring_max_length = max_length;
    def.internal_spring_max_diversion = diversion, def.internal_spring_normal_check = normal_check;
    def.internal_tension_stiffness = 7.0, def.internal_compression_stiffness = 3.0;
    cr_assert_eq(springs_validate(&def), SB_OK, "%s", sb_last_error());
    spring_set s;
    cr_assert(springs_build(&def, m->triangles, m->triangle_count, &s));
    return s;
}

Test(springs, internal_springs_of_a_flat_box_follow_blenders_rule)
{
    /* A box 2 x 2 x 0.5 m. Each corner's normal is the angle-weighted mean of its three faces'
     * (each meets it at 90°, however the quads are split): (±1, ±1, ±1)/√3. The ray from the top
     * corner (1, 1, 0.25) along -(1, 1, 1)/√3 meets the bottom face z = -0.25 after 0.5 √3 =
     * 0.866 m at (0.5, 0.5), nearest to the bottom corner (1, 1): a spring down each vertical
     * edge, 0.5 m long, found from both ends, kept once. */
    double half[3] = {1.0, 1.0, 0.25}, centre[3] = {0, 0, 0};
    solid_mesh box = box_mesh(half, centre);
    spring_set s = internal_springs_of(&box, 0.0, 0.0, false);
    cr_assert_eq(s.internal, 4);
    cr_assert_eq(s.given, 0);
    for (int32_t k = 0; k < 4; k++) {
        /* corner bits x = 1, y = 2, z = 4: corner c over corner c - 4, pairs sorted */
        cr_assert_eq(s.pairs[2 * k], k);
        cr_assert_eq(s.pairs[2 * k + 1], k + 4);
        cr_assert_float_eq(s.rest[k], 0.5, 1e-12);
        cr_assert_float_eq(s.stiffness[2 * k], 7.0, 0.0);
        cr_assert_float_eq(s.stiffness[2 * k + 1], 3.0, 0.0);
        cr_assert_eq(s.max_force[k], 0.0);
    }
    springs_free(&s);
    /* the rays are 0.866 m long: a limit of 0.8 m finds none, 0.9 m all */
    s = internal_springs_of(&box, 0.8, 0.0, false);
    cr_assert_eq(s.internal, 0);
    springs_free(&s);
    s = internal_springs_of(&box, 0.9, 0.0, true); /* inside faces face along the rays */
    cr_assert_eq(s.internal, 4);
    springs_free(&s);
    solid_mesh_free(&box);
}

Test(springs, normal_check_refuses_walls_seen_from_outside)
{
    /* Two squares both facing +z, the lower 0.5 m below and larger: each upper corner's ray goes
     * straight down (-z) and meets the lower square from its front, so the normal check refuses
     * it; without the check its hit triangle's nearest corner is taken. The lower square's rays
     * meet nothing. */
    solid_mesh m = {8, 4, NULL, NULL};
    double p[24] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0,
                    -0.3, -0.45, -0.5, 1.6, -0.45, -0.5, 1.6, 1.2, -0.5, -0.3, 1.2, -0.5};
    int32_t t[12] = {0, 1, 2, 0, 2, 3, 4, 5, 6, 4, 6, 7};
    m.positions = p, m.triangles = t;
    spring_set s = internal_springs_of(&m, 0.0, 0.0, true);
    cr_assert_eq(s.internal, 0);
    springs_free(&s);
    /* The lower square's diagonal 4-6 runs from (-0.3, -0.45) to (1.6, 1.2), slope 0.868. The
     * hit points under corners 0 (0, 0) and 1 (1, 0) lie below it, in triangle (4, 5, 6): nearest
     * 4 and 5. Under 2 (1, 1): above it (y = 0.68 there), in (4, 6, 7): nearest 6. Under 3 (0, 1):
     * in (4, 6, 7): nearest 7. */
    s = internal_springs_of(&m, 0.0, 0.0, false);
    int32_t expected[8] = {0, 4, 1, 5, 2, 6, 3, 7};
    cr_assert_eq(s.internal, 4);
    cr_assert(memcmp(s.pairs, expected, sizeof expected) == 0, "%d-%d %d-%d %d-%d %d-%d", s.pairs[0], s.pairs[1],
              s.pairs[2], s.pairs[3], s.pairs[4], s.pairs[5], s.pairs[6], s.pairs[7]);
    springs_free(&s);
}

Test(springs, diverted_rays_are_the_same_every_time)
{
    solid_mesh ball = icosphere_mesh(0.3, 2);
    spring_set a = internal_springs_of(&ball, 0.0, 0.25 * 3.14159265358979, false);
    spring_set b = internal_springs_of(&ball, 0.0, 0.25 * 3.14159265358979, false);
    cr_assert_eq(a.internal, b.internal);
    cr_assert(a.internal > ball.vertex_count / 4, "%d springs for %d vertices", a.internal, ball.vertex_count);
    cr_assert(memcmp(a.pairs, b.pairs, 2 * (size_t)a.count * sizeof *a.pairs) == 0);
    /* every spring crosses the ball: longer than its radius */
    for (int32_t k = 0; k < a.count; k++) cr_assert(a.rest[k] > 0.3, "spring %d is %g m", k, a.rest[k]);
    springs_free(&a), springs_free(&b);
    solid_mesh_free(&ball);
}

static double enclosed_volume(const solid_mesh *m, const double *x)
{
    double v = 0.0;
    for (int32_t t = 0; t < m->triangle_count; t++) {
        vec3 a = v3_load(&x[3 * m->triangles[3 * t]]), b = v3_load(&x[3 * m->triangles[3 * t + 1]]),
             c = v3_load(&x[3 * m->triangles[3 * t + 2]]);
        v += v3_dot(a, v3_cross(b, c)) / 6.0;
    }
    return v;
}

/* A soft closed ball of cloth dropped on the floor: its volume after 1.5 s over its volume. */
static double squashed_volume(bool internal, int32_t *found)
{
    solid_mesh ball = icosphere_mesh(0.3, 2);
    for (int32_t i = 0; i < ball.vertex_count; i++) ball.positions[3 * i + 2] += 0.32;
    solid_mesh floor = plane_mesh(3.0, 0.0);
    sb_world_def wdef = sb_default_world_def();
    sb_world *w;
    cr_assert_eq(sb_world_create(&wdef, &w), SB_OK);
    sb_collider_def cdef = solid_collider_def(&floor);
    sb_collider_id collider;
    cr_assert_eq(sb_world_add_collider(w, &cdef, &collider), SB_OK, "%s", sb_last_error());
    sb_cloth_def def = sb_default_cloth_def();
    def.vertex_count = ball.vertex_count, def.positions = ball.positions;
    def.triangle_count = ball.triangle_count, def.triangles = ball.triangles;
    def.stretch_stiffness = 300.0, def.shear_stiffness = 30.0, def.density = 1.0;
    def.internal_springs = internal;
    def.internal_tension_stiffness = def.internal_compression_stiffness = 100.0;
    sb_cloth_id cloth_id;
    cr_assert_eq(sb_world_add_cloth(w, &def, &cloth_id), SB_OK, "%s", sb_last_error());
    sb_cloth_info info;
    cr_assert_eq(sb_cloth_get_info(w, cloth_id, &info), SB_OK);
    *found = info.internal_springs;
    double before = enclosed_volume(&ball, ball.positions);
    cr_assert_eq(sb_world_step_to(w, 1.5), SB_OK, "%s", sb_last_error());
    double *x = malloc(3 * (size_t)ball.vertex_count * sizeof *x);
    cr_assert_eq(sb_cloth_get_positions(w, cloth_id, x, ball.vertex_count), SB_OK);
    double ratio = enclosed_volume(&ball, x) / before;
    free(x);
    sb_world_destroy(w);
    solid_mesh_free(&floor), solid_mesh_free(&ball);
    return ratio;
}

Test(springs, internal_springs_keep_a_soft_ball_from_collapsing)
{
    int32_t without_count, with_count;
    double without = squashed_volume(false, &without_count), with = squashed_volume(true, &with_count);
    cr_log_info("soft ball on the floor after 1.5 s: volume %.3f with %d internal springs, %.3f without", with,
                (int)with_count, without);
    cr_assert_eq(without_count, 0);
    cr_assert(with_count > 0);
    cr_assert(with > 0.8 && with > without + 0.2, "volume kept: %.3f with %d internal springs, %.3f without", with,
              (int)with_count, without);
}

/* ---- threads and saved states ------------------------------------------------------------- */

/* A 48 x 48 grid (enough triangles to be assembled in parallel) folded onto itself by springs
 * of rest length 0 from each vertex of its left quarter to its mirror image, over `seconds` on
 * `threads` threads; the positions (malloc'd). */
static double *fold(int32_t threads, double seconds, const int32_t *springs, int32_t spring_count)
{
    grid_mesh g = grid_mesh_make(48, 1.0, 0.0);
    sb_world_def wdef = sb_default_world_def();
    wdef.gravity[2] = 0.0, wdef.threads = threads;
    sb_world *w;
    cr_assert_eq(sb_world_create(&wdef, &w), SB_OK);
    sb_cloth_def def = grid_cloth_def(&g);
    def.spring_count = spring_count, def.springs = springs, def.spring_max_force = 0.01;
    sb_cloth_id id;
    cr_assert_eq(sb_world_add_cloth(w, &def, &id), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_world_step_to(w, seconds), SB_OK, "%s", sb_last_error());
    double *x = malloc(3 * (size_t)g.vertex_count * sizeof *x);
    cr_assert_eq(sb_cloth_get_positions(w, id, x, g.vertex_count), SB_OK);
    sb_world_destroy(w);
    grid_mesh_free(&g);
    return x;
}

static int32_t fold_springs(int32_t *springs)
{
    int32_t count = 0;
    for (int32_t j = 0; j < 48; j++)
        for (int32_t i = 0; i < 12; i++) springs[2 * count] = j * 48 + i, springs[2 * count + 1] = j * 48 + 47 - i, count++;
    return count;
}

Test(springs, results_do_not_depend_on_the_thread_count, .timeout = 120)
{
    int32_t springs[2 * 48 * 12];
    int32_t count = fold_springs(springs);
    double *one = fold(1, 0.25, springs, count), *two = fold(2, 0.25, springs, count);
    double *unsewn = fold(1, 0.25, NULL, 0);
    size_t bytes = 3 * 48 * 48 * sizeof(double);
    cr_assert(memcmp(one, two, bytes) == 0, "springs assembled on two threads give other bits");
    cr_assert(memcmp(one, unsewn, bytes) != 0, "the springs did nothing");
    free(one), free(two), free(unsewn);
}

Test(springs, a_state_saved_with_other_springs_is_refused)
{
    sewing s = sewing_make(4, 0.1);
    sb_world *w[2];
    double rest[4] = {0};
    for (int k = 0; k < 2; k++) {
        sb_world_def wdef = sb_default_world_def();
        cr_assert_eq(sb_world_create(&wdef, &w[k]), SB_OK);
        sb_cloth_def def = sb_default_cloth_def();
        def.vertex_count = s.vertex_count, def.positions = s.positions;
        def.triangle_count = s.triangle_count, def.triangles = s.triangles;
        def.spring_count = s.spring_count, def.springs = s.springs, def.spring_rest_lengths = rest;
        def.spring_max_force = k == 0 ? 0.5 : 0.25;
        sb_cloth_id id;
        cr_assert_eq(sb_world_add_cloth(w[k], &def, &id), SB_OK, "%s", sb_last_error());
    }
    cr_assert_eq(sb_world_step_to(w[0], 0.1), SB_OK);
    uint64_t size;
    cr_assert_eq(sb_world_get_state_size(w[0], &size), SB_OK);
    void *state = malloc(size);
    cr_assert_eq(sb_world_save_state(w[0], state, size), SB_OK);
    cr_assert_eq(sb_world_load_state(w[1], state, size), SB_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(sb_last_error(), "cloth 0"), "%s", sb_last_error());
    cr_assert_eq(sb_world_load_state(w[0], state, size), SB_OK, "%s", sb_last_error());
    free(state);
    sb_world_destroy(w[0]), sb_world_destroy(w[1]);
    sewing_free(&s);
}
