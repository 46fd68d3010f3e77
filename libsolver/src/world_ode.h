/* Explicit ODE solvers behind the notes' solver/model interface ("Differential Equation
 * Basics" §4): the solver sees only dim(x) and a derivative function dx/dt = f(x, t). */
#ifndef SB_ODE_H
#define SB_ODE_H

#include <stdbool.h>
#include <stddef.h>

typedef struct ode_model {
    size_t dim;
    void *ctx;
    void (*derivative)(void *ctx, double t, const double *x, double *dxdt);
} ode_model;

typedef enum ode_method { ODE_EULER, ODE_MIDPOINT, ODE_RK4 } ode_method;

typedef struct ode_workspace {
    size_t dim;
    double *k1, *k2, *k3, *k4, *tmp, *half, *full;
} ode_workspace;

/* Global order of accuracy: 1, 2, 4. */
int ode_order(ode_method method);
bool ode_workspace_init(ode_workspace *ws, size_t dim);
void ode_workspace_free(ode_workspace *ws);

/* One step of size h from (x0, t); x1 may alias x0. */
void ode_step(const ode_model *model, ode_method method, double t, double h, const double *x0,
              double *x1, ode_workspace *ws);

/* Step doubling (notes §3): x1 is the result of two steps of h/2; returns the error
 * estimate max_i |x_full,i - x1,i| against one step of h (infinite if not finite). */
double ode_step_doubling(const ode_model *model, ode_method method, double t, double h,
                         const double *x0, double *x1, ode_workspace *ws);

#endif
