/* Continuous collision detection: known first times of contact, and no crossing missed
 * against a fine-substep reference. */
#include <criterion/criterion.h>
#include <math.h>

#include "collision_ccd.h"
#include "collision_geometry.h"
#include "testutil.h"

static const double tol = 1e-6;

static void expect_vf(vec3 p0, vec3 p1, vec3 a0, vec3 a1, vec3 b0, vec3 b1, vec3 c0, vec3 c1, double t)
{
    vec3 x0[4] = {p0, a0, b0, c0}, x1[4] = {p1, a1, b1, c1};
    ccd_hit hit;
    bool found = ccd_vertex_face(x0, x1, tol, &hit);
    if (t < 0) {
        cr_assert_not(found, "unexpected vertex-face hit at t = %g", hit.t);
        return;
    }
    cr_assert(found, "missed vertex-face contact expected at t = %g", t);
    cr_assert_float_eq(hit.t, t, 1e-6, "vertex-face contact at t = %.9f, expected %.9f", hit.t, t);
}

static void expect_ee(vec3 a0, vec3 a1, vec3 b0, vec3 b1, vec3 c0, vec3 c1, vec3 d0, vec3 d1, double t)
{
    vec3 x0[4] = {a0, b0, c0, d0}, x1[4] = {a1, b1, c1, d1};
    ccd_hit hit;
    bool found = ccd_edge_edge(x0, x1, tol, &hit);
    if (t < 0) {
        cr_assert_not(found, "unexpected edge-edge hit at t = %g", hit.t);
        return;
    }
    cr_assert(found, "missed edge-edge contact expected at t = %g", t);
    cr_assert_float_eq(hit.t, t, 1e-6, "edge-edge contact at t = %.9f, expected %.9f", hit.t, t);
}

#define STILL(p) p, p

Test(ccd, vertex_face_known_times)
{
    vec3 a = v3(0, 0, 0), b = v3(1, 0, 0), c = v3(0, 1, 0);
    /* head-on through a still triangle */
    expect_vf(v3(0.2, 0.2, 1), v3(0.2, 0.2, -1), STILL(a), STILL(b), STILL(c), 0.5);
    /* the triangle rises into a still vertex: z = -1 + 2t reaches 0.25 at t = 0.625 */
    expect_vf(STILL(v3(0.2, 0.2, 0.25)), v3(0, 0, -1), v3(0, 0, 1), v3(1, 0, -1), v3(1, 0, 1),
              v3(0, 1, -1), v3(0, 1, 1), 0.625);
    /* crossing the plane beside the triangle */
    expect_vf(v3(0.8, 0.8, 1), v3(0.8, 0.8, -1), STILL(a), STILL(b), STILL(c), -1);
    /* parallel to the plane, 1 cm above */
    expect_vf(v3(-1, 0.2, 0.01), v3(1, 0.2, 0.01), STILL(a), STILL(b), STILL(c), -1);
    /* sliding within the plane into the triangle: touches its edge x = 0 at t = 0.5 */
    expect_vf(v3(-1, 0.2, 0), v3(1, 0.2, 0), STILL(a), STILL(b), STILL(c), 0.5);
    /* grazing: moving down and stopping exactly on the triangle */
    expect_vf(v3(0.3, 0.3, 1), v3(0.3, 0.3, 0), STILL(a), STILL(b), STILL(c), 1.0);
    /* the triangle tilts about its edge ab; its plane z = (4t - 1) y sweeps through the
     * still vertex when 4t - 1 = 1 */
    expect_vf(STILL(v3(0.5, 0.25, 0.25)), STILL(a), STILL(b), v3(0, 1, -1), v3(0, 1, 3), 0.5);
    /* a true graze: with c tilting as z = (2t - 1) y and the vertex on
     * (0.25, 0.25 + t/2, t - 1/2), the vertex's height over the plane is -(t - 1/2)²: it
     * touches the triangle at t = 1/2 and turns back without crossing */
    expect_vf(v3(0.25, 0.25, -0.5), v3(0.25, 0.75, 0.5), STILL(a), STILL(b), v3(0, 1, -1), v3(0, 1, 1), 0.5);
    /* rotation: triangle spins about z while the vertex drops onto where a corner was */
    expect_vf(v3(0.1, 0.1, 1), v3(0.1, 0.1, -1), STILL(a), v3(1, 0, 0), v3(0, 1, 0), v3(0, 1, 0),
              v3(-1, 0, 0), 0.5);
}

Test(ccd, edge_edge_known_times)
{
    /* crossing edges: one along x dropping from z = 1 to -1 through one along y */
    expect_ee(v3(-1, 0, 1), v3(-1, 0, -1), v3(1, 0, 1), v3(1, 0, -1), STILL(v3(0, -1, 0)), STILL(v3(0, 1, 0)), 0.5);
    /* the same, but passing beside the other edge's end */
    expect_ee(v3(-1, 2, 1), v3(-1, 2, -1), v3(1, 2, 1), v3(1, 2, -1), STILL(v3(0, -1, 0)), STILL(v3(0, 1, 0)), -1);
    /* parallel overlapping edges meeting */
    expect_ee(v3(0, 0, 1), v3(0, 0, -1), v3(1, 0, 1), v3(1, 0, -1), STILL(v3(0.5, 0, 0)), STILL(v3(1.5, 0, 0)), 0.5);
    /* parallel edges that never overlap along their length */
    expect_ee(v3(0, 0, 1), v3(0, 0, -1), v3(1, 0, 1), v3(1, 0, -1), STILL(v3(2, 0, 0)), STILL(v3(3, 0, 0)), -1);
    /* grazing: coming down onto the other edge and stopping there */
    expect_ee(v3(-1, 0, 1), v3(-1, 0, 0), v3(1, 0, 1), v3(1, 0, 0), STILL(v3(0, -1, 0)), STILL(v3(0, 1, 0)), 1.0);
    /* collinear edges sliding into each other: the moving end -2 + 2t reaches -0.5 */
    expect_ee(v3(-3, 0, 0), v3(-1, 0, 0), v3(-2, 0, 0), v3(0, 0, 0), STILL(v3(-0.5, 0, 0)), STILL(v3(1, 0, 0)), 0.75);
}

/* --- randomized comparison ---------------------------------------------------------------- */

static vec3 lerp(vec3 a, vec3 b, double t) { return v3_madd(a, v3_sub(b, a), t); }

/* First substep at which the vertex passes through the triangle (sign change of its side,
 * crossing point inside), or -1. */
static double reference_vertex_face(const vec3 x0[4], const vec3 x1[4], int substeps)
{
    double prev = 0;
    for (int k = 0; k <= substeps; k++) {
        double t = (double)k / substeps;
        vec3 p = lerp(x0[0], x1[0], t), a = lerp(x0[1], x1[1], t), b = lerp(x0[2], x1[2], t), c = lerp(x0[3], x1[3], t);
        double side = v3_dot(v3_cross(v3_sub(b, a), v3_sub(c, a)), v3_sub(p, a));
        if (k > 0 && ((prev < 0) != (side < 0) || side == 0)) {
            double s = prev == side ? 0.0 : prev / (prev - side), tc = (k - 1 + s) / substeps;
            vec3 q[4];
            for (int i = 0; i < 4; i++) q[i] = lerp(x0[i], x1[i], tc);
            /* the crossing point projected into the plane lies within all three edges */
            vec3 n = v3_cross(v3_sub(q[2], q[1]), v3_sub(q[3], q[1]));
            bool inside = true;
            for (int e = 0; e < 3; e++) {
                vec3 from = q[1 + e], to = q[1 + (e + 1) % 3];
                inside = inside && v3_dot(v3_cross(v3_sub(to, from), v3_sub(q[0], from)), n) >= 0;
            }
            if (inside) return tc;
        }
        prev = side;
    }
    return -1;
}

/* First substep at which the edges pass through each other, or -1. */
static double reference_edge_edge(const vec3 x0[4], const vec3 x1[4], int substeps)
{
    double prev = 0;
    for (int k = 0; k <= substeps; k++) {
        double t = (double)k / substeps;
        vec3 q[4];
        for (int i = 0; i < 4; i++) q[i] = lerp(x0[i], x1[i], t);
        double side = v3_dot(v3_cross(v3_sub(q[1], q[0]), v3_sub(q[3], q[2])), v3_sub(q[2], q[0]));
        bool crossed = k > 0 && ((prev < 0) != (side < 0) || side == 0);
        double s = crossed && prev != side ? prev / (prev - side) : 0.0;
        prev = side;
        if (!crossed) continue;
        double tc = (k - 1 + s) / substeps;
        for (int i = 0; i < 4; i++) q[i] = lerp(x0[i], x1[i], tc);
        /* the infinite lines' closest points fall within both segments */
        vec3 d1 = v3_sub(q[1], q[0]), d2 = v3_sub(q[3], q[2]), r = v3_sub(q[0], q[2]);
        double aa = v3_dot(d1, d1), ab = v3_dot(d1, d2), ar = v3_dot(d1, r), bb = v3_dot(d2, d2), br = v3_dot(d2, r);
        double denom = aa * bb - ab * ab;
        if (denom <= 1e-12 * aa * bb) continue;
        double u = (ab * br - ar * bb) / denom, v = (aa * br - ab * ar) / denom;
        if (u >= 0 && u <= 1 && v >= 0 && v <= 1) return tc;
    }
    return -1;
}

/* Paths that pass a face's plane (or an edge's) just beside it: within the tolerance they
 * touch, beyond it they do not. The root of the coplanarity cubic lies beside the face, so
 * this is where dropping roots whose features are apart (collision_ccd.c) must draw the line. A plane
 * crossing far outside (1 m) is no hit either. */
Test(ccd, passing_beside_a_face_or_an_edge_touches_only_within_the_tolerance)
{
    vec3 a = v3(0, 0, 0), b = v3(1, 0, 0), c = v3(0, 1, 0);
    const double offsets[] = {0.5 * tol, 0.99 * tol, 1.01 * tol, 2.0 * tol, 1.0};
    for (size_t i = 0; i < sizeof offsets / sizeof offsets[0]; i++) {
        double d = offsets[i], expected = d <= tol ? 0.5 : -1.0;
        /* the vertex crosses z = 0 at (0.5, -d), d from the edge y = 0 */
        expect_vf(v3(0.5, -d, 1), v3(0.5, -d, -1), STILL(a), STILL(b), STILL(c), expected);
        /* the second edge, along y from y = d, sweeps down through the first one's line */
        expect_ee(STILL(a), STILL(b), v3(0.5, d, 1), v3(0.5, d, -1), v3(0.5, 1, 1), v3(0.5, 1, -1), expected);
    }
}

Test(ccd, no_crossing_missed_against_fine_substeps, .timeout = 120)
{
    test_rng rng = rng_seed(31);
    const int substeps = 4000, trials = 10000;
    int crossings[2] = {0, 0};
    for (int trial = 0; trial < trials; trial++) {
        vec3 x0[4], x1[4];
        for (int i = 0; i < 4; i++) {
            x0[i] = v3(rng_uniform(&rng, -1, 1), rng_uniform(&rng, -1, 1), rng_uniform(&rng, -1, 1));
            /* large motions, often with rotation-like shears */
            x1[i] = v3_add(x0[i], v3(rng_uniform(&rng, -1.5, 1.5), rng_uniform(&rng, -1.5, 1.5), rng_uniform(&rng, -1.5, 1.5)));
        }
        if (trial % 2 == 0) {
            /* half the trials aim at crossings: the vertex passes near the triangle's centroid,
             * the first edge's midpoint near the second edge's midpoint */
            vec3 centroid = v3_scale(v3_add(v3_add(x0[1], x0[2]), x0[3]), 1.0 / 3.0);
            vec3 noise = v3(rng_uniform(&rng, -0.2, 0.2), rng_uniform(&rng, -0.2, 0.2), rng_uniform(&rng, -0.2, 0.2));
            x1[0] = v3_add(v3_sub(v3_scale(centroid, 2.0), x0[0]), noise);
            vec3 mid0 = v3_scale(v3_add(x0[0], x0[1]), 0.5), mid1 = v3_scale(v3_add(x0[2], x0[3]), 0.5);
            x1[1] = v3_add(x0[1], v3_scale(v3_sub(mid1, mid0), 2.0));
            for (int i = 1; i < 4; i++)
                if (i != 1) x1[i] = v3_add(x0[i], v3(rng_uniform(&rng, -0.3, 0.3), rng_uniform(&rng, -0.3, 0.3), rng_uniform(&rng, -0.3, 0.3)));
        }
        for (int kind = 0; kind < 2; kind++) {
            double t_ref = kind == 0 ? reference_vertex_face(x0, x1, substeps) : reference_edge_edge(x0, x1, substeps);
            if (t_ref < 0) continue;
            crossings[kind]++;
            ccd_hit hit;
            bool found = kind == 0 ? ccd_vertex_face(x0, x1, tol, &hit) : ccd_edge_edge(x0, x1, tol, &hit);
            cr_assert(found, "trial %d kind %d: missed a crossing at t = %g", trial, kind, t_ref);
            cr_assert_leq(hit.t, t_ref + 2.0 / substeps, "trial %d kind %d: hit at %g after crossing at %g",
                          trial, kind, hit.t, t_ref);
        }
    }
    /* the comparison only means something if crossings were common */
    cr_assert_gt(crossings[0], trials / 20, "only %d vertex-face crossings", crossings[0]);
    cr_assert_gt(crossings[1], trials / 20, "only %d edge-edge crossings", crossings[1]);
}

Test(ccd, normal_points_from_second_primitive_to_first)
{
    vec3 x0[4] = {v3(0.2, 0.2, 1), v3(0, 0, 0), v3(1, 0, 0), v3(0, 1, 0)};
    vec3 x1[4] = {v3(0.2, 0.2, -1), v3(0, 0, 0), v3(1, 0, 0), v3(0, 1, 0)};
    ccd_hit hit;
    cr_assert(ccd_vertex_face(x0, x1, tol, &hit));
    cr_assert_float_eq(hit.normal.z, 1.0, 1e-12); /* the vertex came from above */
    vec3 e0[4] = {v3(-1, 0, -1), v3(1, 0, -1), v3(0, -1, 0), v3(0, 1, 0)};
    vec3 e1[4] = {v3(-1, 0, 1), v3(1, 0, 1), v3(0, -1, 0), v3(0, 1, 0)};
    cr_assert(ccd_edge_edge(e0, e1, tol, &hit));
    cr_assert_float_eq(hit.normal.z, -1.0, 1e-12); /* the first edge came from below */
}
