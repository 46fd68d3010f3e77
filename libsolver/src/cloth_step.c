#include "cloth_step.h"

#include <string.h>

#include "cloth_forces.h"

/* Largest change of |w_u| or |w_v| over all triangles between two states. */
static double max_strain_change(const cloth *c, const double *x0, const double *x1)
{
    double worst = 0.0;
    for (int32_t t = 0; t < c->triangle_count; t++) {
        const int32_t *tri = &c->triangles[3 * (size_t)t];
        const tri_rest *r = &c->rest[t];
        vec3 wu0 = v3(0, 0, 0), wv0 = v3(0, 0, 0), wu1 = v3(0, 0, 0), wv1 = v3(0, 0, 0);
        for (int k = 0; k < 3; k++) {
            vec3 p0 = v3_load(&x0[3 * (size_t)tri[k]]), p1 = v3_load(&x1[3 * (size_t)tri[k]]);
            wu0 = v3_madd(wu0, p0, r->cu[k]);
            wv0 = v3_madd(wv0, p0, r->cv[k]);
            wu1 = v3_madd(wu1, p1, r->cu[k]);
            wv1 = v3_madd(wv1, p1, r->cv[k]);
        }
        worst = fmax(worst, fabs(v3_len(wu1) - v3_len(wu0)));
        worst = fmax(worst, fabs(v3_len(wv1) - v3_len(wv0)));
    }
    return worst;
}

/* Implicit Euler (notes, Implicit Methods eq. 4-5) with one change to the position update:
 *     v1 = v0 + Δv,   x1 = x0 + h v1 - c,   c = ½ h² ā,
 * where ā = Δv/h of the previous accepted step (gravity before the first), free vertices only.
 * Plain backward Euler (c = 0) lands a falling body ½ g h t too low, so results would depend
 * on the step size; with c, constant accelerations are integrated exactly and equilibria
 * (ā = 0) stay fixed points. ā comes from the implicit solve, not from f(x0): after a stiff
 * step f(x0) holds large spurious forces that an explicit term would amplify. For linear
 * problems stiff modes decay by at least 1/√2 per step.
 * Linearising f(x0 + Δx) with Δx = h (v0 + Δv) - c gives eq. 4-5's matrix with
 *     rhs = h f0 + h² ∂f/∂x (v0 - c/h),
 * the same kind of extra known term as eq. 4-6. */
void cloth_build_system(cloth *c, double t, double h, const implicit_params *params)
{
    double *u = c->v_new; /* v_new is free until the update */
    for (int32_t i = 0; i < c->vertex_count; i++) {
        double s = c->filter_kind[i] == FILTER_FIXED ? 0.0 : 0.5 * h * h;
        for (int a = 0; a < 3; a++) {
            size_t k = 3 * (size_t)i + (size_t)a;
            c->correction[k] = s * c->accel[k];
            u[k] = c->v[k] - c->correction[k] / h;
        }
    }
    cloth_assemble(c, c->x, c->v, u, params->gravity, h);

    /* pins: Δv that lands each pinned vertex exactly on its target at t + h */
    for (int32_t p = 0; p < c->pin_count; p++) {
        double target[3], vel[3];
        cloth_pin_state(c, p, t + h, target, vel);
        size_t i = 3 * (size_t)c->pins[p];
        for (int k = 0; k < 3; k++) c->z[i + k] = (target[k] - c->x[i + k]) / h - c->v[i + k];
    }
}

step_outcome cloth_implicit_step(cloth *c, double t, double h, const implicit_params *params,
                                 step_report *report)
{
    size_t len = 3 * (size_t)c->vertex_count;
    cloth_build_system(c, t, h, params);
    /* warm start: the last step's acceleration over this step */
    for (size_t k = 0; k < len; k++) c->dv[k] = h * c->accel[k];
    cg_filter filter = {c->filter_kind, NULL};
    cg_result cg = cg_solve(&c->system, c->rhs, &filter, c->z, c->dv, params->cg_tolerance,
                            params->cg_max_iterations, &c->cg);
    report->cg_iterations = cg.iterations;
    report->cg_residual = cg.relative_residual;

    for (size_t k = 0; k < len; k++) {
        c->v_new[k] = c->v[k] + c->dv[k];
        c->x_new[k] = c->x[k] + h * c->v_new[k] - c->correction[k];
    }
    for (int32_t p = 0; p < c->pin_count; p++) {
        double vel[3];
        cloth_pin_state(c, p, t + h, &c->x_new[3 * (size_t)c->pins[p]], vel);
    }
    for (size_t k = 0; k < len; k++)
        if (!isfinite(c->x_new[k]) || !isfinite(c->v_new[k])) return STEP_NOT_FINITE;
    /* Accept a CG that stopped at its iteration cap close to the tolerance; a residual
     * this large means the system was too stiff for the step. */
    if (!cg.converged && cg.relative_residual > 1e-2) return STEP_CG_FAILED;
    report->max_strain_change = max_strain_change(c, c->x, c->x_new);
    if (report->max_strain_change > params->max_strain_change) return STEP_TOO_MUCH_STRAIN;
    return STEP_ACCEPTED;
}

void cloth_commit_step(cloth *c, double h)
{
    for (size_t k = 0; k < 3 * (size_t)c->vertex_count; k++) c->accel[k] = c->dv[k] / h;
    double *swap = c->x;
    c->x = c->x_new;
    c->x_new = swap;
    swap = c->v;
    c->v = c->v_new;
    c->v_new = swap;
}
