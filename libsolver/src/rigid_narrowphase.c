#include "rigid_narrowphase.h"

#include <stdlib.h>
#include <string.h>

#include "collision_geometry.h"
#include "rigid_capsule.h"
#include "rigid_compound.h"
#include "rigid_round_solid.h"


enum { MESH_CONTACTS_MAX = 8 };

static bool reserve(vec3 **v, vec3 **n, double **o, int32_t *capacity, int32_t needed)
{
    if (needed <= *capacity) return true;
    free(*v), free(*n), free(*o);
    *v = malloc((size_t)needed * sizeof **v);
    *n = malloc(3 * (size_t)needed * sizeof **n); /* face normals, then 2 per edge */
    *o = malloc((size_t)needed * sizeof **o);
    *capacity = (*v && *n && *o) ? needed : 0;
    return *capacity > 0;
}

void narrow_scratch_free(narrow_scratch *s)
{
    for (int k = 0; k < 2; k++) free(s->slot[k].v), free(s->slot[k].n), free(s->slot[k].o);
    free(s->parts), free(s->found);
    memset(s, 0, sizeof *s);
}

void narrow_scratch_forget(narrow_scratch *s) { s->slot[0].body = s->slot[1].body = NULL; }

/* The body's polytope as placed in `slot` (by place_polytope). */
static world_poly placed_view(const rigid_body *body, const placed_polytope *slot)
{
    const polytope *p = &body->model.hull;
    return (world_poly){p->vertex_count, p->face_count, p->edge_count, slot->v, slot->n, slot->o, p->face_first,
                        p->face_loops, p->edges, slot->n + p->face_count, p->edge_faces, body->state.x,
                        p->is_box ? &p->box : NULL};
}

/* The polytope p of `body` moved to the body's pose, into v, n and o. */
static void place_hull(const rigid_body *body, const polytope *p, vec3 *v, vec3 *n, double *o)
{
    for (int32_t i = 0; i < p->vertex_count; i++) v[i] = v3_add(body->state.x, m3_mul_v(body->state.R, p->vertices[i]));
    for (int32_t f = 0; f < p->face_count; f++) {
        n[f] = m3_mul_v(body->state.R, p->normals[f]);
        o[f] = p->offsets[f] + v3_dot(n[f], body->state.x);
    }
    vec3 *edge_normals = n + p->face_count;
    for (int32_t e = 0; e < p->edge_count; e++) {
        edge_normals[2 * e] = n[p->edge_faces[2 * e]];
        edge_normals[2 * e + 1] = n[p->edge_faces[2 * e + 1]];
    }
}

/* The body's polytope (a compound's every polytope part, one after another) moved to its
 * pose, in the slot. */
static bool place_polytope(const rigid_body *body, placed_polytope *slot)
{
    const rigid_body_model *m = &body->model;
    const polytope *p = &m->hull;
    int32_t needed = p->vertex_count > p->face_count + p->edge_count ? p->vertex_count : p->face_count + p->edge_count;
    if (m->shape == SHAPE_COMPOUND) /* reserve gives 3 normals per vertex */
        needed = m->placed_vertices > m->placed_normals / 3 + 1 ? m->placed_vertices : m->placed_normals / 3 + 1;
    slot->body = NULL;
    if (!reserve(&slot->v, &slot->n, &slot->o, &slot->capacity, needed + 1)) return false;
    if (m->shape != SHAPE_COMPOUND) {
        place_hull(body, p, slot->v, slot->n, slot->o);
    } else {
        for (int32_t i = 0; i < m->part_count; i++) {
            const rigid_part *part = &m->parts[i];
            if (part->shape == SHAPE_POLYTOPE || part->shape == SHAPE_CYLINDER || part->shape == SHAPE_CONE)
                place_hull(body, &part->hull, slot->v + part->first_vertex, slot->n + part->first_normal,
                           slot->o + part->first_offset);
        }
    }
    slot->body = body;
    return true;
}

/* The polytopes of a and b placed, each reused where a slot holds it already (never both in
 * one slot). */
static bool place_pair(const rigid_body *a, const rigid_body *b, bool poly_a, bool poly_b, narrow_scratch *s,
                       world_poly *pa, world_poly *pb)
{
    int ka = s->slot[1].body == a || s->slot[0].body == b ? 1 : 0;
    if (poly_a) {
        if (s->slot[ka].body != a && !place_polytope(a, &s->slot[ka])) return false;
        *pa = placed_view(a, &s->slot[ka]);
    }
    if (poly_b) {
        placed_polytope *slot = &s->slot[1 - ka];
        if (slot->body != b && !place_polytope(b, slot)) return false;
        *pb = placed_view(b, slot);
    }
    return true;
}

/* A mesh triangle facing `toward`, with its edges' Gauss arcs running from the face normal
 * to the edge's outward direction in the face (the front half of a thin prism). */
typedef struct triangle_poly {
    vec3 v[3], n[1], edge_normals[6];
    double o[1];
    world_poly poly;
} triangle_poly;

static bool make_triangle(triangle_poly *t, vec3 a, vec3 b, vec3 c, vec3 toward)
{
    static const int32_t first[2] = {0, 3}, loop[3] = {0, 1, 2}, edges[6] = {0, 1, 1, 2, 2, 0};
    vec3 n = v3_cross(v3_sub(b, a), v3_sub(c, a));
    double len = v3_len(n);
    if (!(len > 0.0)) return false;
    n = v3_scale(n, 1.0 / len);
    if (v3_dot(n, v3_sub(toward, a)) < 0.0) { /* wind it to face the other body */
        vec3 tmp = b;
        b = c, c = tmp, n = v3_scale(n, -1.0);
    }
    t->v[0] = a, t->v[1] = b, t->v[2] = c;
    t->n[0] = n;
    t->o[0] = v3_dot(n, a);
    for (int e = 0; e < 3; e++) {
        vec3 side = v3_cross(v3_sub(t->v[(e + 1) % 3], t->v[e]), n);
        t->edge_normals[2 * e] = n;
        t->edge_normals[2 * e + 1] = v3_scale(side, 1.0 / v3_len(side));
    }
    t->poly = (world_poly){3, 1, 3, t->v, t->n, t->o, first, loop, edges, t->edge_normals, NULL,
                           v3_scale(v3_add(v3_add(a, b), c), 1.0 / 3.0), NULL};
    return true;
}

/* --- against triangle meshes ------------------------------------------------------------------ */

typedef struct mesh_query {
    const rigid_body *mesh;
    const world_poly *poly; /* NULL for a sphere or capsule */
    const round_solid *solid; /* a cylinder or cone (poly its proxy), or NULL */
    const vec3 *segment;    /* the capsule's core, NULL for a sphere or polytope */
    vec3 center;            /* the sphere's centre, or a point inside the polytope */
    double radius;          /* the sphere's */
    double margin;
    rigid_contact found[64];
    int32_t count;
} mesh_query;

static void add_found(mesh_query *q, const rigid_contact *c, int32_t n)
{
    for (int32_t i = 0; i < n; i++) {
        /* the same point from two triangles (a shared edge or corner) once */
        bool duplicate = false;
        for (int32_t j = 0; j < q->count && !duplicate; j++)
            duplicate = v3_len2(v3_sub(q->found[j].point, c[i].point)) < 1e-12 &&
                        v3_dot(q->found[j].normal, c[i].normal) > 0.999;
        if (duplicate) continue;
        if (q->count < 64) {
            q->found[q->count++] = c[i];
        } else { /* full: replace the shallowest if this one is deeper */
            int32_t shallowest = 0;
            for (int32_t j = 1; j < q->count; j++)
                if (q->found[j].separation > q->found[shallowest].separation) shallowest = j;
            if (c[i].separation < q->found[shallowest].separation) q->found[shallowest] = c[i];
        }
    }
}

static void visit_mesh_triangle(void *ctx, int32_t tri)
{
    mesh_query *q = ctx;
    const rigid_body *m = q->mesh;
    const int32_t *corners = &m->model.mesh_triangles[3 * tri];
    vec3 p[3];
    for (int k = 0; k < 3; k++)
        p[k] = v3_add(m->state.x, m3_mul_v(m->state.R, v3_load(&m->model.mesh_vertices[3 * (size_t)corners[k]])));
    rigid_contact c[4];
    int32_t n = 0;
    if (q->poly || q->segment) {
        triangle_poly t;
        if (!make_triangle(&t, p[0], p[1], p[2], q->center)) return;
        n = q->solid  ? round_solid_poly(q->solid, &t.poly, q->margin, c)
            : q->poly ? collide_polys(q->poly, &t.poly, q->margin, c)
                    : capsule_poly(q->segment[0], q->segment[1], q->radius, &t.poly, q->margin, c);
    } else {
        double bary[3];
        vec3 nearest = closest_point_triangle(q->center, p[0], p[1], p[2], bary);
        vec3 d = v3_sub(q->center, nearest);
        double dist = v3_len(d);
        if (dist > q->radius + q->margin) return;
        vec3 face = v3_cross(v3_sub(p[1], p[0]), v3_sub(p[2], p[0]));
        if (v3_dot(face, d) < 0.0) face = v3_scale(face, -1.0);
        double fl = v3_len(face);
        c[0].normal = dist > 1e-12 ? v3_scale(d, 1.0 / dist) : (fl > 0.0 ? v3_scale(face, 1.0 / fl) : v3(0, 0, 1));
        c[0].point = nearest;
        c[0].separation = dist - q->radius;
        n = 1;
    }
    add_found(q, c, n);
}

/* A convex shape (a polytope, or with poly NULL the sphere (center, radius)) whose world bounds
 * grown by the margin are `world` against the triangles of a mesh. */
static int32_t convex_mesh(const world_poly *poly, const round_solid *solid, const vec3 *segment, vec3 center,
                           double radius, aabb world, const rigid_body *mesh, double margin, rigid_contact *out)
{
    mesh_query q = {.mesh = mesh, .poly = poly, .solid = solid, .segment = segment, .center = center, .radius = radius,
                    .margin = margin, .count = 0};
    /* the convex shape's bounds in the mesh's frame */
    aabb local = aabb_empty();
    for (int i = 0; i < 8; i++) {
        vec3 corner = v3(i & 1 ? world.hi.x : world.lo.x, i & 2 ? world.hi.y : world.lo.y, i & 4 ? world.hi.z : world.lo.z);
        local = aabb_add_point(local, m3_tmul_v(mesh->state.R, v3_sub(corner, mesh->state.x)));
    }
    bvh_query(&mesh->model.mesh_tree, &local, visit_mesh_triangle, &q);
    if (q.count <= MESH_CONTACTS_MAX) {
        memcpy(out, q.found, (size_t)q.count * sizeof *out);
        return q.count;
    }
    /* keep the deepest */
    for (int32_t i = 0; i < MESH_CONTACTS_MAX; i++)
        for (int32_t j = i + 1; j < q.count; j++)
            if (q.found[j].separation < q.found[i].separation) {
                rigid_contact t = q.found[i];
                q.found[i] = q.found[j], q.found[j] = t;
            }
    memcpy(out, q.found, MESH_CONTACTS_MAX * sizeof *out);
    return MESH_CONTACTS_MAX;
}

/* --- dispatch ------------------------------------------------------------------------------- */

/* A convex shape placed in world space: a body's own, or a part of a compound. */
typedef struct placed_part {
    bool sphere;     /* round: a sphere, or with `capsule` a capsule */
    bool capsule;
    vec3 center;     /* the sphere's or capsule's centre, or a point inside the polytope */
    double radius;   /* the sphere's or capsule's */
    vec3 segment[2]; /* the capsule's core (a sphere's: its centre twice) */
    world_poly poly; /* the polytope (a cylinder's or cone's proxy) */
    bool round;      /* a cylinder or cone: */
    round_solid solid;
    aabb box;        /* world bounds */
} placed_part;

/* The contact of the point at s on a's segment and the point at t on b's, as two spheres;
 * `fallback`: the normal if the points coincide. */
static rigid_contact spheres_at(const placed_part *a, double s, const placed_part *b, double t, vec3 fallback)
{
    vec3 pa = v3_madd(a->segment[0], v3_sub(a->segment[1], a->segment[0]), s);
    vec3 pb = v3_madd(b->segment[0], v3_sub(b->segment[1], b->segment[0]), t);
    vec3 d = v3_sub(pa, pb);
    double dist = v3_len(d);
    vec3 n = dist > 0.0 ? v3_scale(d, 1.0 / dist) : fallback;
    return (rigid_contact){v3_madd(pb, n, b->radius), n, dist - a->radius - b->radius};
}

/* The parameter on segment b of its point nearest x. */
static double nearest_on(const placed_part *b, vec3 x)
{
    vec3 db = v3_sub(b->segment[1], b->segment[0]);
    double len2 = v3_len2(db);
    return len2 > 0.0 ? fmin(1.0, fmax(0.0, v3_dot(v3_sub(x, b->segment[0]), db) / len2)) : 0.0;
}

/* A sphere or capsule and a capsule: the closest points of their segments, as two spheres.
 * Two capsules lying along each other (both ends of the part of a's segment beside b's, the
 * projection of b's segment onto a's line clipped to a's, within the margin) touch along a
 * line: a contact at each end of that part, so that one rests on the other without rocking
 * about the single closest point (two segments at rest side by side have no unique one). */
static int32_t round_capsule(const placed_part *a, const placed_part *b, double margin, rigid_contact *c)
{
    double s, t;
    closest_points_segments(a->segment[0], a->segment[1], b->segment[0], b->segment[1], &s, &t);
    rigid_contact closest = spheres_at(a, s, b, t, v3(0, 0, 1));
    if (closest.separation > margin) return 0;
    vec3 da = v3_sub(a->segment[1], a->segment[0]);
    double len2 = v3_len2(da);
    if (a->capsule && b->capsule && len2 > 0.0) {
        double u0 = v3_dot(v3_sub(b->segment[0], a->segment[0]), da) / len2;
        double u1 = v3_dot(v3_sub(b->segment[1], a->segment[0]), da) / len2;
        double lo = fmax(0.0, fmin(u0, u1)), hi = fmin(1.0, fmax(u0, u1));
        if (hi - lo > 1e-6) {
            int32_t count = 0;
            for (int k = 0; k < 2; k++) {
                double u = k == 0 ? lo : hi;
                vec3 x = v3_madd(a->segment[0], da, u);
                rigid_contact end = spheres_at(a, u, b, nearest_on(b, x), closest.normal);
                if (end.separation <= margin) c[count++] = end;
            }
            if (count == 2) {
                /* the deepest point lies between the ends when the segments cross there */
                if (s > lo && s < hi && closest.separation < fmin(c[0].separation, c[1].separation) - 1e-12)
                    c[count++] = closest;
                return count;
            }
        }
    }
    c[0] = closest;
    return 1;
}

/* Contacts turned round: computed with A and B swapped (normal from A to B, points on A),
 * now from B to A with the points on B. */
static int32_t turned_round(rigid_contact *c, int32_t n)
{
    for (int32_t i = 0; i < n; i++) {
        c[i].point = v3_madd(c[i].point, c[i].normal, c[i].separation);
        c[i].normal = v3_scale(c[i].normal, -1.0);
    }
    return n;
}

/* A cylinder or cone and any convex shape (rigid_round_solid.h); contacts as collide_parts'. */
static int32_t collide_round(const placed_part *a, const placed_part *b, double margin, rigid_contact *c)
{
    bool ball_a = a->sphere && !a->capsule, ball_b = b->sphere && !b->capsule;
    if (ball_a || ball_b) { /* the sphere's centre against the solid's true surface */
        const placed_part *ball = ball_a ? a : b, *solid = ball_a ? b : a;
        vec3 nearest, outward;
        double sep = round_solid_distance(&solid->solid, ball->center, &nearest, &outward) - ball->radius;
        if (sep > margin) return 0;
        if (ball_b) c[0] = (rigid_contact){v3_madd(ball->center, outward, -ball->radius), v3_scale(outward, -1.0), sep};
        else c[0] = (rigid_contact){nearest, outward, sep};
        return 1;
    }
    if (a->capsule) return capsule_poly(a->segment[0], a->segment[1], a->radius, &b->poly, margin, c);
    if (b->capsule) return turned_round(c, capsule_poly(b->segment[0], b->segment[1], b->radius, &a->poly, margin, c));
    if (a->round) return round_solid_poly(&a->solid, &b->poly, margin, c);
    return turned_round(c, round_solid_poly(&b->solid, &a->poly, margin, c));
}

/* Two convex shapes; contacts (normal from B to A, points on B) into out[]. */
static int32_t collide_parts(const placed_part *a, const placed_part *b, double margin, rigid_contact *c)
{
    if (a->round || b->round) return collide_round(a, b, margin, c);
    if (!a->sphere && !b->sphere) return collide_polys(&a->poly, &b->poly, margin, c);
    if (a->capsule || b->capsule) {
        if (a->sphere && b->sphere) return round_capsule(a, b, margin, c);
        if (a->capsule) return capsule_poly(a->segment[0], a->segment[1], a->radius, &b->poly, margin, c);
        /* polytope a, capsule b: from the capsule's side, turned round onto its surface */
        return turned_round(c, capsule_poly(b->segment[0], b->segment[1], b->radius, &a->poly, margin, c));
    }
    if (a->sphere && b->sphere) {
        vec3 d = v3_sub(a->center, b->center);
        double dist = v3_len(d), sep = dist - a->radius - b->radius;
        if (sep > margin) return 0;
        c->normal = dist > 0.0 ? v3_scale(d, 1.0 / dist) : v3(0, 0, 1);
        c->point = v3_madd(b->center, c->normal, b->radius);
        c->separation = sep;
        return 1;
    }
    if (a->sphere) return sphere_poly(a->center, a->radius, &b->poly, margin, c);
    /* polytope a, sphere b: from the sphere's side, normal turned round */
    int32_t n = sphere_poly(b->center, b->radius, &a->poly, margin, c);
    for (int32_t i = 0; i < n; i++) {
        c[i].normal = v3_scale(c[i].normal, -1.0);                  /* from the sphere (b) to a */
        c[i].point = v3_madd(b->center, c[i].normal, b->radius);    /* on the sphere's surface */
    }
    return n;
}

/* A body that is one shape, its polytope (if it has one) placed in `poly`. */
static placed_part whole_part(const rigid_body *body, const world_poly *poly)
{
    const rigid_body_model *m = &body->model;
    bool capsule = m->shape == SHAPE_CAPSULE;
    placed_part p = {.sphere = m->shape == SHAPE_SPHERE || capsule, .capsule = capsule, .center = body->state.x,
                     .radius = capsule ? m->segment_radius : m->radius, .segment = {body->state.x, body->state.x}};
    for (int k = 0; capsule && k < 2; k++) p.segment[k] = v3_add(body->state.x, m3_mul_v(body->state.R, m->segment[k]));
    if (!p.sphere) p.poly = *poly;
    if (m->shape == SHAPE_CYLINDER || m->shape == SHAPE_CONE) {
        p.round = true;
        p.solid = round_solid_placed(m->shape == SHAPE_CONE, body->state.x, body->state.R, m->segment[0], m->segment[1],
                                     m->segment_radius, *poly);
        p.center = p.solid.proxy.center;
    }
    p.box = rigid_body_bounds(body, 0.0);
    return p;
}

/* Part i of a compound body whose polytopes are placed in `slot`. */
static placed_part compound_part(const rigid_body *body, const placed_polytope *slot, int32_t i)
{
    const rigid_part *part = &body->model.parts[i];
    bool capsule = part->shape == SHAPE_CAPSULE;
    vec3 center = v3_add(body->state.x, m3_mul_v(body->state.R, part->center));
    placed_part p = {.sphere = part->shape == SHAPE_SPHERE || capsule, .capsule = capsule, .center = center,
                     .radius = part->radius, .segment = {center, center}};
    for (int k = 0; capsule && k < 2; k++) p.segment[k] = v3_add(body->state.x, m3_mul_v(body->state.R, part->segment[k]));
    if (!p.sphere) {
        const polytope *h = &part->hull;
        const vec3 *n = slot->n + part->first_normal;
        p.poly = (world_poly){h->vertex_count, h->face_count, h->edge_count, slot->v + part->first_vertex, n,
                              slot->o + part->first_offset, h->face_first, h->face_loops, h->edges,
                              n + h->face_count, h->edge_faces, p.center, h->is_box ? &h->box : NULL};
    }
    if (part->shape == SHAPE_CYLINDER || part->shape == SHAPE_CONE) {
        p.round = true;
        p.solid = round_solid_placed(part->shape == SHAPE_CONE, body->state.x, body->state.R, part->segment[0],
                                     part->segment[1], part->radius, p.poly);
    }
    p.box = compound_part_bounds(part, body->state.x, body->state.R);
    return p;
}

/* Room for `count` more contacts in the scratch's list. */
static bool room_for(narrow_scratch *s, int32_t used, int32_t count)
{
    if (used + count <= s->found_capacity) return true;
    int32_t capacity = 2 * (used + count);
    rigid_contact *more = realloc(s->found, (size_t)capacity * sizeof *more);
    if (!more) return false;
    s->found = more, s->found_capacity = capacity;
    return true;
}

/* Keeps MANIFOLD_MAX of `count` contacts spread over all of them: the deepest, then again and
 * again the one farthest from those kept (every part that touches keeps some). */
static int32_t reduce_spread(const rigid_contact *c, int32_t count, rigid_contact *out)
{
    if (count <= MANIFOLD_MAX) {
        if (count > 0) memcpy(out, c, (size_t)count * sizeof *out);
        return count;
    }
    int32_t first = 0;
    for (int32_t i = 1; i < count; i++)
        if (c[i].separation < c[first].separation) first = i;
    out[0] = c[first];
    for (int32_t kept = 1; kept < MANIFOLD_MAX; kept++) {
        int32_t best = -1;
        double farthest = -1.0;
        for (int32_t i = 0; i < count; i++) {
            double nearest = INFINITY;
            for (int32_t k = 0; k < kept; k++) nearest = fmin(nearest, v3_len2(v3_sub(c[i].point, out[k].point)));
            if (nearest > farthest) farthest = nearest, best = i;
        }
        if (best < 0) return kept; /* points that are not numbers: the step fails on them anyway */
        out[kept] = c[best];
    }
    return MANIFOLD_MAX;
}

/* A compound or capsule a or b (a mesh only as b), as parts (a body of one shape is one): each
 * pair of parts whose bounds come within the margin, the contacts of all of them spread over
 * MANIFOLD_MAX. */
static bool collide_compound(const rigid_body *a, const rigid_body *b, double margin, narrow_scratch *s,
                             rigid_manifold *out)
{
    bool mesh_b = b->model.shape == SHAPE_MESH;
    int32_t na = a->model.shape == SHAPE_COMPOUND ? a->model.part_count : 1;
    int32_t nb = mesh_b ? 0 : (b->model.shape == SHAPE_COMPOUND ? b->model.part_count : 1);
    if (na + nb > s->part_capacity) {
        struct placed_part *more = realloc(s->parts, (size_t)(na + nb) * sizeof *more);
        if (!more) return false;
        s->parts = more, s->part_capacity = na + nb;
    }
    world_poly pa, pb;
    bool poly_a = a->model.shape != SHAPE_SPHERE && a->model.shape != SHAPE_CAPSULE; /* a mesh never */
    bool poly_b = b->model.shape != SHAPE_SPHERE && b->model.shape != SHAPE_CAPSULE && !mesh_b;
    if (!place_pair(a, b, poly_a, poly_b, s, &pa, &pb)) return false;
    /* the slots place_pair left a compound's polytopes in */
    const placed_polytope *slot_a = &s->slot[s->slot[0].body == a ? 0 : 1], *slot_b = &s->slot[s->slot[0].body == b ? 0 : 1];
    placed_part *parts = s->parts;
    for (int32_t i = 0; i < na; i++)
        parts[i] = a->model.shape == SHAPE_COMPOUND ? compound_part(a, slot_a, i) : whole_part(a, &pa);
    for (int32_t j = 0; j < nb; j++)
        parts[na + j] = b->model.shape == SHAPE_COMPOUND ? compound_part(b, slot_b, j) : whole_part(b, &pb);
    int32_t count = 0;
    for (int32_t i = 0; i < na; i++) {
        aabb reach = aabb_inflate(parts[i].box, margin);
        if (mesh_b) {
            if (!room_for(s, count, MESH_CONTACTS_MAX)) return false;
            count += convex_mesh(parts[i].sphere ? NULL : &parts[i].poly, parts[i].round ? &parts[i].solid : NULL,
                                 parts[i].capsule ? parts[i].segment : NULL, parts[i].center, parts[i].radius, reach, b, margin, s->found + count);
            continue;
        }
        for (int32_t j = 0; j < nb; j++) {
            if (!aabb_overlap(&reach, &parts[na + j].box)) continue;
            if (!room_for(s, count, 4)) return false;
            count += collide_parts(&parts[i], &parts[na + j], margin, s->found + count);
        }
    }
    out->count = reduce_spread(s->found, count, out->points);
    return true;
}

bool collide_bodies(const rigid_body *a, const rigid_body *b, double margin, narrow_scratch *s, rigid_manifold *out)
{
    out->count = 0;
    out->swapped = false;
    if (a->model.shape == SHAPE_MESH && b->model.shape == SHAPE_MESH) return true;
    if (a->model.shape == SHAPE_MESH) { /* keep the mesh second */
        if (!collide_bodies(b, a, margin, s, out)) return false;
        out->swapped = true;
        return true;
    }
    if (a->model.shape >= SHAPE_COMPOUND || b->model.shape >= SHAPE_COMPOUND) /* compounds, capsules, round solids */
        return collide_compound(a, b, margin, s, out);
    world_poly pa, pb;
    bool poly_a = a->model.shape == SHAPE_POLYTOPE, poly_b = b->model.shape == SHAPE_POLYTOPE;
    if (!place_pair(a, b, poly_a, poly_b, s, &pa, &pb)) return false;
    rigid_contact *c = out->points;
    if (b->model.shape == SHAPE_MESH) {
        out->count = convex_mesh(poly_a ? &pa : NULL, NULL, NULL, a->state.x, a->model.radius, rigid_body_bounds(a, margin),
                                 b, margin, c);
        return true;
    }
    placed_part part_a = {.sphere = !poly_a, .center = a->state.x, .radius = a->model.radius};
    placed_part part_b = {.sphere = !poly_b, .center = b->state.x, .radius = b->model.radius};
    if (poly_a) part_a.poly = pa;
    if (poly_b) part_b.poly = pb;
    out->count = collide_parts(&part_a, &part_b, margin, c);
    return true;
}
