/* Diagnostic, not a ctest test (built on demand: `cmake --build build --target diag_rollsphere`,
 * then `OMP_NUM_THREADS=1 build/tests/diag_rollsphere --verbose`). Issue 32: the tablecloth
 * sample's sphere, feeling the cloth, rolls off the table. The scene test_squeeze.c builds (a
 * static table box whose top is z = 0, an n² cloth of 0.8 m lying on it at the contact distance)
 * with the sample's sphere dropped on it: 1 kg, radius 0.12 m, a UV sphere collider of 12 rings x
 * 24 segments (Blender's primitive), friction 0.5, the cloth's vertices 0.3 kg, cloth friction 0.2.
 * Logs per frame the sphere's height, horizontal offset and speed, and angular velocity.
 * Environment: DIAG_GRID (17), DIAG_SECONDS (3), DIAG_DROP (0.05 m), DIAG_RINGS/DIAG_SEGMENTS
 * (12/24), DIAG_ICO (> 0: an icosphere of that many subdivisions instead), DIAG_VMASS (0.3 kg),
 * DIAG_FRICTION (cloth friction, 0.2), DIAG_BODY_FRICTION (the sphere's rigid friction, 0.5),
 * DIAG_X0/Y0 (the start off centre), DIAG_ROT (> 0: the UV sphere's poles along x instead of z). What it found: two_way_coupling.h ("Why the sphere rolls"). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "world.h"

static double env_or(const char *name, double fallback)
{
    const char *s = getenv(name);
    return s && *s ? atof(s) : fallback;
}

Test(diag_rollsphere, the_samples_sphere_on_cloth_over_a_table, .timeout = 900)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const double fps = 24.0, span = 0.8, radius = 0.12, mass = 1.0;
    const int32_t n = (int32_t)env_or("DIAG_GRID", 17);
    const int frames = (int)lround(env_or("DIAG_SECONDS", 3.0) * fps);
    solid_mesh table;
    double reach;
    sb_world *w = world_with_table(&table, &reach);
    cr_assert(w, "%s", sb_last_error());
    grid_mesh sheet = grid_mesh_make(n, span, reach);
    sb_cloth_def cd = grid_cloth_def(&sheet);
    double spacing = span / (n - 1);
    cd.density = env_or("DIAG_VMASS", 0.3) / (spacing * spacing);
    cd.friction = env_or("DIAG_FRICTION", 0.2);
    sb_cloth_id cloth_id;
    cr_assert_eq(sb_world_add_cloth(w, &cd, &cloth_id), SB_OK, "%s", sb_last_error());

    double center[3] = {env_or("DIAG_X0", 0.0), env_or("DIAG_Y0", 0.0), 2.0 * reach + radius + env_or("DIAG_DROP", 0.05)};
    sb_body_def bd = sb_default_body_def();
    bd.shape = SB_SHAPE_SPHERE, bd.radius = radius, bd.mass = mass, bd.feels_cloth = 1, bd.friction = env_or("DIAG_BODY_FRICTION", 0.5);
    memcpy(bd.center, center, sizeof center);
    sb_body_id ball;
    cr_assert_eq(sb_world_add_body(w, &bd, &ball), SB_OK, "%s", sb_last_error());
    int ico = (int)env_or("DIAG_ICO", 0);
    solid_mesh solid = ico > 0 ? icosphere_mesh(radius, ico)
                               : sphere_mesh(radius, (int32_t)env_or("DIAG_RINGS", 12), (int32_t)env_or("DIAG_SEGMENTS", 24), (double[3]){0, 0, 0});
    bool poles_along_x = env_or("DIAG_ROT", 0) > 0;
    for (int32_t i = 0; i < solid.vertex_count; i++) {
        double *p = &solid.positions[3 * (size_t)i];
        if (poles_along_x) {
            double z = p[2];
            p[2] = p[0], p[0] = z;
        }
        for (int a = 0; a < 3; a++) p[a] += center[a];
    }
    if (poles_along_x) /* the swap mirrors the mesh: turn its triangles back outward */
        for (int32_t t = 0; t < solid.triangle_count; t++) {
            int32_t k = solid.triangles[3 * (size_t)t + 1];
            solid.triangles[3 * (size_t)t + 1] = solid.triangles[3 * (size_t)t + 2], solid.triangles[3 * (size_t)t + 2] = k;
        }
    sb_collider_def bcd = solid_collider_def(&solid);
    sb_collider_id ball_collider;
    cr_assert_eq(sb_world_add_collider(w, &bcd, &ball_collider), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_collider_follow_body(w, ball_collider, ball), SB_OK, "%s", sb_last_error());

    sb_body_state s;
    double max_speed = 0.0, max_spin = 0.0;
    for (int f = 1; f <= frames; f++) {
        if (sb_world_step_to(w, f / fps) != SB_OK) {
            printf("frame %d: %s\n", f, sb_last_error());
            break;
        }
        sb_body_get_state(w, ball, &s);
        double vh = hypot(s.linear_velocity[0], s.linear_velocity[1]);
        double spin = sqrt(s.angular_velocity[0] * s.angular_velocity[0] + s.angular_velocity[1] * s.angular_velocity[1] +
                           s.angular_velocity[2] * s.angular_velocity[2]);
        if (f > fps / 2) max_speed = fmax(max_speed, vh), max_spin = fmax(max_spin, spin);
        printf("frame %3d  bottom %+.4f m  at (%+.4f, %+.4f)  v_h %.4f m/s  v_z %+.4f  w (%+.3f, %+.3f, %+.3f) rad/s  "
               "contact force (%+.2f, %+.2f, %+.2f) N\n",
               f, s.position[2] - radius, s.position[0], s.position[1], vh, s.linear_velocity[2], s.angular_velocity[0],
               s.angular_velocity[1], s.angular_velocity[2], s.contact_force[0], s.contact_force[1], s.contact_force[2]);
    }
    sb_body_get_state(w, ball, &s);
    printf("end: moved %.4f m from its start horizontally; after 0.5 s the most horizontal speed %.4f m/s, spin %.3f rad/s\n",
           hypot(s.position[0] - center[0], s.position[1] - center[1]), max_speed, max_spin);
    sb_world_destroy(w);
    grid_mesh_free(&sheet);
    solid_mesh_free(&table), solid_mesh_free(&solid);
}
