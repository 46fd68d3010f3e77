/* The force fields' derivatives in the implicit system against finite differences of their
 * forces. The matrix is assembled at two step sizes, h = 1 and 2, on a cloth with no forces of
 * its own: S(h) = M - h ∂f/∂v - h² ∂f/∂x separates into the two Jacobians. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cloth.h"
#include "cloth_forces.h"
#include "system_fixture.h"
#include "testutil.h"

static const double no_gravity[3] = {0.0, 0.0, 0.0};

typedef struct jacobians {
    size_t dofs;
    double *dfdx, *dfdv;             /* assembled, dense dofs x dofs */
    double *dfdx_fd, *dfdv_fd;       /* central differences of the force */
} jacobians;

/* A 4 x 4 patch of 0.6 m, wrinkled, tilted and moving, in `def`'s field with weight 0.7. */
static jacobians measure(const sb_field_def *def)
{
    grid_mesh g = grid_mesh_make(4, 0.6, 0.3);
    sb_cloth_def cdef = grid_cloth_def(&g);
    cdef.stretch_stiffness = cdef.shear_stiffness = cdef.bend_stiffness = 0.0;
    cdef.compression_stiffness = 0.0, cdef.damping = 0.0, cdef.air_drag = 0.0;
    cloth *c = NULL;
    cr_assert_eq(cloth_create(&cdef, 0.0, no_gravity, &c), SB_OK, "%s", sb_last_error());
    force_field field;
    cr_assert_eq(field_validate(def), SB_OK, "%s", sb_last_error());
    field_init(&field, def, 0.0);
    double weight = 0.7;
    field.cloth_weight = &weight, field.weight_count = 1;
    force_field *list[1] = {&field};
    field_list fields = {list, 1, 0, 0.0};

    test_rng rng = rng_seed(11);
    size_t n = 3 * (size_t)g.vertex_count;
    double *x = malloc(n * sizeof *x), *v = malloc(n * sizeof *v), *u = calloc(n, sizeof *u);
    double *fp = malloc(n * sizeof *fp), *fm = malloc(n * sizeof *fm);
    for (size_t k = 0; k < n; k++) {
        x[k] = g.positions[k] + rng_uniform(&rng, -0.03, 0.03) + (k % 3 == 2 ? 0.4 * g.positions[k - 2] : 0.0);
        v[k] = rng_uniform(&rng, -0.8, 0.8);
    }
    jacobians j = {n, calloc(n * n, sizeof(double)), calloc(n * n, sizeof(double)), calloc(n * n, sizeof(double)),
                   calloc(n * n, sizeof(double))};
    cloth_assemble(c, 0.0, x, v, u, no_gravity, &fields, 1.0);
    double *s1 = dense_from_bsr(&c->scratch.system);
    cloth_assemble(c, 0.0, x, v, u, no_gravity, &fields, 2.0);
    double *s2 = dense_from_bsr(&c->scratch.system);
    for (size_t r = 0; r < n; r++)
        for (size_t q = 0; q < n; q++) {
            double mass = r == q ? c->model.mass[r / 3] : 0.0;
            double a1 = s1[r * n + q] - mass, a2 = s2[r * n + q] - mass; /* -h Dv - h² Dx */
            j.dfdx[r * n + q] = (2.0 * a1 - a2) / 2.0;
            j.dfdv[r * n + q] = -a1 - j.dfdx[r * n + q];
        }
    const double eps = 1e-6;
    for (int pass = 0; pass < 2; pass++) {
        double *y = pass == 0 ? x : v, *out = pass == 0 ? j.dfdx_fd : j.dfdv_fd;
        for (size_t q = 0; q < n; q++) {
            double keep = y[q];
            y[q] = keep + eps;
            cloth_forces(c, 0.0, x, v, no_gravity, &fields, fp);
            y[q] = keep - eps;
            cloth_forces(c, 0.0, x, v, no_gravity, &fields, fm);
            y[q] = keep;
            for (size_t r = 0; r < n; r++) out[r * n + q] = (fp[r] - fm[r]) / (2.0 * eps);
        }
    }
    free(s1), free(s2), free(x), free(v), free(u), free(fp), free(fm);
    cloth_destroy(c);
    grid_mesh_free(&g);
    return j;
}

static double norm(const double *a, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++) s += a[i] * a[i];
    return sqrt(s);
}

static void expect_close(const double *assembled, const double *fd, size_t n, const char *what, const char *field)
{
    cr_assert_gt(norm(fd, n * n), 1e-3, "%s: the finite differences of %s are zero: nothing tested", field, what);
    double diff = relative_difference(assembled, fd, n * n);
    cr_expect_lt(diff, 1e-6, "%s: %s differs from its finite differences by %.3g (relative)", field, what, diff);
}

/* zero up to the rounding of separating it from the other Jacobian (of size `scale`) */
static void expect_zero(const double *assembled, double scale, size_t n, const char *what, const char *field)
{
    double size = norm(assembled, n * n);
    cr_expect_lt(size, 1e-12 * scale, "%s: %s (%.3g) is in the system but should not be", field, what, size);
}

static void free_jacobians(jacobians *j) { free(j->dfdx), free(j->dfdv), free(j->dfdx_fd), free(j->dfdv_fd); }

Test(field_jacobians, drag_linear_and_quadratic_in_velocity)
{
    sb_field_def def = sb_default_field_def();
    def.type = SB_FIELD_DRAG, def.linear_drag = 0.8, def.quadratic_drag = 1.3;
    jacobians j = measure(&def);
    expect_close(j.dfdv, j.dfdv_fd, j.dofs, "∂f/∂v", "drag");
    expect_zero(j.dfdx, norm(j.dfdv, j.dofs * j.dofs), j.dofs, "∂f/∂x", "drag");
    free_jacobians(&j);
}

Test(field_jacobians, harmonic_pull_and_damping_for_every_shape)
{
    const sb_field_shape shapes[] = {SB_FIELD_POINT, SB_FIELD_LINE, SB_FIELD_PLANE};
    const double rest[] = {0.0, 0.05};
    for (int s = 0; s < 3; s++)
        for (int r = 0; r < 2; r++) {
            sb_field_def def = sb_default_field_def();
            def.type = SB_FIELD_HARMONIC, def.shape = shapes[s], def.strength = 40.0, def.damping = 0.6;
            def.rest_length = rest[r];
            def.position[0] = 0.1, def.position[1] = -1.2, def.position[2] = -0.5;
            def.axis[0] = 0.3, def.axis[1] = 0.2, def.axis[2] = 1.0;
            char name[64];
            snprintf(name, sizeof name, "harmonic, shape %d, rest length %g", (int)shapes[s], rest[r]);
            jacobians j = measure(&def);
            expect_close(j.dfdx, j.dfdx_fd, j.dofs, "∂f/∂x", name);
            expect_close(j.dfdv, j.dfdv_fd, j.dofs, "∂f/∂v", name);
            free_jacobians(&j);
        }
}

Test(field_jacobians, the_flow_of_force_vortex_and_turbulence)
{
    const sb_field_type types[] = {SB_FIELD_FORCE, SB_FIELD_VORTEX, SB_FIELD_TURBULENCE};
    for (int t = 0; t < 3; t++) {
        sb_field_def def = sb_default_field_def();
        def.type = types[t], def.strength = 3.0, def.flow = 1.7, def.position[2] = -1.0;
        jacobians j = measure(&def);
        char name[32];
        snprintf(name, sizeof name, "field type %d", (int)types[t]);
        expect_close(j.dfdv, j.dfdv_fd, j.dofs, "∂f/∂v", name);
        free_jacobians(&j);
    }
}

Test(field_jacobians, wind_flow_on_the_faces)
{
    sb_field_def def = sb_default_field_def();
    def.type = SB_FIELD_WIND, def.strength = 5.0, def.flow = 2.5, def.axis[0] = 1.0;
    jacobians j = measure(&def);
    expect_close(j.dfdv, j.dfdv_fd, j.dofs, "∂f/∂v", "wind");
    /* how the pressure turns with the faces stays explicit (an unsymmetric follower load) */
    expect_zero(j.dfdx, norm(j.dfdv, j.dofs * j.dofs), j.dofs, "∂f/∂x", "wind");
    free_jacobians(&j);
}

Test(field_jacobians, a_harmonic_field_with_falloff_keeps_a_symmetric_matrix)
{
    sb_field_def def = sb_default_field_def();
    def.type = SB_FIELD_HARMONIC, def.strength = 40.0, def.falloff_power = 2.0, def.position[2] = -0.5;
    jacobians j = measure(&def);
    for (size_t r = 0; r < j.dofs; r++)
        for (size_t q = 0; q < r; q++)
            cr_assert_float_eq(j.dfdx[r * j.dofs + q], j.dfdx[q * j.dofs + r], 1e-12, "∂f/∂x not symmetric at %zu, %zu",
                               r, q);
    free_jacobians(&j);
}
