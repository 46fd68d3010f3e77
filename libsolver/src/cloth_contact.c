#include "cloth_contact.h"

#include <string.h>

#include "collision_geometry.h"
#include "coupled_solve.h"
#include "linalg_cg.h"

/* A contact starts within the contact distance, or within CONTACT_START times it for a vertex
 * still approaching the surface, and holds up to CONTACT_HOLD times it while the surface pushes. */
#define CONTACT_START 1.1
#define CONTACT_HOLD 1.25
/* a vertex the response left at the contact distance is at it, whatever the last bits say */
#define CONTACT_ROUNDING 1e-9

typedef struct nearest_query {
    const collider *col;
    vec3 p;
    double best;     /* smallest distance so far */
    vec3 point;      /* closest point on the collider at the step's start */
    vec3 velocity;   /* of that point over the step */
    vec3 face_normal;
} nearest_query;

static void visit_triangle(void *ctx, int32_t tri)
{
    nearest_query *q = ctx;
    const collider *col = q->col;
    const double *x0 = col->scratch.x0, *x1 = col->scratch.x1;
    const int32_t *v = &col->model.triangles[3 * (size_t)tri];
    vec3 a = v3_load(&x0[3 * (size_t)v[0]]), b = v3_load(&x0[3 * (size_t)v[1]]);
    vec3 c = v3_load(&x0[3 * (size_t)v[2]]);
    double bary[3];
    vec3 point = closest_point_triangle(q->p, a, b, c, bary);
    double d = v3_len(v3_sub(q->p, point));
    if (d >= q->best) return;
    q->best = d;
    q->point = point;
    vec3 vel = v3(0, 0, 0);
    for (int k = 0; k < 3; k++)
        vel = v3_madd(vel, v3_sub(v3_load(&x1[3 * (size_t)v[k]]), v3_load(&x0[3 * (size_t)v[k]])), bary[k]);
    q->velocity = vel; /* displacement; divided by h by the caller */
    q->face_normal = v3_cross(v3_sub(b, a), v3_sub(c, a));
}

/* A vertex's relative tangential velocity to the collider. */
static vec3 tangential(vec3 v, vec3 n) { return v3_madd(v, n, -v3_dot(v, n)); }

/* Every vertex free, with no friction force and no push-out, until its contact says otherwise. */
static void free_every_vertex(cloth *c)
{
    size_t len = 3 * (size_t)c->model.vertex_count;
    memset(c->scratch.filter_kind, FILTER_FREE, (size_t)c->model.vertex_count);
    memset(c->scratch.external_force, 0, len * sizeof *c->scratch.external_force);
    memset(c->scratch.target_offset, 0, len * sizeof *c->scratch.target_offset);
    for (int32_t i = 0; i < c->model.vertex_count; i++) c->scratch.pushed_by[i] = -1;
}

/* The collider p is deepest within reach of (-1: none), its nearest point into *best and the
 * contact distance less the distance into *depth. A contact starts inside the contact distance
 * and holds a little beyond it, so a vertex pushed out to exactly that distance stays held.
 * Within reach of a collider whose body feels the cloth and of one that does not (cloth between a
 * body and the table), the latter holds it however deep the body is: the body is held off it by
 * the squeeze springs in the solve (coupled_squeeze.c). Held by the body instead, the vertex would
 * move with it into the table, and nothing in the solve would carry the body. */
static int32_t deepest_collider(const cloth *c, collider *const *colliders, int32_t collider_count, vec3 p,
                                bool was_in_contact, nearest_query *best, double *depth)
{
    int32_t best_collider = -1;
    *best = (nearest_query){0};
    *depth = -INFINITY;
    for (int32_t k = 0; k < collider_count; k++) {
        if (!cloth_meets_collider(&c->model, k)) continue;
        const collider *col = colliders[k];
        double reach = c->model.thickness + col->model.thickness;
        double hold = (was_in_contact ? CONTACT_HOLD : CONTACT_START) * reach;
        nearest_query q = {col, p, hold, v3(0, 0, 0), v3(0, 0, 0), v3(0, 0, 0)};
        aabb box = aabb_inflate(aabb_add_point(aabb_empty(), p), hold);
        bvh_query(&col->state.tree, &box, visit_triangle, &q);
        bool gives = col->scratch.pushes_body;
        bool first = best_collider < 0 || (colliders[best_collider]->scratch.pushes_body && !gives);
        bool same = best_collider >= 0 && colliders[best_collider]->scratch.pushes_body == gives;
        if (q.best < hold && (first || (same && reach - q.best > *depth))) {
            *depth = reach - q.best;
            *best = q;
            best_collider = k;
        }
    }
    return best_collider;
}

/* The normal points from the surface to the vertex; on the surface itself, the face normal on
 * the side the vertex was last held on. */
static vec3 contact_normal(const cloth *c, const vertex_contact *vc, vec3 p, const nearest_query *best,
                           bool was_in_contact)
{
    vec3 d = v3_sub(p, best->point), n;
    double dist = v3_len(d);
    double fl = v3_len(best->face_normal);
    if (dist > 1e-9 * (c->model.thickness + 1e-9)) {
        n = v3_scale(d, 1.0 / dist);
    } else {
        n = fl > 0.0 ? v3_scale(best->face_normal, 1.0 / fl) : v3(0, 0, 1);
        if (was_in_contact && v3_dot(n, vc->normal) < 0.0) n = v3_scale(n, -1.0);
    }
    return n;
}

/* A fresh contact: the force that will hold it is about the weight pressing in plus what
 * stops its approach; it sticks if static friction under that force stops its sliding. */
static void estimate_fresh_contact(vertex_contact *vc, double mass, double mu, vec3 g, vec3 n, vec3 v, vec3 vc_vel,
                                   double h)
{
    double approach = v3_dot(v3_sub(vc_vel, v), n);
    vc->normal_force = mass * fmax(0.0, -v3_dot(g, n)) + mass * fmax(0.0, approach) / h;
    vec3 vt0 = tangential(v3_sub(v, vc_vel), n);
    double speed0 = v3_len(vt0);
    vc->sticking = speed0 * mass <= mu * vc->normal_force * h;
    vc->slide_direction = speed0 > 0.0 ? v3_scale(vt0, 1.0 / speed0) : v3(0, 0, 0);
}

/* A sliding vertex moves freely in the surface: S = I - n nᵀ. */
static void free_in_surface(cloth *c, int32_t i, vec3 n)
{
    c->scratch.filter_kind[i] = FILTER_PROJECT;
    mat3 s = m3_add(m3_identity(), m3_scale(m3_outer(n, n), -1.0));
    double *proj = &c->scratch.filter_proj[9 * (size_t)i];
    for (int r = 0; r < 3; r++)
        for (int q = 0; q < 3; q++) proj[3 * r + q] = s.m[r][q];
}

/* Kinetic friction, μ N against the sliding direction: the direction of motion, or when
 * sliding has just begun, the way the sticking constraint was holding it back. */
static void kinetic_friction(cloth *c, int32_t i, vertex_contact *vc, double mu, vec3 n, vec3 v, vec3 vc_vel,
                             double h)
{
    vec3 vt = tangential(v3_sub(v, vc_vel), n);
    double speed = v3_len(vt);
    if (speed > 1e-9) vc->slide_direction = v3_scale(vt, 1.0 / speed);
    vec3 dir = tangential(vc->slide_direction, n);
    double dir_len = v3_len(dir);
    double magnitude = mu * vc->normal_force;
    /* a strand's vertex hangs on segments of stiffness EA / L: the normal force of its last
     * solve holds their reaction to the push back out to the contact distance, thousands of
     * times its weight, and μ N of that, explicit, kicks the strand along the surface. Its
     * friction is at most what stops its own sliding within the step, m |v_t| / h. */
    if (c->model.strands) magnitude = fmin(magnitude, c->model.mass[i] * speed / h);
    if (dir_len > 0.0 && mu > 0.0)
        v3_store(&c->scratch.external_force[3 * (size_t)i], v3_scale(dir, -magnitude / dir_len));
}

/* Vertex i's contact, filter and forces for the step; 1 if it is held on a collider. */
static int32_t prepare_vertex_contact(cloth *c, collider *const *colliders, int32_t collider_count, int32_t i,
                                      double h, vec3 g)
{
    vertex_contact *vc = &c->state.contacts[i];
    /* a vertex pulled out of a collider it starts inside is held by none (untangle.h) */
    if (c->model.pinned[i] || vc->released || cloth_vertex_left_out(&c->model, i, LEFT_OUT_OF_OBJECTS) ||
        (c->scratch.untangling && c->scratch.untangling[i])) {
        vc->collider = -1;
        return 0;
    }
    vec3 p = v3_load(&c->state.x[3 * (size_t)i]);
    bool was_in_contact = vc->collider >= 0;
    nearest_query best;
    double depth;
    int32_t k = deepest_collider(c, colliders, collider_count, p, was_in_contact, &best, &depth);
    if (k < 0) {
        vc->collider = -1;
        return 0;
    }
    vec3 n = contact_normal(c, vc, p, &best, was_in_contact);
    vec3 vc_vel = v3_scale(best.velocity, 1.0 / h);
    vec3 v = v3_load(&c->state.v[3 * (size_t)i]);
    double reach = c->model.thickness + colliders[k]->model.thickness;
    /* beyond the contact distance and not approaching: nothing to hold yet (taking it up would
     * stop it there, step after step, and glue cloth to a surface it hangs away from) */
    if (!was_in_contact && depth < -CONTACT_ROUNDING * reach && v3_dot(v3_sub(v, vc_vel), n) >= 0.0) {
        vc->collider = -1;
        return 0;
    }
    double mu = c->model.friction * colliders[k]->model.friction;
    if (!was_in_contact) estimate_fresh_contact(vc, c->model.mass[i], mu, g, n, v, vc_vel, h);
    vc->collider = k;
    vc->normal = n;
    /* it moves with the collider's point, pushed back out to the contact distance if inside it;
     * never pulled in from the band beyond, where it is held only as long as it presses */
    v3_store(&c->scratch.target_velocity[3 * (size_t)i], vc_vel);
    v3_store(&c->scratch.target_offset[3 * (size_t)i], v3_scale(n, fmax(depth, 0.0)));
    if (vc->sticking) {
        c->scratch.filter_kind[i] = FILTER_FIXED;
        return 1;
    }
    free_in_surface(c, i, n);
    kinetic_friction(c, i, vc, mu, n, v, vc_vel, h);
    return 1;
}

int32_t contacts_prepare(cloth *c, collider *const *colliders, int32_t collider_count, double h,
                         const double gravity[3])
{
    memcpy(c->scratch.contacts_start, c->state.contacts, (size_t)c->model.vertex_count * sizeof *c->state.contacts);
    free_every_vertex(c);
    if (collider_count == 0) return 0;
    vec3 g = v3_scale(v3_load(gravity), c->model.gravity_scale);
    int32_t active = 0;
    /* each vertex on its own */
#pragma omp parallel for schedule(dynamic, 256) reduction(+ : active) if (c->model.vertex_count > 1024)
    for (int32_t i = 0; i < c->model.vertex_count; i++)
        active += prepare_vertex_contact(c, colliders, collider_count, i, h, g);
    return active;
}

vec3 contact_constraint_residual(const cloth *c, int32_t i, double g_dv)
{
    const bsr *a = &c->scratch.system;
    const double *rhs = &c->scratch.rhs[3 * (size_t)i];
    double f[3] = {-rhs[0], -rhs[1], -rhs[2]};
    if (c->scratch.pressure_sigma != 0.0)
        for (int r = 0; r < 3; r++) f[r] += c->scratch.pressure_sigma * c->scratch.pressure_gradient[3 * (size_t)i + r] * g_dv;
    for (int32_t k = a->row_start[i]; k < a->row_start[i + 1]; k++) {
        const double *b = &a->vals[9 * (size_t)k], *x = &c->scratch.dv[3 * (size_t)a->cols[k]];
        for (int r = 0; r < 3; r++) f[r] += b[3 * r] * x[0] + b[3 * r + 1] * x[1] + b[3 * r + 2] * x[2];
    }
    return v3(f[0], f[1], f[2]);
}

/* (A Δv - rhs)_i / h: the force the constraint exerts on vertex i */
static vec3 constraint_force(const cloth *c, int32_t i, double h, double g_dv)
{
    return v3_scale(contact_constraint_residual(c, i, g_dv), 1.0 / h);
}

/* Two-way coupling: vertex i got impulse j from collider k at the end of the step; the
 * collider takes -j at the point of its surface under the vertex. */
static void react(const cloth *c, collider *k, int32_t i, vec3 n, vec3 j)
{
    vec3 p = v3_madd(v3_load(&c->scratch.x_new[3 * (size_t)i]), n, -(c->model.thickness + k->model.thickness));
    collider_react(k, v3_scale(j, -1.0), p);
}

void contacts_after_solve(cloth *c, collider *const *colliders, double h)
{
    double g_dv = 0.0;
    if (c->scratch.pressure_sigma != 0.0)
        for (size_t k = 0; k < 3 * (size_t)c->model.vertex_count; k++)
            g_dv += c->scratch.pressure_gradient[k] * c->scratch.dv[k];
    for (int32_t i = 0; i < c->model.vertex_count; i++) {
        vertex_contact *vc = &c->state.contacts[i];
        vc->released = 0;
        if (vc->collider < 0) continue;
        vec3 f = constraint_force(c, i, h, g_dv);
        collider *col = colliders[vc->collider];
        /* what the collider gave the vertex over the step: the constraint's force and the
         * sliding friction, each held for h (released or not, the solve applied them) */
        vec3 friction = v3_load(&c->scratch.external_force[3 * (size_t)i]);
        /* a body that feels the cloth took the constraint's part in the solve (coupled_solve.h):
         * all of it where the vertex sticks, the normal part where it slides */
        vec3 taken = col->scratch.pushes_body ? coupled_held_part(c, i, f) : v3(0, 0, 0);
        react(c, col, i, vc->normal, v3_scale(v3_add(v3_sub(f, taken), friction), h));
        double fn = v3_dot(f, vc->normal);
        if (fn < 0.0) { /* the surface would have to pull: let go */
            vc->released = 1;
            vc->collider = -1;
            vc->normal_force = 0.0;
            continue;
        }
        double mu = c->model.friction * col->model.friction;
        if (vc->sticking) {
            vec3 ft = tangential(f, vc->normal);
            double ft_len = v3_len(ft);
            if (ft_len > mu * fn) { /* it slides the way the constraint was holding it back */
                vc->sticking = 0;
                vc->slide_direction = v3_scale(ft, -1.0 / ft_len);
            }
        } else if (mu > 0.0) {
            /* friction would have turned the sliding round within the step: it stops */
            vec3 v1 = v3_load(&c->scratch.v_new[3 * (size_t)i]);
            vec3 vcol = v3_load(&c->scratch.target_velocity[3 * (size_t)i]);
            vec3 vt = tangential(v3_sub(v1, vcol), vc->normal);
            if (v3_dot(vt, vc->slide_direction) <= 0.0) {
                vc->sticking = 1;
                v3_store(&c->scratch.v_new[3 * (size_t)i], v3_sub(v1, vt));
                react(c, col, i, vc->normal, v3_scale(vt, -c->model.mass[i]));
            }
        }
        vc->normal_force = fn;
    }
}

void contacts_rollback(cloth *c)
{
    memcpy(c->state.contacts, c->scratch.contacts_start, (size_t)c->model.vertex_count * sizeof *c->state.contacts);
}
