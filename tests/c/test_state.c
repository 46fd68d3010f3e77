/* Resumable worlds: a world saved at a frame, built again from the same definitions and
 * loaded, goes on bit for bit as the world that never stopped; a damaged state or one from
 * another scene is refused and changes nothing. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "simbake.h"
#include "allocation_failures.h"
#include "testutil.h"
#include "world.h"

enum { GRID = 12, BOXES = 6, FRAMES = 30, FRAME_SAVED = 14 };
static const double FPS = 24.0;

/* Everything that moves: a pinned cloth with self collision whose pins swing, falling on a
 * sphere and on a box carried by a rigid body, a plane collider that rises, and a small pile
 * of boxes on a static floor with a kinematic pusher. */
typedef struct scene {
    sb_world *world;
    grid_mesh grid;
    solid_mesh sphere, plane, carried;
    int32_t pins[2];
    sb_cloth_id cloth;
    sb_collider_id plane_id;
    sb_body_id pusher;
} scene;

static void add_box(sb_world *w, int type, const double center[3], const double half[3], double spin, sb_body_id *id)
{
    sb_body_def d = sb_default_body_def();
    d.type = type;
    d.shape = SB_SHAPE_BOX;
    memcpy(d.center, center, sizeof d.center);
    memcpy(d.half_extents, half, sizeof d.half_extents);
    d.rotation[0] = cos(spin / 2), d.rotation[3] = sin(spin / 2);
    d.friction = 0.6, d.restitution = 0.2;
    cr_assert_eq(sb_world_add_body(w, &d, id), SB_OK, "%s", sb_last_error());
}

/* The scene under `wdef`, its cloth's stretch stiffness scaled by `stiffer`. */
static scene build_with(const sb_world_def *wdef, double stiffer)
{
    scene s = {.grid = grid_mesh_make(GRID, 1.0, 0.6), .pins = {0, GRID - 1}};
    cr_assert_eq(sb_world_create(wdef, &s.world), SB_OK, "%s", sb_last_error());
    sb_cloth_def c = sb_default_cloth_def();
    c.stretch_stiffness *= stiffer;
    c.vertex_count = s.grid.vertex_count, c.positions = s.grid.positions;
    c.triangle_count = s.grid.triangle_count, c.triangles = s.grid.triangles;
    c.pin_count = 2, c.pins = s.pins;
    c.self_collision = 1;
    cr_assert_eq(sb_world_add_cloth(s.world, &c, &s.cloth), SB_OK, "%s", sb_last_error());

    s.sphere = sphere_mesh(0.2, 8, 12, (double[3]){0.1, 0.0, 0.3});
    sb_collider_def sphere = solid_collider_def(&s.sphere);
    sb_collider_id sphere_id;
    cr_assert_eq(sb_world_add_collider(s.world, &sphere, &sphere_id), SB_OK, "%s", sb_last_error());
    s.plane = plane_mesh(3.0, 0.0);
    sb_collider_def plane = solid_collider_def(&s.plane);
    cr_assert_eq(sb_world_add_collider(s.world, &plane, &s.plane_id), SB_OK, "%s", sb_last_error());

    sb_body_id floor, body;
    add_box(s.world, SB_BODY_STATIC, (double[3]){3.0, 0.0, -0.5}, (double[3]){2.0, 2.0, 0.5}, 0.0, &floor);
    for (int i = 0; i < BOXES; i++)
        add_box(s.world, SB_BODY_DYNAMIC, (double[3]){3.0 + 0.05 * (i % 2), 0.02 * i, 0.2 + 0.45 * i},
                (double[3]){0.2, 0.2, 0.2}, 0.3 * i, &body);
    add_box(s.world, SB_BODY_KINEMATIC, (double[3]){2.0, 0.0, 0.2}, (double[3]){0.1, 0.5, 0.2}, 0.0, &s.pusher);
    /* a dynamic box under the cloth carries a collider */
    add_box(s.world, SB_BODY_DYNAMIC, (double[3]){-0.3, 0.2, 0.1}, (double[3]){0.1, 0.1, 0.1}, 0.2, &body);
    s.carried = box_mesh((double[3]){0.1, 0.1, 0.1}, (double[3]){-0.3, 0.2, 0.1});
    sb_collider_def carried = solid_collider_def(&s.carried);
    sb_collider_id carried_id;
    cr_assert_eq(sb_world_add_collider(s.world, &carried, &carried_id), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_collider_follow_body(s.world, carried_id, body), SB_OK, "%s", sb_last_error());
    return s;
}

static scene build(void)
{
    sb_world_def wdef = sb_default_world_def();
    return build_with(&wdef, 1.0);
}

static void free_scene(scene *s)
{
    sb_world_destroy(s->world);
    grid_mesh_free(&s->grid);
    solid_mesh_free(&s->sphere), solid_mesh_free(&s->plane), solid_mesh_free(&s->carried);
}

/* The animation at frame f: pins swing, the plane rises, the pusher slides. */
static void animate(scene *s, int frame)
{
    double t = frame / FPS;
    double pins[6] = {-0.5 + 0.2 * sin(3 * t), -0.5, 0.6, 0.5, -0.5 + 0.1 * t, 0.6 + 0.05 * sin(5 * t)};
    cr_assert_eq(sb_cloth_set_pin_targets(s->world, s->cloth, t, pins, 2), SB_OK, "%s", sb_last_error());
    double *plane = malloc(3 * (size_t)s->plane.vertex_count * sizeof *plane);
    for (int32_t i = 0; i < s->plane.vertex_count; i++) {
        plane[3 * i] = s->plane.positions[3 * i], plane[3 * i + 1] = s->plane.positions[3 * i + 1];
        plane[3 * i + 2] = s->plane.positions[3 * i + 2] + 0.01 * frame;
    }
    cr_assert_eq(sb_collider_set_positions(s->world, s->plane_id, t, plane, s->plane.vertex_count), SB_OK, "%s", sb_last_error());
    free(plane);
    double push[16] = {1, 0, 0, 0.4 * t, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    cr_assert_eq(sb_body_set_target(s->world, s->pusher, t, push), SB_OK, "%s", sb_last_error());
}

static void run_frames(scene *s, int from, int to)
{
    for (int f = from + 1; f <= to; f++) {
        animate(s, f);
        cr_assert_eq(sb_world_step_to(s->world, f / FPS), SB_OK, "frame %d: %s", f, sb_last_error());
    }
}

/* Everything a caller can read, as bytes. */
typedef struct snapshot {
    double positions[3 * GRID * GRID], velocities[3 * GRID * GRID];
    double transforms[16 * (BOXES + 3)];
    sb_body_state bodies[BOXES + 3];
    sb_world_stats stats;
    double time;
} snapshot;

static void take(const scene *s, snapshot *out)
{
    memset(out, 0, sizeof *out);
    cr_assert_eq(sb_cloth_get_positions(s->world, s->cloth, out->positions, GRID * GRID), SB_OK);
    cr_assert_eq(sb_cloth_get_velocities(s->world, s->cloth, out->velocities, GRID * GRID), SB_OK);
    cr_assert_eq(sb_world_get_body_transforms(s->world, out->transforms, BOXES + 3), SB_OK, "%s", sb_last_error());
    for (int32_t i = 0; i < BOXES + 3; i++) {
        sb_body_state state;
        memset(&state, 0, sizeof state);
        cr_assert_eq(sb_body_get_state(s->world, (sb_body_id){i}, &state), SB_OK);
        out->bodies[i] = state;
    }
    sb_world_stats stats;
    memset(&stats, 0, sizeof stats);
    cr_assert_eq(sb_world_get_stats(s->world, &stats), SB_OK);
    out->stats = stats;
    out->time = sb_world_get_time(s->world);
}

static void *save(const scene *s, uint64_t *size)
{
    cr_assert_eq(sb_world_get_state_size(s->world, size), SB_OK, "%s", sb_last_error());
    void *state = malloc(*size);
    cr_assert_eq(sb_world_save_state(s->world, state, *size), SB_OK, "%s", sb_last_error());
    return state;
}

static void compare(const snapshot *a, const snapshot *b, const char *when)
{
    cr_assert(memcmp(a->positions, b->positions, sizeof a->positions) == 0, "%s: cloth positions differ", when);
    cr_assert(memcmp(a->velocities, b->velocities, sizeof a->velocities) == 0, "%s: cloth velocities differ", when);
    cr_assert(memcmp(a->transforms, b->transforms, sizeof a->transforms) == 0, "%s: bodies differ", when);
    for (int i = 0; i < BOXES + 3; i++)
        cr_assert(memcmp(&a->bodies[i], &b->bodies[i], sizeof a->bodies[i]) == 0, "%s: body %d's state differs", when, i);
    cr_assert(memcmp(&a->stats, &b->stats, sizeof a->stats) == 0, "%s: statistics differ", when);
    cr_assert(a->time == b->time, "%s: time differs", when);
}

Test(state, a_resumed_world_matches_the_one_that_never_stopped_bit_for_bit)
{
    scene straight = build();
    run_frames(&straight, 0, FRAME_SAVED);
    uint64_t size;
    void *state = save(&straight, &size);
    snapshot at_save, at_load;
    take(&straight, &at_save);
    run_frames(&straight, FRAME_SAVED, FRAMES);
    snapshot end_straight;
    take(&straight, &end_straight);

    scene resumed = build();
    cr_assert_eq(sb_world_load_state(resumed.world, state, size), SB_OK, "%s", sb_last_error());
    take(&resumed, &at_load);
    compare(&at_save, &at_load, "right after loading");
    run_frames(&resumed, FRAME_SAVED, FRAMES);
    snapshot end_resumed;
    take(&resumed, &end_resumed);
    compare(&end_straight, &end_resumed, "at the last frame");

    /* the scene really moved, collided and made contacts after the save */
    cr_assert(end_straight.stats.steps > at_save.stats.steps);
    cr_assert(end_straight.stats.collisions + end_straight.stats.last_contacts > 0, "no contact to carry over");
    int touching = 0;
    for (int i = 0; i < BOXES + 3; i++) touching += end_straight.bodies[i].contacts > 0;
    cr_assert(touching >= 3, "the boxes should rest on each other (%d touching)", touching);

    uint64_t size_again;
    void *again = save(&resumed, &size_again);
    void *straight_state = save(&straight, &size);
    cr_assert(size == size_again && memcmp(again, straight_state, size) == 0, "the states at the end differ");
    free(again), free(straight_state), free(state);
    free_scene(&straight), free_scene(&resumed);
}

Test(state, a_state_can_be_loaded_into_a_world_that_has_already_stepped)
{
    scene a = build(), b = build();
    run_frames(&a, 0, 6);
    uint64_t size;
    void *state = save(&a, &size);
    run_frames(&b, 0, 11); /* elsewhere in time, with its own trees and warm starts */
    cr_assert_eq(sb_world_load_state(b.world, state, size), SB_OK, "%s", sb_last_error());
    run_frames(&a, 6, 12), run_frames(&b, 6, 12);
    snapshot sa, sb;
    take(&a, &sa), take(&b, &sb);
    compare(&sa, &sb, "six frames after loading");
    free(state);
    free_scene(&a), free_scene(&b);
}

/* The library's checksum (64-bit FNV-1a over the payload, by words) written into a state's
 * header again, as a forger would after changing the payload. */
static void fix_checksum(uint8_t *state, uint64_t size)
{
    uint64_t h = 0xcbf29ce484222325ULL, n = size - 32;
    const uint8_t *p = state + 32;
    for (; n >= 8; n -= 8, p += 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        h = (h ^ word) * 0x100000001b3ULL;
    }
    for (; n > 0; n--, p++) h = (h ^ *p) * 0x100000001b3ULL;
    memcpy(state + 24, &h, 8);
}

static void expect_refused(scene *s, const void *state, uint64_t size, const char *needle)
{
    snapshot before, after;
    take(s, &before);
    sb_result r = sb_world_load_state(s->world, state, size);
    cr_assert_eq(r, SB_ERROR_INVALID_ARGUMENT, "got %s", sb_result_name(r));
    cr_assert(strstr(sb_last_error(), needle), "message \"%s\" lacks \"%s\"", sb_last_error(), needle);
    take(s, &after);
    compare(&before, &after, "after a refused state");
}

Test(state, damaged_states_are_refused_and_change_nothing)
{
    scene s = build();
    run_frames(&s, 0, 4);
    uint64_t size;
    uint8_t *state = save(&s, &size);
    run_frames(&s, 4, 6);
    expect_refused(&s, state, size - 1, "cut short");
    expect_refused(&s, state, 10, "header");
    uint8_t *copy = malloc(size);
    memcpy(copy, state, size);
    copy[size / 2] ^= 0x40;
    expect_refused(&s, copy, size, "checksum");
    memcpy(copy, state, size);
    copy[0] = 'X';
    expect_refused(&s, copy, size, "not a SimBake state");
    cr_assert_eq(sb_world_load_state(NULL, state, size), SB_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sb_world_load_state(s.world, NULL, size), SB_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sb_world_save_state(s.world, copy, size - 8), SB_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(sb_last_error(), "sb_world_get_state_size"));
    cr_assert_eq(sb_world_get_state_size(s.world, NULL), SB_ERROR_INVALID_ARGUMENT);
    free(copy), free(state);
    free_scene(&s);
}

Test(state, a_state_of_another_scene_is_refused_naming_what_differs)
{
    scene s = build();
    run_frames(&s, 0, 3);
    uint64_t size;
    void *state = save(&s, &size);

    sb_world_def wdef = sb_default_world_def();
    sb_world *empty;
    cr_assert_eq(sb_world_create(&wdef, &empty), SB_OK);
    cr_assert_eq(sb_world_load_state(empty, state, size), SB_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(sb_last_error(), "0 cloths"), "%s", sb_last_error());
    sb_world_destroy(empty);

    /* the same objects, a stiffer cloth */
    scene other = build_with(&wdef, 2.0);
    cr_assert_eq(sb_world_load_state(other.world, state, size), SB_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(sb_last_error(), "cloth 0's rest shape, masses, pins or material"), "%s", sb_last_error());
    free_scene(&other);

    /* the same objects, other world settings */
    wdef.max_step /= 2;
    scene slower = build_with(&wdef, 1.0);
    cr_assert_eq(sb_world_load_state(slower.world, state, size), SB_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(sb_last_error(), "its settings"), "%s", sb_last_error());
    free_scene(&slower);
    free(state);
    free_scene(&s);
}

Test(state, every_single_byte_flip_past_the_checksum_is_caught_or_harmless)
{
    /* the checksum catches flips; a state whose checksum is recomputed after a flip must still
     * be refused or loaded without reading outside any buffer (ASan and valgrind watch) */
    scene s = build();
    run_frames(&s, 0, 3);
    uint64_t size;
    uint8_t *state = save(&s, &size);
    uint8_t *copy = malloc(size);
    int refused = 0, loaded = 0;
    for (uint64_t at = 32; at < size; at += 1 + at / 64) {
        memcpy(copy, state, size);
        copy[at] ^= 0xA5;
        fix_checksum(copy, size);
        if (sb_world_load_state(s.world, copy, size) == SB_OK) {
            loaded++;
            cr_assert_eq(sb_world_load_state(s.world, state, size), SB_OK, "%s", sb_last_error());
        } else {
            refused++;
        }
    }
    cr_assert(refused > 0 && loaded > 0, "refused %d, loaded %d", refused, loaded);
    run_frames(&s, 3, 5);
    free(copy), free(state);
    free_scene(&s);
}

/* A cloth large enough for the multigrid (linalg_cg.h) chooses its preconditioner from the counts
 * of past solves; the state carries them, so the resumed bake chooses as the straight one. */
static sb_world *large_hanging_cloth(grid_mesh *g, int32_t pins[2])
{
    sb_world *w;
    sb_world_def wd = sb_default_world_def();
    cr_assert_eq(sb_world_create(&wd, &w), SB_OK, "%s", sb_last_error());
    sb_cloth_def c = sb_default_cloth_def();
    c.vertex_count = g->vertex_count, c.positions = g->positions;
    c.triangle_count = g->triangle_count, c.triangles = g->triangles;
    c.pin_count = 2, c.pins = pins;
    c.stretch_stiffness *= 10.0; /* block Jacobi's solves take long enough to prefer the multigrid */
    sb_cloth_id id;
    cr_assert_eq(sb_world_add_cloth(w, &c, &id), SB_OK, "%s", sb_last_error());
    w->cloths[0]->scratch.cg.multigrid_min_rows = 1; /* a 64² cloth is below the default threshold */
    return w;
}

Test(state, a_resumed_large_cloth_chooses_its_preconditioner_as_before, .timeout = 600)
{
    enum { SIDE = 64, SAVED = 3, LAST = 6 };
    grid_mesh g = grid_mesh_make(SIDE, 1.0, 0.6);
    int32_t pins[2] = {0, SIDE - 1};
    sb_world *straight = large_hanging_cloth(&g, pins), *resumed = large_hanging_cloth(&g, pins);
    cr_assert_eq(sb_world_step_to(straight, SAVED / FPS), SB_OK, "%s", sb_last_error());
    uint64_t size;
    cr_assert_eq(sb_world_get_state_size(straight, &size), SB_OK);
    void *state = malloc(size);
    cr_assert_eq(sb_world_save_state(straight, state, size), SB_OK, "%s", sb_last_error());
    const cg_history *cg = &straight->cloths[0]->state.cg;
    cr_assert_geq(cg->jacobi_iterations, 0, "the solver has not counted a solve yet");
    cr_assert_eq(sb_world_load_state(resumed, state, size), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_world_step_to(straight, LAST / FPS), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_world_step_to(resumed, LAST / FPS), SB_OK, "%s", sb_last_error());
    cr_assert_geq(cg->multigrid_iterations, 0, "the multigrid never ran (last block-Jacobi solve: %d iterations): "
                  "this test would prove nothing", cg->jacobi_iterations);
    size_t len = 3 * (size_t)g.vertex_count;
    double *a = malloc(len * sizeof *a), *b = malloc(len * sizeof *b);
    cr_assert_eq(sb_cloth_get_positions(straight, (sb_cloth_id){0}, a, g.vertex_count), SB_OK);
    cr_assert_eq(sb_cloth_get_positions(resumed, (sb_cloth_id){0}, b, g.vertex_count), SB_OK);
    cr_assert(memcmp(a, b, len * sizeof *a) == 0, "the resumed cloth went elsewhere");
    free(a), free(b), free(state);
    sb_world_destroy(straight), sb_world_destroy(resumed);
    grid_mesh_free(&g);
}

/* A collider's saved tree replaced by a chain of `depth` inner nodes, each with a leaf of one
 * triangle on its left (the last leaf takes the rest): a layout the old check let through, whose
 * depth overflowed the fixed stack of the tree queries. Returns the new state (its size in *size). */
static uint8_t *with_chain_tree(const uint8_t *state, uint64_t *size, const bvh *tree, int32_t depth)
{
    uint8_t header[16];
    memcpy(header, &tree->node_count, 4), memcpy(header + 4, &tree->prim_count, 4);
    memcpy(header + 8, &tree->built_area, 8);
    const uint8_t *at = NULL;
    for (uint64_t i = 32; i + 16 <= *size && !at; i++)
        if (memcmp(state + i, header, 16) == 0) at = state + i;
    cr_assert(at, "the collider's tree is not in the state");
    enum { NODE = 56 };
    int32_t nodes = 2 * depth + 1, old_nodes = tree->node_count;
    uint64_t head = (uint64_t)(at - state), old_tree = 16 + (uint64_t)NODE * old_nodes;
    uint64_t new_size = *size - old_tree + 16 + (uint64_t)NODE * nodes;
    uint8_t *out = malloc(new_size);
    memcpy(out, state, head);
    memcpy(out + head, &nodes, 4), memcpy(out + head + 4, &tree->prim_count, 4);
    memcpy(out + head + 8, &tree->built_area, 8);
    uint8_t *node = out + head + 16;
    double everywhere[6] = {-1e3, -1e3, -1e3, 1e3, 1e3, 1e3};
    for (int32_t i = 0; i < nodes; i++, node += NODE) {
        int32_t level = i / 2, count, index;
        if (i % 2 == 1) count = 1, index = level;                                  /* a left leaf */
        else if (i < nodes - 1) count = 0, index = i + 2;                          /* the chain */
        else count = tree->prim_count - depth, index = depth;                      /* the last leaf */
        memcpy(node, everywhere, 48), memcpy(node + 48, &count, 4), memcpy(node + 52, &index, 4);
    }
    memcpy(node, at + old_tree, *size - head - old_tree);
    uint64_t payload = new_size - 32;
    memcpy(out + 16, &payload, 8);
    fix_checksum(out, new_size);
    *size = new_size;
    return out;
}

Test(state, a_collision_tree_deeper_than_any_build_is_refused)
{
    grid_mesh g = grid_mesh_make(8, 1.0, 0.6);
    solid_mesh ball = sphere_mesh(0.3, 16, 16, (double[3]){0.0, 0.0, 0.2});
    cr_assert_geq(ball.triangle_count, 400);
    sb_world_def wdef = sb_default_world_def();
    sb_world *w;
    cr_assert_eq(sb_world_create(&wdef, &w), SB_OK);
    sb_cloth_def c = grid_cloth_def(&g);
    sb_cloth_id id;
    cr_assert_eq(sb_world_add_cloth(w, &c, &id), SB_OK, "%s", sb_last_error());
    sb_collider_def k = solid_collider_def(&ball);
    cr_assert_eq(sb_world_add_collider(w, &k, &(sb_collider_id){0}), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_world_step_to(w, 2.0 / FPS), SB_OK, "%s", sb_last_error());
    uint64_t size;
    cr_assert_eq(sb_world_get_state_size(w, &size), SB_OK);
    uint8_t *state = malloc(size);
    cr_assert_eq(sb_world_save_state(w, state, size), SB_OK);

    uint64_t chain_size = size;
    uint8_t *chain = with_chain_tree(state, &chain_size, &w->colliders[0]->state.tree, 200);
    cr_assert_eq(sb_world_load_state(w, chain, chain_size), SB_ERROR_INVALID_ARGUMENT, "the chain was loaded");
    cr_assert(strstr(sb_last_error(), "collision tree is deeper"), "%s", sb_last_error());
    free(chain);
    /* as deep as the check allows still loads, and steps */
    chain_size = size;
    chain = with_chain_tree(state, &chain_size, &w->colliders[0]->state.tree, BVH_MAX_DEPTH);
    cr_assert_eq(sb_world_load_state(w, chain, chain_size), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_world_step_to(w, 4.0 / FPS), SB_OK, "%s", sb_last_error());
    free(chain), free(state);
    sb_world_destroy(w);
    solid_mesh_free(&ball);
    grid_mesh_free(&g);
}

Test(state, a_load_refused_for_want_of_memory_leaves_the_world_as_it_was)
{
    /* a world that has not stepped has built no collider tree: loading makes room for them */
    scene straight = build();
    run_frames(&straight, 0, 3);
    uint64_t size;
    void *state = save(&straight, &size);
    int frames = test_quick() ? 10 : FRAMES; /* the cloth lands on the colliders after frame 4 */
    scene reference = build();
    run_frames(&reference, 0, frames);
    snapshot expected;
    take(&reference, &expected);
    free_scene(&reference);

    int refused = 0;
    for (long fail = 0;; fail++) {
        scene s = build();
        test_fail_allocations_after(fail);
        sb_result r = sb_world_load_state(s.world, state, size);
        long failed = test_fail_allocations_after(-1);
        if (failed == 0) { /* past the load's last allocation */
            cr_assert_eq(r, SB_OK, "%s", sb_last_error());
            free_scene(&s);
            break;
        }
        cr_assert_eq(r, SB_ERROR_OUT_OF_MEMORY, "allocation %ld: %s", fail, sb_last_error());
        refused++;
        /* refused: the world goes on as one that never saw the state */
        run_frames(&s, 0, frames);
        snapshot after;
        take(&s, &after);
        compare(&expected, &after, "after a load refused for want of memory");
        free_scene(&s);
    }
    cr_assert_gt(refused, 0, "no allocation of the load failed");
    free(state);
    free_scene(&straight);
}

/* The warp and weft a cloth's UVs give are part of what it is: a state saved with other UVs
 * is refused (the rest frames differ), however the positions agree. */
Test(state, a_state_saved_with_other_uvs_is_refused)
{
    grid_mesh g = grid_mesh_make(6, 1.0, 0.5);
    double *uvs[2];
    for (int k = 0; k < 2; k++) {
        uvs[k] = malloc(6 * (size_t)g.triangle_count * sizeof(double));
        for (int32_t t = 0; t < g.triangle_count; t++)
            for (int corner = 0; corner < 3; corner++) {
                const double *p = &g.positions[3 * g.triangles[3 * t + corner]];
                /* the second map turns warp and weft by 90 degrees */
                uvs[k][6 * t + 2 * corner] = k ? p[1] : p[0];
                uvs[k][6 * t + 2 * corner + 1] = k ? -p[0] : p[1];
            }
    }
    sb_world *worlds[2];
    for (int k = 0; k < 2; k++) {
        sb_world_def wdef = sb_default_world_def();
        cr_assert_eq(sb_world_create(&wdef, &worlds[k]), SB_OK);
        sb_cloth_def c = grid_cloth_def(&g);
        c.uvs = uvs[k];
        sb_cloth_id id;
        cr_assert_eq(sb_world_add_cloth(worlds[k], &c, &id), SB_OK, "%s", sb_last_error());
    }
    cr_assert_eq(sb_world_step_to(worlds[0], 1.0 / FPS), SB_OK);
    uint64_t size;
    cr_assert_eq(sb_world_get_state_size(worlds[0], &size), SB_OK);
    void *state = malloc(size);
    cr_assert_eq(sb_world_save_state(worlds[0], state, size), SB_OK);
    cr_assert_eq(sb_world_load_state(worlds[1], state, size), SB_ERROR_INVALID_ARGUMENT, "other UVs were loaded");
    cr_assert(strstr(sb_last_error(), "warp and weft"), "%s", sb_last_error());
    cr_assert_eq(sb_world_load_state(worlds[0], state, size), SB_OK, "%s", sb_last_error());
    free(state);
    for (int k = 0; k < 2; k++) sb_world_destroy(worlds[k]), free(uvs[k]);
    grid_mesh_free(&g);
}

/* A body's fingerprint takes all of its model, its shape's geometry too: a static mesh whose
 * square is split along the other diagonal (same vertices, centre, reach and mass) is another
 * body, and its state is refused. */
Test(state, a_state_saved_with_another_body_mesh_is_refused)
{
    const double square[12] = {-1, -1, 0, 1, -1, 0, 1, 1, 0, -1, 1, 0};
    const int32_t splits[2][6] = {{0, 1, 2, 0, 2, 3}, {0, 1, 3, 1, 2, 3}};
    sb_world *worlds[2];
    for (int k = 0; k < 2; k++) {
        sb_world_def wdef = sb_default_world_def();
        cr_assert_eq(sb_world_create(&wdef, &worlds[k]), SB_OK);
        sb_body_def d = sb_default_body_def();
        d.type = SB_BODY_STATIC, d.shape = SB_SHAPE_MESH;
        d.vertex_count = 4, d.vertices = square, d.triangle_count = 2, d.triangles = splits[k];
        sb_body_id id;
        cr_assert_eq(sb_world_add_body(worlds[k], &d, &id), SB_OK, "%s", sb_last_error());
    }
    cr_assert_eq(sb_world_step_to(worlds[0], 1.0 / FPS), SB_OK);
    uint64_t size;
    cr_assert_eq(sb_world_get_state_size(worlds[0], &size), SB_OK);
    void *state = malloc(size);
    cr_assert_eq(sb_world_save_state(worlds[0], state, size), SB_OK);
    cr_assert_eq(sb_world_load_state(worlds[1], state, size), SB_ERROR_INVALID_ARGUMENT, "another mesh was loaded");
    cr_assert(strstr(sb_last_error(), "body 0's shape"), "%s", sb_last_error());
    cr_assert_eq(sb_world_load_state(worlds[0], state, size), SB_OK, "%s", sb_last_error());
    free(state);
    for (int k = 0; k < 2; k++) sb_world_destroy(worlds[k]);
}
