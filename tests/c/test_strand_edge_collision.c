/* Strand segments against collider edges (strand_collide.c, issue 31): a rope dropped across
 * a thin wall, 1 cm thick, with segments 5 cm long whose vertices all fall beside the wall,
 * never has a segment cross the wall: at every step each segment's path is checked against
 * the wall's twelve edges by continuous detection, and its position at the step's end
 * against the wall's box; the rope ends draped over the wall's top. Without the segment sweep
 * the vertices miss the wall and the whole rope falls through it (the check fails). Every world
 * steps exactly one step per call, so the positions seen are every step's. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "collision_ccd.h"
#include "simbake.h"
#include "testutil.h"

enum { SEGMENTS = 24, VERTICES = SEGMENTS + 1 };

static const double STEP = 1.0 / 240.0;
/* the wall: 1 cm thick in x, 0.6 m wide in y, its top edge at z = 0.2 */
static const double WALL_HALF[3] = {0.005, 0.3, 0.2}, WALL_CENTRE[3] = {0, 0, 0};

/* Whether the segment p -> q meets the wall's box (clipped slab by slab, Liang–Barsky). */
static bool segment_meets_wall(vec3 p, vec3 q)
{
    double lo = 0.0, hi = 1.0, from[3] = {p.x, p.y, p.z}, d[3] = {q.x - p.x, q.y - p.y, q.z - p.z};
    for (int a = 0; a < 3; a++) {
        double min = WALL_CENTRE[a] - WALL_HALF[a], max = WALL_CENTRE[a] + WALL_HALF[a];
        if (d[a] == 0.0) {
            if (from[a] < min || from[a] > max) return false;
            continue;
        }
        double t0 = (min - from[a]) / d[a], t1 = (max - from[a]) / d[a];
        if (t0 > t1) {
            double t = t0;
            t0 = t1, t1 = t;
        }
        lo = fmax(lo, t0), hi = fmin(hi, t1);
        if (lo > hi) return false;
    }
    return true;
}

/* The wall's twelve edges: along axis a, at the four sign pairs of the other two axes. */
static void wall_edge(int k, vec3 *e0, vec3 *e1)
{
    int a = k / 4, b = (a + 1) % 3, c = (a + 2) % 3;
    double p[3], q[3];
    p[b] = q[b] = WALL_CENTRE[b] + ((k & 1) ? 1 : -1) * WALL_HALF[b];
    p[c] = q[c] = WALL_CENTRE[c] + ((k & 2) ? 1 : -1) * WALL_HALF[c];
    p[a] = WALL_CENTRE[a] - WALL_HALF[a], q[a] = WALL_CENTRE[a] + WALL_HALF[a];
    *e0 = v3(p[0], p[1], p[2]), *e1 = v3(q[0], q[1], q[2]);
}

/* Segments that crossed or touched (within a micrometre) a wall edge over the step x0 -> x1,
 * or that end inside the wall. */
static int segments_through_wall(const double *x0, const double *x1)
{
    int bad = 0;
    for (int s = 0; s < SEGMENTS; s++) {
        vec3 a0 = v3_load(&x0[3 * s]), b0 = v3_load(&x0[3 * s + 3]);
        vec3 a1 = v3_load(&x1[3 * s]), b1 = v3_load(&x1[3 * s + 3]);
        bool crossed = segment_meets_wall(a1, b1);
        for (int k = 0; k < 12 && !crossed; k++) {
            vec3 e0, e1;
            wall_edge(k, &e0, &e1);
            vec3 p0[4] = {a0, b0, e0, e1}, p1[4] = {a1, b1, e0, e1};
            ccd_hit hit;
            crossed = ccd_edge_edge(p0, p1, 1e-6, &hit);
        }
        bad += crossed;
    }
    return bad;
}

/* A rope of 1.2 m in 24 segments along x at y = 0.05, its middle segment's ends 2.5 cm either
 * side of the wall (every vertex falls beside the wall): straight, 2 cm above the wall's top,
 * dropped on the wall; or `taut`: a tent 2 cm above the top there down to its two ends, pinned
 * 5 cm below the top, pulled down onto the wall's top edges by gravity and the pins. Steps to
 * `seconds` checking every step; returns the steps in which some segment crossed the wall,
 * the positions at the end in x. */
static int drop_rope_on_wall(bool taut, double seconds, double *x)
{
    sb_world_def wd = sb_default_world_def();
    wd.max_step = wd.min_step = STEP;
    sb_world *w = NULL;
    cr_assert_eq(sb_world_create(&wd, &w), SB_OK, "%s", sb_last_error());
    solid_mesh wall = box_mesh(WALL_HALF, WALL_CENTRE);
    sb_collider_def cd = solid_collider_def(&wall);
    sb_collider_id cid;
    cr_assert_eq(sb_world_add_collider(w, &cd, &cid), SB_OK, "%s", sb_last_error());
    double x0[3 * VERTICES];
    for (int i = 0; i < VERTICES; i++)
        x0[3 * i] = 0.05 * (i - SEGMENTS / 2) - 0.025, x0[3 * i + 1] = 0.05,
        x0[3 * i + 2] = 0.22 - (taut ? 0.07 * (fabs(x0[3 * i]) - 0.025) / 0.6 : 0.0);
    int32_t counts[1] = {VERTICES}, pins[2] = {0, VERTICES - 1};
    sb_strand_def d = sb_default_strand_def();
    d.positions = x0, d.vertex_count = VERTICES, d.strand_count = 1, d.strand_vertex_counts = counts;
    if (taut) d.pins = pins, d.pin_count = 2;
    sb_cloth_id id;
    cr_assert_eq(sb_world_add_strands(w, &d, &id), SB_OK, "%s", sb_last_error());
    int bad_steps = 0, steps = (int)lround(seconds / STEP);
    for (int k = 1; k <= steps; k++) {
        cr_assert_eq(sb_world_step_to(w, k * STEP), SB_OK, "%s", sb_last_error());
        cr_assert_eq(sb_cloth_get_positions(w, id, x, VERTICES), SB_OK);
        bad_steps += segments_through_wall(x0, x) > 0;
        memcpy(x0, x, sizeof x0);
    }
    sb_world_stats st;
    sb_world_get_stats(w, &st);
    cr_assert_eq(st.steps, steps, "one step a call: %lld steps", (long long)st.steps);
    sb_world_destroy(w);
    solid_mesh_free(&wall);
    return bad_steps;
}

/* Checks over the drop, then that the rope hangs on the wall: its highest vertex just above
 * the wall's top, vertices on both sides of it. */
static void check_rope_hangs_on_wall(bool taut)
{
    double x[3 * VERTICES];
    int bad = drop_rope_on_wall(taut, test_quick() ? 0.3 : 0.8, x);
    cr_assert_eq(bad, 0, "%d steps in which a segment crossed or touched the wall's edges or ended in it", bad);
    double top = WALL_CENTRE[2] + WALL_HALF[2], highest = -INFINITY;
    int left = 0, right = 0;
    for (int i = 0; i < VERTICES; i++) {
        highest = fmax(highest, x[3 * i + 2]);
        left += x[3 * i] < -WALL_HALF[0], right += x[3 * i] > WALL_HALF[0];
    }
    cr_assert(highest > top && highest < top + 0.03, "highest vertex %g m from the wall's top", highest - top);
    cr_assert(left > 0 && right > 0, "%d vertices left of the wall, %d right", left, right);
}

Test(strand_edge_collision, rope_dropped_across_a_thin_wall_never_crosses_it_and_hangs_on_it)
{
    check_rope_hangs_on_wall(false);
}

Test(strand_edge_collision, taut_rope_pulled_onto_a_thin_wall_never_crosses_it_and_rests_on_it)
{
    check_rope_hangs_on_wall(true);
}
