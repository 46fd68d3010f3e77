/* Untangling (untangle.h, Baraff, Witkin & Kass 2003): a cloth that starts through itself or
 * through a collider comes apart within a second of 24 frames, and never gets more tangled on
 * the way. Judged by counts the library does not use: the exact intersecting pairs of
 * tests/c/intersections.c, and a generalised winding number (the solid angle of the collider
 * seen from a vertex over 4π: 1 inside a closed mesh, 0 outside). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "intersections.h"
#include "simbake.h"
#include "testutil.h"
#include "world.h"

enum { FRAMES = 24 };

static sb_world *make_world(void)
{
    sb_world_def wdef = sb_default_world_def();
    sb_world *w = NULL;
    cr_assert_eq(sb_world_create(&wdef, &w), SB_OK, "%s", sb_last_error());
    return w;
}

/* The fold of docs/robustness.md's hostile case: the upper half of an n x n sheet swung down
 * through the lower half along a tilted line. */
static void fold_through_itself(grid_mesh *g)
{
    for (int32_t i = 0; i < g->vertex_count; i++) {
        double *p = &g->positions[3 * i];
        if (p[1] > 0.0) p[2] = 0.15 - 0.6 * p[1] + 0.05 * p[0], p[1] *= -0.5;
    }
}

/* Steps frame by frame; the pairs after each frame into counts[0..FRAMES]. */
static void bake_counting(sb_world *w, bool include_self, int64_t counts[FRAMES + 1])
{
    counts[0] = count_intersections(w->cloths, w->cloth_count, w->colliders, w->collider_count, include_self);
    for (int f = 1; f <= FRAMES; f++) {
        cr_assert_eq(sb_world_step_to(w, f / 24.0), SB_OK, "frame %d: %s", f, sb_last_error());
        counts[f] = count_intersections(w->cloths, w->cloth_count, w->colliders, w->collider_count, include_self);
    }
    char line[512];
    int at = 0;
    for (int f = 0; f <= FRAMES; f++) at += snprintf(line + at, sizeof line - (size_t)at, " %lld", (long long)counts[f]);
    cr_log_info("intersecting pairs by frame:%s", line);
}

static void assert_untangles(const int64_t counts[FRAMES + 1])
{
    cr_assert(counts[0] > 0, "the scene starts tangled");
    for (int f = 1; f <= FRAMES; f++)
        cr_assert_leq(counts[f], counts[f - 1], "more tangled at frame %d: %lld pairs, %lld before", f,
                      (long long)counts[f], (long long)counts[f - 1]);
    cr_assert_eq(counts[FRAMES], 0, "%lld pairs left after %d frames", (long long)counts[FRAMES], FRAMES);
}

Test(untangle, a_cloth_folded_through_itself_comes_apart_within_24_frames)
{
    grid_mesh g = grid_mesh_make(test_quick() ? 10 : 16, 1.0, 0.0);
    fold_through_itself(&g);
    sb_world *w = make_world();
    sb_cloth_def d = grid_cloth_def(&g);
    d.self_collision = 1;
    sb_cloth_id id;
    cr_assert_eq(sb_world_add_cloth(w, &d, &id), SB_OK, "%s", sb_last_error());
    int64_t counts[FRAMES + 1];
    bake_counting(w, true, counts);
    assert_untangles(counts);
    sb_world_destroy(w);
    grid_mesh_free(&g);
}

/* Solid angle of triangle abc seen from p (Van Oosterom & Strackee 1983). */
static double solid_angle(const double *p, const double *a, const double *b, const double *c)
{
    double r[3][3];
    for (int k = 0; k < 3; k++) r[0][k] = a[k] - p[k], r[1][k] = b[k] - p[k], r[2][k] = c[k] - p[k];
    double len[3];
    for (int i = 0; i < 3; i++) len[i] = sqrt(r[i][0] * r[i][0] + r[i][1] * r[i][1] + r[i][2] * r[i][2]);
    double det = r[0][0] * (r[1][1] * r[2][2] - r[1][2] * r[2][1]) - r[0][1] * (r[1][0] * r[2][2] - r[1][2] * r[2][0]) +
                 r[0][2] * (r[1][0] * r[2][1] - r[1][1] * r[2][0]);
    double dot01 = r[0][0] * r[1][0] + r[0][1] * r[1][1] + r[0][2] * r[1][2];
    double dot12 = r[1][0] * r[2][0] + r[1][1] * r[2][1] + r[1][2] * r[2][2];
    double dot20 = r[2][0] * r[0][0] + r[2][1] * r[0][1] + r[2][2] * r[0][2];
    return 2.0 * atan2(det, len[0] * len[1] * len[2] + dot01 * len[2] + dot12 * len[0] + dot20 * len[1]);
}

static double winding_number(const solid_mesh *m, const double *p)
{
    double sum = 0.0;
    for (int32_t t = 0; t < m->triangle_count; t++) {
        const int32_t *v = &m->triangles[3 * t];
        sum += solid_angle(p, &m->positions[3 * v[0]], &m->positions[3 * v[1]], &m->positions[3 * v[2]]);
    }
    return sum / (16.0 * atan(1.0));
}

static int32_t vertices_inside(sb_world *w, sb_cloth_id id, int32_t n, const solid_mesh *sphere)
{
    double x[3 * 256];
    cr_assert(n <= 256);
    cr_assert_eq(sb_cloth_get_positions(w, id, x, n), SB_OK);
    int32_t inside = 0;
    for (int32_t i = 0; i < n; i++) inside += winding_number(sphere, &x[3 * i]) > 0.5;
    return inside;
}

/* A sheet, pinned at its corners or free, its middle through the top of a sphere (centred
 * `cx` from the sheet's centre, 0.1 below it): the part inside is pulled out and the sheet
 * ends over the sphere, with no vertex inside and no pair intersecting. On the way the count
 * may rise: vertices come out on either side of the sphere and the triangles between them
 * wrap it for a few frames. */
static void untangle_from_sphere(double cx, bool pinned)
{
    int32_t n = test_quick() ? 10 : 14;
    grid_mesh g = grid_mesh_make(n, 1.0, 0.0);
    sb_world *w = make_world();
    sb_cloth_def d = grid_cloth_def(&g);
    int32_t pins[4] = {0, n - 1, n * (n - 1), n * n - 1};
    d.pin_count = pinned ? 4 : 0, d.pins = pins;
    sb_cloth_id id;
    cr_assert_eq(sb_world_add_cloth(w, &d, &id), SB_OK, "%s", sb_last_error());
    const double center[3] = {cx, -0.03, -0.1};
    solid_mesh sphere = sphere_mesh(0.3, 12, 24, center);
    sb_collider_def c = solid_collider_def(&sphere);
    sb_collider_id collider_id;
    cr_assert_eq(sb_world_add_collider(w, &c, &collider_id), SB_OK, "%s", sb_last_error());
    int32_t inside_at_start = vertices_inside(w, id, n * n, &sphere);
    cr_assert(inside_at_start > n, "%d vertices start inside", (int)inside_at_start);
    int64_t counts[FRAMES + 1];
    bake_counting(w, false, counts);
    cr_assert(counts[0] > 0);
    cr_assert_eq(vertices_inside(w, id, n * n, &sphere), 0, "centre %g, %s: of %d vertices inside at the start, %d "
                 "still are", cx, pinned ? "pinned" : "free", (int)inside_at_start,
                 (int)vertices_inside(w, id, n * n, &sphere));
    cr_assert_eq(counts[FRAMES], 0, "centre %g, %s: %lld pairs left", cx, pinned ? "pinned" : "free",
                 (long long)counts[FRAMES]);
    sb_world_destroy(w);
    solid_mesh_free(&sphere);
    grid_mesh_free(&g);
}

Test(untangle, a_pinned_cloth_started_half_inside_a_sphere_ends_outside_it)
{
    untangle_from_sphere(0.0, true);
    untangle_from_sphere(0.3, true);
}

Test(untangle, a_free_cloth_started_half_inside_a_sphere_ends_outside_it)
{
    untangle_from_sphere(0.1, false);
    untangle_from_sphere(0.45, false);
}

/* A small sheet wholly inside a sphere, off its centre: it crosses none of the sphere's
 * triangles, so no pair counts it, but every vertex is inside (the library's count agrees
 * with the winding number) and the bake pulls it out: within 24 frames no vertex is inside
 * and no pair intersects. */
Test(untangle, a_cloth_wholly_inside_a_sphere_is_counted_and_pulled_out)
{
    int32_t n = test_quick() ? 5 : 8;
    grid_mesh g = grid_mesh_make(n, 0.2, 0.12);
    sb_world *w = make_world();
    sb_cloth_def d = grid_cloth_def(&g);
    sb_cloth_id id;
    cr_assert_eq(sb_world_add_cloth(w, &d, &id), SB_OK, "%s", sb_last_error());
    const double center[3] = {0.0, 0.0, 0.0};
    solid_mesh sphere = sphere_mesh(0.3, 12, 24, center);
    sb_collider_def c = solid_collider_def(&sphere);
    sb_collider_id ball;
    cr_assert_eq(sb_world_add_collider(w, &c, &ball), SB_OK, "%s", sb_last_error());
    int64_t pairs = -1, inside = -1;
    cr_assert_eq(sb_cloth_count_collider_intersections(w, id, ball, &pairs), SB_OK, "%s", sb_last_error());
    cr_assert_eq(pairs, 0, "wholly inside: no triangle crosses the sphere");
    cr_assert_eq(sb_cloth_count_vertices_inside_collider(w, id, ball, &inside), SB_OK, "%s", sb_last_error());
    cr_assert_eq(inside, vertices_inside(w, id, n * n, &sphere));
    cr_assert_eq(inside, n * n, "%lld of %d vertices inside", (long long)inside, (int)(n * n));
    int64_t counts[FRAMES + 1];
    bake_counting(w, false, counts);
    cr_assert_eq(vertices_inside(w, id, n * n, &sphere), 0, "%d vertices still inside",
                 (int)vertices_inside(w, id, n * n, &sphere));
    cr_assert_eq(counts[FRAMES], 0, "%lld pairs left", (long long)counts[FRAMES]);
    cr_assert_eq(sb_cloth_count_vertices_inside_collider(w, id, ball, &inside), SB_OK);
    cr_assert_eq(inside, 0);
    /* out through the near side, the top, where it lies on the sphere: not out of the bottom */
    double x[3 * 64];
    cr_assert_eq(sb_cloth_get_positions(w, id, x, n * n), SB_OK);
    for (int32_t i = 0; i < n * n; i++) cr_assert_gt(x[3 * i + 2], 0.2, "vertex %d at z = %g", (int)i, x[3 * i + 2]);
    sb_world_destroy(w);
    solid_mesh_free(&sphere);
    grid_mesh_free(&g);
}

/* A bake saved while the fold is being pulled apart (after frame 1: pulls under way) and
 * resumed in a world built again goes on bit-identically: the pulls are in the state. */
Test(untangle, a_bake_resumed_mid_untangling_is_bit_identical)
{
    grid_mesh g = grid_mesh_make(10, 1.0, 0.0);
    fold_through_itself(&g);
    sb_cloth_def d = grid_cloth_def(&g);
    d.self_collision = 1;
    sb_world *whole = make_world(), *resumed = make_world();
    sb_cloth_id id;
    cr_assert_eq(sb_world_add_cloth(whole, &d, &id), SB_OK);
    cr_assert_eq(sb_world_add_cloth(resumed, &d, &id), SB_OK);
    cr_assert_eq(sb_world_step_to(whole, 1.0 / 24.0), SB_OK, "%s", sb_last_error());
    cr_assert(whole->untangle.active && whole->untangle.pairs > 0, "saved while untangling");
    uint64_t size = 0;
    cr_assert_eq(sb_world_get_state_size(whole, &size), SB_OK);
    void *state = malloc(size);
    cr_assert_eq(sb_world_save_state(whole, state, size), SB_OK);
    cr_assert_eq(sb_world_load_state(resumed, state, size), SB_OK, "%s", sb_last_error());
    free(state);
    cr_assert_eq(sb_world_step_to(whole, 1.0), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_world_step_to(resumed, 1.0), SB_OK, "%s", sb_last_error());
    double a[3 * 100], b[3 * 100];
    cr_assert_eq(sb_cloth_get_positions(whole, id, a, 100), SB_OK);
    cr_assert_eq(sb_cloth_get_positions(resumed, id, b, 100), SB_OK);
    cr_assert_eq(memcmp(a, b, sizeof a), 0, "the resumed bake differs");
    int64_t left = count_intersections(whole->cloths, 1, NULL, 0, true);
    cr_assert_eq(left, 0, "%lld pairs left after 24 frames", (long long)left);
    sb_world_destroy(whole), sb_world_destroy(resumed);
    grid_mesh_free(&g);
}

/* The entry points that report what starts tangled count what the tests' own exact count
 * does, refuse what they cannot count, and count nothing where nothing collides. */
Test(untangle, the_counts_of_what_starts_tangled)
{
    grid_mesh g = grid_mesh_make(12, 1.0, 0.0);
    fold_through_itself(&g);
    sb_world *w = make_world();
    sb_cloth_def d = grid_cloth_def(&g);
    d.self_collision = 1;
    sb_cloth_id folded, loose, flat;
    cr_assert_eq(sb_world_add_cloth(w, &d, &folded), SB_OK);
    d.self_collision = 0;
    cr_assert_eq(sb_world_add_cloth(w, &d, &loose), SB_OK);
    grid_mesh far = grid_mesh_make(4, 0.5, 3.0);
    sb_cloth_def f = grid_cloth_def(&far);
    cr_assert_eq(sb_world_add_cloth(w, &f, &flat), SB_OK);
    const double center[3] = {0.2, -0.1, 0.05};
    solid_mesh sphere = sphere_mesh(0.25, 8, 16, center);
    sb_collider_def c = solid_collider_def(&sphere);
    sb_collider_id ball;
    cr_assert_eq(sb_world_add_collider(w, &c, &ball), SB_OK);
    int64_t pairs = -1;
    cr_assert_eq(sb_cloth_count_intersections(w, folded, folded, &pairs), SB_OK, "%s", sb_last_error());
    cr_assert_eq(pairs, count_intersections(&w->cloths[0], 1, NULL, 0, true));
    cr_assert(pairs > 0);
    cr_assert_eq(sb_cloth_count_intersections(w, loose, loose, &pairs), SB_OK);
    cr_assert_eq(pairs, 0, "a cloth that passes through itself freely is not tangled in itself");
    /* the two folded copies lie on each other: every pair of their twin triangles meets */
    cr_assert_eq(sb_cloth_count_intersections(w, folded, loose, &pairs), SB_OK);
    cr_assert_eq(pairs, count_intersections(&w->cloths[0], 2, NULL, 0, false));
    cr_assert_eq(sb_cloth_count_intersections(w, flat, folded, &pairs), SB_OK);
    cr_assert_eq(pairs, 0);
    cr_assert_eq(sb_cloth_count_collider_intersections(w, folded, ball, &pairs), SB_OK);
    cr_assert_eq(pairs, count_intersections(&w->cloths[0], 1, w->colliders, 1, false));
    cr_assert(pairs > 0);
    cr_assert_eq(sb_cloth_set_colliders(w, loose, NULL, 0), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_cloth_count_collider_intersections(w, loose, ball, &pairs), SB_OK);
    cr_assert_eq(pairs, 0, "a cloth that does not meet the collider is not tangled in it");
    cr_assert_eq(sb_cloth_count_intersections(NULL, folded, folded, &pairs), SB_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sb_cloth_count_intersections(w, folded, (sb_cloth_id){3}, &pairs), SB_ERROR_NOT_FOUND);
    cr_assert_eq(sb_cloth_count_intersections(w, (sb_cloth_id){-1}, folded, &pairs), SB_ERROR_NOT_FOUND);
    cr_assert_eq(sb_cloth_count_intersections(w, folded, folded, NULL), SB_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sb_cloth_count_collider_intersections(w, folded, (sb_collider_id){1}, &pairs), SB_ERROR_NOT_FOUND);
    cr_assert_eq(sb_cloth_count_collider_intersections(w, folded, ball, NULL), SB_ERROR_INVALID_ARGUMENT);
    int64_t inside = -1;
    cr_assert_eq(sb_cloth_count_vertices_inside_collider(w, folded, ball, &inside), SB_OK, "%s", sb_last_error());
    cr_assert_eq(inside, vertices_inside(w, folded, g.vertex_count, &sphere));
    cr_assert(inside > 0);
    cr_assert_eq(sb_cloth_count_vertices_inside_collider(w, loose, ball, &inside), SB_OK);
    cr_assert_eq(inside, 0, "a cloth that does not meet the collider is not inside it");
    cr_assert_eq(sb_cloth_count_vertices_inside_collider(NULL, folded, ball, &inside), SB_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sb_cloth_count_vertices_inside_collider(w, folded, (sb_collider_id){1}, &inside), SB_ERROR_NOT_FOUND);
    cr_assert_eq(sb_cloth_count_vertices_inside_collider(w, (sb_cloth_id){7}, ball, &inside), SB_ERROR_NOT_FOUND);
    cr_assert_eq(sb_cloth_count_vertices_inside_collider(w, folded, ball, NULL), SB_ERROR_INVALID_ARGUMENT);
    cr_assert(strlen(sb_last_error()) > 0);
    sb_world_destroy(w);
    solid_mesh_free(&sphere);
    grid_mesh_free(&far);
    grid_mesh_free(&g);
}
