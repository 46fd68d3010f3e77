/* Bounding volume hierarchy of axis-aligned boxes ("Collision and Contact" slides: a box
 * hierarchy over the cloth's triangles). Built top-down by median splits, refit bottom-up
 * every step, rebuilt when refitting has let it degrade. Queries report every pair of
 * primitives whose boxes overlap; callers make the boxes cover what they need (a swept
 * step, a distance margin). */
#ifndef SB_BVH_H
#define SB_BVH_H

#include <stdbool.h>
#include <stdint.h>

#include "math3.h"

typedef struct aabb { vec3 lo, hi; } aabb;

static inline aabb aabb_empty(void)
{
    return (aabb){v3(INFINITY, INFINITY, INFINITY), v3(-INFINITY, -INFINITY, -INFINITY)};
}
/* lower and higher of a box bound and a coordinate, a NaN coordinate ignored as fmin/fmax
 * do, but inlined (fmin/fmax are library calls here, and boxes are built by the million) */
static inline double bound_lo(double bound, double c) { return c < bound ? c : bound; }
static inline double bound_hi(double bound, double c) { return c > bound ? c : bound; }
static inline aabb aabb_add_point(aabb b, vec3 p)
{
    return (aabb){v3(bound_lo(b.lo.x, p.x), bound_lo(b.lo.y, p.y), bound_lo(b.lo.z, p.z)),
                  v3(bound_hi(b.hi.x, p.x), bound_hi(b.hi.y, p.y), bound_hi(b.hi.z, p.z))};
}
static inline aabb aabb_union(aabb a, aabb b) { return aabb_add_point(aabb_add_point(a, b.lo), b.hi); }
static inline aabb aabb_inflate(aabb b, double margin)
{
    return (aabb){v3_sub(b.lo, v3(margin, margin, margin)), v3_add(b.hi, v3(margin, margin, margin))};
}
static inline bool aabb_overlap(const aabb *a, const aabb *b)
{
    return a->lo.x <= b->hi.x && b->lo.x <= a->hi.x && a->lo.y <= b->hi.y && b->lo.y <= a->hi.y &&
           a->lo.z <= b->hi.z && b->lo.z <= a->hi.z;
}
/* Whether the box of points [0, split) and that of points [split, 4) come within `gap`, the
 * boxes taken over two sets of the four points' positions (`to` NULL: over `from` alone),
 * e.g. the ends of straight paths: a vertex against a face (split 1), an edge against an
 * edge (split 2). */
static inline bool point_boxes_within(const vec3 from[4], const vec3 *to, int split, double gap)
{
    aabb first = aabb_empty(), second = aabb_empty();
    for (int i = 0; i < 4; i++) {
        aabb *box = i < split ? &first : &second;
        *box = aabb_add_point(*box, from[i]);
        if (to) *box = aabb_add_point(*box, to[i]);
    }
    first = aabb_inflate(first, gap);
    return aabb_overlap(&first, &second);
}
static inline double aabb_half_area(const aabb *b)
{
    vec3 d = v3_sub(b->hi, b->lo);
    return d.x * d.y + d.y * d.z + d.z * d.x;
}

typedef struct bvh_node {
    aabb box;
    int32_t count;     /* primitives in a leaf; 0 for an inner node */
    int32_t index;     /* leaf: first entry in prims; inner: right child (left is the next node) */
    int32_t last;      /* the largest primitive id below */
} bvh_node;

typedef struct bvh_pair { int32_t a, b; } bvh_pair;

/* No tree is deeper than this: a median-split build of INT32_MAX primitives is 30 levels,
 * and a loaded tree (world_state.c) is refused beyond it, so traversals need fixed stacks only. */
enum { BVH_MAX_DEPTH = 64 };

typedef struct bvh {
    bvh_node *nodes;
    int32_t node_count;
    int32_t *prims;        /* primitive ids in leaf order */
    int32_t prim_count;
    bool built;            /* nodes and prims hold a tree (the buffers may be there without one) */
    int32_t node_capacity, prim_capacity;
    const aabb *boxes;     /* the primitives' boxes of the last build or refit (caller's) */
    double built_area;     /* Σ half areas of inner nodes right after the build */
    bvh_pair *stack;       /* traversal scratch */
    int32_t stack_capacity;
} bvh;

/* Room for a tree of `count` primitives, the tree (if any) left as it is. */
bool bvh_reserve(bvh *t, int32_t count);
/* Builds the tree; false when out of memory (the tree left as it was). */
bool bvh_build(bvh *t, const aabb *boxes, int32_t count);
void bvh_refit(bvh *t, const aabb *boxes);
/* Builds anew when refitting has made the tree's boxes twice as large as when built. */
bool bvh_update(bvh *t, const aabb *boxes, int32_t count);
/* Sets every node's `last` from its leaves' primitives (after a build, or nodes loaded). */
void bvh_set_last(bvh *t);
void bvh_free(bvh *t);

typedef void (*bvh_pair_fn)(void *ctx, int32_t a, int32_t b);
typedef void (*bvh_prim_fn)(void *ctx, int32_t prim);

/* Every unordered pair of distinct primitives of t whose boxes overlap, once. */
bool bvh_self_pairs(bvh *t, bvh_pair_fn report, void *ctx);
/* Every pair (a of t, b of u) whose boxes overlap. */
bool bvh_tree_pairs(bvh *t, const bvh *u, bvh_pair_fn report, void *ctx);
/* Every primitive whose box overlaps `box`. */
void bvh_query(const bvh *t, const aabb *box, bvh_prim_fn report, void *ctx);
/* The same, for primitives numbered above `above` only: subtrees of lower ids are skipped
 * (a mesh's pairs with itself, each found once from its lower triangle). */
void bvh_query_above(const bvh *t, const aabb *box, int32_t above, bvh_prim_fn report, void *ctx);

/* Every primitive whose box the ray o + t dir, 0 <= t <= t_max, passes through, near subtrees
 * first; `report` returns the ray's t_max from then on (the nearest hit so far, for a caller
 * that wants the first hit only), which prunes the boxes beyond it. */
typedef double (*bvh_ray_fn)(void *ctx, int32_t prim, double t_max);
void bvh_ray(const bvh *t, vec3 origin, vec3 dir, double t_max, bvh_ray_fn report, void *ctx);

#endif
