/* The rigid-body API: what it refuses, kinematic bodies that follow their targets, mesh
 * colliders, convex hulls and the displacement transform the add-on bakes. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "allocation_failures.h"
#include "testutil.h"

static sb_world *make_world(void)
{
    sb_world_def wd = sb_default_world_def();
    sb_world *w = NULL;
    cr_assert_eq(sb_world_create(&wd, &w), SB_OK, "%s", sb_last_error());
    return w;
}

static sb_body_def unit_box(int type)
{
    sb_body_def d = sb_default_body_def();
    d.type = type;
    d.shape = SB_SHAPE_BOX;
    d.half_extents[0] = d.half_extents[1] = d.half_extents[2] = 0.5;
    return d;
}

static void expect_refused(sb_world *w, const sb_body_def *d, sb_result code, const char *words)
{
    sb_body_id id = {77};
    cr_assert_eq(sb_world_add_body(w, d, &id), code, "expected %s, got message '%s'", sb_result_name(code),
                 sb_last_error());
    cr_assert_eq(id.index, 77, "the id was written on failure");
    cr_assert_not_null(strstr(sb_last_error(), words), "message '%s' does not mention '%s'", sb_last_error(), words);
}

Test(rigid_api, bad_body_definitions_are_refused_with_a_message)
{
    sb_world *w = make_world();
    sb_body_def d = unit_box(SB_BODY_DYNAMIC);
    cr_assert_eq(sb_world_add_body(w, NULL, &(sb_body_id){0}), SB_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sb_world_add_body(NULL, &d, &(sb_body_id){0}), SB_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sb_world_add_body(w, &d, NULL), SB_ERROR_INVALID_ARGUMENT);

    d.mass = 0;
    expect_refused(w, &d, SB_ERROR_INVALID_ARGUMENT, "mass");
    d = unit_box(SB_BODY_DYNAMIC), d.mass = NAN;
    expect_refused(w, &d, SB_ERROR_INVALID_ARGUMENT, "mass");
    d = unit_box(SB_BODY_DYNAMIC), d.type = 9;
    expect_refused(w, &d, SB_ERROR_INVALID_ARGUMENT, "type");
    d = unit_box(SB_BODY_DYNAMIC), d.shape = -1;
    expect_refused(w, &d, SB_ERROR_INVALID_ARGUMENT, "shape");
    d = unit_box(SB_BODY_DYNAMIC), d.half_extents[1] = 0;
    expect_refused(w, &d, SB_ERROR_INVALID_ARGUMENT, "half extents");
    d = unit_box(SB_BODY_DYNAMIC), d.center[2] = INFINITY;
    expect_refused(w, &d, SB_ERROR_INVALID_ARGUMENT, "not finite");
    d = unit_box(SB_BODY_DYNAMIC), d.rotation[0] = 0;
    expect_refused(w, &d, SB_ERROR_INVALID_ARGUMENT, "quaternion");
    d = unit_box(SB_BODY_DYNAMIC), d.restitution = 1.5;
    expect_refused(w, &d, SB_ERROR_INVALID_ARGUMENT, "restitution");
    d = unit_box(SB_BODY_DYNAMIC), d.friction = -1;
    expect_refused(w, &d, SB_ERROR_INVALID_ARGUMENT, "friction");
    d = unit_box(SB_BODY_DYNAMIC), d.linear_damping = 2;
    expect_refused(w, &d, SB_ERROR_INVALID_ARGUMENT, "damping");
    d = unit_box(SB_BODY_DYNAMIC), d.angular_velocity[0] = NAN;
    expect_refused(w, &d, SB_ERROR_INVALID_ARGUMENT, "velocity");
    d = sb_default_body_def(), d.shape = SB_SHAPE_SPHERE, d.radius = -1;
    expect_refused(w, &d, SB_ERROR_INVALID_ARGUMENT, "radius");

    /* meshes */
    const double flat[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0}; /* coplanar: no hull */
    const int32_t tris[] = {0, 1, 2, 1, 3, 2};
    d = sb_default_body_def(), d.vertices = flat, d.vertex_count = 4;
    expect_refused(w, &d, SB_ERROR_INVALID_MESH, "no volume");
    d.vertex_count = 3;
    expect_refused(w, &d, SB_ERROR_INVALID_MESH, "empty");
    d.vertex_count = 4, d.vertices = NULL;
    expect_refused(w, &d, SB_ERROR_INVALID_ARGUMENT, "missing");
    d = sb_default_body_def(), d.shape = SB_SHAPE_MESH, d.vertices = flat, d.vertex_count = 4, d.triangles = tris,
    d.triangle_count = 2;
    expect_refused(w, &d, SB_ERROR_INVALID_ARGUMENT, "convex hull"); /* a moving mesh */
    d.type = SB_BODY_STATIC;
    const int32_t bad[] = {0, 1, 7};
    d.triangles = bad, d.triangle_count = 1;
    expect_refused(w, &d, SB_ERROR_INVALID_MESH, "outside");

    /* nothing was added: the first valid body gets id 0 */
    d = unit_box(SB_BODY_DYNAMIC);
    sb_body_id id = {-1};
    cr_assert_eq(sb_world_add_body(w, &d, &id), SB_OK, "%s", sb_last_error());
    cr_assert_eq(id.index, 0);
    sb_world_destroy(w);
}

Test(rigid_api, bad_calls_on_bodies_are_refused)
{
    sb_world *w = make_world();
    sb_body_def d = unit_box(SB_BODY_DYNAMIC);
    sb_body_id dynamic, kinematic;
    cr_assert_eq(sb_world_add_body(w, &d, &dynamic), SB_OK);
    d.type = SB_BODY_KINEMATIC;
    cr_assert_eq(sb_world_add_body(w, &d, &kinematic), SB_OK);
    double m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    sb_body_state s;
    cr_assert_eq(sb_body_get_state(w, (sb_body_id){5}, &s), SB_ERROR_NOT_FOUND);
    cr_assert_eq(sb_body_get_state(w, (sb_body_id){-1}, &s), SB_ERROR_NOT_FOUND);
    cr_assert_eq(sb_body_get_state(w, dynamic, NULL), SB_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sb_body_get_state(NULL, dynamic, &s), SB_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sb_body_get_transform(w, (sb_body_id){9}, m), SB_ERROR_NOT_FOUND);
    cr_assert_eq(sb_body_set_target(w, dynamic, 1.0, m), SB_ERROR_INVALID_ARGUMENT);
    cr_assert_not_null(strstr(sb_last_error(), "not kinematic"));
    cr_assert_eq(sb_body_set_target(w, kinematic, 0.0, m), SB_ERROR_INVALID_ARGUMENT); /* not after now */
    cr_assert_eq(sb_body_set_target(w, kinematic, NAN, m), SB_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sb_body_set_target(w, kinematic, 1.0, NULL), SB_ERROR_INVALID_ARGUMENT);
    double scaled[16] = {2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    cr_assert_eq(sb_body_set_target(w, kinematic, 1.0, scaled), SB_ERROR_INVALID_ARGUMENT);
    cr_assert_not_null(strstr(sb_last_error(), "rigid"));
    double mirrored[16] = {-1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    cr_assert_eq(sb_body_set_target(w, kinematic, 1.0, mirrored), SB_ERROR_INVALID_ARGUMENT);

    /* bodies need the implicit integrator's world */
    sb_world_def wd = sb_default_world_def();
    wd.integrator = SB_INTEGRATOR_RK4;
    sb_world *explicit_world = NULL;
    cr_assert_eq(sb_world_create(&wd, &explicit_world), SB_OK);
    cr_assert_eq(sb_world_add_body(explicit_world, &d, &(sb_body_id){0}), SB_ERROR_INVALID_ARGUMENT);
    sb_world_destroy(explicit_world);

    /* rigid settings of the world */
    wd = sb_default_world_def(), wd.rigid_max_step = 0;
    cr_assert_eq(sb_world_create(&wd, &explicit_world), SB_ERROR_INVALID_ARGUMENT);
    wd = sb_default_world_def(), wd.contact_margin = -1;
    cr_assert_eq(sb_world_create(&wd, &explicit_world), SB_ERROR_INVALID_ARGUMENT);
    wd = sb_default_world_def(), wd.rigid_iterations = 0;
    cr_assert_eq(sb_world_create(&wd, &explicit_world), SB_ERROR_INVALID_ARGUMENT);
    sb_world_destroy(w);
}

/* 4x4 row-major rotation by `angle` about z, then translation t. */
static void turn_about_z(double angle, const double t[3], double m[16])
{
    double c = cos(angle), s = sin(angle);
    double r[16] = {c, -s, 0, t[0], s, c, 0, t[1], 0, 0, 1, t[2], 0, 0, 0, 1};
    memcpy(m, r, sizeof r);
}

Test(rigid_api, kinematic_body_follows_its_targets_and_pushes)
{
    sb_world *w = make_world();
    sb_body_def d = unit_box(SB_BODY_KINEMATIC);
    d.center[0] = -2;
    sb_body_id pusher;
    cr_assert_eq(sb_world_add_body(w, &d, &pusher), SB_OK);
    /* zero gravity here: a light box in its way gets pushed along +x */
    sb_world_def wd = sb_default_world_def();
    wd.gravity[2] = 0;
    sb_world *free_world = NULL;
    cr_assert_eq(sb_world_create(&wd, &free_world), SB_OK);
    sb_body_id k2, pushed;
    cr_assert_eq(sb_world_add_body(free_world, &d, &k2), SB_OK);
    sb_body_def light = unit_box(SB_BODY_DYNAMIC);
    light.center[0] = 0.0;
    cr_assert_eq(sb_world_add_body(free_world, &light, &pushed), SB_OK);

    double target[16], t[3] = {3, 0, 0};
    turn_about_z(0, t, target);
    cr_assert_eq(sb_body_set_target(free_world, k2, 1.0, target), SB_OK);
    cr_assert_eq(sb_world_step_to(free_world, 0.5), SB_OK, "%s", sb_last_error());
    sb_body_state s;
    cr_assert_eq(sb_body_get_state(free_world, k2, &s), SB_OK);
    cr_assert_float_eq(s.linear_velocity[0], 3.0, 1e-9, "a moving kinematic body reports its velocity");
    cr_assert_eq(sb_world_step_to(free_world, 1.0), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_body_get_state(free_world, pushed, &s), SB_OK);
    /* the pusher ends at x = 1 with its face at 1.5: the box is ahead of it, moving */
    cr_assert_geq(s.position[0], 1.5 + 0.5 - 1e-3, "pushed box at %.4f", s.position[0]);
    cr_assert_gt(s.linear_velocity[0], 1.0);
    sb_world_destroy(free_world);

    /* a turn and a move: the transform is exactly the target at the target time, and
     * halfway there halfway round */
    double move[3] = {1, 2, 0.5};
    turn_about_z(1.0, move, target);
    cr_assert_eq(sb_body_set_target(w, pusher, 2.0, target), SB_OK);
    cr_assert_eq(sb_world_step_to(w, 1.0), SB_OK);
    double m[16];
    cr_assert_eq(sb_body_get_transform(w, pusher, m), SB_OK);
    cr_assert_float_eq(atan2(m[4], m[0]), 0.5, 1e-9);
    cr_assert_eq(sb_world_step_to(w, 2.0), SB_OK);
    cr_assert_eq(sb_body_get_transform(w, pusher, m), SB_OK);
    for (int k = 0; k < 16; k++) cr_assert_float_eq(m[k], target[k], 1e-9, "entry %d: %.12f vs %.12f", k, m[k], target[k]);
    cr_assert_eq(sb_world_step_to(w, 3.0), SB_OK); /* then it stays */
    cr_assert_eq(sb_body_get_transform(w, pusher, m), SB_OK);
    for (int k = 0; k < 16; k++) cr_assert_float_eq(m[k], target[k], 1e-9);
    sb_world_destroy(w);
}

Test(rigid_api, bodies_rest_on_a_static_triangle_mesh)
{
    sb_world *w = make_world();
    solid_mesh ground = plane_mesh(20.0, 0.0);
    sb_body_def g = sb_default_body_def();
    g.type = SB_BODY_STATIC, g.shape = SB_SHAPE_MESH;
    g.vertices = ground.positions, g.vertex_count = ground.vertex_count;
    g.triangles = ground.triangles, g.triangle_count = ground.triangle_count;
    cr_assert_eq(sb_world_add_body(w, &g, &(sb_body_id){0}), SB_OK, "%s", sb_last_error());
    sb_body_def box = unit_box(SB_BODY_DYNAMIC);
    box.center[2] = 1.0; /* falls 0.5 m */
    box.center[0] = 1.0; /* over the shared diagonal edge of the two triangles */
    sb_body_id b, ball;
    cr_assert_eq(sb_world_add_body(w, &box, &b), SB_OK);
    sb_body_def sphere = sb_default_body_def();
    sphere.shape = SB_SHAPE_SPHERE, sphere.radius = 0.3, sphere.center[0] = -3, sphere.center[2] = 2.0;
    cr_assert_eq(sb_world_add_body(w, &sphere, &ball), SB_OK);
    cr_assert_eq(sb_world_step_to(w, 3.0), SB_OK, "%s", sb_last_error());
    sb_body_state s;
    cr_assert_eq(sb_body_get_state(w, b, &s), SB_OK);
    cr_assert_float_eq(s.position[2], 0.5, 2e-4, "box centre at %.6f", s.position[2]);
    cr_assert_lt(sqrt(s.linear_velocity[0] * s.linear_velocity[0] + s.linear_velocity[2] * s.linear_velocity[2]), 1e-3);
    cr_assert_float_eq(s.contact_force[2], 9.81, 1e-3);
    cr_assert_eq(sb_body_get_state(w, ball, &s), SB_OK);
    cr_assert_float_eq(s.position[2], 0.3, 2e-4, "ball centre at %.6f", s.position[2]);
    solid_mesh_free(&ground);
    sb_world_destroy(w);
}

Test(rigid_api, hull_of_a_closed_mesh_has_its_mass_properties_and_transform)
{
    sb_world_def wd = sb_default_world_def();
    wd.gravity[2] = 0;
    sb_world *w = NULL;
    cr_assert_eq(sb_world_create(&wd, &w), SB_OK);
    const double half[3] = {0.3, 0.4, 0.5}, center[3] = {4.0, 0.0, 0.0};
    solid_mesh box = box_mesh(half, center);
    sb_body_def d = sb_default_body_def();
    d.vertices = box.positions, d.vertex_count = box.vertex_count;
    d.triangles = box.triangles, d.triangle_count = box.triangle_count;
    d.mass = 2.0;
    d.linear_velocity[1] = 1.0;
    d.angular_velocity[2] = 2.0; /* about a principal axis: a steady turn */
    sb_body_id id;
    cr_assert_eq(sb_world_add_body(w, &d, &id), SB_OK, "%s", sb_last_error());
    sb_body_state s;
    cr_assert_eq(sb_body_get_state(w, id, &s), SB_OK);
    cr_assert_float_eq(s.position[0], 4.0, 1e-12);
    cr_assert_float_eq(s.mass, 2.0, 1e-12);
    /* L = I ω, I_zz = m (a² + b²) / 3 for half extents a, b */
    double izz = 2.0 * (0.3 * 0.3 + 0.4 * 0.4) / 3.0;
    cr_assert_float_eq(s.angular_momentum[2], izz * 2.0, 1e-12);
    cr_assert_float_eq(s.kinetic_energy, 0.5 * 2.0 * 1.0 + 0.5 * izz * 4.0, 1e-12);
    cr_assert_eq(sb_world_step_to(w, 1.0), SB_OK);
    double m[16];
    cr_assert_eq(sb_body_get_transform(w, id, m), SB_OK);
    /* each vertex, moved by the transform, is where the motion takes it: turned 2 rad about
     * the centre, which moved 1 m along y */
    for (int32_t v = 0; v < box.vertex_count; v++) {
        const double *p = &box.positions[3 * v];
        double moved[3];
        for (int r = 0; r < 3; r++) moved[r] = m[4 * r] * p[0] + m[4 * r + 1] * p[1] + m[4 * r + 2] * p[2] + m[4 * r + 3];
        double rel[3] = {p[0] - center[0], p[1] - center[1], p[2] - center[2]};
        double expected[3] = {center[0] + cos(2.0) * rel[0] - sin(2.0) * rel[1],
                              center[1] + 1.0 + sin(2.0) * rel[0] + cos(2.0) * rel[1], center[2] + rel[2]};
        for (int k = 0; k < 3; k++) cr_assert_float_eq(moved[k], expected[k], 1e-9, "vertex %d axis %d", v, k);
    }
    solid_mesh_free(&box);
    sb_world_destroy(w);
}

Test(rigid_api, all_transforms_at_once_match_each_one)
{
    sb_world *w = make_world();
    sb_body_id ids[3];
    for (int i = 0; i < 3; i++) {
        sb_body_def d = unit_box(SB_BODY_DYNAMIC);
        d.center[0] = 2.0 * i, d.angular_velocity[i] = 1.0 + i;
        cr_assert_eq(sb_world_add_body(w, &d, &ids[i]), SB_OK);
    }
    cr_assert_eq(sb_world_step_to(w, 0.5), SB_OK);
    double all[48], one[16];
    cr_assert_eq(sb_world_get_body_transforms(w, all, 2), SB_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sb_world_get_body_transforms(w, NULL, 3), SB_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sb_world_get_body_transforms(w, all, 3), SB_OK);
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(sb_body_get_transform(w, ids[i], one), SB_OK);
        cr_assert_arr_eq(one, &all[16 * i], sizeof one);
    }
    sb_world_destroy(w);
}

/* Out of memory is an error, never an answer: a stack's first step (the contact scratch, the
 * rows, the pivoting's workspace all allocated then) with its n-th allocation failing, for
 * every n, either fails with SB_ERROR_OUT_OF_MEMORY or succeeded without a failed allocation.
 * The pivoting's workspace once failed quietly, and Gauss-Seidel's answer stood in for it. */
Test(rigid_api, a_failed_allocation_in_a_step_is_reported_not_worked_around)
{
    for (long fail = 0;; fail++) {
        sb_world *w = make_world();
        sb_body_def floor = unit_box(SB_BODY_STATIC);
        floor.half_extents[0] = floor.half_extents[1] = 3.0, floor.center[2] = -0.5;
        sb_body_id id;
        cr_assert_eq(sb_world_add_body(w, &floor, &id), SB_OK);
        for (int k = 0; k < 1; k++) { /* a box resting: its four contacts are pivoted */
            sb_body_def box = unit_box(SB_BODY_DYNAMIC);
            box.center[2] = 0.5 + 1.0 * k;
            cr_assert_eq(sb_world_add_body(w, &box, &id), SB_OK);
        }
        test_fail_allocations_after(fail);
        sb_result r = sb_world_step_to(w, 1.0 / 24.0);
        long failed = test_fail_allocations_after(-1);
        sb_world_destroy(w);
        if (failed == 0) {
            cr_assert_eq(r, SB_OK, "%s", sb_last_error());
            break;
        }
        cr_assert_eq(r, SB_ERROR_OUT_OF_MEMORY, "allocation %ld failed, yet the step gave %s (%s)", fail,
                     sb_result_name(r), sb_last_error());
    }
}
