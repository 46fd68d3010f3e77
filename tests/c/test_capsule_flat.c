/* A capsule lying flat along a box face rests on two points, however the search for its
 * nearest point ends: the distance along the segment is flat to rounding a hair past the
 * face's edge, where an edge was found and one contact made (issue 30: a level box on two
 * capsule rails rocked from end to end and sank 4.3 mm once the exact LCP start kept it level).
 * Then the scene itself: the box rests on the rails with the exact start, every accepted
 * solve satisfies its LCP, and it stays level on four contacts. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "rigid_capsule.h"
#include "rigid_fixture.h"
#include "testutil.h"

#define PI 3.14159265358979323846

/* The box [c - h, c + h] as a world_poly: 8 corners (bit k of the index: + along axis k),
 * 6 outward faces, 12 edges. */
typedef struct box_poly {
    vec3 v[8], n[6];
    double o[6];
    int32_t face_first[7], face_loops[24], edges[24];
    world_poly poly;
} box_poly;

static void box_poly_make(box_poly *b, vec3 c, vec3 h)
{
    for (int i = 0; i < 8; i++)
        b->v[i] = v3(c.x + (i & 1 ? h.x : -h.x), c.y + (i & 2 ? h.y : -h.y), c.z + (i & 4 ? h.z : -h.z));
    /* face 2k + s: axis k, side s (0 -, 1 +); loops counter-clockwise seen from outside */
    static const int32_t loops[6][4] = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};
    int32_t e = 0;
    for (int f = 0; f < 6; f++) {
        int axis = f / 2;
        double sign = f % 2 ? 1.0 : -1.0;
        b->n[f] = v3(axis == 0 ? sign : 0.0, axis == 1 ? sign : 0.0, axis == 2 ? sign : 0.0);
        b->o[f] = v3_dot(b->n[f], b->v[loops[f][0]]);
        b->face_first[f] = 4 * f;
        for (int k = 0; k < 4; k++) b->face_loops[4 * f + k] = loops[f][k];
    }
    b->face_first[6] = 24;
    for (int i = 0; i < 8; i++)
        for (int k = 0; k < 3; k++)
            if (!(i & (1 << k))) b->edges[e++] = i, b->edges[e++] = i | (1 << k);
    b->poly = (world_poly){.vertex_count = 8, .face_count = 6, .edge_count = 12, .v = b->v, .n = b->n, .o = b->o,
                           .face_first = b->face_first, .face_loops = b->face_loops, .edges = b->edges, .center = c};
}

Test(capsule_flat, a_segment_flat_on_a_face_meets_it_at_both_ends_of_the_part_over_it)
{
    /* the scene of test_capsule's compound: a 1 x 1 x 0.2 m box on a rail of radius 0.2 m
     * and 2 m along y, level and touching to within rounding */
    const double r = 0.2, margin = 0.02;
    int32_t single = 0, cases = 0;
    for (int i = -40; i <= 40; i++)
        for (int j = 0; j < 7; j++) {
            box_poly box;
            box_poly_make(&box, v3(3.0 + 0.01 * j, 1e-3 * i, 0.5 + 1e-13 * i), v3(0.5, 0.5, 0.1));
            for (int rail = 0; rail < 2; rail++) {
                double x = rail ? 3.3 : 2.7;
                rigid_contact out[2];
                int32_t n = capsule_poly(v3(x, -1.0, 0.2), v3(x, 1.0, 0.2), r, &box.poly, margin, out);
                cases++;
                cr_assert(n >= 1, "box at (%g, %g): no contact with the rail at x = %g", 3.0 + 0.01 * j, 1e-3 * i, x);
                if (n < 2) {
                    single++;
                    continue;
                }
                double y_lo = fmin(out[0].point.y, out[1].point.y), y_hi = fmax(out[0].point.y, out[1].point.y);
                cr_assert(fabs(y_lo - (1e-3 * i - 0.5)) < 1e-9 && fabs(y_hi - (1e-3 * i + 0.5)) < 1e-9,
                          "contacts at y %.12f and %.12f, not the face's ends %.12f, %.12f", y_lo, y_hi,
                          1e-3 * i - 0.5, 1e-3 * i + 0.5);
                for (int k = 0; k < 2; k++) {
                    cr_assert(fabs(out[k].normal.z + 1.0) < 1e-12, "normal (%g %g %g), not the face's",
                              out[k].normal.x, out[k].normal.y, out[k].normal.z);
                    cr_assert(fabs(out[k].separation) < 1e-9, "separation %g of a touching rail", out[k].separation);
                }
            }
        }
    cr_assert_eq(single, 0, "%d of %d placements of a level box met its rail at one point", single, cases);
}

Test(capsule_flat, a_segment_crossing_under_an_edge_still_meets_it_at_the_edge)
{
    /* tilted 30°, passing 0.2 m below and beyond the box's edge: nearest at the edge, one contact with the edge's
     * normal; a real edge contact is not taken for a face */
    box_poly box;
    box_poly_make(&box, v3(0, 0, 0), v3(0.5, 0.5, 0.1));
    double s = sin(PI / 6), c = cos(PI / 6);
    /* the segment's line passes 0.2 m from the edge y = 0.5, z = -0.1, below and beyond it */
    vec3 mid = v3(0.0, 0.5 + 0.2 * s, -0.1 - 0.2 * c), dir = v3(0.0, c, s);
    rigid_contact out[2];
    int32_t n = capsule_poly(v3_madd(mid, dir, -0.4), v3_madd(mid, dir, 0.4), 0.2, &box.poly, 0.02, out);
    cr_assert_eq(n, 1, "%d contacts", n);
    cr_assert(fabs(out[0].point.y - 0.5) < 1e-6 && fabs(out[0].point.z + 0.1) < 1e-6, "contact at (%g %g %g)",
              out[0].point.x, out[0].point.y, out[0].point.z);
    cr_assert(fabs(out[0].normal.y - s) < 1e-6 && fabs(out[0].normal.z + c) < 1e-6, "normal (%g %g %g)",
              out[0].normal.x, out[0].normal.y, out[0].normal.z);
    cr_assert(fabs(out[0].separation) < 1e-9, "separation %g", out[0].separation);
}

Test(capsule_flat, a_box_on_two_capsule_rails_rests_level_on_four_points)
{
    sb_world *w = rigid_world();
    add_capsule_rails(w);
    sb_body_def box = sb_default_body_def();
    box.shape = SB_SHAPE_BOX, box.center[0] = 3.0, box.center[2] = 0.55;
    box.half_extents[0] = 0.5, box.half_extents[1] = 0.5, box.half_extents[2] = 0.1;
    sb_body_id box_id = rigid_add(w, &box);
    double lowest = INFINITY, fastest = 0.0;
    for (int frame = 1; frame <= 24; frame++) { /* 1 s; it lands within the first 0.1 s */
        cr_assert_eq(sb_world_step_to(w, frame / 24.0), SB_OK, "%s", sb_last_error());
        sb_body_state st;
        cr_assert_eq(sb_body_get_state(w, box_id, &st), SB_OK);
        if (frame < 6) continue;
        lowest = fmin(lowest, st.position[2]);
        fastest = fmax(fastest, fabs(st.linear_velocity[2]));
        if (st.contacts > 0) /* 0 once asleep */
            cr_assert_eq(st.contacts, 4, "at %.3f s the box touches the rails at %d points, not 4", frame / 24.0,
                         st.contacts);
    }
    /* before the fix: 4.3 mm down and -0.056 m/s into the rails */
    cr_assert(lowest > 0.5 - 1e-4, "the box sank to %.5f m, resting at 0.5 m", lowest);
    cr_assert(fastest < 1e-3, "the box moved at %.4f m/s into the rails, resting", fastest);
    sb_world_destroy(w);
}
