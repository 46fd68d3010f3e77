#include "collision_bvh.h"

#include <stdlib.h>
#include <string.h>

#include "grow.h"

enum { LEAF_SIZE = 4 };

static vec3 centroid(const aabb *b) { return v3_scale(v3_add(b->lo, b->hi), 0.5); }

/* Reorders prims[lo..hi) so that prims[k] has the k-th smallest centroid along `axis`. */
static void select_kth(int32_t *prims, const aabb *boxes, int32_t lo, int32_t hi, int32_t k, int axis)
{
    while (hi - lo > 1) {
        int32_t mid = lo + (hi - lo) / 2;
        double pivot = v3_comp(centroid(&boxes[prims[mid]]), axis);
        int32_t i = lo, j = hi - 1;
        while (i <= j) {
            while (v3_comp(centroid(&boxes[prims[i]]), axis) < pivot) i++;
            while (v3_comp(centroid(&boxes[prims[j]]), axis) > pivot) j--;
            if (i <= j) {
                int32_t tmp = prims[i];
                prims[i++] = prims[j];
                prims[j--] = tmp;
            }
        }
        if (k <= j) hi = j + 1;
        else if (k >= i) lo = i;
        else return;
    }
}

static int32_t build_node(bvh *t, int32_t lo, int32_t hi)
{
    int32_t id = t->node_count++;
    bvh_node *node = &t->nodes[id];
    aabb box = aabb_empty(), centers = aabb_empty();
    for (int32_t i = lo; i < hi; i++) {
        box = aabb_union(box, t->boxes[t->prims[i]]);
        centers = aabb_add_point(centers, centroid(&t->boxes[t->prims[i]]));
    }
    node->box = box;
    if (hi - lo <= LEAF_SIZE) {
        node->count = hi - lo;
        node->index = lo;
        return id;
    }
    vec3 extent = v3_sub(centers.hi, centers.lo);
    int axis = extent.x >= extent.y && extent.x >= extent.z ? 0 : (extent.y >= extent.z ? 1 : 2);
    int32_t mid = lo + (hi - lo) / 2;
    select_kth(t->prims, t->boxes, lo, hi, mid, axis);
    node->count = 0;
    build_node(t, lo, mid); /* left child is id + 1 */
    int32_t right = build_node(t, mid, hi);
    t->nodes[id].index = right; /* nodes may not move, but re-fetch for clarity */
    return id;
}

static double inner_area(const bvh *t)
{
    double sum = 0.0;
    for (int32_t i = 0; i < t->node_count; i++)
        if (t->nodes[i].count == 0) sum += aabb_half_area(&t->nodes[i].box);
    return sum;
}

bool bvh_reserve(bvh *t, int32_t count)
{
    return grow((void **)&t->nodes, &t->node_capacity, 2 * count + 1, sizeof *t->nodes) &&
           grow((void **)&t->prims, &t->prim_capacity, count + 1, sizeof *t->prims);
}

bool bvh_build(bvh *t, const aabb *boxes, int32_t count)
{
    if (!bvh_reserve(t, count)) return false;
    t->node_count = 0;
    t->prim_count = count;
    t->boxes = boxes;
    t->built = true;
    for (int32_t i = 0; i < count; i++) t->prims[i] = i;
    if (count > 0) build_node(t, 0, count);
    bvh_set_last(t);
    t->built_area = inner_area(t);
    return true;
}

void bvh_refit(bvh *t, const aabb *boxes)
{
    t->boxes = boxes;
    /* children follow their parent in the array, so a backwards sweep sees them first */
    for (int32_t i = t->node_count - 1; i >= 0; i--) {
        bvh_node *node = &t->nodes[i];
        if (node->count > 0) {
            aabb box = aabb_empty();
            for (int32_t k = 0; k < node->count; k++) box = aabb_union(box, boxes[t->prims[node->index + k]]);
            node->box = box;
        } else {
            node->box = aabb_union(t->nodes[i + 1].box, t->nodes[node->index].box);
        }
    }
}

void bvh_set_last(bvh *t)
{
    for (int32_t i = t->node_count - 1; i >= 0; i--) { /* children after their parent */
        bvh_node *node = &t->nodes[i];
        int32_t last = -1;
        if (node->count > 0) {
            for (int32_t k = 0; k < node->count; k++) last = t->prims[node->index + k] > last ? t->prims[node->index + k] : last;
        } else {
            int32_t left = t->nodes[i + 1].last, right = t->nodes[node->index].last;
            last = left > right ? left : right;
        }
        node->last = last;
    }
}

bool bvh_update(bvh *t, const aabb *boxes, int32_t count)
{
    if (t->built && count == t->prim_count) {
        bvh_refit(t, boxes);
        if (inner_area(t) <= 2.0 * t->built_area + 1e-300) return true;
    }
    return bvh_build(t, boxes, count);
}

void bvh_free(bvh *t)
{
    free(t->nodes);
    free(t->prims);
    free(t->stack);
    memset(t, 0, sizeof *t);
}

static bool push(bvh *t, int32_t *top, int32_t a, int32_t b)
{
    if (!grow((void **)&t->stack, &t->stack_capacity, *top + 1, sizeof *t->stack)) return false;
    t->stack[(*top)++] = (bvh_pair){a, b};
    return true;
}

static void leaf_pairs(const bvh *t, const bvh_node *na, const bvh *u, const bvh_node *nb, bool same,
                       bvh_pair_fn report, void *ctx)
{
    for (int32_t i = 0; i < na->count; i++) {
        int32_t pa = t->prims[na->index + i];
        for (int32_t j = same ? i + 1 : 0; j < nb->count; j++) {
            int32_t pb = u->prims[nb->index + j];
            if (aabb_overlap(&t->boxes[pa], &u->boxes[pb])) report(ctx, pa, pb);
        }
    }
}

/* Descends pairs of nodes (i of t, j of u); i == j with t == u means "within node i". */
static bool traverse(bvh *t, const bvh *u, bvh_pair_fn report, void *ctx)
{
    if (t->node_count == 0 || u->node_count == 0) return true;
    bool self = t == u;
    int32_t top = 0;
    if (!push(t, &top, 0, 0)) return false;
    while (top > 0) {
        bvh_pair p = t->stack[--top];
        const bvh_node *a = &t->nodes[p.a], *b = &u->nodes[p.b];
        if (self && p.a == p.b) {
            if (a->count > 0) {
                leaf_pairs(t, a, u, b, true, report, ctx);
            } else if (!push(t, &top, p.a + 1, p.a + 1) || !push(t, &top, a->index, a->index) ||
                       !push(t, &top, p.a + 1, a->index)) {
                return false;
            }
            continue;
        }
        if (!aabb_overlap(&a->box, &b->box)) continue;
        if (a->count > 0 && b->count > 0) {
            leaf_pairs(t, a, u, b, false, report, ctx);
        } else if (b->count > 0 || (a->count == 0 && aabb_half_area(&a->box) >= aabb_half_area(&b->box))) {
            if (!push(t, &top, p.a + 1, p.b) || !push(t, &top, a->index, p.b)) return false;
        } else {
            if (!push(t, &top, p.a, p.b + 1) || !push(t, &top, p.a, b->index)) return false;
        }
    }
    return true;
}

bool bvh_self_pairs(bvh *t, bvh_pair_fn report, void *ctx) { return traverse(t, t, report, ctx); }

bool bvh_tree_pairs(bvh *t, const bvh *u, bvh_pair_fn report, void *ctx) { return traverse(t, u, report, ctx); }

static void query(const bvh *t, const aabb *box, int32_t above, bvh_prim_fn report, void *ctx)
{
    if (t->node_count == 0) return;
    int32_t stack[BVH_MAX_DEPTH + 2], top = 0; /* holds at most one node per level, and the root */
    stack[top++] = 0;
    while (top > 0) {
        const bvh_node *node = &t->nodes[stack[--top]];
        if (node->last <= above || !aabb_overlap(&node->box, box)) continue;
        if (node->count > 0) {
            for (int32_t k = 0; k < node->count; k++) {
                int32_t prim = t->prims[node->index + k];
                if (prim > above && aabb_overlap(&t->boxes[prim], box)) report(ctx, prim);
            }
        } else {
            stack[top++] = (int32_t)(node - t->nodes) + 1;
            stack[top++] = node->index;
        }
    }
}

void bvh_query(const bvh *t, const aabb *box, bvh_prim_fn report, void *ctx) { query(t, box, -1, report, ctx); }

void bvh_query_above(const bvh *t, const aabb *box, int32_t above, bvh_prim_fn report, void *ctx)
{
    query(t, box, above, report, ctx);
}

/* Slab test: the part of [0, t_max] in which o + t dir lies inside the box; false if none.
 * inv is 1 / dir, ±inf along an axis the ray keeps. */
static bool ray_enters(const aabb *b, vec3 o, vec3 inv, double t_max, double *t_enter)
{
    double lo = 0.0, hi = t_max;
    for (int a = 0; a < 3; a++) {
        double origin = v3_comp(o, a), box_lo = v3_comp(b->lo, a), box_hi = v3_comp(b->hi, a);
        if (isinf(v3_comp(inv, a))) { /* parallel to the slab: inside it or never (no 0 x inf) */
            if (origin < box_lo || origin > box_hi) return false;
            continue;
        }
        double t0 = (box_lo - origin) * v3_comp(inv, a), t1 = (box_hi - origin) * v3_comp(inv, a);
        if (t0 > t1) { double swap = t0; t0 = t1; t1 = swap; }
        if (t0 > lo) lo = t0;
        if (t1 < hi) hi = t1;
        if (lo > hi) return false;
    }
    *t_enter = lo;
    return true;
}

void bvh_ray(const bvh *t, vec3 origin, vec3 dir, double t_max, bvh_ray_fn report, void *ctx)
{
    if (t->node_count == 0) return;
    vec3 inv = v3(1.0 / dir.x, 1.0 / dir.y, 1.0 / dir.z); /* ±inf along an axis the ray keeps */
    int32_t stack[BVH_MAX_DEPTH + 2], top = 0;
    stack[top++] = 0;
    while (top > 0) {
        const bvh_node *node = &t->nodes[stack[--top]];
        double enter;
        if (!ray_enters(&node->box, origin, inv, t_max, &enter)) continue;
        if (node->count > 0) {
            for (int32_t k = 0; k < node->count; k++) {
                int32_t prim = t->prims[node->index + k];
                if (ray_enters(&t->boxes[prim], origin, inv, t_max, &enter)) t_max = report(ctx, prim, t_max);
            }
        } else {
            /* the nearer child last, so it is taken first */
            int32_t left = (int32_t)(node - t->nodes) + 1, right = node->index;
            double tl = INFINITY, tr = INFINITY;
            bool hit_left = ray_enters(&t->nodes[left].box, origin, inv, t_max, &tl);
            bool hit_right = ray_enters(&t->nodes[right].box, origin, inv, t_max, &tr);
            if (hit_left && hit_right) {
                stack[top++] = tl <= tr ? right : left;
                stack[top++] = tl <= tr ? left : right;
            } else if (hit_left) {
                stack[top++] = left;
            } else if (hit_right) {
                stack[top++] = right;
            }
        }
    }
}
