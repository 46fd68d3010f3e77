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

/* How far apart two boxes are along the axis where they are furthest apart (<= 0: overlap). */
static double box_gap(const aabb *a, const aabb *b)
{
    /* bound_hi: fmax inlined (boxes are never NaN here: every coordinate is checked finite) */
    double g = bound_hi(a->lo.x - b->hi.x, b->lo.x - a->hi.x);
    g = bound_hi(g, bound_hi(a->lo.y - b->hi.y, b->lo.y - a->hi.y));
    return bound_hi(g, bound_hi(a->lo.z - b->hi.z, b->lo.z - a->hi.z));
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

/* Feature pairs of triangle ta of cloth oa and tb of ob: each object's owned vertices
 * against the other's face, each owned edge against each owned edge; features sharing a
 * vertex are skipped. Pairs that take part in proximity are kept while they can come (by
 * features_gap) within the contact distance plus the slack of both; the others (a cloth
 * vertex on a collider face, held by the contact filters; smooth collider features, see
 * collision.h; features of one cloth near at rest, see rest_neighbours.h) while they can
 * come within the detection tolerance plus the slack. */
void pairs_of_triangles(const collision_scratch *s, int32_t oa, int32_t ta, int32_t ob, int32_t tb, pair_buffer *out)
{
    const object_ref *A = &s->objects[oa], *B = &s->objects[ob];
    const int32_t *a = &A->triangles[3 * (size_t)ta], *b = &B->triangles[3 * (size_t)tb];
    bool same = oa == ob, collider = !B->is_cloth;
    int32_t fa = A->first, fb = B->first, ab[2] = {oa, ob}, ba[2] = {ob, oa};
    double d = same ? 2.0 * A->self_thickness : A->thickness + B->thickness;
    double near_gap = d + 2.0 * s->slack, touch_gap = detection_tolerance(d) + 2.0 * s->slack;
    const aabb *va[3], *vb[3];
    int32_t ga[3], gb[3];
    for (int k = 0; k < 3; k++) {
        ga[k] = fa + a[k], gb[k] = fb + b[k];
        va[k] = &s->gathered[ga[k]], vb[k] = &s->gathered[gb[k]];
    }
    aabb face_a = aabb_union(aabb_union(*va[0], *va[1]), *va[2]);
    aabb face_b = aabb_union(aabb_union(*vb[0], *vb[1]), *vb[2]);
    bool any_near = !collider;
    for (int k = 0; k < 3 && !any_near; k++)
        any_near = B->sharp_vertex[b[k]] || B->sharp_edge[B->topo->triangle_edges[3 * (size_t)tb + k]];
    double limit = any_near ? near_gap : touch_gap;
    double face_gap = box_gap(&face_a, &face_b);
    if (face_gap > limit) return;
    /* the triangles' bound holds for all their features: a test every pair below would fail */
    corner_motions m;
    corner_motions_of(s, ga, gb, &m);
    if (gap_with_motion(&m, face_gap, 7u, 7u) > limit) return;
    for (int k = 0; k < 3; k++) {
        if (topology_owns_vertex(A->topo, ta, k) && !(same && triangle_has_vertex(b, a[k]))) {
            int32_t v[4] = {fa + a[k], fb + b[0], fb + b[1], fb + b[2]};
            double gap = features_gap(&m, va[k], &face_b, 1u << k, 7u, near_gap);
            if (gap <= near_gap) {
                bool near = !collider && !(same && rest_near_vertex_face(A->near_at_rest, a[k], tb));
                consider_pair(out, false, near, 2 * k, v, ab, ta, tb, gap, near_gap, touch_gap);
            }
        }
        if (topology_owns_vertex(B->topo, tb, k) && !(same && triangle_has_vertex(a, b[k]))) {
            int32_t v[4] = {fb + b[k], fa + a[0], fa + a[1], fa + a[2]};
            double gap = features_gap(&m, &face_a, vb[k], 7u, 1u << k, near_gap);
            if (gap <= near_gap) {
                bool near = collider ? B->sharp_vertex[b[k]] : !(same && rest_near_vertex_face(A->near_at_rest, b[k], ta));
                consider_pair(out, false, near, 2 * k + 1, v, ba, ta, tb, gap, near_gap, touch_gap);
            }
        }
    }
    for (int i = 0; i < 3; i++) {
        if (!topology_owns_edge(A->topo, ta, i)) continue;
        int32_t a0 = a[i], a1 = a[(i + 1) % 3];
        aabb edge_a = aabb_union(*va[i], *va[(i + 1) % 3]);
        unsigned ends_a = 1u << i | 1u << (i + 1) % 3;
        for (int j = 0; j < 3; j++) {
            if (!topology_owns_edge(B->topo, tb, j)) continue;
            int32_t b0 = b[j], b1 = b[(j + 1) % 3];
            if (same && (a0 == b0 || a0 == b1 || a1 == b0 || a1 == b1)) continue;
            aabb edge_b = aabb_union(*vb[j], *vb[(j + 1) % 3]);
            double gap = features_gap(&m, &edge_a, &edge_b, ends_a, 1u << j | 1u << (j + 1) % 3, near_gap);
            if (gap > near_gap) continue;
            int32_t ea = A->topo->triangle_edges[3 * (size_t)ta + i], eb = B->topo->triangle_edges[3 * (size_t)tb + j];
            bool near = collider ? B->sharp_edge[eb] : !(same && rest_near_edges(A->near_at_rest, ea, eb));
            int32_t v[4] = {fa + a0, fa + a1, fb + b0, fb + b1};
            consider_pair(out, true, near, 6 + 3 * i + j, v, ab, ta, tb, gap, near_gap, touch_gap);
        }
    }
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
    for (int32_t i = 0; i < count; i++) s->buffers[i].count = 0, s->buffers[i].key_count = 0, s->buffers[i].out_of_memory = false;
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
        pairs_of_range(s, oa, ob, chunk_start(triangles, c, chunks), chunk_start(triangles, c + 1, chunks), &s->buffers[c]);
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
        for (int32_t t = 0; t < obj->triangle_count; t++) pairs_set_triangle_box(s, obj, t);
        if (!bvh_update(obj->tree, obj->boxes, obj->triangle_count)) return false;
    }
    for (int32_t oa = 0; oa < s->object_count; oa++) {
        if (!s->objects[oa].is_cloth) continue;
        for (int32_t ob = oa; ob < s->object_count; ob++)
            if ((ob != oa || s->objects[oa].self) && !pairs_of_objects(s, oa, ob)) return false;
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
    free(s->buffers), free(s->pairs), free(s->gathered), free(s->paths), free(s->flagged), free(s->strayed);
    free(s->strayed_triangles), free(s->keys), free(s->fresh), free(s->spare);
}
