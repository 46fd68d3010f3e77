#include "two_way_coupling.h"

#include <string.h>

#include "cloth.h"
#include "cloth_strain_limit.h"
#include "collider.h"
#include "rigid_body.h"

/* The ratio of the contacts' apparent mass to the body's effective mass a step may reach:
 * symplectic Euler on a spring of stiffness k holds for h² k / M < 4; with the damping and
 * the cloth's own mass in S, and the rocking of a body on several contacts, half of that. */
#define COUPLING_MASS_RATIO 2.0

void coupling_mark_colliders(sb_world *w)
{
    for (int32_t i = 0; i < w->collider_count; i++) {
        collider *c = w->colliders[i];
        c->scratch.pushes_body = false;
        if (c->model.body < 0) continue;
        const rigid_body *b = w->rigid.bodies[c->model.body];
        /* a body asleep stands still until a body or joint wakes it (rigid_sleep.h): the cloth
         * meets it as it meets a static one */
        c->scratch.pushes_body = rigid_body_awake(b) && b->model.feels_cloth;
    }
}

/* 1 / effective mass of body b along n at point p. */
static double inverse_effective_mass(const rigid_body *b, vec3 p, vec3 n)
{
    vec3 rn = v3_cross(v3_sub(p, b->state.x), n);
    return b->model.inv_mass + v3_dot(rn, m3_mul_v(b->state.inv_inertia_world, rn));
}

/* S (above) of cloth c's contacts on collider k, and the largest inverse effective mass of
 * the body at them into *inverse_mass. */
static double apparent_mass(const cloth *c, int32_t k, const rigid_body *b, double *inverse_mass)
{
    const bsr *a = &c->scratch.system;
    const vertex_contact *contacts = c->state.contacts;
    double s = 0.0;
    for (int32_t i = 0; i < c->model.vertex_count; i++) {
        if (contacts[i].collider != k) continue;
        vec3 ni = contacts[i].normal;
        *inverse_mass = fmax(*inverse_mass,
                             inverse_effective_mass(b, v3_load(&c->scratch.x_new[3 * (size_t)i]), ni));
        for (int32_t e = a->row_start[i]; e < a->row_start[i + 1]; e++) {
            int32_t j = a->cols[e];
            if (contacts[j].collider != k) continue;
            const double *m = &a->vals[9 * (size_t)e];
            vec3 nj = contacts[j].normal;
            vec3 mn = v3(m[0] * nj.x + m[1] * nj.y + m[2] * nj.z, m[3] * nj.x + m[4] * nj.y + m[5] * nj.z,
                         m[6] * nj.x + m[7] * nj.y + m[8] * nj.z);
            s += v3_dot(ni, mn);
        }
    }
    return s;
}

bool coupling_stable(const sb_world *w)
{
    for (int32_t k = 0; k < w->collider_count; k++) {
        const collider *col = w->colliders[k];
        if (!col->scratch.pushes_body) continue;
        const rigid_body *b = w->rigid.bodies[col->model.body];
        double s = 0.0, inverse_mass = b->model.inv_mass;
        for (int32_t i = 0; i < w->cloth_count; i++)
            if (cloth_meets_collider(&w->cloths[i]->model, k)) s += apparent_mass(w->cloths[i], k, b, &inverse_mass);
        if (s * inverse_mass > COUPLING_MASS_RATIO) return false;
    }
    return true;
}

/* Momentum of body and cloth together is kept: the body's linear momentum takes the sum of
 * the reactions, its angular momentum about its centre x takes Σ (p - x) × j = (the moment
 * about the origin) - x × Σ j. */
void coupling_push_bodies(sb_world *w)
{
    for (int32_t i = 0; i < w->collider_count; i++) {
        const collider *c = w->colliders[i];
        if (!c->scratch.pushes_body) continue;
        rigid_body *b = w->rigid.bodies[c->model.body];
        b->state.P = v3_add(b->state.P, c->scratch.reaction);
        b->state.L = v3_add(b->state.L, v3_sub(c->scratch.reaction_moment, v3_cross(b->state.x, c->scratch.reaction)));
        rigid_body_update_derived(b);
    }
}

/* The collider holding vertex i of cloth c whose body feels the cloth, or -1. */
static int32_t pushing_collider(const sb_world *w, const cloth *c, int32_t i)
{
    const vertex_contact *vc = &c->state.contacts[i];
    int32_t k = vc->collider >= 0 ? vc->collider : c->scratch.pushed_by[i];
    return k >= 0 && w->colliders[k]->scratch.pushes_body ? k : -1;
}

void coupling_strain_limit(sb_world *w, cloth *c, double h)
{
    bool pushing = false;
    for (int32_t k = 0; k < w->collider_count && !pushing; k++) pushing = w->colliders[k]->scratch.pushes_body;
    if (!pushing) {
        strain_limit_project(c, h);
        return;
    }
    size_t len = 3 * (size_t)c->model.vertex_count;
    memcpy(c->scratch.v_before_limit, c->scratch.v_new, len * sizeof *c->scratch.v_new);
    strain_limit_project(c, h);
    for (int32_t i = 0; i < c->model.vertex_count; i++) {
        if (c->scratch.held[i] != STRAIN_HEAVY) continue;
        int32_t k = pushing_collider(w, c, i);
        if (k < 0) continue;
        size_t at = 3 * (size_t)i;
        vec3 dv = v3_sub(v3_load(&c->scratch.v_new[at]), v3_load(&c->scratch.v_before_limit[at]));
        collider_react(w->colliders[k], v3_scale(dv, (STRAIN_HEAVY_FACTOR - 1.0) * c->model.mass[i]),
                       v3_load(&c->scratch.x_new[at]));
    }
}
