#include "cloth_step.h"

#include <string.h>

#include "cloth_forces.h"
#include "coupled_solve.h"
#include "wall_clock.h"

static bool in_contact(const cloth *c, int32_t v) { return c->state.contacts[v].collider >= 0 || c->state.collided[v]; }

/* Largest change of |w_u| or |w_v| over the triangles between two states. Triangles with a
 * vertex held by a collider, or moved by the collision response last step, are left out:
 * contact moves them however short the step, so a smaller step could not help. */
static double max_strain_change(const cloth *c, const double *x0, const double *x1)
{
    double worst = 0.0;
    for (int32_t t = 0; t < c->model.triangle_count; t++) {
        const int32_t *tri = &c->model.triangles[3 * (size_t)t];
        if (in_contact(c, tri[0]) || in_contact(c, tri[1]) || in_contact(c, tri[2])) continue;
        const tri_rest *r = &c->model.rest[t];
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
    /* strands: the change of each segment's length over its rest length, the same measure */
    const spring_set *sp = &c->model.springs;
    for (int32_t s = 0; c->model.strands && s < sp->count; s++) {
        int32_t i = sp->pairs[2 * (size_t)s], j = sp->pairs[2 * (size_t)s + 1];
        if (in_contact(c, i) || in_contact(c, j)) continue;
        double l0 = v3_len(v3_sub(v3_load(&x0[3 * (size_t)j]), v3_load(&x0[3 * (size_t)i])));
        double l1 = v3_len(v3_sub(v3_load(&x1[3 * (size_t)j]), v3_load(&x1[3 * (size_t)i])));
        worst = fmax(worst, fabs(l1 - l0) / sp->rest[s]);
    }
    return worst;
}

/* Speed of the fastest vertex the solve moves (pinned ones go where they are told). */
static double max_free_speed(const cloth *c, const double *v)
{
    double worst2 = 0.0;
    for (int32_t i = 0; i < c->model.vertex_count; i++)
        if (c->scratch.filter_kind[i] != FILTER_FIXED) worst2 = fmax(worst2, v3_len2(v3_load(&v[3 * (size_t)i])));
    return sqrt(worst2);
}

/* Implicit Euler (notes, Implicit Methods eq. 4-5) with one change to the position update:
 *     v1 = v0 + Δv,   x1 = x0 + h v1 - c.
 * In free directions c = ½ h² ā, with ā = Δv/h of the previous accepted step (gravity before
 * the first): plain backward Euler (c = 0) lands a falling body ½ g h t too low, so results
 * would depend on the step size; with c, constant accelerations are integrated exactly and
 * equilibria (ā = 0) stay fixed points. ā comes from the implicit solve, not from f(x0):
 * after a stiff step f(x0) holds large spurious forces that an explicit term would amplify.
 * For linear problems stiff modes decay by at least 1/√2 per step.
 * In constrained directions (pins, contacts: Baraff & Witkin's filters) the vertex moves
 * with its prescribed velocity, and c = -offset adds a prescribed displacement (a contact
 * pushed back out to its distance) without leaving any velocity behind.
 * Linearising f(x0 + Δx) with Δx = h (v0 + Δv) - c gives eq. 4-5's matrix with
 *     rhs = h f0 + h² ∂f/∂x (v0 - c/h) + h f_ext,
 * the same kind of extra known terms as eq. 4-6 (f_ext: friction). */
void cloth_build_system(cloth *c, double t, double h, const implicit_params *params)
{
    /* pins: FIXED, prescribed to land exactly on their targets at t + h */
    for (int32_t p = 0; p < c->model.pin_count; p++) {
        double target[3], vel[3];
        int32_t i = c->model.pins[p];
        cloth_pin_state(c, p, t + h, target, vel);
        c->scratch.filter_kind[i] = FILTER_FIXED;
        for (int k = 0; k < 3; k++) {
            c->scratch.target_velocity[3 * (size_t)i + k] = (target[k] - c->state.x[3 * (size_t)i + k]) / h;
            c->scratch.target_offset[3 * (size_t)i + k] = 0.0;
        }
    }
    /* c = ½h²ā in the free directions, minus the prescribed offset in the constrained ones */
    double *u = c->scratch.v_new; /* v_new is free until the update */
    for (int32_t i = 0; i < c->model.vertex_count; i++) {
        size_t k = 3 * (size_t)i;
        vec3 a = v3_scale(v3_load(&c->state.accel[k]), 0.5 * h * h), offset = v3_load(&c->scratch.target_offset[k]);
        vec3 corr;
        switch (c->scratch.filter_kind[i]) {
        case FILTER_FIXED: corr = v3_scale(offset, -1.0); break;
        case FILTER_PROJECT: {
            const double *s = &c->scratch.filter_proj[9 * (size_t)i];
            mat3 proj = {{{s[0], s[1], s[2]}, {s[3], s[4], s[5]}, {s[6], s[7], s[8]}}};
            corr = v3_sub(m3_mul_v(proj, a), offset);
            break;
        }
        default: corr = a; break;
        }
        v3_store(&c->scratch.correction[k], corr);
        for (int d = 0; d < 3; d++) u[k + d] = c->state.v[k + d] - c->scratch.correction[k + d] / h;
    }
    /* the fields where they are at the step's end, as backward Euler takes every force */
    field_list fields = params->fields;
    fields.time = t + h;
    cloth_assemble(c, t, c->state.x, c->state.v, u, params->gravity, &fields, h);
    size_t len = 3 * (size_t)c->model.vertex_count;
    for (size_t k = 0; k < len; k++) {
        c->scratch.rhs[k] += h * c->scratch.external_force[k];
        c->scratch.z[k] = c->scratch.target_velocity[k] - c->state.v[k];
    }
}

step_outcome cloth_implicit_step(cloth *c, double t, double h, const implicit_params *params,
                                 step_report *report)
{
    size_t len = 3 * (size_t)c->model.vertex_count;
    *report = (step_report){0}; /* a step that ends early leaves what it did not measure at 0 */
    double start = wall_seconds();
    cloth_build_system(c, t, h, params);
    double built = wall_seconds();
    /* warm start: the last step's acceleration over this step */
    for (size_t k = 0; k < len; k++) c->scratch.dv[k] = h * c->state.accel[k];
    cg_filter filter = {c->scratch.filter_kind, c->scratch.filter_proj};
    cloth_scratch *s = &c->scratch;
    cg_rank_one pressure = {s->pressure_gradient, s->pressure_sigma};
    /* held on a body that feels the cloth: the body in the solve (coupled_solve.h) */
    cg_result cg = coupled_any(c, params->coupling)
                       ? coupled_solve(c, params->coupling, params->cg_tolerance, params->cg_max_iterations)
                       : cg_solve_rank_one(&s->system, &pressure, s->rhs, &filter, s->z, s->dv, params->cg_tolerance,
                                           params->cg_max_iterations, &s->cg, &c->state.cg);
    report->assembly_seconds = built - start, report->solve_seconds = wall_seconds() - built;
    report->cg_iterations = cg.iterations;
    report->cg_residual = cg.relative_residual;

    for (size_t k = 0; k < len; k++) {
        c->scratch.v_new[k] = c->state.v[k] + c->scratch.dv[k];
        c->scratch.x_new[k] = c->state.x[k] + h * c->scratch.v_new[k] - c->scratch.correction[k];
    }
    for (int32_t p = 0; p < c->model.pin_count; p++) {
        double vel[3];
        cloth_pin_state(c, p, t + h, &c->scratch.x_new[3 * (size_t)c->model.pins[p]], vel);
    }
    for (size_t k = 0; k < len; k++)
        if (!isfinite(c->scratch.x_new[k]) || !isfinite(c->scratch.v_new[k])) return STEP_NOT_FINITE;
    /* Accept a CG that stopped at its iteration cap close to the tolerance; a residual
     * this large means the system was too stiff for the step. */
    if (!cg.converged && cg.relative_residual > 1e-2) return STEP_CG_FAILED;
    report->max_speed = max_free_speed(c, c->scratch.v_new);
    if (report->max_speed > params->max_speed) return STEP_TOO_FAST;
    report->max_strain_change = max_strain_change(c, c->state.x, c->scratch.x_new);
    if (report->max_strain_change > params->max_strain_change) return STEP_TOO_MUCH_STRAIN;
    return STEP_ACCEPTED;
}

void cloth_commit_step(cloth *c, double h)
{
    /* ā is the acceleration of the free directions only: what constraints and collisions
     * did (a contact stopping a fall) is no steady acceleration to carry into the next step */
    for (int32_t i = 0; i < c->model.vertex_count; i++) {
        size_t k = 3 * (size_t)i;
        vec3 a = v3_scale(v3_load(&c->scratch.dv[k]), 1.0 / h);
        if (c->scratch.filter_kind[i] == FILTER_FIXED || c->state.collided[i]) {
            a = v3(0, 0, 0);
        } else if (c->scratch.filter_kind[i] == FILTER_PROJECT) {
            const double *s = &c->scratch.filter_proj[9 * (size_t)i];
            a = m3_mul_v((mat3){{{s[0], s[1], s[2]}, {s[3], s[4], s[5]}, {s[6], s[7], s[8]}}}, a);
        }
        v3_store(&c->state.accel[k], a);
    }
    double *swap = c->state.x;
    c->state.x = c->scratch.x_new;
    c->scratch.x_new = swap;
    swap = c->state.v;
    c->state.v = c->scratch.v_new;
    c->scratch.v_new = swap;
}
