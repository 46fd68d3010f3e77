/* Candidate feature pairs of the collision response: every vertex-face and edge-edge pair
 * that can come within the pair's contact distance plus twice the slack, judged by its swept
 * boxes and, where its corners move far, by its relative motion (features moving together
 * stay out, however far they move). One gathering serves as long as every vertex's path stays
 * within the slack of what it was then (path_within_box): for the passes within a step, and
 * for many steps of cloth at rest (when a few vertices stray, collision_update.c gathers only
 * their pairs again).
 * Each cloth triangle queries the other objects' trees on its own, so the triangles are
 * shared out among threads in chunks; the pairs come in the order (cloth, other object,
 * triangle, its triangle, feature), which depends neither on the trees' history nor on the
 * thread count. */
#include <stdlib.h>
#include <string.h>

#include "collision_scratch.h"
#include "grow.h"
#include "sort.h"
#include "threads.h"

/* The slack is this fraction of the thinnest cloth's thickness. Every pair within the contact
 * distance plus twice the slack is gathered; 0.12 gathered 4-5% faster than 0.25 on the 64² and
 * 128² drapes (fewer pairs; moving cloth strays from either within a step), 0.05 slower. */
#define GATHER_SLACK 0.12

bool pairs_valid(const collision_scratch *s)
{
    if (!s->have_pairs || s->gathered_vertex_count != s->vertex_count || s->gathered_object_count != s->object_count)
        return false;
    for (int32_t v = 0; v < s->vertex_count; v++)
        if (!path_within_box(s, v)) return false;
    return true;
}

/* How much larger a cloth's triangle boxes are than its own pairs need: the boxes serve
 * pairs with other objects (thickness) and with itself (self thickness). */
static double self_surplus(const object_ref *obj)
{
    return fmax(obj->thickness, obj->self_thickness) - obj->self_thickness;
}

static void add_pair(pair_buffer *out, bool edge_edge, bool proximity, int feature, const int32_t v[4],
                     const int32_t objects[2], int32_t ta, int32_t tb)
{
    if (!grow((void **)&out->pairs, &out->capacity, out->count + 1, sizeof *out->pairs)) {
        out->out_of_memory = true;
        return;
    }
    out->pairs[out->count++] = (feature_pair){edge_edge, proximity, (uint8_t)feature, {v[0], v[1], v[2], v[3]},
                                              {objects[0], objects[1]}, ta, tb};
}

/* Adds a pair whose features' boxes are `gap` apart: one that takes part in proximity
 * (`near`) while within near_gap, or else one only kept from crossing while within touch_gap. */
static void consider_pair(pair_buffer *out, bool edge_edge, bool near, int feature, const int32_t v[4],
                          const int32_t objects[2], int32_t ta, int32_t tb, double gap, double near_gap,
                          double touch_gap)
{
    if (gap <= (near ? near_gap : touch_gap)) add_pair(out, edge_edge, near, feature, v, objects, ta, tb);
}


/* How much closer any point of one feature can come to any point of the other over the step
 * than at its start: such points are fixed convex combinations of their corners, so their
 * separation changes by at most the largest |u_a - u_b| over corners a of one and b of the
 * other (u = x1 - x0 at the gathering). Cloth moving as one, however fast, closes nothing.
 * Only anchored corners keep their paths (path_within_box): with any other, no bound.
 * It depends on the features' own corners only, as an update keeps pairs without a strayed one.
 * The terms are worked out once per triangle pair, for all its features. */
typedef struct corner_motions {
    double rel2[3][3]; /* |u_a,i - u_b,j|², INFINITY unless both corners are anchored */
    vec3 start_a[3], start_b[3]; /* the corners' x0 at the gathering */
} corner_motions;

static void corner_motions_of(const collision_scratch *s, const int32_t ga[3], const int32_t gb[3], corner_motions *m)
{
    vec3 ub[3];
    bool anchored_b[3];
    for (int j = 0; j < 3; j++) {
        const gathered_path *b = &s->paths[gb[j]];
        m->start_b[j] = b->x0;
        ub[j] = v3_sub(b->x1, b->x0);
        anchored_b[j] = b->anchored;
    }
    for (int i = 0; i < 3; i++) {
        const gathered_path *a = &s->paths[ga[i]];
        m->start_a[i] = a->x0;
        vec3 ua = v3_sub(a->x1, a->x0);
        for (int j = 0; j < 3; j++)
            m->rel2[i][j] = a->anchored && anchored_b[j] ? v3_len2(v3_sub(ua, ub[j])) : INFINITY;
    }
}

/* The closing bound of the features made of corners `a` (bit i: corner i) and `b`. */
static double closing_bound(const corner_motions *m, unsigned a, unsigned b)
{
    double worst = 0.0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            if ((a >> i) & (b >> j) & 1u) worst = bound_hi(worst, m->rel2[i][j]);
    return sqrt(worst);
}

static aabb start_box(const vec3 *corners, unsigned which)
{
    aabb box = aabb_empty();
    for (int i = 0; i < 3; i++)
        if ((which >> i) & 1u) box = aabb_add_point(box, corners[i]);
    return box;
}

/* The larger of two features' (corners a, b as bits) path boxes' gap `path_gap` and their
 * start boxes' gap less the closing bound. */
static double gap_with_motion(const corner_motions *m, double path_gap, unsigned a, unsigned b)
{
    double closing = closing_bound(m, a, b);
    if (closing == INFINITY) return path_gap;
    aabb start_a = start_box(m->start_a, a), start_b = start_box(m->start_b, b);
    return bound_hi(path_gap, box_gap(&start_a, &start_b) - closing);
}

/* A lower bound on how close two features come over the step: their path boxes' gap, and
 * when that is within `limit` also gap_with_motion. */
static double features_gap(const corner_motions *m, const aabb *path_a, const aabb *path_b, unsigned a, unsigned b,
                           double limit)
{
    double gap = box_gap(path_a, path_b);
    return gap > limit ? gap : gap_with_motion(m, gap, a, b);
}

/* Triangle ta of cloth oa and tb of object ob, as their feature pairs are judged. Their
 * features are numbered in the order they are tried: 2k, vertex k of ta against tb's face;
 * 2k + 1, vertex k of tb against ta's face; 6 + 3i + j, edge i of ta against edge j of tb. */
typedef struct triangle_pair {
    const object_ref *A, *B;
    int32_t ta, tb;
    const int32_t *a, *b;   /* their corners, numbered within each object */
    int32_t ab[2], ba[2];   /* the objects, in the order of a vertex-face pair's features */
    int32_t ga[3], gb[3];   /* their corners' global numbers */
    bool same, collider;
    uint8_t left_out;       /* the LEFT_OUT_OF_* bit that leaves the cloth's features out of this
                               pair (objects, self; none between two cloths) */
    double near_gap, touch_gap; /* see consider_pair */
    const aabb *va[3], *vb[3]; /* the corners' path boxes at the gathering */
    aabb face_a, face_b;
    corner_motions m;
} triangle_pair;

/* With d the pair's contact distance: near_gap is d plus the slack of both features,
 * touch_gap its detection tolerance plus that slack. */
static void triangle_pair_init(const collision_scratch *s, int32_t oa, int32_t ta, int32_t ob, int32_t tb,
                               triangle_pair *p)
{
    const object_ref *A = &s->objects[oa], *B = &s->objects[ob];
    p->A = A, p->B = B, p->ta = ta, p->tb = tb;
    p->a = &A->triangles[3 * (size_t)ta], p->b = &B->triangles[3 * (size_t)tb];
    p->ab[0] = oa, p->ab[1] = ob, p->ba[0] = ob, p->ba[1] = oa;
    p->same = oa == ob, p->collider = !B->is_cloth;
    p->left_out = p->same ? LEFT_OUT_OF_SELF : p->collider ? LEFT_OUT_OF_OBJECTS : 0;
    double d = p->same ? 2.0 * A->self_thickness : A->thickness + B->thickness;
    p->near_gap = d + 2.0 * s->slack, p->touch_gap = detection_tolerance(d) + 2.0 * s->slack;
    for (int k = 0; k < 3; k++) {
        p->ga[k] = A->first + p->a[k], p->gb[k] = B->first + p->b[k];
        p->va[k] = &s->gathered[p->ga[k]], p->vb[k] = &s->gathered[p->gb[k]];
    }
    p->face_a = aabb_union(aabb_union(*p->va[0], *p->va[1]), *p->va[2]);
    p->face_b = aabb_union(aabb_union(*p->vb[0], *p->vb[1]), *p->vb[2]);
}

/* The largest gap any of the pair's features may be kept at: near_gap when one of them can
 * take part in proximity (two cloths, or a collider triangle with a sharp corner or edge). */
static double widest_kept_gap(const triangle_pair *p)
{
    const object_ref *B = p->B;
    bool any_near = !p->collider;
    for (int k = 0; k < 3 && !any_near; k++)
        any_near = B->sharp_vertex[p->b[k]] || B->sharp_edge[B->topo->triangle_edges[3 * (size_t)p->tb + k]];
    return any_near ? p->near_gap : p->touch_gap;
}

/* Vertex k of ta, if ta owns it (mesh_topology.h), against the face of tb, unless a corner of it. */
static void vertex_of_a_on_face_of_b(const triangle_pair *p, int k, pair_buffer *out)
{
    const int32_t *a = p->a, *b = p->b;
    if (!topology_owns_vertex(p->A->topo, p->ta, k) || (p->same && triangle_has_vertex(b, a[k]))) return;
    if (feature_left_out(p->A->left_out_vertex, a[k], p->left_out) ||
        (p->same && feature_left_out(p->A->left_out_triangle, p->tb, LEFT_OUT_OF_SELF)))
        return;
    int32_t v[4] = {p->ga[k], p->gb[0], p->gb[1], p->gb[2]};
    double gap = features_gap(&p->m, p->va[k], &p->face_b, 1u << k, 7u, p->near_gap);
    if (gap > p->near_gap) return;
    bool near = !p->collider && !(p->same && rest_near_vertex_face(p->A->near_at_rest, a[k], p->tb));
    consider_pair(out, false, near, 2 * k, v, p->ab, p->ta, p->tb, gap, p->near_gap, p->touch_gap);
}

/* Vertex k of tb against the face of ta, the same way; a collider's vertex takes part in
 * proximity where it is sharp. */
static void vertex_of_b_on_face_of_a(const triangle_pair *p, int k, pair_buffer *out)
{
    const int32_t *a = p->a, *b = p->b;
    if (!topology_owns_vertex(p->B->topo, p->tb, k) || (p->same && triangle_has_vertex(a, b[k]))) return;
    if (feature_left_out(p->A->left_out_triangle, p->ta, p->left_out) ||
        (p->same && feature_left_out(p->A->left_out_vertex, b[k], LEFT_OUT_OF_SELF)))
        return;
    int32_t v[4] = {p->gb[k], p->ga[0], p->ga[1], p->ga[2]};
    double gap = features_gap(&p->m, &p->face_a, p->vb[k], 7u, 1u << k, p->near_gap);
    if (gap > p->near_gap) return;
    bool near = p->collider ? p->B->sharp_vertex[b[k]]
                            : !(p->same && rest_near_vertex_face(p->A->near_at_rest, b[k], p->ta));
    consider_pair(out, false, near, 2 * k + 1, v, p->ba, p->ta, p->tb, gap, p->near_gap, p->touch_gap);
}

/* Edge i of ta against each edge tb owns that shares no vertex with it; a collider's edge
 * takes part in proximity where it is sharp. */
static void edge_of_a_with_edges_of_b(const triangle_pair *p, int i, pair_buffer *out)
{
    const object_ref *A = p->A, *B = p->B;
    int32_t a0 = p->a[i], a1 = p->a[(i + 1) % 3];
    aabb edge_a = aabb_union(*p->va[i], *p->va[(i + 1) % 3]);
    unsigned ends_a = 1u << i | 1u << (i + 1) % 3;
    for (int j = 0; j < 3; j++) {
        if (!topology_owns_edge(B->topo, p->tb, j)) continue;
        int32_t b0 = p->b[j], b1 = p->b[(j + 1) % 3];
        if (p->same && (a0 == b0 || a0 == b1 || a1 == b0 || a1 == b1)) continue;
        aabb edge_b = aabb_union(*p->vb[j], *p->vb[(j + 1) % 3]);
        double gap = features_gap(&p->m, &edge_a, &edge_b, ends_a, 1u << j | 1u << (j + 1) % 3, p->near_gap);
        if (gap > p->near_gap) continue;
        int32_t ea = A->topo->triangle_edges[3 * (size_t)p->ta + i];
        int32_t eb = B->topo->triangle_edges[3 * (size_t)p->tb + j];
        if (feature_left_out(A->left_out_edge, ea, p->left_out) ||
            (p->same && feature_left_out(A->left_out_edge, eb, LEFT_OUT_OF_SELF)))
            continue;
        bool near = p->collider ? B->sharp_edge[eb] : !(p->same && rest_near_edges(A->near_at_rest, ea, eb));
        int32_t v[4] = {p->ga[i], p->ga[(i + 1) % 3], p->gb[j], p->gb[(j + 1) % 3]};
        consider_pair(out, true, near, 6 + 3 * i + j, v, p->ab, p->ta, p->tb, gap, p->near_gap, p->touch_gap);
    }
}

/* Feature pairs of triangle ta of cloth oa and tb of ob: each object's owned vertices
 * against the other's face, each owned edge against each owned edge; features sharing a
 * vertex are skipped. Pairs that take part in proximity are kept while they can come (by
 * features_gap) within the contact distance plus the slack of both; the others (a cloth
 * vertex on a collider face, held by the contact filters; smooth collider features, see
 * collision_response.h; features of one cloth near at rest, see collision_rest_neighbours.h) while they can
 * come within the detection tolerance plus the slack. */
void pairs_of_triangles(const collision_scratch *s, int32_t oa, int32_t ta, int32_t ob, int32_t tb, pair_buffer *out)
{
    triangle_pair p;
    triangle_pair_init(s, oa, ta, ob, tb, &p);
    double limit = widest_kept_gap(&p);
    double face_gap = box_gap(&p.face_a, &p.face_b);
    if (face_gap > limit) return;
    /* the triangles' bound holds for all their features: a test every pair below would fail */
    corner_motions_of(s, p.ga, p.gb, &p.m);
    if (gap_with_motion(&p.m, face_gap, 7u, 7u) > limit) return;
    for (int k = 0; k < 3; k++) {
        vertex_of_a_on_face_of_b(&p, k, out);
        vertex_of_b_on_face_of_a(&p, k, out);
    }
    for (int i = 0; i < 3; i++)
        if (topology_owns_edge(p.A->topo, ta, i)) edge_of_a_with_edges_of_b(&p, i, out);
}

void pairs_collect_hit(void *ctx, int32_t prim)
{
    pair_buffer *out = ctx;
    if (!grow((void **)&out->hits, &out->hit_capacity, out->hit_count + 1, sizeof *out->hits)) {
        out->out_of_memory = true;
        return;
    }
    out->hits[out->hit_count++] = prim;
}

/* Sorts the hits (distinct triangles): through a bitmap of their range when that is short
 * (a mesh's neighbours lie in a few runs of indices), else by qsort. */
static void sort_hits(pair_buffer *out)
{
    int32_t count = out->hit_count, *items = out->hits;
    if (count < 2) return;
    int32_t lo = items[0], hi = items[0];
    for (int32_t i = 1; i < count; i++) lo = items[i] < lo ? items[i] : lo, hi = items[i] > hi ? items[i] : hi;
    int32_t words = (int32_t)(((int64_t)hi - lo) / 64 + 1);
    if (words > 4 * count ||
        !grow((void **)&out->bits, &out->bit_capacity, words, sizeof *out->bits)) {
        qsort(items, (size_t)count, sizeof *items, compare_i32);
        return;
    }
    memset(out->bits, 0, (size_t)words * sizeof *out->bits);
    for (int32_t i = 0; i < count; i++) out->bits[(items[i] - lo) >> 6] |= (uint64_t)1 << ((items[i] - lo) & 63);
    int32_t next = 0;
    for (int32_t w = 0; w < words; w++)
        for (uint64_t word = out->bits[w]; word; word &= word - 1)
            items[next++] = lo + 64 * w + __builtin_ctzll(word);
}

/* A collider's boxes carry its thickness only, so the cloth's box brings the slack of both;
 * a cloth's own boxes are grown for a thicker distance than its self pairs need. */
aabb pairs_query_box(const collision_scratch *s, int32_t oa, int32_t ob, int32_t ta)
{
    const object_ref *A = &s->objects[oa], *B = &s->objects[ob];
    double extra = !B->is_cloth ? s->slack : oa == ob ? -2.0 * self_surplus(A) : 0.0;
    return aabb_inflate(A->boxes[ta], extra);
}

/* Pairs of the triangles [begin, end) of cloth oa with object ob, into one buffer. */
static void pairs_of_range(const collision_scratch *s, int32_t oa, int32_t ob, int32_t begin, int32_t end,
                           pair_buffer *out)
{
    const object_ref *B = &s->objects[ob];
    for (int32_t ta = begin; ta < end && !out->out_of_memory; ta++) {
        aabb query = pairs_query_box(s, oa, ob, ta);
        out->hit_count = 0;
        if (oa == ob) bvh_query_above(B->tree, &query, ta, pairs_collect_hit, out); /* each pair once */
        else bvh_query(B->tree, &query, pairs_collect_hit, out);
        sort_hits(out);
        for (int32_t h = 0; h < out->hit_count; h++) pairs_of_triangles(s, oa, ta, ob, out->hits[h], out);
    }
}

bool pairs_reserve_buffers(collision_scratch *s, int32_t count)
{
    if (count > s->buffer_count) {
        pair_buffer *grown = realloc(s->buffers, (size_t)count * sizeof *grown);
        if (!grown) return false;
        memset(grown + s->buffer_count, 0, (size_t)(count - s->buffer_count) * sizeof *grown);
        s->buffers = grown;
        s->buffer_count = count;
    }
    for (int32_t i = 0; i < count; i++)
        s->buffers[i].count = 0, s->buffers[i].key_count = 0, s->buffers[i].out_of_memory = false;
    return true;
}

bool pairs_append_buffers(collision_scratch *s, int32_t count, feature_pair **to, int32_t *to_count,
                          int32_t *to_capacity)
{
    int64_t total = *to_count;
    for (int32_t i = 0; i < count; i++) {
        if (s->buffers[i].out_of_memory) return false;
        total += s->buffers[i].count;
    }
    if (total == *to_count) return true;
    if (total > INT32_MAX || !grow((void **)to, to_capacity, (int32_t)total, sizeof **to)) return false;
    feature_pair *dest = *to + *to_count;
#pragma omp parallel for schedule(dynamic, 1) if (total - *to_count > 65536)
    for (int32_t i = 0; i < count; i++) {
        const pair_buffer *b = &s->buffers[i];
        int64_t offset = 0;
        for (int32_t k = 0; k < i; k++) offset += s->buffers[k].count;
        if (b->count > 0) memcpy(dest + offset, b->pairs, (size_t)b->count * sizeof *b->pairs);
    }
    *to_count = (int32_t)total;
    return true;
}

/* Pairs of cloth oa with object ob, appended to s->pairs in triangle order. */
static bool pairs_of_objects(collision_scratch *s, int32_t oa, int32_t ob)
{
    int32_t triangles = s->objects[oa].triangle_count, chunks = chunk_count(triangles);
    if (!pairs_reserve_buffers(s, chunks)) return false;
#pragma omp parallel for schedule(dynamic, 1) if (chunks > 1)
    for (int32_t c = 0; c < chunks; c++) {
        pairs_of_range(s, oa, ob, chunk_start(triangles, c, chunks), chunk_start(triangles, c + 1, chunks),
                       &s->buffers[c]);
    }
    return pairs_append_buffers(s, chunks, &s->pairs, &s->pair_count, &s->pair_capacity);
}

void pairs_set_triangle_box(const collision_scratch *s, object_ref *obj, int32_t t)
{
    const int32_t *tri = &obj->triangles[3 * (size_t)t];
    aabb box = aabb_union(aabb_union(s->gathered[obj->first + tri[0]], s->gathered[obj->first + tri[1]]),
                          s->gathered[obj->first + tri[2]]);
    obj->boxes[t] = aabb_inflate(box, fmax(obj->thickness, obj->self_thickness) + s->slack);
}

bool pairs_gather(collision_scratch *s)
{
    s->have_pairs = false;
    if (!grow((void **)&s->gathered, &s->gathered_capacity, s->vertex_count, sizeof *s->gathered) ||
        !grow((void **)&s->paths, &s->path_capacity, s->vertex_count, sizeof *s->paths))
        return false;
    s->moving_path = INFINITY;
    for (int32_t o = 0; o < s->object_count; o++)
        if (s->objects[o].is_cloth) s->moving_path = fmin(s->moving_path, s->objects[o].thickness);
    s->slack = GATHER_SLACK * s->moving_path;
    for (int32_t v = 0; v < s->vertex_count; v++) {
        s->gathered[v] = path_box(s->x0[v], s->x1[v]);
        anchor_path(s, v);
    }
    return pairs_gather_within_boxes(s);
}

bool pairs_gather_within_boxes(collision_scratch *s)
{
    s->have_pairs = false;
    s->pair_count = 0;
    /* a collider's tree was built for this step's paths (collider_prepare_step) */
    for (int32_t o = 0; o < s->object_count; o++) {
        object_ref *obj = &s->objects[o];
        if (!obj->is_cloth) continue;
        if (object_is_strands(obj)) {
            strand_pairs_set_boxes(s, obj);
            if (!bvh_update(obj->tree, obj->boxes, obj->segment_count)) return false;
            continue;
        }
        for (int32_t t = 0; t < obj->triangle_count; t++) pairs_set_triangle_box(s, obj, t);
        if (!bvh_update(obj->tree, obj->boxes, obj->triangle_count)) return false;
    }
    for (int32_t oa = 0; oa < s->object_count; oa++) {
        if (!s->objects[oa].is_cloth) continue;
        for (int32_t ob = oa; ob < s->object_count; ob++) {
            if (!objects_meet(s, oa, ob)) continue;
            /* strands meet colliders vertex by vertex elsewhere (strand_collide.h, the contacts) */
            bool strands = object_is_strands(&s->objects[oa]) || object_is_strands(&s->objects[ob]);
            if (strands ? s->objects[ob].is_cloth && !strand_pairs_of_objects(s, oa, ob) : !pairs_of_objects(s, oa, ob))
                return false;
        }
    }
    s->gathered_vertex_count = s->vertex_count;
    s->gathered_object_count = s->object_count;
    s->have_pairs = true;
    s->updates_since_gathering = 0;
    s->gather_count++;
    return true;
}

void pairs_free(collision_scratch *s)
{
    for (int32_t i = 0; i < s->buffer_count; i++)
        free(s->buffers[i].pairs), free(s->buffers[i].hits), free(s->buffers[i].bits), free(s->buffers[i].keys);
    free(s->buffers), free(s->pairs), free(s->gathered), free(s->paths), free(s->flagged), free(s->row_of), free(s->near), free(s->listed_at), free(s->strayed);
    free(s->strayed_triangles), free(s->keys), free(s->fresh), free(s->spare), free(s->strand_keys);
}
