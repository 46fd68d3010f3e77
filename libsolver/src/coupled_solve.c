#include "coupled_solve.h"

#include "cloth_contact.h"
#include "collider.h"
#include "collision_geometry.h"

#include <stdlib.h>
#include <string.h>

/* work of a body: its part of the CG's x, r, p, z, q (6 each) and its preconditioner (36) */
enum { BODY_X = 0, BODY_R = 6, BODY_P = 12, BODY_Z = 18, BODY_Q = 24, BODY_PRE = 30 };
_Static_assert(BODY_PRE + 36 == COUPLED_BODY_WORK, "a body's work");

int32_t coupled_slot(const cloth *c, const coupled_bodies *cb, int32_t i)
{
    if (!cb || cb->count == 0) return -1;
    if (c->model.pin_local && c->model.pinned[i]) return cb->body_slot[c->model.pin_body];
    int32_t k = c->state.contacts[i].collider;
    if (k < 0 || c->scratch.filter_kind[i] == FILTER_FREE) return -1;
    return cb->slot[k];
}

bool coupled_any(const cloth *c, const coupled_bodies *cb)
{
    if (!cb || cb->count == 0) return false;
    if (cb->edge_count > 0) return true;
    for (int32_t i = 0; i < c->model.vertex_count; i++)
        if (coupled_slot(c, cb, i) >= 0) return true;
    return false;
}

/* u (6) onto the null space of body b's held rows */
static void hold(const coupled_body *b, double *u)
{
    for (int32_t k = 0; k < b->held_count; k++) {
        double d = 0.0;
        for (int a = 0; a < 6; a++) d += b->held[k][a] * u[a];
        for (int a = 0; a < 6; a++) u[a] -= d * b->held[k][a];
    }
}

void coupled_hold_row(coupled_body *b, const double g[6])
{
    if (b->held_count == 6) return;
    double u[6], scale = 0.0;
    for (int a = 0; a < 6; a++) u[a] = g[a], scale += g[a] * g[a];
    hold(b, u), hold(b, u); /* Gram-Schmidt twice: orthogonal to round-off */
    double len2 = 0.0;
    for (int a = 0; a < 6; a++) len2 += u[a] * u[a];
    if (!(len2 > 1e-12 * scale)) return;
    for (int a = 0; a < 6; a++) b->held[b->held_count][a] = u[a] / sqrt(len2);
    b->held_count++;
}

static void hold_all(const coupled_bodies *cb, int at)
{
    for (int32_t s = 0; s < cb->count; s++) hold(&cb->bodies[s], &cb->bodies[s].work[at]);
}

/* S_i v: the free part of v at vertex i */
static vec3 free_part(const cloth *c, int32_t i, vec3 v)
{
    switch (c->scratch.filter_kind[i]) {
    case FILTER_FIXED: return v3(0, 0, 0);
    case FILTER_PROJECT: {
        const double *s = &c->scratch.filter_proj[9 * (size_t)i];
        return v3(s[0] * v.x + s[1] * v.y + s[2] * v.z, s[3] * v.x + s[4] * v.y + s[5] * v.z,
                  s[6] * v.x + s[7] * v.y + s[8] * v.z);
    }
    default: return v;
    }
}

vec3 coupled_held_part(const cloth *c, int32_t i, vec3 v) { return v3_sub(v, free_part(c, i, v)); }

vec3 coupled_lever(const cloth *c, const coupled_bodies *cb, int32_t i, int32_t slot)
{
    /* where the collider's point under the vertex goes over the step, from the body's centre */
    size_t k = 3 * (size_t)i;
    vec3 p = v3_madd(v3_load(&c->state.x[k]), v3_load(&c->scratch.target_velocity[k]), cb->h);
    return v3_sub(p, cb->bodies[slot].center);
}

/* J ΔU = ΔV + ΔΩ × r */
static vec3 point_velocity(const double *u, vec3 r) { return v3_add(v3(u[0], u[1], u[2]), v3_cross(v3(u[3], u[4], u[5]), r)); }

/* An edge contact's spring: h² κ = EDGE_CONTACT_STIFFNESS times the mean mass m of the cloth edge's
 * ends, so that (m Δv = h κ (gap - h w)) the cloth's point alone gives way by 1/21 of what the body
 * moves into it over a step; backward Euler holds any stiffness (5 to 100 measured in
 * two_way_coupling.h). Contacts within EDGE_CONTACT_END of either end of the cloth's
 * edge are its vertex's (vertex contacts hold those). */
#define EDGE_CONTACT_STIFFNESS 20.0
#define EDGE_CONTACT_END 0.01

typedef struct edge_query {
    const cloth *c;
    coupled_bodies *cb;
    const collider *col;
    int32_t slot, ci, cj;
    double reach;
    bool out_of_memory;
} edge_query;

static vec3 lerp(vec3 a, vec3 b, double s) { return v3_madd(v3_scale(a, 1.0 - s), b, s); }

bool coupled_push_edge(coupled_bodies *cb, const edge_contact *e)
{
    if (cb->edge_count == cb->edge_capacity) {
        int32_t capacity = cb->edge_capacity ? 2 * cb->edge_capacity : 64;
        edge_contact *grown = realloc(cb->edges, (size_t)capacity * sizeof *grown);
        if (!grown) return false;
        cb->edges = grown, cb->edge_capacity = capacity;
    }
    cb->edges[cb->edge_count++] = *e;
    return true;
}

/* The collider's sharp edges on triangle tri (each from its first triangle) against the cloth's edge */
static void visit_collider_triangle(void *ctx, int32_t tri)
{
    edge_query *q = ctx;
    const collider_model *m = &q->col->model;
    const double *x0 = q->col->scratch.x0, *x1 = q->col->scratch.x1;
    const cloth *c = q->c;
    double h = q->cb->h;
    for (int k = 0; k < 3 && !q->out_of_memory; k++) {
        int32_t edge = m->topo.triangle_edges[3 * (size_t)tri + k];
        if (!m->sharp_edge[edge] || m->topo.edge_triangles[2 * (size_t)edge] != tri) continue;
        int32_t a = m->topo.edges[2 * (size_t)edge], b = m->topo.edges[2 * (size_t)edge + 1];
        vec3 a0 = v3_load(&x0[3 * (size_t)a]), b0 = v3_load(&x0[3 * (size_t)b]);
        vec3 p0 = v3_load(&c->state.x[3 * (size_t)q->ci]), p1 = v3_load(&c->state.x[3 * (size_t)q->cj]);
        double s, t, d2 = closest_points_segments(a0, b0, p0, p1, &s, &t);
        if (d2 >= q->reach * q->reach || d2 <= 0.0 || t < EDGE_CONTACT_END || t > 1.0 - EDGE_CONTACT_END) continue;
        double d = sqrt(d2);
        vec3 on_body = lerp(a0, b0, s), body_end = lerp(v3_load(&x1[3 * (size_t)a]), v3_load(&x1[3 * (size_t)b]), s);
        vec3 n = v3_scale(v3_sub(lerp(p0, p1, t), on_body), 1.0 / d);
        vec3 v = lerp(v3_load(&c->state.v[3 * (size_t)q->ci]), v3_load(&c->state.v[3 * (size_t)q->cj]), t);
        double w0 = v3_dot(n, v3_sub(v, v3_scale(v3_sub(body_end, on_body), 1.0 / h)));
        double gap = q->reach - d - h * w0; /* how far inside the step's course would take it */
        if (gap <= 0.0) continue;
        double stiffness = EDGE_CONTACT_STIFFNESS * 0.5 * (c->model.mass[q->ci] + c->model.mass[q->cj]);
        edge_contact e = {.i = q->ci, .j = q->cj, .slot = q->slot, .t = t, .n = n,
                          .r = v3_sub(body_end, q->cb->bodies[q->slot].center), .stiffness = stiffness,
                          .gap_impulse = stiffness / h * gap};
        e.arm = v3_cross(e.r, n);
        if (!coupled_push_edge(q->cb, &e)) q->out_of_memory = true;
    }
}

bool coupled_find_edges(const cloth *c, coupled_bodies *cb)
{
    cb->edge_count = 0;
    const topology *topo = &c->model.topo;
    for (int32_t k = 0; cb->count > 0 && k < cb->collider_count; k++) {
        if (cb->slot[k] < 0 || !cloth_meets_collider(&c->model, k)) continue;
        const collider *col = cb->colliders[k];
        edge_query q = {c, cb, col, cb->slot[k], -1, -1, c->model.thickness + col->model.thickness, false};
        for (int32_t e = 0; e < topo->edge_count && !q.out_of_memory; e++) {
            q.ci = topo->edges[2 * (size_t)e], q.cj = topo->edges[2 * (size_t)e + 1];
            aabb box = aabb_add_point(aabb_add_point(aabb_empty(), v3_load(&c->state.x[3 * (size_t)q.ci])),
                                      v3_load(&c->state.x[3 * (size_t)q.cj]));
            box = aabb_inflate(box, q.reach);
            bvh_query(&col->state.tree, &box, visit_collider_triangle, &q);
        }
        if (q.out_of_memory) return false;
    }
    return coupled_find_squeezed(c, cb);
}

/* g·(Δv, ΔU) of edge contact e: the change of the relative normal speed */
static double edge_speed(const coupled_bodies *cb, const edge_contact *e, const double *dv, int at)
{
    vec3 vi = v3_load(&dv[3 * (size_t)e->i]), vj = v3_load(&dv[3 * (size_t)e->j]);
    const double *u = &cb->bodies[e->slot].work[at];
    return v3_dot(e->n, v3_sub(lerp(vi, vj, e->t), v3(u[0], u[1], u[2]))) - v3_dot(e->arm, v3(u[3], u[4], u[5]));
}

/* f += g (scale_e), the cloth's part; the bodies' part (-scale_e Jᵀ n) into their work at `to` */
static void edge_cloth_part(const coupled_bodies *cb, const edge_contact *e, double scale, double *f)
{
    double *fi = &f[3 * (size_t)e->i], *fj = &f[3 * (size_t)e->j];
    vec3 a = v3_scale(e->n, scale * (1.0 - e->t)), b = v3_scale(e->n, scale * e->t);
    fi[0] += a.x, fi[1] += a.y, fi[2] += a.z, fj[0] += b.x, fj[1] += b.y, fj[2] += b.z;
    (void)cb;
}

static void edge_body_part(const coupled_bodies *cb, const edge_contact *e, double scale, int to)
{
    double *o = &cb->bodies[e->slot].work[to];
    vec3 f = v3_scale(e->n, -scale), moment = v3_scale(e->arm, -scale);
    o[0] += f.x, o[1] += f.y, o[2] += f.z, o[3] += moment.x, o[4] += moment.y, o[5] += moment.z;
}

/* Δv = S y + C J ΔU from the unknowns (y: 3n, each body's ΔU in its work at `at`) */
static void expand(const cloth *c, const coupled_bodies *cb, const double *y, int at, double *dv)
{
    for (int32_t i = 0; i < c->model.vertex_count; i++) {
        size_t k = 3 * (size_t)i;
        vec3 d = free_part(c, i, v3_load(&y[k]));
        int32_t s = coupled_slot(c, cb, i);
        if (s >= 0) {
            const coupled_body *b = &cb->bodies[s];
            d = v3_add(d, coupled_held_part(c, i, point_velocity(&b->work[at], coupled_lever(c, cb, i, s))));
        }
        v3_store(&dv[k], d);
    }
}

/* out = Qᵀ f: S f per vertex, Σ Jᵀ C f per body (into its work at `at`, added to what is there) */
static void reduce(const cloth *c, const coupled_bodies *cb, const double *f, double *out, int at)
{
    for (int32_t i = 0; i < c->model.vertex_count; i++) {
        size_t k = 3 * (size_t)i;
        vec3 fi = v3_load(&f[k]);
        v3_store(&out[k], free_part(c, i, fi));
        int32_t s = coupled_slot(c, cb, i);
        if (s < 0) continue;
        coupled_body *b = &cb->bodies[s];
        vec3 held = coupled_held_part(c, i, fi), moment = v3_cross(coupled_lever(c, cb, i, s), held);
        double *o = &b->work[at];
        o[0] += held.x, o[1] += held.y, o[2] += held.z, o[3] += moment.x, o[4] += moment.y, o[5] += moment.z;
    }
}

/* a x, with the pressure's σ g gᵀ */
static void system_times(const cloth *c, const double *x, double *ax)
{
    bsr_matvec(&c->scratch.system, x, ax);
    if (c->scratch.pressure_sigma == 0.0) return;
    size_t len = 3 * (size_t)c->model.vertex_count;
    const double *g = c->scratch.pressure_gradient;
    double gx = 0.0;
    for (size_t k = 0; k < len; k++) gx += g[k] * x[k];
    for (size_t k = 0; k < len; k++) ax[k] += c->scratch.pressure_sigma * g[k] * gx;
}

/* M_b u, the body's own part of the operator */
static void body_mass_times(const coupled_body *b, const double *u, double *out)
{
    vec3 l = m3_mul_v(b->inertia, v3(u[3], u[4], u[5]));
    out[0] += b->mass * u[0], out[1] += b->mass * u[1], out[2] += b->mass * u[2];
    out[3] += l.x, out[4] += l.y, out[5] += l.z;
}

/* out = (Qᵀ A Q + diag(0, M_b)) (y, ΔU at `from`) into (out, the bodies' work at `to`);
 * dv and adv are 3n scratch */
static void apply(const cloth *c, const coupled_bodies *cb, const double *y, int from, double *out, int to,
                  double *dv, double *adv)
{
    expand(c, cb, y, from, dv);
    system_times(c, dv, adv);
    for (int32_t s = 0; s < cb->count; s++) {
        memset(&cb->bodies[s].work[to], 0, 6 * sizeof(double));
        body_mass_times(&cb->bodies[s], &cb->bodies[s].work[from], &cb->bodies[s].work[to]);
    }
    /* the edge contacts' h² κ g gᵀ */
    for (int32_t k = 0; k < cb->edge_count; k++) {
        const edge_contact *e = &cb->edges[k];
        double speed = e->stiffness * edge_speed(cb, e, dv, from);
        edge_cloth_part(cb, e, speed, adv);
        edge_body_part(cb, e, speed, to);
    }
    reduce(c, cb, adv, out, to);
    hold_all(cb, to);
}

/* Cholesky of the 6x6 SPD block a into l (lower, row-major); false if not positive definite */
static bool cholesky6(const double *a, double *l)
{
    memset(l, 0, 36 * sizeof *l);
    for (int i = 0; i < 6; i++)
        for (int j = 0; j <= i; j++) {
            double s = a[6 * i + j];
            for (int k = 0; k < j; k++) s -= l[6 * i + k] * l[6 * j + k];
            if (i == j) {
                if (!(s > 0.0)) return false;
                l[6 * i + i] = sqrt(s);
            } else {
                l[6 * i + j] = s / l[6 * j + j];
            }
        }
    return true;
}

static void cholesky6_solve(const double *l, const double *b, double *x)
{
    double y[6];
    for (int i = 0; i < 6; i++) {
        double s = b[i];
        for (int k = 0; k < i; k++) s -= l[6 * i + k] * y[k];
        y[i] = s / l[6 * i + i];
    }
    for (int i = 5; i >= 0; i--) {
        double s = y[i];
        for (int k = i + 1; k < 6; k++) s -= l[6 * k + i] * x[k];
        x[i] = s / l[6 * i + i];
    }
}

/* M_b into the 6x6 block m */
static void add_body_mass(const coupled_body *b, double *m)
{
    for (int p = 0; p < 3; p++) {
        m[6 * p + p] += b->mass;
        for (int q = 0; q < 3; q++) m[6 * (p + 3) + q + 3] += b->inertia.m[p][q];
    }
}

/* The preconditioner: per vertex the inverse of S (A_ii + its edge contacts' h² κ w² n nᵀ) S + (I - S)
 * (into ws->precond), per body the Cholesky factor of M_b + Σ Jᵀ C A_ii C J over its vertices + its
 * edge contacts' h² κ g gᵀ (falling back to M_b's) */
static void build_preconditioner(const cloth *c, const coupled_bodies *cb, cg_workspace *ws)
{
    const bsr *a = &c->scratch.system;
    cg_filter filter = {c->scratch.filter_kind, c->scratch.filter_proj};
    double *blocks = ws->precond; /* first the diagonal blocks, then their filtered inverses */
    for (int32_t i = 0; i < c->model.vertex_count; i++) {
        int32_t e = bsr_find(a, i, i);
        if (e >= 0) memcpy(&blocks[9 * (size_t)i], &a->vals[9 * (size_t)e], 9 * sizeof *blocks);
        else memset(&blocks[9 * (size_t)i], 0, 9 * sizeof *blocks);
    }
    for (int32_t s = 0; s < cb->count; s++) memset(&cb->bodies[s].work[BODY_PRE], 0, 36 * sizeof(double));
    for (int32_t k = 0; k < cb->edge_count; k++) {
        const edge_contact *ec = &cb->edges[k];
        double weight[2] = {1.0 - ec->t, ec->t};
        int32_t ends[2] = {ec->i, ec->j};
        for (int end = 0; end < 2; end++)
            for (int p = 0; p < 3; p++)
                for (int q = 0; q < 3; q++)
                    blocks[9 * (size_t)ends[end] + 3 * p + q] +=
                        ec->stiffness * weight[end] * weight[end] * v3_comp(ec->n, p) * v3_comp(ec->n, q);
        vec3 moment = ec->arm;
        double g[6] = {ec->n.x, ec->n.y, ec->n.z, moment.x, moment.y, moment.z};
        double *m = &cb->bodies[ec->slot].work[BODY_PRE];
        for (int p = 0; p < 6; p++)
            for (int q = 0; q < 6; q++) m[6 * p + q] += ec->stiffness * g[p] * g[q];
    }
    for (int32_t i = 0; i < c->model.vertex_count; i++) {
        double *block = &blocks[9 * (size_t)i], out[9];
        int32_t s = coupled_slot(c, cb, i);
        if (s >= 0) { /* Jᵀ C A_ii C J, column by column of the six unit motions */
            vec3 r = coupled_lever(c, cb, i, s), cols[6];
            mat3 aii = {{{block[0], block[1], block[2]}, {block[3], block[4], block[5]}, {block[6], block[7], block[8]}}};
            for (int q = 0; q < 6; q++) {
                double u[6] = {0};
                u[q] = 1.0;
                cols[q] = coupled_held_part(c, i, point_velocity(u, r));
            }
            double *m = &cb->bodies[s].work[BODY_PRE];
            for (int p = 0; p < 6; p++)
                for (int q = 0; q < 6; q++) m[6 * p + q] += v3_dot(cols[p], coupled_held_part(c, i, m3_mul_v(aii, cols[q])));
        }
        filter_block(&filter, i, i, block, out);
        mat3 m = {{{out[0], out[1], out[2]}, {out[3], out[4], out[5]}, {out[6], out[7], out[8]}}}, inv;
        if (!m3_inverse(m, &inv)) inv = m3_identity();
        for (int r = 0; r < 3; r++)
            for (int q = 0; q < 3; q++) block[3 * r + q] = inv.m[r][q];
    }
    for (int32_t s = 0; s < cb->count; s++) {
        coupled_body *b = &cb->bodies[s];
        double m[36];
        memcpy(m, &b->work[BODY_PRE], sizeof m);
        add_body_mass(b, m);
        if (!cholesky6(m, &b->work[BODY_PRE])) {
            memset(m, 0, sizeof m);
            add_body_mass(b, m);
            cholesky6(m, &b->work[BODY_PRE]);
        }
    }
}

/* z = P⁻¹ r; returns rᵀ z */
static double precondition(const cloth *c, const coupled_bodies *cb, const cg_workspace *ws, const double *r,
                           double *z)
{
    double rz = 0.0;
    for (int32_t i = 0; i < c->model.vertex_count; i++) {
        size_t k = 3 * (size_t)i;
        const double *p = &ws->precond[9 * (size_t)i];
        for (int a = 0; a < 3; a++) {
            z[k + a] = p[3 * a] * r[k] + p[3 * a + 1] * r[k + 1] + p[3 * a + 2] * r[k + 2];
            rz += r[k + a] * z[k + a];
        }
    }
    for (int32_t s = 0; s < cb->count; s++) {
        double *work = cb->bodies[s].work;
        cholesky6_solve(&work[BODY_PRE], &work[BODY_R], &work[BODY_Z]);
        hold(&cb->bodies[s], &work[BODY_Z]);
        for (int a = 0; a < 6; a++) rz += work[BODY_R + a] * work[BODY_Z + a];
    }
    return rz;
}

static double dot_all(const cloth *c, const coupled_bodies *cb, const double *a, int at, const double *b, int bt)
{
    double d = 0.0;
    for (size_t k = 0; k < 3 * (size_t)c->model.vertex_count; k++) d += a[k] * b[k];
    for (int32_t s = 0; s < cb->count; s++)
        for (int q = 0; q < 6; q++) d += cb->bodies[s].work[at + q] * cb->bodies[s].work[bt + q];
    return d;
}

/* a += alpha b over the cloth's and the bodies' parts */
static void axpy_all(const cloth *c, const coupled_bodies *cb, double *a, int at, double alpha, const double *b,
                     int bt)
{
    for (size_t k = 0; k < 3 * (size_t)c->model.vertex_count; k++) a[k] += alpha * b[k];
    for (int32_t s = 0; s < cb->count; s++)
        for (int q = 0; q < 6; q++) cb->bodies[s].work[at + q] += alpha * cb->bodies[s].work[bt + q];
}

cg_result coupled_solve(cloth *c, const coupled_bodies *cb, double tolerance, int32_t max_iterations)
{
    cloth_scratch *sc = &c->scratch;
    cg_workspace *ws = &sc->cg;
    size_t len = 3 * (size_t)c->model.vertex_count;
    /* x_new, v_new and force are free until the update */
    double *y = sc->dv, *r = ws->r, *p = ws->c, *q = ws->q, *z = ws->s, *dv = sc->x_new, *adv = sc->v_new;
    build_preconditioner(c, cb, ws);
    for (int32_t s = 0; s < cb->count; s++) memset(cb->bodies[s].work, 0, BODY_PRE * sizeof(double));
    /* rhs' = Qᵀ (b - A C z) into (r, BODY_R); x0 = (S Δv0, 0) */
    for (int32_t i = 0; i < c->model.vertex_count; i++) {
        size_t k = 3 * (size_t)i;
        v3_store(&dv[k], coupled_held_part(c, i, v3_load(&sc->z[k])));
        v3_store(&y[k], free_part(c, i, v3_load(&y[k])));
    }
    system_times(c, dv, adv);
    for (size_t k = 0; k < len; k++) adv[k] = sc->rhs[k] - adv[k];
    /* the edge contacts' h κ (reach - d0 - h w0) g, less their h² κ g gᵀ C z (the bodies' ΔU is 0 there) */
    for (int32_t k = 0; k < cb->edge_count; k++) {
        const edge_contact *e = &cb->edges[k];
        double push = e->gap_impulse - e->stiffness * edge_speed(cb, e, dv, BODY_X);
        edge_cloth_part(cb, e, push, adv);
        edge_body_part(cb, e, push, BODY_R);
    }
    reduce(c, cb, adv, r, BODY_R);
    hold_all(cb, BODY_R);
    double *b_norm_z = sc->force; /* P⁻¹ rhs', for the relative residual */
    double bb = precondition(c, cb, ws, r, b_norm_z);
    /* r = rhs' - A' x0 */
    apply(c, cb, y, BODY_X, q, BODY_Q, dv, adv);
    axpy_all(c, cb, r, BODY_R, -1.0, q, BODY_Q);
    double rz = precondition(c, cb, ws, r, z);
    memcpy(p, z, len * sizeof *p);
    for (int32_t s = 0; s < cb->count; s++) memcpy(&cb->bodies[s].work[BODY_P], &cb->bodies[s].work[BODY_Z], 6 * sizeof(double));
    cg_result result = {0};
    double goal = tolerance * tolerance * bb;
    while (!(rz <= goal) && result.iterations < max_iterations && bb > 0.0) {
        apply(c, cb, p, BODY_P, q, BODY_Q, dv, adv);
        double pq = dot_all(c, cb, p, BODY_P, q, BODY_Q);
        if (!(pq > 0.0)) break;
        double alpha = rz / pq;
        axpy_all(c, cb, y, BODY_X, alpha, p, BODY_P);
        axpy_all(c, cb, r, BODY_R, -alpha, q, BODY_Q);
        double rz_new = precondition(c, cb, ws, r, z), beta = rz_new / rz;
        rz = rz_new;
        for (size_t k = 0; k < len; k++) p[k] = z[k] + beta * p[k];
        for (int32_t s = 0; s < cb->count; s++) {
            double *work = cb->bodies[s].work;
            for (int a = 0; a < 6; a++) work[BODY_P + a] = work[BODY_Z + a] + beta * work[BODY_P + a];
        }
        result.iterations++;
    }
    result.relative_residual = bb > 0.0 ? sqrt(fmax(rz, 0.0) / bb) : 0.0;
    result.converged = rz <= goal || bb == 0.0;
    /* Δv = C z + Q x */
    expand(c, cb, y, BODY_X, dv);
    for (int32_t i = 0; i < c->model.vertex_count; i++) {
        size_t k = 3 * (size_t)i;
        v3_store(&y[k], v3_add(v3_load(&dv[k]), coupled_held_part(c, i, v3_load(&sc->z[k]))));
    }
    /* what each body takes: the opposite of what its contacts gave the cloth, at the same levers */
    double g_dv = 0.0;
    if (sc->pressure_sigma != 0.0)
        for (size_t k = 0; k < len; k++) g_dv += sc->pressure_gradient[k] * y[k];
    for (int32_t s = 0; s < cb->count; s++) cb->bodies[s].impulse = cb->bodies[s].moment = v3(0, 0, 0);
    for (int32_t i = 0; i < c->model.vertex_count; i++) {
        int32_t s = coupled_slot(c, cb, i);
        if (s < 0) continue;
        coupled_body *b = &cb->bodies[s];
        vec3 j = coupled_constraint_impulse(c, i, g_dv);
        b->impulse = v3_sub(b->impulse, j);
        b->moment = v3_sub(b->moment, v3_cross(coupled_lever(c, cb, i, s), j));
    }
    /* the collider's point under a held vertex now moves with the body's new velocity: what the
     * contact's friction checks after the solve measure the sliding against */
    for (int32_t i = 0; i < c->model.vertex_count; i++) {
        int32_t s = coupled_slot(c, cb, i);
        if (s < 0) continue;
        size_t k = 3 * (size_t)i;
        vec3 moved = point_velocity(&cb->bodies[s].work[BODY_X], coupled_lever(c, cb, i, s));
        v3_store(&sc->target_velocity[k], v3_add(v3_load(&sc->target_velocity[k]), moved));
    }
    for (int32_t k = 0; k < cb->edge_count; k++) {
        edge_contact *e = &cb->edges[k];
        e->impulse = e->gap_impulse - e->stiffness * edge_speed(cb, e, y, BODY_X);
        coupled_body *b = &cb->bodies[e->slot];
        vec3 j = v3_scale(e->n, e->impulse);
        b->impulse = v3_sub(b->impulse, j);
        b->moment = v3_sub(b->moment, v3_scale(e->arm, e->impulse));
    }
    /* a body on joints takes the change of momentum the solve gave it; its joints the rest */
    for (int32_t s = 0; s < cb->count; s++) {
        coupled_body *b = &cb->bodies[s];
        if (b->held_count == 0) continue;
        const double *u = &b->work[BODY_X];
        b->impulse = v3_scale(v3(u[0], u[1], u[2]), b->mass);
        b->moment = m3_mul_v(b->inertia, v3(u[3], u[4], u[5]));
    }
    return result;
}

vec3 coupled_constraint_impulse(const cloth *c, int32_t i, double g_dv)
{
    return coupled_held_part(c, i, contact_constraint_residual(c, i, g_dv));
}
