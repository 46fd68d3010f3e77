/* Pressure inside a closed cloth (Blender's cloth Pressure): the volume's gradient and the
 * whole pressure Jacobian against finite differences, the CG with its rank-one term against a
 * dense LAPACKE solve, a balloon inflating to the radius Laplace's law gives, a gas returning
 * to its target volume, a pillow puffing up, and a cloth without pressure untouched. */
#include <criterion/criterion.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cloth.h"
#include "cloth_forces.h"
#include "cloth_pressure.h"
#include "cloth_step.h"
#include "linalg_cg.h"
#include "simbake.h"
#include "system_fixture.h"
#include "testutil.h"

static const double NO_GRAVITY[3] = {0, 0, 0};

/* Volume enclosed by outward triangles, from the world origin: the plain formula, apart from
 * the library's. */
static double enclosed_volume(const double *x, const int32_t *triangles, int32_t count)
{
    double six_v = 0.0;
    for (int32_t t = 0; t < count; t++) {
        const double *a = &x[3 * triangles[3 * t]], *b = &x[3 * triangles[3 * t + 1]], *c = &x[3 * triangles[3 * t + 2]];
        six_v += a[0] * (b[1] * c[2] - b[2] * c[1]) + a[1] * (b[2] * c[0] - b[0] * c[2]) + a[2] * (b[0] * c[1] - b[1] * c[0]);
    }
    return six_v / 6.0;
}

static double surface_area(const double *x, const int32_t *triangles, int32_t count)
{
    double area = 0.0;
    for (int32_t t = 0; t < count; t++) {
        vec3 a = v3_load(&x[3 * triangles[3 * t]]), b = v3_load(&x[3 * triangles[3 * t + 1]]),
             c = v3_load(&x[3 * triangles[3 * t + 2]]);
        area += 0.5 * v3_len(v3_cross(v3_sub(b, a), v3_sub(c, a)));
    }
    return area;
}

/* A cloth over the mesh with pressure and no other force, its state moved off the rest shape
 * (stretched unevenly and jittered) so that no term of the derivatives vanishes by symmetry. */
static cloth *bare_pressure_cloth(const solid_mesh *m, double pressure, double scale, double target,
                                  const double *weights)
{
    sb_cloth_def def = sb_default_cloth_def();
    def.vertex_count = m->vertex_count, def.positions = m->positions;
    def.triangle_count = m->triangle_count, def.triangles = m->triangles;
    def.stretch_stiffness = def.compression_stiffness = def.shear_stiffness = def.bend_stiffness = 0.0;
    def.damping = def.air_drag = 0.0;
    def.pressure = pressure, def.pressure_scale = scale, def.pressure_target_volume = target;
    def.pressure_weights = weights;
    cloth *c;
    cr_assert_eq(cloth_create(&def, 0.0, NO_GRAVITY, &c), SB_OK, "%s", sb_last_error());
    test_rng rng = rng_seed(11);
    for (int32_t i = 0; i < c->model.vertex_count; i++) {
        c->state.x[3 * i] = 1.2 * c->state.x[3 * i] + 0.3;
        for (int a = 0; a < 3; a++) c->state.x[3 * i + a] += rng_uniform(&rng, -0.03, 0.03);
    }
    return c;
}

static double *random_weights(int32_t n)
{
    double *w = malloc((size_t)n * sizeof *w);
    test_rng rng = rng_seed(7);
    for (int32_t i = 0; i < n; i++) w[i] = i % 9 == 0 ? 0.0 : rng_uniform(&rng, 0.2, 1.0);
    return w;
}

static void check_gradient(bool weighted)
{
    solid_mesh m = icosphere_mesh(0.5, 1);
    double *w = weighted ? random_weights(m.vertex_count) : NULL;
    cloth *c = bare_pressure_cloth(&m, 1.0, 0.0, 0.0, w); /* p = 1: the force is ∇V */
    size_t len = 3 * (size_t)c->model.vertex_count;
    double *f = malloc(len * sizeof *f);
    cloth_forces(c, 0.0, c->state.x, c->state.v, NO_GRAVITY, NULL, f);
    const cloth_pressure *pr = &c->model.pressure;
    double worst = 0.0, largest = 0.0, eps = 1e-6;
    for (size_t k = 0; k < len; k++) {
        double keep = c->state.x[k];
        c->state.x[k] = keep + eps;
        double up = pressure_volume(pr, c->model.triangles, c->model.triangle_count, c->state.x);
        c->state.x[k] = keep - eps;
        double down = pressure_volume(pr, c->model.triangles, c->model.triangle_count, c->state.x);
        c->state.x[k] = keep;
        worst = fmax(worst, fabs((up - down) / (2 * eps) - f[k]));
        largest = fmax(largest, fabs(f[k]));
    }
    cr_assert_gt(largest, 1e-3);
    cr_assert_lt(worst, 1e-8 * fmax(1.0, largest), "∇V is off by %g (largest entry %g)", worst, largest);
    if (!weighted) { /* all weights 1: the volume is the plain one, whatever the origin */
        double v = pressure_volume(pr, c->model.triangles, c->model.triangle_count, c->state.x);
        double plain = enclosed_volume(c->state.x, c->model.triangles, c->model.triangle_count);
        cr_assert_float_eq(v, plain, 1e-12 * fabs(plain), "volume %.15g, plain formula %.15g", v, plain);
    }
    free(f), free(w);
    cloth_destroy(c);
    solid_mesh_free(&m);
}

Test(pressure, volume_gradient_matches_finite_differences) { check_gradient(false); }
Test(pressure, weighted_volume_gradient_matches_finite_differences) { check_gradient(true); }

/* The assembled system is M - h² K_sparse with K = p ∇²V + p' ∇V ∇Vᵀ the last part applied
 * as σ g gᵀ: (M d - A d - σ g (g·d)) / h² must be K d, the derivative of f along d, and the
 * right-hand side h f0 + h² K u. */
static void check_jacobian(bool weighted)
{
    solid_mesh m = icosphere_mesh(0.5, 1);
    double *w = weighted ? random_weights(m.vertex_count) : NULL;
    double rest = enclosed_volume(m.positions, m.triangles, m.triangle_count);
    cloth *c = bare_pressure_cloth(&m, 150.0, 2000.0, 1.7 * rest, w);
    size_t len = 3 * (size_t)c->model.vertex_count;
    double h = 0.01, eps = 1e-6;
    double *u = malloc(len * sizeof *u), *d = malloc(len * sizeof *d), *ad = malloc(len * sizeof *ad);
    double *fp = malloc(len * sizeof *fp), *fm = malloc(len * sizeof *fm), *x = malloc(len * sizeof *x);
    test_rng rng = rng_seed(21);
    for (size_t k = 0; k < len; k++) u[k] = rng_uniform(&rng, -1, 1), d[k] = rng_uniform(&rng, -1, 1);
    cloth_assemble(c, 0.0, c->state.x, c->state.v, u, NO_GRAVITY, NULL, h);
    double sigma = c->scratch.pressure_sigma;
    cr_assert_gt(sigma, 0.0, "the gas term should stiffen the volume (σ = %g)", sigma);
    const double *g = c->scratch.pressure_gradient;

    /* K along v by central differences of f */
    const double *along[2] = {d, u};
    for (int which = 0; which < 2; which++) {
        const double *v = along[which];
        for (size_t k = 0; k < len; k++) x[k] = c->state.x[k] + eps * v[k];
        cloth_forces(c, 0.0, x, c->state.v, NO_GRAVITY, NULL, fp);
        for (size_t k = 0; k < len; k++) x[k] = c->state.x[k] - eps * v[k];
        cloth_forces(c, 0.0, x, c->state.v, NO_GRAVITY, NULL, fm);
        double gv = 0.0;
        for (size_t k = 0; k < len; k++) gv += g[k] * v[k];
        bsr_matvec(&c->scratch.system, v, ad);
        double err = 0.0, norm = 0.0, rank_one = 0.0;
        for (size_t k = 0; k < len; k++) {
            double kv_fd = (fp[k] - fm[k]) / (2 * eps);
            double kv;
            if (which == 0) /* from the matrix */
                kv = (c->model.mass[k / 3] * v[k] - ad[k] - sigma * g[k] * gv) / (h * h);
            else /* from the right-hand side */
                kv = (c->scratch.rhs[k] - h * c->scratch.force[k]) / (h * h);
            err += (kv - kv_fd) * (kv - kv_fd), norm += kv_fd * kv_fd;
            rank_one += pow(sigma * g[k] * gv / (h * h), 2);
        }
        cr_assert_gt(sqrt(rank_one / norm), 0.05, "the rank-one term hardly matters here: the test would not see it");
        cr_assert_lt(sqrt(err / norm), 1e-6, "K %s is off by %g relative", which ? "u (rhs)" : "d (matrix)",
                     sqrt(err / norm));
    }
    free(u), free(d), free(ad), free(fp), free(fm), free(x), free(w);
    cloth_destroy(c);
    solid_mesh_free(&m);
}

Test(pressure, assembled_jacobian_matches_finite_differences) { check_jacobian(false); }
Test(pressure, weighted_assembled_jacobian_matches_finite_differences) { check_jacobian(true); }

/* x = z on the FIXED vertices, the dense solution of (A + σ g gᵀ) x = b on the others. */
static void dense_rank_one_solve(const bsr *m, const double *g, double sigma, const double *b, const uint8_t *kind,
                                 const double *z, double *x)
{
    size_t n = 3 * (size_t)m->n;
    double *a = dense_from_bsr(m);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) a[i * n + j] += sigma * g[i] * g[j];
    size_t *free_dof = malloc(n * sizeof *free_dof), cols = 0;
    for (size_t i = 0; i < n; i++) {
        x[i] = kind[i / 3] == FILTER_FIXED ? z[i] : 0.0;
        if (kind[i / 3] != FILTER_FIXED) free_dof[cols++] = i;
    }
    double *red = malloc(cols * cols * sizeof *red), *rhs = malloc(cols * sizeof *rhs);
    for (size_t r = 0; r < cols; r++) {
        double s = b[free_dof[r]];
        for (size_t k = 0; k < n; k++) s -= a[free_dof[r] * n + k] * x[k];
        rhs[r] = s;
        for (size_t q = 0; q < cols; q++) red[r * cols + q] = a[free_dof[r] * n + free_dof[q]];
    }
    lapack_int info = LAPACKE_dposv(LAPACK_ROW_MAJOR, 'U', (lapack_int)cols, 1, red, (lapack_int)cols, rhs, 1);
    cr_assert_eq(info, 0, "A + σ g gᵀ is not positive definite (info %d)", (int)info);
    for (size_t r = 0; r < cols; r++) x[free_dof[r]] = rhs[r];
    free(a), free(free_dof), free(red), free(rhs);
}

static void check_rank_one_cg(bool multigrid)
{
    cloth *c = hanging_cloth_with_system(12);
    c->scratch.cg.multigrid_mode = multigrid ? CG_MULTIGRID_ALWAYS : CG_MULTIGRID_NEVER;
    size_t n = 3 * (size_t)c->model.vertex_count;
    double *g = malloc(n * sizeof *g), *x_cg = calloc(n, sizeof *x_cg), *x_plain = calloc(n, sizeof *x_plain);
    double *x_dense = malloc(n * sizeof *x_dense);
    test_rng rng = rng_seed(31);
    double diag = 0.0;
    for (int32_t i = 0; i < c->model.vertex_count; i++) diag += c->scratch.system.vals[9 * (size_t)c->scratch.system.diag[i]];
    for (size_t k = 0; k < n; k++) g[k] = rng_uniform(&rng, 0.2, 1.0); /* a volume gradient has one sign on a balloon */
    double sigma = 3.0 * diag / (double)c->model.vertex_count; /* as strong as a vertex's own stiffness */
    cg_rank_one r1 = {g, sigma};
    cg_filter filter = {c->scratch.filter_kind, NULL};
    cg_result res = cg_solve_rank_one(&c->scratch.system, &r1, c->scratch.rhs, &filter, c->scratch.z, x_cg, 1e-12,
                                      10000, &c->scratch.cg, &c->state.cg);
    cr_assert(res.converged, "CG stopped after %d iterations at %g", res.iterations, res.relative_residual);
    cr_assert_eq(res.multigrid, multigrid);
    dense_rank_one_solve(&c->scratch.system, g, sigma, c->scratch.rhs, c->scratch.filter_kind, c->scratch.z, x_dense);
    double err = relative_difference(x_cg, x_dense, n);
    cr_assert_lt(err, 1e-8, "CG vs dense: relative difference %g after %d iterations", err, res.iterations);
    /* the rank-one term is not negligible here, and without it the plain CG gives the same bits as before */
    cg_solve(&c->scratch.system, c->scratch.rhs, &filter, c->scratch.z, x_plain, 1e-12, 10000, &c->scratch.cg,
             &c->state.cg);
    cr_assert_gt(relative_difference(x_plain, x_dense, n), 1e-3);
    double *x_zero = calloc(n, sizeof *x_zero);
    cg_rank_one none = {g, 0.0};
    cg_solve_rank_one(&c->scratch.system, &none, c->scratch.rhs, &filter, c->scratch.z, x_zero, 1e-12, 10000,
                      &c->scratch.cg, &c->state.cg);
    cr_assert_eq(memcmp(x_zero, x_plain, n * sizeof *x_zero), 0, "σ = 0 changed the plain CG's result");
    free(g), free(x_cg), free(x_plain), free(x_dense), free(x_zero);
    cloth_destroy(c);
}

Test(pressure, rank_one_cg_matches_dense_lapacke_solve_block_jacobi) { check_rank_one_cg(false); }
Test(pressure, rank_one_cg_matches_dense_lapacke_solve_multigrid) { check_rank_one_cg(true); }

/* ==== Balloons ============================================================================ */

static sb_world *weightless_world(void)
{
    sb_world_def wdef = sb_default_world_def();
    wdef.gravity[2] = 0.0;
    sb_world *w;
    cr_assert_eq(sb_world_create(&wdef, &w), SB_OK);
    return w;
}

static sb_cloth_def balloon_def(const solid_mesh *m, double stiffness)
{
    sb_cloth_def def = sb_default_cloth_def();
    def.vertex_count = m->vertex_count, def.positions = m->positions;
    def.triangle_count = m->triangle_count, def.triangles = m->triangles;
    def.stretch_stiffness = stiffness;
    def.compression_stiffness = -1.0;
    /* these tests weigh the gas against the stiffness alone: the strain limit (10% by default)
     * would cap the balloon's stretch, and the pillow's panels, which must gather in their plane
     * along the seam as they puff, would buckle unevenly under the compression limit */
    def.max_stretch = def.max_compression = 0.0;
    return def;
}

/* Positions after `seconds` of the balloon's def in a weightless world. */
static double *inflate(const sb_cloth_def *def, double seconds)
{
    sb_world *w = weightless_world();
    sb_cloth_id id;
    cr_assert_eq(sb_world_add_cloth(w, def, &id), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_world_step_to(w, seconds), SB_OK, "%s", sb_last_error());
    double *x = malloc(3 * (size_t)def->vertex_count * sizeof *x);
    cr_assert_eq(sb_cloth_get_positions(w, id, x, def->vertex_count), SB_OK);
    sb_world_destroy(w);
    return x;
}

static double mean_radius(const double *x, int32_t n)
{
    double centre[3] = {0, 0, 0}, r = 0.0;
    for (int32_t i = 0; i < n; i++)
        for (int a = 0; a < 3; a++) centre[a] += x[3 * i + a] / n;
    for (int32_t i = 0; i < n; i++)
        r += hypot(hypot(x[3 * i] - centre[0], x[3 * i + 1] - centre[1]), x[3 * i + 2] - centre[2]) / n;
    return r;
}

/* Laplace's law for a membrane: p = 2 T / R. Stretched evenly by λ, SimBake's stretch energy
 * k A0 (λ - 1)² pulls with k (λ - 1) per rest length, T = k (λ - 1) / λ per length, so
 * p R0 λ² - 2 k λ + 2 k = 0. */
Test(pressure, a_balloon_inflates_to_the_radius_of_laplaces_law)
{
    double r0 = 0.5, k = 2000.0, p = 600.0;
    double lambda = (2 * k - sqrt(4 * k * k - 8 * k * p * r0)) / (2 * p * r0);
    solid_mesh m = icosphere_mesh(r0, 3);
    sb_cloth_def def = balloon_def(&m, k);
    def.pressure = p;
    double *x = inflate(&def, 2.0);
    double r = mean_radius(x, m.vertex_count);
    double r_rest = mean_radius(m.positions, m.vertex_count);
    cr_assert(fabs(r / r_rest - lambda) < 0.02 * (lambda - 1.0) + 0.002,
              "the balloon inflated by %.4f, Laplace's law says %.4f", r / r_rest, lambda);
    /* and it stays round: no vertex off the mean radius by more than 1% */
    double worst = 0.0;
    for (int32_t i = 0; i < m.vertex_count; i++) {
        double ri = hypot(hypot(x[3 * i], x[3 * i + 1]), x[3 * i + 2]);
        worst = fmax(worst, fabs(ri / r - 1.0));
    }
    cr_assert_lt(worst, 0.01, "a vertex is %.2f%% off the mean radius", 100 * worst);
    free(x);
    solid_mesh_free(&m);
}

/* A gas without membrane tension (no stretch stiffness either way, shear keeps the shape)
 * fills its target volume exactly: p = scale (V_target / V - 1) is 0 only there. */
Test(pressure, a_gas_without_tension_returns_to_its_target_volume)
{
    solid_mesh m = icosphere_mesh(0.3, 2);
    double rest = enclosed_volume(m.positions, m.triangles, m.triangle_count);
    double targets[2] = {1.3 * rest, 0.8 * rest};
    for (int i = 0; i < 2; i++) {
        sb_cloth_def def = balloon_def(&m, 0.0);
        def.compression_stiffness = 0.0;
        def.pressure_scale = 1000.0;
        def.pressure_target_volume = targets[i];
        double *x = inflate(&def, 2.0);
        double v = enclosed_volume(x, m.triangles, m.triangle_count);
        cr_assert(fabs(v / targets[i] - 1.0) < 0.01, "the gas fills %.4f of its target volume", v / targets[i]);
        free(x);
    }
    solid_mesh_free(&m);
}

/* With tension, the gas term settles where 2 k A0 (λ - 1) = 3 p(λ) V0 λ², p(λ) =
 * scale (V_t / (V0 λ³) - 1): the rest shape scaled by λ balances (A0, V0 of the mesh itself). */
Test(pressure, a_gas_with_tension_settles_where_the_energies_balance)
{
    solid_mesh m = icosphere_mesh(0.5, 3);
    double k = 2000.0, scale = 1500.0;
    double v0 = enclosed_volume(m.positions, m.triangles, m.triangle_count);
    double a0 = surface_area(m.positions, m.triangles, m.triangle_count), vt = 2.0 * v0;
    double lo = 1.0, hi = cbrt(2.0);
    for (int it = 0; it < 100; it++) {
        double l = 0.5 * (lo + hi);
        double excess = 3.0 * scale * (vt / (v0 * l * l * l) - 1.0) * v0 * l * l - 2.0 * k * a0 * (l - 1.0);
        if (excess > 0.0) lo = l; else hi = l;
    }
    sb_cloth_def def = balloon_def(&m, k);
    def.pressure_scale = scale;
    def.pressure_target_volume = vt;
    double *x = inflate(&def, 2.0);
    double lambda = cbrt(enclosed_volume(x, m.triangles, m.triangle_count) / v0);
    cr_assert(fabs(lambda - lo) < 0.01 * (lo - 1.0) + 1e-4, "the balloon settled at λ = %.5f, the balance is at %.5f",
              lambda, lo);
    free(x);
    solid_mesh_free(&m);
}

/* The system of every step of an inflating balloon stays positive definite with the
 * indefinite p ∇²V in it (cloth_pressure.h): a dense Cholesky factorisation of A + σ g gᵀ. */
Test(pressure, the_balloons_system_stays_positive_definite)
{
    solid_mesh m = icosphere_mesh(0.5, 2);
    sb_cloth_def def = balloon_def(&m, 2000.0);
    def.pressure = 600.0;
    cloth *c;
    cr_assert_eq(cloth_create(&def, 0.0, NO_GRAVITY, &c), SB_OK, "%s", sb_last_error());
    implicit_params params = {{0, 0, 0}, 1e-10, 10000, INFINITY, INFINITY, {NULL, 0, 0, 0.0}, NULL};
    size_t n = 3 * (size_t)c->model.vertex_count;
    double h = 1.0 / 120.0;
    for (int step = 0; step < 40; step++) {
        step_report report;
        cr_assert_eq(cloth_implicit_step(c, step * h, h, &params, &report), STEP_ACCEPTED, "step %d", step);
        if (step % 8 == 0) {
            double *a = dense_from_bsr(&c->scratch.system);
            const double *g = c->scratch.pressure_gradient;
            for (size_t i = 0; i < n; i++)
                for (size_t j = 0; j < n; j++) a[i * n + j] += c->scratch.pressure_sigma * g[i] * g[j];
            lapack_int info = LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'U', (lapack_int)n, a, (lapack_int)n);
            cr_assert_eq(info, 0, "step %d: the system is not positive definite (minor %d)", step, (int)info);
            free(a);
        }
        cloth_commit_step(c, h);
    }
    cr_assert_gt(mean_radius(c->state.x, c->model.vertex_count), 1.02 * mean_radius(m.positions, m.vertex_count),
                 "the balloon never inflated: the systems checked were those of a cloth at rest");
    cloth_destroy(c);
    solid_mesh_free(&m);
}

/* ==== A pillow ============================================================================ */

/* Two n x n panels of side `size` sharing their border, the top one at +bulge and the bottom
 * one at -bulge inside it, triangles wound outward. */
static solid_mesh pillow_mesh(int32_t n, double size, double bulge)
{
    int32_t inner = (n - 2) * (n - 2);
    solid_mesh m = {n * n + inner, 4 * (n - 1) * (n - 1), NULL, NULL};
    m.positions = malloc(3 * (size_t)m.vertex_count * sizeof *m.positions);
    m.triangles = malloc(3 * (size_t)m.triangle_count * sizeof *m.triangles);
    int32_t *bottom = malloc((size_t)n * (size_t)n * sizeof *bottom);
    int32_t next = n * n;
    for (int32_t j = 0; j < n; j++)
        for (int32_t i = 0; i < n; i++) {
            int32_t v = j * n + i;
            bool border = i == 0 || j == 0 || i == n - 1 || j == n - 1;
            double px = size * ((double)i / (n - 1) - 0.5), py = size * ((double)j / (n - 1) - 0.5);
            m.positions[3 * v] = px, m.positions[3 * v + 1] = py, m.positions[3 * v + 2] = border ? 0.0 : bulge;
            bottom[v] = border ? v : next++;
            if (!border) {
                m.positions[3 * bottom[v]] = px, m.positions[3 * bottom[v] + 1] = py;
                m.positions[3 * bottom[v] + 2] = -bulge;
            }
        }
    int32_t t = 0;
    for (int32_t j = 0; j + 1 < n; j++)
        for (int32_t i = 0; i + 1 < n; i++) {
            int32_t a = j * n + i, b = a + 1, c = a + n + 1, d = a + n;
            int32_t top[6] = {a, b, c, a, c, d}; /* counter-clockwise seen from +z */
            int32_t low[6] = {bottom[a], bottom[c], bottom[b], bottom[a], bottom[d], bottom[c]};
            memcpy(&m.triangles[3 * t], top, sizeof top), t += 2;
            memcpy(&m.triangles[3 * t], low, sizeof low), t += 2;
        }
    free(bottom);
    return m;
}

Test(pressure, a_pillow_of_two_panels_puffs_up)
{
    solid_mesh m = pillow_mesh(13, 0.5, 0.005);
    sb_cloth_def def = balloon_def(&m, 2000.0);
    def.pressure = 300.0;
    double v0 = enclosed_volume(m.positions, m.triangles, m.triangle_count);
    double *x = inflate(&def, 2.0);
    double v = enclosed_volume(x, m.triangles, m.triangle_count), top = -INFINITY, low = INFINITY;
    for (int32_t i = 0; i < m.vertex_count; i++) top = fmax(top, x[3 * i + 2]), low = fmin(low, x[3 * i + 2]);
    /* a square pillow of side a sewn from cloth that hardly stretches holds about 0.2 a³ */
    cr_assert_gt(v, 0.15 * 0.125, "the pillow's volume went from %g to only %g m^3", v0, v);
    cr_assert_gt(top - low, 0.4 * 0.5, "the pillow puffed to %.3f m thick only", top - low);
    cr_assert_lt(fabs(top + low), 1e-3 * (top - low), "the two panels puffed unevenly: top %g, bottom %g", top, low);
    free(x);
    solid_mesh_free(&m);
}

/* ==== Definitions and defaults ============================================================ */

static void expect_refused(const sb_cloth_def *def, const char *needle)
{
    sb_world *w = weightless_world();
    sb_cloth_id id;
    cr_assert_eq(sb_world_add_cloth(w, def, &id), SB_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(sb_last_error(), needle), "message \"%s\" does not mention \"%s\"", sb_last_error(), needle);
    sb_world_destroy(w);
}

Test(pressure, bad_pressure_settings_are_refused_with_a_reason)
{
    solid_mesh m = icosphere_mesh(0.5, 1);
    sb_cloth_def def = balloon_def(&m, 2000.0);
    def.pressure = NAN;
    expect_refused(&def, "pressure must be finite");
    def.pressure = 0.0, def.pressure_scale = -1.0;
    expect_refused(&def, "pressure_scale");
    def.pressure_scale = 0.0, def.pressure_target_volume = INFINITY;
    expect_refused(&def, "pressure_target_volume");
    def.pressure_target_volume = 0.0;
    double *w = calloc((size_t)m.vertex_count, sizeof *w);
    w[5] = 1.5;
    def.pressure_weights = w;
    expect_refused(&def, "pressure weight of vertex 5");
    free(w);
    solid_mesh_free(&m);
    /* a gas term needs a volume to keep: an open sheet encloses none */
    grid_mesh g = grid_mesh_make(5, 1.0, 0.0);
    sb_cloth_def sheet = grid_cloth_def(&g);
    sheet.pressure_scale = 1000.0;
    expect_refused(&sheet, "is the mesh closed");
    grid_mesh_free(&g);
}

/* Pressure weights alone, with no pressure, leave a cloth as it was, to the bit, and so does
 * a cloth the pressure pushes with 0 Pa. */
Test(pressure, without_pressure_a_cloth_moves_as_before)
{
    grid_mesh g = grid_mesh_make(9, 0.4, 0.0);
    double *w = malloc((size_t)g.vertex_count * sizeof *w);
    for (int32_t i = 0; i < g.vertex_count; i++) w[i] = 0.5;
    int32_t pins[1] = {0};
    double *x[2];
    for (int run = 0; run < 2; run++) {
        sb_world_def wdef = sb_default_world_def();
        sb_world *world;
        cr_assert_eq(sb_world_create(&wdef, &world), SB_OK);
        sb_cloth_def def = grid_cloth_def(&g);
        def.pin_count = 1, def.pins = pins;
        if (run == 1) def.pressure_weights = w, def.pressure_target_volume = 3.0;
        sb_cloth_id id;
        cr_assert_eq(sb_world_add_cloth(world, &def, &id), SB_OK, "%s", sb_last_error());
        cr_assert_eq(sb_world_step_to(world, 0.5), SB_OK, "%s", sb_last_error());
        x[run] = malloc(3 * (size_t)g.vertex_count * sizeof *x[run]);
        cr_assert_eq(sb_cloth_get_positions(world, id, x[run], g.vertex_count), SB_OK);
        sb_world_destroy(world);
    }
    cr_assert_eq(memcmp(x[0], x[1], 3 * (size_t)g.vertex_count * sizeof *x[0]), 0);
    free(x[0]), free(x[1]), free(w);
    grid_mesh_free(&g);
}

/* Nothing of the pressure is state (p follows from the positions): a saved pressurised world
 * resumes to the same bits, and a state does not load into a cloth of another pressure. */
Test(pressure, a_saved_balloon_resumes_bit_for_bit_and_only_into_the_same_pressure)
{
    solid_mesh m = icosphere_mesh(0.5, 2);
    sb_world *worlds[3];
    sb_cloth_id ids[3];
    for (int i = 0; i < 3; i++) {
        worlds[i] = weightless_world();
        sb_cloth_def def = balloon_def(&m, 2000.0);
        def.pressure = i == 2 ? 700.0 : 600.0;
        def.pressure_scale = 500.0;
        cr_assert_eq(sb_world_add_cloth(worlds[i], &def, &ids[i]), SB_OK, "%s", sb_last_error());
    }
    cr_assert_eq(sb_world_step_to(worlds[0], 0.25), SB_OK);
    uint64_t size;
    cr_assert_eq(sb_world_get_state_size(worlds[0], &size), SB_OK);
    void *state = malloc(size);
    cr_assert_eq(sb_world_save_state(worlds[0], state, size), SB_OK);
    cr_assert_eq(sb_world_load_state(worlds[1], state, size), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_world_load_state(worlds[2], state, size), SB_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(sb_last_error(), "differ"), "%s", sb_last_error());
    size_t bytes = 3 * (size_t)m.vertex_count * sizeof(double);
    double *x0 = malloc(bytes), *x1 = malloc(bytes);
    for (int i = 0; i < 2; i++) cr_assert_eq(sb_world_step_to(worlds[i], 0.5), SB_OK);
    sb_cloth_get_positions(worlds[0], ids[0], x0, m.vertex_count);
    sb_cloth_get_positions(worlds[1], ids[1], x1, m.vertex_count);
    cr_assert_eq(memcmp(x0, x1, bytes), 0, "the resumed balloon went elsewhere");
    cr_assert_gt(mean_radius(x0, m.vertex_count), 1.01 * mean_radius(m.positions, m.vertex_count));
    free(state), free(x0), free(x1);
    for (int i = 0; i < 3; i++) sb_world_destroy(worlds[i]);
    solid_mesh_free(&m);
}
