/* Diagnostic, not a ctest test (built on demand: `cmake --build build --target diag_flag`, then
 * `OMP_NUM_THREADS=1 build/tests/diag_flag --verbose`). Issue 30's flag as the add-on bakes it
 * with SimBake's own material (bench/blender/cloth_vs_blender.py --scene flag --material simbake):
 * 2 x 1 m in the XZ plane, 64 x 32 vertices, SimBake's default cloth with its 10% strain limit
 * and self collision, in Blender's Wind of strength 750 as the add-on maps it (a plane field
 * of strength 1250 and flow 1.26 blowing along +y). The bench names the Pin group in Blender's
 * modifier only, so role Cloth bakes it unpinned: a sheet blown into a crumple (DIAG_PINNED=1
 * pins the column at x = 0, as the scene means; that bake did not get through its first frame
 * here, its steps halving on the strain change). Logs per frame the CPU time, steps, rejected
 * steps, CG iterations, collisions, impact zones, strain violations, the phase timers (wall
 * clock), and at the frame's end the cloth's intersecting triangle pairs (with itself) and its
 * largest edge stretch. Environment: DIAG_FRAMES (72), DIAG_SELF (1), DIAG_PINNED (0),
 * DIAG_BUDGET (CPU seconds, 300), DIAG_DUMP (a file for the final positions and velocities,
 * raw doubles, to compare two builds bit for bit), DIAG_DENSITY (kg/m², SimBake's default 0.15),
 * DIAG_STRETCH (the stretch stiffness, SimBake's default 2000),
 * DIAG_TRACE (1: the world stepped to one preferred step at a time, at most 1/768 s, a line
 * each: the steps and rejections it took, its last step's length, the fastest vertex, the
 * largest edge stretch and where (column, row; column 0 pinned), and whether the last step's
 * projection ran as a pinch, world_step.c). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "intersections.h"
#include "testutil.h"
#include "world.h"

static double env_or(const char *name, double fallback)
{
    const char *s = getenv(name);
    return s && *s ? atof(s) : fallback;
}

/* Largest edge stretch of the cloth (compression is not limited), the edge's first vertex in *at. */
static double largest_stretch(const double *x, const double *rest, const int32_t *tris, int32_t corners, int32_t *at)
{
    double strain = 0.0;
    for (int32_t k = 0; k < corners; k++) {
        int32_t i = tris[k], j = tris[k - k % 3 + (k + 1) % 3];
        const double *a = &x[3 * (size_t)i], *b = &x[3 * (size_t)j], *ra = &rest[3 * (size_t)i], *rb = &rest[3 * (size_t)j];
        double len = hypot(hypot(a[0] - b[0], a[1] - b[1]), a[2] - b[2]);
        double s = len / hypot(hypot(ra[0] - rb[0], ra[1] - rb[1]), ra[2] - rb[2]) - 1.0;
        if (s > strain) strain = s, *at = i;
    }
    return strain;
}

/* One preferred step (next_step's choice, world_step.c) at a time up to `end`, a line each; at
 * most `most` long, so that a frame whose steps collapse still shows them. */
static sb_result trace_to(sb_world *w, double end, const double *rest, const int32_t *tris, int32_t corners,
                          int32_t columns, double most)
{
    while (w->time < end) {
        double step = fmin(w->preferred_step, most);
        double target = end - w->time <= 1.01 * step ? end : w->time + step;
        sb_world_stats before, after;
        sb_world_get_stats(w, &before);
        sb_result r = sb_world_step_to(w, target);
        if (r != SB_OK) return r;
        sb_world_get_stats(w, &after);
        const struct cloth *c = w->cloths[0];
        double fastest = 0.0;
        for (int32_t v = 0; v < c->model.vertex_count; v++) {
            const double *u = &c->state.v[3 * (size_t)v];
            fastest = fmax(fastest, hypot(hypot(u[0], u[1]), u[2]));
        }
        int32_t at = 0;
        double strain = largest_stretch(c->state.x, rest, tris, corners, &at);
        printf("  t %.6f steps %lld rejected %lld h %.3g speed %.4g m/s stretch %.2f%% at (%d, %d) pinch %d violated %lld\n",
               w->time, (long long)(after.steps - before.steps),
               (long long)(after.rejected_steps - before.rejected_steps), after.last_step, fastest,
               100.0 * strain, (int)(at % columns), (int)(at / columns), (int)c->scratch.strain_recovers,
               (long long)(after.strain_violations - before.strain_violations));
    }
    return SB_OK;
}

static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

Test(diag_flag, the_bench_flag, .timeout = 3600)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const int32_t columns = 64, rows = 32, n = columns * rows;
    const int frames = (int)env_or("DIAG_FRAMES", 72);
    const double fps = 24.0, budget = env_or("DIAG_BUDGET", 300.0);
    const bool trace = env_or("DIAG_TRACE", 0) != 0;
    /* the flag as cloth_vs_blender.py's build_flag makes it, each quad as Blender triangulates it */
    double *x = malloc(3 * (size_t)n * sizeof *x);
    int32_t *tris = malloc(6 * (size_t)(columns - 1) * (rows - 1) * sizeof *tris), *pins = malloc((size_t)rows * sizeof *pins);
    for (int32_t j = 0; j < rows; j++)
        for (int32_t i = 0; i < columns; i++) {
            double *p = &x[3 * (size_t)(j * columns + i)];
            p[0] = 2.0 * i / (columns - 1), p[1] = 0.0, p[2] = 1.0 - (double)j / (rows - 1);
        }
    int32_t t = 0;
    for (int32_t j = 0; j + 1 < rows; j++)
        for (int32_t i = 0; i + 1 < columns; i++) {
            int32_t a = j * columns + i, b = a + 1, c = b + columns, d = a + columns;
            int32_t q[6] = {a, b, c, a, c, d};
            for (int k = 0; k < 6; k++) tris[t++] = q[k];
        }
    for (int32_t j = 0; j < rows; j++) pins[j] = j * columns;

    sb_world_def wd = sb_default_world_def();
    wd.max_step = 1.0 / fps;
    sb_world *w;
    cr_assert_eq(sb_world_create(&wd, &w), SB_OK, "%s", sb_last_error());
    sb_cloth_def cd = sb_default_cloth_def();
    cd.vertex_count = n, cd.positions = x, cd.triangle_count = t / 3, cd.triangles = tris;
    cd.density = env_or("DIAG_DENSITY", cd.density);
    cd.stretch_stiffness = env_or("DIAG_STRETCH", cd.stretch_stiffness);
    cd.self_collision = (int32_t)env_or("DIAG_SELF", 1), cd.max_stretch = 0.1, cd.max_compression = 0.0;
    if (env_or("DIAG_PINNED", 0) != 0) cd.pin_count = rows, cd.pins = pins;
    sb_cloth_id cloth_id;
    cr_assert_eq(sb_world_add_cloth(w, &cd, &cloth_id), SB_OK, "%s", sb_last_error());
    sb_field_def fd = sb_default_field_def();
    fd.type = SB_FIELD_WIND, fd.shape = SB_FIELD_PLANE, fd.falloff = SB_FALLOFF_SPHERE, fd.side = SB_FIELD_BOTH_SIDES;
    fd.position[0] = 1.0, fd.position[1] = -2.0, fd.position[2] = 0.5;
    fd.axis[0] = 0.0, fd.axis[1] = 1.0, fd.axis[2] = 0.0;
    fd.strength = 1250.0, fd.flow = 1.264911064067352, fd.seed = 7;
    sb_field_id field;
    cr_assert_eq(sb_world_add_field(w, &fd, &field), SB_OK, "%s", sb_last_error());

    printf("frame cpu_s steps rejected cg collisions zones strain_violations | pairs_s response_s assembly_s solve_s | crossing_pairs max_stretch (%%)\n");
    sb_world_stats before, after;
    sb_world_get_stats(w, &before);
    phase_seconds p0 = w->phases;
    double start = cpu_seconds(), last = start;
    for (int f = 1; f <= frames; f++) {
        sb_result r = trace ? trace_to(w, f / fps, x, tris, t, columns, 1.0 / (32.0 * fps)) : sb_world_step_to(w, f / fps);
        cr_assert_eq(r, SB_OK, "frame %d: %s", f, sb_last_error());
        sb_world_get_stats(w, &after);
        double now = cpu_seconds(); /* the quality measures below are not the bake's time */
        int32_t at = 0;
        double strain = largest_stretch(w->cloths[0]->state.x, x, tris, t, &at);
        int64_t crossing = count_intersections(w->cloths, w->cloth_count, NULL, 0, true);
        double measured = cpu_seconds() - now;
        phase_seconds p = w->phases;
        printf("%3d %7.2f %3lld %3lld %5lld %5lld %3lld %3lld | %6.2f %6.2f %6.2f %6.2f | %lld %.2f\n", f, now - last,
               (long long)(after.steps - before.steps), (long long)(after.rejected_steps - before.rejected_steps),
               (long long)(after.cg_iterations - before.cg_iterations), (long long)(after.collisions - before.collisions),
               (long long)(after.impact_zones - before.impact_zones),
               (long long)(after.strain_violations - before.strain_violations), p.pairs - p0.pairs,
               p.response - p0.response, p.assembly - p0.assembly, p.solve - p0.solve, (long long)crossing, 100.0 * strain);
        start += measured, last = now + measured;
        before = after, p0 = p;
        if (now - start > budget) {
            printf("budget of %.0f s of CPU spent after %d frames\n", budget, f);
            break;
        }
    }
    printf("total CPU %.2f s\n", cpu_seconds() - start);
    const char *dump = getenv("DIAG_DUMP"); /* the final positions, raw doubles, to compare builds */
    FILE *out = dump && *dump ? fopen(dump, "wb") : NULL;
    if (out) {
        fwrite(w->cloths[0]->state.x, sizeof(double), 3 * (size_t)n, out);
        fwrite(w->cloths[0]->state.v, sizeof(double), 3 * (size_t)n, out);
        fclose(out);
    }
    sb_world_destroy(w);
    free(x), free(tris), free(pins);
}
