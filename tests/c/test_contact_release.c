/* Contacts hold cloth only while it presses: cloth that hangs away from a surface leaves it
 * (Baraff & Witkin's filters constrain a contact's normal velocity; a contact that pulled the
 * cloth in, or took up cloth already leaving, would glue it to the underside of a collider). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "simbake.h"
#include "testutil.h"

#define FPS 24.0

static sb_world *world_with_sphere(double friction, solid_mesh *sphere)
{
    const double centre[3] = {0.0, 0.0, 0.0};
    *sphere = sphere_mesh(0.5, 24, 48, centre);
    sb_world_def wdef = sb_default_world_def();
    sb_world *w;
    cr_assert_eq(sb_world_create(&wdef, &w), SB_OK);
    sb_collider_def def = solid_collider_def(sphere);
    def.thickness = 0.02, def.friction = friction;
    sb_collider_id id;
    cr_assert_eq(sb_world_add_collider(w, &def, &id), SB_OK, "%s", sb_last_error());
    return w;
}

/* A small patch at rest just beyond the contact distance below the sphere's lowest point
 * (where a contact holds, not where it starts pushing): nothing presses it up, so it falls
 * freely. A contact that pulled it back to the contact distance held it there for good. */
Test(contact_release, a_patch_just_below_a_sphere_falls_away)
{
    solid_mesh sphere;
    sb_world *w = world_with_sphere(0.5, &sphere);
    sb_cloth_def def;
    const double reach = 0.005 + 0.02; /* the cloth's default thickness and the sphere's */
    grid_mesh g = grid_mesh_make(5, 0.04, -0.5 - 1.05 * reach);
    def = grid_cloth_def(&g);
    sb_cloth_id cloth;
    cr_assert_eq(sb_world_add_cloth(w, &def, &cloth), SB_OK, "%s", sb_last_error());
    const double t = 0.25;
    cr_assert_eq(sb_world_step_to(w, t), SB_OK, "%s", sb_last_error());
    double x[3 * 25];
    cr_assert_eq(sb_cloth_get_positions(w, cloth, x, g.vertex_count), SB_OK);
    double fallen = -0.5 - 1.05 * reach - x[3 * 12 + 2], free_fall = 0.5 * 9.81 * t * t;
    cr_assert_gt(fallen, 0.9 * free_fall, "the patch fell %.4g m in %g s, free fall %.4g m: a contact held it",
                 fallen, t, free_fall);
    sb_world_destroy(w);
    grid_mesh_free(&g);
    solid_mesh_free(&sphere);
}

/* Blender's default cloth (its mapping onto a 64² grid of 2 m: docs/blender-physics-mapping.md,
 * heavy and soft) dropped onto a sphere swings round its lower half once and hangs free below
 * it: two seconds on, no part of it lies tucked under the sphere (below its middle and nearer
 * the axis than the sphere's side), and its lowest point hangs past the sphere's bottom.
 * Before contacts stopped pulling cloth in, the corners stayed wrapped under the sphere,
 * pressed against it (issue 28's drape). Valgrind's quick run takes a coarser grid. */
Test(contact_release, blenders_default_cloth_hangs_free_of_the_sphere, .timeout = 300)
{
    solid_mesh sphere;
    sb_world *w = world_with_sphere(0.05, &sphere);
    const int32_t n = test_quick() ? 33 : 65;
    const double edge = 2.0 / (n - 1), time_unit = sqrt(0.001);
    grid_mesh g = grid_mesh_make(n, 2.0, 0.8);
    sb_cloth_def def = grid_cloth_def(&g);
    def.density = 0.3 * n * n / 4.0;
    def.stretch_stiffness = 1000.0 * 15.0 / edge, def.shear_stiffness = 1000.0 * 5.0 / edge;
    def.bend_stiffness = 1000.0 * 0.05 * 0.5 * edge * edge / 3.0;
    def.damping = (5.0 / time_unit) * edge / (1000.0 * 15.0);
    def.air_drag = 0.01 / time_unit * n * n / 4.0;
    def.thickness = 0.015, def.friction = 1.0;
    sb_cloth_id cloth;
    cr_assert_eq(sb_world_add_cloth(w, &def, &cloth), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_world_step_to(w, 48.0 / FPS), SB_OK, "%s", sb_last_error());
    double *x = malloc(3 * (size_t)g.vertex_count * sizeof *x);
    cr_assert_eq(sb_cloth_get_positions(w, cloth, x, g.vertex_count), SB_OK);
    int32_t tucked = 0;
    double lowest = INFINITY;
    for (int32_t i = 0; i < g.vertex_count; i++) {
        const double *p = &x[3 * (size_t)i];
        tucked += p[2] < -0.2 && hypot(p[0], p[1]) < 0.45;
        lowest = fmin(lowest, p[2]);
    }
    cr_expect_eq(tucked, 0, "%d vertices lie tucked under the sphere", (int)tucked);
    cr_expect_lt(lowest, -0.55, "the lowest point is at z = %.3f: the cloth does not hang past the sphere", lowest);
    free(x);
    sb_world_destroy(w);
    grid_mesh_free(&g);
    solid_mesh_free(&sphere);
}
