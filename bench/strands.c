/* Strands' cost: issue 31's bench, 500 strands of 30 segments on a moving head, and a rope.
 *
 *     build/bench/bench_strands [STRANDS] [SEGMENTS] [FRAMES]   (default 500, 30, 48)
 *     build/bench/bench_strands rope [SEGMENTS] [FRAMES]        (default 100, 48)
 *
 * Roots spread over the upper half of a head (a sphere of 0.1 m, a collider), each strand
 * 0.3 m long leaving its root along the surface normal; the head (collider and pinned roots
 * together) sways 0.1 m along x and back at 0.5 Hz. 24 frames a second, the world's defaults
 * (strands solve their CG to 1e-6, libsolver/src/strands.h). Output: JSON on stdout with the
 * milliseconds of every frame, their mean, steps and CG iterations. The goal is
 * 50 ms a frame on this machine. mean_cpu_ms is the process's CPU time a frame: on a machine
 * shared with other work the wall clock counts the time others had the core too.
 *
 * rope: a 2 m rope of SEGMENTS segments pinned at one end, released horizontally across a
 * steady wind (8 N/m² along y, flow 0.5: a wind of 16 m/s on a drag of 0.5 kg/(m s) a metre),
 * so it swings down and is blown sideways. Its output adds max_length_change, the largest
 * |length / 2 m - 1| at a frame. Both leave the strain limit at the library's default (10%). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "simbake.h"
#include "testutil.h"

static double clock_seconds(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The frame's timing into the running sums; false (message printed) when the step failed. */
static bool timed_step(sb_world *w, double t, int frame, double *total, double *cpu_total)
{
    double start = clock_seconds(CLOCK_MONOTONIC), cpu_start = clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
    if (sb_world_step_to(w, t) != SB_OK) {
        fprintf(stderr, "frame %d: %s\n", frame, sb_last_error());
        return false;
    }
    double ms = 1e3 * (clock_seconds(CLOCK_MONOTONIC) - start);
    *total += ms;
    *cpu_total += 1e3 * (clock_seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu_start);
    printf("%s%.2f", frame > 1 ? ", " : "", ms);
    return true;
}

static void print_stats(const sb_world *w, double total, double cpu_total, int frames)
{
    sb_world_stats st;
    sb_world_get_stats(w, &st);
    printf("\"mean_ms\": %.2f, \"mean_cpu_ms\": %.2f, \"steps\": %lld, \"rejected_steps\": %lld, "
           "\"cg_iterations\": %lld}\n", total / frames, cpu_total / frames, (long long)st.steps,
           (long long)st.rejected_steps, (long long)st.cg_iterations);
}

static int rope(int segments, int frames)
{
    const double length = 2.0;
    int nv = segments + 1;
    int32_t count = nv, pin = 0;
    double *x = malloc(3 * (size_t)nv * sizeof *x);
    for (int i = 0; i < nv; i++) x[3 * i] = length * i / segments, x[3 * i + 1] = 0.0, x[3 * i + 2] = 2.0;
    sb_world_def wd = sb_default_world_def();
    sb_strand_def d = sb_default_strand_def();
    d.positions = x, d.vertex_count = nv, d.strand_vertex_counts = &count, d.strand_count = 1;
    d.pins = &pin, d.pin_count = 1;
    sb_field_def wind = sb_default_field_def();
    wind.type = SB_FIELD_WIND, wind.strength = 8.0, wind.flow = 0.5;
    wind.axis[0] = 0.0, wind.axis[1] = 1.0, wind.axis[2] = 0.0;
    sb_world *w = NULL;
    sb_cloth_id id;
    sb_field_id field;
    if (sb_world_create(&wd, &w) != SB_OK || sb_world_add_strands(w, &d, &id) != SB_OK ||
        sb_world_add_field(w, &wind, &field) != SB_OK) {
        fprintf(stderr, "%s\n", sb_last_error());
        return 1;
    }
    double total = 0.0, cpu_total = 0.0, worst = 0.0;
    printf("{\"case\": \"rope\", \"segments\": %d, \"frames\": %d, \"ms\": [", segments, frames);
    for (int f = 1; f <= frames; f++) {
        if (!timed_step(w, f / 24.0, f, &total, &cpu_total)) return 1;
        sb_cloth_get_positions(w, id, x, nv);
        double l = 0.0;
        for (int i = 0; i < segments; i++)
            l += sqrt(pow(x[3 * i + 3] - x[3 * i], 2) + pow(x[3 * i + 4] - x[3 * i + 1], 2) +
                      pow(x[3 * i + 5] - x[3 * i + 2], 2));
        worst = fmax(worst, fabs(l / length - 1.0));
    }
    printf("], \"max_length_change\": %.5f, ", worst);
    print_stats(w, total, cpu_total, frames);
    sb_world_destroy(w);
    free(x);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "rope") == 0)
        return rope(argc > 2 ? atoi(argv[2]) : 100, argc > 3 ? atoi(argv[3]) : 48);
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
    /* BENCH_STRAND_SELF_COLLISION=0 or 1: the strands against each other (default: the library's) */
    if (getenv("BENCH_STRAND_SELF_COLLISION")) d.self_collision = atoi(getenv("BENCH_STRAND_SELF_COLLISION"));
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
    printf("{\"case\": \"head\", \"strands\": %d, \"segments\": %d, \"frames\": %d, \"ms\": [", strands, segments, frames);
    for (int f = 1; f <= frames; f++) {
        double t = f / 24.0, dx = 0.1 * sin(2.0 * 3.141592653589793 * 0.5 * t);
        for (int s = 0; s < strands; s++)
            for (int k = 0; k < 3; k++) targets[3 * s + k] = roots[3 * s + k] + (k == 0 ? dx : 0.0);
        for (int i = 0; i < ball.vertex_count; i++)
            for (int k = 0; k < 3; k++) ball_x[3 * i + k] = ball.positions[3 * i + k] + (k == 0 ? dx : 0.0);
        if (sb_cloth_set_pin_targets(w, id, t, targets, strands) != SB_OK ||
            sb_collider_set_positions(w, ball_id, t, ball_x, ball.vertex_count) != SB_OK) {
            fprintf(stderr, "frame %d: %s\n", f, sb_last_error());
            return 1;
        }
        if (!timed_step(w, t, f, &total, &cpu_total)) return 1;
    }
    printf("], ");
    print_stats(w, total, cpu_total, frames);
    sb_world_destroy(w);
    solid_mesh_free(&ball);
    free(x), free(roots), free(counts), free(pins), free(targets), free(ball_x);
    return 0;
}
