/* Every cloth energy's gradient and Hessian against central finite differences. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "bend_hessian.h"
#include "cloth_energy.h"
#include "testutil.h"

/* An energy of 3 or 4 vertices evaluated at x (dofs values). */
typedef struct energy_case {
    int kind; /* 0 stretch u, 1 stretch v, 2 shear, 3 bend */
    tri_rest rest;
    double k, w, rest_value;
} energy_case;

static int case_dofs(const energy_case *ec) { return ec->kind == 3 ? 12 : 9; }

static double eval_energy(const energy_case *ec, const double *xflat, double *grad, double *hess)
{
    vec3 x[4];
    for (int i = 0; i < case_dofs(ec) / 3; i++) x[i] = v3_load(&xflat[3 * i]);
    condition c, other;
    switch (ec->kind) {
    case 0: stretch_conditions(&ec->rest, x, &c, &other, true); break;
    case 1: stretch_conditions(&ec->rest, x, &other, &c, true); break;
    case 2: shear_condition(&ec->rest, x, &c, true); break;
    default: bend_condition_with_hessian(x, &c); break;
    }
    return condition_energy(&c, ec->k, ec->w, ec->rest_value, grad, hess);
}

static double norm(const double *a, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++) s += a[i] * a[i];
    return sqrt(s);
}

/* Five-point central difference of f along dof j, step h: O(h^4). */
#define FIVE_POINT(fm2, fm1, fp1, fp2, h) (((fm2) - 8.0 * (fm1) + 8.0 * (fp1) - (fp2)) / (12.0 * (h)))

/* Returns the larger of the relative gradient and Hessian errors. */
static double fd_error(const energy_case *ec, const double *x0, double h)
{
    int n = case_dofs(ec);
    double grad[12], hess[144], fd_grad[12], fd_hess[144];
    eval_energy(ec, x0, grad, hess);
    for (int j = 0; j < n; j++) {
        double x[12], e[4], g[4][12];
        const double offsets[4] = {-2, -1, 1, 2};
        for (int s = 0; s < 4; s++) {
            memcpy(x, x0, sizeof(double) * (size_t)n);
            x[j] += offsets[s] * h;
            e[s] = eval_energy(ec, x, g[s], NULL);
        }
        fd_grad[j] = FIVE_POINT(e[0], e[1], e[2], e[3], h);
        for (int i = 0; i < n; i++)
            fd_hess[i * n + j] = FIVE_POINT(g[0][i], g[1][i], g[2][i], g[3][i], h);
    }
    double dg[12], dh[144];
    for (int i = 0; i < n; i++) dg[i] = fd_grad[i] - grad[i];
    for (int i = 0; i < n * n; i++) dh[i] = fd_hess[i] - hess[i];
    double eg = norm(dg, n) / fmax(norm(grad, n), 1e-300);
    double eh = norm(dh, n * n) / fmax(norm(hess, n * n), 1e-300);
    return fmax(eg, eh);
}

static void random_rest(test_rng *rng, tri_rest *rest, double needle)
{
    for (;;) {
        double u[3], v[3];
        for (int i = 0; i < 3; i++) {
            u[i] = rng_uniform(rng, 0, 1);
            v[i] = rng_uniform(rng, 0, 1) * needle;
        }
        if (tri_rest_from_uv(u, v, rest) && rest->area > 1e-3 * needle) return;
    }
}

static void check_triangle_energies(double needle, double collapse)
{
    test_rng rng = rng_seed(7);
    for (int trial = 0; trial < 200; trial++) {
        energy_case ec = {.k = rng_uniform(&rng, 1, 1000), .w = rng_uniform(&rng, 0.1, 2)};
        random_rest(&rng, &ec.rest, needle);
        double x[9];
        for (int i = 0; i < 9; i++) x[i] = rng_uniform(&rng, -1, 1);
        /* collapse < 1 squeezes the deformed triangle towards the line x0-x1 */
        for (int a = 0; a < 3; a++) x[6 + a] = x[a] + (x[3 + a] - x[a]) * 0.3 + (x[6 + a] - x[a]) * collapse;
        for (int kind = 0; kind < 3; kind++) {
            ec.kind = kind;
            double err = fd_error(&ec, x, 1e-4 * fmin(collapse, needle));
            cr_assert_lt(err, 1e-6, "kind %d trial %d needle %g collapse %g: relative error %g",
                         kind, trial, needle, collapse, err);
        }
    }
}

Test(energy, triangle_energies_random) { check_triangle_energies(1.0, 1.0); }
Test(energy, triangle_energies_needle_rest) { check_triangle_energies(1e-2, 1.0); }
Test(energy, triangle_energies_nearly_collapsed) { check_triangle_energies(1.0, 1e-3); }

/* Hinge: edge x0-x1 along a random direction, wings at random heights and angles. */
static void random_hinge(test_rng *rng, double *x, double wing_height, double max_angle)
{
    double len = rng_uniform(rng, 0.5, 2.0);
    double theta = rng_uniform(rng, -max_angle, max_angle);
    double local[4][3] = {
        {0, 0, 0},
        {len, 0, 0},
        {rng_uniform(rng, -0.5, 1.5) * len, wing_height * rng_uniform(rng, 0.5, 1.5), 0},
        {0, 0, 0},
    };
    double h3 = wing_height * rng_uniform(rng, 0.5, 1.5), s3 = rng_uniform(rng, -0.5, 1.5) * len;
    local[3][0] = s3;
    local[3][1] = -h3 * cos(theta);
    local[3][2] = h3 * sin(theta);
    /* random rotation (axis-angle) and translation */
    vec3 axis = v3(rng_uniform(rng, -1, 1), rng_uniform(rng, -1, 1), rng_uniform(rng, -1, 1));
    axis = v3_scale(axis, 1.0 / v3_len(axis));
    double ang = rng_uniform(rng, 0, 6.28), c = cos(ang), s = sin(ang);
    vec3 t = v3(rng_uniform(rng, -1, 1), rng_uniform(rng, -1, 1), rng_uniform(rng, -1, 1));
    for (int i = 0; i < 4; i++) {
        vec3 p = v3_load(local[i]);
        /* Rodrigues */
        vec3 r = v3_add(v3_add(v3_scale(p, c), v3_scale(v3_cross(axis, p), s)),
                        v3_scale(axis, v3_dot(axis, p) * (1 - c)));
        v3_store(&x[3 * i], v3_add(r, t));
    }
}

static void check_bend(double wing_height, double max_angle)
{
    test_rng rng = rng_seed(11);
    for (int trial = 0; trial < 200; trial++) {
        energy_case ec = {.kind = 3, .k = rng_uniform(&rng, 1e-4, 1), .w = rng_uniform(&rng, 1, 10)};
        ec.rest_value = rng_uniform(&rng, -0.5, 0.5);
        double x[12];
        random_hinge(&rng, x, wing_height, max_angle);
        double err = fd_error(&ec, x, 1e-4 * wing_height);
        cr_assert_lt(err, 1e-6, "trial %d wing %g: relative error %g", trial, wing_height, err);
    }
}

Test(energy, bend_random) { check_bend(0.7, 2.8); }
Test(energy, bend_nearly_flat) { check_bend(0.7, 1e-3); }
Test(energy, bend_thin_wings) { check_bend(1e-3, 2.0); }

Test(energy, bend_angle_matches_construction)
{
    for (int k = -8; k <= 8; k++) {
        double theta = 0.35 * k; /* up to ±2.8 rad */
        vec3 x[4] = {v3(0, 0, 0), v3(1, 0, 0), v3(0.4, 1, 0), v3(0.6, -cos(theta), sin(theta))};
        double angle;
        cr_assert(dihedral_angle(x, &angle));
        cr_assert_float_eq(fabs(angle), fabs(theta), 1e-12, "theta %g got %g", theta, angle);
    }
}

Test(energy, degenerate_inputs_give_no_force)
{
    /* zero-area wing: the hinge is refused and its condition stays zero */
    vec3 x[4] = {v3(0, 0, 0), v3(1, 0, 0), v3(0.5, 0, 0), v3(0.5, -1, 0)};
    condition c;
    cr_assert_not(bend_condition_with_hessian(x, &c));
    for (int i = 0; i < 12; i++) cr_assert_eq(c.grad[i], 0.0);
    /* degenerate rest triangle is refused */
    double u[3] = {0, 1, 2}, v[3] = {0, 1, 2};
    tri_rest rest;
    cr_assert_not(tri_rest_from_uv(u, v, &rest));
    /* a triangle collapsed to a point has finite, zero stretch gradient */
    double u2[3] = {0, 1, 0}, v2[3] = {0, 0, 1};
    cr_assert(tri_rest_from_uv(u2, v2, &rest));
    vec3 p[3] = {v3(1, 1, 1), v3(1, 1, 1), v3(1, 1, 1)};
    condition su, sv;
    stretch_conditions(&rest, p, &su, &sv, true);
    cr_assert_float_eq(su.value, -1.0, 1e-15);
    for (int i = 0; i < 81; i++) cr_assert(isfinite(su.hess[i]) && isfinite(sv.hess[i]));
}

Test(energy, rest_shape_has_zero_stretch_and_shear)
{
    double u[3] = {0.1, 0.9, 0.3}, v[3] = {0.2, 0.35, 0.8};
    tri_rest rest;
    cr_assert(tri_rest_from_uv(u, v, &rest));
    vec3 x[3];
    for (int i = 0; i < 3; i++) x[i] = v3(u[i], v[i], 0.0);
    condition su, sv, sh;
    stretch_conditions(&rest, x, &su, &sv, false);
    shear_condition(&rest, x, &sh, false);
    cr_assert_float_eq(su.value, 0.0, 1e-14);
    cr_assert_float_eq(sv.value, 0.0, 1e-14);
    cr_assert_float_eq(sh.value, 0.0, 1e-14);
    cr_assert_float_eq(rest.area, 0.5 * fabs((0.9 - 0.1) * (0.8 - 0.2) - (0.3 - 0.1) * (0.35 - 0.2)), 1e-15);
}
