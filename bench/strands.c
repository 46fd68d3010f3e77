/* Strands' cost: issue 31's bench, 500 strands of 30 segments on a moving head.
 *
 *     build/bench/bench_strands [STRANDS] [SEGMENTS] [FRAMES]   (default 500, 30, 48)
 *
 * Roots spread over the upper half of a head (a sphere of 0.1 m, a collider), each strand
 * 0.3 m long leaving its root along the surface normal; the head (collider and pinned roots
 * together) sways 0.1 m along x and back at 0.5 Hz. 24 frames a second, the world's defaults
 * (strands solve their CG to 1e-6, libsolver/src/strands.h). Output: JSON on stdout with the
 * milliseconds of every frame, their mean, steps and CG iterations. The goal is
 * 50 ms a frame on this machine. mean_cpu_ms is the process's CPU time a frame: on a machine
 * shared with other work the wall clock counts the time others had the core too. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "simbake.h"
#include "testutil.h"

static double clock_seconds(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    int strands = argc > 1 ? atoi(argv[1]) : 500, segments = argc > 2 ? atoi(argv[2]) : 30,
        frames = argc > 3 ? atoi(argv[3]) : 48;
    const double head = 0.1, length = 0.3, golden = 2.399963229728653;
    int nv = strands * (segments + 1);
    double *x = malloc(3 * (size_t)nv * sizeof *x), *roots = malloc(3 * (size_t)strands * sizeof *roots);
    int32_t *counts = malloc((size_t)strands * sizeof *counts), *pins = malloc((size_t)strands * sizeof *pins);
    for (int s = 0; s < strands; s++) {
        /* a Fibonacci spiral over the upper hemisphere */
        double z = 1.0 - (s + 0.5) / strands, r = sqrt(1.0 - z * z), phi = golden * s;
        double n[3] = {r * cos(phi), r * sin(phi), z};
        counts[s] = segments + 1, pins[s] = s * (segments + 1);
        for (int i = 0; i <= segments; i++)
            for (int k = 0; k < 3; k++)
                x[3 * (size_t)(pins[s] + i) + k] = n[k] * (head * 1.01 + length * i / segments);
        for (int k = 0; k < 3; k++) roots[3 * s + k] = x[3 * (size_t)pins[s] + k];
    }
    sb_world_def wd = sb_default_world_def();
    sb_world *w = NULL;
    const double centre[3] = {0, 0, 0};
    solid_mesh ball = sphere_mesh(head, 16, 32, centre);
    sb_collider_def cd = solid_collider_def(&ball);
    sb_strand_def d = sb_default_strand_def();
    d.positions = x, d.vertex_count = nv, d.strand_vertex_counts = counts, d.strand_count = strands;
    d.pins = pins, d.pin_count = strands, d.bend_stiffness = 2e-5, d.mass_per_length = 0.005;
    sb_collider_id ball_id;
    sb_cloth_id id;
    if (sb_world_create(&wd, &w) != SB_OK || sb_world_add_collider(w, &cd, &ball_id) != SB_OK ||
        sb_world_add_strands(w, &d, &id) != SB_OK) {
        fprintf(stderr, "%s\n", sb_last_error());
        return 1;
    }
    double *targets = malloc(3 * (size_t)strands * sizeof *targets);
    double *ball_x = malloc(3 * (size_t)ball.vertex_count * sizeof *ball_x);
    double total = 0.0, cpu_total = 0.0;
    printf("{\"strands\": %d, \"segments\": %d, \"frames\": %d, \"ms\": [", strands, segments, frames);
    for (int f = 1; f <= frames; f++) {
        double t = f / 24.0, dx = 0.1 * sin(2.0 * 3.141592653589793 * 0.5 * t);
        for (int s = 0; s < strands; s++)
            for (int k = 0; k < 3; k++) targets[3 * s + k] = roots[3 * s + k] + (k == 0 ? dx : 0.0);
        for (int i = 0; i < ball.vertex_count; i++)
            for (int k = 0; k < 3; k++) ball_x[3 * i + k] = ball.positions[3 * i + k] + (k == 0 ? dx : 0.0);
        double start = clock_seconds(CLOCK_MONOTONIC), cpu_start = clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
        if (sb_cloth_set_pin_targets(w, id, t, targets, strands) != SB_OK ||
            sb_collider_set_positions(w, ball_id, t, ball_x, ball.vertex_count) != SB_OK || sb_world_step_to(w, t) != SB_OK) {
            fprintf(stderr, "frame %d: %s\n", f, sb_last_error());
            return 1;
        }
        double ms = 1e3 * (clock_seconds(CLOCK_MONOTONIC) - start);
        total += ms;
        cpu_total += 1e3 * (clock_seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu_start);
        printf("%s%.1f", f > 1 ? ", " : "", ms);
    }
    sb_world_stats st;
    sb_world_get_stats(w, &st);
    printf("], \"mean_ms\": %.1f, \"mean_cpu_ms\": %.1f, \"steps\": %lld, \"rejected_steps\": %lld, \"cg_iterations\": %lld}\n",
           total / frames, cpu_total / frames, (long long)st.steps, (long long)st.rejected_steps, (long long)st.cg_iterations);
    sb_world_destroy(w);
    solid_mesh_free(&ball);
    free(x), free(roots), free(counts), free(pins), free(targets), free(ball_x);
    return 0;
}
