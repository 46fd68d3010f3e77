/* sb_world_def.threads: a world's calls run on its own thread count and give the caller's
 * OpenMP setting back, on every path; results are the same bits on any count. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "simbake.h"
#include "testutil.h"
#include "threads.h"

Test(threads, the_count_is_checked)
{
    sb_world_def d = sb_default_world_def();
    cr_assert_eq(d.threads, 0, "the default is OpenMP's own number");
    sb_world *w = NULL;
    int32_t refused[] = {-1, MAX_THREADS + 1, INT32_MIN};
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        d.threads = refused[i];
        cr_assert_eq(sb_world_create(&d, &w), SB_ERROR_INVALID_ARGUMENT, "threads %d", refused[i]);
        cr_assert(strstr(sb_last_error(), "threads"), "%s", sb_last_error());
        cr_assert_null(w);
    }
    d.threads = MAX_THREADS;
    cr_assert_eq(sb_world_create(&d, &w), SB_OK, "%s", sb_last_error());
    sb_world_destroy(w);
}

#ifdef _OPENMP
#include <omp.h>

/* The thread counts set since the last forget_counts, the library's and the test's: this
 * test is linked with --wrap=omp_set_num_threads (tests/CMakeLists.txt). */
static int counts_set[8], count_sets;
void __real_omp_set_num_threads(int threads);
void __wrap_omp_set_num_threads(int threads);
void __wrap_omp_set_num_threads(int threads)
{
    if (count_sets < 8) counts_set[count_sets] = threads;
    count_sets++;
    __real_omp_set_num_threads(threads);
}

static void forget_counts(void) { count_sets = 0; }

/* The last call set the thread count to `during` and then back to `after`. */
static void expect_counts(int during, int after, const char *call)
{
    cr_assert(count_sets == 2 && counts_set[0] == during && counts_set[1] == after,
              "%s set the thread count %d times (%d, %d), expected to %d and back to %d", call, count_sets,
              counts_set[0], counts_set[1], during, after);
}

Test(threads, enter_sets_the_count_and_leave_gives_the_callers_back)
{
    int saved = omp_get_max_threads();
    omp_set_num_threads(3);
    int32_t previous = threads_enter(2);
    cr_assert_eq(previous, 3);
    cr_assert_eq(omp_get_max_threads(), 2);
    threads_leave(previous);
    cr_assert_eq(omp_get_max_threads(), 3);
    previous = threads_enter(0); /* 0: the caller's count stands */
    cr_assert_eq(omp_get_max_threads(), 3);
    threads_leave(previous);
    cr_assert_eq(omp_get_max_threads(), 3);
    omp_set_num_threads(saved);
}

/* The determinism tests' swinging cloth (test_colouring: 72 x 72 is above every parallel
 * threshold of a cloth step; 36 x 36 under valgrind), here with self collision (its rest
 * neighbours are searched in parallel when it is added), over a sphere collider, beside a
 * body. */
#define GRID (test_quick() ? 36 : 72)
#define CALLER_THREADS 3

typedef struct scene {
    sb_world *world;
    grid_mesh grid;
    solid_mesh ball;
    int32_t pins[2];
    sb_cloth_id cloth;
} scene;

/* Every call that can run parallel code leaves the caller's OpenMP count as it was. */
#define CALL(call)                                                                                          \
    do {                                                                                                    \
        cr_assert_eq((call), SB_OK, "%s: %s", #call, sb_last_error());                                     \
        cr_assert_eq(omp_get_max_threads(), CALLER_THREADS, "%s changed the caller's thread count", #call); \
    } while (0)

static scene build(int32_t threads)
{
    scene s = {.grid = grid_mesh_make(GRID, 1.0, 1.0), .pins = {0, GRID - 1}};
    s.ball = sphere_mesh(0.2, 8, 16, (double[3]){0.0, 0.0, 0.5});
    sb_world_def wd = sb_default_world_def();
    wd.threads = threads;
    CALL(sb_world_create(&wd, &s.world));
    sb_cloth_def cd = grid_cloth_def(&s.grid);
    cd.pin_count = 2, cd.pins = s.pins;
    cd.self_collision = 1;
    CALL(sb_world_add_cloth(s.world, &cd, &s.cloth));
    sb_collider_def kd = solid_collider_def(&s.ball);
    sb_collider_id ball;
    CALL(sb_world_add_collider(s.world, &kd, &ball));
    sb_body_def bd = sb_default_body_def();
    bd.type = SB_BODY_STATIC, bd.shape = SB_SHAPE_SPHERE, bd.radius = 0.1, bd.center[0] = 5.0;
    sb_body_id body;
    CALL(sb_world_add_body(s.world, &bd, &body));
    return s;
}

static void free_scene(scene *s)
{
    sb_world_destroy(s->world);
    grid_mesh_free(&s->grid);
    solid_mesh_free(&s->ball);
}

static double *positions(const scene *s)
{
    double *x = malloc(3 * (size_t)s->grid.vertex_count * sizeof *x);
    CALL(sb_cloth_get_positions(s->world, s->cloth, x, s->grid.vertex_count));
    return x;
}

static void expect_same(const scene *a, const scene *b, const char *what)
{
    double *xa = positions(a), *xb = positions(b);
    cr_assert(memcmp(xa, xb, 3 * (size_t)a->grid.vertex_count * sizeof *xa) == 0, "%s: positions differ", what);
    sb_world_stats sa, sb;
    CALL(sb_world_get_stats(a->world, &sa));
    CALL(sb_world_get_stats(b->world, &sb));
    cr_assert(sa.steps == sb.steps && sa.cg_iterations == sb.cg_iterations && sa.collisions == sb.collisions,
              "%s: %lld and %lld steps, %lld and %lld CG iterations", what, (long long)sa.steps,
              (long long)sb.steps, (long long)sa.cg_iterations, (long long)sb.cg_iterations);
    free(xa), free(xb);
}

Test(threads, worlds_of_one_and_two_threads_step_to_the_same_bits_and_leave_the_callers_count, .timeout = 300)
{
    int saved = omp_get_max_threads();
    omp_set_num_threads(CALLER_THREADS); /* neither world's count: a call that kept it would show */
    scene one = build(1), two = build(2);
    for (int f = 1; f <= 3; f++) {
        forget_counts();
        CALL(sb_world_step_to(one.world, f / 24.0));
        expect_counts(1, CALLER_THREADS, "a step of the world of one thread");
        forget_counts();
        CALL(sb_world_step_to(two.world, f / 24.0));
        expect_counts(2, CALLER_THREADS, "a step of the world of two threads");
    }
    expect_same(&one, &two, "one thread or two");
    double *x = positions(&one);
    int32_t middle = GRID * (GRID / 2) + GRID / 2;
    cr_assert_lt(x[3 * middle + 2], 0.95, "the cloth did not swing down (z %g)", x[3 * middle + 2]);
    free(x);

    /* a state saved on two threads goes on alike in a world of one: the count is not part of it */
    uint64_t size = 0;
    CALL(sb_world_get_state_size(two.world, &size));
    void *state = malloc(size);
    CALL(sb_world_save_state(two.world, state, size));
    scene resumed = build(1);
    forget_counts();
    CALL(sb_world_load_state(resumed.world, state, size));
    expect_counts(1, CALLER_THREADS, "loading a state");
    CALL(sb_world_step_to(two.world, 4 / 24.0));
    CALL(sb_world_step_to(resumed.world, 4 / 24.0));
    expect_same(&two, &resumed, "resumed on one thread");

    /* a refused call gives the count back too */
    sb_world_def wd = sb_default_world_def();
    wd.threads = 2;
    sb_world *empty = NULL;
    CALL(sb_world_create(&wd, &empty));
    cr_assert_eq(sb_world_load_state(empty, state, size), SB_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(sb_last_error(), "does not fit"), "%s", sb_last_error());
    cr_assert_eq(omp_get_max_threads(), CALLER_THREADS);
    sb_world_destroy(empty);
    sb_cloth_def bad = grid_cloth_def(&one.grid);
    bad.density = -1.0;
    forget_counts();
    cr_assert_eq(sb_world_add_cloth(two.world, &bad, &(sb_cloth_id){0}), SB_ERROR_INVALID_ARGUMENT);
    expect_counts(2, CALLER_THREADS, "a refused cloth");
    cr_assert_eq(omp_get_max_threads(), CALLER_THREADS);

    free(state);
    free_scene(&one), free_scene(&two), free_scene(&resumed);
    omp_set_num_threads(saved);
}

Test(threads, a_failed_step_gives_the_callers_count_back)
{
    int saved = omp_get_max_threads();
    omp_set_num_threads(CALLER_THREADS);
    grid_mesh g = grid_mesh_make(10, 1.0, 1.0);
    sb_world_def wd = sb_default_world_def();
    wd.threads = 2;
    wd.cg_max_iterations = 1, wd.min_step = wd.max_step; /* a solve that cannot converge, no smaller step */
    sb_world *w = NULL;
    CALL(sb_world_create(&wd, &w));
    sb_cloth_def cd = grid_cloth_def(&g);
    int32_t pins[2] = {0, 9};
    cd.pin_count = 2, cd.pins = pins;
    CALL(sb_world_add_cloth(w, &cd, &(sb_cloth_id){0}));
    forget_counts();
    cr_assert_eq(sb_world_step_to(w, 1.0), SB_ERROR_SOLVER, "%s", sb_last_error());
    expect_counts(2, CALLER_THREADS, "a failed step");
    cr_assert_eq(omp_get_max_threads(), CALLER_THREADS, "a failed step changed the caller's thread count");
    sb_world_destroy(w);
    grid_mesh_free(&g);
    omp_set_num_threads(saved);
}

/* threads 0: the caller's count, or fewer when other processes keep the cores busy
 * (threads_load.h; test_threads_load), given back after the call */
Test(threads, a_world_of_0_threads_uses_the_callers_count_or_fewer)
{
    int saved = omp_get_max_threads();
    omp_set_num_threads(CALLER_THREADS);
    scene s = build(0);
    forget_counts();
    CALL(sb_world_step_to(s.world, 1 / 24.0));
    cr_assert(count_sets == 0 || (count_sets == 2 && counts_set[0] >= 1 && counts_set[0] < CALLER_THREADS &&
                                  counts_set[1] == CALLER_THREADS),
              "a world of 0 threads set the count %d times (%d, %d)", count_sets, counts_set[0], counts_set[1]);
    free_scene(&s);
    omp_set_num_threads(saved);
}
#endif
