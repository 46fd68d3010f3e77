/* Updates of the candidate pairs when a few vertices strayed from their boxes: only their
 * boxes grow, and only the pairs they are in are gathered again and sorted into the list,
 * which becomes the same list a whole gathering with those boxes would make.
 * The strayed triangles' queries are shared out among threads; the triangle pairs they find
 * are sorted, and their feature pairs made in that order, chunk by chunk in parallel, so the
 * new pairs come sorted whatever the number of threads. */
#include <stdlib.h>
#include <string.h>

#include "collision_scratch.h"
#include "grow.h"
#include "sort.h"
#include "threads.h"

/* An update gathers again when more than this fraction of the cloth triangles have a strayed
 * vertex, or after this many updates (boxes only grow between gatherings). */
#define UPDATE_MAX_FRACTION 0.25
enum { UPDATE_MAX_IN_ROW = 8 };

/* The order pairs_gather makes: cloth, other object, triangle, its triangle, feature. The
 * cloth comes first: a vertex of the other object on the cloth's face lists the other object
 * first. Branch-free, as the merge compares every listed pair. */
static int compare_pairs(const feature_pair *a, const feature_pair *b)
{
    int sa = (a->feature < 6) & (a->feature & 1), sb = (b->feature < 6) & (b->feature & 1);
    uint64_t oa = (uint64_t)(uint32_t)a->objects[sa] << 32 | (uint32_t)a->objects[sa ^ 1];
    uint64_t ob = (uint64_t)(uint32_t)b->objects[sb] << 32 | (uint32_t)b->objects[sb ^ 1];
    uint64_t ta = (uint64_t)(uint32_t)a->ta << 32 | (uint32_t)a->tb, tb = (uint64_t)(uint32_t)b->ta << 32 | (uint32_t)b->tb;
    if (oa != ob) return oa < ob ? -1 : 1;
    if (ta != tb) return ta < tb ? -1 : 1;
    return (a->feature > b->feature) - (a->feature < b->feature);
}

static bool triangle_strayed(const collision_scratch *s, const object_ref *obj, int32_t t)
{
    const int32_t *tri = &obj->triangles[3 * (size_t)t];
    return s->strayed[obj->first + tri[0]] | s->strayed[obj->first + tri[1]] | s->strayed[obj->first + tri[2]];
}

/* A triangle pair as first * seconds + second (first of the lower object, second of the
 * higher, which has `seconds` triangles): ordered as the pairs are, in few bits to sort. */
static void add_key(pair_buffer *out, int32_t first, int32_t second, int32_t seconds)
{
    if (!grow((void **)&out->keys, &out->key_capacity, out->key_count + 1, sizeof *out->keys)) {
        out->out_of_memory = true;
        return;
    }
    out->keys[out->key_count++] = (uint64_t)first * (uint64_t)seconds + (uint64_t)second;
}

/* The triangle pairs with strayed triangle ta of cloth oa against object ob, as keys. For
 * the cloth itself each triangle pair comes once: from the strayed triangle, or from the
 * first of two; with `from_other`, oa is the higher of two cloths and only its pairs with
 * clean triangles of ob come (the others come from ob's strayed triangles). */
static void strayed_keys(const collision_scratch *s, int32_t oa, int32_t ta, int32_t ob, bool from_other, pair_buffer *out)
{
    const object_ref *B = &s->objects[ob];
    int32_t seconds = s->objects[from_other ? oa : ob].triangle_count;
    aabb query = pairs_query_box(s, oa, ob, ta);
    out->hit_count = 0;
    bvh_query(B->tree, &query, pairs_collect_hit, out);
    for (int32_t h = 0; h < out->hit_count && !out->out_of_memory; h++) {
        int32_t tb = out->hits[h];
        if (oa == ob && (tb == ta || (triangle_strayed(s, B, tb) && tb < ta))) continue;
        if (from_other && triangle_strayed(s, B, tb)) continue;
        if (from_other || (oa == ob && tb < ta)) add_key(out, tb, ta, seconds);
        else add_key(out, ta, tb, seconds);
    }
}

/* The feature pairs with a strayed vertex of the sorted triangle pairs [begin, end) of cloth
 * oa and object ob (the others are listed already, decided on the same boxes). */
static void strayed_pairs_of_keys(const collision_scratch *s, int32_t oa, int32_t ob, const uint64_t *keys,
                                  int32_t begin, int32_t end, pair_buffer *out)
{
    uint64_t seconds = (uint64_t)s->objects[ob].triangle_count;
    for (int32_t k = begin; k < end && !out->out_of_memory; k++) {
        int32_t before = out->count;
        pairs_of_triangles(s, oa, (int32_t)(keys[k] / seconds), ob, (int32_t)(keys[k] % seconds), out);
        int32_t kept = before;
        for (int32_t i = before; i < out->count; i++)
            if (any_marked(s->strayed, &out->pairs[i])) out->pairs[kept++] = out->pairs[i];
        out->count = kept;
    }
}

/* The strayed triangles' pairs of cloth oa with object ob, appended to s->fresh in order. */
static bool fresh_pairs_of_objects(collision_scratch *s, int32_t oa, int32_t ob)
{
    const object_ref *A = &s->objects[oa], *B = &s->objects[ob];
    bool other_cloth = ob != oa && B->is_cloth;
    int32_t count = A->triangle_count + (other_cloth ? B->triangle_count : 0), from_a = 0, strayed = 0;
    if (!grow((void **)&s->strayed_triangles, &s->strayed_triangle_capacity, count, sizeof *s->strayed_triangles))
        return false;
    for (int32_t t = 0; t < A->triangle_count; t++)
        if (triangle_strayed(s, A, t)) s->strayed_triangles[strayed++] = t;
    from_a = strayed;
    for (int32_t t = 0; other_cloth && t < B->triangle_count; t++)
        if (triangle_strayed(s, B, t)) s->strayed_triangles[strayed++] = t;

    int32_t chunks = chunk_count(strayed);
    if (!pairs_reserve_buffers(s, chunks)) return false;
#pragma omp parallel for schedule(dynamic, 1) if (chunks > 1)
    for (int32_t c = 0; c < chunks; c++) {
        int32_t end = chunk_start(strayed, c + 1, chunks);
        for (int32_t i = chunk_start(strayed, c, chunks); i < end; i++) {
            if (i < from_a) strayed_keys(s, oa, s->strayed_triangles[i], ob, false, &s->buffers[c]);
            else strayed_keys(s, ob, s->strayed_triangles[i], oa, true, &s->buffers[c]);
        }
    }
    int64_t keys = 0;
    for (int32_t c = 0; c < chunks; c++) {
        if (s->buffers[c].out_of_memory) return false;
        keys += s->buffers[c].key_count;
    }
    if (keys == 0) return true;
    if (keys > INT32_MAX / 2 || !grow((void **)&s->keys, &s->key_capacity, 2 * (int32_t)keys, sizeof *s->keys))
        return false;
    int32_t key_count = 0;
    for (int32_t c = 0; c < chunks; c++) {
        const pair_buffer *b = &s->buffers[c];
        if (b->key_count > 0) memcpy(&s->keys[key_count], b->keys, (size_t)b->key_count * sizeof *b->keys);
        key_count += b->key_count;
    }
    radix_sort_u64(s->keys, s->keys + key_count, key_count, (uint64_t)A->triangle_count * (uint64_t)B->triangle_count);

    chunks = chunk_count(key_count);
    if (!pairs_reserve_buffers(s, chunks)) return false;
#pragma omp parallel for schedule(dynamic, 1) if (chunks > 1)
    for (int32_t c = 0; c < chunks; c++) {
        strayed_pairs_of_keys(s, oa, ob, s->keys, chunk_start(key_count, c, chunks), chunk_start(key_count, c + 1, chunks),
                              &s->buffers[c]);
    }
    return pairs_append_buffers(s, chunks, &s->fresh, &s->fresh_count, &s->fresh_capacity);
}

/* The listed pairs without a strayed vertex and the new ones, merged in order into the spare
 * array, which then becomes the list. */
static bool merge_fresh(collision_scratch *s)
{
    int64_t most = (int64_t)s->pair_count + s->fresh_count;
    if (most > INT32_MAX || !grow((void **)&s->spare, &s->spare_capacity, (int32_t)most, sizeof *s->spare)) return false;
    const feature_pair *listed = s->pairs, *fresh = s->fresh;
    feature_pair *out = s->spare;
    int32_t j = 0, n = 0;
    for (int32_t i = 0; i < s->pair_count; i++) {
        if (any_marked(s->strayed, &listed[i])) continue;
        while (j < s->fresh_count && compare_pairs(&fresh[j], &listed[i]) < 0) out[n++] = fresh[j++];
        out[n++] = listed[i];
    }
    while (j < s->fresh_count) out[n++] = fresh[j++];
    feature_pair *pairs = s->pairs;
    int32_t capacity = s->pair_capacity;
    s->pairs = s->spare, s->pair_capacity = s->spare_capacity, s->pair_count = n;
    s->spare = pairs, s->spare_capacity = capacity;
    return true;
}

bool pairs_refresh(collision_scratch *s)
{
    if (!s->have_pairs || s->gathered_vertex_count != s->vertex_count || s->gathered_object_count != s->object_count ||
        s->updates_since_gathering >= UPDATE_MAX_IN_ROW)
        return pairs_gather(s);
    /* strands' pairs (collision_strand_pairs.c) come from segments, which the updates below
     * do not know: with strands in the response, every refresh is a whole gathering */
    for (int32_t o = 0; o < s->object_count; o++)
        if (object_is_strands(&s->objects[o])) return pairs_gather(s);
    if (!grow((void **)&s->strayed, &s->strayed_capacity, s->vertex_count, 1)) return false;
    for (int32_t v = 0; v < s->vertex_count; v++) s->strayed[v] = !path_within_box(s, v);
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
        if (s->strayed[v]) {
            s->gathered[v] = aabb_union(s->gathered[v], path_box(s->x0[v], s->x1[v]));
            anchor_path(s, v);
        }
    for (int32_t o = 0; o < s->object_count; o++) {
        object_ref *obj = &s->objects[o];
        if (!obj->is_cloth) continue;
        for (int32_t t = 0; t < obj->triangle_count; t++)
            if (triangle_strayed(s, obj, t)) pairs_set_triangle_box(s, obj, t);
        bvh_refit(obj->tree, obj->boxes);
    }
    /* the listed pairs with a strayed vertex go; those of the new boxes come, sorted in */
    s->fresh_count = 0;
    for (int32_t oa = 0; oa < s->object_count; oa++) {
        if (!s->objects[oa].is_cloth) continue;
        for (int32_t ob = oa; ob < s->object_count; ob++)
            if (objects_meet(s, oa, ob) && !fresh_pairs_of_objects(s, oa, ob)) return false;
    }
    if (!merge_fresh(s)) return false;
    s->updates_since_gathering++;
    s->update_count++;
    return true;
}
