/* The BVH reports exactly the overlapping pairs brute force finds, after any refit. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "collision_bvh.h"
#include "testutil.h"

typedef struct pair_set {
    int32_t n;
    uint8_t *seen; /* n x n */
    int64_t count, duplicates;
} pair_set;

static void record(void *ctx, int32_t a, int32_t b)
{
    pair_set *s = ctx;
    if (a > b) {
        int32_t t = a;
        a = b, b = t;
    }
    uint8_t *cell = &s->seen[(size_t)a * (size_t)s->n + (size_t)b];
    if (*cell) s->duplicates++;
    *cell = 1;
    s->count++;
}

static void record_cross(void *ctx, int32_t a, int32_t b)
{
    pair_set *s = ctx;
    uint8_t *cell = &s->seen[(size_t)a * (size_t)s->n + (size_t)b];
    if (*cell) s->duplicates++;
    *cell = 1;
    s->count++;
}

static void mark(void *ctx, int32_t prim)
{
    uint8_t *hit = ctx;
    cr_assert_eq(hit[prim], 0, "primitive %d reported twice", prim);
    hit[prim] = 1;
}

/* Boxes of a random "mesh": triangles of random size scattered in a cube, some long thin. */
static void random_boxes(test_rng *rng, aabb *boxes, vec3 *corners, int32_t n, double spread)
{
    for (int32_t i = 0; i < n; i++) {
        vec3 c = v3(rng_uniform(rng, -spread, spread), rng_uniform(rng, -spread, spread), rng_uniform(rng, -spread, spread));
        double size = rng_uniform(rng, 0.01, i % 17 == 0 ? 1.0 : 0.1);
        aabb b = aabb_empty();
        for (int k = 0; k < 3; k++) {
            corners[3 * i + k] = v3_add(c, v3(rng_uniform(rng, -size, size), rng_uniform(rng, -size, size), rng_uniform(rng, -size, size)));
            b = aabb_add_point(b, corners[3 * i + k]);
        }
        boxes[i] = aabb_inflate(b, 0.005);
    }
}

static void check_self(bvh *t, const aabb *boxes, int32_t n)
{
    pair_set s = {n, calloc((size_t)n * (size_t)n, 1), 0, 0};
    cr_assert(bvh_self_pairs(t, record, &s));
    cr_assert_eq(s.duplicates, 0, "%lld pairs reported twice", (long long)s.duplicates);
    int64_t expected = 0;
    for (int32_t a = 0; a < n; a++)
        for (int32_t b = a + 1; b < n; b++) {
            bool overlap = aabb_overlap(&boxes[a], &boxes[b]);
            expected += overlap;
            cr_assert_eq(s.seen[(size_t)a * n + b], overlap, "pair (%d, %d): reported %d, overlap %d", a, b,
                         s.seen[(size_t)a * n + b], overlap);
        }
    cr_assert_eq(s.count, expected);
    cr_assert_gt(expected, 0, "a test without overlaps proves nothing");
    free(s.seen);
}

Test(bvh, self_pairs_match_brute_force_through_refits)
{
    test_rng rng = rng_seed(41);
    const int32_t n = 700;
    aabb *boxes = malloc(sizeof *boxes * n);
    vec3 *corners = malloc(sizeof *corners * 3 * n);
    random_boxes(&rng, boxes, corners, n, 2.0);
    bvh t = {0};
    cr_assert(bvh_build(&t, boxes, n));
    check_self(&t, boxes, n);
    for (int round = 0; round < 6; round++) {
        /* move every triangle (a coherent drift plus jitter) and refit */
        vec3 drift = v3(rng_uniform(&rng, -0.3, 0.3), rng_uniform(&rng, -0.3, 0.3), rng_uniform(&rng, -0.3, 0.3));
        for (int32_t i = 0; i < n; i++) {
            aabb b = aabb_empty();
            for (int k = 0; k < 3; k++) {
                vec3 *p = &corners[3 * i + k];
                *p = v3_add(v3_add(*p, v3_scale(drift, i % 3 == 0 ? 1.0 : -0.5)),
                            v3(rng_uniform(&rng, -0.05, 0.05), rng_uniform(&rng, -0.05, 0.05), rng_uniform(&rng, -0.05, 0.05)));
                b = aabb_add_point(b, *p);
            }
            boxes[i] = aabb_inflate(b, 0.005);
        }
        if (round % 2 == 0) bvh_refit(&t, boxes);
        else cr_assert(bvh_update(&t, boxes, n));
        check_self(&t, boxes, n);
    }
    bvh_free(&t);
    free(boxes), free(corners);
}

Test(bvh, pairs_between_two_trees_and_box_queries_match_brute_force)
{
    test_rng rng = rng_seed(42);
    const int32_t na = 400, nb = 300;
    aabb *ba = malloc(sizeof *ba * na), *bb = malloc(sizeof *bb * nb);
    vec3 *corners = malloc(sizeof *corners * 3 * (na + nb));
    random_boxes(&rng, ba, corners, na, 1.5);
    random_boxes(&rng, bb, corners + 3 * na, nb, 1.5);
    bvh ta = {0}, tb = {0};
    cr_assert(bvh_build(&ta, ba, na));
    cr_assert(bvh_build(&tb, bb, nb));
    int32_t n = na > nb ? na : nb;
    pair_set s = {n, calloc((size_t)n * (size_t)n, 1), 0, 0};
    cr_assert(bvh_tree_pairs(&ta, &tb, record_cross, &s));
    int64_t expected = 0;
    for (int32_t a = 0; a < na; a++)
        for (int32_t b = 0; b < nb; b++) {
            bool overlap = aabb_overlap(&ba[a], &bb[b]);
            expected += overlap;
            cr_assert_eq(s.seen[(size_t)a * n + b], overlap, "pair (%d, %d)", a, b);
        }
    cr_assert_eq(s.count, expected);
    cr_assert_eq(s.duplicates, 0);
    /* box queries */
    for (int q = 0; q < 50; q++) {
        vec3 c = v3(rng_uniform(&rng, -1.5, 1.5), rng_uniform(&rng, -1.5, 1.5), rng_uniform(&rng, -1.5, 1.5));
        aabb box = aabb_inflate(aabb_add_point(aabb_empty(), c), rng_uniform(&rng, 0.01, 0.5));
        uint8_t *hit = calloc((size_t)na, 1);
        bvh_query(&ta, &box, mark, hit);
        for (int32_t a = 0; a < na; a++) cr_assert_eq(hit[a], aabb_overlap(&ba[a], &box), "query %d prim %d", q, a);
        int32_t above = q * na / 50;
        memset(hit, 0, (size_t)na);
        bvh_query_above(&ta, &box, above, mark, hit);
        for (int32_t a = 0; a < na; a++)
            cr_assert_eq(hit[a], a > above && aabb_overlap(&ba[a], &box), "query %d above %d prim %d", q, above, a);
        free(hit);
    }
    free(s.seen);
    bvh_free(&ta), bvh_free(&tb);
    free(ba), free(bb), free(corners);
}

Test(bvh, empty_and_single_primitive_trees)
{
    bvh t = {0};
    aabb one = aabb_inflate(aabb_add_point(aabb_empty(), v3(0, 0, 0)), 1.0);
    cr_assert(bvh_build(&t, &one, 0));
    pair_set s = {1, calloc(1, 1), 0, 0};
    cr_assert(bvh_self_pairs(&t, record, &s));
    cr_assert(bvh_build(&t, &one, 1));
    cr_assert(bvh_self_pairs(&t, record, &s));
    cr_assert_eq(s.count, 0);
    free(s.seen);
    bvh_free(&t);
}
