/* Counting intersecting triangle pairs exactly: what the collision tests and the cloth
 * quality benchmark judge a result by. Not part of the library, which never needs the count
 * (its guarantee is that no step starts one). */
#include "intersections.h"

#include <stdlib.h>

#include "collision_geometry.h"

typedef struct intersection_context {
    const double *xa, *xb;
    const int32_t *ta, *tb;
    bool same;
    int64_t count;
} intersection_context;

static void intersect_pair(void *ctx, int32_t a, int32_t b)
{
    intersection_context *ic = ctx;
    const int32_t *ia = &ic->ta[3 * (size_t)a], *ib = &ic->tb[3 * (size_t)b];
    vec3 pa[3], pb[3];
    unsigned shared_a = 0, shared_b = 0;
    for (int k = 0; k < 3; k++) {
        pa[k] = v3_load(&ic->xa[3 * (size_t)ia[k]]);
        pb[k] = v3_load(&ic->xb[3 * (size_t)ib[k]]);
        if (ic->same)
            for (int j = 0; j < 3; j++)
                if (ia[k] == ib[j]) shared_a |= 1u << k, shared_b |= 1u << j;
    }
    if (triangles_intersect(pa, pb, shared_a, shared_b)) ic->count++;
}

static bool static_tree(bvh *tree, aabb **boxes, const double *x, const int32_t *tris, int32_t count)
{
    *boxes = malloc(((size_t)count + 1) * sizeof **boxes);
    if (!*boxes) return false;
    for (int32_t t = 0; t < count; t++) {
        aabb box = aabb_empty();
        for (int k = 0; k < 3; k++) box = aabb_add_point(box, v3_load(&x[3 * (size_t)tris[3 * t + k]]));
        (*boxes)[t] = aabb_inflate(box, 1e-12);
    }
    return bvh_build(tree, *boxes, count);
}

int64_t count_intersections(cloth *const *cloths, int32_t cloth_count, collider *const *colliders,
                            int32_t collider_count, bool include_self)
{
    int32_t objects = cloth_count + collider_count;
    bvh *trees = calloc((size_t)objects + 1, sizeof *trees);
    aabb **boxes = calloc((size_t)objects + 1, sizeof *boxes);
    int64_t total = -1;
    if (!trees || !boxes) goto done;
    for (int32_t i = 0; i < objects; i++) {
        bool ok = i < cloth_count
                      ? static_tree(&trees[i], &boxes[i], cloths[i]->state.x, cloths[i]->model.triangles,
                                    cloths[i]->model.triangle_count)
                      : static_tree(&trees[i], &boxes[i], colliders[i - cloth_count]->scratch.x1,
                                    colliders[i - cloth_count]->model.triangles,
                                    colliders[i - cloth_count]->model.triangle_count);
        if (!ok) goto done;
    }
    total = 0;
    for (int32_t a = 0; a < cloth_count; a++) {
        const cloth_model *m = &cloths[a]->model;
        intersection_context ic = {cloths[a]->state.x, cloths[a]->state.x, m->triangles, m->triangles, true, 0};
        bool ok = !include_self || bvh_self_pairs(&trees[a], intersect_pair, &ic);
        ic.same = false;
        for (int32_t b = a + 1; b < objects && ok; b++) {
            bool is_cloth = b < cloth_count;
            ic.xb = is_cloth ? cloths[b]->state.x : colliders[b - cloth_count]->scratch.x1;
            ic.tb = is_cloth ? cloths[b]->model.triangles : colliders[b - cloth_count]->model.triangles;
            ok = bvh_tree_pairs(&trees[a], &trees[b], intersect_pair, &ic);
        }
        if (!ok) { /* out of memory: no count rather than too low a one */
            total = -1;
            goto done;
        }
        total += ic.count;
    }
done:
    for (int32_t i = 0; trees && boxes && i < objects; i++) {
        bvh_free(&trees[i]);
        free(boxes[i]);
    }
    free(trees);
    free(boxes);
    return total;
}
