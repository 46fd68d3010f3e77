/* Diagnostic, not a ctest test (built on demand: `cmake --build build --target diag_tipbox`, then
 * `OMP_NUM_THREADS=1 build/tests/diag_tipbox --verbose --filter='*the_add_ons_hammock'`). Issue 32's
 * hammock as the add-on bakes it (/work/briefs/hammock_scene.py): a 5 kg box 0.3 x 0.2 x 0.2 m
 * dropped 5 cm into a 1.2 m hammock of 21² vertices of SimBake's default cloth, pinned along
 * x = ±0.6, the box feeling the cloth. Environment: DIAG_LIMIT=1 strain limit on (10%), DIAG_FRAMES
 * (72), DIAG_GRID (21), DIAG_FRICTION (cloth friction, 0.5), DIAG_STEP (max step, 1/24 s),
 * DIAG_DAMP (cloth damping, 0.01 s), DIAG_HX/HY/HZ (the box's half extents), DIAG_MASS (5 kg),
 * DIAG_DROP (0.05 m), DIAG_X0/Y0 (its start off centre), DIAG_LIN_DAMP/ANG_DAMP (the box's).
 * the_add_ons_hammock logs per frame the box's height, tilt, spin and the energy it holds beyond
 * what it brought and the cloth's fall gave; the_moment_on_a_held_tilt measures the cloth's
 * moment on the box held tilted (below). What they found: two_way_coupling.h ("Why the add-on's
 * box turns over"). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rigid_body.h"
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

Test(diag_tipbox, the_add_ons_hammock, .timeout = 600)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const int32_t n = (int32_t)env_or("DIAG_GRID", 21);
    const double half[3] = {env_or("DIAG_HX", 0.15), env_or("DIAG_HY", 0.1), env_or("DIAG_HZ", 0.1)},
                 box_mass = env_or("DIAG_MASS", 5.0), drop = env_or("DIAG_DROP", 0.05), fps = 24.0;
    const int frames = (int)env_or("DIAG_FRAMES", 72);
    addon_hammock h = addon_hammock_make(n, half, drop);
    sb_world_def wd = sb_default_world_def();
    wd.max_step = env_or("DIAG_STEP", 1.0 / fps);
    sb_world *w;
    cr_assert_eq(sb_world_create(&wd, &w), SB_OK, "%s", sb_last_error());
    h.cloth.damping = env_or("DIAG_DAMP", 0.01), h.cloth.friction = env_or("DIAG_FRICTION", 0.5);
    h.cloth.max_stretch = env_or("DIAG_LIMIT", 0) != 0 ? 0.1 : 0.0;
    h.box.mass = box_mass;
    h.box.center[0] = env_or("DIAG_X0", 0.0), h.box.center[1] = env_or("DIAG_Y0", 0.0);
    h.box.linear_damping = env_or("DIAG_LIN_DAMP", 0.0), h.box.angular_damping = env_or("DIAG_ANG_DAMP", 0.0);
    cr_assert(addon_hammock_add(w, &h), "%s", sb_last_error());
    sb_body_id body = h.body;

    const cloth *c = w->cloths[0];
    double g = -w->def.gravity[2], cloth_mass = 0.0;
    for (int32_t i = 0; i < c->model.vertex_count; i++) cloth_mass += c->model.mass[i];
    sb_body_state s;
    sb_body_get_state(w, body, &s);
    double box_energy0 = s.kinetic_energy + box_mass * g * s.position[2], cloth_z0 = cloth_height(c);
    double most_given = -INFINITY, tilt_max = 0.0, late_tilt = 0.0;
    int64_t steps0 = w->stats.steps;
    for (int f = 1; f <= frames; f++) {
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
        double tilt = acos(fmin(1.0, fabs(q[0] * q[0] - q[1] * q[1] - q[2] * q[2] + q[3] * q[3])));
        tilt_max = fmax(tilt_max, tilt);
        if (f > frames / 2) late_tilt = fmax(late_tilt, tilt);
        printf("frame %3d steps %4lld z %+.4f x %+.4f y %+.4f tilt %.4f w (%+.3f %+.3f %+.3f) KE %.4f given %+.4f\n", f,
               (long long)(w->stats.steps - steps0), s.position[2], s.position[0], s.position[1], tilt,
               s.angular_velocity[0], s.angular_velocity[1], s.angular_velocity[2], s.kinetic_energy, given);
    }
    printf("SUMMARY half (%g %g %g) grid %d limit %g friction %g: max tilt %.4f rad (second half %.4f), most given %.4g J, steps %lld\n", half[0], half[1], half[2], n,
           h.cloth.max_stretch, h.cloth.friction, tilt_max, late_tilt, most_given, (long long)(w->stats.steps - steps0));
    sb_world_destroy(w);
    addon_hammock_free(&h);
}

/* The cloth's moment on the box held at a tilt θ about world axis DIAG_AXIS (0 x, 1 y), its centre
 * free: each frame (DIAG_HOLD_FPS, one step each) its orientation is set back to the tilt and its
 * angular momentum to 0, so what it gains over a frame, divided by the frame, is the cloth's moment
 * about its centre. Averaged over the last DIAG_AVG frames of DIAG_HOLD_S seconds. The level box is
 * stable about that axis where the moment turns it back (M θ < 0 for small θ). DIAG_THETA (0.05 rad,
 * ramped in over DIAG_RAMP s), the cloth's damping DIAG_DAMP 0.05 s and the box's linear damping
 * DIAG_BODY_DAMP 0.9 here, so that it settles. */

Test(diag_tipbox, the_moment_on_a_held_tilt, .timeout = 600)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const int32_t n = (int32_t)env_or("DIAG_GRID", 21);
    const double half[3] = {env_or("DIAG_HX", 0.15), env_or("DIAG_HY", 0.1), env_or("DIAG_HZ", 0.1)};
    const double box_mass = env_or("DIAG_MASS", 5.0), fps = env_or("DIAG_HOLD_FPS", 240.0);
    const double theta = env_or("DIAG_THETA", 0.05), seconds = env_or("DIAG_HOLD_S", 3.0);
    const int axis = (int)env_or("DIAG_AXIS", 0), avg = (int)env_or("DIAG_AVG", 48);
    addon_hammock h = addon_hammock_make(n, half, 0.0);
    sb_world_def wd = sb_default_world_def();
    wd.max_step = 1.0 / fps;
    sb_world *w;
    cr_assert_eq(sb_world_create(&wd, &w), SB_OK, "%s", sb_last_error());
    h.cloth.damping = env_or("DIAG_DAMP", 0.05), h.cloth.friction = env_or("DIAG_FRICTION", 0.5);
    /* started level, touching the cloth; tilted from the first frame on */
    h.box.center[2] = half[2] + h.cloth.thickness;
    h.box.mass = box_mass;
    h.box.linear_damping = env_or("DIAG_BODY_DAMP", 0.9);
    h.box.deactivate_linear_velocity = h.box.deactivate_angular_velocity = 0.0;
    cr_assert(addon_hammock_add(w, &h), "%s", sb_last_error());
    sb_body_id body = h.body;
    rigid_body *b = w->rigid.bodies[body.index];
    vec3 axis_v = axis == 0 ? v3(1, 0, 0) : v3(0, 1, 0);
    int frames = (int)(seconds * fps);
    double moment = 0.0, moment2 = 0.0, z = 0.0, ramp = env_or("DIAG_RAMP", 0.5);
    for (int f = 1; f <= frames; f++) {
        /* the tilt ramped in over the first DIAG_RAMP seconds */
        double s = fmin(1.0, f / (ramp * fps));
        b->state.q = q_from_rotation_vector(v3_scale(axis_v, s * theta));
        b->state.L = v3(0, 0, 0);
        rigid_body_update_derived(b);
        sb_result r = sb_world_step_to(w, f / fps);
        if (r != SB_OK) {
            printf("frame %d: %s\n", f, sb_last_error());
            break;
        }
        double m = v3_dot(b->state.L, axis_v) * fps;
        if (f > frames - avg) moment += m / avg, moment2 += m * m / avg, z += b->state.x.z / avg;
        if (f % (int)(fps / 4) == 0)
            printf("t %.2f moment %+.4f N m  centre (%+.4f %+.4f %+.4f)\n", f / fps, m, b->state.x.x, b->state.x.y, b->state.x.z);
    }
    printf("HOLD axis %d theta %+.3f half (%g %g %g) grid %d: moment %+.5f N m (M/theta %+.3f N m/rad; per-frame spread %.3f N m), centre z %.4f\n", axis,
           theta, half[0], half[1], half[2], n, moment, moment / theta, sqrt(fmax(0.0, moment2 - moment * moment)), z);
    sb_world_destroy(w);
    addon_hammock_free(&h);
}
