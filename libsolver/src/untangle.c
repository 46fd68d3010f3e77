#include "untangle.h"

#include <stdlib.h>
#include <string.h>

#include "collision_bvh.h"
#include "collision_geometry.h"
#include "grow.h"
#include "union_find.h"
#include "untangle_analysis.h"

typedef struct pair_context {
    analysis *an;
    int32_t a, b;         /* views */
    bool record;          /* keep the crossings */
    int64_t count;
} pair_context;

static void untangle_clear(untangle_plan *p)
{
    free(p->region), free(p->group), free(p->mover_of), free(p->pulled), free(p->push), free(p->target);
    p->region = p->group = p->mover_of = NULL, p->pulled = NULL, p->push = NULL, p->target = NULL;
    p->capacity = 0;
}

void untangle_free(untangle_plan *p) { untangle_clear(p); }

static bool view_tree(mesh_view *v)
{
    v->boxes = malloc(((size_t)v->triangle_count + 1) * sizeof *v->boxes);
    if (!v->boxes) return false;
    for (int32_t t = 0; t < v->triangle_count; t++) {
        aabb box = aabb_empty();
        for (int k = 0; k < 3; k++) box = aabb_add_point(box, v3_load(&v->x[3 * (size_t)v->triangles[3 * t + k]]));
        v->boxes[t] = aabb_inflate(box, 1e-12 * (1.0 + v3_len(box.hi) + v3_len(box.lo)));
    }
    return bvh_build(&v->tree, v->boxes, v->triangle_count);
}

static void view_free(mesh_view *v)
{
    bvh_free(&v->tree);
    free(v->boxes);
}

static bool is_closed(const topology *t)
{
    if (t->edge_count == 0) return false;
    for (int32_t e = 0; e < t->edge_count; e++)
        if (t->edge_face_count[e] != 2) return false;
    return true;
}

static mesh_view cloth_view(const cloth *c, int32_t first)
{
    const cloth_model *m = &c->model;
    return (mesh_view){c->state.x, m->triangles, m->strands ? 0 : m->triangle_count, m->vertex_count, first,
                       &m->topo, m->thickness, true, false, {0}, NULL};
}

static mesh_view collider_view(const collider *k, int32_t first)
{
    const collider_model *m = &k->model;
    return (mesh_view){k->scratch.x0, m->triangles, m->triangle_count, m->vertex_count, first,
                       &m->topo, m->thickness, false, is_closed(&m->topo), {0}, NULL};
}

/* Signed distance side of p from the plane of t: -1, 0, +1, exactly. */
static int side_of(const vec3 t[3], vec3 p) { return orient3d(t[0], t[1], t[2], p); }

/* The edges of triangle ta (of view a) that pass properly through triangle tb (of view b). */
static void record_crossings(pair_context *pc, const mesh_view *a, const int32_t *ia, const vec3 pa[3],
                             const mesh_view *b, const int32_t *ib, const vec3 pb[3], int32_t a_index, int32_t b_index)
{
    if (!a->is_cloth && !a->closed) return;
    analysis *an = pc->an;
    for (int k = 0; k < 3; k++) {
        int32_t p = ia[k], q = ia[(k + 1) % 3];
        if (a == b && (triangle_has_vertex(ib, p) || triangle_has_vertex(ib, q))) continue;
        if (side_of(pb, pa[k]) * side_of(pb, pa[(k + 1) % 3]) >= 0) continue;
        if (!segment_meets_triangle(pa[k], pa[(k + 1) % 3], pb[0], pb[1], pb[2])) continue;
        if (!grow((void **)&an->crossings, &an->crossing_capacity, an->crossing_count + 1, sizeof *an->crossings)) {
            an->out_of_memory = true;
            return;
        }
        an->crossings[an->crossing_count++] =
            (crossing){a->first + p, a->first + q, {b->first + ib[0], b->first + ib[1], b->first + ib[2]},
                       a->is_cloth ? b_index : a_index, !a->is_cloth};
    }
}

static void visit_pair(void *ctx, int32_t ta, int32_t tb)
{
    pair_context *pc = ctx;
    const mesh_view *a = &pc->an->views[pc->a], *b = &pc->an->views[pc->b];
    const int32_t *ia = &a->triangles[3 * (size_t)ta], *ib = &b->triangles[3 * (size_t)tb];
    vec3 pa[3], pb[3];
    unsigned shared_a = 0, shared_b = 0;
    for (int k = 0; k < 3; k++) {
        pa[k] = v3_load(&a->x[3 * (size_t)ia[k]]);
        pb[k] = v3_load(&b->x[3 * (size_t)ib[k]]);
        if (a == b)
            for (int j = 0; j < 3; j++)
                if (ia[k] == ib[j]) shared_a |= 1u << k, shared_b |= 1u << j;
    }
    if (!triangles_intersect(pa, pb, shared_a, shared_b)) return;
    pc->count++;
    if (!pc->record) return;
    record_crossings(pc, a, ia, pa, b, ib, pb, pc->a, pc->b);
    record_crossings(pc, b, ib, pb, a, ia, pa, pc->b, pc->a);
}

/* Intersecting pairs between views a and b (a == b: its own), their crossings recorded when
 * asked; -1 when out of memory. */
static int64_t pairs_between(analysis *an, int32_t a, int32_t b, bool record)
{
    pair_context pc = {an, a, b, record, 0};
    bool ok = a == b ? bvh_self_pairs(&an->views[a].tree, visit_pair, &pc)
                     : bvh_tree_pairs(&an->views[a].tree, &an->views[b].tree, visit_pair, &pc);
    return ok && !an->out_of_memory ? pc.count : -1;
}

int64_t intersecting_pairs(const cloth *a, const cloth *b, const collider *k)
{
    mesh_view views[2] = {cloth_view(a, 0), b ? cloth_view(b, 0) : collider_view(k, 0)};
    if (!b) views[1].x = k->scratch.x1; /* where the last step left it (where it was made, before any) */
    analysis an = {views, 2, NULL, NULL, 0, 0, false};
    int64_t count = -1;
    bool self = b == a;
    if (view_tree(&views[0]) && (self || view_tree(&views[1]))) count = pairs_between(&an, 0, self ? 0 : 1, false);
    view_free(&views[0]);
    if (!self) view_free(&views[1]);
    return count;
}

int64_t vertices_inside_collider(const cloth *c, const collider *k)
{
    mesh_view view = collider_view(k, 0);
    view.x = k->scratch.x1; /* as intersecting_pairs has it */
    if (!view.closed) return 0;
    int64_t inside = -1;
    if (view_tree(&view)) {
        inside = 0;
        for (int32_t i = 0; i < c->model.vertex_count; i++) {
            vec3 nearest;
            inside += inside_closed(&view, v3_load(&c->state.x[3 * (size_t)i]), &nearest);
        }
    }
    view_free(&view);
    return inside;
}

/* --- the plan ---------------------------------------------------------------------------- */

bool untangle_reserve(untangle_plan *p, int32_t n)
{
    if (n <= p->capacity && p->region) return true;
    untangle_clear(p);
    p->analysed = false, p->vertex_count = 0, p->active = false;
    size_t m = (size_t)n + 1;
    p->region = malloc(m * sizeof *p->region);
    p->group = malloc(m * sizeof *p->group);
    /* zeroed: a collider's vertices are never pulled, and their flags are read beside the cloth's */
    p->mover_of = malloc(m * sizeof *p->mover_of);
    p->pulled = calloc(m, sizeof *p->pulled);
    p->push = calloc(m, sizeof *p->push);
    p->target = calloc(m, sizeof *p->target);
    if (!p->region || !p->group || !p->mover_of || !p->pulled || !p->push || !p->target) {
        untangle_clear(p);
        return false;
    }
    p->capacity = n;
    return true;
}

/* Scratch of one analysis, per global vertex (most used at region ids only). */
typedef struct region_scratch {
    int32_t *tangle;   /* union-find of regions into tangles */
    int32_t *size;     /* cloth vertices per region */
    int32_t *mover;    /* per tangle: its pulled region, -1: none */
    uint8_t *in_tangle;
    vec3 *direction, *centre;
    int32_t *crossed;  /* crossings counted into centre */
    double *margin, *depth;
} region_scratch;

static void region_scratch_free(region_scratch *r)
{
    free(r->tangle), free(r->size), free(r->mover), free(r->in_tangle), free(r->direction), free(r->centre);
    free(r->crossed), free(r->margin), free(r->depth);
}

static bool region_scratch_init(region_scratch *r, int32_t n)
{
    size_t m = (size_t)n + 1;
    *r = (region_scratch){malloc(m * sizeof(int32_t)), calloc(m, sizeof(int32_t)), malloc(m * sizeof(int32_t)),
                          calloc(m, 1), calloc(m, sizeof(vec3)), calloc(m, sizeof(vec3)), calloc(m, sizeof(int32_t)),
                          calloc(m, sizeof(double)), calloc(m, sizeof(double))};
    if (!r->tangle || !r->size || !r->mover || !r->in_tangle || !r->direction || !r->centre || !r->crossed ||
        !r->margin || !r->depth)
        return false;
    union_find_reset(r->tangle, n);
    for (int32_t i = 0; i < n; i++) r->mover[i] = -1;
    return true;
}

/* Roots of a union-find whose parents are never above their children (union_find.h: the
 * smaller root leads, path halving keeps it): one ascending pass. */
static void flatten(int32_t *parent, int32_t n)
{
    for (int32_t i = 0; i < n; i++) parent[i] = parent[parent[i]];
}

static int compare_keys(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return (a > b) - (a < b);
}

static uint64_t edge_key(int32_t a, int32_t b)
{
    return a < b ? (uint64_t)a << 32 | (uint32_t)b : (uint64_t)b << 32 | (uint32_t)a;
}

/* Regions: vertices joined by the edges no crossing cuts; a collider is one region. */
static bool find_regions(untangle_plan *p, const analysis *an)
{
    uint64_t *cut = malloc(((size_t)an->crossing_count + 1) * sizeof *cut);
    if (!cut) return false;
    for (int32_t i = 0; i < an->crossing_count; i++) cut[i] = edge_key(an->crossings[i].p, an->crossings[i].q);
    /* (a collider's cut edges change nothing: it is one region) */
    qsort(cut, (size_t)an->crossing_count, sizeof *cut, compare_keys);
    union_find_reset(p->region, p->vertex_count);
    for (int32_t o = 0; o < an->view_count; o++) {
        const mesh_view *v = &an->views[o];
        if (!v->is_cloth) {
            for (int32_t i = 1; i < v->vertex_count; i++) union_find_unite(p->region, v->first, v->first + i);
            continue;
        }
        for (int32_t e = 0; e < v->topo->edge_count && v->triangle_count > 0; e++) {
            int32_t a = v->first + v->topo->edges[2 * e], b = v->first + v->topo->edges[2 * e + 1];
            uint64_t key = edge_key(a, b);
            if (!bsearch(&key, cut, (size_t)an->crossing_count, sizeof *cut, compare_keys))
                union_find_unite(p->region, a, b);
        }
    }
    flatten(p->region, p->vertex_count);
    free(cut);
    return true;
}

static bool generic(const analysis *an, const crossing *c) { return !c->collider_edge && !an->views[c->object].closed; }

/* Tangles, and in each the smallest cloth region at either end of a cut edge: it is pulled. */
static void choose_movers(const untangle_plan *p, const analysis *an, region_scratch *r)
{
    for (int32_t o = 0; o < an->view_count; o++)
        if (an->views[o].is_cloth)
            for (int32_t i = 0; i < an->views[o].vertex_count; i++) r->size[p->region[an->views[o].first + i]]++;
    for (int32_t i = 0; i < an->crossing_count; i++) {
        const crossing *c = &an->crossings[i];
        if (!generic(an, c)) continue;
        int32_t ends[5] = {c->p, c->q, c->t[0], c->t[1], c->t[2]};
        for (int k = 0; k < 5; k++) {
            r->in_tangle[p->region[ends[k]]] = 1;
            union_find_unite(r->tangle, p->region[c->p], p->region[ends[k]]);
        }
    }
    flatten(r->tangle, p->vertex_count);
    for (int32_t i = 0; i < an->crossing_count; i++) {
        const crossing *c = &an->crossings[i];
        int32_t rp = p->region[c->p], rq = p->region[c->q];
        if (!generic(an, c) || rp == rq) continue;
        int32_t *best = &r->mover[r->tangle[rp]];
        for (int k = 0; k < 2; k++) {
            int32_t candidate = k ? rq : rp;
            if (*best < 0 || r->size[candidate] < r->size[*best] ||
                (r->size[candidate] == r->size[*best] && candidate < *best))
                *best = candidate;
        }
    }
}

static vec3 position(const analysis *an, int32_t g) { return an->x[g]; }

/* Each pulled region's direction: through the triangles its cut edges cross, from the side
 * its own end is on; and the mean of those crossing points, which it must pass. */
static void pull_directions(const untangle_plan *p, const analysis *an, region_scratch *r)
{
    for (int32_t i = 0; i < an->crossing_count; i++) {
        const crossing *c = &an->crossings[i];
        int32_t rp = p->region[c->p], rq = p->region[c->q];
        if (!generic(an, c) || rp == rq) continue;
        int32_t mover = r->mover[r->tangle[rp]];
        if (mover != rp && mover != rq) continue;
        vec3 t[3] = {position(an, c->t[0]), position(an, c->t[1]), position(an, c->t[2])};
        vec3 n = v3_cross(v3_sub(t[1], t[0]), v3_sub(t[2], t[0]));
        double len = v3_len(n);
        if (!(len > 0.0)) continue;
        n = v3_scale(n, 1.0 / len);
        vec3 xp = position(an, c->p), xq = position(an, c->q);
        double dp = v3_dot(v3_sub(xp, t[0]), n), dq = v3_dot(v3_sub(xq, t[0]), n);
        double own = mover == rp ? dp : dq;
        r->direction[mover] = v3_madd(r->direction[mover], n, own > 0.0 ? -1.0 : 1.0);
        r->centre[mover] = v3_add(r->centre[mover], v3_madd(xp, v3_sub(xq, xp), dp / (dp - dq)));
        r->crossed[mover]++;
        const mesh_view *edge_view = NULL;
        for (int32_t o = 0; o < an->view_count && !edge_view; o++)
            if (c->p >= an->views[o].first && c->p < an->views[o].first + an->views[o].vertex_count)
                edge_view = &an->views[o];
        double margin = an->views[c->object].thickness + (edge_view ? edge_view->thickness : 0.0);
        r->margin[mover] = fmax(r->margin[mover], margin);
    }
}

/* Keys (edge_key, global ids) of the cloths' border edges (of one triangle), sorted; NULL
 * when out of memory. */
static uint64_t *border_edges(const analysis *an, int32_t cloth_count, int32_t *count)
{
    int32_t n = 0;
    for (int32_t a = 0; a < cloth_count; a++)
        for (int32_t e = 0; e < an->views[a].topo->edge_count && an->views[a].triangle_count > 0; e++)
            n += an->views[a].topo->edge_face_count[e] == 1;
    uint64_t *keys = malloc(((size_t)n + 1) * sizeof *keys);
    if (!keys) return NULL;
    n = 0;
    for (int32_t a = 0; a < cloth_count; a++) {
        const mesh_view *v = &an->views[a];
        for (int32_t e = 0; e < v->topo->edge_count && v->triangle_count > 0; e++)
            if (v->topo->edge_face_count[e] == 1)
                keys[n++] = edge_key(v->first + v->topo->edges[2 * e], v->first + v->topo->edges[2 * e + 1]);
    }
    qsort(keys, (size_t)n, sizeof *keys, compare_keys);
    *count = n;
    return keys;
}

/* A tangle whose curves cut no region off (r->mover: none): each curve ends inside a sheet
 * where a border edge of the other pierces it. The curve is shortened from its ends: the
 * piercing border edge's shorter part past the triangle (its tip) is pulled back along the
 * triangle's normal to its plane plus both thicknesses; the next border edge then pierces,
 * and so on until the curve is gone. A vertex at several such crossings takes the deepest.
 * Not while a region of the tangle is still coming through (its pull goes on after its curve
 * stops cutting it off, untangle.h): the tips would pull against it. */
static bool pull_border_tips(untangle_plan *p, const analysis *an, cloth *const *cloths, int32_t cloth_count,
                             const region_scratch *r)
{
    int32_t border_count = 0;
    uint64_t *border = border_edges(an, cloth_count, &border_count);
    uint8_t *busy = calloc((size_t)p->vertex_count + 1, 1); /* per tangle: a region's pull goes on */
    if (!border || !busy) {
        free(border), free(busy);
        return false;
    }
    for (int32_t a = 0; a < cloth_count; a++)
        for (int32_t i = 0; i < an->views[a].vertex_count; i++) {
            int32_t g = an->views[a].first + i;
            /* a pull goes on while its vertex moves its way (one held back does not count) */
            if (p->pulled[g] && r->in_tangle[p->region[g]] &&
                v3_dot(v3_load(&cloths[a]->state.v[3 * (size_t)i]), p->push[g]) > 0.0)
                busy[r->tangle[p->region[g]]] = 1;
        }
    /* the pulls held back in a tangle to unzip end: the tips take over (cloth vertices come first) */
    int32_t cloth_vertices = cloth_count > 0 ? an->views[cloth_count - 1].first + an->views[cloth_count - 1].vertex_count : 0;
    for (int32_t g = 0; g < cloth_vertices; g++) {
        int32_t region = p->region[g];
        if (p->pulled[g] && r->in_tangle[region] && r->mover[r->tangle[region]] < 0 && !busy[r->tangle[region]])
            p->pulled[g] = 0, p->mover_of[g] = -1;
    }
    for (int32_t i = 0; i < an->crossing_count; i++) {
        const crossing *c = &an->crossings[i];
        int32_t rp = p->region[c->p];
        uint64_t key = edge_key(c->p, c->q);
        if (!generic(an, c) || !r->in_tangle[rp] || r->mover[r->tangle[rp]] >= 0 || busy[r->tangle[rp]] ||
            !bsearch(&key, border, (size_t)border_count, sizeof *border, compare_keys))
            continue;
        vec3 t0 = an->x[c->t[0]];
        vec3 n = v3_cross(v3_sub(an->x[c->t[1]], t0), v3_sub(an->x[c->t[2]], t0));
        double len = v3_len(n);
        if (!(len > 0.0)) continue;
        n = v3_scale(n, 1.0 / len);
        double dp = v3_dot(v3_sub(an->x[c->p], t0), n), dq = v3_dot(v3_sub(an->x[c->q], t0), n);
        int32_t tip = fabs(dp) < fabs(dq) ? c->p : c->q;
        double d = tip == c->p ? dp : dq;
        vec3 out = v3_scale(n, d < 0.0 ? 1.0 : -1.0);
        int32_t a = 0;
        while (a + 1 < cloth_count && tip >= an->views[a + 1].first) a++;
        if (cloths[a]->model.pinned[tip - an->views[a].first]) continue;
        double depth = fabs(d) + an->views[c->object].thickness + an->views[a].thickness;
        if (p->pulled[tip] && v3_len(p->push[tip]) * UNTANGLE_SECONDS >= depth) continue;
        p->push[tip] = v3_scale(out, depth / UNTANGLE_SECONDS);
        p->target[tip] = v3_dot(an->x[tip], out) + depth;
        p->mover_of[tip] = r->tangle[rp];
        p->pulled[tip] = 1;
        p->active = true;
    }
    free(border), free(busy);
    return true;
}

/* --- the whole analysis ---------------------------------------------------------------------- */

/* Pairs of every object pair that collides, crossings recorded; the cloth-collider counts
 * into meets. False when out of memory. */
static bool find_pairs(analysis *an, cloth *const *cloths, int32_t cloth_count, int32_t collider_count,
                       int64_t *meets, int64_t *total)
{
    *total = 0;
    for (int32_t a = 0; a < cloth_count; a++) {
        int64_t count = 0;
        if (cloths[a]->model.self_collision && (count = pairs_between(an, a, a, true)) < 0) return false;
        *total += count;
        for (int32_t b = a + 1; b < cloth_count; b++) {
            if ((count = pairs_between(an, a, b, true)) < 0) return false;
            *total += count;
        }
        for (int32_t k = 0; k < collider_count; k++) {
            if (!cloth_meets_collider(&cloths[a]->model, k)) {
                meets[(size_t)a * (size_t)collider_count + (size_t)k] = -1;
                continue;
            }
            if ((count = pairs_between(an, a, cloth_count + k, true)) < 0) return false;
            meets[(size_t)a * (size_t)collider_count + (size_t)k] = count;
            *total += count;
        }
    }
    return true;
}

/* Regions, tangles, movers, then the pull of each vertex of a pulled region; a vertex pulled
 * before (`keep`: the plan's pulls are of the same numbering) and not yet through keeps its
 * pull while its region is tangled. *hidden: the vertices inside a closed collider that no
 * pair shows (untangle_pull_out_of_colliders). */
static bool plan_pulls(untangle_plan *p, const analysis *an, cloth *const *cloths, int32_t cloth_count,
                       const int64_t *meets, bool keep, int64_t *hidden)
{
    *hidden = 0;
    region_scratch r;
    bool ok = region_scratch_init(&r, p->vertex_count) && find_regions(p, an);
    if (ok) {
        choose_movers(p, an, &r);
        pull_directions(p, an, &r);
        for (int32_t g = 0; g < p->vertex_count; g++) {
            int32_t region = p->region[g];
            p->group[g] = r.in_tangle[region] ? r.tangle[region] : -1;
            bool moves = r.in_tangle[region] && r.mover[r.tangle[region]] == region && v3_len(r.direction[region]) > 0.0;
            if (moves) r.direction[region] = v3_scale(r.direction[region], 1.0 / v3_len(r.direction[region]));
            /* the deepest vertex: the furthest behind the mean crossing point */
            if (moves)
                r.depth[region] = fmax(r.depth[region], v3_dot(v3_sub(v3_scale(r.centre[region], 1.0 / r.crossed[region]),
                                                                      an->x[g]), r.direction[region]));
        }
        for (int32_t a = 0; a < cloth_count; a++)
            for (int32_t i = 0; i < an->views[a].vertex_count; i++) {
                int32_t g = an->views[a].first + i, region = p->region[g];
                bool was = keep && p->pulled[g];
                p->pulled[g] = 0;
                if (cloths[a]->model.pinned[i] || !r.in_tangle[region]) continue;
                if (r.mover[r.tangle[region]] == region && r.crossed[region] > 0 && v3_len(r.direction[region]) > 0.0) {
                    double speed = (r.depth[region] + r.margin[region]) / UNTANGLE_SECONDS;
                    vec3 centre = v3_scale(r.centre[region], 1.0 / r.crossed[region]);
                    p->push[g] = v3_scale(r.direction[region], speed);
                    p->target[g] = v3_dot(centre, r.direction[region]) + r.margin[region];
                } else if (!was || !(v3_dot(an->x[g], p->push[g]) < p->target[g] * v3_len(p->push[g]))) {
                    continue; /* not pulled before, or through: done */
                }
                p->mover_of[g] = r.tangle[region];
                p->pulled[g] = 1;
                p->active = true;
            }
        bool out_of_colliders = false;
        *hidden = untangle_pull_out_of_colliders(p, an, cloths, cloth_count, meets, &out_of_colliders);
        /* out of the colliders first: their pulls move parts of the sheets through each other */
        if (!out_of_colliders) ok = pull_border_tips(p, an, cloths, cloth_count, &r);
    }
    region_scratch_free(&r);
    return ok;
}

bool untangle_analyse(untangle_plan *p, cloth *const *cloths, int32_t cloth_count, collider *const *colliders,
                      int32_t collider_count)
{
    int32_t objects = cloth_count + collider_count;
    int64_t n = 0; /* within int32: the world keeps it so (world.c) */
    for (int32_t i = 0; i < cloth_count; i++) {
        n += cloths[i]->model.vertex_count;
        cloths[i]->scratch.untangling = NULL, cloths[i]->scratch.tangle = NULL;
    }
    for (int32_t i = 0; i < collider_count; i++) n += colliders[i]->model.vertex_count;
    if (!p->analysed) p->pairs_at_start = -1;
    bool keep = p->analysed && p->vertex_count == n && p->region;
    analysis an = {calloc((size_t)objects + 1, sizeof *an.views), objects, malloc(((size_t)n + 1) * sizeof *an.x),
                   NULL, 0, 0, false};
    int64_t *meets = calloc((size_t)cloth_count * (size_t)collider_count + 1, sizeof *meets);
    bool ok = an.views && an.x && meets && n <= INT32_MAX && untangle_reserve(p, (int32_t)n);
    p->analysed = true, p->active = false, p->pairs = 0;
    int32_t first = 0;
    for (int32_t i = 0; i < objects && ok; i++) {
        an.views[i] = i < cloth_count ? cloth_view(cloths[i], first) : collider_view(colliders[i - cloth_count], first);
        for (int32_t v = 0; v < an.views[i].vertex_count; v++) an.x[first + v] = v3_load(&an.views[i].x[3 * (size_t)v]);
        first += an.views[i].vertex_count;
        ok = view_tree(&an.views[i]);
    }
    int64_t total = 0;
    ok = ok && find_pairs(&an, cloths, cloth_count, collider_count, meets, &total);
    if (ok) {
        p->vertex_count = (int32_t)n;
        for (int32_t g = 0; g < p->vertex_count; g++) p->mover_of[g] = -1;
        /* with no pair too: a cloth may lie wholly inside a closed collider */
        int64_t hidden = 0;
        ok = plan_pulls(p, &an, cloths, cloth_count, meets, keep, &hidden);
        total += hidden;
        p->pairs = total;
        if (p->pairs_at_start < 0) p->pairs_at_start = total;
        int32_t cloth_vertices = 0;
        for (int32_t i = 0; i < cloth_count; i++) cloth_vertices += cloths[i]->model.vertex_count;
        /* nothing pulled holds no pull, and colliders are never pulled: the saved state is the
         * plan's alone, whatever the buffers held before */
        for (int32_t g = 0; ok && g < p->vertex_count; g++)
            if (total == 0 || g >= cloth_vertices || !p->pulled[g]) p->pulled[g] = 0, p->push[g] = v3(0, 0, 0), p->target[g] = 0.0;
    }
    if (ok && p->active)
        for (int32_t i = 0, at = 0; i < cloth_count; at += cloths[i]->model.vertex_count, i++)
            cloths[i]->scratch.untangling = &p->pulled[at];
    /* which vertices lie in a tangle's regions, for the strain limit (cloth_strain_limit.c) */
    if (ok && p->pairs > 0)
        for (int32_t i = 0, at = 0; i < cloth_count; at += cloths[i]->model.vertex_count, i++)
            cloths[i]->scratch.tangle = &p->group[at];
    if (!ok) p->active = false, p->analysed = false;
    for (int32_t i = 0; an.views && i < objects; i++) view_free(&an.views[i]);
    free(an.views), free(an.x), free(an.crossings), free(meets);
    return ok;
}

void untangle_pull(const untangle_plan *p, cloth *const *cloths, int32_t cloth_count, double h)
{
    if (!p->active) return;
    for (int32_t i = 0, at = 0; i < cloth_count; at += cloths[i]->model.vertex_count, i++)
        for (int32_t v = 0; v < cloths[i]->model.vertex_count; v++) {
            if (!p->pulled[at + v]) continue;
            vec3 push = p->push[at + v];
            double speed = v3_len(push);
            if (!(speed > 0.0)) continue;
            vec3 d = v3_scale(push, 1.0 / speed);
            double *vel = &cloths[i]->scratch.v_new[3 * (size_t)v], *x = &cloths[i]->scratch.x_new[3 * (size_t)v];
            double missing = speed - v3_dot(v3_load(vel), d);
            if (missing <= 0.0) continue;
            v3_store(vel, v3_madd(v3_load(vel), d, missing));
            v3_store(x, v3_madd(v3_load(x), d, missing * h));
        }
}
