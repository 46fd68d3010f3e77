#include "world_ode.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int ode_order(ode_method method)
{
    switch (method) {
    case ODE_EULER: return 1;
    case ODE_MIDPOINT: return 2;
    default: return 4;
    }
}

bool ode_workspace_init(ode_workspace *ws, size_t dim)
{
    memset(ws, 0, sizeof *ws);
    ws->dim = dim;
    double **bufs[] = {&ws->k1, &ws->k2, &ws->k3, &ws->k4, &ws->tmp, &ws->half, &ws->full};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (!(*bufs[i] = malloc((dim ? dim : 1) * sizeof(double)))) {
            ode_workspace_free(ws);
            return false;
        }
    return true;
}

void ode_workspace_free(ode_workspace *ws)
{
    free(ws->k1), free(ws->k2), free(ws->k3), free(ws->k4);
    free(ws->tmp), free(ws->half), free(ws->full);
    memset(ws, 0, sizeof *ws);
}

void ode_step(const ode_model *model, ode_method method, double t, double h, const double *x0,
              double *x1, ode_workspace *ws)
{
    size_t n = model->dim;
    double *k1 = ws->k1, *k2 = ws->k2, *k3 = ws->k3, *k4 = ws->k4, *tmp = ws->tmp;
    model->derivative(model->ctx, t, x0, k1);
    switch (method) {
    case ODE_EULER:
        for (size_t i = 0; i < n; i++) x1[i] = x0[i] + h * k1[i];
        break;
    case ODE_MIDPOINT: /* x1 = x0 + h f(x0 + h/2 f(x0), t + h/2) */
        for (size_t i = 0; i < n; i++) tmp[i] = x0[i] + 0.5 * h * k1[i];
        model->derivative(model->ctx, t + 0.5 * h, tmp, k2);
        for (size_t i = 0; i < n; i++) x1[i] = x0[i] + h * k2[i];
        break;
    case ODE_RK4:
        for (size_t i = 0; i < n; i++) tmp[i] = x0[i] + 0.5 * h * k1[i];
        model->derivative(model->ctx, t + 0.5 * h, tmp, k2);
        for (size_t i = 0; i < n; i++) tmp[i] = x0[i] + 0.5 * h * k2[i];
        model->derivative(model->ctx, t + 0.5 * h, tmp, k3);
        for (size_t i = 0; i < n; i++) tmp[i] = x0[i] + h * k3[i];
        model->derivative(model->ctx, t + h, tmp, k4);
        for (size_t i = 0; i < n; i++)
            x1[i] = x0[i] + h * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]) / 6.0;
        break;
    }
}

double ode_step_doubling(const ode_model *model, ode_method method, double t, double h,
                         const double *x0, double *x1, ode_workspace *ws)
{
    size_t n = model->dim;
    ode_step(model, method, t, h, x0, ws->full, ws);
    ode_step(model, method, t, 0.5 * h, x0, ws->half, ws);
    ode_step(model, method, t + 0.5 * h, 0.5 * h, ws->half, x1, ws);
    double err = 0.0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs(ws->full[i] - x1[i]);
        if (!isfinite(d) || !isfinite(x1[i])) return INFINITY;
        if (d > err) err = d;
    }
    return err;
}
