/* Strands against each other (collision_strand_pairs.c and the cloth's collision response):
 * issue 31's "two ropes swung into each other never pass through each other", checked at
 * every step, segment pair by segment pair, by continuous detection along each step's straight
 * paths; a rope dropped on a taut rope rests on it; the same scenes with the strands' self
 * collision off do pass through (so the checks can fail). Every world steps exactly one step
 * per call (min_step = max_step: a step is never halved, impact zones always allowed), so the
 * positions seen are every step's. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collision_ccd.h"
#include "simbake.h"
#include "testutil.h"

enum { MAX_VERTICES = 128 };

/* Strands of one definition: `count` ropes, each from start[k] along dir[k] for `length` m in
 * `segments` segments, pinned at the listed vertices. */
typedef struct rope_scene {
    sb_world *world;
    sb_cloth_id id;
    int32_t vertex_count, strand_count, counts[4];
    double x[3 * MAX_VERTICES];
} rope_scene;

static const double STEP = 1.0 / 240.0;

static sb_world *one_step_world(void)
{
    sb_world_def wd = sb_default_world_def();
    wd.max_step = wd.min_step = STEP;
    sb_world *w = NULL;
    cr_assert_eq(sb_world_create(&wd, &w), SB_OK, "%s", sb_last_error());
    return w;
}

/* A straight rope of `segments` from `start` along unit `dir` for `length` m, as strand k. */
static void straight_rope(rope_scene *s, int k, const double start[3], const double dir[3], double length, int segments)
{
    int first = s->vertex_count;
    s->counts[k] = segments + 1, s->strand_count = k + 1, s->vertex_count += segments + 1;
    cr_assert_leq(s->vertex_count, MAX_VERTICES);
    for (int i = 0; i <= segments; i++)
        for (int a = 0; a < 3; a++) s->x[3 * (first + i) + a] = start[a] + dir[a] * length * i / segments;
}

/* A rope of `segments` across x = x0 from y = -half to half, arched up to `rise` above its
 * ends at height z0: z = z0 + rise (1 - (y / half)²), as strand k. */
static void arched_rope(rope_scene *s, int k, double x0, double z0, double half, double rise, int segments)
{
    int first = s->vertex_count;
    s->counts[k] = segments + 1, s->strand_count = k + 1, s->vertex_count += segments + 1;
    cr_assert_leq(s->vertex_count, MAX_VERTICES);
    for (int i = 0; i <= segments; i++) {
        double y = -half + 2.0 * half * i / segments, u = y / half;
        double *p = &s->x[3 * (first + i)];
        p[0] = x0, p[1] = y, p[2] = z0 + rise * (1.0 - u * u);
    }
}

/* The strands given so far as one definition into a world that steps one step a call. */
static void add_strands(rope_scene *s, const int32_t *pins, int pin_count, int self_collision)
{
    s->world = one_step_world();
    sb_strand_def d = sb_default_strand_def();
    d.positions = s->x, d.vertex_count = s->vertex_count, d.strand_count = s->strand_count;
    d.strand_vertex_counts = s->counts, d.pins = pins, d.pin_count = pin_count, d.self_collision = self_collision;
    cr_assert_eq(sb_world_add_strands(s->world, &d, &s->id), SB_OK, "%s", sb_last_error());
}

/* Whether vertex i ends a strand's segment run (no segment from i to i + 1). */
static bool strand_end(const rope_scene *s, int i)
{
    for (int k = 0, first = 0; k < s->strand_count; first += s->counts[k++])
        if (i == first + s->counts[k] - 1) return true;
    return false;
}

/* Over the step from x0 to x1, the segment pairs that touched (continuous detection with a
 * tolerance of a micrometre) and the least distance of any pair at x1. */
static int touching_pairs(const rope_scene *s, const double *x0, const double *x1, double *least)
{
    int touched = 0;
    *least = INFINITY;
    for (int a = 0; a + 1 < s->vertex_count; a++) {
        if (strand_end(s, a)) continue;
        for (int b = a + 2; b + 1 < s->vertex_count; b++) { /* (a, a + 1) and (a + 1, a + 2) share a vertex */
            if (strand_end(s, b)) continue;
            vec3 p0[4] = {v3_load(&x0[3 * a]), v3_load(&x0[3 * a + 3]), v3_load(&x0[3 * b]), v3_load(&x0[3 * b + 3])};
            vec3 p1[4] = {v3_load(&x1[3 * a]), v3_load(&x1[3 * a + 3]), v3_load(&x1[3 * b]), v3_load(&x1[3 * b + 3])};
            ccd_hit hit;
            if (ccd_edge_edge(p0, p1, 1e-6, &hit)) touched++;
            double w[4];
            vec3 n;
            *least = fmin(*least, edge_edge_distance(p1, w, &n));
        }
    }
    return touched;
}

/* Steps from the world's time to `seconds`, one step a call, checking every step; returns the
 * steps in which some pair touched, and the least distance seen at a step's end in *least. */
static int run_checked(rope_scene *s, double seconds, double *least)
{
    double before[3 * MAX_VERTICES], after[3 * MAX_VERTICES];
    cr_assert_eq(sb_cloth_get_positions(s->world, s->id, before, s->vertex_count), SB_OK);
    sb_world_stats st;
    sb_world_get_stats(s->world, &st);
    int first = (int)st.steps, bad_steps = 0, steps = (int)lround(seconds / STEP);
    *least = INFINITY;
    for (int k = first + 1; k <= steps; k++) {
        cr_assert_eq(sb_world_step_to(s->world, k * STEP), SB_OK, "%s", sb_last_error());
        cr_assert_eq(sb_cloth_get_positions(s->world, s->id, after, s->vertex_count), SB_OK);
        double least_now;
        bad_steps += touching_pairs(s, before, after, &least_now) > 0;
        *least = fmin(*least, least_now);
        memcpy(before, after, sizeof before);
    }
    sb_world_get_stats(s->world, &st);
    cr_assert_eq(st.steps, steps, "one step a call: %lld steps for %d calls", (long long)st.steps, steps - first);
    return bad_steps;
}

/* Rope A, 1 m of 20 segments pinned at the origin, released horizontally along +x, swings
 * down in the plane y = 0; rope B, 0.8 m wide between its two pinned ends at x = 0.6, z = -0.2,
 * arched 0.15 m up between them, swings down through the plane of its ends as A's outer part
 * falls across it. */
static void swinging_ropes(rope_scene *s, int self_collision)
{
    memset(s, 0, sizeof *s);
    const double origin[3] = {0, 0, 0}, along_x[3] = {1, 0, 0};
    straight_rope(s, 0, origin, along_x, 1.0, 20);
    arched_rope(s, 1, 0.6, -0.2, 0.4, 0.15, 16);
    const int32_t pins[3] = {0, 21, 37};
    add_strands(s, pins, 3, self_collision);
}

/* The lowest point of strand k (its vertices' least z). */
static double lowest(const rope_scene *s, int k, const double *x)
{
    int first = 0;
    for (int j = 0; j < k; j++) first += s->counts[j];
    double z = INFINITY;
    for (int i = first; i < first + s->counts[k]; i++) z = fmin(z, x[3 * i + 2]);
    return z;
}

Test(strand_collision, swinging_ropes_never_pass_through_each_other)
{
    rope_scene s;
    swinging_ropes(&s, 1);
    double least;
    int bad = run_checked(&s, test_quick() ? 0.6 : 2.0, &least);
    cr_assert_eq(bad, 0, "%d steps in which two segments touched or crossed", bad);
    /* at the steps' ends the response holds them at their contact distance (2 x 0.005 m) or
     * near it */
    cr_assert_gt(least, 0.005, "two segments %g m apart", least);
    /* A caught on B: had it passed, it would hang from its pin down to z = -0.97 (as below) */
    double x[3 * MAX_VERTICES];
    sb_cloth_get_positions(s.world, s.id, x, s.vertex_count);
    cr_assert_gt(lowest(&s, 0, x), -0.75, "rope A hangs down to %g m: it passed B", lowest(&s, 0, x));
    sb_world_destroy(s.world);
}

Test(strand_collision, swinging_ropes_pass_through_each_other_without_self_collision)
{
    rope_scene s;
    swinging_ropes(&s, 0);
    double least;
    int bad = run_checked(&s, test_quick() ? 0.6 : 2.0, &least);
    cr_assert_geq(bad, 1, "the ropes crossed in no step");
    if (!test_quick()) {
        double x[3 * MAX_VERTICES];
        sb_cloth_get_positions(s.world, s.id, x, s.vertex_count);
        cr_assert_lt(lowest(&s, 0, x), -0.9, "rope A passed B and hangs from its pin");
    }
    sb_world_destroy(s.world);
}

/* Rope B, 1 m of 16 segments along y at z = 0, pinned at both ends; rope A, 1 m of 20 segments
 * along x, free, dropped from 0.2 m above B's middle. */
static void rope_on_taut_rope(rope_scene *s, int self_collision)
{
    memset(s, 0, sizeof *s);
    const double b_start[3] = {0, -0.5, 0}, along_y[3] = {0, 1, 0}, a_start[3] = {-0.5, 0, 0.2}, along_x[3] = {1, 0, 0};
    straight_rope(s, 0, b_start, along_y, 1.0, 16);
    straight_rope(s, 1, a_start, along_x, 1.0, 20);
    const int32_t pins[2] = {0, 16};
    add_strands(s, pins, 2, self_collision);
}

Test(strand_collision, rope_dropped_on_a_taut_rope_rests_on_it)
{
    rope_scene s;
    rope_on_taut_rope(&s, 1);
    double least, seconds = test_quick() ? 0.6 : 1.5, middle_before[3 * MAX_VERTICES];
    int bad = run_checked(&s, seconds - 0.25, &least);
    sb_cloth_get_positions(s.world, s.id, middle_before, s.vertex_count);
    double least_after;
    bad += run_checked(&s, seconds, &least_after);
    cr_assert_eq(bad, 0, "%d steps in which two segments touched or crossed", bad);
    double x[3 * MAX_VERTICES];
    sb_cloth_get_positions(s.world, s.id, x, s.vertex_count);
    /* A lies on B at their contact distance (2 x 0.005 m), its middle (vertex 27) above B's
     * (8), both ends hanging down (and swinging a little), its middle come to rest */
    double contact = INFINITY, drift = 0.0; /* how far A's middle moved over the last 0.25 s */
    for (int a = 17; a < 37; a++) {
        if (a >= 25 && a <= 29) drift = fmax(drift, v3_len(v3_sub(v3_load(&x[3 * a]), v3_load(&middle_before[3 * a]))));
        for (int b = 0; b < 16; b++) {
            vec3 p[4] = {v3_load(&x[3 * a]), v3_load(&x[3 * a + 3]), v3_load(&x[3 * b]), v3_load(&x[3 * b + 3])};
            double w[4];
            vec3 n;
            contact = fmin(contact, edge_edge_distance(p, w, &n));
        }
    }
    cr_assert(contact > 0.009 && contact < 0.0105, "A lies %g m from B", contact);
    cr_assert_gt(x[3 * 27 + 2], x[3 * 8 + 2], "A's middle below B's");
    cr_assert_lt(fabs(x[3 * 8 + 2]), 0.05, "B sags %g m", x[3 * 8 + 2]);
    cr_assert(x[3 * 17 + 2] < x[3 * 27 + 2] - 0.2 && x[3 * 37 + 2] < x[3 * 27 + 2] - 0.2, "A's ends do not hang");
    if (!test_quick()) cr_assert_lt(drift, 0.005, "A's middle moved %g m in the last 0.25 s", drift);
    sb_world_destroy(s.world);
}

Test(strand_collision, rope_dropped_on_a_taut_rope_falls_through_without_self_collision)
{
    rope_scene s;
    rope_on_taut_rope(&s, 0);
    double least;
    int bad = run_checked(&s, 0.5, &least);
    cr_assert_geq(bad, 1, "the ropes crossed in no step");
    double x[3 * MAX_VERTICES];
    sb_cloth_get_positions(s.world, s.id, x, s.vertex_count);
    cr_assert_lt(x[3 * 27 + 2], -0.5, "A fell past B");
    sb_world_destroy(s.world);
}
