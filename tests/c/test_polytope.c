/* Convex hulls by qhull: faces merged into polygons, planes outward, every point inside. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "rigid_mass_properties.h"
#include "rigid_polytope.h"
#include "testutil.h"

static void check_valid(const polytope *p, const vec3 *points, int32_t count)
{
    cr_assert_eq(p->vertex_count - p->edge_count + p->face_count, 2, "Euler: V %d E %d F %d", p->vertex_count,
                 p->edge_count, p->face_count);
    for (int32_t f = 0; f < p->face_count; f++) {
        cr_assert_float_eq(v3_len(p->normals[f]), 1.0, 1e-12);
        for (int32_t k = p->face_first[f]; k < p->face_first[f + 1]; k++)
            cr_assert_lt(fabs(v3_dot(p->normals[f], p->vertices[p->face_loops[k]]) - p->offsets[f]), 1e-9,
                         "face %d is not planar", f);
        for (int32_t i = 0; i < count; i++)
            cr_assert_leq(v3_dot(p->normals[f], points[i]) - p->offsets[f], 1e-9, "point %d outside face %d", i, f);
    }
    int32_t *tris, nt;
    cr_assert(polytope_triangles(p, &tris, &nt));
    double *flat = malloc(sizeof(double) * 3 * (size_t)p->vertex_count);
    for (int32_t v = 0; v < p->vertex_count; v++) v3_store(&flat[3 * v], p->vertices[v]);
    cr_assert(mesh_is_closed(tris, nt, p->vertex_count));
    mass_properties mp;
    cr_assert(mesh_mass_properties(flat, p->vertex_count, tris, nt, &mp));
    /* outward loops: the divergence theorem gives a positive volume without flipping */
    double signed_volume = 0.0;
    for (int32_t t = 0; t < nt; t++) {
        vec3 a = p->vertices[tris[3 * t]], b = p->vertices[tris[3 * t + 1]], c = p->vertices[tris[3 * t + 2]];
        signed_volume += v3_dot(a, v3_cross(b, c)) / 6.0;
    }
    cr_assert_float_eq(signed_volume, mp.volume, 1e-9 * mp.volume);
    free(tris), free(flat);
}

Test(polytope, hull_of_a_box_cloud_is_the_box)
{
    test_rng rng = rng_seed(51);
    vec3 points[60];
    int32_t n = 0;
    for (int i = 0; i < 8; i++) points[n++] = v3(i & 1 ? 0.5 : -0.5, i & 2 ? 1.0 : -1.0, i & 4 ? 0.25 : -0.25);
    while (n < 60) points[n++] = v3(rng_uniform(&rng, -0.5, 0.5), rng_uniform(&rng, -1, 1), rng_uniform(&rng, -0.25, 0.25));
    polytope p;
    cr_assert(polytope_from_points(points, n, &p));
    cr_assert_eq(p.vertex_count, 8);
    cr_assert_eq(p.face_count, 6, "coplanar facets not merged: %d faces", p.face_count);
    cr_assert_eq(p.edge_count, 12);
    check_valid(&p, points, n);
    polytope_free(&p);
}

Test(polytope, hull_of_random_points_contains_them)
{
    test_rng rng = rng_seed(52);
    for (int trial = 0; trial < 20; trial++) {
        int32_t n = 20 + trial * 10;
        vec3 *points = malloc(sizeof *points * (size_t)n);
        for (int32_t i = 0; i < n; i++)
            points[i] = v3(rng_uniform(&rng, -1, 1), rng_uniform(&rng, -2, 2), rng_uniform(&rng, -0.5, 0.5));
        polytope p;
        cr_assert(polytope_from_points(points, n, &p));
        check_valid(&p, points, n);
        /* moved rigidly, it stays valid */
        mat3 r = q_to_m3(q_normalize((quat){0.5, 0.5, -0.5, 0.2}));
        polytope_transform(&p, r, v3(1, 2, 3));
        for (int32_t i = 0; i < n; i++) points[i] = v3_add(m3_mul_v(r, points[i]), v3(1, 2, 3));
        check_valid(&p, points, n);
        polytope_free(&p);
        free(points);
    }
}

Test(polytope, box_shape_and_flat_input)
{
    polytope box;
    cr_assert(polytope_box(v3(1, 2, 3), &box));
    vec3 corner = v3(1, 2, 3);
    check_valid(&box, &corner, 1);
    cr_assert_float_eq(box.radius, sqrt(14.0), 1e-12);
    polytope_free(&box);
    vec3 flat[5] = {v3(0, 0, 0), v3(1, 0, 0), v3(0, 1, 0), v3(1, 1, 0), v3(0.5, 0.2, 0)};
    polytope p;
    cr_assert_not(polytope_from_points(flat, 5, &p));
    cr_assert_not(polytope_from_points(flat, 3, &p));
}
