/* Cloth cost against size, SimBake alone, and how close one CG iteration comes to the
 * memory-bandwidth bound of this machine.
 *
 *     build/bench/bench_cloth scaling [MAX_VERTICES] [FRAMES] [ROUNDS]   (default 100000, 40, 3)
 *     build/bench/bench_cloth drape GRID [FRAMES] [blender]
 *     build/bench/bench_cloth bandwidth VERTICES
 *
 * The scene is bench/blender/cloth_vs_blender.py's: a 2 m square cloth (self collision on)
 * dropped from 0.3 m above a UV sphere of 0.5 m (64 x 32). `scaling` drapes SimBake's default
 * cloth at grids from 32 to about sqrt(MAX_VERTICES), in ROUNDS rounds (medians: this VM's
 * speed drifts by a third between runs), and fits time per frame and CG iterations per frame
 * against the vertex count (least squares in log-log): over the whole bake of FRAMES (40, as
 * the side-by-side drape bakes) and, when FRAMES is more, over its first 12 frames alone, the
 * fall and the landing, where the cost grows fastest. On the largest
 * grid it then times CG iterations on the assembled system of the last frame, counts the bytes
 * one iteration must move (matrix blocks and column indices once, every vector the iteration
 * reads or writes), and measures a STREAM-style triad bandwidth with all threads, in turns
 * with the iterations (best of five each): bytes over bandwidth is the bound. A cloth whose
 * iteration fits in the last-level cache is not bound by memory at all, so `bandwidth` times
 * the iterations alone on a flat cloth of VERTICES (bench/run picks one whose iteration moves four times that cache), assembled at rest
 * without a simulation. `drape` runs one grid, with Blender's default cloth carried over by
 * the add-on's mapping when `blender` is given (docs/blender-physics-mapping.md).
 * DUMP=path writes the final positions (raw doubles) there.
 * CGTOL=x and STRAIN=x in the environment set the CG tolerance and max_strain_change (world
 * defaults otherwise); MULTIGRID=0 keeps block Jacobi throughout, MULTIGRID=1 the multigrid
 * (libsolver/src/linalg_cg.h); MULTIGRID_MIN_ROWS=n sets the size from which the choice is made.
 * The bandwidth figures are those of a block-Jacobi iteration, whatever the preconditioner
 * of the bake: it is the iteration the bound describes (the multigrid's V-cycle adds about
 * two more passes over the matrix).
 * Output: JSON on stdout (drape: also the milliseconds and steps of every frame, the wall
 * clock of each part of the steps, and the largest edge strain at the end). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "bench_scene.h"
#include "bench_util.h"
#include "linalg_cg.h"
#include "cloth_step.h"
#include "simbake.h"
#include "world.h"

#define SIZE 2.0
#define RADIUS 0.5
#define DROP 0.3
#define MAX_ROUNDS 9
/* The drape's first frames: six of free fall, the impact (frame 7) and the five after it, the
 * hardest part of the bake; `scaling` fits them apart from the whole. */
enum { FALL_AND_LANDING_FRAMES = 12 };

/* The parts of world.h's phase_seconds, in its order. */
enum { PHASES = 4 };
static const char *const phase_names[PHASES] = {"assembly", "solve", "pairs", "response"};

typedef struct drape_result {
    int grid, vertices, frames;
    double ms_per_frame, cg_per_frame, steps_per_frame, total_seconds;
    double max_edge_strain; /* at the end: largest |length / rest length - 1| of a triangle edge */
    int64_t rejected_steps;
    int64_t steps, strain_violations; /* accepted steps, and those that ended beyond the strain limit */
    double *frame_ms;       /* per frame, in order */
    int32_t *frame_steps;   /* accepted and rejected steps per frame */
    double phases[PHASES];  /* where the bake's time went, s (phase_names) */
    sb_world *world; /* kept for the CG timing */
    double lowest, clearance; /* at the end: the lowest vertex's height, the least distance of a vertex
                               * from the sphere's centre less its radius (m) */
} drape_result;

/* Blender's default cloth (cotton: vertex mass 0.3 kg, tension and shear 15 and 5, bending
 * 0.5, tension damping 5, air 1, collision distance 0.015, self distance 0.015) as the add-on carries it over. */
static void blender_material(sb_cloth_def *cd, int grid)
{
    double n = (double)grid * grid, area = SIZE * SIZE, edge = SIZE / (grid - 1), time_unit = sqrt(0.001);
    cd->density = 0.3 * n / area;
    cd->stretch_stiffness = 1000.0 * 15.0 / edge;
    cd->shear_stiffness = 1000.0 * 5.0 / edge;
    cd->bend_stiffness = 1000.0 * 0.05 * 0.5 * edge * edge / 3.0;
    cd->damping = (5.0 / time_unit) * edge / (1000.0 * 15.0);
    cd->air_drag = 0.01 * 1.0 / time_unit * n / area;
    cd->thickness = 0.015;
    cd->self_thickness = 0.0075; /* half of Blender's self distance 0.015 */
    cd->friction = 1.0;
}

static drape_result drape(int n, int frames, int blender, const double *sp, const int32_t *st, int32_t snv,
                          int32_t snt)
{
    double *pos;
    int32_t *tris, nv, nt;
    grid(n, SIZE, RADIUS + DROP, &pos, &tris, &nv, &nt);
    sb_world_def wd = sb_default_world_def();
    if (getenv("CGTOL")) wd.cg_tolerance = atof(getenv("CGTOL"));
    if (getenv("STRAIN")) wd.max_strain_change = atof(getenv("STRAIN"));
    sb_world *w = NULL;
    sb_cloth_def cd = sb_default_cloth_def();
    cd.vertex_count = nv, cd.positions = pos, cd.triangle_count = nt, cd.triangles = tris;
    cd.self_collision = 1;
    if (blender) blender_material(&cd, n);
    if (getenv("MAXSTRETCH")) cd.max_stretch = cd.max_compression = atof(getenv("MAXSTRETCH"));
    sb_collider_def kd = sb_default_collider_def();
    kd.vertex_count = snv, kd.positions = sp, kd.triangle_count = snt, kd.triangles = st;
    if (blender) kd.thickness = 0.02, kd.friction = 0.05; /* Collision modifier defaults, mapped */
    sb_cloth_id cloth_id;
    sb_collider_id collider_id;
    if (sb_world_create(&wd, &w) || sb_world_add_cloth(w, &cd, &cloth_id) ||
        sb_world_add_collider(w, &kd, &collider_id)) {
        fprintf(stderr, "%s\n", sb_last_error());
        exit(1);
    }
    if (getenv("MULTIGRID"))
        w->cloths[0]->scratch.cg.multigrid_mode = atoi(getenv("MULTIGRID")) ? CG_MULTIGRID_ALWAYS : CG_MULTIGRID_NEVER;
    if (getenv("MULTIGRID_MIN_ROWS")) w->cloths[0]->scratch.cg.multigrid_min_rows = atoi(getenv("MULTIGRID_MIN_ROWS"));
    double *times = malloc(sizeof(double) * (size_t)frames), *frame_ms = malloc(sizeof(double) * (size_t)frames);
    int32_t *frame_steps = malloc(sizeof(int32_t) * (size_t)frames);
    sb_world_stats stats = {0};
    for (int f = 1; f <= frames; f++) {
        int64_t before = stats.steps + stats.rejected_steps;
        double t0 = now();
        if (sb_world_step_to(w, f / 24.0) != SB_OK) {
            fprintf(stderr, "grid %d, frame %d: %s\n", n, f, sb_last_error());
            exit(1);
        }
        times[f - 1] = frame_ms[f - 1] = 1e3 * (now() - t0);
        sb_world_get_stats(w, &stats);
        frame_steps[f - 1] = (int32_t)(stats.steps + stats.rejected_steps - before);
    }
    double total = 0.0;
    for (int f = 0; f < frames; f++) total += times[f];
    qsort(times, (size_t)frames, sizeof *times, compare_doubles);
    drape_result r = {n, nv, frames, times[frames / 2], (double)stats.cg_iterations / frames,
                      (double)stats.steps / frames, total / 1e3, max_edge_strain(pos, w->cloths[0]->state.x, tris, nt),
                      stats.rejected_steps, stats.steps, stats.strain_violations, frame_ms, frame_steps,
                      {w->phases.assembly, w->phases.solve, w->phases.pairs, w->phases.response}, w};
    const double *x = w->cloths[0]->state.x;
    r.lowest = r.clearance = INFINITY;
    for (int32_t i = 0; i < nv; i++) {
        const double *p = &x[3 * (size_t)i];
        r.lowest = fmin(r.lowest, p[2]);
        r.clearance = fmin(r.clearance, sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]) - RADIUS);
    }
    /* DUMP=path: the final positions, raw doubles, to compare bakes (of CG tolerances, say) */
    FILE *dump = getenv("DUMP") ? fopen(getenv("DUMP"), "wb") : NULL;
    if (dump) fwrite(x, sizeof *x, 3 * (size_t)nv, dump), fclose(dump);
    free(times), free(pos), free(tris);
    return r;
}

/* Seconds of one triad a = b + s c over `count` elements (24 bytes per element: two reads
 * and a write; stores that allocate a line cost another read, so this is what a streaming
 * kernel really gets). */
static double triad_seconds(double *a, const double *b, const double *c, size_t count)
{
    double t0 = now();
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < count; i++) a[i] = b[i] + 3.0 * c[i];
    double t = now() - t0;
    volatile double sink = a[count / 2];
    (void)sink;
    return t;
}

/* Bytes one iteration of cg_solve moves: the matrix once (9 doubles and a column index per
 * block, a row start per row), x read and y written by the product, and per vertex of 3
 * doubles: filter(q) 2, c·q 2, x and r updates 6, preconditioner 3 + its 9-double block,
 * r·s 2, c update 3, filter(c) 2 (reads and writes of 3-vectors), plus the filter kinds. */
static double cg_iteration_bytes(const bsr *a)
{
    double n = a->n, blocks = a->block_count;
    double matrix = blocks * (9 * 8 + 4) + (n + 1) * 4;
    double vectors = n * 24.0 * (2 + 2 + 2 + 6 + 3 + 2 + 3 + 2) + n * 72.0;
    return matrix + vectors + 2 * n; /* kinds read twice, 1 byte each */
}

/* Times CG iterations on the system of the cloth's current state, best of five, and with
 * `bandwidth` also a STREAM-style triad (all threads, arrays far larger than the caches)
 * before each, best of five, in GB/s: taken in turns, both meet the same spells of a shared
 * machine (measured minutes apart, the triad swung from 31 to 62 GB/s on this VM). */
static void time_cg(sb_world *w, double *ms_per_iteration, double *bytes, double *bandwidth)
{
    cloth *c = w->cloths[0];
    implicit_params params = {{w->def.gravity[0], w->def.gravity[1], w->def.gravity[2]}, 0, 0, 0, 0};
    cloth_build_system(c, w->time, 1.0 / 24.0, &params);
    size_t len = 3 * (size_t)c->model.vertex_count, count = bandwidth ? (size_t)32 << 20 : 0; /* 256 MB per array */
    double *x = calloc(len, sizeof *x), best = INFINITY, best_triad = INFINITY;
    double *ta = malloc(count * sizeof *ta), *tb = malloc(count * sizeof *tb), *tc = malloc(count * sizeof *tc);
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < count; i++) ta[i] = 0.0, tb[i] = 1.0, tc[i] = 2.0;
    cg_filter filter = {c->scratch.filter_kind, c->scratch.filter_proj};
    cg_multigrid_mode multigrid_mode = c->scratch.cg.multigrid_mode;
    c->scratch.cg.multigrid_mode = CG_MULTIGRID_NEVER;
    enum { ITERATIONS = 50 };
    for (int r = 0; r < 5; r++) {
        if (bandwidth) best_triad = fmin(best_triad, triad_seconds(ta, tb, tc, count));
        memset(x, 0, len * sizeof *x);
        double t0 = now();
        cg_result res = cg_solve(&c->scratch.system, c->scratch.rhs, &filter, c->scratch.z, x, 0.0, ITERATIONS, &c->scratch.cg, &c->state.cg);
        double t = (now() - t0) / (res.iterations > 0 ? res.iterations : 1);
        best = fmin(best, t);
    }
    free(x), free(ta), free(tb), free(tc);
    c->scratch.cg.multigrid_mode = multigrid_mode;
    *ms_per_iteration = 1e3 * best;
    *bytes = cg_iteration_bytes(&c->scratch.system);
    if (bandwidth) *bandwidth = 24.0 * (double)count / best_triad / 1e9;
}

static int threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

static void print_drape(const drape_result *r)
{
    printf("{\"grid\": %d, \"vertices\": %d, \"frames\": %d, \"ms_per_frame\": %.6g, \"cg_iterations_per_frame\": "
           "%.6g, \"steps_per_frame\": %.6g",
           r->grid, r->vertices, r->frames, r->ms_per_frame, r->cg_per_frame, r->steps_per_frame);
    printf(", \"lowest_m\": %.6g, \"sphere_clearance_m\": %.6g", r->lowest, r->clearance);
    printf(", \"seconds\": %.6g, \"max_edge_strain\": %.4g, \"rejected_steps\": %lld, \"steps\": %lld, "
           "\"strain_violations\": %lld, \"frame_ms\": [",
           r->total_seconds, r->max_edge_strain, (long long)r->rejected_steps, (long long)r->steps,
           (long long)r->strain_violations);
    for (int f = 0; f < r->frames; f++) printf("%s%.4g", f ? ", " : "", r->frame_ms[f]);
    printf("], \"frame_steps\": [");
    for (int f = 0; f < r->frames; f++) printf("%s%d", f ? ", " : "", (int)r->frame_steps[f]);
    printf("], \"phase_seconds\": {");
    for (int p = 0; p < PHASES; p++) printf("%s\"%s\": %.6g", p ? ", " : "", phase_names[p], r->phases[p]);
    printf("}");
}

/* The bandwidth bound of a CG iteration as a JSON object: the bytes it moves over a triad's
 * bandwidth, against the time it took. */
static void print_bound(double bytes, int vertices, double ms_iter, double bandwidth)
{
    double bound = 1e3 * bytes / (bandwidth * 1e9);
    printf("{\"threads\": %d, \"stream_gb_per_s\": %.4g, \"bytes_per_cg_iteration\": %.6g, \"vertices\": %d, "
           "\"bound_ms\": %.6g, \"measured_ms\": %.6g, \"ratio\": %.4g}",
           threads(), bandwidth, bytes, vertices, bound, ms_iter, ms_iter / bound);
}

/* Times CG iterations on a flat default cloth of about `vertices` (pinned along one side so
 * the system has filters as in a bake) against the triad bound. */
static void print_bandwidth(int vertices)
{
    int n = (int)ceil(sqrt((double)vertices));
    double *pos;
    int32_t *tris, nv, nt;
    grid(n, SIZE, 1.0, &pos, &tris, &nv, &nt);
    int32_t *pins = malloc(sizeof(int32_t) * (size_t)n);
    for (int i = 0; i < n; i++) pins[i] = i;
    sb_world_def wd = sb_default_world_def();
    sb_cloth_def cd = sb_default_cloth_def();
    cd.vertex_count = nv, cd.positions = pos, cd.triangle_count = nt, cd.triangles = tris;
    cd.pin_count = n, cd.pins = pins;
    sb_world *w = NULL;
    sb_cloth_id id;
    if (sb_world_create(&wd, &w) || sb_world_add_cloth(w, &cd, &id)) {
        fprintf(stderr, "%s\n", sb_last_error());
        exit(1);
    }
    double ms_iter = 0, bytes = 0, bandwidth = 0;
    time_cg(w, &ms_iter, &bytes, &bandwidth);
    print_bound(bytes, nv, ms_iter, bandwidth);
    printf("\n");
    sb_world_destroy(w);
    free(pos), free(tris), free(pins);
}

/* The median of `count` values (sorted in place). */
static double median(double *values, int count)
{
    qsort(values, (size_t)count, sizeof *values, compare_doubles);
    return count % 2 ? values[count / 2] : 0.5 * (values[count / 2 - 1] + values[count / 2]);
}

/* Drapes every grid once per round, the grids in turn within a round, so that a slow spell of
 * the machine falls on all of them alike; a grid's times are the medians over its rounds
 * (each frame's too), the steps and iterations are the same in every round. The CG iteration
 * is timed on the last round's largest grid. */
static void scaling(double max_vertices, int frames, int rounds, const double *sp, const int32_t *st, int32_t snv,
                    int32_t snt)
{
    int grids[8], count = 0;
    for (int g = 32; g * g <= max_vertices * 1.0001 && count < 7; g *= 2) grids[count++] = g;
    int largest = (int)floor(sqrt(max_vertices));
    if (count == 0 || largest > grids[count - 1] * 1.2) grids[count++] = largest;
    drape_result runs[8][MAX_ROUNDS];
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < count; i++) {
            runs[i][r] = drape(grids[i], frames, 0, sp, st, snv, snt);
            if (r + 1 < rounds) sb_world_destroy(runs[i][r].world), runs[i][r].world = NULL;
        }
    double logn[8], logt[8], logm[8], logl[8], logc[8], logp[PHASES][8], ms_iter = 0, bytes = 0, bandwidth = 0;
    int first = FALL_AND_LANDING_FRAMES;
    bool apart = frames > first; /* else the first frames are the whole bake */
    double values[MAX_ROUNDS];
    printf("{\"threads\": %d, \"rounds\": %d, \"points\": [", threads(), rounds);
    for (int i = 0; i < count; i++) {
        drape_result r = runs[i][rounds - 1];
        for (int k = 0; k < rounds; k++) values[k] = runs[i][k].ms_per_frame;
        r.ms_per_frame = median(values, rounds);
        for (int k = 0; k < rounds; k++) values[k] = runs[i][k].total_seconds;
        double round_seconds[MAX_ROUNDS];
        memcpy(round_seconds, values, sizeof values);
        r.total_seconds = median(values, rounds);
        for (int k = 0; k < rounds && apart; k++) {
            values[k] = 0.0;
            for (int f = 0; f < first; f++) values[k] += runs[i][k].frame_ms[f] / first;
        }
        double first_ms = apart ? median(values, rounds) : 0.0;
        for (int f = 0; f < frames; f++) {
            for (int k = 0; k < rounds; k++) values[k] = runs[i][k].frame_ms[f];
            r.frame_ms[f] = median(values, rounds);
        }
        /* the parts of the median round (the mean of the middle two for an even count), so
         * that they add up within the median whole */
        int order[MAX_ROUNDS];
        for (int k = 0; k < rounds; k++) {
            int at = k;
            for (; at > 0 && runs[i][order[at - 1]].total_seconds > runs[i][k].total_seconds; at--) order[at] = order[at - 1];
            order[at] = k;
        }
        for (int phase = 0; phase < PHASES; phase++) {
            double middle = runs[i][order[rounds / 2]].phases[phase];
            if (rounds % 2 == 0) middle = 0.5 * (middle + runs[i][order[rounds / 2 - 1]].phases[phase]);
            r.phases[phase] = middle;
            logp[phase][i] = log(fmax(middle, 1e-9) / r.frames);
        }
        time_cg(r.world, &ms_iter, &bytes, i + 1 == count ? &bandwidth : NULL);
        print_drape(&r);
        printf(", \"round_seconds\": [");
        for (int k = 0; k < rounds; k++) printf("%s%.6g", k ? ", " : "", round_seconds[k]);
        printf("]");
        if (apart) printf(", \"fall_and_landing_ms_per_frame\": %.6g", first_ms);
        printf(", \"ms_per_cg_iteration\": %.6g, \"bytes_per_cg_iteration\": %.6g}%s\n", ms_iter, bytes,
               i + 1 < count ? "," : "");
        logn[i] = log((double)r.vertices), logt[i] = log(r.ms_per_frame), logc[i] = log(r.cg_per_frame);
        logm[i] = log(r.total_seconds / r.frames);
        logl[i] = apart ? log(first_ms) : 0.0;
        for (int k = 0; k < rounds; k++) free(runs[i][k].frame_ms), free(runs[i][k].frame_steps);
        if (i + 1 < count) sb_world_destroy(r.world);
    }
    printf("], \"exponent_time\": %.4f, \"exponent_time_mean\": %.4f, ", count > 1 ? slope(logn, logt, count) : 0.0,
           count > 1 ? slope(logn, logm, count) : 0.0);
    if (apart)
        printf("\"fall_and_landing_frames\": %d, \"exponent_time_fall_and_landing\": %.4f, ", first,
               count > 1 ? slope(logn, logl, count) : 0.0);
    printf("\"exponent_cg\": %.4f, \"exponent_phases\": {", count > 1 ? slope(logn, logc, count) : 0.0);
    for (int phase = 0; phase < PHASES; phase++)
        printf("%s\"%s\": %.4f", phase ? ", " : "", phase_names[phase], count > 1 ? slope(logn, logp[phase], count) : 0.0);
    printf("}, \"bandwidth\": ");
    print_bound(bytes, runs[count - 1][rounds - 1].vertices, ms_iter, bandwidth);
    printf("}\n");
    sb_world_destroy(runs[count - 1][rounds - 1].world);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "scaling";
    double *sp;
    int32_t *st, snv, snt;
    sphere(RADIUS, 32, 64, &sp, &st, &snv, &snt);
    if (strcmp(mode, "drape") == 0 && argc > 2) {
        int frames = argc > 3 ? atoi(argv[3]) : 40;
        drape_result r = drape(atoi(argv[2]), frames, argc > 4 && strcmp(argv[4], "blender") == 0, sp, st, snv, snt);
        print_drape(&r);
        printf("}\n");
        sb_world_destroy(r.world);
        free(r.frame_ms), free(r.frame_steps);
    } else if (strcmp(mode, "scaling") == 0) {
        double max_vertices = argc > 2 ? atof(argv[2]) : 100000.0;
        int frames = argc > 3 ? atoi(argv[3]) : 40, rounds = argc > 4 ? atoi(argv[4]) : 3;
        if (frames < 1 || rounds < 1 || rounds > MAX_ROUNDS) {
            fprintf(stderr, "scaling: FRAMES must be at least 1 and ROUNDS within 1..%d\n", MAX_ROUNDS);
            return 2;
        }
        scaling(max_vertices, frames, rounds, sp, st, snv, snt);
    } else if (strcmp(mode, "bandwidth") == 0 && argc > 2) {
        print_bandwidth(atoi(argv[2]));
    } else {
        fprintf(stderr, "usage: bench_cloth scaling [MAX_VERTICES] [FRAMES] [ROUNDS] | drape GRID [FRAMES] [blender] | "
                        "bandwidth VERTICES\n");
        return 2;
    }
    free(sp), free(st);
    return 0;
}
