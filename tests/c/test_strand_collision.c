/* Strands against each other (collision_strand_pairs.c and the cloth's collision response):
 * issue 31's "two ropes swung into each other never pass through each other", checked at
 * every step, segment pair by segment pair, by continuous detection along each step's straight
 * paths; a rope dropped on a taut rope rests on it; the same scenes with the strands' self
 * collision off do pass through (so the checks can fail); two crossed ropes landing together
 * on a sphere or a box do not cross where the colliders stop one of them. Every world steps exactly one step
 * per call (min_step = max_step: a step is never halved, impact zones always allowed), so the
 * positions seen are every step's. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collision_bvh.h"
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

static int32_t world_threads = 1; /* of the worlds made next */

static sb_world *one_step_world(void)
{
    sb_world_def wd = sb_default_world_def();
    wd.max_step = wd.min_step = STEP;
    wd.threads = world_threads;
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

/* The swinging ropes' collisions give the same bits on one and two threads, and from a saved
 * state; a state is refused by ropes without self collision (another model). */
Test(strand_collision, swinging_ropes_save_load_and_threads_give_the_same_bits)
{
    rope_scene one, two, other;
    world_threads = 1;
    swinging_ropes(&one, 1);
    world_threads = 2;
    swinging_ropes(&two, 1);
    world_threads = 1;
    swinging_ropes(&other, 0);
    double least;
    run_checked(&one, 0.4, &least); /* past the ropes' meeting (about 0.3 s) */
    uint64_t size = 0;
    cr_assert_eq(sb_world_get_state_size(one.world, &size), SB_OK);
    void *state = malloc(size);
    cr_assert_eq(sb_world_save_state(one.world, state, size), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_world_load_state(two.world, state, size), SB_OK, "%s", sb_last_error());
    cr_assert_neq(sb_world_load_state(other.world, state, size), SB_OK);
    double end = test_quick() ? 0.5 : 0.8;
    run_checked(&one, end, &least), run_checked(&two, end, &least);
    double x1[3 * MAX_VERTICES], x2[3 * MAX_VERTICES];
    sb_cloth_get_positions(one.world, one.id, x1, one.vertex_count);
    sb_cloth_get_positions(two.world, two.id, x2, two.vertex_count);
    cr_assert(memcmp(x1, x2, 3 * (size_t)one.vertex_count * sizeof *x1) == 0, "loaded on two threads, elsewhere");
    free(state);
    sb_world_destroy(one.world), sb_world_destroy(two.world), sb_world_destroy(other.world);
}

/* Self collision is on by default, and needs the implicit integrator (the explicit ones have
 * no collision response): refused there with a message, as a cloth's is. */
Test(strand_collision, self_collision_is_the_default_and_needs_the_implicit_integrator)
{
    cr_assert_eq(sb_default_strand_def().self_collision, 1);
    sb_world_def wd = sb_default_world_def();
    wd.integrator = SB_INTEGRATOR_RK4;
    sb_world *w = NULL;
    cr_assert_eq(sb_world_create(&wd, &w), SB_OK, "%s", sb_last_error());
    rope_scene s;
    memset(&s, 0, sizeof s);
    const double origin[3] = {0, 0, 0}, along_x[3] = {1, 0, 0};
    straight_rope(&s, 0, origin, along_x, 1.0, 4);
    sb_strand_def d = sb_default_strand_def();
    d.positions = s.x, d.vertex_count = s.vertex_count, d.strand_count = 1, d.strand_vertex_counts = s.counts;
    cr_assert_eq(sb_world_add_strands(w, &d, &s.id), SB_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(sb_last_error(), "implicit integrator"), "%s", sb_last_error());
    d.self_collision = 0;
    cr_assert_eq(sb_world_add_strands(w, &d, &s.id), SB_OK, "%s", sb_last_error());
    sb_world_destroy(w);
}

/* ---- strands and cloth ---------------------------------------------------------------------- */

enum { SHEET_N = 13 };

/* Over the step from (r0, c0) to (r1, c1), rope vertices x sheet faces and rope segments x
 * sheet edges that touched (continuous detection, a micrometre), with the rope's `count`
 * vertices one strand and the sheet a grid mesh. */
static int rope_sheet_touches(const double *r0, const double *r1, int count, const grid_mesh *sheet,
                              const double *c0, const double *c1)
{
    int touched = 0;
    ccd_hit hit;
    for (int t = 0; t < sheet->triangle_count; t++) {
        const int32_t *tri = &sheet->triangles[3 * t];
        for (int i = 0; i < count; i++) {
            vec3 p0[4] = {v3_load(&r0[3 * i]), v3_load(&c0[3 * tri[0]]), v3_load(&c0[3 * tri[1]]), v3_load(&c0[3 * tri[2]])};
            vec3 p1[4] = {v3_load(&r1[3 * i]), v3_load(&c1[3 * tri[0]]), v3_load(&c1[3 * tri[1]]), v3_load(&c1[3 * tri[2]])};
            if (point_boxes_within(p0, p1, 1, 1e-6) && ccd_vertex_face(p0, p1, 1e-6, &hit)) touched++;
        }
        for (int e = 0; e < 3; e++) {
            int32_t a = tri[e], b = tri[(e + 1) % 3];
            for (int i = 0; i + 1 < count; i++) {
                vec3 p0[4] = {v3_load(&r0[3 * i]), v3_load(&r0[3 * i + 3]), v3_load(&c0[3 * a]), v3_load(&c0[3 * b])};
                vec3 p1[4] = {v3_load(&r1[3 * i]), v3_load(&r1[3 * i + 3]), v3_load(&c1[3 * a]), v3_load(&c1[3 * b])};
                if (point_boxes_within(p0, p1, 2, 1e-6) && ccd_edge_edge(p0, p1, 1e-6, &hit)) touched++;
            }
        }
    }
    return touched;
}

/* A 0.6 m sheet of 13 x 13 vertices at z = 0 pinned all round, and a rope of 0.4 m in 16
 * segments dropped from 0.1 m above it across its grid lines; both in `rope_world` and
 * `sheet_world` (the same world, or two that never meet). */
typedef struct rope_and_sheet {
    grid_mesh sheet;
    int32_t sheet_pins[4 * SHEET_N], pin_count;
    double rope[3 * 17];
    int32_t rope_count;
    sb_cloth_id sheet_id, rope_id;
} rope_and_sheet;

static void add_rope_and_sheet(rope_and_sheet *s, sb_world *sheet_world, sb_world *rope_world)
{
    s->sheet = grid_mesh_make(SHEET_N, 0.6, 0.0);
    s->pin_count = 0;
    for (int j = 0; j < SHEET_N; j++)
        for (int i = 0; i < SHEET_N; i++)
            if (i == 0 || j == 0 || i == SHEET_N - 1 || j == SHEET_N - 1) s->sheet_pins[s->pin_count++] = j * SHEET_N + i;
    sb_cloth_def cd = grid_cloth_def(&s->sheet);
    cd.pins = s->sheet_pins, cd.pin_count = s->pin_count;
    cr_assert_eq(sb_world_add_cloth(sheet_world, &cd, &s->sheet_id), SB_OK, "%s", sb_last_error());
    s->rope_count = 17;
    const double dir[3] = {0.96, 0.28, 0.0};
    for (int i = 0; i < s->rope_count; i++) {
        double u = 0.4 * i / 16.0 - 0.2;
        s->rope[3 * i] = u * dir[0], s->rope[3 * i + 1] = 0.013 + u * dir[1], s->rope[3 * i + 2] = 0.1;
    }
    sb_strand_def d = sb_default_strand_def();
    d.positions = s->rope, d.vertex_count = s->rope_count, d.strand_count = 1, d.strand_vertex_counts = &s->rope_count;
    cr_assert_eq(sb_world_add_strands(rope_world, &d, &s->rope_id), SB_OK, "%s", sb_last_error());
}

/* Steps both worlds to `seconds`, one step a call; returns the steps in which the rope touched
 * or crossed the sheet. */
static int run_rope_and_sheet(rope_and_sheet *s, sb_world *sheet_world, sb_world *rope_world, double seconds)
{
    int nc = s->sheet.vertex_count, nr = s->rope_count, bad = 0, steps = (int)lround(seconds / STEP);
    double *c0 = malloc(3 * sizeof(double) * (size_t)nc), *c1 = malloc(3 * sizeof(double) * (size_t)nc);
    double r0[3 * 17], r1[3 * 17];
    sb_cloth_get_positions(sheet_world, s->sheet_id, c0, nc);
    sb_cloth_get_positions(rope_world, s->rope_id, r0, nr);
    for (int k = 1; k <= steps; k++) {
        cr_assert_eq(sb_world_step_to(sheet_world, k * STEP), SB_OK, "%s", sb_last_error());
        if (rope_world != sheet_world) cr_assert_eq(sb_world_step_to(rope_world, k * STEP), SB_OK, "%s", sb_last_error());
        sb_cloth_get_positions(sheet_world, s->sheet_id, c1, nc);
        sb_cloth_get_positions(rope_world, s->rope_id, r1, nr);
        bad += rope_sheet_touches(r0, r1, nr, &s->sheet, c0, c1) > 0;
        memcpy(c0, c1, 3 * sizeof(double) * (size_t)nc), memcpy(r0, r1, sizeof r0);
    }
    sb_world_stats st;
    sb_world_get_stats(rope_world, &st);
    cr_assert_eq(st.steps, steps, "one step a call: %lld steps for %d calls", (long long)st.steps, steps);
    free(c0), free(c1);
    return bad;
}

Test(strand_collision, rope_dropped_on_a_pinned_sheet_rests_on_it)
{
    sb_world *w = one_step_world();
    rope_and_sheet s;
    add_rope_and_sheet(&s, w, w);
    int bad = run_rope_and_sheet(&s, w, w, test_quick() ? 0.4 : 1.0);
    cr_assert_eq(bad, 0, "%d steps in which the rope touched or crossed the sheet", bad);
    /* the rope lies on the sheet, its contact distance (0.005 + 0.005 m) from it: every rope
     * vertex above the sheet's triangles, none further than 2 cm */
    double *c = malloc(3 * sizeof(double) * (size_t)s.sheet.vertex_count), r[3 * 17];
    sb_cloth_get_positions(w, s.sheet_id, c, s.sheet.vertex_count);
    sb_cloth_get_positions(w, s.rope_id, r, s.rope_count);
    for (int i = 0; i < s.rope_count; i++) {
        double nearest = INFINITY;
        vec3 n = v3(0, 0, 0);
        for (int t = 0; t < s.sheet.triangle_count; t++) {
            const int32_t *tri = &s.sheet.triangles[3 * t];
            vec3 x[4] = {v3_load(&r[3 * i]), v3_load(&c[3 * tri[0]]), v3_load(&c[3 * tri[1]]), v3_load(&c[3 * tri[2]])};
            double wts[4];
            vec3 normal;
            double d = vertex_face_distance(x, wts, &normal);
            if (d < nearest) nearest = d, n = normal;
        }
        cr_assert(nearest > 0.005 && nearest < 0.02, "rope vertex %d is %g m from the sheet", i, nearest);
        cr_assert_gt(n.z, 0.0, "rope vertex %d under the sheet", i);
    }
    free(c);
    grid_mesh_free(&s.sheet);
    sb_world_destroy(w);
}

Test(strand_collision, rope_and_sheet_that_never_meet_cross)
{
    /* the same two in two worlds: the check sees the rope fall through the sheet */
    sb_world *sheet_world = one_step_world(), *rope_world = one_step_world();
    rope_and_sheet s;
    add_rope_and_sheet(&s, sheet_world, rope_world);
    cr_assert_geq(run_rope_and_sheet(&s, sheet_world, rope_world, 0.4), 1, "the rope crossed the sheet in no step");
    grid_mesh_free(&s.sheet);
    sb_world_destroy(sheet_world), sb_world_destroy(rope_world);
}

/* ---- strands on a collider ----------------------------------------------------------------- */

/* Two crossed ropes of one definition (self collision on) dropped together onto a collider:
 * rope A, 1.2 m of 24 segments along x at z = z_a, rope B, 1.2 m of 24 segments along y at
 * z_b just below it (0.012 m: a little over their contact distance), both centred over the
 * origin and free. Dropped 1.2 m, they land at 4.9 m/s, 0.02 m a step: B's middle vertex
 * passes the surface within a step, where the sweep (strand_collide.h) stops it on the side
 * it came from, up where A has come to. With the sweep after the response (as it was), A and
 * B crossed there in one step on the sphere and one on the box; the sweep before the response
 * lets the response see it. (A landing this fast leaves them some 1 mm apart at the landing
 * step's end, not their 10 mm contact distance: only crossings are counted.) */
static void crossed_ropes_on(rope_scene *s, const solid_mesh *collider, double z_a, double z_b)
{
    memset(s, 0, sizeof *s);
    const double a_start[3] = {-0.6, 0.0, z_a}, along_x[3] = {1, 0, 0};
    const double b_start[3] = {0.0, -0.6, z_b}, along_y[3] = {0, 1, 0};
    straight_rope(s, 0, a_start, along_x, 1.2, 24);
    straight_rope(s, 1, b_start, along_y, 1.2, 24);
    add_strands(s, NULL, 0, 1);
    sb_collider_def cd = solid_collider_def(collider);
    sb_collider_id cid;
    cr_assert_eq(sb_world_add_collider(s->world, &cd, &cid), SB_OK, "%s", sb_last_error());
}

Test(strand_collision, crossed_ropes_dropped_on_a_sphere_never_pass_through_each_other)
{
    const double centre[3] = {0, 0, 0};
    solid_mesh ball = sphere_mesh(0.3, 16, 32, centre);
    rope_scene s;
    crossed_ropes_on(&s, &ball, 1.512, 1.5);
    double least;
    int bad = run_checked(&s, 0.7, &least);
    cr_assert_eq(bad, 0, "%d steps in which two segments touched or crossed", bad);
    cr_assert_gt(least, 0.0, "two segments %g m apart", least);
    double x[3 * MAX_VERTICES], deepest = INFINITY;
    sb_cloth_get_positions(s.world, s.id, x, s.vertex_count);
    for (int i = 0; i < s.vertex_count; i++) deepest = fmin(deepest, convex_signed_distance(&ball, &x[3 * i]));
    cr_assert_gt(deepest, 0.0, "a vertex ended %g m inside the sphere", -deepest);
    sb_world_destroy(s.world);
    solid_mesh_free(&ball);
}

Test(strand_collision, crossed_ropes_dropped_on_a_box_never_pass_through_each_other)
{
    const double half[3] = {0.3, 0.3, 0.2}, centre[3] = {0, 0, 0};
    solid_mesh box = box_mesh(half, centre);
    rope_scene s;
    crossed_ropes_on(&s, &box, 1.412, 1.4);
    double least;
    int bad = run_checked(&s, 0.7, &least);
    cr_assert_eq(bad, 0, "%d steps in which two segments touched or crossed", bad);
    cr_assert_gt(least, 0.0, "two segments %g m apart", least);
    double x[3 * MAX_VERTICES], deepest = INFINITY;
    sb_cloth_get_positions(s.world, s.id, x, s.vertex_count);
    for (int i = 0; i < s.vertex_count; i++) deepest = fmin(deepest, convex_signed_distance(&box, &x[3 * i]));
    cr_assert_gt(deepest, 0.0, "a vertex ended %g m inside the box", -deepest);
    sb_world_destroy(s.world);
    solid_mesh_free(&box);
}
