/* Diagnostic, not a ctest test (built on demand: `cmake --build build --target diag_hammock_limit`,
 * then `OMP_NUM_THREADS=1 build/tests/diag_hammock_limit --verbose`). Issue 32's add-on hammock with
 * the strain limit on (10%) and the floor 1 m below, as the Blender scene: a 5 kg box 0.3 x 0.2 x 0.2 m
 * (Blender's rigid-body damping 0.04 / 0.1) dropped 5 cm into a 1.2 m hammock of 21² vertices of
 * SimBake's default cloth pinned along x = ±0.6, the box feeling the cloth. Environment: DIAG_GRID
 * (21), DIAG_FRAMES (96), DIAG_X0/Y0 (start off centre), DIAG_DROP (0.05 m), DIAG_HY (0.1 m),
 * DIAG_LIN_DAMP/ANG_DAMP (0.04, 0.1), DIAG_LIMIT (0.1), DIAG_BLENDER_SPLIT (1: every quad split along
 * the same diagonal, as Blender's loop triangles of the scene's grid; 0: alternating), DIAG_DUMP (a file for
 * the final cloth positions and velocities and the box's state, raw, to compare two builds bit for bit). Logs per frame the box's centre, tilt, the
 * energy it holds beyond what it brought and the cloth's fall gave, the cloth's worst edge strain
 * and its fastest vertex; stops at the first frame that fails. On main the starts tried did not
 * fail (x0 0, 0.01, drop 0.03, quads split alternately: 96 frames, edges up to +132% to +267%,
 * the box's energy never rising); with the pinch rules on for two-way steps the 1 cm off-centre
 * start stopped at frame 59 (1.4e3 m/s), with a speed cap in pinch steps as well it stepped 96
 * frames (fastest 20 m/s): two_way_coupling.h. */
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

static double cloth_height(const cloth *c)
{
    double mz = 0.0, m = 0.0;
    for (int32_t i = 0; i < c->model.vertex_count; i++) mz += c->model.mass[i] * c->state.x[3 * (size_t)i + 2], m += c->model.mass[i];
    return mz / m;
}

/* the largest |x_a - x_b| / rest - 1 over the triangles' edges */
static double worst_edge_strain(const cloth *c, const double *rest_x)
{
    double worst = -INFINITY;
    for (int32_t t = 0; t < c->model.triangle_count; t++)
        for (int k = 0; k < 3; k++) {
            int32_t a = c->model.triangles[3 * (size_t)t + (size_t)k], b = c->model.triangles[3 * (size_t)t + (size_t)(k + 1) % 3];
            vec3 d = v3_sub(v3_load(&c->state.x[3 * (size_t)a]), v3_load(&c->state.x[3 * (size_t)b]));
            vec3 r = v3_sub(v3_load(&rest_x[3 * (size_t)a]), v3_load(&rest_x[3 * (size_t)b]));
            worst = fmax(worst, v3_len(d) / v3_len(r) - 1.0);
        }
    return worst;
}

Test(diag_hammock_limit, the_add_ons_hammock_with_the_strain_limit, .timeout = 1200)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const int32_t n = (int32_t)env_or("DIAG_GRID", 21);
    const double half[3] = {0.15, env_or("DIAG_HY", 0.1), 0.1}, box_mass = 5.0, fps = 24.0;
    const double drop = env_or("DIAG_DROP", 0.05);
    const int frames = (int)env_or("DIAG_FRAMES", 96);
    addon_hammock h = addon_hammock_make(n, half, drop);
    if (env_or("DIAG_BLENDER_SPLIT", 1) != 0)
        for (int32_t j = 0, t = 0; j + 1 < n; j++)
            for (int32_t i = 0; i + 1 < n; i++, t += 2) {
                int32_t a = j * n + i, b = a + 1, cc = a + n, dd = cc + 1, tri[6] = {a, b, dd, a, dd, cc};
                memcpy(&h.sheet.triangles[3 * (size_t)t], tri, sizeof tri);
            }
    sb_world_def wd = sb_default_world_def();
    wd.max_step = 1.0 / fps;
    sb_world *w;
    cr_assert_eq(sb_world_create(&wd, &w), SB_OK, "%s", sb_last_error());
    h.cloth.max_stretch = env_or("DIAG_LIMIT", 0.1);
    h.box.center[0] = env_or("DIAG_X0", 0.0), h.box.center[1] = env_or("DIAG_Y0", 0.0);
    h.box.linear_damping = env_or("DIAG_LIN_DAMP", 0.04), h.box.angular_damping = env_or("DIAG_ANG_DAMP", 0.1);
    cr_assert(addon_hammock_add(w, &h), "%s", sb_last_error());
    sb_body_id body = h.body;
    const double *center = h.box.center;
    /* the floor 1 m below the pins: a static body for the box, a plane collider for the cloth */
    sb_body_def floor = sb_default_body_def();
    floor.type = SB_BODY_STATIC, floor.shape = SB_SHAPE_BOX;
    floor.half_extents[0] = floor.half_extents[1] = 2.0, floor.half_extents[2] = 0.05;
    floor.center[2] = -1.05;
    sb_body_id floor_id;
    cr_assert_eq(sb_world_add_body(w, &floor, &floor_id), SB_OK, "%s", sb_last_error());
    solid_mesh plane = plane_mesh(4.0, 0.0);
    for (int32_t i = 0; i < plane.vertex_count; i++) plane.positions[3 * (size_t)i + 2] -= 1.0;
    sb_collider_def fd = solid_collider_def(&plane);
    sb_collider_id id;
    cr_assert_eq(sb_world_add_collider(w, &fd, &id), SB_OK, "%s", sb_last_error());

    const cloth *c = w->cloths[0];
    double g = -w->def.gravity[2], cloth_mass = 0.0;
    for (int32_t i = 0; i < c->model.vertex_count; i++) cloth_mass += c->model.mass[i];
    sb_body_state s;
    sb_body_get_state(w, body, &s);
    double box_energy0 = s.kinetic_energy + box_mass * g * s.position[2], cloth_z0 = cloth_height(c);
    double most_given = -INFINITY, fastest_seen = 0.0, strain_seen = 0.0, tilt = 0.0;
    int f = 1;
    for (; f <= frames; f++) {
        sb_result r = sb_world_step_to(w, f / fps);
        if (r != SB_OK) {
            printf("frame %d: %s\n", f, sb_last_error());
            break;
        }
        sb_body_get_state(w, body, &s);
        double given = s.kinetic_energy + box_mass * g * s.position[2] - box_energy0 -
                       cloth_mass * g * (cloth_z0 - cloth_height(c));
        most_given = fmax(most_given, given);
        const double *q = s.orientation;
        tilt = acos(fmin(1.0, fabs(q[0] * q[0] - q[1] * q[1] - q[2] * q[2] + q[3] * q[3])));
        double fastest = 0.0;
        for (int32_t i = 0; i < c->model.vertex_count; i++) fastest = fmax(fastest, v3_len(v3_load(&c->state.v[3 * (size_t)i])));
        double strain = worst_edge_strain(c, h.sheet.positions);
        fastest_seen = fmax(fastest_seen, fastest), strain_seen = fmax(strain_seen, strain);
        printf("frame %3d steps %5lld z %+.4f x %+.4f y %+.4f tilt %.3f KE %.3f given %+.3f strain %+.3f fastest %.3g m/s "
               "violations %lld\n", f, (long long)w->stats.steps, s.position[2], s.position[0], s.position[1], tilt,
               s.kinetic_energy, given, strain, fastest, (long long)w->stats.strain_violations);
        if (fastest > 1e3) break;
    }
    printf("SUMMARY x0 %g y0 %g drop %g grid %d hy %g: frames %d, most given %.4g J, worst strain %+.3f, fastest %.3g m/s, "
           "last tilt %.3f, steps %lld\n", center[0], center[1], drop, n, half[1], f - 1 < frames ? f - 1 : frames,
           most_given, strain_seen, fastest_seen, tilt, (long long)w->stats.steps);
    const char *dump = getenv("DIAG_DUMP"); /* the final cloth and box, raw doubles, to compare builds */
    FILE *out = dump && *dump ? fopen(dump, "wb") : NULL;
    if (out) {
        fwrite(c->state.x, sizeof(double), 3 * (size_t)c->model.vertex_count, out);
        fwrite(c->state.v, sizeof(double), 3 * (size_t)c->model.vertex_count, out);
        fwrite(&s, sizeof s, 1, out);
        fclose(out);
    }
    sb_world_destroy(w);
    addon_hammock_free(&h);
    solid_mesh_free(&plane);
}
