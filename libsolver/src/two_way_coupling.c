#include "two_way_coupling.h"

#include <stdlib.h>
#include <string.h>

#include "cloth.h"
#include "cloth_strain_limit.h"
#include "collider.h"
#include "collision_scratch.h"
#include "rigid_body.h"
#include "rigid_joint.h"

/* The ratio of the contacts' apparent mass to the body's effective mass a step may reach:
 * symplectic Euler on a spring of stiffness k holds for h² k / M < 4; with the damping and
 * the cloth's own mass in S, and the rocking of a body on several contacts, half of that. */
#define COUPLING_MASS_RATIO 2.0

/* Whether body id feels the cloth in this step: dynamic, awake and asking for it. A body asleep
 * stands still until a body or joint wakes it (rigid_sleep.h): the cloth meets it as a static one. */
static bool body_feels(const sb_world *w, int32_t id)
{
    const rigid_body *b = w->rigid.bodies[id];
    return rigid_body_awake(b) && b->model.feels_cloth;
}

void coupling_mark_colliders(sb_world *w)
{
    for (int32_t i = 0; i < w->collider_count; i++) {
        collider *c = w->colliders[i];
        c->scratch.pushes_body = false;
        if (c->model.body < 0) continue;
        c->scratch.pushes_body = body_feels(w, c->model.body);
    }
}

/* Whether a vertex of a cloth that meets collider k lies within `margin` of the collider's box
 * at the step's start (state.from: it has followed its body for the step). */
static bool near_cloth(const sb_world *w, int32_t k, double margin)
{
    const collider *col = w->colliders[k];
    aabb box = aabb_empty();
    for (int32_t i = 0; i < col->model.vertex_count; i++) box = aabb_add_point(box, v3_load(&col->state.from[3 * (size_t)i]));
    for (int32_t ci = 0; ci < w->cloth_count; ci++) {
        const cloth *c = w->cloths[ci];
        if (!cloth_meets_collider(&c->model, k)) continue;
        double reach = margin + c->model.thickness + col->model.thickness;
        for (int32_t i = 0; i < c->model.vertex_count; i++)
            if (within_box(&box, v3_load(&c->state.x[3 * (size_t)i]), reach)) return true;
    }
    return false;
}

bool coupling_first_order_near_cloth(sb_world *w, double h)
{
    double own = h * w->rigid.settings.time_scale; /* the bodies' clock (rigid_system.c) */
    double g = v3_len(w->rigid.settings.gravity);
    bool moved = false;
    for (int32_t id = 0; id < w->rigid.body_count; id++) {
        rigid_body *b = w->rigid.bodies[id];
        /* resting: no faster at the start than gravity makes it over the step (a body landing
         * keeps its parabola: first order, the sample's cylinder was thrown off the table) */
        vec3 v0 = rigid_system_start_velocity(&w->rigid, id);
        if (v3_len(v0) > g * own) continue;
        /* its own step let it fly free, along x0 + h (v0 + v1) / 2 to 1% of the ½ g h² moved here:
         * one that met a rigid contact (a bounce off the table through the cloth) keeps the path
         * its step gave it, which x0 + h v1 would not (bouncing up, it would be lifted by h v1) */
        vec3 x0, x1;
        quat q0, q1;
        rigid_system_step_poses(&w->rigid, id, &x0, &q0, &x1, &q1);
        if (v3_len(v3_sub(x1, v3_madd(x0, v3_add(v0, b->state.v), 0.5 * own))) > 0.005 * g * own * own) continue;
        bool near = false; /* within reach of the cloth by the step's end */
        for (int32_t k = 0; k < w->collider_count && !near; k++)
            near = w->colliders[k]->model.body == id && w->colliders[k]->scratch.pushes_body &&
                   near_cloth(w, k, own * v3_len(b->state.v));
        if (!near) continue;
        b->state.x = v3_madd(x0, b->state.v, own);
        b->state.q = q_normalize(q_mul(q_from_rotation_vector(v3_scale(b->state.w, own)), q0));
        rigid_body_update_derived(b);
        moved = true;
    }
    return moved;
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
        /* less the vertex's own (lumped) mass: no step is short enough to shrink it, so halving
         * for it only halves down to min_step (the tablecloth sample's 0.3 kg vertices under a
         * 1 kg cone on its tip: steps of 1e-6 s, and the contacts' push-out, depth / h, blew the
         * cloth up at 4.9e3 m/s; issue 32) */
        s -= c->model.mass[i];
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

void coupling_mark_reactions(sb_world *w)
{
    for (int32_t k = 0; k < w->collider_count; k++) {
        collider_scratch *s = &w->colliders[k]->scratch;
        s->reaction_mark = s->reaction, s->reaction_moment_mark = s->reaction_moment;
    }
}

void coupling_drop_reactions(sb_world *w)
{
    for (int32_t k = 0; k < w->collider_count; k++) {
        collider_scratch *s = &w->colliders[k]->scratch;
        s->reaction = s->reaction_mark, s->reaction_moment = s->reaction_moment_mark;
    }
}

void coupling_set_aside_reactions(sb_world *w)
{
    for (int32_t k = 0; k < w->collider_count; k++) {
        collider_scratch *s = &w->colliders[k]->scratch;
        s->limit_reaction = v3_add(s->limit_reaction, v3_sub(s->reaction, s->reaction_mark));
        s->limit_reaction_moment = v3_add(s->limit_reaction_moment, v3_sub(s->reaction_moment, s->reaction_moment_mark));
        s->reaction = s->reaction_mark, s->reaction_moment = s->reaction_moment_mark;
    }
}

/* The largest α in [0, 1] for which the generalised impulse α (j, τ) (τ about the centre) leaves
 * body b's kinetic energy no higher: ΔE(α) = α Jᵀ U + ½ α² Jᵀ M⁻¹ J, U = (v, ω), M = diag(m, I);
 * α = -Jᵀ U / Jᵀ M⁻¹ J stops the body's motion along M⁻¹ J (a perfectly inelastic impulse), where
 * ΔE is least; beyond it the impulse would throw the body back. */
static double inelastic_fraction(const rigid_body *b, vec3 j, vec3 tau)
{
    double along = v3_dot(j, b->state.v) + v3_dot(tau, b->state.w);
    double stiffness = b->model.inv_mass * v3_dot(j, j) + v3_dot(tau, m3_mul_v(b->state.inv_inertia_world, tau));
    if (!(stiffness > 0.0) || along >= 0.0) return 0.0;
    return fmin(1.0, -along / stiffness);
}

/* Momentum of body and cloth together is kept: the body's linear momentum takes the sum of
 * the reactions, its angular momentum about its centre x takes Σ (p - x) × j = (the moment
 * about the origin) - x × Σ j. The strain limit's part is capped (two_way_coupling.h). */
void coupling_push_bodies(sb_world *w)
{
    for (int32_t i = 0; i < w->collider_count; i++) {
        const collider *c = w->colliders[i];
        if (!c->scratch.pushes_body) continue;
        rigid_body *b = w->rigid.bodies[c->model.body];
        b->state.P = v3_add(b->state.P, c->scratch.reaction);
        b->state.L = v3_add(b->state.L, v3_sub(c->scratch.reaction_moment, v3_cross(b->state.x, c->scratch.reaction)));
        rigid_body_update_derived(b);
        /* the strain limit's rounds: at most what stops the body along them */
        vec3 j = c->scratch.limit_reaction;
        vec3 tau = v3_sub(c->scratch.limit_reaction_moment, v3_cross(b->state.x, j));
        double alpha = inelastic_fraction(b, j, tau);
        b->state.P = v3_madd(b->state.P, j, alpha);
        b->state.L = v3_madd(b->state.L, tau, alpha);
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

bool coupling_any_body_gives(const sb_world *w)
{
    for (int32_t k = 0; k < w->collider_count; k++)
        if (w->colliders[k]->scratch.pushes_body) return true;
    return false;
}

void coupling_strain_limit(sb_world *w, cloth *c, double h)
{
    if (!coupling_any_body_gives(w)) {
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

/* Whether cloth i's pins ride a body (sb_cloth_attach_pins_to_body) that feels the cloth. */
static bool pins_pull_body(const sb_world *w, int32_t i)
{
    const cloth *c = w->cloths[i];
    return c->model.pin_local && body_feels(w, c->model.pin_body);
}

/* Gives body id a slot in cb if it has none. */
static void add_body(const sb_world *w, coupled_bodies *cb, int32_t id)
{
    if (cb->body_slot[id] >= 0) return;
    const rigid_body *b = w->rigid.bodies[id];
    coupled_body *s = &cb->bodies[cb->count];
    mat3 d = {{{b->model.inertia.x, 0, 0}, {0, b->model.inertia.y, 0}, {0, 0, b->model.inertia.z}}};
    *s = (coupled_body){.center = b->state.x, .mass = b->model.mass,
                        .inertia = m3_mul(m3_mul(b->state.R, d), m3_transpose(b->state.R)),
                        .v0 = b->state.v, .w0 = b->state.w, .work = cb->work + COUPLED_BODY_WORK * (size_t)cb->count};
    /* its joints' locked rows (rigid_joint.h), as the joint holds them over the step */
    for (int32_t k = 0; k < w->rigid.joint_count; k++) {
        const rigid_joint *j = &w->rigid.joints[k];
        if (j->broken || (j->a != id && j->b != id)) continue;
        joint_ends e = rigid_joint_ends(j, w->rigid.bodies[j->a], j->b >= 0 ? w->rigid.bodies[j->b] : NULL);
        contact_row rows[JOINT_SLOTS];
        int32_t n = rigid_joint_correction_rows(j, &e, 0, 1, cb->h, rows);
        for (int32_t r = 0; r < n; r++) {
            if (rows[r].lo == 0.0) continue; /* a limit passed: one-sided, left to the bodies' step */
            vec3 ang = j->a == id ? rows[r].ang_a : rows[r].ang_b;
            double g[6] = {rows[r].lin.x, rows[r].lin.y, rows[r].lin.z, ang.x, ang.y, ang.z};
            coupled_hold_row(s, g);
        }
    }
    cb->slot_body[cb->count] = id;
    cb->body_slot[id] = cb->count++;
}

/* The bodies in the solves: those of the colliders that push a body, and those carrying a
 * cloth's pins (sb_cloth_attach_pins_to_body) that feel the cloth. */
bool coupling_begin_solves(const sb_world *w, double h, coupled_bodies *cb)
{
    *cb = (coupled_bodies){.h = h, .colliders = w->colliders, .collider_count = w->collider_count};
    int32_t most = 0;
    for (int32_t k = 0; k < w->collider_count; k++) most += w->colliders[k]->scratch.pushes_body;
    for (int32_t i = 0; i < w->cloth_count; i++)
        most += pins_pull_body(w, i);
    if (most == 0) return true;
    cb->body_slot = malloc((size_t)w->rigid.body_count * sizeof *cb->body_slot);
    cb->slot_body = malloc((size_t)most * sizeof *cb->slot_body);
    cb->slot = malloc(((size_t)w->collider_count + 1) * sizeof *cb->slot); /* + 1: never malloc(0) */
    cb->bodies = calloc((size_t)most, sizeof *cb->bodies);
    cb->work = calloc(COUPLED_BODY_WORK * (size_t)most, sizeof *cb->work);
    if (!cb->body_slot || !cb->slot_body || !cb->slot || !cb->bodies || !cb->work) {
        coupling_end_solves(cb);
        return false;
    }
    for (int32_t i = 0; i < w->rigid.body_count; i++) cb->body_slot[i] = -1;
    for (int32_t k = 0; k < w->collider_count; k++) {
        const collider *col = w->colliders[k];
        cb->slot[k] = -1;
        if (!col->scratch.pushes_body) continue;
        add_body(w, cb, col->model.body);
        cb->slot[k] = cb->body_slot[col->model.body];
    }
    for (int32_t i = 0; i < w->cloth_count; i++)
        if (pins_pull_body(w, i)) add_body(w, cb, w->cloths[i]->model.pin_body);
    return true;
}

/* The body of slot s */
static rigid_body *slot_body(sb_world *w, const coupled_bodies *cb, int32_t s) { return w->rigid.bodies[cb->slot_body[s]]; }

void coupling_take_solve(sb_world *w, const cloth *c, const coupled_bodies *cb)
{
    if (!coupled_any(c, cb)) return;
    for (int32_t s = 0; s < cb->count; s++) {
        rigid_body *b = slot_body(w, cb, s);
        b->state.P = v3_add(b->state.P, cb->bodies[s].impulse);
        b->state.L = v3_add(b->state.L, cb->bodies[s].moment);
        rigid_body_update_derived(b);
    }
}

void coupling_end_solves(coupled_bodies *cb)
{
    free(cb->work), free(cb->bodies), free(cb->slot), free(cb->body_slot), free(cb->slot_body), free(cb->edges);
    *cb = (coupled_bodies){0};
}

void coupling_move_bodies(sb_world *w, const coupled_bodies *cb, double h)
{
    for (int32_t s = 0; s < cb->count; s++) {
        rigid_body *b = slot_body(w, cb, s);
        const coupled_body *was = &cb->bodies[s];
        b->state.x = v3_madd(b->state.x, v3_sub(b->state.v, was->v0), h);
        b->state.q = q_normalize(q_mul(q_from_rotation_vector(v3_scale(v3_sub(b->state.w, was->w0), h)), b->state.q));
        rigid_body_update_derived(b);
    }
}
