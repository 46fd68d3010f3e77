/* Pins carried by a body that feels the cloth (sb_cloth_attach_pins_to_body with
 * sb_body_def.feels_cloth 1, issue 32): the pins' pull reaches the body in the cloth's implicit
 * solve (coupled_solve.h), so body and cloth together keep their momentum, a falling pair's centre
 * of mass falls at g, and the flag slows the pole it hangs from; a rope (strands) on a thrown body
 * keeps the pair's momentum too. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "simbake.h"
#include "testutil.h"

enum { N = 7 };
static const double G = 9.81, SIZE = 0.4;

/* The grid as cloth of `density` kg/m² (no air drag), its first column (vertices k N) pinned to
 * `body`; `pins` holds the N pinned vertices. */
static sb_cloth_id add_cloth_pinned_to_body(sb_world *world, grid_mesh *grid, double density, int32_t *pins,
                                            sb_body_id body)
{
    for (int k = 0; k < N; k++) pins[k] = k * N;
    sb_cloth_def c = grid_cloth_def(grid);
    c.density = density, c.air_drag = 0.0, c.pin_count = N, c.pins = pins;
    sb_cloth_id cloth;
    cr_assert_eq(sb_world_add_cloth(world, &c, &cloth), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_cloth_attach_pins_to_body(world, cloth, body), SB_OK, "%s", sb_last_error());
    return cloth;
}

typedef struct pair {
    sb_world *world;
    grid_mesh grid;
    double mass[N * N]; /* lumped: a third of each triangle's */
    int32_t pins[N];
    sb_cloth_id cloth;
    sb_body_id body;
    double body_mass;
} pair;

/* A box of body_mass kg at the origin, free (no joint), feeling the cloth; a horizontal SIZE
 * square cloth of `density` kg/m² beside it, its edge x = 0.1 pinned to the box. */
static pair pair_make(double gravity, double max_step, double body_mass, double density, const double v[3], const double w[3])
{
    pair s = {.grid = grid_mesh_make(N, SIZE, 0.0), .body_mass = body_mass};
    for (int32_t i = 0; i < N * N; i++) s.grid.positions[3 * i] += 0.1 + 0.5 * SIZE;
    for (int32_t t = 0; t < s.grid.triangle_count; t++) {
        const int32_t *tri = &s.grid.triangles[3 * t];
        const double *a = &s.grid.positions[3 * tri[0]], *b = &s.grid.positions[3 * tri[1]],
                     *c = &s.grid.positions[3 * tri[2]];
        double area = 0.5 * fabs((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]));
        for (int k = 0; k < 3; k++) s.mass[tri[k]] += density * area / 3.0;
    }
    sb_world_def wd = sb_default_world_def();
    wd.gravity[2] = -gravity;
    wd.max_step = max_step;
    cr_assert_eq(sb_world_create(&wd, &s.world), SB_OK, "%s", sb_last_error());
    sb_body_def d = sb_default_body_def();
    d.shape = SB_SHAPE_BOX, d.mass = body_mass, d.feels_cloth = 1;
    d.half_extents[0] = d.half_extents[1] = d.half_extents[2] = 0.05;
    memcpy(d.linear_velocity, v, sizeof d.linear_velocity), memcpy(d.angular_velocity, w, sizeof d.angular_velocity);
    cr_assert_eq(sb_world_add_body(s.world, &d, &s.body), SB_OK, "%s", sb_last_error());
    s.cloth = add_cloth_pinned_to_body(s.world, &s.grid, density, s.pins, s.body);
    return s;
}

static void pair_free(pair *s)
{
    sb_world_destroy(s->world);
    grid_mesh_free(&s->grid);
}

static void cross_add(const double r[3], const double p[3], double scale, double out[3])
{
    out[0] += scale * (r[1] * p[2] - r[2] * p[1]);
    out[1] += scale * (r[2] * p[0] - r[0] * p[2]);
    out[2] += scale * (r[0] * p[1] - r[1] * p[0]);
}

/* The linear momentum of a body of body_mass kg and a cloth (or strands) of `count` vertices of
 * masses `mass`, and their angular momentum about their centre of mass. */
static void momenta_of(sb_world *world, sb_body_id body, double body_mass, sb_cloth_id cloth, const double *mass,
                       int32_t count, double p[3], double l[3])
{
    double x[3 * N * N], v[3 * N * N], centre[3] = {0}, total = body_mass;
    cr_assert(count <= N * N);
    cr_assert_eq(sb_cloth_get_positions(world, cloth, x, count), SB_OK);
    cr_assert_eq(sb_cloth_get_velocities(world, cloth, v, count), SB_OK);
    sb_body_state b;
    cr_assert_eq(sb_body_get_state(world, body, &b), SB_OK, "%s", sb_last_error());
    for (int a = 0; a < 3; a++) p[a] = b.linear_momentum[a], l[a] = b.angular_momentum[a];
    for (int a = 0; a < 3; a++) centre[a] = body_mass * b.position[a];
    for (int32_t i = 0; i < count; i++) {
        total += mass[i];
        for (int a = 0; a < 3; a++) p[a] += mass[i] * v[3 * i + a], centre[a] += mass[i] * x[3 * i + a];
    }
    for (int a = 0; a < 3; a++) centre[a] /= total;
    double r[3];
    for (int a = 0; a < 3; a++) r[a] = b.position[a] - centre[a];
    cross_add(r, b.linear_momentum, 1.0, l);
    for (int32_t i = 0; i < count; i++) {
        for (int a = 0; a < 3; a++) r[a] = x[3 * i + a] - centre[a];
        cross_add(r, &v[3 * i], mass[i], l);
    }
}

static void momenta(const pair *s, double p[3], double l[3])
{
    momenta_of(s->world, s->body, s->body_mass, s->cloth, s->mass, N * N, p, l);
}

static double norm(const double a[3]) { return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); }

static double cloth_mass(const pair *s)
{
    double m = 0.0;
    for (int32_t i = 0; i < N * N; i++) m += s->mass[i];
    return m;
}

/* Zero gravity: the box thrown and spinning drags the resting cloth; nothing outside acts. The
 * most the pair's momentum and angular momentum (about its centre) move off their start over 1 s,
 * with steps of at most max_step, relative to them; the body's momentum at the end. */
static void thrown(double max_step, double *worst_p, double *worst_l, double *body_p)
{
    pair s = pair_make(0.0, max_step, 0.5, 2.0, (double[3]){0.5, 0.2, 0.3}, (double[3]){0.0, 1.0, 2.0});
    double p0[3], l0[3], p[3], l[3];
    momenta(&s, p0, l0);
    *worst_p = *worst_l = 0.0;
    for (int f = 1; f <= 24; f++) {
        cr_assert_eq(sb_world_step_to(s.world, f / 24.0), SB_OK, "%s", sb_last_error());
        momenta(&s, p, l);
        double dp[3], dl[3];
        for (int a = 0; a < 3; a++) dp[a] = p[a] - p0[a], dl[a] = l[a] - l0[a];
        *worst_p = fmax(*worst_p, norm(dp) / norm(p0)), *worst_l = fmax(*worst_l, norm(dl) / norm(l0));
    }
    sb_body_state b;
    cr_assert_eq(sb_body_get_state(s.world, s.body, &b), SB_OK);
    *body_p = norm(b.linear_momentum) / norm(p0);
    pair_free(&s);
}

Test(body_pins_two_way, a_thrown_body_and_its_cloth_keep_their_momentum)
{
    double worst_p, worst_l, body_p, fine_p, fine_l, fine_body;
    thrown(1.0 / 24.0, &worst_p, &worst_l, &body_p);
    thrown(1.0 / 240.0, &fine_p, &fine_l, &fine_body);
    cr_log_info("thrown pair over 1 s, steps up to 1/24 s: momentum off by %.3g of it, angular momentum by %.3g; "
                "up to 1/240 s: %.3g, %.3g; the body keeps %.3f of the pair's momentum\n",
                worst_p, worst_l, fine_p, fine_l, body_p);
    /* the cloth took a good part of it: the body felt the pins (one way it kept it all) */
    cr_assert(body_p < 0.9, "the body kept %.3f of the momentum", body_p);
    cr_assert(worst_p < 0.01 && fine_p < 0.01, "momentum changed by %.3g, %.3g of it", worst_p, fine_p);
    /* backward Euler keeps angular momentum to first order in h only (the cloth's forces are
     * taken at the step's end): at 1/24 s it drifts by a fifth */
    cr_assert(fine_l < 0.01, "angular momentum changed by %.3g of it at steps of 1/240 s", fine_l);
}

/* Strands go through the same code: a ROPE-vertex rope of 0.5 kg/m along x, its root pinned 5 cm
 * off the side of a free 0.5 kg box (feeling the cloth or not) that is thrown and spinning in zero
 * gravity. The most the pair's momentum and angular momentum move off their start over 1 s at
 * steps of at most max_step, relative to them; the body's momentum at the end, relative. */
enum { ROPE = 9 };

static void thrown_rope(bool feels, double max_step, double *worst_p, double *worst_l, double *body_p)
{
    const double body_mass = 0.5, per_length = 0.5, spacing = 0.05;
    sb_world_def wd = sb_default_world_def();
    wd.gravity[2] = 0.0, wd.max_step = max_step;
    sb_world *world = NULL;
    cr_assert_eq(sb_world_create(&wd, &world), SB_OK, "%s", sb_last_error());
    sb_body_def d = sb_default_body_def();
    d.shape = SB_SHAPE_BOX, d.mass = body_mass, d.feels_cloth = feels;
    d.half_extents[0] = d.half_extents[1] = d.half_extents[2] = 0.05;
    d.linear_velocity[0] = 0.5, d.linear_velocity[1] = 0.2, d.linear_velocity[2] = 0.3;
    d.angular_velocity[1] = 1.0, d.angular_velocity[2] = 2.0;
    sb_body_id body;
    cr_assert_eq(sb_world_add_body(world, &d, &body), SB_OK, "%s", sb_last_error());
    double positions[3 * ROPE] = {0}, mass[ROPE];
    for (int i = 0; i < ROPE; i++) /* lumped: half of each of its segments */
        positions[3 * i] = 0.1 + spacing * i, mass[i] = per_length * spacing * (i == 0 || i == ROPE - 1 ? 0.5 : 1.0);
    const int32_t counts[1] = {ROPE}, root[1] = {0};
    sb_strand_def def = sb_default_strand_def();
    def.positions = positions, def.strand_vertex_counts = counts, def.vertex_count = ROPE, def.strand_count = 1;
    def.pins = root, def.pin_count = 1, def.mass_per_length = per_length, def.air_drag = 0.0;
    sb_cloth_id strands;
    cr_assert_eq(sb_world_add_strands(world, &def, &strands), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_cloth_attach_pins_to_body(world, strands, body), SB_OK, "%s", sb_last_error());
    double p0[3], l0[3], p[3], l[3];
    momenta_of(world, body, body_mass, strands, mass, ROPE, p0, l0);
    *worst_p = *worst_l = 0.0;
    for (int f = 1; f <= 24; f++) {
        cr_assert_eq(sb_world_step_to(world, f / 24.0), SB_OK, "%s", sb_last_error());
        momenta_of(world, body, body_mass, strands, mass, ROPE, p, l);
        double dp[3], dl[3];
        for (int a = 0; a < 3; a++) dp[a] = p[a] - p0[a], dl[a] = l[a] - l0[a];
        *worst_p = fmax(*worst_p, norm(dp) / norm(p0)), *worst_l = fmax(*worst_l, norm(dl) / norm(l0));
    }
    sb_body_state b;
    cr_assert_eq(sb_body_get_state(world, body, &b), SB_OK);
    *body_p = norm(b.linear_momentum) / norm(p0);
    sb_world_destroy(world);
}

Test(body_pins_two_way, a_thrown_body_and_its_rope_keep_their_momentum)
{
    double worst_p, worst_l, body_p, fine_p, fine_l, fine_body, one_p, one_l, one_body;
    thrown_rope(true, 1.0 / 240.0, &worst_p, &worst_l, &body_p);
    thrown_rope(true, 1.0 / 960.0, &fine_p, &fine_l, &fine_body);
    thrown_rope(false, 1.0 / 240.0, &one_p, &one_l, &one_body);
    cr_log_info("thrown body and rope over 1 s, steps up to 1/240 s: momentum off by %.3g of it, angular momentum "
                "by %.3g, the body keeping %.3f of the momentum; up to 1/960 s: %.3g, %.3g; one way at 1/240 s: "
                "%.3g, %.3g\n",
                worst_p, worst_l, body_p, fine_p, fine_l, one_p, one_l);
    cr_assert(body_p < 0.9, "the body kept %.3f of the momentum", body_p);
    cr_assert(worst_p < 0.01 && fine_p < 0.01, "momentum changed by %.3g, %.3g of it", worst_p, fine_p);
    /* backward Euler's drift in angular momentum, first order in h, is larger for the whipping
     * rope than for the cloth (8% at 1/240 s, half of it from the springs' damping): it has to
     * shrink with the step (a torque lost in the coupling would not) */
    cr_assert(fine_l < 0.02 && fine_l < 0.35 * worst_l, "angular momentum changed by %.3g of it at steps of "
              "1/960 s, %.3g at 1/240 s", fine_l, worst_l);
    /* one way the body ignores the rope's pull, and the pair's momentum is not kept */
    cr_assert(one_p > 0.05, "one way, the momentum changed by %.3g of it only", one_p);
}

/* A free-falling box drops with a cloth pinned to it swinging down: gravity is the only outside
 * force, so the pair's momentum grows by its mass times g t, its centre falling at g. */
Test(body_pins_two_way, a_falling_pairs_centre_of_mass_falls_at_g)
{
    pair s = pair_make(G, 1.0 / 24.0, 1.0, 2.0, (double[3]){0.5, 0.2, 1.0}, (double[3]){0.0, 1.0, 2.0});
    double p0[3], p[3], l[3], worst = 0.0, total = s.body_mass + cloth_mass(&s);
    momenta(&s, p0, l);
    for (int f = 1; f <= 24; f++) {
        double t = f / 24.0;
        cr_assert_eq(sb_world_step_to(s.world, t), SB_OK, "%s", sb_last_error());
        momenta(&s, p, l);
        double off[3] = {p[0] - p0[0], p[1] - p0[1], p[2] - p0[2] + total * G * t};
        worst = fmax(worst, norm(off) / (total * G * t));
    }
    sb_body_state b;
    cr_assert_eq(sb_body_get_state(s.world, s.body, &b), SB_OK);
    double alone = s.body_mass * (1.0 - G); /* its vertical momentum after 1 s, falling alone */
    cr_log_info("falling pair (%.3f kg): momentum off M g t by %.3g of it at most; the box's own vertical "
                "momentum %.4f, alone %.4f N·s\n",
                total, worst, b.linear_momentum[2], alone);
    cr_assert(worst < 0.01, "the pair's momentum is off M g t by %.3g of it", worst);
    /* and the cloth it drags pulled on the box: not plain free fall */
    cr_assert(fabs(b.linear_momentum[2] - alone) > 0.05, "the box fell as if alone");
    pair_free(&s);
}

/* A 2 kg pole 1 m long on a hinge about y at its top end (the origin), let go at ANGLE from the
 * vertical, feeling the cloth or not; with a flag, a SIZE square of `density` kg/m² in the pole's
 * plane, its column nearest the pole pinned to it 2 cm off its side. */
typedef struct pole {
    sb_world *world;
    grid_mesh grid;
    double mass[N * N];
    int32_t pins[N];
    sb_cloth_id cloth;
    sb_body_id body;
    bool flag;
} pole;

static const double ANGLE = 0.6, HALF = 0.5;

static pole pole_make(bool flag, bool feels, double pole_mass, double density)
{
    pole s = {.grid = grid_mesh_make(N, SIZE, 0.0), .flag = flag};
    double c_a = cos(ANGLE), s_a = sin(ANGLE);
    sb_world_def wd = sb_default_world_def();
    wd.gravity[2] = -G;
    cr_assert_eq(sb_world_create(&wd, &s.world), SB_OK, "%s", sb_last_error());
    sb_body_def d = sb_default_body_def();
    d.shape = SB_SHAPE_BOX, d.mass = pole_mass, d.feels_cloth = feels;
    d.half_extents[0] = d.half_extents[1] = 0.02, d.half_extents[2] = HALF;
    d.center[0] = HALF * s_a, d.center[2] = -HALF * c_a;
    d.rotation[0] = cos(ANGLE / 2), d.rotation[2] = -sin(ANGLE / 2); /* its top end at the origin */
    cr_assert_eq(sb_world_add_body(s.world, &d, &s.body), SB_OK, "%s", sb_last_error());
    sb_joint_def j = sb_default_joint_def();
    j.type = SB_JOINT_HINGE, j.body_a = s.body;
    j.rotation[0] = sqrt(0.5), j.rotation[1] = sqrt(0.5); /* frame z = world -y: the hinge turns about y */
    sb_joint_id joint;
    cr_assert_eq(sb_world_add_joint(s.world, &j, &joint), SB_OK, "%s", sb_last_error());
    if (!flag) return s;
    for (int32_t v = 0; v < s.grid.vertex_count; v++) { /* the grid's (x, y) to (x + 0.24, 0, y - 0.5), turned */
        double *p = &s.grid.positions[3 * v];
        double x = p[0] + 0.24, z = p[1] - 0.5;
        p[0] = x * c_a - z * s_a, p[1] = 0.0, p[2] = x * s_a + z * c_a;
    }
    for (int32_t t = 0; t < s.grid.triangle_count; t++)
        for (int k = 0; k < 3; k++) s.mass[s.grid.triangles[3 * t + k]] += density * SIZE * SIZE / s.grid.triangle_count / 3.0;
    s.cloth = add_cloth_pinned_to_body(s.world, &s.grid, density, s.pins, s.body);
    return s;
}

static void pole_free(pole *s)
{
    sb_world_destroy(s->world);
    grid_mesh_free(&s->grid);
}

/* The pole's angle from the vertical; the energy of pole and flag, kinetic and gravity's. */
static double pole_angle(const pole *s, double *energy)
{
    sb_body_state b;
    cr_assert_eq(sb_body_get_state(s->world, s->body, &b), SB_OK, "%s", sb_last_error());
    *energy = b.kinetic_energy + b.mass * G * b.position[2];
    if (s->flag) {
        double x[3 * N * N], v[3 * N * N];
        cr_assert_eq(sb_cloth_get_positions(s->world, s->cloth, x, N * N), SB_OK);
        cr_assert_eq(sb_cloth_get_velocities(s->world, s->cloth, v, N * N), SB_OK);
        for (int32_t i = 0; i < N * N; i++)
            *energy += s->mass[i] * (0.5 * (v[3 * i] * v[3 * i] + v[3 * i + 1] * v[3 * i + 1] + v[3 * i + 2] * v[3 * i + 2]) +
                                     G * x[3 * i + 2]);
    }
    return atan2(b.position[0], -b.position[2]);
}

/* Steps 3 s: the largest angle on the far side (negative), the most the energy rose over any
 * frame, and above its start, the largest speed of the pole's centre. */
static void swing(bool flag, bool feels, double pole_mass, double density, double *far, double *rise, double *speed)
{
    pole s = pole_make(flag, feels, pole_mass, density);
    double e0, e, last;
    pole_angle(&s, &e0);
    last = e0, *far = 0.0, *rise = 0.0, *speed = 0.0;
    for (int f = 1; f <= 72; f++) {
        cr_assert_eq(sb_world_step_to(s.world, f / 24.0), SB_OK, "frame %d: %s", f, sb_last_error());
        double angle = pole_angle(&s, &e);
        sb_body_state b;
        cr_assert_eq(sb_body_get_state(s.world, s.body, &b), SB_OK);
        *far = fmin(*far, angle), *rise = fmax(*rise, fmax(e - last, e - e0)), last = e;
        *speed = fmax(*speed, norm(b.linear_velocity));
    }
    pole_free(&s);
}

Test(body_pins_two_way, the_flag_slows_the_pole_on_its_hinge)
{
    double bare_far, bare_rise, bare_speed, far, rise, speed, one_far, one_rise, one_speed;
    swing(false, true, 2.0, 0.15, &bare_far, &bare_rise, &bare_speed);
    swing(true, true, 2.0, 0.15, &far, &rise, &speed);
    swing(true, false, 2.0, 0.15, &one_far, &one_rise, &one_speed);
    cr_log_info("pole on a hinge over 3 s: farthest swing %.4f rad bare, %.4f with the flag felt, %.4f one way; "
                "energy rose by %.3g, %.3g, %.3g J at most\n",
                bare_far, far, one_far, bare_rise, rise, one_rise);
    /* one way the pole swings as bare (test_body_pins.c); felt, the flag's drag and weight slow it */
    cr_assert(far - bare_far > 0.02, "the flag changed the pole's far swing by %.4f rad only", far - bare_far);
    /* the coupled solve takes energy, never gives it (the bare pole's own hinge wobbles by 5 mJ) */
    cr_assert(rise < 1e-3, "pole and flag gained %.3g J", rise);
}

/* A heavy flag on a light pole and a light flag on a heavy pole step without blowing up: the
 * pole's centre never faster than a fall of 2 m would make it, the energy never more than 1% of
 * (pole + flag) g (half the pole) above where it was; the heavy flag swings its light pole. */
Test(body_pins_two_way, heavy_on_light_and_light_on_heavy_stay_bounded)
{
    const double cases[2][2] = {{0.05, 5.0}, {20.0, 0.01}}; /* pole kg, flag kg/m² */
    double bare_far, bare_rise, bare_speed;
    swing(false, true, 1.0, 0.0, &bare_far, &bare_rise, &bare_speed);
    for (int k = 0; k < 2; k++) {
        double far, rise, speed, total = cases[k][0] + cases[k][1] * SIZE * SIZE;
        swing(true, true, cases[k][0], cases[k][1], &far, &rise, &speed);
        cr_log_info("pole %.2f kg, flag %.3f kg: farthest swing %.4f rad (bare %.4f), energy rose by %.3g J, fastest "
                    "%.3f m/s\n",
                    cases[k][0], cases[k][1] * SIZE * SIZE, far, bare_far, rise, speed);
        cr_assert(speed < sqrt(2.0 * G * 2.0), "the pole reached %.3g m/s", speed);
        cr_assert(rise < 0.01 * total * G * HALF, "pole and flag gained %.3g J", rise);
        if (k == 0) cr_assert(fabs(far - bare_far) > 0.1, "the heavy flag left the light pole's swing as it was");
    }
}
