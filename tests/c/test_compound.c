/* Compound bodies: mass properties summed exactly (two boxes end to end are one long box),
 * contacts from every part (a table of five boxes lands on its four legs, on a box floor and
 * on a triangle mesh), what the API refuses, and a resumed bake that stays bit-identical. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rigid_fixture.h"
#include "testutil.h"

#define PI 3.14159265358979323846

static sb_body_part box_part(double cx, double cy, double cz, double hx, double hy, double hz, const double q[4])
{
    sb_body_part p = sb_default_body_part();
    p.shape = SB_SHAPE_BOX;
    p.center[0] = cx, p.center[1] = cy, p.center[2] = cz;
    p.half_extents[0] = hx, p.half_extents[1] = hy, p.half_extents[2] = hz;
    for (int k = 0; k < 4; k++) p.rotation[k] = q[k];
    return p;
}

/* v rotated by the unit quaternion q (w, x, y, z) */
static void rotate(const double q[4], const double v[3], double out[3])
{
    double w = q[0], x = q[1], y = q[2], z = q[3];
    double r[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
                      {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
                      {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}};
    for (int i = 0; i < 3; i++) out[i] = r[i][0] * v[0] + r[i][1] * v[1] + r[i][2] * v[2];
}

static sb_body_state add_and_read(sb_world *w, const sb_body_def *d)
{
    sb_body_id id;
    cr_assert_eq(sb_world_add_body(w, d, &id), SB_OK, "%s", sb_last_error());
    sb_body_state s;
    cr_assert_eq(sb_body_get_state(w, id, &s), SB_OK);
    return s;
}

Test(compound, two_boxes_end_to_end_have_the_mass_properties_of_one_long_box)
{
    /* a 1 m cube over x in [0, 1] and a 2 x 1 x 1 box over [1, 3], both turned by q about an
     * offset origin: one 3 x 1 x 1 box, centre (1.5, 0, 0) turned the same way */
    const double q[4] = {0.8775825618903728, 0.2, -0.3, 0.3112480899};
    double norm = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    double qn[4] = {q[0] / norm, q[1] / norm, q[2] / norm, q[3] / norm};
    const double origin[3] = {2.0, -1.0, 3.0}, a_local[3] = {0.5, 0, 0}, b_local[3] = {2.0, 0, 0},
                 long_local[3] = {1.5, 0, 0};
    double a[3], b[3], whole[3];
    rotate(qn, a_local, a), rotate(qn, b_local, b), rotate(qn, long_local, whole);
    for (int k = 0; k < 3; k++) a[k] += origin[k], b[k] += origin[k], whole[k] += origin[k];
    sb_body_part parts[2] = {box_part(a[0], a[1], a[2], 0.5, 0.5, 0.5, qn), box_part(b[0], b[1], b[2], 1.0, 0.5, 0.5, qn)};

    sb_body_def compound = sb_default_body_def();
    compound.shape = SB_SHAPE_COMPOUND;
    compound.part_count = 2, compound.parts = parts;
    compound.mass = 6.0;
    const double w0[3] = {0.7, -1.3, 2.1};
    memcpy(compound.angular_velocity, w0, sizeof w0);
    sb_body_def box = sb_default_body_def();
    box.shape = SB_SHAPE_BOX;
    memcpy(box.center, whole, sizeof whole);
    box.half_extents[0] = 1.5, box.half_extents[1] = 0.5, box.half_extents[2] = 0.5;
    memcpy(box.rotation, qn, sizeof qn);
    box.mass = 6.0;
    memcpy(box.angular_velocity, w0, sizeof w0);

    sb_world *w = rigid_world();
    sb_body_state sc = add_and_read(w, &compound), sb = add_and_read(w, &box);
    /* analytic: the long box's centre, and L = R diag(m/12 (b² + c²), ...) Rᵀ ω */
    double local_w[3], inverse[4] = {qn[0], -qn[1], -qn[2], -qn[3]}, local_l[3], l[3];
    rotate(inverse, w0, local_w);
    const double dims[3] = {3.0, 1.0, 1.0};
    for (int k = 0; k < 3; k++) {
        double d1 = dims[(k + 1) % 3], d2 = dims[(k + 2) % 3];
        local_l[k] = 6.0 / 12.0 * (d1 * d1 + d2 * d2) * local_w[k];
    }
    rotate(qn, local_l, l);
    for (int k = 0; k < 3; k++) {
        cr_assert(fabs(sc.position[k] - whole[k]) < 1e-12, "centre %d: %.15g, analytic %.15g", k, sc.position[k], whole[k]);
        cr_assert(fabs(sc.angular_momentum[k] - l[k]) < 1e-11, "L %d: %.15g, analytic %.15g", k, sc.angular_momentum[k],
                  l[k]);
        cr_assert(fabs(sb.angular_momentum[k] - l[k]) < 1e-11, "the box's own L %d: %.15g", k, sb.angular_momentum[k]);
    }
    cr_assert(fabs(sc.mass - 6.0) < 1e-15);
    cr_assert(fabs(sc.kinetic_energy - sb.kinetic_energy) < 1e-11 * sb.kinetic_energy);
    sb_world_destroy(w);
}

Test(compound, a_sphere_and_a_hull_part_add_up_by_the_parallel_axis_theorem)
{
    /* a sphere of radius 1 at the origin and a closed cube mesh's hull of side 2 at x = 4:
     * volumes 4π/3 and 8; about the common centre c the moment about z is
     * Σ I_i + V_i d_i² (the y, z offsets are zero) */
    double half[3] = {1, 1, 1}, at[3] = {4, 0, 0};
    solid_mesh cube = box_mesh(half, at);
    sb_body_part parts[2] = {sb_default_body_part(), sb_default_body_part()};
    parts[0].shape = SB_SHAPE_SPHERE, parts[0].radius = 1.0;
    parts[1].shape = SB_SHAPE_CONVEX_HULL;
    parts[1].vertex_count = cube.vertex_count, parts[1].vertices = cube.positions;
    parts[1].triangle_count = cube.triangle_count, parts[1].triangles = cube.triangles;
    sb_body_def d = sb_default_body_def();
    d.shape = SB_SHAPE_COMPOUND, d.part_count = 2, d.parts = parts;
    double vs = 4.0 / 3.0 * PI, vc = 8.0, density = 2.0;
    d.mass = density * (vs + vc);
    d.angular_velocity[2] = 1.0;
    sb_world *w = rigid_world();
    sb_body_state s = add_and_read(w, &d);
    double c = vc * 4.0 / (vs + vc);
    double iz = density * (0.4 * vs * 1.0 + vs * c * c + vc * (2.0 * 2.0 + 2.0 * 2.0) / 12.0 + vc * (4.0 - c) * (4.0 - c));
    cr_assert(fabs(s.position[0] - c) < 1e-12, "centre %.15g, analytic %.15g", s.position[0], c);
    cr_assert(fabs(s.angular_momentum[2] - iz) < 1e-10 * iz, "Lz %.15g, analytic %.15g", s.angular_momentum[2], iz);
    cr_assert(fabs(s.angular_momentum[0]) < 1e-10 && fabs(s.angular_momentum[1]) < 1e-10);
    solid_mesh_free(&cube);
    sb_world_destroy(w);
}

/* A table: a 1.2 x 0.8 x 0.06 top on four 0.06 x 0.06 x 0.7 legs at its corners, its legs'
 * feet at `foot` m, turned by `tilt` about x. */
static int32_t table_parts(sb_body_part parts[5], double foot, double tilt)
{
    const double q[4] = {cos(tilt / 2), sin(tilt / 2), 0, 0};
    const double top[3] = {0, 0, 0.73}, legs[4][3] = {{0.57, 0.37, 0.35}, {-0.57, 0.37, 0.35}, {0.57, -0.37, 0.35},
                                                      {-0.57, -0.37, 0.35}};
    double at[3];
    rotate(q, top, at);
    parts[0] = box_part(at[0], at[1], at[2] + foot, 0.6, 0.4, 0.03, q);
    for (int i = 0; i < 4; i++) {
        rotate(q, legs[i], at);
        parts[1 + i] = box_part(at[0], at[1], at[2] + foot, 0.03, 0.03, 0.35, q);
    }
    return 5;
}

/* The table dropped from 0.3 m, tilted 0.15 rad, onto `floor`, for 2.5 s. */
static void table_lands(const sb_body_def *floor)
{
    sb_world *w = rigid_world();
    sb_body_id ground, table;
    cr_assert_eq(sb_world_add_body(w, floor, &ground), SB_OK, "%s", sb_last_error());
    sb_body_part parts[5];
    sb_body_def d = sb_default_body_def();
    d.shape = SB_SHAPE_COMPOUND, d.part_count = table_parts(parts, 0.3, 0.15), d.parts = parts;
    d.mass = 12.0;
    cr_assert_eq(sb_world_add_body(w, &d, &table), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_world_step_to(w, 2.5), SB_OK, "%s", sb_last_error());
    sb_body_state s;
    sb_body_get_state(w, table, &s);
    double m[16];
    sb_body_get_transform(w, table, m);
    /* level: its own up axis, (0, -sin 0.15, cos 0.15) when added, turned by M is vertical */
    double up[3];
    for (int r = 0; r < 3; r++) up[r] = -sin(0.15) * m[4 * r + 1] + cos(0.15) * m[4 * r + 2];
    cr_assert(up[2] > cos(1e-3), "the table stands tilted: up axis (%.4f, %.4f, %.4f)", up[0], up[1], up[2]);
    /* the centre of mass at rest on the legs: the top's volume 0.0576 m³ at 0.73 m, the legs'
     * 4 x 0.00252 m³ at 0.35 m above the feet */
    double height = (0.0576 * 0.73 + 4 * 0.00252 * 0.35) / (0.0576 + 4 * 0.00252);
    cr_assert(fabs(s.position[2] - height) < 2e-3, "centre of mass at %.5f m, on its legs %.5f m", s.position[2], height);
    double speed = sqrt(s.linear_velocity[0] * s.linear_velocity[0] + s.linear_velocity[1] * s.linear_velocity[1] +
                        s.linear_velocity[2] * s.linear_velocity[2]);
    cr_assert(speed < 1e-3, "still moving at %.4g m/s", speed);
    cr_assert(s.contacts >= 4, "%d contact points: not on all four legs", (int)s.contacts);
    sb_world_destroy(w);
}

Test(compound, a_table_of_five_boxes_lands_on_its_four_legs_on_a_box)
{
    sb_body_def floor = sb_default_body_def();
    floor.type = SB_BODY_STATIC, floor.shape = SB_SHAPE_BOX;
    floor.center[2] = -0.5;
    floor.half_extents[0] = floor.half_extents[1] = 5, floor.half_extents[2] = 0.5;
    table_lands(&floor);
}

Test(compound, a_table_of_five_boxes_lands_on_its_four_legs_on_a_mesh)
{
    solid_mesh plane = plane_mesh(10.0, 0.0);
    sb_body_def floor = sb_default_body_def();
    floor.type = SB_BODY_STATIC, floor.shape = SB_SHAPE_MESH;
    floor.vertex_count = plane.vertex_count, floor.vertices = plane.positions;
    floor.triangle_count = plane.triangle_count, floor.triangles = plane.triangles;
    table_lands(&floor);
    solid_mesh_free(&plane);
}

Test(compound, a_dumbbell_of_two_spheres_rolls_on_a_static_compound_and_rests_on_both)
{
    /* a static floor of two boxes side by side, a dumbbell of two spheres (r = 0.2) joined
     * by a box bar across the seam: it settles with both spheres touching, centre at r */
    sb_world *w = rigid_world();
    const double one[4] = {1, 0, 0, 0};
    sb_body_part floor_parts[2] = {box_part(-2.5, 0, -0.5, 2.5, 5, 0.5, one), box_part(2.5, 0, -0.5, 2.5, 5, 0.5, one)};
    sb_body_def floor = sb_default_body_def();
    floor.type = SB_BODY_STATIC, floor.shape = SB_SHAPE_COMPOUND, floor.part_count = 2, floor.parts = floor_parts;
    sb_body_id ground, bell;
    cr_assert_eq(sb_world_add_body(w, &floor, &ground), SB_OK, "%s", sb_last_error());
    sb_body_part parts[3] = {sb_default_body_part(), sb_default_body_part(), box_part(0, 0, 0.5, 0.5, 0.05, 0.05, one)};
    parts[0].shape = parts[1].shape = SB_SHAPE_SPHERE;
    parts[0].radius = parts[1].radius = 0.2;
    parts[0].center[0] = -0.5, parts[1].center[0] = 0.5;
    parts[0].center[2] = 0.4, parts[1].center[2] = 0.6; /* one end higher: it lands on one, then the other */
    parts[2].center[2] = 0.5;
    sb_body_def d = sb_default_body_def();
    d.shape = SB_SHAPE_COMPOUND, d.part_count = 3, d.parts = parts;
    cr_assert_eq(sb_world_add_body(w, &d, &bell), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_world_step_to(w, 2.0), SB_OK, "%s", sb_last_error());
    double m[16];
    sb_body_get_transform(w, bell, m);
    /* the spheres' centres now: M (c, 1) */
    for (int i = 0; i < 2; i++) {
        double z = m[8] * parts[i].center[0] + m[9] * parts[i].center[1] + m[10] * parts[i].center[2] + m[11];
        cr_assert(fabs(z - 0.2) < 2e-3, "sphere %d's centre at %.5f m, resting on the floor at 0.2 m", i, z);
    }
    sb_world_destroy(w);
}

static void expect_refused(sb_world *w, const sb_body_def *d, sb_result code, const char *words)
{
    sb_body_id id = {77};
    cr_assert_eq(sb_world_add_body(w, d, &id), code, "expected %s, got message '%s'", sb_result_name(code),
                 sb_last_error());
    cr_assert_eq(id.index, 77, "the id was written on failure");
    cr_assert_not_null(strstr(sb_last_error(), words), "message '%s' does not mention '%s'", sb_last_error(), words);
}

Test(compound, bad_parts_are_refused_with_a_message_naming_the_part)
{
    sb_world *w = rigid_world();
    const double one[4] = {1, 0, 0, 0};
    sb_body_part parts[2] = {box_part(0, 0, 0, 0.5, 0.5, 0.5, one), box_part(1, 0, 0, 0.5, 0.5, 0.5, one)};
    sb_body_def d = sb_default_body_def();
    d.shape = SB_SHAPE_COMPOUND, d.part_count = 2, d.parts = parts;
    sb_body_def bad = d;
    bad.part_count = 0;
    expect_refused(w, &bad, SB_ERROR_INVALID_ARGUMENT, "parts");
    bad = d, bad.parts = NULL;
    expect_refused(w, &bad, SB_ERROR_INVALID_ARGUMENT, "no array");
    bad = d, bad.part_count = 5000;
    expect_refused(w, &bad, SB_ERROR_INVALID_ARGUMENT, "parts");
    parts[1].shape = SB_SHAPE_MESH;
    expect_refused(w, &d, SB_ERROR_INVALID_ARGUMENT, "compound part 1");
    parts[1].shape = SB_SHAPE_COMPOUND;
    expect_refused(w, &d, SB_ERROR_INVALID_ARGUMENT, "compound part 1");
    parts[1] = box_part(1, 0, 0, 0.5, -0.5, 0.5, one);
    expect_refused(w, &d, SB_ERROR_INVALID_ARGUMENT, "compound part 1: box half extents");
    parts[1] = box_part(1, 0, NAN, 0.5, 0.5, 0.5, one);
    expect_refused(w, &d, SB_ERROR_INVALID_ARGUMENT, "not finite");
    parts[1] = box_part(1, 0, 0, 0.5, 0.5, 0.5, one);
    parts[1].shape = SB_SHAPE_CONVEX_HULL; /* no vertices */
    expect_refused(w, &d, SB_ERROR_INVALID_MESH, "compound part 1");
    const double flat[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0};
    parts[1].vertex_count = 4, parts[1].vertices = flat;
    expect_refused(w, &d, SB_ERROR_INVALID_MESH, "compound part 1: the body's vertices span no volume");
    const int32_t outside[3] = {0, 1, 9};
    parts[1].triangle_count = 1, parts[1].triangles = outside;
    expect_refused(w, &d, SB_ERROR_INVALID_MESH, "uses vertex 9");
    cr_assert_eq(sb_world_get_body_transforms(w, (double[16]){0}, 0), SB_OK, "a refused body was added");
    sb_world_destroy(w);
}

/* The table falling onto a box floor, saved at 0.4 s and resumed in a world built again. */
static sb_world *table_world(double tilt)
{
    sb_world *w = rigid_world();
    sb_body_def floor = sb_default_body_def();
    floor.type = SB_BODY_STATIC, floor.shape = SB_SHAPE_BOX;
    floor.center[2] = -0.5;
    floor.half_extents[0] = floor.half_extents[1] = 5, floor.half_extents[2] = 0.5;
    sb_body_id id;
    cr_assert_eq(sb_world_add_body(w, &floor, &id), SB_OK);
    sb_body_part parts[5];
    sb_body_def d = sb_default_body_def();
    d.shape = SB_SHAPE_COMPOUND, d.part_count = table_parts(parts, 0.2, tilt), d.parts = parts;
    d.mass = 12.0;
    cr_assert_eq(sb_world_add_body(w, &d, &id), SB_OK, "%s", sb_last_error());
    return w;
}

Test(compound, a_resumed_compound_bake_is_bit_identical_and_another_shape_is_refused)
{
    sb_world *straight = table_world(0.2), *resumed = table_world(0.2), *other = table_world(0.25);
    cr_assert_eq(sb_world_step_to(straight, 0.4), SB_OK, "%s", sb_last_error());
    uint64_t size = 0;
    cr_assert_eq(sb_world_get_state_size(straight, &size), SB_OK);
    void *state = malloc(size);
    cr_assert_eq(sb_world_save_state(straight, state, size), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_world_load_state(resumed, state, size), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_world_load_state(other, state, size), SB_ERROR_INVALID_ARGUMENT);
    cr_assert_not_null(strstr(sb_last_error(), "body 1's shape"), "%s", sb_last_error());
    cr_assert_eq(sb_world_step_to(straight, 1.0), SB_OK);
    cr_assert_eq(sb_world_step_to(resumed, 1.0), SB_OK);
    double a[32], b[32];
    sb_world_get_body_transforms(straight, a, 2);
    sb_world_get_body_transforms(resumed, b, 2);
    cr_assert(memcmp(a, b, sizeof a) == 0, "the resumed table is elsewhere");
    free(state);
    sb_world_destroy(straight), sb_world_destroy(resumed), sb_world_destroy(other);
}
