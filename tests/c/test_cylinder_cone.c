/* Cylinders and cones (rigid_round_solid.h): analytic mass properties (a cone's centre of mass a
 * quarter of its height above its base), a cylinder rolling down a slope at (2/3) g sin θ, a
 * cylinder on its cap and a cone on its base resting still, a cylinder lying on its side on two
 * points, a cone on its side rolling round its apex, the shapes meeting spheres, boxes, capsules,
 * meshes and each other, as parts of compounds, a saved world resumed bit for bit, and what the API refuses. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rigid_fixture.h"
#include "testutil.h"

#define PI 3.14159265358979323846

/* A static box whose top is the plane z = 0 (10 m across), friction 1. */
static void add_ground(sb_world *w)
{
    sb_body_def ground = sb_default_body_def();
    ground.type = SB_BODY_STATIC, ground.shape = SB_SHAPE_BOX, ground.friction = 1.0;
    ground.half_extents[0] = ground.half_extents[1] = 5, ground.half_extents[2] = 0.5;
    ground.center[2] = -0.5;
    rigid_add(w, &ground);
}

Test(cylinder_cone, mass_properties_are_analytic)
{
    const double one[4] = {1, 0, 0, 0}, r = 0.3, half = 0.5, m = 2.0, H = 2 * half;
    for (int cone = 0; cone < 2; cone++) {
        sb_world *w = rigid_world();
        sb_body_def d = round_solid(cone ? SB_SHAPE_CONE : SB_SHAPE_CYLINDER, 1, 2, 3, r, half, one);
        d.mass = m;
        d.angular_velocity[0] = 1, d.angular_velocity[1] = 2, d.angular_velocity[2] = 3;
        sb_body_state s = rigid_state(w, rigid_add(w, &d));
        double along = cone ? 0.3 * m * r * r : 0.5 * m * r * r;
        double across = cone ? m * (3 * r * r / 20 + 3 * H * H / 80) : m * (3 * r * r + H * H) / 12;
        /* L = I ω about the centre of mass, the axis along z */
        double expected[3] = {across, 2 * across, 3 * along};
        for (int k = 0; k < 3; k++)
            cr_assert(fabs(s.angular_momentum[k] - expected[k]) < 1e-12 * expected[k], "%s: L %d = %.15g, I ω %.15g",
                      cone ? "cone" : "cylinder", k, s.angular_momentum[k], expected[k]);
        /* a cone's centre of mass a quarter of its height above its base, which is at z = 3 - half */
        double z = cone ? 3 - half + H / 4 : 3;
        cr_assert(fabs(s.position[0] - 1) < 1e-12 && fabs(s.position[1] - 2) < 1e-12 && fabs(s.position[2] - z) < 1e-12,
                  "%s: centre of mass (%.15g, %.15g, %.15g), expected (1, 2, %.15g)", cone ? "cone" : "cylinder",
                  s.position[0], s.position[1], s.position[2], z);
        cr_assert(fabs(s.mass - m) < 1e-15);
        sb_world_destroy(w);
    }
}

/* A cylinder of radius 0.2 m, 0.6 m long, its axis across a 15° slope, rolling for 1 s from rest:
 * a = g sin θ / (1 + I / (m r²)) = (2/3) g sin θ, and its spin a t / r frame after frame. */
Test(cylinder_cone, cylinder_rolls_down_a_slope_at_two_thirds_g_sin_theta)
{
    const double slope = 15.0 * PI / 180.0, r = 0.2, half = 0.3, g = 9.81;
    sb_world *w = rigid_world();
    sb_body_def ground = sb_default_body_def();
    ground.type = SB_BODY_STATIC, ground.shape = SB_SHAPE_BOX, ground.friction = 1.0;
    ground.half_extents[0] = 20, ground.half_extents[1] = 20, ground.half_extents[2] = 0.5;
    ground.rotation[0] = cos(slope / 2), ground.rotation[2] = sin(slope / 2); /* downhill is +x */
    ground.center[0] = -0.5 * sin(slope), ground.center[2] = -0.5 * cos(slope);
    rigid_add(w, &ground);
    const double across[4] = {cos(PI / 4), sin(PI / 4), 0, 0}; /* its axis along y */
    sb_body_def d = round_solid(SB_SHAPE_CYLINDER, r * sin(slope), 0, r * cos(slope) + 1e-4, r, half, across);
    d.friction = 1.0, d.mass = 3.0;
    sb_body_id id = rigid_add(w, &d);
    sb_body_state start = rigid_state(w, id);
    double a = 2.0 / 3.0 * g * sin(slope), worst = 0.0;
    enum { FRAMES = 60 };
    for (int f = 1; f <= FRAMES; f++) {
        cr_assert_eq(sb_world_step_to(w, (double)f / FRAMES), SB_OK, "%s", sb_last_error());
        sb_body_state now = rigid_state(w, id);
        double t = (double)f / FRAMES;
        worst = fmax(worst, fabs(fabs(now.angular_velocity[1]) - a * t / r) / (a / r));
    }
    sb_body_state end = rigid_state(w, id);
    double dx = end.position[0] - start.position[0], dz = end.position[2] - start.position[2];
    double distance = sqrt(dx * dx + dz * dz);
    printf("cylinder on a 15 deg slope: rolled %.5f m in 1 s, (2/3) g sin(theta) / 2 = %.5f m (%.3f%%); spin at most "
           "%.4f a/r off a t / r\n", distance, 0.5 * a, 100 * (distance / (0.5 * a) - 1), worst);
    cr_assert(fabs(distance - 0.5 * a) < 0.01 * 0.5 * a, "rolled %.5f m in 1 s, a rolling cylinder %.5f m", distance,
              0.5 * a);
    cr_assert(worst < 0.02, "its spin left a t / r by %.4f of a / r", worst);
    cr_assert(end.contacts >= 2, "it rolls on %d contact point(s), not a line", (int)end.contacts);
    sb_world_destroy(w);
}

/* Stands the body on the ground for 3 s: the farthest its centre of mass gets from where it
 * settled in the first frame, and the fastest it moves after that frame. */
static void stand(const sb_body_def *d, double *drift, double *speed, int *least_contacts)
{
    sb_world *w = rigid_world();
    add_ground(w);
    sb_body_id id = rigid_add(w, d);
    cr_assert_eq(sb_world_step_to(w, 1.0 / 24), SB_OK, "%s", sb_last_error());
    sb_body_state first = rigid_state(w, id);
    *drift = *speed = 0.0, *least_contacts = 1000;
    for (int frame = 2; frame <= 72; frame++) {
        cr_assert_eq(sb_world_step_to(w, frame / 24.0), SB_OK, "%s", sb_last_error());
        sb_body_state s = rigid_state(w, id);
        for (int k = 0; k < 3; k++) {
            *drift = fmax(*drift, fabs(s.position[k] - first.position[k]));
            *speed = fmax(*speed, fabs(s.linear_velocity[k]) + fabs(s.angular_velocity[k]) * 0.3);
        }
        if (s.contacts < *least_contacts) *least_contacts = (int)s.contacts;
    }
    sb_world_destroy(w);
}

Test(cylinder_cone, cylinder_on_its_cap_and_cone_on_its_base_rest_still)
{
    const double one[4] = {1, 0, 0, 0};
    for (int cone = 0; cone < 2; cone++) {
        sb_body_def d = round_solid(cone ? SB_SHAPE_CONE : SB_SHAPE_CYLINDER, 0.1, -0.2, 0.3, 0.25, 0.3, one);
        double drift, speed;
        int contacts;
        stand(&d, &drift, &speed, &contacts);
        printf("%s on its %s: for 3 s %.2e m from where it settled, at most %.2e m/s, at least %d contact points\n",
               cone ? "cone" : "cylinder", cone ? "base" : "cap", drift, speed, contacts);
        cr_assert(drift < 1e-6, "%s: drifted %.3g m", cone ? "cone" : "cylinder", drift);
        cr_assert(speed < 1e-4, "%s: jitters at %.3g m/s", cone ? "cone" : "cylinder", speed);
        cr_assert(contacts >= 3, "%s: stands on %d point(s)", cone ? "cone" : "cylinder", contacts);
    }
}

Test(cylinder_cone, cylinder_lies_on_its_side_on_two_points_on_a_box_and_a_mesh)
{
    for (int mesh = 0; mesh < 2; mesh++) {
        sb_world *w = rigid_world();
        solid_mesh plane = plane_mesh(10.0, 0.0);
        if (mesh) {
            sb_body_def ground = sb_default_body_def();
            ground.type = SB_BODY_STATIC, ground.shape = SB_SHAPE_MESH;
            ground.vertex_count = plane.vertex_count, ground.vertices = plane.positions;
            ground.triangle_count = plane.triangle_count, ground.triangles = plane.triangles;
            rigid_add(w, &ground);
        } else {
            add_ground(w);
        }
        /* its axis along x but for 0.1 rad, one end lower: it lands on that rim, then lies down */
        const double tilted[4] = {cos(PI / 4 + 0.05), 0, sin(PI / 4 + 0.05), 0};
        sb_body_def d = round_solid(SB_SHAPE_CYLINDER, 0, 0, 0.5, 0.15, 0.4, tilted);
        sb_body_id id = rigid_add(w, &d);
        cr_assert_eq(sb_world_step_to(w, 2.0), SB_OK, "%s", sb_last_error());
        double tilt = 0.0, height = 0.0;
        for (int frame = 49; frame <= 72; frame++) { /* another second, watched */
            cr_assert_eq(sb_world_step_to(w, frame / 24.0), SB_OK, "%s", sb_last_error());
            double m[16];
            sb_body_get_transform(w, id, m);
            tilt = fmax(tilt, fabs(m[8] * sin(PI / 2 + 0.1) + m[10] * cos(PI / 2 + 0.1)));
            height = fmax(height, fabs(rigid_state(w, id).position[2] - 0.15));
        }
        sb_body_state st = rigid_state(w, id);
        printf("cylinder lying on a %s: axis %.2e out of level, centre %.2e m off 0.15 m, %d contacts\n",
               mesh ? "mesh" : "box", tilt, height, (int)st.contacts);
        cr_assert(height < 1e-3, "%s: centre %.5f m off lying down", mesh ? "mesh" : "box", height);
        cr_assert(tilt < 1e-3, "%s: its axis is %.4f out of level", mesh ? "mesh" : "box", tilt);
        cr_assert(st.contacts >= 2, "%s: %d contact points", mesh ? "mesh" : "box", (int)st.contacts);
        solid_mesh_free(&plane);
        sb_world_destroy(w);
    }
}

/* A cone (radius 0.2 m, 0.6 m high) lying on its side, its apex at the origin, set rolling about
 * the line it touches the ground along: it rolls round its apex, which stays where it was. */
Test(cylinder_cone, cone_on_its_side_rolls_round_its_apex)
{
    const double r = 0.2, half = 0.3, H = 2 * half, alpha = atan(r / H), spin = 3.0;
    sb_world *w = rigid_world();
    add_ground(w);
    /* its axis from base to apex along -(cos α, 0, sin α): the generator along +x lies on z = 0 */
    double beta = atan2(-cos(alpha), -sin(alpha));
    const double q[4] = {cos(beta / 2), 0, sin(beta / 2), 0};
    sb_body_def d = round_solid(SB_SHAPE_CONE, half * cos(alpha), 0, half * sin(alpha) + 1e-5, r, half, q);
    d.friction = 1.0;
    /* turning about the x axis (the line of contact): the apex and that line at rest */
    d.angular_velocity[0] = spin;
    d.linear_velocity[1] = -spin * 0.75 * H * sin(alpha); /* ω × c, c its centre of mass, 3H/4 from the apex */
    sb_body_id id = rigid_add(w, &d);
    double apex_off = 0.0, turned = 0.0;
    for (int frame = 1; frame <= 48; frame++) { /* 2 s */
        cr_assert_eq(sb_world_step_to(w, frame / 24.0), SB_OK, "%s", sb_last_error());
        double m[16];
        sb_body_get_transform(w, id, m);
        /* the apex was at the origin: now at M (0, 0, 0) */
        apex_off = fmax(apex_off, sqrt(m[3] * m[3] + m[7] * m[7] + m[11] * m[11]));
        sb_body_state s = rigid_state(w, id);
        turned = fmax(turned, fabs(atan2(s.position[1], s.position[0])));
    }
    printf("cone rolling on its side: apex at most %.2e m from where it was, its centre of mass turned %.1f deg "
           "round it\n", apex_off, turned * 180 / PI);
    cr_assert(apex_off < 3e-3, "the apex wandered %.4f m", apex_off);
    cr_assert(turned > 20 * PI / 180, "it turned only %.1f deg round its apex", turned * 180 / PI);
    sb_world_destroy(w);
}

/* A sphere on a standing cylinder's cap, a box across a lying cylinder, a capsule and a cone on
 * that box's neighbour, a cylinder on a cylinder: each comes to rest where the geometry puts it. */
Test(cylinder_cone, meets_spheres_boxes_capsules_and_round_solids)
{
    const double one[4] = {1, 0, 0, 0}, along_y[4] = {cos(PI / 4), sin(PI / 4), 0, 0};
    sb_world *w = rigid_world();
    add_ground(w);
    sb_body_def post = round_solid(SB_SHAPE_CYLINDER, 0, 0, 0.3, 0.2, 0.3, one);
    post.type = SB_BODY_STATIC;
    rigid_add(w, &post);
    sb_body_def ball = sb_default_body_def();
    ball.shape = SB_SHAPE_SPHERE, ball.radius = 0.1, ball.center[2] = 0.72;
    sb_body_id ball_id = rigid_add(w, &ball);
    sb_body_def log = round_solid(SB_SHAPE_CYLINDER, 2, 0, 0.2, 0.2, 0.5, along_y);
    log.type = SB_BODY_STATIC;
    rigid_add(w, &log);
    sb_body_def box = sb_default_body_def();
    box.shape = SB_SHAPE_BOX, box.half_extents[0] = 0.1, box.half_extents[1] = 0.3, box.half_extents[2] = 0.05;
    box.center[0] = 2, box.center[2] = 0.46;
    sb_body_id box_id = rigid_add(w, &box);
    sb_body_def upper = round_solid(SB_SHAPE_CYLINDER, -2, 0, 0.52, 0.1, 0.3, along_y); /* across the lower one */
    sb_body_def lower = round_solid(SB_SHAPE_CYLINDER, -2, 0, 0.2, 0.2, 0.4, (double[4]){cos(PI / 4), 0, sin(PI / 4), 0});
    lower.type = SB_BODY_STATIC;
    rigid_add(w, &lower);
    sb_body_id upper_id = rigid_add(w, &upper);
    sb_body_def cap = sb_default_body_def();
    cap.shape = SB_SHAPE_CAPSULE, cap.radius = 0.1, cap.half_extents[2] = 0.2, cap.center[0] = 4, cap.center[2] = 0.72;
    for (int k = 0; k < 4; k++) cap.rotation[k] = along_y[k]; /* lying across the cap */
    sb_body_def stool = round_solid(SB_SHAPE_CYLINDER, 4, 0, 0.3, 0.3, 0.3, one);
    stool.type = SB_BODY_STATIC;
    rigid_add(w, &stool);
    sb_body_id cap_id = rigid_add(w, &cap);
    sb_body_def cone = round_solid(SB_SHAPE_CONE, 0, 3, 0.3, 0.2, 0.3, one);
    sb_body_id cone_id = rigid_add(w, &cone);
    cr_assert_eq(sb_world_step_to(w, 1.5), SB_OK, "%s", sb_last_error());
    struct { sb_body_id id; double z; const char *what; } expect[] = {
        {ball_id, 0.7, "sphere on a cylinder's cap"}, {box_id, 0.45, "box across a lying cylinder"},
        {upper_id, 0.5, "cylinder across a cylinder"}, {cap_id, 0.7, "capsule lying on a cylinder's cap"},
        {cone_id, 0.6 / 4, "cone on its base (centre of mass a quarter of its height up)"}};
    for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++) {
        sb_body_state s = rigid_state(w, expect[i].id);
        printf("%s: centre of mass at %.5f m, expected %.5f m\n", expect[i].what, s.position[2], expect[i].z);
        /* the cylinder across a cylinder rests on their proxies' flats: 0.48% of the radius */
        cr_assert(fabs(s.position[2] - expect[i].z) < 2e-3, "%s: at %.5f m, expected %.5f m", expect[i].what,
                  s.position[2], expect[i].z);
    }
    sb_world_destroy(w);
}

/* A cylinder rolling down a slope into a cone, a cone on its side and a sphere on a cylinder's
 * cap: the world saved at 0.5 s and loaded into a world built again from the same definitions
 * goes on to 1 s bit for bit as the one that was never stopped; a world whose cone is a cylinder
 * refuses the state (the shape is in the body's fingerprint). */
static sb_world *round_scene(sb_body_id ids[4], bool cone_as_cylinder)
{
    const double one[4] = {1, 0, 0, 0}, along_y[4] = {cos(PI / 4), sin(PI / 4), 0, 0};
    sb_world *w = rigid_world();
    sb_body_def slope = sb_default_body_def();
    slope.type = SB_BODY_STATIC, slope.shape = SB_SHAPE_BOX, slope.friction = 1.0;
    slope.half_extents[0] = slope.half_extents[1] = 4, slope.half_extents[2] = 0.5;
    slope.rotation[0] = cos(0.1), slope.rotation[2] = sin(0.1), slope.center[2] = -0.5;
    rigid_add(w, &slope);
    sb_body_def defs[4] = {round_solid(SB_SHAPE_CYLINDER, -1, 0, 0.5, 0.2, 0.3, along_y),
                           round_solid(cone_as_cylinder ? SB_SHAPE_CYLINDER : SB_SHAPE_CONE, 0.2, 0, 0.4, 0.2, 0.3, one),
                           round_solid(SB_SHAPE_CYLINDER, 1, 1, 0.5, 0.3, 0.2, one), sb_default_body_def()};
    defs[3].shape = SB_SHAPE_SPHERE, defs[3].radius = 0.1;
    defs[3].center[0] = 1, defs[3].center[1] = 1, defs[3].center[2] = 1.0;
    for (int i = 0; i < 4; i++) ids[i] = rigid_add(w, &defs[i]);
    return w;
}

Test(cylinder_cone, a_resumed_world_goes_on_bit_for_bit)
{
    sb_body_id ids[4];
    sb_world *straight = round_scene(ids, false);
    cr_assert_eq(sb_world_step_to(straight, 0.5), SB_OK, "%s", sb_last_error());
    uint64_t size = 0;
    cr_assert_eq(sb_world_get_state_size(straight, &size), SB_OK, "%s", sb_last_error());
    void *saved = malloc(size);
    cr_assert_eq(sb_world_save_state(straight, saved, size), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_world_step_to(straight, 1.0), SB_OK, "%s", sb_last_error());
    sb_world *resumed = round_scene(ids, false);
    cr_assert_eq(sb_world_load_state(resumed, saved, size), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_world_step_to(resumed, 1.0), SB_OK, "%s", sb_last_error());
    for (int i = 0; i < 4; i++) {
        sb_body_state a = rigid_state(straight, ids[i]), b = rigid_state(resumed, ids[i]);
        cr_assert(memcmp(a.position, b.position, sizeof a.position) == 0 &&
                      memcmp(a.orientation, b.orientation, sizeof a.orientation) == 0 &&
                      memcmp(a.angular_momentum, b.angular_momentum, sizeof a.angular_momentum) == 0,
                  "body %d differs after resuming: z %.17g against %.17g", i, a.position[2], b.position[2]);
    }
    sb_body_state rolled = rigid_state(straight, ids[0]);
    cr_assert(fabs(rolled.position[0] + 1) > 0.05, "the cylinder did not roll (x %.4f)", rolled.position[0]);
    sb_world *other = round_scene(ids, true);
    cr_assert_eq(sb_world_load_state(other, saved, size), SB_ERROR_INVALID_ARGUMENT);
    free(saved);
    sb_world_destroy(straight), sb_world_destroy(resumed), sb_world_destroy(other);
}

/* Parts of a compound: a lone cylinder part has the cylinder body's mass properties; a stool of
 * a cylinder seat on three cone legs (apex down) lands and stands on its three apexes. */
Test(cylinder_cone, parts_of_compounds)
{
    const double one[4] = {1, 0, 0, 0}, down[4] = {0, 1, 0, 0}; /* turned half round about x: apex down */
    sb_world *w = rigid_world();
    sb_body_part lone = sb_default_body_part();
    lone.shape = SB_SHAPE_CYLINDER, lone.radius = 0.3, lone.half_extents[2] = 0.5;
    lone.center[0] = -3, lone.center[2] = 2;
    sb_body_def d = sb_default_body_def();
    d.shape = SB_SHAPE_COMPOUND, d.part_count = 1, d.parts = &lone, d.mass = 2.0;
    d.angular_velocity[0] = 1, d.angular_velocity[1] = 2, d.angular_velocity[2] = 3;
    sb_body_def alone = round_solid(SB_SHAPE_CYLINDER, -3, 0, 2, 0.3, 0.5, one);
    alone.mass = 2.0;
    for (int k = 0; k < 3; k++) alone.angular_velocity[k] = d.angular_velocity[k];
    sb_body_state a = rigid_state(w, rigid_add(w, &d)), b = rigid_state(w, rigid_add(w, &alone));
    for (int k = 0; k < 3; k++)
        cr_assert(fabs(a.angular_momentum[k] - b.angular_momentum[k]) < 1e-12 * fabs(b.angular_momentum[k]) &&
                      fabs(a.position[k] - b.position[k]) < 1e-12,
                  "the lone part's L %d = %.15g, the body's %.15g", k, a.angular_momentum[k], b.angular_momentum[k]);
    sb_world_destroy(w);

    w = rigid_world();
    add_ground(w);
    sb_body_part parts[4];
    parts[0] = sb_default_body_part();
    parts[0].shape = SB_SHAPE_CYLINDER, parts[0].radius = 0.4, parts[0].half_extents[2] = 0.05;
    parts[0].center[2] = 0.65;
    for (int i = 1; i < 4; i++) {
        double angle = 2 * PI * i / 3;
        parts[i] = sb_default_body_part();
        parts[i].shape = SB_SHAPE_CONE, parts[i].radius = 0.05, parts[i].half_extents[2] = 0.3;
        parts[i].center[0] = 0.3 * cos(angle), parts[i].center[1] = 0.3 * sin(angle), parts[i].center[2] = 0.3 + 0.05;
        for (int k = 0; k < 4; k++) parts[i].rotation[k] = down[k];
    }
    sb_body_def stool = sb_default_body_def();
    stool.shape = SB_SHAPE_COMPOUND, stool.part_count = 4, stool.parts = parts, stool.mass = 3.0, stool.friction = 1.0;
    sb_body_id id = rigid_add(w, &stool);
    double start = rigid_state(w, id).position[2];
    cr_assert_eq(sb_world_step_to(w, 2.0), SB_OK, "%s", sb_last_error());
    sb_body_state s = rigid_state(w, id);
    double m[16];
    sb_body_get_transform(w, id, m);
    printf("stool on three cone legs: its centre of mass fell %.5f m (0.05 m to the ground), %d contacts, "
           "tilted %.2e\n", start - s.position[2], (int)s.contacts, fabs(m[10] - 1));
    cr_assert(fabs(start - s.position[2] - 0.05) < 1e-3, "fell %.5f m, not 0.05 m onto its apexes", start - s.position[2]);
    cr_assert(fabs(m[10] - 1) < 1e-4, "it tipped: its z axis at %.6f", m[10]);
    cr_assert(s.contacts >= 3, "it stands on %d point(s)", (int)s.contacts);
    sb_world_destroy(w);
}

Test(cylinder_cone, bad_cylinders_and_cones_are_refused)
{
    const double one[4] = {1, 0, 0, 0};
    sb_world *w = rigid_world();
    sb_body_id id = {77};
    for (int cone = 0; cone < 2; cone++) {
        sb_shape shape = cone ? SB_SHAPE_CONE : SB_SHAPE_CYLINDER;
        sb_body_def d = round_solid(shape, 0, 0, 0, 0.0, 0.5, one);
        cr_assert_eq(sb_world_add_body(w, &d, &id), SB_ERROR_INVALID_ARGUMENT);
        cr_assert(strstr(sb_last_error(), cone ? "cone's radius" : "cylinder's radius"), "%s", sb_last_error());
        d = round_solid(shape, 0, 0, 0, 0.2, 0.0, one);
        cr_assert_eq(sb_world_add_body(w, &d, &id), SB_ERROR_INVALID_ARGUMENT);
        d = round_solid(shape, 0, 0, 0, 0.2, NAN, one);
        cr_assert_eq(sb_world_add_body(w, &d, &id), SB_ERROR_INVALID_ARGUMENT);
        d = round_solid(shape, 0, 0, 0, INFINITY, 0.5, one);
        cr_assert_eq(sb_world_add_body(w, &d, &id), SB_ERROR_INVALID_ARGUMENT);
    }
    sb_body_def bad = round_solid((sb_shape)8, 0, 0, 0, 0.2, 0.5, one);
    cr_assert_eq(sb_world_add_body(w, &bad, &id), SB_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(id.index, 77);
    sb_world_destroy(w);
}
