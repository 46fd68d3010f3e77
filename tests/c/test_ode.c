/* Explicit integrators show their order of accuracy on an analytic problem. */
#include <criterion/criterion.h>
#include <math.h>

#include "world_ode.h"

/* Harmonic oscillator x'' = -ω² x with x(0) = 1, v(0) = 0: x(t) = cos ωt. */
static const double omega = 2.0;

static void oscillator(void *ctx, double t, const double *x, double *dxdt)
{
    (void)ctx, (void)t;
    dxdt[0] = x[1];
    dxdt[1] = -omega * omega * x[0];
}

static double global_error(ode_method method, double h, double end)
{
    ode_model model = {2, NULL, oscillator};
    ode_workspace ws;
    cr_assert(ode_workspace_init(&ws, 2));
    double x[2] = {1.0, 0.0};
    int steps = (int)lround(end / h);
    for (int i = 0; i < steps; i++) ode_step(&model, method, i * h, h, x, x, &ws);
    ode_workspace_free(&ws);
    return hypot(x[0] - cos(omega * end), x[1] + omega * sin(omega * end));
}

static void check_order(ode_method method, double expected_ratio)
{
    double h = 0.01;
    for (int k = 0; k < 3; k++, h *= 0.5) {
        double ratio = global_error(method, h, 2.0) / global_error(method, 0.5 * h, 2.0);
        cr_assert(fabs(ratio / expected_ratio - 1.0) < 0.1,
                  "h %g: error ratio %g, expected about %g", h, ratio, expected_ratio);
    }
}

Test(ode, euler_is_first_order) { check_order(ODE_EULER, 2.0); }
Test(ode, midpoint_is_second_order) { check_order(ODE_MIDPOINT, 4.0); }
Test(ode, rk4_is_fourth_order) { check_order(ODE_RK4, 16.0); }

/* Step doubling's estimate is a local error: it shrinks as h^(p+1). */
Test(ode, step_doubling_estimate_scales_with_order)
{
    ode_model model = {2, NULL, oscillator};
    ode_workspace ws;
    cr_assert(ode_workspace_init(&ws, 2));
    ode_method methods[3] = {ODE_EULER, ODE_MIDPOINT, ODE_RK4};
    for (int m = 0; m < 3; m++) {
        double x0[2] = {1.0, 0.0}, x1[2];
        double e1 = ode_step_doubling(&model, methods[m], 0.0, 0.02, x0, x1, &ws);
        double e2 = ode_step_doubling(&model, methods[m], 0.0, 0.01, x0, x1, &ws);
        double expected = pow(2.0, ode_order(methods[m]) + 1);
        cr_assert(fabs(e1 / e2 / expected - 1.0) < 0.1, "method %d: ratio %g, expected %g", m,
                  e1 / e2, expected);
    }
    ode_workspace_free(&ws);
}
