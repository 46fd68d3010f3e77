/* Candidate feature pairs of strands (strands.h) in the collision response. A strand has no
 * triangles: its features are its segments and vertices, so the pairs the response needs are
 *   - segment against segment (edge-edge): strands of two objects, or of one object with self
 *     collision (different strands, or one strand's segments that share no vertex);
 *   - against a cloth's triangle: each strand vertex against the face (vertex-face), each
 *     segment against the triangle's edges (edge-edge); a cloth vertex meets a strand through
 *     the cloth's edges round it.
 * Everything after the gathering (proximity pushes, continuous detection, impact zones) works
 * on these pairs as on a cloth's, so strands keep the cloth's guarantee: starting apart, no
 * segment crosses another or a cloth within any step. Colliders meet strands elsewhere
 * (strand_collide.h, vertex by vertex and segment by sharp edge, and the contacts): their
 * sweep runs before the response, and
 * the response has the last word (world_step.c), so the guarantee holds with colliders too.
 * Pairs are kept as collision_pairs.c keeps a cloth's: while their path boxes can come within
 * the contact distance plus the slack of both (proximity), judged by relative motion where
 * every corner is anchored (strands swinging together close nothing); pairs of one object
 * closer than the contact distance in the rest shape (hairs rooted side by side, the turns of
 * a tight curl) only while they can touch, and never pushed apart, as a cloth's features near
 * at rest. The candidates come from both trees descended together (a hair's many segments
 * would each descend from the root on their own), sorted; they are then shared out among
 * threads in chunks, and the pairs come in the order (object, other object, segment, its
 * segment or triangle, feature), whatever the trees' shapes or the thread count. */
#include <stdlib.h>

#include "collision_geometry.h"
#include "collision_scratch.h"
#include "grow.h"
#include "sort.h"
#include "threads.h"

/* The feature numbers of strand pairs (feature_pair.feature), after a triangle pair's 0-14. */
enum { STRAND_SEGMENTS = 16, STRAND_VERTEX_FACE = 17, STRAND_EDGES = 18 };

void strand_pairs_set_boxes(const collision_scratch *s, object_ref *obj)
{
    double margin = fmax(obj->thickness, obj->self_thickness) + s->slack;
    for (int32_t k = 0; k < obj->segment_count; k++) {
        const int32_t *e = &obj->segments[2 * (size_t)k];
        obj->boxes[k] = aabb_inflate(aabb_union(s->gathered[obj->first + e[0]], s->gathered[obj->first + e[1]]), margin);
    }
}

/* A lower bound on how close features of global corners a[na] and b[nb] come over the step
 * (see collision_pairs.c's corner_motions): their path boxes' gap, and, where every corner
 * is anchored, their start boxes' gap less the largest relative displacement of two corners. */
static double features_gap(const collision_scratch *s, const int32_t *a, int na, const int32_t *b, int nb,
                           double limit)
{
    aabb path_a = aabb_empty(), path_b = aabb_empty(), start_a = aabb_empty(), start_b = aabb_empty();
    for (int i = 0; i < na; i++) path_a = aabb_union(path_a, s->gathered[a[i]]);
    for (int j = 0; j < nb; j++) path_b = aabb_union(path_b, s->gathered[b[j]]);
    double gap = box_gap(&path_a, &path_b);
    if (gap > limit) return gap;
    double worst = 0.0;
    for (int i = 0; i < na; i++) {
        const gathered_path *pa = &s->paths[a[i]];
        if (!pa->anchored) return gap;
        start_a = aabb_add_point(start_a, pa->x0);
        for (int j = 0; j < nb; j++) {
            const gathered_path *pb = &s->paths[b[j]];
            if (!pb->anchored) return gap;
            worst = bound_hi(worst, v3_len2(v3_sub(v3_sub(pa->x1, pa->x0), v3_sub(pb->x1, pb->x0))));
        }
    }
    for (int j = 0; j < nb; j++) start_b = aabb_add_point(start_b, s->paths[b[j]].x0);
    return bound_hi(gap, box_gap(&start_a, &start_b) - sqrt(worst));
}

static void add_pair(pair_buffer *out, bool edge_edge, bool proximity, int feature, const int32_t v[4],
                     int32_t oa, int32_t ob, int32_t ta, int32_t tb)
{
    if (!grow((void **)&out->pairs, &out->capacity, out->count + 1, sizeof *out->pairs)) {
        out->out_of_memory = true;
        return;
    }
    out->pairs[out->count++] = (feature_pair){edge_edge, proximity, (uint8_t)feature, {v[0], v[1], v[2], v[3]},
                                              {oa, ob}, ta, tb};
}

/* The contact distance of a pair of oa's and ob's features, and the gaps its pairs are kept
 * within: near (proximity) and touch (crossings only). */
typedef struct gaps { double distance, near, touch; } gaps;

static gaps gaps_of(const collision_scratch *s, int32_t oa, int32_t ob)
{
    const object_ref *A = &s->objects[oa], *B = &s->objects[ob];
    double d = oa == ob ? 2.0 * A->self_thickness : A->thickness + B->thickness;
    return (gaps){d, d + 2.0 * s->slack, detection_tolerance(d) + 2.0 * s->slack};
}

static vec3 rest_position(const object_ref *o, int32_t v) { return v3_load(&o->rest_positions[3 * (size_t)v]); }

/* Segments ka and kb of strands object oa against each other (kb of ob). */
static void segment_pair(const collision_scratch *s, int32_t oa, int32_t ka, int32_t ob, int32_t kb, gaps g,
                         pair_buffer *out)
{
    const object_ref *A = &s->objects[oa], *B = &s->objects[ob];
    const int32_t *ea = &A->segments[2 * (size_t)ka], *eb = &B->segments[2 * (size_t)kb];
    if (oa == ob && (ea[0] == eb[0] || ea[0] == eb[1] || ea[1] == eb[0] || ea[1] == eb[1])) return;
    int32_t v[4] = {A->first + ea[0], A->first + ea[1], B->first + eb[0], B->first + eb[1]};
    double gap = features_gap(s, v, 2, v + 2, 2, g.near);
    if (gap > g.near) return;
    bool near = true;
    if (oa == ob) {
        double sa, sb;
        near = closest_points_segments(rest_position(A, ea[0]), rest_position(A, ea[1]), rest_position(A, eb[0]),
                                       rest_position(A, eb[1]), &sa, &sb) >= g.distance * g.distance;
    }
    if (gap <= (near ? g.near : g.touch)) add_pair(out, true, near, STRAND_SEGMENTS, v, oa, ob, ka, kb);
}

/* Whether segment k of strands object o owns its vertex `end` (0, 1): each vertex is owned by
 * the segment it starts, a strand's last vertex by the segment it ends. */
static bool owns_vertex(const object_ref *o, int32_t k, int end)
{
    if (end == 0) return true;
    return k + 1 == o->segment_count || o->segments[2 * (size_t)k + 2] != o->segments[2 * (size_t)k + 1];
}

/* Segment ka of strands object oa against triangle tb of cloth ob: its owned vertices against
 * the face, itself against each edge the triangle owns. */
static void segment_triangle_pair(const collision_scratch *s, int32_t oa, int32_t ka, int32_t ob, int32_t tb, gaps g,
                                  pair_buffer *out)
{
    const object_ref *A = &s->objects[oa], *B = &s->objects[ob];
    /* a cloth's features left out of collisions are left out of those with colliders only
     * (LEFT_OUT_OF_OBJECTS) or with itself: strands meet them, as another cloth does */
    const int32_t *ea = &A->segments[2 * (size_t)ka], *tri = &B->triangles[3 * (size_t)tb];
    int32_t seg[2] = {A->first + ea[0], A->first + ea[1]};
    int32_t face[3] = {B->first + tri[0], B->first + tri[1], B->first + tri[2]};
    for (int end = 0; end < 2; end++) {
        if (!owns_vertex(A, ka, end)) continue;
        if (features_gap(s, &seg[end], 1, face, 3, g.near) > g.near) continue;
        int32_t v[4] = {seg[end], face[0], face[1], face[2]};
        add_pair(out, false, true, STRAND_VERTEX_FACE, v, oa, ob, ka, tb);
    }
    for (int j = 0; j < 3; j++) {
        if (!topology_owns_edge(B->topo, tb, j)) continue;
        int32_t v[4] = {seg[0], seg[1], face[j], face[(j + 1) % 3]};
        if (features_gap(s, v, 2, v + 2, 2, g.near) > g.near) continue;
        add_pair(out, true, true, STRAND_EDGES + j, v, oa, ob, ka, tb);
    }
}

/* The candidate primitive pairs, found by descending both trees together (bvh_self_pairs,
 * bvh_tree_pairs: the boxes of the strands' segments and of the other object's segments or
 * triangles overlap), as keys first * seconds + second; sorted, they give the pairs' order. */
typedef struct key_sink {
    collision_scratch *s;
    uint64_t seconds;
    bool self, out_of_memory;
} key_sink;

static void add_key(void *ctx, int32_t a, int32_t b)
{
    key_sink *k = ctx;
    collision_scratch *s = k->s;
    if (k->self && b < a) {
        int32_t swap = a;
        a = b, b = swap;
    }
    /* room for the sort's spare half too */
    if (!grow((void **)&s->strand_keys, &s->strand_key_capacity, 2 * (s->strand_key_count + 1), sizeof *s->strand_keys)) {
        k->out_of_memory = true;
        return;
    }
    s->strand_keys[s->strand_key_count++] = (uint64_t)a * k->seconds + (uint64_t)b;
}

/* Pairs of the sorted keys [begin, end) of strands object oa with object ob, into one buffer. */
static void pairs_of_keys(const collision_scratch *s, int32_t oa, int32_t ob, uint64_t seconds, int32_t begin,
                          int32_t end, pair_buffer *out)
{
    const object_ref *B = &s->objects[ob];
    gaps g = gaps_of(s, oa, ob);
    for (int32_t k = begin; k < end && !out->out_of_memory; k++) {
        int32_t ka = (int32_t)(s->strand_keys[k] / seconds), kb = (int32_t)(s->strand_keys[k] % seconds);
        if (object_is_strands(B)) segment_pair(s, oa, ka, ob, kb, g, out);
        else segment_triangle_pair(s, oa, ka, ob, kb, g, out);
    }
}

bool strand_pairs_of_objects(collision_scratch *s, int32_t oa, int32_t ob)
{
    /* a cloth of triangles and strands: the strands' segments against the triangles */
    if (!object_is_strands(&s->objects[oa])) {
        int32_t swap = oa;
        oa = ob, ob = swap;
    }
    object_ref *A = &s->objects[oa], *B = &s->objects[ob];
    int32_t seconds = object_is_strands(B) ? B->segment_count : B->triangle_count;
    key_sink sink = {s, (uint64_t)seconds, oa == ob, false};
    s->strand_key_count = 0;
    if (!(oa == ob ? bvh_self_pairs(A->tree, add_key, &sink) : bvh_tree_pairs(A->tree, B->tree, add_key, &sink)) ||
        sink.out_of_memory)
        return false;
    int32_t count = s->strand_key_count;
    if (count == 0) return true; /* (and no keys array yet) */
    radix_sort_u64(s->strand_keys, s->strand_keys + count, count, (uint64_t)A->segment_count * (uint64_t)seconds);
    int32_t chunks = chunk_count(count);
    if (!pairs_reserve_buffers(s, chunks)) return false;
#pragma omp parallel for schedule(dynamic, 1) if (chunks > 1)
    for (int32_t c = 0; c < chunks; c++)
        pairs_of_keys(s, oa, ob, (uint64_t)seconds, chunk_start(count, c, chunks), chunk_start(count, c + 1, chunks),
                      &s->buffers[c]);
    return pairs_append_buffers(s, chunks, &s->pairs, &s->pair_count, &s->pair_capacity);
}
