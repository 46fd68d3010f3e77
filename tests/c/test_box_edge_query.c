/* The separating-axis edge query of two boxes tries only the edge pairs whose Gauss arcs can
 * cross (two per pair of edge directions, all sixteen where directions are near parallel):
 * it must give what the query over all 144 pairs gives, to the bit (the separation, the
 * edges, the axis), for boxes turned at random, nearly aligned and exactly aligned, touching
 * and overlapping, and find apart what it finds apart; only hulls that are boxes take that
 * path. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "rigid_capsule.h"
#include "rigid_polytope.h"

/* A polytope placed at (x, R) as the narrow phase places a body's hull. */
typedef struct placed {
    vec3 v[8], n[6 + 24];
    double o[6];
    world_poly poly;
} placed;

static void place(placed *p, const polytope *h, vec3 x, mat3 r)
{
    for (int32_t i = 0; i < h->vertex_count; i++) p->v[i] = v3_add(x, m3_mul_v(r, h->vertices[i]));
    for (int32_t f = 0; f < h->face_count; f++) {
        p->n[f] = m3_mul_v(r, h->normals[f]);
        p->o[f] = h->offsets[f] + v3_dot(p->n[f], x);
    }
    vec3 *edge_normals = p->n + h->face_count;
    for (int32_t e = 0; e < h->edge_count; e++) {
        edge_normals[2 * e] = p->n[h->edge_faces[2 * e]];
        edge_normals[2 * e + 1] = p->n[h->edge_faces[2 * e + 1]];
    }
    p->poly = (world_poly){h->vertex_count, h->face_count, h->edge_count, p->v, p->n, p->o, h->face_first,
                           h->face_loops, h->edges, edge_normals, h->edge_faces, x, h->is_box ? &h->box : NULL};
}

static double uniform(uint64_t *seed)
{
    *seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
    return (*seed >> 11) * (1.0 / 9007199254740992.0);
}

/* A uniformly random rotation (Shoemake). */
static quat random_turn(uint64_t *seed)
{
    const double pi = 3.14159265358979323846;
    double u1 = uniform(seed), u2 = uniform(seed), u3 = uniform(seed), a = sqrt(1 - u1), b = sqrt(u1);
    return (quat){a * sin(2 * pi * u2), a * cos(2 * pi * u2), b * sin(2 * pi * u3), b * cos(2 * pi * u3)};
}

static vec3 random_direction(uint64_t *seed)
{
    vec3 d = v3(uniform(seed) - 0.5, uniform(seed) - 0.5, uniform(seed) - 0.5);
    return v3_scale(d, 1.0 / v3_len(d));
}

static bool same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

Test(box_edge_query, equals_the_query_over_every_edge_pair)
{
    polytope ha, hb;
    cr_assert(polytope_box(v3(0.1, 0.1, 0.1), &ha) && polytope_box(v3(0.4, 0.05, 0.2), &hb));
    cr_assert(ha.is_box && hb.is_box);
    uint64_t seed = 7;
    const double margin = 0.005;
    /* turns of B relative to A: none, tiny ones about an axis (round-off decides the Gauss
     * arcs there), and random ones */
    const double tiny[] = {0.0, 1e-15, 1e-12, 1e-9, 1e-7, 1e-5, 1e-3, 0.785398163397448};
    int32_t cases = 0, near = 0;
    for (int trial = 0; trial < 4000; trial++) {
        quat qa = trial % 4 == 0 ? q_identity() : random_turn(&seed), qb;
        if (trial % 2 == 0) {
            vec3 axis = random_direction(&seed);
            if (trial % 8 == 0) axis = v3(0, 0, 1);
            qb = q_mul(q_axis_angle(axis, tiny[(trial / 2) % 8]), qa);
        } else {
            qb = random_turn(&seed);
        }
        /* B's centre from A's along a random direction, from overlapping to just apart */
        vec3 dir = random_direction(&seed);
        double distance = 0.15 + 0.4 * uniform(&seed);
        placed a, b;
        place(&a, &ha, v3(0.3, -0.2, 1.0), q_to_m3(qa));
        place(&b, &hb, v3_madd(v3(0.3, -0.2, 1.0), dir, distance), q_to_m3(qb));
        for (int swap = 0; swap < 2; swap++) {
            const world_poly *pa = swap ? &b.poly : &a.poly, *pb = swap ? &a.poly : &b.poly;
            world_poly general_a = *pa, general_b = *pb;
            general_a.box = general_b.box = NULL;
            int32_t ea = -1, eb = -1, ga = -1, gb = -1;
            vec3 axis = v3(0, 0, 0), g_axis = v3(0, 0, 0);
            double sep = poly_edge_query(pa, pb, margin, &ea, &eb, &axis);
            double g_sep = poly_edge_query(&general_a, &general_b, margin, &ga, &gb, &g_axis);
            cases++;
            if (g_sep > margin) { /* apart: either query may stop at the first axis that shows it */
                cr_assert(sep > margin, "trial %d: boxes %.17g, all pairs %.17g, apart", trial, sep, g_sep);
                continue;
            }
            cr_assert(same_bits(sep, g_sep) && ea == ga && eb == gb, "trial %d: boxes %.17g (%d, %d), all pairs %.17g (%d, %d)",
                      trial, sep, ea, eb, g_sep, ga, gb);
            cr_assert(same_bits(axis.x, g_axis.x) && same_bits(axis.y, g_axis.y) && same_bits(axis.z, g_axis.z),
                      "trial %d: axis (%.17g %.17g %.17g) against (%.17g %.17g %.17g)", trial, axis.x, axis.y, axis.z,
                      g_axis.x, g_axis.y, g_axis.z);
            near += ea >= 0;
        }
    }
    /* the cases must reach the pairs that matter: an edge axis found within the margin */
    cr_assert(near > cases / 4, "%d of %d cases found an edge axis within the margin", near, cases);
    polytope_free(&ha), polytope_free(&hb);
}

Test(box_edge_query, only_boxes_are_boxes)
{
    /* a box's corners turned at random: qhull's hull is a box */
    uint64_t seed = 3;
    mat3 r = q_to_m3(random_turn(&seed));
    vec3 corners[8], frustum[8];
    for (int i = 0; i < 8; i++) {
        vec3 c = v3(i & 1 ? 0.3 : -0.3, i & 2 ? 0.1 : -0.1, i & 4 ? 0.2 : -0.2);
        corners[i] = v3_add(v3(1, 2, 3), m3_mul_v(r, c));
        /* the top face smaller: six faces, twelve edges, but not a box */
        frustum[i] = i & 4 ? v3(0.5 * c.x, 0.5 * c.y, c.z) : c;
    }
    polytope box, not_box, parallelepiped;
    cr_assert(polytope_from_points(corners, 8, &box) && polytope_from_points(frustum, 8, &not_box));
    cr_assert(box.face_count == 6 && box.is_box, "%d faces, is_box %d", box.face_count, box.is_box);
    cr_assert(not_box.face_count == 6 && !not_box.is_box);
    /* a sheared box: three pairs of opposite faces, not at right angles */
    for (int i = 0; i < 8; i++) corners[i] = v3((i & 1 ? 0.3 : -0.3) + (i & 4 ? 0.1 : 0.0), i & 2 ? 0.1 : -0.1, i & 4 ? 0.2 : -0.2);
    cr_assert(polytope_from_points(corners, 8, &parallelepiped));
    cr_assert(parallelepiped.face_count == 6 && !parallelepiped.is_box);
    /* every edge of the box in its table once */
    int32_t seen = 0;
    for (int k = 0; k < 3; k++)
        for (int s = 0; s < 2; s++)
            for (int t = 0; t < 2; t++) seen |= 1 << box.box.edge[k][s][t];
    cr_assert_eq(seen, 0xfff);
    polytope_free(&box), polytope_free(&not_box), polytope_free(&parallelepiped);
}
