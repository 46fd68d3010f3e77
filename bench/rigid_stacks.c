/* Rigid-body cost per frame (24 fps) and quality: a tower of 10 boxes (drift of the top box
 * after 10 s) and piles of boxes dropped in a walled square (median time per frame over the
 * whole drop, deepest overlap of two boxes at the end), and heaps of randomly rotated boxes on an
 * open floor (the heap of bench/blender/addon_share.py: same seed, same layout; the whole bake's
 * seconds beside the median frame's, deepest overlap and how far the boxes still move in the
 * last frame).
 *
 *     build/bench/bench_rigid [pile sizes...] [heapN...]     (default 100 1000) */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "simbake.h"
#include "testutil.h"

/* The world's defaults, but for BENCH_RIGID_SUBSTEPS (rigid substeps a second) and
 * BENCH_RIGID_ITERATIONS (Gauss-Seidel sweeps) when set: the trade between the two. */
static sb_world_def world_def(void)
{
    sb_world_def wd = sb_default_world_def();
    const char *substeps = getenv("BENCH_RIGID_SUBSTEPS"), *iterations = getenv("BENCH_RIGID_ITERATIONS");
    if (substeps && atof(substeps) > 0) wd.rigid_max_step = 1.0 / atof(substeps);
    if (iterations && atoi(iterations) > 0) wd.rigid_iterations = atoi(iterations);
    return wd;
}

static sb_body_id add_turned_box(sb_world *w, int type, const double c[3], const double half[3], const double spin[3],
                                 const double rotation[4])
{
    sb_body_def d = sb_default_body_def();
    d.type = type, d.shape = SB_SHAPE_BOX;
    for (int k = 0; k < 4; k++) d.rotation[k] = rotation[k];
    for (int k = 0; k < 3; k++) d.center[k] = c[k], d.half_extents[k] = half[k], d.angular_velocity[k] = spin[k];
    sb_body_id id = {-1};
    if (sb_world_add_body(w, &d, &id) != SB_OK) {
        fprintf(stderr, "add_body: %s\n", sb_last_error());
        exit(1);
    }
    return id;
}

static sb_body_id add_box(sb_world *w, int type, const double c[3], const double half[3], const double spin[3])
{
    return add_turned_box(w, type, c, half, spin, (double[4]){1, 0, 0, 0});
}

static void add_floor(sb_world *w)
{
    const double c[3] = {0, 0, -0.5}, half[3] = {50, 50, 0.5}, zero[3] = {0};
    add_box(w, SB_BODY_STATIC, c, half, zero);
}

/* Frame times (s) of stepping `frames` frames, sorted. */
static double *run_frames(sb_world *w, int frames)
{
    double *times = malloc(sizeof(double) * (size_t)frames);
    for (int f = 1; f <= frames; f++) {
        double t0 = now();
        if (sb_world_step_to(w, f / 24.0) != SB_OK) {
            fprintf(stderr, "step: %s\n", sb_last_error());
            exit(1);
        }
        times[f - 1] = now() - t0;
    }
    qsort(times, (size_t)frames, sizeof *times, compare_doubles);
    return times;
}

static void tower(void)
{
    sb_world_def wd = world_def();
    sb_world *w = NULL;
    sb_world_create(&wd, &w);
    add_floor(w);
    const double half[3] = {0.25, 0.25, 0.25}, zero[3] = {0};
    sb_body_id top = {-1};
    for (int i = 0; i < 10; i++) {
        double c[3] = {0, 0, 0.25 + 0.5 * i};
        top = add_box(w, SB_BODY_DYNAMIC, c, half, zero);
    }
    sb_body_state s0, s1;
    sb_body_get_state(w, top, &s0);
    double *times = run_frames(w, 240);
    sb_body_get_state(w, top, &s1);
    double drift = sqrt(pow(s1.position[0] - s0.position[0], 2) + pow(s1.position[1] - s0.position[1], 2) +
                        pow(s1.position[2] - s0.position[2], 2));
    printf("| tower of 10 | %.3f | %.3f | top box drift after 10 s: %.2e m |\n", 1e3 * times[120], 1e3 * times[239],
           drift);
    free(times);
    sb_world_destroy(w);
}

static void pile(int count)
{
    sb_world_def wd = world_def();
    sb_world *w = NULL;
    sb_world_create(&wd, &w);
    add_floor(w);
    int side = (int)ceil(sqrt(count / 10.0)); /* ten layers */
    const double half = 0.1, spacing = 0.26, wall = side * spacing * 0.5 + 0.4;
    for (int k = 0; k < 4; k++) {
        double c[3] = {k < 2 ? (k == 0 ? -wall : wall) : 0, k >= 2 ? (k == 2 ? -wall : wall) : 0, 1.5};
        double h[3] = {k < 2 ? 0.2 : wall + 0.2, k < 2 ? wall + 0.2 : 0.2, 1.5};
        add_box(w, SB_BODY_STATIC, c, h, (double[3]){0});
    }
    double (*start)[3] = malloc(sizeof(double[3]) * (size_t)count);
    sb_body_id *ids = malloc(sizeof *ids * (size_t)count);
    uint64_t seed = 12345;
    for (int i = 0; i < count; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        double jitter = ((seed >> 11) * (1.0 / 9007199254740992.0) - 0.5) * 0.04;
        start[i][0] = (i % side - (side - 1) * 0.5) * spacing + jitter;
        start[i][1] = (i / side % side - (side - 1) * 0.5) * spacing - jitter;
        start[i][2] = 0.3 + (i / (side * side)) * spacing;
        double spin[3] = {20 * jitter, -30 * jitter, 0};
        ids[i] = add_box(w, SB_BODY_DYNAMIC, start[i], (double[3]){half, half, half}, spin);
    }
    const int frames = 72;
    double *times = run_frames(w, frames);
    double (*c)[8][3] = malloc(sizeof(double[8][3]) * (size_t)count);
    for (int i = 0; i < count; i++) {
        double m[16];
        sb_body_get_transform(w, ids[i], m);
        box_corners(m, start[i], half, c[i]);
    }
    double deepest = 0;
    for (int i = 0; i < count; i++)
        for (int j = i + 1; j < count; j++)
            if (fabs(c[i][0][0] - c[j][0][0]) < 0.6 && fabs(c[i][0][1] - c[j][0][1]) < 0.6 &&
                fabs(c[i][0][2] - c[j][0][2]) < 0.6)
                deepest = fmax(deepest, box_overlap(c[i], c[j]));
    printf("| pile of %d | %.1f | %.1f | deepest overlap after 3 s: %.2e m (%.2f%% of a box) |\n", count,
           1e3 * times[frames / 2], 1e3 * times[frames - 1], deepest, 100 * deepest / (2 * half));
    free(times), free(start), free(ids), free(c);
    sb_world_destroy(w);
}

/* The LCG of pile(), as a number in [0, 1). */
static double uniform(uint64_t *seed)
{
    *seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
    return (*seed >> 11) * (1.0 / 9007199254740992.0);
}

/* `count` boxes of 0.2 m, each turned by a uniformly random rotation (Shoemake), in layers of
 * 8 x 8 far enough apart that none touch before they fall on an open floor, 72 frames: the
 * heap400 of bench/blender/addon_share.py, number for number. */
static void heap(int count)
{
    sb_world_def wd = world_def();
    sb_world *w = NULL;
    sb_world_create(&wd, &w);
    add_box(w, SB_BODY_STATIC, (double[3]){0, 0, -0.5}, (double[3]){10, 10, 0.5}, (double[3]){0});
    const int side = 8;
    const double half = 0.1, spacing = 0.36, pi = 3.14159265358979323846;
    sb_body_id *ids = malloc(sizeof *ids * (size_t)count);
    double (*start)[8][3] = malloc(sizeof(double[8][3]) * (size_t)count); /* corners as added */
    uint64_t seed = 12345;
    for (int i = 0; i < count; i++) {
        double c[3];
        c[0] = (i % side - (side - 1) * 0.5) * spacing + 0.05 * (uniform(&seed) - 0.5);
        c[1] = (i / side % side - (side - 1) * 0.5) * spacing + 0.05 * (uniform(&seed) - 0.5);
        c[2] = 0.3 + (i / (side * side)) * spacing;
        double u1 = uniform(&seed), u2 = uniform(&seed), u3 = uniform(&seed);
        double a = sqrt(1 - u1), b = sqrt(u1);
        double q[4] = {a * sin(2 * pi * u2), a * cos(2 * pi * u2), b * sin(2 * pi * u3), b * cos(2 * pi * u3)};
        ids[i] = add_turned_box(w, SB_BODY_DYNAMIC, c, (double[3]){half, half, half}, (double[3]){0}, q);
        double r[3][3] = {{1 - 2 * (q[2] * q[2] + q[3] * q[3]), 2 * (q[1] * q[2] - q[0] * q[3]), 2 * (q[1] * q[3] + q[0] * q[2])},
                          {2 * (q[1] * q[2] + q[0] * q[3]), 1 - 2 * (q[1] * q[1] + q[3] * q[3]), 2 * (q[2] * q[3] - q[0] * q[1])},
                          {2 * (q[1] * q[3] - q[0] * q[2]), 2 * (q[2] * q[3] + q[0] * q[1]), 1 - 2 * (q[1] * q[1] + q[2] * q[2])}};
        for (int k = 0; k < 8; k++) {
            double p[3] = {k & 1 ? half : -half, k & 2 ? half : -half, k & 4 ? half : -half};
            for (int a = 0; a < 3; a++) start[i][k][a] = c[a] + r[a][0] * p[0] + r[a][1] * p[1] + r[a][2] * p[2];
        }
    }
    const int frames = 72;
    double t0 = now();
    double *times = run_frames(w, frames - 1); /* frame 1 is the start, as in a bake of 1-72 */
    double whole = now() - t0;
    /* Drift: how far the boxes move in one more frame once the heap has settled. */
    double (*before)[3] = malloc(sizeof(double[3]) * (size_t)count);
    for (int i = 0; i < count; i++) {
        sb_body_state s;
        sb_body_get_state(w, ids[i], &s);
        for (int k = 0; k < 3; k++) before[i][k] = s.position[k];
    }
    sb_world_step_to(w, frames / 24.0);
    double drift = 0;
    for (int i = 0; i < count; i++) {
        sb_body_state s;
        sb_body_get_state(w, ids[i], &s);
        drift = fmax(drift, sqrt(pow(s.position[0] - before[i][0], 2) + pow(s.position[1] - before[i][1], 2) +
                                 pow(s.position[2] - before[i][2], 2)));
    }
    double (*c)[8][3] = malloc(sizeof(double[8][3]) * (size_t)count);
    for (int i = 0; i < count; i++) {
        double m[16];
        sb_body_get_transform(w, ids[i], m); /* moves the body from its pose as added */
        for (int k = 0; k < 8; k++)
            for (int a = 0; a < 3; a++)
                c[i][k][a] = m[4 * a] * start[i][k][0] + m[4 * a + 1] * start[i][k][1] + m[4 * a + 2] * start[i][k][2] +
                             m[4 * a + 3];
    }
    const char *dump = getenv("BENCH_RIGID_DUMP"); /* the final corners, to compare two builds bit for bit */
    if (dump) {
        FILE *f = fopen(dump, "wb");
        if (f) fwrite(c, sizeof(double[8][3]), (size_t)count, f), fclose(f);
    }
    double deepest = 0;
    for (int i = 0; i < count; i++)
        for (int j = i + 1; j < count; j++)
            if (fabs(c[i][0][0] - c[j][0][0]) < 0.6 && fabs(c[i][0][1] - c[j][0][1]) < 0.6 &&
                fabs(c[i][0][2] - c[j][0][2]) < 0.6)
                deepest = fmax(deepest, box_overlap(c[i], c[j]));
    printf("| random heap of %d, open floor | %.1f | %.1f | whole bake %.3f s; deepest overlap after 3 s: %.2e m "
           "(%.2f%% of a box); largest move in the 73rd frame: %.2e m |\n",
           count, 1e3 * times[(frames - 1) / 2], 1e3 * times[frames - 2], whole, deepest, 100 * deepest / (2 * half),
           drift);
    free(times), free(ids), free(start), free(before), free(c);
    sb_world_destroy(w);
}

int main(int argc, char **argv)
{
    printf("| case | median ms/frame | slowest ms/frame | quality |\n|---|---|---|---|\n");
    if (argc > 1 && strncmp(argv[1], "heap", 4) == 0) { /* heaps alone: no tower */
        for (int i = 1; i < argc; i++) heap(atoi(argv[i] + 4));
        return 0;
    }
    tower();
    if (argc > 1)
        for (int i = 1; i < argc; i++) pile(atoi(argv[i]));
    else
        pile(100), pile(1000);
    return 0;
}
