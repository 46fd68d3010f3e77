/* Cloth against colliders and itself: never inside, never through, friction as Coulomb. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "collision_response.h"
#include "intersections.h"
#include "simbake.h"
#include "testutil.h"
#include "world.h"

#define PI 3.14159265358979323846

static sb_world *implicit_world(double max_step)
{
    sb_world_def wdef = sb_default_world_def();
    wdef.max_step = max_step;
    sb_world *w;
    cr_assert_eq(sb_world_create(&wdef, &w), SB_OK);
    return w;
}

static sb_cloth_id add_cloth(sb_world *w, const grid_mesh *g, sb_cloth_def def)
{
    def.vertex_count = g->vertex_count;
    def.positions = g->positions;
    def.triangle_count = g->triangle_count;
    def.triangles = g->triangles;
    sb_cloth_id id;
    cr_assert_eq(sb_world_add_cloth(w, &def, &id), SB_OK, "%s", sb_last_error());
    return id;
}

static sb_collider_id add_collider(sb_world *w, const solid_mesh *m)
{
    sb_collider_def def = solid_collider_def(m);
    sb_collider_id id;
    cr_assert_eq(sb_world_add_collider(w, &def, &id), SB_OK, "%s", sb_last_error());
    return id;
}

/* Drops a 20x20 cloth (14x14 quick: test_quick) onto a convex collider; at every step (one
 * per 1/48 s sample) no vertex may be inside it deeper than a tenth of the cloth's thickness,
 * no cloth triangle may cut a collider triangle, and the cloth must come to rest. */
static void drop_onto(const solid_mesh *shape, double height)
{
    grid_mesh g = grid_mesh_make(test_quick() ? 14 : 20, 1.2, height);
    sb_world *w = implicit_world(1.0 / 48.0);
    sb_cloth_def def = sb_default_cloth_def();
    sb_cloth_id cloth_id = add_cloth(w, &g, def);
    add_collider(w, shape);
    double *x = malloc(sizeof(double) * 3 * (size_t)g.vertex_count);
    double peak = 0.0, energy = 0.0, deepest = INFINITY;
    for (int f = 1; f <= 48 * 4; f++) {
        cr_assert_eq(sb_world_step_to(w, f / 48.0), SB_OK, "%s", sb_last_error());
        sb_cloth_get_positions(w, cloth_id, x, g.vertex_count);
        for (int32_t i = 0; i < g.vertex_count; i++) deepest = fmin(deepest, convex_signed_distance(shape, &x[3 * i]));
        cr_assert_geq(deepest, -0.1 * def.thickness, "sample %d: a vertex is %.2g m inside", f, -deepest);
        cr_assert_eq(count_intersections(w->cloths, 1, w->colliders, 1, false), 0, "sample %d", f);
        sb_cloth_get_kinetic_energy(w, cloth_id, &energy);
        peak = fmax(peak, energy);
    }
    sb_world_stats stats;
    sb_world_get_stats(w, &stats);
    cr_assert_gt(stats.last_contacts, 10, "the cloth is not lying on the collider");
    /* Known regression (issue 6, since d811daf): the coarse 14x14 cloth on the sharp box keeps
     * a small tent over the box's top edge in a limit cycle (about 0.3 m/s, 0.2-1 mJ, while its
     * positions stand still): the solve pulls it into the edge every step and the response's
     * edge-edge impulse lifts it back, since edge contacts are no constraints of the solve.
     * The 20x20 one comes to rest. Under Valgrind only the coarse one runs, held to 1e-2. */
    double at_rest = test_quick() ? 1e-2 : 1e-3;
    cr_assert_lt(energy, at_rest * peak, "not at rest: kinetic energy %g J of a peak %g J", energy, peak);
    free(x);
    sb_world_destroy(w);
    grid_mesh_free(&g);
}

Test(collision, cloth_settles_on_a_sphere_without_entering_it, .timeout = 300)
{
    double center[3] = {0, 0, 0};
    solid_mesh sphere = test_quick() ? sphere_mesh(0.5, 8, 16, center) : sphere_mesh(0.5, 16, 32, center);
    drop_onto(&sphere, 0.6);
    solid_mesh_free(&sphere);
}

Test(collision, cloth_settles_on_a_sharp_box_without_entering_it, .timeout = 300)
{
    double half[3] = {0.3, 0.3, 0.3}, center[3] = {0, 0, 0};
    solid_mesh box = box_mesh(half, center);
    drop_onto(&box, 0.45);
    solid_mesh_free(&box);
}

/* The cloth scaling benchmark's landing (bench/cloth_scaling.c): a 2 m cloth of 128² vertices
 * (64² quick) with self collision, dropped from 0.3 m onto a sphere of 0.5 m, meets it within
 * one 1/24 s step. The contacts packed in the crease over the rim undo one another's
 * impulses; the rigid impact zones that would end them there hold patches of the cloth
 * where the step began, stretched 4x against their neighbours that fell on. Instead the
 * landing is taken again in shorter steps, whose impulses suffice. */
static sb_world *fine_landing(const grid_mesh *g, const solid_mesh *sphere, double min_step)
{
    sb_world_def wdef = sb_default_world_def();
    wdef.max_step = 1.0 / 24.0;
    wdef.min_step = min_step;
    sb_world *w;
    cr_assert_eq(sb_world_create(&wdef, &w), SB_OK);
    sb_cloth_def def = sb_default_cloth_def();
    def.self_collision = 1;
    add_cloth(w, g, def);
    add_collider(w, sphere);
    return w;
}

Test(collision, a_fine_landing_that_needs_impact_zones_is_taken_in_shorter_steps, .timeout = 600)
{
    double center[3] = {0, 0, 0};
    solid_mesh sphere = sphere_mesh(0.5, 32, 64, center);
    grid_mesh g = grid_mesh_make(test_quick() ? 64 : 128, 2.0, 0.8);
    sb_world *w = fine_landing(&g, &sphere, sb_default_world_def().min_step);
    sb_world_stats stats = {0};
    for (int f = 1; f <= 9; f++) {
        cr_assert_eq(sb_world_step_to(w, f / 24.0), SB_OK, "%s", sb_last_error());
        cr_assert_eq(count_intersections(w->cloths, 1, w->colliders, 1, true), 0, "frame %d", f);
        sb_world_get_stats(w, &stats);
        cr_assert_lt(grid_max_edge_strain(&g, w->cloths[0]->state.x), 0.5, "frame %d", f);
    }
    cr_assert_gt(stats.last_contacts, 100, "the cloth has not landed");
    cr_assert_eq(stats.impact_zones, 0, "the landing still needed impact zones");
    sb_world_destroy(w);
    grid_mesh_free(&g);
    solid_mesh_free(&sphere);
}

/* With zones refused, impulse rounds stop once they shrink too slowly to end in 8 rounds. */
Test(collision, impulse_rounds_give_up_only_when_they_shrink_too_slowly_to_end)
{
    cr_assert_not(impulses_can_finish(9269, 3239, 2), "7.7 more rounds after 2");
    cr_assert(impulses_can_finish(9269, 1000, 2), "3.1 more rounds after 2");
    cr_assert(impulses_can_finish(1127, 5, 2));
    cr_assert(impulses_can_finish(3, 2, 2), "1.7 more rounds after 2");
    cr_assert_not(impulses_can_finish(3, 2, 7), "1.7 more rounds after 7");
    cr_assert_not(impulses_can_finish(2, 2, 2), "not shrinking");
    cr_assert_not(impulses_can_finish(5, 9, 2), "growing");
    cr_assert(impulses_can_finish(4, 1, 7), "one collision is one round's work");
    cr_assert(impulses_can_finish(5, 0, 7));
}

/* The same landing with steps that may not be shortened (min_step = max_step): impact zones
 * must finish it in its one step (at 128², in about ten rounds of growing zones), free of
 * intersections. */
Test(collision, a_landing_in_one_long_step_is_finished_by_impact_zones, .timeout = 600)
{
    double center[3] = {0, 0, 0};
    solid_mesh sphere = sphere_mesh(0.5, 32, 64, center);
    grid_mesh g = grid_mesh_make(test_quick() ? 64 : 128, 2.0, 0.8);
    sb_world *w = fine_landing(&g, &sphere, 1.0 / 24.0);
    sb_world_stats stats = {0};
    for (int f = 1; f <= 8 && stats.impact_zones == 0; f++) {
        cr_assert_eq(sb_world_step_to(w, f / 24.0), SB_OK, "%s", sb_last_error());
        cr_assert_eq(count_intersections(w->cloths, 1, w->colliders, 1, true), 0, "frame %d", f);
        sb_world_get_stats(w, &stats);
    }
    cr_assert_gt(stats.impact_zones, 0, "the landing needed no impact zones");
    cr_assert_eq(stats.rejected_steps, 0);
    sb_world_destroy(w);
    grid_mesh_free(&g);
    solid_mesh_free(&sphere);
}

/* A 0.6 m cloth hangs from its top corners in the plane y = 0; a thin plate crosses it at
 * 20 m/s, 0.83 m within the first frame, then stops. */
Test(collision, fast_plate_pushes_the_cloth_and_never_crosses_it, .timeout = 300)
{
    const int32_t n = test_quick() ? 12 : 20;
    const double speed = 20.0, frame = 1.0 / 24.0, size = 0.6;
    cr_assert_gt(speed * frame, size, "the plate must travel farther than the cloth in one frame");
    grid_mesh g = grid_mesh_make(n, size, 0.0);
    for (int32_t i = 0; i < g.vertex_count; i++) {
        g.positions[3 * i + 2] = g.positions[3 * i + 1];
        g.positions[3 * i + 1] = 0.0;
    }
    int32_t pins[2] = {(n - 1) * n, n * n - 1};
    double half[3] = {0.15, 0.01, 0.15}, center[3] = {0.0, -0.5, -0.05};
    solid_mesh plate = box_mesh(half, center);
    sb_world *w = implicit_world(frame);
    sb_cloth_def def = sb_default_cloth_def();
    def.pin_count = 2;
    def.pins = pins;
    sb_cloth_id cloth_id = add_cloth(w, &g, def);
    sb_collider_id col = add_collider(w, &plate);
    double *x = malloc(sizeof(double) * 3 * (size_t)g.vertex_count), moved[24];
    double pushed = 0.0;
    for (int f = 1; f <= 12; f++) {
        double shift = speed * frame; /* all of it in the first frame */
        for (int k = 0; k < 24; k++) moved[k] = plate.positions[k] + (k % 3 == 1 ? shift : 0.0);
        if (f == 1) cr_assert_eq(sb_collider_set_positions(w, col, f * frame, moved, 8), SB_OK, "%s", sb_last_error());
        cr_assert_eq(sb_world_step_to(w, f * frame), SB_OK, "%s", sb_last_error());
        sb_cloth_get_positions(w, cloth_id, x, g.vertex_count);
        solid_mesh now = plate;
        now.positions = moved;
        for (int32_t i = 0; i < g.vertex_count; i++) {
            double d = convex_signed_distance(&now, &x[3 * i]);
            cr_assert_geq(d, -0.1 * def.thickness, "frame %d: vertex %d is %.3g m inside the plate", f, i, -d);
            pushed = fmax(pushed, x[3 * i + 1]);
        }
        cr_assert_eq(count_intersections(w->cloths, 1, w->colliders, 1, false), 0, "frame %d", f);
    }
    cr_assert_gt(pushed, 0.3, "the cloth was not pushed along (furthest %.3f m)", pushed);
    free(x);
    sb_world_destroy(w);
    grid_mesh_free(&g);
    solid_mesh_free(&plate);
}

Test(collision, crumpling_cloth_never_intersects_itself_or_the_floor, .timeout = 300)
{
    grid_mesh g = grid_mesh_make(test_quick() ? 12 : 24, 1.0, 0.0);
    /* stood up on its edge with a little waviness, so that it buckles as it lands */
    for (int32_t i = 0; i < g.vertex_count; i++) {
        double x = g.positions[3 * i], y = g.positions[3 * i + 1];
        g.positions[3 * i + 1] = 0.03 * sin(9 * x) + 0.02 * sin(5 * y);
        g.positions[3 * i + 2] = 0.3 + (y + 0.5);
    }
    solid_mesh floor = plane_mesh(6.0, 0.0);
    sb_world *w = implicit_world(1.0 / 24.0);
    sb_cloth_def def = sb_default_cloth_def();
    def.self_collision = 1;
    def.bend_stiffness = 2e-5;
    add_cloth(w, &g, def);
    add_collider(w, &floor);
    for (int f = 1; f <= 72; f++) {
        cr_assert_eq(sb_world_step_to(w, f / 24.0), SB_OK, "%s", sb_last_error());
        cr_assert_eq(count_intersections(w->cloths, 1, w->colliders, 1, true), 0, "frame %d", f);
    }
    sb_world_stats stats;
    sb_world_get_stats(w, &stats);
    cr_assert_gt(stats.collisions, 0, "no self-contact was exercised");
    sb_world_destroy(w);
    grid_mesh_free(&g);
    solid_mesh_free(&floor);
}

/* Two sheets of one cloth, the lower one pinned flat, the upper one dropped on it: they come
 * to rest twice the self thickness apart, however thick the cloth is against colliders. That
 * holds while gravity moves the sheet less than that per step (g h² = 1 mm at 1/96 s): self
 * contacts are no constraints of the solve, so with longer steps the sheet falls through the
 * distance each step and continuous detection stops it between a tenth of it and all of it. */
static double layer_gap(double self_thickness, double max_step)
{
    grid_mesh lower = grid_mesh_make(8, 0.5, 0.02), upper = grid_mesh_make(8, 0.5, 0.08);
    int32_t n = lower.vertex_count, t = lower.triangle_count;
    double *p = malloc(6 * (size_t)n * sizeof *p);
    int32_t *tris = malloc(6 * (size_t)t * sizeof *tris), *pins = malloc((size_t)n * sizeof *pins);
    memcpy(p, lower.positions, 3 * (size_t)n * sizeof *p), memcpy(p + 3 * n, upper.positions, 3 * (size_t)n * sizeof *p);
    for (int32_t k = 0; k < 3 * t; k++) tris[k] = lower.triangles[k], tris[3 * t + k] = upper.triangles[k] + n;
    for (int32_t i = 0; i < n; i++) pins[i] = i;
    sb_world *w = implicit_world(max_step);
    sb_cloth_def def = sb_default_cloth_def();
    def.vertex_count = 2 * n, def.positions = p, def.triangle_count = 2 * t, def.triangles = tris;
    def.pin_count = n, def.pins = pins;
    def.self_collision = 1, def.thickness = 0.01, def.self_thickness = self_thickness;
    sb_cloth_id id;
    cr_assert_eq(sb_world_add_cloth(w, &def, &id), SB_OK, "%s", sb_last_error());
    for (int f = 1; f <= 36; f++) cr_assert_eq(sb_world_step_to(w, f / 24.0), SB_OK, "%s", sb_last_error());
    double *x = malloc(6 * (size_t)n * sizeof *x), gap = 0.0;
    cr_assert_eq(sb_cloth_get_positions(w, id, x, 2 * n), SB_OK);
    for (int32_t i = 0; i < n; i++) gap += (x[3 * (n + i) + 2] - x[3 * i + 2]) / n;
    cr_assert_eq(count_intersections(w->cloths, 1, w->colliders, 0, true), 0);
    sb_world_destroy(w);
    free(x), free(p), free(tris), free(pins);
    grid_mesh_free(&lower), grid_mesh_free(&upper);
    return gap;
}

Test(collision, sheets_of_one_cloth_rest_twice_the_self_thickness_apart)
{
    double thin = layer_gap(0.002, 1.0 / 96.0), same = layer_gap(0.0, 1.0 / 96.0); /* 0: the thickness itself */
    cr_assert(thin > 0.9 * 0.004 && thin < 1.25 * 0.004, "gap %g with self thickness 2 mm", thin);
    cr_assert(same > 0.9 * 0.02 && same < 1.1 * 0.02, "gap %g with the thickness, 1 cm", same);
}

Test(collision, twisted_tube_never_intersects_itself, .timeout = 300)
{
    const int32_t rings = test_quick() ? 16 : 30, segments = test_quick() ? 12 : 16;
    const double radius = 0.15, length = 1.0;
    int32_t nv = rings * segments, nt = 2 * segments * (rings - 1);
    double *p = malloc(sizeof(double) * 3 * (size_t)nv);
    int32_t *tris = malloc(sizeof(int32_t) * 3 * (size_t)nt), *pins = malloc(sizeof(int32_t) * 2 * segments);
    for (int32_t r = 0; r < rings; r++)
        for (int32_t s = 0; s < segments; s++) {
            double a = 2 * PI * s / segments;
            double *q = &p[3 * (r * segments + s)];
            q[0] = length * r / (rings - 1) - 0.5 * length, q[1] = radius * cos(a), q[2] = 1.0 + radius * sin(a);
        }
    int32_t k = 0;
    for (int32_t r = 0; r + 1 < rings; r++)
        for (int32_t s = 0; s < segments; s++) {
            int32_t a = r * segments + s, b = r * segments + (s + 1) % segments, c = a + segments, d = b + segments;
            int32_t quad[6] = {a, c, d, a, d, b};
            for (int j = 0; j < 6; j++) tris[k++] = quad[j];
        }
    for (int32_t s = 0; s < segments; s++) pins[s] = s, pins[segments + s] = (rings - 1) * segments + s;
    sb_world *w = implicit_world(1.0 / 24.0);
    sb_cloth_def def = sb_default_cloth_def();
    def.self_collision = 1;
    def.bend_stiffness = 2e-5;
    def.vertex_count = nv, def.positions = p, def.triangle_count = nt, def.triangles = tris;
    def.pin_count = 2 * segments, def.pins = pins;
    sb_cloth_id cloth_id;
    cr_assert_eq(sb_world_add_cloth(w, &def, &cloth_id), SB_OK, "%s", sb_last_error());
    double *targets = malloc(sizeof(double) * 6 * segments);
    for (int f = 1, frames = test_quick() ? 48 : 72; f <= frames; f++) {
        /* the ends turn half a turn each, in opposite senses, and draw 10 cm closer */
        double t = f / 24.0, progress = fmin(1.0, t / 2.0), angle = PI * progress;
        for (int e = 0; e < 2; e++)
            for (int32_t s = 0; s < segments; s++) {
                double a = 2 * PI * s / segments + (e ? -angle : angle);
                double *q = &targets[3 * (e * segments + s)];
                q[0] = (e ? 0.5 : -0.5) * length + (e ? -0.1 : 0.1) * progress;
                q[1] = radius * cos(a), q[2] = 1.0 + radius * sin(a);
            }
        cr_assert_eq(sb_cloth_set_pin_targets(w, cloth_id, t, targets, 2 * segments), SB_OK, "%s", sb_last_error());
        cr_assert_eq(sb_world_step_to(w, t), SB_OK, "%s", sb_last_error());
        cr_assert_eq(count_intersections(w->cloths, 1, NULL, 0, true), 0, "frame %d", f);
    }
    sb_world_stats stats;
    sb_world_get_stats(w, &stats);
    cr_assert_gt(stats.collisions, 100, "the tube did not fold onto itself (%lld collisions)", (long long)stats.collisions);
    free(p), free(tris), free(pins), free(targets);
    sb_world_destroy(w);
}

/* A 0.5 m cloth lying on a 20° slope, held at the contact distance above it; returns the
 * mean displacement down the slope at each of `frames` frames. */
static void slide_on_slope(double friction, int frames, double *down)
{
    const double tilt = 20.0 * PI / 180.0;
    solid_mesh slope = plane_mesh(8.0, tilt);
    grid_mesh g = grid_mesh_make(12, 0.5, 0.0);
    sb_cloth_def def = sb_default_cloth_def();
    def.friction = friction;
    def.air_drag = 0.0;
    double gap = def.thickness + sb_default_collider_def().thickness;
    for (int32_t i = 0; i < g.vertex_count; i++) {
        double y = g.positions[3 * i + 1];
        g.positions[3 * i + 1] = y * cos(tilt) - gap * sin(tilt);
        g.positions[3 * i + 2] = y * sin(tilt) + gap * cos(tilt);
    }
    sb_world *w = implicit_world(1.0 / 24.0);
    sb_cloth_id cloth_id = add_cloth(w, &g, def);
    add_collider(w, &slope);
    double *x = malloc(sizeof(double) * 3 * (size_t)g.vertex_count);
    for (int f = 1; f <= frames; f++) {
        cr_assert_eq(sb_world_step_to(w, f / 24.0), SB_OK, "%s", sb_last_error());
        sb_cloth_get_positions(w, cloth_id, x, g.vertex_count);
        double sum = 0.0;
        for (int32_t i = 0; i < g.vertex_count; i++)
            sum -= (x[3 * i + 1] - g.positions[3 * i + 1]) * cos(tilt) + (x[3 * i + 2] - g.positions[3 * i + 2]) * sin(tilt);
        down[f] = sum / g.vertex_count;
    }
    free(x);
    sb_world_destroy(w);
    grid_mesh_free(&g);
    solid_mesh_free(&slope);
}

Test(collision, static_friction_holds_cloth_on_a_slope)
{
    double down[49];
    slide_on_slope(0.6, 48, down); /* μ = 0.6 x 1 > tan 20° = 0.364 */
    for (int f = 1; f <= 48; f++) cr_assert_lt(fabs(down[f]), 1e-4, "frame %d: moved %g m", f, down[f]);
}

Test(collision, low_friction_cloth_slides_at_the_coulomb_rate)
{
    double down[49];
    slide_on_slope(0.1, 36, down); /* a = g (sin 20° - 0.1 cos 20°) */
    double expected = 9.81 * (sin(20.0 * PI / 180.0) - 0.1 * cos(20.0 * PI / 180.0));
    /* acceleration from the displacement's second difference over the last second */
    double dt = 12.0 / 24.0;
    double measured = (down[36] - 2.0 * down[24] + down[12]) / (dt * dt);
    cr_assert(fabs(measured / expected - 1.0) < 0.02, "slid at %.4f m/s², Coulomb says %.4f", measured, expected);
}

Test(collision, bad_colliders_are_refused)
{
    sb_world *w = implicit_world(1.0 / 24.0);
    double pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    int32_t tri[3] = {0, 1, 3};
    sb_collider_id id;
    sb_collider_def def = sb_default_collider_def();
    def.vertex_count = 3, def.positions = pos, def.triangle_count = 1, def.triangles = tri;
    cr_assert_eq(sb_world_add_collider(w, &def, &id), SB_ERROR_INVALID_MESH);
    tri[2] = 2;
    def.thickness = -1.0;
    cr_assert_eq(sb_world_add_collider(w, &def, &id), SB_ERROR_INVALID_ARGUMENT);
    def.thickness = 0.001;
    pos[4] = NAN;
    cr_assert_eq(sb_world_add_collider(w, &def, &id), SB_ERROR_INVALID_MESH);
    pos[4] = 0.0;
    cr_assert_eq(sb_world_add_collider(w, &def, &id), SB_OK);
    double to[9] = {0, 0, 1, 1, 0, 1, 0, 1, 1};
    cr_assert_eq(sb_collider_set_positions(w, id, 0.0, to, 3), SB_ERROR_INVALID_ARGUMENT); /* not after now */
    cr_assert_eq(sb_collider_set_positions(w, id, 1.0, to, 2), SB_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sb_collider_set_positions(w, (sb_collider_id){7}, 1.0, to, 3), SB_ERROR_NOT_FOUND);
    cr_assert_eq(sb_collider_set_positions(w, id, 1.0, to, 3), SB_OK);
    sb_world_destroy(w);
    /* the explicit integrators do not collide */
    sb_world_def explicit_def = sb_default_world_def();
    explicit_def.integrator = SB_INTEGRATOR_RK4;
    cr_assert_eq(sb_world_create(&explicit_def, &w), SB_OK);
    cr_assert_eq(sb_world_add_collider(w, &def, &id), SB_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(sb_last_error(), "implicit"));
    sb_world_destroy(w);
}
