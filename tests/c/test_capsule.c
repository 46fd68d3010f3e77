/* Capsules: analytic mass properties (a zero-length capsule is a sphere; a long one's inertia is
 * that of the hull of its finely sampled surface), rolling down a slope as a rolling body does
 * (a = g sin θ / (1 + I / (m r²)), its spin growing smoothly, unlike the faceted hull of its
 * mesh), resting on two points along a box and a mesh, meeting spheres and capsules, as a part
 * of a compound, and what the API refuses. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rigid_fixture.h"
#include "testutil.h"

#define PI 3.14159265358979323846

static sb_body_def capsule(double x, double y, double z, double r, double half, const double q[4])
{
    return round_solid(SB_SHAPE_CAPSULE, x, y, z, r, half, q);
}

/* Points of a capsule's surface along z (rings on each hemisphere and the two rims). */
static double *capsule_points(double r, double half, int n, int32_t *count)
{
    double *p = malloc(sizeof(double) * 3 * (size_t)(2 * (n + 1) * n));
    int32_t k = 0;
    for (int side = -1; side <= 1; side += 2)
        for (int i = 0; i <= n; i++) {
            double polar = 0.5 * PI * i / n; /* 0 at the pole, π/2 at the rim */
            for (int j = 0; j < n; j++) {
                double around = 2 * PI * j / n;
                p[3 * k] = r * sin(polar) * cos(around), p[3 * k + 1] = r * sin(polar) * sin(around);
                p[3 * k + 2] = side * (half + r * cos(polar));
                k++;
            }
        }
    *count = k;
    return p;
}

Test(capsule, mass_properties_are_a_spheres_at_zero_length_and_the_sampled_hulls_when_long)
{
    const double one[4] = {1, 0, 0, 0};
    sb_world *w = rigid_world();
    sb_body_def ball = capsule(1, 2, 3, 0.4, 0.0, one), sphere = sb_default_body_def();
    sphere.shape = SB_SHAPE_SPHERE, sphere.radius = 0.4;
    sphere.center[0] = 1, sphere.center[1] = 2, sphere.center[2] = 3;
    ball.angular_velocity[0] = sphere.angular_velocity[0] = 2.0;
    sb_body_state a = rigid_state(w, rigid_add(w, &ball)), b = rigid_state(w, rigid_add(w, &sphere));
    cr_assert(fabs(a.angular_momentum[0] - b.angular_momentum[0]) < 1e-13, "%.15g vs the sphere's %.15g",
              a.angular_momentum[0], b.angular_momentum[0]);
    cr_assert(fabs(a.angular_momentum[0] - 0.4 * 0.16 * 2.0) < 1e-13);

    /* a 0.3 m capsule with a 1 m core, turned: against the hull of 2 x 33 x 64 surface points */
    double c = cos(0.35), s = sin(0.35);
    const double q[4] = {c, s * 0.6, 0.0, s * 0.8};
    int32_t count;
    double *points = capsule_points(0.3, 0.5, 64, &count);
    double rot[3][3] = {{1 - 2 * (q[3] * q[3]), -2 * q[0] * q[3], 2 * q[1] * q[3]},
                        {2 * q[0] * q[3], 1 - 2 * (q[1] * q[1] + q[3] * q[3]), -2 * q[0] * q[1]},
                        {2 * q[1] * q[3], 2 * q[0] * q[1], 1 - 2 * (q[1] * q[1])}};
    for (int32_t i = 0; i < count; i++) {
        double v[3] = {points[3 * i], points[3 * i + 1], points[3 * i + 2]};
        for (int r = 0; r < 3; r++) points[3 * i + r] = rot[r][0] * v[0] + rot[r][1] * v[1] + rot[r][2] * v[2];
    }
    const double spin[3] = {0.3, -1.1, 2.0};
    sb_body_def exact = capsule(0, 0, 0, 0.3, 0.5, q), hull = sb_default_body_def();
    hull.vertex_count = count, hull.vertices = points;
    memcpy(exact.angular_velocity, spin, sizeof spin), memcpy(hull.angular_velocity, spin, sizeof spin);
    sb_body_state e = rigid_state(w, rigid_add(w, &exact)), h = rigid_state(w, rigid_add(w, &hull));
    for (int k = 0; k < 3; k++)
        cr_assert(fabs(e.angular_momentum[k] - h.angular_momentum[k]) < 3e-3 * fabs(e.angular_momentum[k]) + 1e-9,
                  "L %d: the capsule's %.6f, its sampled hull's %.6f", k, e.angular_momentum[k], h.angular_momentum[k]);
    free(points);
    sb_world_destroy(w);
}

/* A capsule of radius 0.2 m and 0.6 m core on a 15° slope (static box, or a mesh), its axis
 * across the slope, rolling for `seconds`: its centre's distance down the slope and its spin
 * at every 1/60 s. */
static void roll(const sb_body_def *rolling, double seconds, double *distance, double *spins, int frames)
{
    const double slope = 15.0 * PI / 180.0;
    sb_world *w = rigid_world();
    sb_body_def ground = sb_default_body_def();
    ground.type = SB_BODY_STATIC, ground.shape = SB_SHAPE_BOX;
    ground.half_extents[0] = 20, ground.half_extents[1] = 20, ground.half_extents[2] = 0.5;
    /* turned by the slope about y: downhill is +x along the surface */
    ground.rotation[0] = cos(slope / 2), ground.rotation[2] = sin(slope / 2);
    ground.center[0] = -0.5 * sin(slope), ground.center[2] = -0.5 * cos(slope); /* its top through the origin */
    ground.friction = 1.0;
    rigid_add(w, &ground);
    sb_body_id id = rigid_add(w, rolling);
    sb_body_state start = rigid_state(w, id);
    for (int f = 1; f <= frames; f++) {
        cr_assert_eq(sb_world_step_to(w, seconds * f / frames), SB_OK, "%s", sb_last_error());
        sb_body_state now = rigid_state(w, id);
        spins[f - 1] = now.angular_velocity[1];
    }
    sb_body_state end = rigid_state(w, id);
    double dx = end.position[0] - start.position[0], dz = end.position[2] - start.position[2];
    *distance = sqrt(dx * dx + dz * dz);
    sb_world_destroy(w);
}

Test(capsule, rolls_down_a_slope_as_a_rolling_body_and_spins_up_smoothly)
{
    const double slope = 15.0 * PI / 180.0, r = 0.2, half = 0.3, g = 9.81;
    /* its axis along y (z turned onto y), resting on the slope: centre r above the surface */
    const double across[4] = {cos(PI / 4), sin(PI / 4), 0, 0};
    sb_body_def d = capsule(r * sin(slope), 0, r * cos(slope) + 1e-4, r, half, across);
    d.friction = 1.0, d.mass = 3.0;
    enum { FRAMES = 60 };
    double distance, spins[FRAMES];
    roll(&d, 1.0, &distance, spins, FRAMES);
    /* I about the axis over m r²: (V_c r²/2 + V_s 2r²/5) / (V r²) */
    double vc = PI * r * r * 2 * half, vs = 4.0 / 3.0 * PI * r * r * r;
    double ratio = (vc / 2 + vs * 0.4) / (vc + vs), a = g * sin(slope) / (1 + ratio);
    cr_assert(fabs(distance - 0.5 * a) < 0.01 * 0.5 * a, "rolled %.5f m in 1 s, a rolling capsule %.5f m", distance,
              0.5 * a);
    /* ω = a t / r, frame after frame, with no bumps */
    double worst = 0.0;
    for (int f = 0; f < FRAMES; f++) {
        double t = (f + 1.0) / FRAMES, expected = a * t / r;
        worst = fmax(worst, fabs(fabs(spins[f]) - expected) / (a / r));
    }
    cr_assert(worst < 0.02, "its spin left a t / r by %.4f of a / r (1/s)", worst);

    /* the hull of its surface sampled as a mesh of 32 segments around: it bumps from facet to
     * facet, its spin lagging and leaping */
    int32_t count;
    double *points = capsule_points(r, half, 32, &count);
    for (int32_t i = 0; i < count; i++) { /* z onto y as `across` turns it, and moved to the start */
        double y = points[3 * i + 1], z = points[3 * i + 2];
        points[3 * i + 1] = -z, points[3 * i + 2] = y;
        points[3 * i] += d.center[0], points[3 * i + 2] += d.center[2];
    }
    sb_body_def hull = sb_default_body_def();
    hull.vertex_count = count, hull.vertices = points, hull.friction = 1.0, hull.mass = 3.0;
    double hull_distance, hull_spins[FRAMES];
    roll(&hull, 1.0, &hull_distance, hull_spins, FRAMES);
    double hull_worst = 0.0;
    for (int f = 0; f < FRAMES; f++)
        hull_worst = fmax(hull_worst, fabs(fabs(hull_spins[f]) - a * (f + 1.0) / FRAMES / r) / (a / r));
    cr_assert(hull_worst > 5 * worst, "the hull of the mesh rolls as smoothly (%.4f) as the capsule (%.4f)", hull_worst,
              worst);
    free(points);
}

Test(capsule, lies_on_two_points_along_a_box_and_a_mesh)
{
    for (int mesh = 0; mesh < 2; mesh++) {
        sb_world *w = rigid_world();
        sb_body_def ground = sb_default_body_def();
        solid_mesh plane = plane_mesh(10.0, 0.0);
        ground.type = SB_BODY_STATIC;
        if (mesh) {
            ground.shape = SB_SHAPE_MESH;
            ground.vertex_count = plane.vertex_count, ground.vertices = plane.positions;
            ground.triangle_count = plane.triangle_count, ground.triangles = plane.triangles;
        } else {
            ground.shape = SB_SHAPE_BOX;
            ground.half_extents[0] = ground.half_extents[1] = 5, ground.half_extents[2] = 0.5;
            ground.center[2] = -0.5;
        }
        rigid_add(w, &ground);
        /* its axis along x but for 0.1 rad, one end lower: it lands on that end, then lies down */
        const double tilted[4] = {cos(PI / 4 + 0.05), 0, sin(PI / 4 + 0.05), 0};
        sb_body_def d = capsule(0, 0, 0.5, 0.15, 0.4, tilted);
        sb_body_id id = rigid_add(w, &d);
        cr_assert_eq(sb_world_step_to(w, 2.0), SB_OK, "%s", sb_last_error());
        sb_body_state st = rigid_state(w, id);
        double m[16];
        sb_body_get_transform(w, id, m);
        /* its axis, (sin(π/2 + 0.1), 0, cos(π/2 + 0.1)) when added, turned by M: level */
        double axis_z = m[8] * sin(PI / 2 + 0.1) + m[10] * cos(PI / 2 + 0.1);
        cr_assert(fabs(st.position[2] - 0.15) < 1e-3, "%s: centre at %.5f m, lying down 0.15 m", mesh ? "mesh" : "box",
                  st.position[2]);
        cr_assert(fabs(axis_z) < 2e-3, "%s: its axis is %.4f out of level", mesh ? "mesh" : "box", axis_z);
        cr_assert(st.contacts >= 2, "%s: %d contact points", mesh ? "mesh" : "box", (int)st.contacts);
        double speed = sqrt(st.linear_velocity[0] * st.linear_velocity[0] + st.linear_velocity[1] * st.linear_velocity[1] +
                            st.linear_velocity[2] * st.linear_velocity[2]);
        cr_assert(speed < 1e-3, "%s: still moving at %.4g m/s", mesh ? "mesh" : "box", speed);
        solid_mesh_free(&plane);
        sb_world_destroy(w);
    }
}

Test(capsule, meets_spheres_capsules_and_is_a_part_of_compounds)
{
    sb_world *w = rigid_world();
    const double one[4] = {1, 0, 0, 0}, along_x[4] = {cos(PI / 4), 0, sin(PI / 4), 0},
                 along_y[4] = {cos(PI / 4), -sin(PI / 4), 0, 0};
    sb_body_def ground = sb_default_body_def();
    ground.type = SB_BODY_STATIC, ground.shape = SB_SHAPE_BOX;
    ground.half_extents[0] = ground.half_extents[1] = 5, ground.half_extents[2] = 0.5;
    ground.center[2] = -0.5;
    rigid_add(w, &ground);
    /* a capsule lying along x, a capsule across it on top, a sphere on that */
    sb_body_def low = capsule(0, 0, 0.1, 0.1, 0.5, along_x), high = capsule(0, 0, 0.31, 0.1, 0.5, along_y);
    sb_body_def ball = sb_default_body_def();
    ball.shape = SB_SHAPE_SPHERE, ball.radius = 0.1, ball.center[2] = 0.52;
    low.friction = high.friction = ball.friction = 1.0;
    sb_body_id ids[3] = {rigid_add(w, &low), rigid_add(w, &high), rigid_add(w, &ball)};
    add_capsule_rails(w); /* under a dynamic box */
    sb_body_def box = sb_default_body_def();
    box.shape = SB_SHAPE_BOX, box.center[0] = 3.0, box.center[2] = 0.55;
    box.half_extents[0] = 0.5, box.half_extents[1] = 0.5, box.half_extents[2] = 0.1;
    (void)one;
    sb_body_id on_part = rigid_add(w, &box);
    cr_assert_eq(sb_world_step_to(w, 1.0), SB_OK, "%s", sb_last_error());
    const double heights[3] = {0.1, 0.3, 0.5};
    for (int i = 0; i < 3; i++) {
        sb_body_state st = rigid_state(w, ids[i]);
        cr_assert(fabs(st.position[2] - heights[i]) < 2e-3, "body %d at %.5f m, stacked at %.2f m", i, st.position[2],
                  heights[i]);
    }
    sb_body_state st = rigid_state(w, on_part);
    cr_assert(fabs(st.position[2] - 0.5) < 2e-3, "the box on the capsule rails at %.5f m, resting at 0.5 m",
              st.position[2]);
    sb_world_destroy(w);
}

/* A capsule lying along a static parallel capsule, its centre 0.3 m along from the lower one's:
 * they touch along the 0.7 m where their segments lie side by side, and it rests there on the
 * two ends of that line (one contact at the segments' closest points, which two parallel
 * segments do not have, would let it tip over that point and roll off the end). */
Test(capsule, rests_along_a_parallel_capsule_without_rocking)
{
    sb_world *w = rigid_world();
    const double along_x[4] = {cos(PI / 4), 0, sin(PI / 4), 0};
    sb_body_def rail = capsule(0, 0, 0.2, 0.2, 0.5, along_x);
    rail.type = SB_BODY_STATIC;
    rigid_add(w, &rail);
    sb_body_def d = capsule(0.3, 0, 0.6, 0.2, 0.5, along_x);
    sb_body_id id = rigid_add(w, &d);
    double tilt = 0.0, drift = 0.0;
    int least_contacts = 1000;
    for (int frame = 1; frame <= 72; frame++) { /* 3 s at 24 fps */
        cr_assert_eq(sb_world_step_to(w, frame / 24.0), SB_OK, "%s", sb_last_error());
        sb_body_state st = rigid_state(w, id);
        double m[16];
        sb_body_get_transform(w, id, m);
        /* its axis, x when added, turned by M (row-major, from the pose it was added in) */
        tilt = fmax(tilt, fmax(fabs(m[8]), fabs(m[4])));
        drift = fmax(drift, fmax(fabs(st.position[0] - 0.3), fmax(fabs(st.position[1]), fabs(st.position[2] - 0.6))));
        if (frame > 1 && st.contacts < least_contacts) least_contacts = (int)st.contacts;
    }
    printf("capsule along a capsule: for 3 s at most %.2e out of level, %.2e m from where it was put, "
           "at least %d contact points\n", tilt, drift, least_contacts);
    cr_assert(tilt < 1e-3, "it rocked: its axis %.4f out of level", tilt);
    cr_assert(drift < 2e-3, "it moved %.4f m", drift);
    cr_assert(least_contacts >= 2, "it rested on %d point(s)", least_contacts);
    sb_world_destroy(w);
}

Test(capsule, bad_capsules_are_refused)
{
    const double one[4] = {1, 0, 0, 0};
    sb_world *w = rigid_world();
    sb_body_id id = {77};
    sb_body_def d = capsule(0, 0, 0, 0.0, 0.5, one);
    cr_assert_eq(sb_world_add_body(w, &d, &id), SB_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(sb_last_error(), "capsule's radius"), "%s", sb_last_error());
    d = capsule(0, 0, 0, 0.2, -0.1, one);
    cr_assert_eq(sb_world_add_body(w, &d, &id), SB_ERROR_INVALID_ARGUMENT);
    d = capsule(0, 0, 0, 0.2, NAN, one);
    cr_assert_eq(sb_world_add_body(w, &d, &id), SB_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(id.index, 77);
    sb_world_destroy(w);
}
