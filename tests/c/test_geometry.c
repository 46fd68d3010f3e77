/* Closest points against brute force, exact orientation, intersection tests. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>

#include "collision_geometry.h"
#include "testutil.h"

static vec3 random_point(test_rng *rng, double r)
{
    return v3(rng_uniform(rng, -r, r), rng_uniform(rng, -r, r), rng_uniform(rng, -r, r));
}

Test(geometry, closest_point_on_triangle_beats_dense_sampling)
{
    test_rng rng = rng_seed(21);
    for (int trial = 0; trial < 500; trial++) {
        vec3 a = random_point(&rng, 1), b = random_point(&rng, 1), c = random_point(&rng, 1);
        if (trial % 10 == 0) c = v3_madd(a, v3_sub(b, a), 0.5); /* degenerate: on a line */
        vec3 p = random_point(&rng, 2);
        double bary[3];
        vec3 q = closest_point_triangle(p, a, b, c, bary);
        double d = v3_len(v3_sub(p, q));
        /* the point is the barycentric combination it claims, inside the triangle */
        vec3 combo = v3_add(v3_add(v3_scale(a, bary[0]), v3_scale(b, bary[1])), v3_scale(c, bary[2]));
        cr_assert_lt(v3_len(v3_sub(combo, q)), 1e-12);
        cr_assert_float_eq(bary[0] + bary[1] + bary[2], 1.0, 1e-12);
        for (int k = 0; k < 3; k++) cr_assert_geq(bary[k], -1e-12);
        /* and no sampled point of the triangle is closer */
        for (int i = 0; i <= 40; i++)
            for (int j = 0; i + j <= 40; j++) {
                double u = i / 40.0, v = j / 40.0;
                vec3 s = v3_add(v3_add(v3_scale(a, 1 - u - v), v3_scale(b, u)), v3_scale(c, v));
                cr_assert_geq(v3_len(v3_sub(p, s)), d - 1e-12, "trial %d: sample closer than result", trial);
            }
    }
}

Test(geometry, closest_points_of_segments_beat_dense_sampling)
{
    test_rng rng = rng_seed(22);
    for (int trial = 0; trial < 500; trial++) {
        vec3 p0 = random_point(&rng, 1), p1 = random_point(&rng, 1);
        vec3 q0 = random_point(&rng, 1), q1 = random_point(&rng, 1);
        if (trial % 7 == 0) q1 = v3_add(q0, v3_sub(p1, p0)); /* parallel */
        if (trial % 11 == 0) p1 = p0;                         /* a point */
        double s, t;
        double d2 = closest_points_segments(p0, p1, q0, q1, &s, &t);
        cr_assert(s >= 0 && s <= 1 && t >= 0 && t <= 1);
        for (int i = 0; i <= 60; i++)
            for (int j = 0; j <= 60; j++) {
                vec3 a = v3_madd(p0, v3_sub(p1, p0), i / 60.0), b = v3_madd(q0, v3_sub(q1, q0), j / 60.0);
                cr_assert_geq(v3_len2(v3_sub(a, b)), d2 - 1e-12, "trial %d", trial);
            }
    }
}

Test(geometry, orient3d_is_exact_next_to_a_plane)
{
    /* the plane x + y + z = 1e15 through three points, with points exactly on it and one
     * unit in the last place off it, where rounded arithmetic cannot tell */
    vec3 a = v3(1e15, 0, 0), b = v3(0, 1e15, 0), c = v3(0, 0, 1e15);
    int above = orient3d(a, b, c, v3(0, 0, 0)) * -1; /* the origin lies below the plane */
    for (int k = 1; k < 50; k++) {
        double x = 1e13 * k + 0.5, y = 3e14 - 1e12 * k;
        vec3 on = v3(x, y, 1e15 - x - y);
        cr_assert_eq(on.x + on.y + on.z, 1e15); /* really on it */
        cr_assert_eq(orient3d(a, b, c, on), 0, "k %d: on-plane point not classified 0", k);
        vec3 up = on, down = on;
        up.z = nextafter(on.z, INFINITY);
        down.z = nextafter(on.z, -INFINITY);
        cr_assert_eq(orient3d(a, b, c, up), above, "k %d", k);
        cr_assert_eq(orient3d(a, b, c, down), -above, "k %d", k);
    }
    /* a permutation flips the sign */
    vec3 d = v3(0.3, 0.2, 0.9);
    cr_assert_eq(orient3d(v3(0, 0, 0), v3(1, 0, 0), v3(0, 1, 0), d), 1);
    cr_assert_eq(orient3d(v3(0, 0, 0), v3(0, 1, 0), v3(1, 0, 0), d), -1);
}

Test(geometry, segment_against_triangle)
{
    vec3 a = v3(0, 0, 0), b = v3(1, 0, 0), c = v3(0, 1, 0);
    cr_assert(segment_meets_triangle(v3(0.2, 0.2, -1), v3(0.2, 0.2, 1), a, b, c));   /* through */
    cr_assert_not(segment_meets_triangle(v3(0.8, 0.8, -1), v3(0.8, 0.8, 1), a, b, c)); /* beside */
    cr_assert_not(segment_meets_triangle(v3(0.2, 0.2, 0.1), v3(0.2, 0.2, 1), a, b, c)); /* above */
    cr_assert(segment_meets_triangle(v3(0.5, 0.5, -1), v3(0.5, 0.5, 1), a, b, c));     /* on an edge */
    cr_assert(segment_meets_triangle(v3(0.2, 0.2, 0), v3(0.2, 0.2, 1), a, b, c));      /* endpoint on it */
    cr_assert(segment_meets_triangle(v3(-1, 0.2, 0), v3(2, 0.2, 0), a, b, c));         /* coplanar, across */
    cr_assert_not(segment_meets_triangle(v3(-1, 2, 0), v3(2, 2, 0), a, b, c));          /* coplanar, apart */
    cr_assert(segment_meets_triangle(v3(0.1, 0.1, 0), v3(0.2, 0.1, 0), a, b, c));      /* coplanar, inside */
}

Test(geometry, triangle_pairs)
{
    vec3 t[3] = {v3(0, 0, 0), v3(1, 0, 0), v3(0, 1, 0)};
    vec3 crossing[3] = {v3(0.2, 0.2, -1), v3(0.3, 0.2, 1), v3(0.2, 0.3, 1)};
    vec3 apart[3] = {v3(0, 0, 1), v3(1, 0, 1), v3(0, 1, 1)};
    cr_assert(triangles_intersect(t, crossing, 0, 0));
    cr_assert(triangles_intersect(crossing, t, 0, 0));
    cr_assert_not(triangles_intersect(t, apart, 0, 0));
    /* a fan neighbour sharing vertex 0 only: touching there does not count */
    vec3 fan[3] = {v3(0, 0, 0), v3(0, -1, 0.2), v3(-1, 0, 0.3)};
    cr_assert_not(triangles_intersect(t, fan, 1u, 1u));
    /* sharing vertex 0 but folding through: its far edge pierces t */
    vec3 folded[3] = {v3(0, 0, 0), v3(0.4, 0.3, -1), v3(0.3, 0.4, 1)};
    cr_assert(triangles_intersect(t, folded, 1u, 1u));
    /* neighbours across an edge never count */
    vec3 edge_neighbour[3] = {v3(1, 0, 0), v3(0, 1, 0), v3(1, 1, 0.5)};
    cr_assert_not(triangles_intersect(t, edge_neighbour, 6u, 3u));
}
