/* Cloth squeezed between a body that feels the cloth and a collider that does not (issue 32: the
 * tablecloth sample's bodies landing on the cloth over the table; tests/c/test_squeeze.c).
 *
 * A vertex takes one collider, the one it is deepest in (cloth_contact.c), the table winning the
 * tie: under a body resting on cloth over a table no vertex is held on the body, so nothing in the
 * solve carries it. It sinks into the cloth's layer and the response, after the solve, pushes the
 * squeezed vertices out of it again and again, each push credited to the body (collider_react):
 * the sample's 2 kg cube, landing at 0.5 m/s, took 12.3 N·s up in one step of 1/48 s and flew
 * 2.5 m high. Here each such vertex (held on a collider whose body does not feel the cloth, within
 * the contact distance of a body that does, on the other side) holds the body off in the solve
 * with a stiff implicit spring along the vertex's held normal (an edge_contact from the vertex to
 * the body's surface, coupled_solve.h): the body rests on the cloth's layer, the table under the
 * cloth carrying its weight, and backward Euler lets no spring give energy, however stiff. The
 * spring acts only along a direction the vertex is held in, so the cloth's solve is unchanged. */
#include "coupled_solve.h"

#include "collider.h"
#include "collision_bvh.h"
#include "collision_geometry.h"

/* h² κ per squeezed vertex, times the body's mass: N such springs under a body of mass M resting
 * at steps of h give way by g h² / (N SQUEEZE_STIFFNESS), under 1 mm at 1/48 s */
#define SQUEEZE_STIFFNESS 1.0
/* the body on the other side: the face nearest the vertex no more than 60° off facing the held surface */
#define SQUEEZE_COS 0.5

typedef struct squeeze_query {
    const collider *col;
    vec3 p;
    double best;    /* smallest distance so far */
    vec3 point;     /* the nearest point at the step's start */
    vec3 end;       /* where it goes over the step */
    vec3 face_normal; /* of the nearest triangle, outward, not unit */
    int32_t tri;      /* the nearest triangle */
} squeeze_query;

static void visit_triangle(void *ctx, int32_t tri)
{
    squeeze_query *q = ctx;
    const double *x0 = q->col->scratch.x0, *x1 = q->col->scratch.x1;
    const int32_t *v = &q->col->model.triangles[3 * (size_t)tri];
    double bary[3];
    vec3 a = v3_load(&x0[3 * (size_t)v[0]]), b = v3_load(&x0[3 * (size_t)v[1]]), c = v3_load(&x0[3 * (size_t)v[2]]);
    vec3 point = closest_point_triangle(q->p, a, b, c, bary);
    double d = v3_len(v3_sub(q->p, point));
    if (d >= q->best) return;
    q->best = d, q->point = point, q->end = v3(0, 0, 0), q->tri = tri;
    q->face_normal = v3_cross(v3_sub(b, a), v3_sub(c, a));
    for (int k = 0; k < 3; k++) q->end = v3_madd(q->end, v3_load(&x1[3 * (size_t)v[k]]), bary[k]);
}

/* The angular row of a squeeze spring (coupled_solve.h's arm). On a flat part of the body's mesh
 * (a corner of the nearest triangle sharp, collider.h) the point's own, r × n. On a smooth part the
 * mesh stands for a curved surface, and there the row has no moment: the spring pushes along n
 * through the centre. Exact for a sphere, whose gaps no turn changes: with r × n (levers of 2.5-4.5
 * cm), the facet's normal or the vertex normals' (5 mm) the solve kept turning the sample's sphere
 * to close gaps that turning does not close, and it rolled (two_way_coupling.h, "Why the sphere
 * rolls"). The pair's momentum is kept (the impulse along n, equal and opposite); the couple
 * between the vertex's line and the centre's goes to the collider that holds the vertex along n.
 * The price: a smooth body that is not round (a cylinder on its side) gets no righting moment from
 * the springs when it tilts along its length. */
static vec3 squeeze_arm(const collider *col, int32_t tri, vec3 r, vec3 n)
{
    const int32_t *v = &col->model.triangles[3 * (size_t)tri];
    const uint8_t *sharp = col->model.sharp_vertex;
    return sharp[v[0]] || sharp[v[1]] || sharp[v[2]] ? v3_cross(r, n) : v3(0, 0, 0);
}

bool coupled_find_squeezed(const cloth *c, coupled_bodies *cb)
{
    double h = cb->h;
    for (int32_t i = 0; cb->count > 0 && i < c->model.vertex_count; i++) {
        const vertex_contact *vc = &c->state.contacts[i];
        if (vc->collider < 0 || cb->slot[vc->collider] >= 0 || c->scratch.filter_kind[i] == FILTER_FREE) continue;
        vec3 p = v3_load(&c->state.x[3 * (size_t)i]), v = v3_load(&c->state.v[3 * (size_t)i]);
        vec3 n = v3_scale(vc->normal, -1.0); /* from the body's surface to the vertex */
        for (int32_t k = 0; k < cb->collider_count; k++) {
            if (cb->slot[k] < 0 || !cloth_meets_collider(&c->model, k)) continue;
            const collider *col = cb->colliders[k];
            double reach = c->model.thickness + col->model.thickness;
            /* the nearest point within reach, or within reach of the far side of a layer the
             * body has sunk into */
            double look = 2.0 * reach;
            squeeze_query q = {col, p, look, v3(0, 0, 0), v3(0, 0, 0), v3(0, 0, 0), -1};
            aabb box = aabb_inflate(aabb_add_point(aabb_empty(), p), look);
            bvh_query(&col->state.tree, &box, visit_triangle, &q);
            double fl = v3_len(q.face_normal);
            if (!(q.best < look) || !(fl > 0.0)) continue;
            vec3 face = v3_scale(q.face_normal, 1.0 / fl);
            /* the body's face towards the held surface, the vertex outside it or inside */
            if (v3_dot(face, vc->normal) > -SQUEEZE_COS) continue;
            double signed_distance = v3_dot(v3_sub(p, q.point), face) >= 0.0 ? q.best : -q.best;
            if (signed_distance >= reach) continue;
            double w0 = v3_dot(n, v3_sub(v, v3_scale(v3_sub(q.end, q.point), 1.0 / h)));
            double gap = coupled_gap(reach - signed_distance, w0, h);
            if (gap <= 0.0) continue;
            int32_t slot = cb->slot[k];
            double stiffness = SQUEEZE_STIFFNESS * cb->bodies[slot].mass;
            edge_contact e = {.i = i, .j = i, .slot = slot, .t = 0.0, .n = n,
                              .r = v3_sub(q.end, cb->bodies[slot].center), .stiffness = stiffness,
                              .gap_impulse = stiffness / h * gap};
            e.arm = squeeze_arm(col, q.tri, e.r, n);
            if (!coupled_push_edge(cb, &e)) return false;
        }
    }
    return true;
}
