/* The public API refuses bad input with an error code and a message, and copes with
 * degenerate and non-manifold meshes. */
#include <criterion/criterion.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simbake.h"
#include "testutil.h"

static const double square[12] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
static const int32_t square_tris[6] = {0, 1, 2, 0, 2, 3};

static sb_cloth_def square_def(void)
{
    sb_cloth_def d = sb_default_cloth_def();
    d.vertex_count = 4;
    d.positions = square;
    d.triangle_count = 2;
    d.triangles = square_tris;
    return d;
}

static sb_world *new_world(void)
{
    sb_world_def wdef = sb_default_world_def();
    sb_world *w = NULL;
    cr_assert_eq(sb_world_create(&wdef, &w), SB_OK);
    return w;
}

/* Adding `def` fails with `expected` and a message containing `needle`; the world keeps
 * no cloth. */
static void expect_refused(const sb_cloth_def *def, sb_result expected, const char *needle)
{
    sb_world *w = new_world();
    sb_cloth_id id = {-7};
    sb_result r = sb_world_add_cloth(w, def, &id);
    cr_assert_eq(r, expected, "got %s: %s", sb_result_name(r), sb_last_error());
    cr_assert(strstr(sb_last_error(), needle), "message \"%s\" lacks \"%s\"", sb_last_error(), needle);
    double x[12];
    cr_assert_eq(sb_cloth_get_positions(w, (sb_cloth_id){0}, x, 4), SB_ERROR_NOT_FOUND);
    sb_world_destroy(w);
}

Test(api, version_is_consistent)
{
    cr_assert_eq(sb_version(), SB_VERSION);
    char expected[32];
    snprintf(expected, sizeof expected, "%d.%d.%d", SB_VERSION_MAJOR, SB_VERSION_MINOR, SB_VERSION_PATCH);
    cr_assert_str_eq(sb_version_string(), expected);
    cr_assert_str_eq(sb_result_name(SB_ERROR_INVALID_MESH), "SB_ERROR_INVALID_MESH");
    cr_assert_str_eq(sb_result_name(12345), "SB_ERROR_UNKNOWN");
}

Test(api, empty_mesh_is_refused)
{
    sb_cloth_def d = square_def();
    d.vertex_count = 0;
    expect_refused(&d, SB_ERROR_INVALID_MESH, "empty");
    d = square_def();
    d.triangle_count = 0;
    expect_refused(&d, SB_ERROR_INVALID_MESH, "empty");
}

Test(api, non_finite_coordinates_are_refused)
{
    double bad[12];
    memcpy(bad, square, sizeof bad);
    bad[7] = NAN;
    sb_cloth_def d = square_def();
    d.positions = bad;
    expect_refused(&d, SB_ERROR_INVALID_MESH, "vertex 2");
    bad[7] = INFINITY;
    expect_refused(&d, SB_ERROR_INVALID_MESH, "non-finite");
}

Test(api, triangle_index_out_of_range_is_refused)
{
    int32_t tris[6] = {0, 1, 2, 0, 2, 4};
    sb_cloth_def d = square_def();
    d.triangles = tris;
    expect_refused(&d, SB_ERROR_INVALID_MESH, "triangle 1 uses vertex 4");
    tris[5] = -1;
    expect_refused(&d, SB_ERROR_INVALID_MESH, "triangle 1 uses vertex -1");
}

Test(api, bad_material_values_are_refused)
{
    sb_cloth_def d = square_def();
    d.density = -1.0;
    expect_refused(&d, SB_ERROR_INVALID_ARGUMENT, "density");
    d = square_def();
    d.density = 0.0;
    expect_refused(&d, SB_ERROR_INVALID_ARGUMENT, "density");
    d = square_def();
    d.stretch_stiffness = -5.0;
    expect_refused(&d, SB_ERROR_INVALID_ARGUMENT, "stretch_stiffness");
    d = square_def();
    d.bend_stiffness = NAN;
    expect_refused(&d, SB_ERROR_INVALID_ARGUMENT, "bend_stiffness");
    d = square_def();
    d.damping = -0.1;
    expect_refused(&d, SB_ERROR_INVALID_ARGUMENT, "damping");
}

Test(api, bad_pins_are_refused)
{
    int32_t pins[2] = {0, 9};
    sb_cloth_def d = square_def();
    d.pin_count = 2;
    d.pins = pins;
    expect_refused(&d, SB_ERROR_INVALID_ARGUMENT, "vertex 9");
    pins[1] = 0;
    expect_refused(&d, SB_ERROR_INVALID_ARGUMENT, "pinned twice");
    d.pins = NULL;
    expect_refused(&d, SB_ERROR_INVALID_ARGUMENT, "NULL");
}

Test(api, null_pointers_are_refused)
{
    sb_world *w = new_world();
    sb_cloth_id id;
    cr_assert_eq(sb_world_add_cloth(w, NULL, &id), SB_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sb_world_add_cloth(NULL, NULL, &id), SB_ERROR_INVALID_ARGUMENT);
    sb_cloth_def d = square_def();
    cr_assert_eq(sb_world_add_cloth(w, &d, NULL), SB_ERROR_INVALID_ARGUMENT);
    d.positions = NULL;
    cr_assert_eq(sb_world_add_cloth(w, &d, &id), SB_ERROR_INVALID_ARGUMENT);
    sb_world *other = w;
    cr_assert_eq(sb_world_create(NULL, &other), SB_ERROR_INVALID_ARGUMENT);
    cr_assert_null(other);
    cr_assert_eq(sb_world_step_to(NULL, 1.0), SB_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sb_world_get_stats(NULL, NULL), SB_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sb_cloth_get_kinetic_energy(NULL, (sb_cloth_id){0}, NULL), SB_ERROR_INVALID_ARGUMENT);
    double m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    cr_assert_eq(sb_transform_points(m, NULL, NULL, 3), SB_ERROR_INVALID_ARGUMENT);
    sb_world_destroy(NULL);
    sb_world_destroy(w);
}

Test(api, bad_world_definitions_are_refused)
{
    sb_world *w;
    sb_world_def d = sb_default_world_def();
    d.max_step = 0.0;
    cr_assert_eq(sb_world_create(&d, &w), SB_ERROR_INVALID_ARGUMENT);
    cr_assert_null(w);
    d = sb_default_world_def();
    d.gravity[1] = NAN;
    cr_assert_eq(sb_world_create(&d, &w), SB_ERROR_INVALID_ARGUMENT);
    d = sb_default_world_def();
    d.integrator = 42;
    cr_assert_eq(sb_world_create(&d, &w), SB_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(sb_last_error(), "integrator"));
    d.integrator = -1; /* an enum field holds whatever a binding wrote: negatives too */
    cr_assert_eq(sb_world_create(&d, &w), SB_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(sb_last_error(), "unknown integrator -1"), "%s", sb_last_error());
    d = sb_default_world_def();
    d.cg_tolerance = 2.0;
    cr_assert_eq(sb_world_create(&d, &w), SB_ERROR_INVALID_ARGUMENT);
    d = sb_default_world_def();
    d.min_step = 1.0;
    cr_assert_eq(sb_world_create(&d, &w), SB_ERROR_INVALID_ARGUMENT);
}

Test(api, bad_calls_on_a_valid_world_are_refused_and_change_nothing)
{
    sb_world *w = new_world();
    sb_cloth_def d = square_def();
    int32_t pin = 0;
    d.pin_count = 1;
    d.pins = &pin;
    sb_cloth_id id;
    cr_assert_eq(sb_world_add_cloth(w, &d, &id), SB_OK);
    cr_assert_eq(sb_world_step_to(w, 0.5), SB_OK);
    double before[12], after[12], x[12];
    sb_cloth_get_positions(w, id, before, 4);

    cr_assert_eq(sb_world_step_to(w, 0.25), SB_ERROR_INVALID_ARGUMENT); /* backwards */
    cr_assert_eq(sb_world_step_to(w, NAN), SB_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sb_cloth_get_positions(w, id, x, 3), SB_ERROR_INVALID_ARGUMENT); /* wrong size */
    cr_assert(strstr(sb_last_error(), "4 vertices"));
    cr_assert_eq(sb_cloth_get_positions(w, (sb_cloth_id){5}, x, 4), SB_ERROR_NOT_FOUND);
    cr_assert_eq(sb_cloth_get_positions(w, (sb_cloth_id){-1}, x, 4), SB_ERROR_NOT_FOUND);
    double target[3] = {0, 0, 1}, bad_target[3] = {0, NAN, 1};
    cr_assert_eq(sb_cloth_set_pin_targets(w, id, 0.5, target, 1), SB_ERROR_INVALID_ARGUMENT); /* not after now */
    cr_assert_eq(sb_cloth_set_pin_targets(w, id, 1.0, target, 2), SB_ERROR_INVALID_ARGUMENT); /* count */
    cr_assert_eq(sb_cloth_set_pin_targets(w, id, 1.0, bad_target, 1), SB_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sb_cloth_set_pin_targets(w, id, INFINITY, target, 1), SB_ERROR_INVALID_ARGUMENT);

    sb_cloth_get_positions(w, id, after, 4);
    cr_assert_arr_eq(before, after, sizeof before);
    cr_assert_float_eq(sb_world_get_time(w), 0.5, 0.0);
    sb_world_destroy(w);
}

/* A grid with one zero-area triangle and one edge shared by three triangles. */
Test(api, degenerate_and_nonmanifold_meshes_are_handled)
{
    grid_mesh g = grid_mesh_make(6, 1.0, 0.0);
    int32_t nt = g.triangle_count + 2;
    int32_t *tris = malloc(sizeof(int32_t) * 3 * (size_t)nt);
    double *pos = malloc(sizeof(double) * 3 * (size_t)(g.vertex_count + 1));
    memcpy(tris, g.triangles, sizeof(int32_t) * 3 * (size_t)g.triangle_count);
    memcpy(pos, g.positions, sizeof(double) * 3 * (size_t)g.vertex_count);
    /* zero area: three vertices on one grid line */
    tris[3 * g.triangle_count + 0] = 0, tris[3 * g.triangle_count + 1] = 1, tris[3 * g.triangle_count + 2] = 2;
    /* a fin standing on the edge 7-8, making it non-manifold */
    int32_t fin = g.vertex_count;
    pos[3 * fin] = pos[3 * 7] + 0.1, pos[3 * fin + 1] = pos[3 * 7 + 1], pos[3 * fin + 2] = 0.2;
    int32_t *t = &tris[3 * (g.triangle_count + 1)];
    t[0] = 7, t[1] = 8, t[2] = fin;
    /* 7-8 must already be shared by two grid triangles */
    sb_cloth_def d = sb_default_cloth_def();
    d.vertex_count = g.vertex_count + 1;
    d.positions = pos;
    d.triangle_count = nt;
    d.triangles = tris;
    sb_world *w = new_world();
    sb_cloth_id id;
    cr_assert_eq(sb_world_add_cloth(w, &d, &id), SB_OK, "%s", sb_last_error());
    sb_cloth_info info;
    cr_assert_eq(sb_cloth_get_info(w, id, &info), SB_OK);
    cr_assert_eq(info.degenerate_triangles, 1);
    cr_assert_eq(info.nonmanifold_edges, 1);
    cr_assert_float_eq(info.rest_area, 1.0 + 0.5 * 0.2 * 0.2, 1e-12);
    cr_assert_eq(sb_world_step_to(w, 1.0), SB_OK, "%s", sb_last_error());
    double *x = malloc(sizeof(double) * 3 * (size_t)d.vertex_count);
    sb_cloth_get_positions(w, id, x, d.vertex_count);
    for (int32_t i = 0; i < 3 * d.vertex_count; i++) cr_assert(isfinite(x[i]));
    cr_assert_lt(x[2], -3.0); /* it fell (air drag slows it below ½ g t²) */
    free(x), free(tris), free(pos);
    grid_mesh_free(&g);
    sb_world_destroy(w);
}

Test(api, mesh_of_only_degenerate_triangles_is_refused)
{
    double line[9] = {0, 0, 0, 1, 0, 0, 2, 0, 0};
    int32_t tris[6] = {0, 1, 2, 0, 0, 1};
    sb_cloth_def d = sb_default_cloth_def();
    d.vertex_count = 3;
    d.positions = line;
    d.triangle_count = 2;
    d.triangles = tris;
    expect_refused(&d, SB_ERROR_INVALID_MESH, "no triangle");
}

Test(api, transform_points_applies_an_affine_matrix)
{
    double m[16] = {0, -1, 0, 1, 1, 0, 0, 2, 0, 0, 2, 3, 0, 0, 0, 1};
    double in[6] = {1, 0, 0, 0, 1, 1}, out[6];
    cr_assert_eq(sb_transform_points(m, in, out, 2), SB_OK);
    double expected[6] = {1, 3, 3, 0, 2, 5};
    for (int i = 0; i < 6; i++) cr_assert_float_eq(out[i], expected[i], 1e-15);
    float fin[6] = {1, 0, 0, 0, 1, 1}, fout[6];
    double dout[6];
    cr_assert_eq(sb_transform_points_f32_to_f64(m, fin, dout, 2), SB_OK);
    cr_assert_eq(sb_transform_points_f64_to_f32(m, in, fout, 2), SB_OK);
    for (int i = 0; i < 6; i++) {
        cr_assert_float_eq(dout[i], expected[i], 1e-15);
        cr_assert_float_eq(fout[i], (float)expected[i], 1e-6);
    }
    m[5] = NAN;
    cr_assert_eq(sb_transform_points(m, in, out, 2), SB_ERROR_INVALID_ARGUMENT);
}

Test(api, struct_layouts_are_reported_and_bad_questions_refused)
{
    uint64_t size = 0, offsets[64];
    int32_t fields = 0;
    cr_assert_eq(sb_struct_layout("sb_cloth_def", &size, offsets, 64, &fields), SB_OK, "%s", sb_last_error());
    cr_assert_eq(size, sizeof(sb_cloth_def));
    cr_assert_eq(fields, 48);
    cr_assert_eq(offsets[4], offsetof(sb_cloth_def, uvs));
    cr_assert_eq(offsets[7], offsetof(sb_cloth_def, compression_stiffness));
    cr_assert_eq(offsets[17], offsetof(sb_cloth_def, self_thickness));
    cr_assert_eq(offsets[18], offsetof(sb_cloth_def, gravity_scale));
    cr_assert_eq(offsets[19], offsetof(sb_cloth_def, shrink));
    cr_assert_eq(offsets[20], offsetof(sb_cloth_def, pressure));
    cr_assert_eq(offsets[22], offsetof(sb_cloth_def, pressure_target_volume));
    cr_assert_eq(offsets[23], offsetof(sb_cloth_def, pressure_weights));
    cr_assert_eq(offsets[24], offsetof(sb_cloth_def, goal_stiffness));
    cr_assert_eq(offsets[25], offsetof(sb_cloth_def, goal_damping));
    cr_assert_eq(offsets[26], offsetof(sb_cloth_def, spring_count));
    cr_assert_eq(offsets[31], offsetof(sb_cloth_def, spring_max_force));
    cr_assert_eq(offsets[32], offsetof(sb_cloth_def, internal_springs));
    cr_assert_eq(offsets[38], offsetof(sb_cloth_def, internal_vertex_stiffness));
    cr_assert_eq(offsets[39], offsetof(sb_cloth_def, stretch_scale));
    cr_assert_eq(offsets[40], offsetof(sb_cloth_def, compression_scale));
    cr_assert_eq(offsets[42], offsetof(sb_cloth_def, bend_scale));
    cr_assert_eq(offsets[43], offsetof(sb_cloth_def, self_friction));
    cr_assert_eq(offsets[44], offsetof(sb_cloth_def, self_collision_off));
    cr_assert_eq(offsets[45], offsetof(sb_cloth_def, object_collision_off));
    cr_assert_eq(offsets[46], offsetof(sb_cloth_def, max_stretch));
    cr_assert_eq(offsets[47], offsetof(sb_cloth_def, max_compression));
    cr_assert_eq(sb_struct_layout("sb_body_def", &size, offsets, 64, &fields), SB_OK, "%s", sb_last_error());
    cr_assert(size == sizeof(sb_body_def) && fields == 26, "sb_body_def: %llu bytes, %d fields",
              (unsigned long long)size, fields);
    cr_assert_eq(offsets[17], offsetof(sb_body_def, collision_groups));
    cr_assert_eq(offsets[19], offsetof(sb_body_def, start_deactivated));
    cr_assert_eq(offsets[22], offsetof(sb_body_def, deactivate_time));
    cr_assert_eq(offsets[23], offsetof(sb_body_def, part_count));
    cr_assert_eq(offsets[24], offsetof(sb_body_def, parts));
    cr_assert_eq(offsets[25], offsetof(sb_body_def, feels_cloth));
    cr_assert_eq(sb_struct_layout("sb_body_part", &size, offsets, 64, &fields), SB_OK, "%s", sb_last_error());
    cr_assert(size == sizeof(sb_body_part) && fields == 9, "sb_body_part: %llu bytes, %d fields",
              (unsigned long long)size, fields);
    cr_assert_eq(offsets[2], offsetof(sb_body_part, vertices));
    cr_assert_eq(offsets[8], offsetof(sb_body_part, rotation));
    cr_assert_eq(sb_struct_layout("sb_field_def", &size, offsets, 32, &fields), SB_OK, "%s", sb_last_error());
    cr_assert(size == sizeof(sb_field_def) && fields == 26, "sb_field_def: %llu bytes, %d fields",
              (unsigned long long)size, fields);
    cr_assert_eq(offsets[7], offsetof(sb_field_def, seed));
    cr_assert_eq(offsets[21], offsetof(sb_field_def, global_coordinates));
    cr_assert_eq(offsets[25], offsetof(sb_field_def, quadratic_drag));
    cr_assert_eq(sb_struct_layout("sb_world_def", &size, offsets, 32, &fields), SB_OK, "%s", sb_last_error());
    cr_assert(size == sizeof(sb_world_def) && fields == 15 && offsets[14] == offsetof(sb_world_def, rigid_time_scale));
    cr_assert_eq(sb_struct_layout("sb_body_state", &size, offsets, 32, &fields), SB_OK, "%s", sb_last_error());
    cr_assert(size == sizeof(sb_body_state) && fields == 11 && offsets[10] == offsetof(sb_body_state, sleeping));
    cr_assert_eq(sb_struct_layout("sb_world_stats", &size, offsets, 32, &fields), SB_OK, "%s", sb_last_error());
    cr_assert(size == sizeof(sb_world_stats) && fields == 13, "sb_world_stats: %d fields", fields);
    cr_assert_eq(offsets[10], offsetof(sb_world_stats, sleeping_bodies));
    cr_assert_eq(offsets[12], offsetof(sb_world_stats, rigid_body_moves));
    /* fewer entries than fields: only those are written, the count is still whole */
    uint64_t two[2] = {0, 0};
    cr_assert_eq(sb_struct_layout("sb_strand_def", &size, offsets, 32, &fields), SB_OK, "%s", sb_last_error());
    cr_assert(size == sizeof(sb_strand_def) && fields == 17, "sb_strand_def: %llu bytes, %d fields",
              (unsigned long long)size, fields);
    cr_assert_eq(offsets[5], offsetof(sb_strand_def, pin_count));
    cr_assert_eq(offsets[13], offsetof(sb_strand_def, gravity_scale));
    cr_assert_eq(offsets[15], offsetof(sb_strand_def, max_compression));
    cr_assert_eq(offsets[16], offsetof(sb_strand_def, self_collision));
    cr_assert_eq(sb_struct_layout("sb_failure", &size, two, 1, &fields), SB_OK);
    cr_assert_eq(fields, 9);
    cr_assert_eq(two[1], 0);
    cr_assert_eq(sb_struct_layout("sb_failure", &size, NULL, 0, &fields), SB_OK);
    cr_assert_eq(sb_struct_layout("sb_nothing", &size, offsets, 32, &fields), SB_ERROR_NOT_FOUND);
    cr_assert(strstr(sb_last_error(), "sb_nothing"));
    cr_assert_eq(sb_struct_layout(NULL, &size, offsets, 32, &fields), SB_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sb_struct_layout("sb_failure", NULL, offsets, 32, &fields), SB_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sb_struct_layout("sb_failure", &size, NULL, 4, &fields), SB_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sb_struct_layout("sb_failure", &size, offsets, -1, &fields), SB_ERROR_INVALID_ARGUMENT);
}

/* The kind of an id, by its type: _Generic refuses to compile with two associations of one
 * type, so this compiling at all says the three ids are distinct types. */
#define ID_KIND(id) _Generic((id), sb_cloth_id: 1, sb_collider_id: 2, sb_body_id: 3, default: 0)

Test(api, ids_are_distinct_types_numbered_per_kind_in_the_order_of_adding)
{
    cr_assert_eq(ID_KIND((sb_cloth_id){0}), 1);
    cr_assert_eq(ID_KIND((sb_collider_id){0}), 2);
    cr_assert_eq(ID_KIND((sb_body_id){0}), 3);
    cr_assert_eq(ID_KIND((int32_t)0), 0, "an id is not an integer");
    sb_world *w = new_world();
    sb_cloth_def cloth = square_def();
    sb_collider_def collider = sb_default_collider_def();
    collider.vertex_count = 4, collider.positions = square, collider.triangle_count = 2, collider.triangles = square_tris;
    sb_body_def body = sb_default_body_def();
    body.shape = SB_SHAPE_SPHERE, body.radius = 0.1, body.center[2] = -1.0;
    sb_cloth_id c0, c1;
    sb_collider_id k0;
    sb_body_id b0, b1;
    cr_assert_eq(sb_world_add_body(w, &body, &b0), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_world_add_cloth(w, &cloth, &c0), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_world_add_collider(w, &collider, &k0), SB_OK, "%s", sb_last_error());
    body.center[0] = 1.0;
    cr_assert_eq(sb_world_add_body(w, &body, &b1), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_world_add_cloth(w, &cloth, &c1), SB_OK, "%s", sb_last_error());
    cr_assert(c0.index == 0 && c1.index == 1 && k0.index == 0 && b0.index == 0 && b1.index == 1,
              "cloths %d %d, collider %d, bodies %d %d", c0.index, c1.index, k0.index, b0.index, b1.index);
    cr_assert_eq(sb_collider_follow_body(w, k0, b1), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_collider_follow_body(w, (sb_collider_id){1}, b0), SB_ERROR_NOT_FOUND);
    cr_assert(strstr(sb_last_error(), "no collider with id 1"), "%s", sb_last_error());
    sb_world_destroy(w);
    /* bindings can check their mirrors of the ids too */
    const char *names[] = {"sb_cloth_id", "sb_collider_id", "sb_body_id", "sb_field_id"};
    for (int i = 0; i < 4; i++) {
        uint64_t size = 0, offset = 99;
        int32_t fields = 0;
        cr_assert_eq(sb_struct_layout(names[i], &size, &offset, 1, &fields), SB_OK, "%s", sb_last_error());
        cr_assert(size == 4 && fields == 1 && offset == 0, "%s: %llu bytes, %d fields", names[i],
                  (unsigned long long)size, fields);
    }
}
