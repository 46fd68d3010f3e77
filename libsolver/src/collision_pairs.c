/* Candidate feature pairs of the collision response: every vertex-face and edge-edge pair
 * whose swept boxes come within the pair's contact distance plus twice the slack. One
 * gathering serves as long as every vertex's path stays within the slack of the box it had
 * then: for the passes within a step, and for many steps of cloth at rest. When a few
 * vertices stray, only their boxes grow and only their pairs are gathered again, sorted into
 * the list: the same list a whole gathering with those boxes would make.
 * Each cloth triangle queries the other objects' trees on its own, so the triangles are
 * shared out among threads; the pairs come in the order (cloth, other object, triangle, its
 * triangle, feature), which depends neither on the trees' history nor on the thread count. */
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

static aabb path_box(vec3 a, vec3 b) { return aabb_add_point(aabb_add_point(aabb_empty(), a), b); }

static bool inside(const aabb *box, vec3 p, double margin)
{
    return p.x >= box->lo.x - margin && p.x <= box->hi.x + margin && p.y >= box->lo.y - margin &&
           p.y <= box->hi.y + margin && p.z >= box->lo.z - margin && p.z <= box->hi.z + margin;
}

bool pairs_valid(const collision_scratch *s)
{
    if (!s->have_pairs || s->gathered_vertex_count != s->vertex_count || s->gathered_object_count != s->object_count)
        return false;
    for (int32_t v = 0; v < s->vertex_count; v++)
        if (!inside(&s->gathered[v], s->x0[v], s->slack) || !inside(&s->gathered[v], s->x1[v], s->slack))
            return false;
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

/* Feature pairs of triangle ta of cloth oa and tb of ob: each object's owned vertices
 * against the other's face, each owned edge against each owned edge; features sharing a
 * vertex are skipped. Pairs that take part in proximity are kept while their path boxes come
 * within the contact distance plus the slack of both; the others (a cloth vertex on a collider
 * face, held by the contact filters; smooth collider features, see collision.h; features of
 * one cloth near at rest, see rest_neighbours.h) while those boxes come within the detection
 * tolerance plus the slack. */
static void triangle_pair(const collision_scratch *s, int32_t oa, int32_t ta, int32_t ob, int32_t tb, pair_buffer *out)
{
    const object_ref *A = &s->objects[oa], *B = &s->objects[ob];
    const int32_t *a = &A->triangles[3 * (size_t)ta], *b = &B->triangles[3 * (size_t)tb];
    bool same = oa == ob, collider = !B->is_cloth;
    int32_t fa = A->first, fb = B->first, ab[2] = {oa, ob}, ba[2] = {ob, oa};
    double d = same ? 2.0 * A->self_thickness : A->thickness + B->thickness;
    double near_gap = d + 2.0 * s->slack, touch_gap = detection_tolerance(d) + 2.0 * s->slack;
    const aabb *va[3], *vb[3];
    for (int k = 0; k < 3; k++) va[k] = &s->gathered[fa + a[k]], vb[k] = &s->gathered[fb + b[k]];
    aabb face_a = aabb_union(aabb_union(*va[0], *va[1]), *va[2]);
    aabb face_b = aabb_union(aabb_union(*vb[0], *vb[1]), *vb[2]);
    bool any_near = !collider;
    for (int k = 0; k < 3 && !any_near; k++)
        any_near = B->sharp_vertex[b[k]] || B->sharp_edge[B->topo->triangle_edges[3 * (size_t)tb + k]];
    if (box_gap(&face_a, &face_b) > (any_near ? near_gap : touch_gap)) return;
    for (int k = 0; k < 3; k++) {
        if (topology_owns_vertex(A->topo, ta, k) && !(same && triangle_has_vertex(b, a[k]))) {
            int32_t v[4] = {fa + a[k], fb + b[0], fb + b[1], fb + b[2]};
            double gap = box_gap(va[k], &face_b);
            if (gap <= near_gap) {
                bool near = !collider && !(same && rest_near_vertex_face(A->near_at_rest, a[k], tb));
                consider_pair(out, false, near, 2 * k, v, ab, ta, tb, gap, near_gap, touch_gap);
            }
        }
        if (topology_owns_vertex(B->topo, tb, k) && !(same && triangle_has_vertex(a, b[k]))) {
            int32_t v[4] = {fb + b[k], fa + a[0], fa + a[1], fa + a[2]};
            double gap = box_gap(vb[k], &face_a);
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
        for (int j = 0; j < 3; j++) {
            if (!topology_owns_edge(B->topo, tb, j)) continue;
            int32_t b0 = b[j], b1 = b[(j + 1) % 3];
            if (same && (a0 == b0 || a0 == b1 || a1 == b0 || a1 == b1)) continue;
            aabb edge_b = aabb_union(*vb[j], *vb[(j + 1) % 3]);
            double gap = box_gap(&edge_a, &edge_b);
            if (gap > near_gap) continue;
            int32_t ea = A->topo->triangle_edges[3 * (size_t)ta + i], eb = B->topo->triangle_edges[3 * (size_t)tb + j];
            bool near = collider ? B->sharp_edge[eb] : !(same && rest_near_edges(A->near_at_rest, ea, eb));
            int32_t v[4] = {fa + a0, fa + a1, fb + b0, fb + b1};
            consider_pair(out, true, near, 6 + 3 * i + j, v, ab, ta, tb, gap, near_gap, touch_gap);
        }
    }
}

static void collect_hit(void *ctx, int32_t prim)
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

/* The box triangle ta of cloth oa looks for object ob's triangles with: a collider's boxes
 * carry its thickness only, so the cloth's box brings the slack of both; a cloth's own boxes
 * are grown for a thicker distance than its self pairs need. */
static aabb query_box(const collision_scratch *s, int32_t oa, int32_t ob, int32_t ta)
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
        aabb query = query_box(s, oa, ob, ta);
        out->hit_count = 0;
        bvh_query(B->tree, &query, collect_hit, out);
        if (oa == ob) { /* each pair of the cloth's own triangles once, from the lower */
            int32_t kept = 0;
            for (int32_t h = 0; h < out->hit_count; h++)
                if (out->hits[h] > ta) out->hits[kept++] = out->hits[h];
            out->hit_count = kept;
        }
        sort_hits(out);
        for (int32_t h = 0; h < out->hit_count; h++) triangle_pair(s, oa, ta, ob, out->hits[h], out);
    }
}

static bool reserve_buffers(collision_scratch *s, int32_t count)
{
    if (count <= s->buffer_count) return true;
    pair_buffer *grown = realloc(s->buffers, (size_t)count * sizeof *grown);
    if (!grown) return false;
    memset(grown + s->buffer_count, 0, (size_t)(count - s->buffer_count) * sizeof *grown);
    s->buffers = grown;
    s->buffer_count = count;
    return true;
}

/* Pairs of cloth oa with object ob, appended to s->pairs in triangle order. */
static bool pairs_of_objects(collision_scratch *s, int32_t oa, int32_t ob)
{
    int32_t triangles = s->objects[oa].triangle_count, threads = thread_count(), used = 1;
    if (!reserve_buffers(s, threads)) return false;
    for (int32_t i = 0; i < threads; i++) s->buffers[i].count = 0, s->buffers[i].out_of_memory = false;
#pragma omp parallel num_threads(threads) if (triangles > 512)
    {
        int32_t id = thread_index(), team = team_size();
        if (id == 0) used = team;
        int32_t begin = (int32_t)((int64_t)triangles * id / team), end = (int32_t)((int64_t)triangles * (id + 1) / team);
        pairs_of_range(s, oa, ob, begin, end, &s->buffers[id]);
    }
    for (int32_t i = 0; i < used; i++) {
        pair_buffer *b = &s->buffers[i];
        if (b->out_of_memory || !grow((void **)&s->pairs, &s->pair_capacity, s->pair_count + b->count, sizeof *s->pairs))
            return false;
        if (b->count > 0) memcpy(&s->pairs[s->pair_count], b->pairs, (size_t)b->count * sizeof *b->pairs);
        s->pair_count += b->count;
    }
    return true;
}

/* A cloth triangle's box: its vertices' path boxes, grown for the distances its pairs need. */
static void set_triangle_box(const collision_scratch *s, object_ref *obj, int32_t t)
{
    const int32_t *tri = &obj->triangles[3 * (size_t)t];
    aabb box = aabb_union(aabb_union(s->gathered[obj->first + tri[0]], s->gathered[obj->first + tri[1]]),
                          s->gathered[obj->first + tri[2]]);
    obj->boxes[t] = aabb_inflate(box, fmax(obj->thickness, obj->self_thickness) + s->slack);
}

bool pairs_gather(collision_scratch *s)
{
    s->have_pairs = false;
    s->pair_count = 0;
    if (!grow((void **)&s->gathered, &s->gathered_capacity, s->vertex_count, sizeof *s->gathered))
        return false;
    s->slack = INFINITY;
    for (int32_t o = 0; o < s->object_count; o++)
        if (s->objects[o].is_cloth) s->slack = fmin(s->slack, GATHER_SLACK * s->objects[o].thickness);
    for (int32_t v = 0; v < s->vertex_count; v++) s->gathered[v] = path_box(s->x0[v], s->x1[v]);
    /* a collider's tree was built for this step's paths (collider_prepare_step) */
    for (int32_t o = 0; o < s->object_count; o++) {
        object_ref *obj = &s->objects[o];
        if (!obj->is_cloth) continue;
        for (int32_t t = 0; t < obj->triangle_count; t++) set_triangle_box(s, obj, t);
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

/* --- updates ------------------------------------------------------------------------------ */

/* An update gathers again when more than this fraction of the cloth triangles have a strayed
 * vertex, or after this many updates (boxes only grow between gatherings). */
#define UPDATE_MAX_FRACTION 0.25
enum { UPDATE_MAX_IN_ROW = 8 };

/* The triangle pair's objects: the cloth's first (a vertex of the other object on the cloth's
 * face lists the other object first). */
static int32_t cloth_object(const feature_pair *p) { return p->feature < 6 && (p->feature & 1) ? p->objects[1] : p->objects[0]; }
static int32_t other_object(const feature_pair *p) { return p->feature < 6 && (p->feature & 1) ? p->objects[0] : p->objects[1]; }

/* The order pairs_gather makes: cloth, other object, triangle, its triangle, feature. */
static int compare_pairs(const void *pa, const void *pb)
{
    const feature_pair *a = pa, *b = pb;
    int32_t ca = cloth_object(a), cb = cloth_object(b);
    if (ca != cb) return ca < cb ? -1 : 1;
    int32_t oa = other_object(a), ob = other_object(b);
    if (oa != ob) return oa < ob ? -1 : 1;
    if (a->ta != b->ta) return a->ta < b->ta ? -1 : 1;
    if (a->tb != b->tb) return a->tb < b->tb ? -1 : 1;
    return (a->feature > b->feature) - (a->feature < b->feature);
}

static bool triangle_strayed(const collision_scratch *s, const object_ref *obj, int32_t t)
{
    const int32_t *tri = &obj->triangles[3 * (size_t)t];
    return s->strayed[obj->first + tri[0]] | s->strayed[obj->first + tri[1]] | s->strayed[obj->first + tri[2]];
}

/* Pairs with a strayed vertex of triangle ta of cloth oa against object ob (for the cloth
 * itself, each triangle pair once: from the strayed triangle, or from the first of two). */
static void strayed_pairs_of(const collision_scratch *s, int32_t oa, int32_t ta, int32_t ob, bool from_other,
                             pair_buffer *out)
{
    const object_ref *B = &s->objects[ob];
    aabb query = query_box(s, oa, ob, ta);
    out->hit_count = 0;
    bvh_query(B->tree, &query, collect_hit, out);
    int32_t hit_count = out->hit_count;
    for (int32_t h = 0; h < hit_count && !out->out_of_memory; h++) {
        int32_t tb = out->hits[h];
        if (oa == ob && (tb == ta || (triangle_strayed(s, B, tb) && tb < ta))) continue;
        if (from_other && triangle_strayed(s, B, tb)) continue; /* found from that one's side */
        int32_t before = out->count;
        if (from_other) triangle_pair(s, ob, tb, oa, ta, out);
        else if (oa == ob && tb < ta) triangle_pair(s, oa, tb, oa, ta, out);
        else triangle_pair(s, oa, ta, ob, tb, out);
        /* pairs without a strayed vertex are already listed, decided on the same boxes */
        int32_t kept = before;
        for (int32_t k = before; k < out->count; k++)
            if (any_marked(s->strayed, &out->pairs[k])) out->pairs[kept++] = out->pairs[k];
        out->count = kept;
    }
}

bool pairs_refresh(collision_scratch *s)
{
    if (!s->have_pairs || s->gathered_vertex_count != s->vertex_count || s->gathered_object_count != s->object_count ||
        s->updates_since_gathering >= UPDATE_MAX_IN_ROW)
        return pairs_gather(s);
    if (!grow((void **)&s->strayed, &s->strayed_capacity, s->vertex_count, 1)) return false;
    for (int32_t v = 0; v < s->vertex_count; v++)
        s->strayed[v] = !inside(&s->gathered[v], s->x0[v], s->slack) || !inside(&s->gathered[v], s->x1[v], s->slack);
    int64_t triangles = 0, strayed_triangles = 0;
    for (int32_t o = 0; o < s->object_count; o++) {
        const object_ref *obj = &s->objects[o];
        if (!obj->is_cloth) continue;
        triangles += obj->triangle_count;
        for (int32_t t = 0; t < obj->triangle_count; t++) strayed_triangles += triangle_strayed(s, obj, t);
    }
    bool collider_moved = false;
    for (int32_t o = 0; o < s->object_count && !collider_moved; o++) {
        const object_ref *obj = &s->objects[o];
        if (obj->is_cloth) continue;
        int32_t end = o + 1 < s->object_count ? s->objects[o + 1].first : s->vertex_count;
        for (int32_t v = obj->first; v < end && !collider_moved; v++) collider_moved = s->strayed[v];
    }
    if (collider_moved || (double)strayed_triangles > UPDATE_MAX_FRACTION * (double)triangles) return pairs_gather(s);

    /* the strayed vertices' boxes grow to hold their paths now; their triangles' boxes follow */
    for (int32_t v = 0; v < s->vertex_count; v++)
        if (s->strayed[v]) s->gathered[v] = aabb_union(s->gathered[v], path_box(s->x0[v], s->x1[v]));
    for (int32_t o = 0; o < s->object_count; o++) {
        object_ref *obj = &s->objects[o];
        if (!obj->is_cloth) continue;
        for (int32_t t = 0; t < obj->triangle_count; t++)
            if (triangle_strayed(s, obj, t)) set_triangle_box(s, obj, t);
        bvh_refit(obj->tree, obj->boxes);
    }
    /* the listed pairs with a strayed vertex go; those of the new boxes come, sorted in */
    int32_t kept = 0;
    for (int32_t k = 0; k < s->pair_count; k++)
        if (!any_marked(s->strayed, &s->pairs[k])) s->pairs[kept++] = s->pairs[k];
    s->pair_count = kept;
    if (!reserve_buffers(s, 1)) return false;
    pair_buffer *fresh = &s->buffers[0];
    fresh->count = 0, fresh->out_of_memory = false;
    for (int32_t oa = 0; oa < s->object_count; oa++) {
        const object_ref *A = &s->objects[oa];
        if (!A->is_cloth) continue;
        for (int32_t ob = oa; ob < s->object_count; ob++) {
            const object_ref *B = &s->objects[ob];
            if (ob == oa && !A->self) continue;
            for (int32_t ta = 0; ta < A->triangle_count; ta++)
                if (triangle_strayed(s, A, ta)) strayed_pairs_of(s, oa, ta, ob, false, fresh);
            if (ob != oa && B->is_cloth) /* strayed triangles of the other cloth against clean ones */
                for (int32_t tb = 0; tb < B->triangle_count; tb++)
                    if (triangle_strayed(s, B, tb)) strayed_pairs_of(s, ob, tb, oa, true, fresh);
        }
    }
    if (fresh->out_of_memory) return false;
    if (fresh->count > 1) qsort(fresh->pairs, (size_t)fresh->count, sizeof *fresh->pairs, compare_pairs);
    if (!grow((void **)&s->pairs, &s->pair_capacity, s->pair_count + fresh->count, sizeof *s->pairs)) return false;
    /* merge from the back, in place */
    int32_t i = s->pair_count - 1, j = fresh->count - 1, to = s->pair_count + fresh->count - 1;
    while (j >= 0) {
        if (i >= 0 && compare_pairs(&s->pairs[i], &fresh->pairs[j]) > 0) s->pairs[to--] = s->pairs[i--];
        else s->pairs[to--] = fresh->pairs[j--];
    }
    s->pair_count += fresh->count;
    s->updates_since_gathering++;
    s->update_count++;
    return true;
}

void pairs_free(collision_scratch *s)
{
    for (int32_t i = 0; i < s->buffer_count; i++) free(s->buffers[i].pairs), free(s->buffers[i].hits), free(s->buffers[i].bits);
    free(s->buffers), free(s->pairs), free(s->gathered), free(s->flagged), free(s->strayed);
}
