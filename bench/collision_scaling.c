/* Collision cost per step against triangle count.
 *
 * For each resolution a square cloth (self collision on) is draped over a sphere for 0.5 s;
 * then the collision response of one step (BVH refit and pair queries, proximity, continuous
 * detection and impulses) is timed on that draped state, median of several repetitions.
 * Prints a table and the fitted exponent of time against triangle count, next to n log n.
 *
 *     build/bench/bench_collision [max_grid]        (default 256: 130k triangles) */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collision_response.h"
#include "bench_scene.h"
#include "bench_util.h"
#include "simbake.h"
#include "world.h"

int main(int argc, char **argv)
{
    int max_grid = argc > 1 ? atoi(argv[1]) : 256;
    double *sp;
    int32_t *st, snv, snt;
    sphere(0.5, 32, 64, &sp, &st, &snv, &snt);
    printf("%8s %10s %12s %16s\n", "grid", "triangles", "ms/step", "us/(n log2 n)");
    double logn[16], logt[16], lognlogn[16];
    int rows = 0;
    for (int n = 16; n <= max_grid; n *= 2) {
        double *pos;
        int32_t *tris, nv, nt;
        grid(n, 1.2, 0.55, &pos, &tris, &nv, &nt);
        sb_world_def wd = sb_default_world_def();
        sb_world *w;
        sb_world_create(&wd, &w);
        sb_cloth_def cd = sb_default_cloth_def();
        cd.vertex_count = nv, cd.positions = pos, cd.triangle_count = nt, cd.triangles = tris;
        cd.self_collision = 1;
        cd.thickness = 0.3 * 1.2 / (n - 1); /* thinner than the mesh spacing at every resolution */
        sb_cloth_id cloth_id;
        sb_collider_id collider_id;
        sb_collider_def kd = sb_default_collider_def();
        kd.vertex_count = snv, kd.positions = sp, kd.triangle_count = snt, kd.triangles = st;
        if (sb_world_add_cloth(w, &cd, &cloth_id) || sb_world_add_collider(w, &kd, &collider_id)) {
            fprintf(stderr, "%s\n", sb_last_error());
            return 1;
        }
        for (int f = 1; f <= 12; f++)
            if (sb_world_step_to(w, f / 24.0) != SB_OK) {
                fprintf(stderr, "%s\n", sb_last_error());
                return 1;
            }
        /* time the response of one more step on the draped state */
        double h = 1.0 / 24.0, samples[7];
        cloth *c = w->cloths[0];
        collider_prepare_step(w->colliders[0], w->time, h);
        for (int r = 0; r < 7; r++) {
            for (int32_t i = 0; i < 3 * nv; i++) c->scratch.x_new[i] = c->state.x[i] + h * c->state.v[i], c->scratch.v_new[i] = c->state.v[i];
            collision_report report;
            double t0 = now();
            collisions_resolve(&w->collision, w->cloths, 1, w->colliders, 1, h, true, false, &report);
            samples[r] = now() - t0;
        }
        qsort(samples, 7, sizeof *samples, compare_doubles);
        double median = samples[3];
        printf("%8d %10d %12.3f %16.4f\n", n, nt, 1e3 * median, 1e6 * median / (nt * log2((double)nt)));
        logn[rows] = log((double)nt), logt[rows] = log(median), lognlogn[rows] = log(nt * log2((double)nt)), rows++;
        sb_world_destroy(w);
        free(pos), free(tris);
    }
    printf("fitted exponent: time ~ n^%.2f; n log n over the same range fits n^%.2f\n", slope(logn, logt, rows),
           slope(logn, lognlogn, rows));
    free(sp), free(st);
    return 0;
}
