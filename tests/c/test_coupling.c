/* Cloth against rigid bodies of the same world: colliders carried by bodies follow them
 * exactly, and cloth meets a moving body without entering it (one way, feels_cloth 0, the
 * default: the body does not feel the cloth; test_two_way_coupling.c has the other way). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collision_response.h"
#include "intersections.h"
#include "testutil.h"
#include "world.h"

static sb_world *make_world(double max_step)
{
    sb_world_def wd = sb_default_world_def();
    wd.max_step = max_step;
    sb_world *w = NULL;
    cr_assert_eq(sb_world_create(&wd, &w), SB_OK, "%s", sb_last_error());
    return w;
}

static sb_body_id add_box_body(sb_world *w, int type, const double half[3], const double center[3], double friction)
{
    sb_body_def d = sb_default_body_def();
    d.type = type;
    d.shape = SB_SHAPE_BOX;
    memcpy(d.half_extents, half, sizeof d.half_extents);
    memcpy(d.center, center, sizeof d.center);
    d.friction = friction;
    sb_body_id id;
    cr_assert_eq(sb_world_add_body(w, &d, &id), SB_OK, "%s", sb_last_error());
    return id;
}

static sb_collider_id add_carried_collider(sb_world *w, const solid_mesh *m, sb_body_id body)
{
    sb_collider_def def = solid_collider_def(m);
    sb_collider_id id;
    cr_assert_eq(sb_world_add_collider(w, &def, &id), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_collider_follow_body(w, id, body), SB_OK, "%s", sb_last_error());
    return id;
}

static void apply_transform(const double m[16], const double p[3], double out[3])
{
    for (int r = 0; r < 3; r++) out[r] = m[4 * r] * p[0] + m[4 * r + 1] * p[1] + m[4 * r + 2] * p[2] + m[4 * r + 3];
}

Test(coupling, a_carried_collider_moves_exactly_with_its_tumbling_body)
{
    sb_world *w = make_world(1.0 / 24.0);
    double half[3] = {0.3, 0.2, 0.1}, center[3] = {0.5, -0.2, 1.0};
    sb_body_def d = sb_default_body_def();
    d.shape = SB_SHAPE_BOX;
    memcpy(d.half_extents, half, sizeof half);
    memcpy(d.center, center, sizeof center);
    d.angular_velocity[0] = 3.0, d.angular_velocity[1] = 1.0, d.angular_velocity[2] = -2.0;
    d.linear_velocity[0] = 1.0;
    sb_body_id body;
    cr_assert_eq(sb_world_add_body(w, &d, &body), SB_OK, "%s", sb_last_error());
    solid_mesh box = box_mesh(half, center);
    sb_collider_id id = add_carried_collider(w, &box, body);
    double moved[16], expected[3], worst = 0.0;
    for (int f = 1; f <= 48; f++) {
        cr_assert_eq(sb_world_step_to(w, f / 24.0), SB_OK, "%s", sb_last_error());
        cr_assert_eq(sb_body_get_transform(w, body, moved), SB_OK);
        const collider *c = w->colliders[id.index];
        for (int32_t i = 0; i < box.vertex_count; i++) {
            apply_transform(moved, &box.positions[3 * i], expected);
            for (int a = 0; a < 3; a++) worst = fmax(worst, fabs(c->state.to[3 * i + a] - expected[a]));
        }
        cr_assert_float_eq(c->state.time_to, f / 24.0, 1e-12);
    }
    cr_log_info("carried collider vs body transform after 2 s of tumbling: %.2g m", worst);
    cr_assert_lt(worst, 1e-12, "the collider is %.3g m off its body", worst);
    solid_mesh_free(&box);
    sb_world_destroy(w);
}

Test(coupling, carried_colliders_are_checked_and_cannot_be_moved_by_hand)
{
    sb_world *w = make_world(1.0 / 24.0);
    double half[3] = {0.5, 0.5, 0.5}, center[3] = {0, 0, 0};
    sb_body_id body = add_box_body(w, SB_BODY_DYNAMIC, half, center, 0.5);
    solid_mesh box = box_mesh(half, center);
    sb_collider_def def = solid_collider_def(&box);
    sb_collider_id id;
    cr_assert_eq(sb_world_add_collider(w, &def, &id), SB_OK);
    cr_assert_eq(sb_collider_follow_body(NULL, id, body), SB_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sb_collider_follow_body(w, (sb_collider_id){id.index + 1}, body), SB_ERROR_NOT_FOUND);
    cr_assert_eq(sb_collider_follow_body(w, id, (sb_body_id){body.index + 1}), SB_ERROR_NOT_FOUND);
    cr_assert_eq(sb_collider_follow_body(w, id, body), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_collider_follow_body(w, id, body), SB_ERROR_INVALID_ARGUMENT, "attached twice");
    cr_assert_eq(sb_collider_set_positions(w, id, 1.0, box.positions, box.vertex_count), SB_ERROR_INVALID_ARGUMENT);
    solid_mesh_free(&box);
    sb_world_destroy(w);
}

enum { SLIDE_FRAMES = 36 };
#define SLIDE_V0 2.0
#define SLIDE_MU 0.3
#define SLIDE_HALF 0.4

/* A box of half-size SLIDE_HALF sent sliding at SLIDE_V0 over a static floor (friction
 * SLIDE_MU times the floor's 1). */
static sb_body_id add_sliding_box(sb_world *w)
{
    double floor_half[3] = {3.0, 3.0, 0.1}, floor_center[3] = {0, 0, -0.1};
    add_box_body(w, SB_BODY_STATIC, floor_half, floor_center, 1.0);
    sb_body_def d = sb_default_body_def();
    d.shape = SB_SHAPE_BOX;
    d.half_extents[0] = d.half_extents[1] = d.half_extents[2] = SLIDE_HALF;
    d.center[2] = SLIDE_HALF;
    d.friction = SLIDE_MU;
    d.linear_velocity[0] = SLIDE_V0;
    sb_body_id id;
    cr_assert_eq(sb_world_add_body(w, &d, &id), SB_OK, "%s", sb_last_error());
    return id;
}

/* Where the box of add_sliding_box comes to rest with nothing else in the world. */
static double sliding_box_alone(void)
{
    sb_world *w = make_world(1.0 / 24.0);
    sb_body_id id = add_sliding_box(w);
    cr_assert_eq(sb_world_step_to(w, SLIDE_FRAMES / 24.0), SB_OK, "%s", sb_last_error());
    sb_body_state s;
    sb_body_get_state(w, id, &s);
    sb_world_destroy(w);
    return s.position[0];
}

/* A 0.5 m cloth dropped on the top of a sliding box (add_sliding_box) must never enter the
 * box and must be carried along by friction; the box must slide as Coulomb says and as it
 * does alone (one-way coupling): it stops after v²/(2 μ g) = 0.6797 m. */
Test(coupling, cloth_rides_a_sliding_box_without_entering_it, .timeout = 300)
{
    const double v0 = SLIDE_V0, mu = SLIDE_MU, g = 9.81, half_size = SLIDE_HALF;
    sb_world *w = make_world(1.0 / 24.0);
    sb_body_id box_id = add_sliding_box(w);
    double half[3] = {half_size, half_size, half_size}, center[3] = {0, 0, half_size};
    solid_mesh box = box_mesh(half, center);
    add_carried_collider(w, &box, box_id);

    grid_mesh sheet = grid_mesh_make(16, 0.5, 2.0 * half_size + 0.02);
    sb_cloth_def cd = sb_default_cloth_def();
    cd.vertex_count = sheet.vertex_count, cd.positions = sheet.positions;
    cd.triangle_count = sheet.triangle_count, cd.triangles = sheet.triangles;
    sb_cloth_id cloth_id;
    cr_assert_eq(sb_world_add_cloth(w, &cd, &cloth_id), SB_OK, "%s", sb_last_error());

    double *x = malloc(sizeof(double) * 3 * (size_t)sheet.vertex_count), moved[16];
    double deepest = INFINITY;
    solid_mesh now = box;
    now.positions = malloc(sizeof(double) * 3 * (size_t)box.vertex_count);
    for (int f = 1; f <= SLIDE_FRAMES; f++) {
        cr_assert_eq(sb_world_step_to(w, f / 24.0), SB_OK, "%s", sb_last_error());
        sb_body_get_transform(w, box_id, moved);
        for (int32_t i = 0; i < box.vertex_count; i++) apply_transform(moved, &box.positions[3 * i], &now.positions[3 * i]);
        sb_cloth_get_positions(w, cloth_id, x, sheet.vertex_count);
        for (int32_t i = 0; i < sheet.vertex_count; i++) deepest = fmin(deepest, convex_signed_distance(&now, &x[3 * i]));
        cr_assert_geq(deepest, -0.1 * cd.thickness, "frame %d: a vertex is %.2g m inside the box", f, -deepest);
        cr_assert_eq(count_intersections(w->cloths, 1, w->colliders, 1, false), 0, "frame %d", f);
    }
    sb_body_state s;
    sb_body_get_state(w, box_id, &s);
    double travel = s.position[0], alone = sliding_box_alone(), expected = v0 * v0 / (2.0 * mu * g);
    double cloth_x = 0.0, cloth_low = INFINITY;
    for (int32_t i = 0; i < sheet.vertex_count; i++) {
        cloth_x += x[3 * i] / sheet.vertex_count;
        cloth_low = fmin(cloth_low, x[3 * i + 2]);
    }
    cr_log_info("sliding box: travelled %.5f m with cloth, %.5f m alone (Coulomb: %.5f); cloth centre at "
                "%.4f m, lowest point %.4f m; deepest %.2g m",
                travel, alone, expected, cloth_x, cloth_low, deepest);
    /* not bit for bit: rigid substeps divide each cloth step evenly (1/240 s alone, 1/288 s within
     * a 1/96 s step of the landing cloth), which moves the stop by about 4e-5 m */
    cr_assert_float_eq(travel, alone, 2e-4, "the cloth changed the box's slide (%.6f vs %.6f m)", travel, alone);
    cr_assert_float_eq(travel, expected, 0.01 * expected, "the box travelled %.4f m, expected %.4f", travel, expected);
    cr_assert_gt(cloth_x, 0.5 * travel, "the cloth (centre at x = %.3f) was not carried along", cloth_x);
    cr_assert_lt(fabs(cloth_x - travel), half_size, "the cloth slid off the box");
    free(x), free(now.positions);
    grid_mesh_free(&sheet);
    solid_mesh_free(&box);
    sb_world_destroy(w);
}
