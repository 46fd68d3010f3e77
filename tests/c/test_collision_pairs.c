/* Candidate pairs of the collision response: one gathering serves for as long as it holds,
 * the response is the same whenever the pairs were gathered and on any number of threads,
 * and only the sharp features of a collider take part in proximity. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "collision_ccd.h"
#include "collider.h"
#include "collision_response.h"
#include "intersections.h"
#include "collision_scratch.h"
#include "collision_rest_neighbours.h"
#include "threads.h"
#include "simbake.h"
#include "testutil.h"
#include "wall_clock.h"
#include "world.h"

enum { GRID = 16 };

/* 2 s; 1 s under Valgrind (test_quick) */
static int frames(void) { return test_quick() ? 24 : 48; }

typedef struct drop_result {
    double *x, *v;     /* final positions and velocities */
    int64_t gathers;   /* times the pairs were gathered */
    int64_t updates;   /* times they were updated for a few strayed vertices */
    int64_t collisions; /* continuous collisions, plus vertices on colliders at the end */
} drop_result;

/* A world of default settings holding the grid as a default cloth (self collision as given)
 * and the solids as colliders. */
static sb_world *world_of(const grid_mesh *g, bool self_collision, const solid_mesh *const *solids, int32_t count)
{
    sb_world_def wd = sb_default_world_def();
    sb_world *w;
    cr_assert_eq(sb_world_create(&wd, &w), SB_OK);
    sb_cloth_def cd = sb_default_cloth_def();
    cd.vertex_count = g->vertex_count, cd.positions = g->positions;
    cd.triangle_count = g->triangle_count, cd.triangles = g->triangles;
    cd.self_collision = self_collision;
    sb_cloth_id cloth_id;
    cr_assert_eq(sb_world_add_cloth(w, &cd, &cloth_id), SB_OK, "%s", sb_last_error());
    for (int32_t i = 0; i < count; i++) {
        sb_collider_def kd = solid_collider_def(solids[i]);
        sb_collider_id collider_id;
        cr_assert_eq(sb_world_add_collider(w, &kd, &collider_id), SB_OK, "%s", sb_last_error());
    }
    return w;
}

/* A 16 x 16 cloth with self collision, for 2 s: dropped over a box and a sphere beside it
 * (it folds over the box's edges), or flat onto a floor (it comes to rest, and one gathering
 * then serves many steps). With `forget`, the collision scratch is dropped before every
 * frame, so every frame starts with a fresh gathering. */
static drop_result drop(bool forget, bool on_floor)
{
    grid_mesh g = grid_mesh_make(GRID, 0.8, on_floor ? 0.05 : 0.35);
    double half[3] = {0.15, 0.15, 0.15}, box_center[3] = {-0.1, 0, 0.15}, ball_center[3] = {0.25, 0.05, 0.1};
    solid_mesh box = box_mesh(half, box_center), ball = sphere_mesh(0.1, 8, 16, ball_center), floor = plane_mesh(3.0, 0.0);
    sb_cloth_id id = {0}; /* the one cloth world_of adds */
    int32_t colliders = on_floor ? 1 : 2;
    const solid_mesh *solids[2] = {on_floor ? &floor : &box, &ball};
    sb_world *w = world_of(&g, true, solids, colliders);
    drop_result r = {malloc(sizeof(double) * 3 * (size_t)g.vertex_count),
                     malloc(sizeof(double) * 3 * (size_t)g.vertex_count), 0, 0, 0};
    for (int f = 1, last = frames(); f <= last; f++) {
        if (forget && w->collision) {
            r.gathers += w->collision->gather_count, r.updates += w->collision->update_count;
            collision_scratch_free(w->collision);
            w->collision = NULL;
        }
        cr_assert_eq(sb_world_step_to(w, f / 24.0), SB_OK, "%s", sb_last_error());
        cr_assert_eq(count_intersections(w->cloths, 1, w->colliders, colliders, true), 0, "frame %d", f);
    }
    r.gathers += w->collision->gather_count, r.updates += w->collision->update_count;
    sb_world_stats stats;
    sb_world_get_stats(w, &stats);
    r.collisions = stats.collisions + stats.last_contacts;
    cr_assert_eq(sb_cloth_get_positions(w, id, r.x, g.vertex_count), SB_OK);
    cr_assert_eq(sb_cloth_get_velocities(w, id, r.v, g.vertex_count), SB_OK);
    sb_world_destroy(w);
    grid_mesh_free(&g), solid_mesh_free(&box), solid_mesh_free(&ball), solid_mesh_free(&floor);
    return r;
}

static void expect_same(const drop_result *a, const drop_result *b, const char *what)
{
    size_t bytes = sizeof(double) * 3 * GRID * GRID;
    cr_assert_eq(memcmp(a->x, b->x, bytes), 0, "positions differ: %s", what);
    cr_assert_eq(memcmp(a->v, b->v, bytes), 0, "velocities differ: %s", what);
}

static void drop_result_free(drop_result *r) { free(r->x), free(r->v); }

Test(collision_pairs, the_response_does_not_depend_on_when_the_pairs_were_gathered, .timeout = 120)
{
    for (int on_floor = 0; on_floor <= 1; on_floor++) {
        drop_result kept = drop(false, on_floor), fresh = drop(true, on_floor);
        cr_log_info("%s: gathered %lld times and updated %lld times keeping the pairs, gathered %lld times "
                    "starting every frame afresh; %lld collisions", on_floor ? "floor" : "box",
                    (long long)kept.gathers, (long long)kept.updates, (long long)fresh.gathers,
                    (long long)kept.collisions);
        cr_assert_gt(kept.collisions, 0, "no collision was exercised");
        if (on_floor) cr_assert_lt(kept.gathers, fresh.gathers, "the kept pairs never served a second step");
        else cr_assert_gt(kept.updates, 0, "no update of a few strayed vertices was exercised");
        expect_same(&kept, &fresh, on_floor ? "on the floor" : "over the box");
        drop_result_free(&kept), drop_result_free(&fresh);
    }
}

#ifdef _OPENMP
Test(collision_pairs, the_response_does_not_depend_on_the_thread_count, .timeout = 120)
{
    int saved = omp_get_max_threads();
    for (int on_floor = 0; on_floor <= 1; on_floor++) { /* over the box, updates run too */
        omp_set_num_threads(1);
        drop_result one = drop(false, on_floor);
        omp_set_num_threads(3); /* more threads than cores: the triangles split three ways */
        drop_result three = drop(false, on_floor);
        omp_set_num_threads(saved);
        expect_same(&one, &three, on_floor ? "one thread or three, on the floor" : "one thread or three, over the box");
        drop_result_free(&one), drop_result_free(&three);
    }
}
#endif

static bool same_pair(const feature_pair *a, const feature_pair *b)
{
    return a->edge_edge == b->edge_edge && a->proximity == b->proximity && a->feature == b->feature &&
           !memcmp(a->v, b->v, sizeof a->v) && !memcmp(a->objects, b->objects, sizeof a->objects) && a->ta == b->ta &&
           a->tb == b->tb;
}

/* After every frame whose pairs were last updated rather than gathered, a whole gathering
 * with the same boxes lists the same pairs in the same order. */
Test(collision_pairs, an_update_lists_what_a_whole_gathering_of_its_boxes_lists, .timeout = 120)
{
    grid_mesh g = grid_mesh_make(GRID, 0.8, 0.35);
    double half[3] = {0.15, 0.15, 0.15}, box_center[3] = {-0.1, 0, 0.15}, ball_center[3] = {0.25, 0.05, 0.1};
    solid_mesh box = box_mesh(half, box_center), ball = sphere_mesh(0.1, 8, 16, ball_center);
    const solid_mesh *solids[2] = {&box, &ball};
    sb_world *w = world_of(&g, true, solids, 2);
    int compared = 0;
    for (int f = 1, last = frames(); f <= last; f++) {
        cr_assert_eq(sb_world_step_to(w, f / 24.0), SB_OK, "%s", sb_last_error());
        collision_scratch *s = w->collision;
        if (!s || s->updates_since_gathering == 0) continue;
        int32_t count = s->pair_count;
        feature_pair *updated = malloc(sizeof *updated * (size_t)count);
        memcpy(updated, s->pairs, sizeof *updated * (size_t)count);
        cr_assert(pairs_gather_within_boxes(s));
        cr_assert_eq(s->pair_count, count, "frame %d: %d pairs gathered, %d after the update", f, s->pair_count, count);
        for (int32_t k = 0; k < count; k++) cr_assert(same_pair(&s->pairs[k], &updated[k]), "frame %d: pair %d", f, k);
        compared++;
        free(updated);
    }
    cr_log_info("compared after %d frames", compared);
    cr_assert_gt(compared, 2);
    sb_world_destroy(w);
    grid_mesh_free(&g), solid_mesh_free(&box), solid_mesh_free(&ball);
}

static int count_set(const uint8_t *flags, int32_t count)
{
    int n = 0;
    for (int32_t i = 0; i < count; i++) n += flags[i] != 0;
    return n;
}

static collider *make_collider(const solid_mesh *m)
{
    sb_collider_def def = solid_collider_def(m);
    collider *c;
    cr_assert_eq(collider_create(&def, 0.0, &c), SB_OK, "%s", sb_last_error());
    return c;
}

Test(collision_pairs, a_box_is_sharp_along_its_edges_and_at_its_corners)
{
    double half[3] = {0.3, 0.2, 0.1}, center[3] = {1, 2, 3};
    solid_mesh box = box_mesh(half, center);
    collider *c = make_collider(&box);
    cr_assert_eq(c->model.topo.edge_count, 18);
    cr_assert_eq(count_set(c->model.sharp_edge, c->model.topo.edge_count), 12, "the face diagonals are flat, the rest sharp");
    cr_assert_eq(count_set(c->model.sharp_vertex, c->model.vertex_count), 8);
    collider_destroy(c);
    solid_mesh_free(&box);
}

Test(collision_pairs, a_fine_sphere_has_no_sharp_feature_and_a_plane_only_its_border)
{
    double center[3] = {0, 0, 0};
    solid_mesh ball = sphere_mesh(0.5, 16, 32, center), floor = plane_mesh(2.0, 0.3);
    collider *c = make_collider(&ball);
    cr_assert_eq(count_set(c->model.sharp_edge, c->model.topo.edge_count), 0);
    cr_assert_eq(count_set(c->model.sharp_vertex, c->model.vertex_count), 0);
    collider_destroy(c);
    c = make_collider(&floor);
    cr_assert_eq(count_set(c->model.sharp_edge, c->model.topo.edge_count), 4, "the four border edges, not the diagonal");
    cr_assert_eq(count_set(c->model.sharp_vertex, c->model.vertex_count), 4);
    collider_destroy(c);
    solid_mesh_free(&ball), solid_mesh_free(&floor);
}

/* Squared distance of segments p0 p1 and q0 q1, by sampling one and projecting on the other:
 * a test's own measure, independent of the library's closest points. */
static double segment_distance(const double *p0, const double *p1, const double *q0, const double *q1)
{
    double best = INFINITY, d[3], len2 = 0.0;
    for (int k = 0; k < 3; k++) d[k] = q1[k] - q0[k], len2 += d[k] * d[k];
    for (int i = 0; i <= 200; i++) {
        double s = i / 200.0, p[3], t = 0.0;
        for (int k = 0; k < 3; k++) p[k] = p0[k] + s * (p1[k] - p0[k]), t += (p[k] - q0[k]) * d[k];
        t = len2 > 0.0 ? fmin(1.0, fmax(0.0, t / len2)) : 0.0;
        double dist2 = 0.0;
        for (int k = 0; k < 3; k++) dist2 += (p[k] - q0[k] - t * d[k]) * (p[k] - q0[k] - t * d[k]);
        best = fmin(best, dist2);
    }
    return sqrt(best);
}

/* The sharp edges of a box take part in proximity: cloth draped over it keeps its edges a
 * contact distance (the two thicknesses) off the box's edges, not merely off its faces. After
 * 2 s, also under Valgrind: at 1 s the cloth still slides over the edges, and an edge caught
 * by continuous detection in the last step ends a tenth of the distance off. */
Test(collision_pairs, cloth_over_a_box_keeps_its_edges_off_the_box_edges, .timeout = 120)
{
    grid_mesh g = grid_mesh_make(GRID, 0.8, 0.35);
    double half[3] = {0.15, 0.15, 0.15}, center[3] = {0, 0, 0.15};
    solid_mesh box = box_mesh(half, center);
    const solid_mesh *solids[1] = {&box};
    sb_world *w = world_of(&g, false, solids, 1);
    for (int f = 1; f <= 48; f++) cr_assert_eq(sb_world_step_to(w, f / 24.0), SB_OK, "%s", sb_last_error());
    const collider *c = w->colliders[0];
    const double *x = w->cloths[0]->state.x;
    double closest = INFINITY, contact = w->cloths[0]->model.thickness + c->model.thickness;
    for (int32_t e = 0; e < c->model.topo.edge_count; e++) {
        const double *q0 = &box.positions[3 * c->model.topo.edges[2 * e]], *q1 = &box.positions[3 * c->model.topo.edges[2 * e + 1]];
        int differ = (q0[0] != q1[0]) + (q0[1] != q1[1]) + (q0[2] != q1[2]);
        if (differ != 1) continue; /* a face's diagonal, not one of the box's edges */
        for (int32_t t = 0; t < g.triangle_count; t++)
            for (int i = 0; i < 3; i++) {
                const int32_t *tri = &g.triangles[3 * t];
                closest = fmin(closest, segment_distance(&x[3 * tri[i]], &x[3 * tri[(i + 1) % 3]], q0, q1));
            }
    }
    cr_log_info("closest cloth edge to a box edge: %.3g mm (contact distance %.3g mm)", 1e3 * closest, 1e3 * contact);
    cr_assert_gt(closest, 0.9 * contact, "a cloth edge is %.3g mm from a box edge", 1e3 * closest);
    sb_world_destroy(w);
    grid_mesh_free(&g), solid_mesh_free(&box);
}

/* The table of features near at rest holds exactly the pairs closer than its distance,
 * against every pair measured one by one. 800 triangles: their search runs in several chunks
 * (threads.h), whose lists are joined. */
Test(collision_pairs, features_near_at_rest_are_those_closer_than_the_distance)
{
    grid_mesh g = grid_mesh_make(21, 0.6, 0.0);
    /* a fold, so that pairs across it are near too */
    for (int32_t i = 0; i < g.vertex_count; i++)
        if (g.positions[3 * i] > 0.05) g.positions[3 * i + 2] = 0.8 * (g.positions[3 * i] - 0.05);
    topology topo;
    cr_assert(topology_build(&topo, g.triangles, g.triangle_count, g.vertex_count));
    double distance = 0.036; /* 1.2 edges */
    cr_assert_gt(chunk_count(g.triangle_count), 1);
    rest_neighbours near;
    cr_assert(rest_neighbours_build(&near, g.positions, &topo, distance));
    int listed = 0, far = 0;
    for (int32_t v = 0; v < g.vertex_count; v++)
        for (int32_t t = 0; t < g.triangle_count; t++) {
            const int32_t *tri = &g.triangles[3 * t];
            if (tri[0] == v || tri[1] == v || tri[2] == v) continue;
            vec3 x[4] = {v3_load(&g.positions[3 * v]), v3_load(&g.positions[3 * tri[0]]),
                         v3_load(&g.positions[3 * tri[1]]), v3_load(&g.positions[3 * tri[2]])};
            double w[4];
            vec3 n;
            bool close = vertex_face_distance(x, w, &n) < distance;
            cr_assert_eq(rest_near_vertex_face(&near, v, t), close, "vertex %d, face %d", v, t);
            listed += close, far += !close;
        }
    for (int32_t e = 0; e < topo.edge_count; e++)
        for (int32_t f = 0; f < topo.edge_count; f++) {
            const int32_t *a = &topo.edges[2 * e], *b = &topo.edges[2 * f];
            if (a[0] == b[0] || a[0] == b[1] || a[1] == b[0] || a[1] == b[1]) continue;
            vec3 x[4] = {v3_load(&g.positions[3 * a[0]]), v3_load(&g.positions[3 * a[1]]),
                         v3_load(&g.positions[3 * b[0]]), v3_load(&g.positions[3 * b[1]])};
            double w[4];
            vec3 n;
            bool close = edge_edge_distance(x, w, &n) < distance;
            cr_assert_eq(rest_near_edges(&near, e, f), close, "edges %d and %d", e, f);
            listed += close, far += !close;
        }
    cr_assert_gt(listed, 100);
    cr_assert_gt(far, 100);
    /* each row strictly ascending: sorted for the lookups' binary search, each pair once */
    for (int32_t v = 0; v < g.vertex_count; v++)
        for (int32_t k = near.face_start[v] + 1; k < near.face_start[v + 1]; k++)
            cr_assert_lt(near.faces[k - 1], near.faces[k], "vertex %d", v);
    for (int32_t e = 0; e < topo.edge_count; e++)
        for (int32_t k = near.edge_start[e] + 1; k < near.edge_start[e + 1]; k++)
            cr_assert_lt(near.edges[k - 1], near.edges[k], "edge %d", e);
    rest_neighbours_free(&near);
    topology_free(&topo);
    grid_mesh_free(&g);
}

static int32_t count_anchored(const collision_scratch *s)
{
    int32_t n = 0;
    for (int32_t v = 0; v < s->vertex_count; v++) n += s->paths[v].anchored;
    return n;
}

/* Pairs gathered for one 1/24 s step of the cloth in world w, whose vertices all move by
 * `shift` (metres) over it; on a fresh scratch. */
static int32_t pairs_for_shift(sb_world *w, const double shift[3])
{
    cloth *c = w->cloths[0];
    for (int32_t i = 0; i < 3 * c->model.vertex_count; i++) {
        c->scratch.x_new[i] = c->state.x[i] + shift[i % 3];
        c->scratch.v_new[i] = 24.0 * shift[i % 3];
    }
    collision_scratch_free(w->collision);
    w->collision = NULL;
    collision_report report;
    cr_assert(collisions_resolve(&w->collision, w->cloths, 1, w->colliders, 0, 1.0 / 24.0, true, false, &report));
    cr_assert_eq(report.impulses, 0, "a cloth moving as one collided with itself");
    return w->collision->pair_count;
}

/* Features moving together cannot close in on one another, however far they go: a cloth
 * with self collision that moves 0.5 m in a step as one (its swept boxes overlapping ten
 * rows of triangles) gathers exactly the pairs it gathers standing still. Its vertices,
 * moving further than the cloth's thickness, are anchored to their paths. */
Test(collision_pairs, a_cloth_moving_as_one_gathers_the_pairs_it_gathers_at_rest)
{
    grid_mesh g = grid_mesh_make(GRID, 0.8, 0.35);
    sb_world *w = world_of(&g, true, NULL, 0);
    double still[3] = {0, 0, 0}, moving[3] = {0.3, -0.2, 0.35};
    int32_t at_rest = pairs_for_shift(w, still);
    cr_assert_gt(at_rest, 0, "no pairs of neighbouring features at rest");
    /* still vertices keep their pairs while their paths stay in their boxes */
    cr_assert_eq(count_anchored(w->collision), 0);
    cr_assert_eq(pairs_for_shift(w, moving), at_rest);
    cr_assert_eq(count_anchored(w->collision), g.vertex_count);
    sb_world_destroy(w);
    grid_mesh_free(&g);
}

/* The benchmarks' phase timers (world.h): every part of a step with collisions takes some
 * time, and the parts never add up to more than the steps took. */
Test(collision_pairs, the_phase_timers_share_out_the_time_of_the_steps, .timeout = 120)
{
    grid_mesh g = grid_mesh_make(GRID, 0.8, 0.35);
    double center[3] = {0, 0, 0.1};
    solid_mesh ball = sphere_mesh(0.15, 8, 16, center);
    const solid_mesh *solids[1] = {&ball};
    sb_world *w = world_of(&g, true, solids, 1);
    double start = wall_seconds();
    for (int f = 1; f <= 12; f++) cr_assert_eq(sb_world_step_to(w, f / 24.0), SB_OK, "%s", sb_last_error());
    double elapsed = wall_seconds() - start;
    const phase_seconds *p = &w->phases;
    cr_assert(p->assembly > 0 && p->solve > 0 && p->pairs > 0 && p->response > 0,
              "a part took no time: assembly %g, solve %g, pairs %g, response %g", p->assembly, p->solve, p->pairs,
              p->response);
    double parts = p->assembly + p->solve + p->pairs + p->response;
    cr_assert_leq(parts, elapsed, "the parts took %g s of %g s", parts, elapsed);
    sb_world_destroy(w);
    grid_mesh_free(&g), solid_mesh_free(&ball);
}
