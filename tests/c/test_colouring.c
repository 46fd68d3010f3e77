/* Colours of groups of mesh elements for parallel assembly: no two groups of a colour share
 * a vertex, every element has exactly one place, and a cloth steps to the same bytes on one
 * thread or several. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "cloth_colouring.h"
#include "simbake.h"
#include "testutil.h"

/* Checks that `c` is a colouring of the groups of `group` consecutive elements: each element
 * once, in its group, in order; no group sharing a vertex with another group of its colour
 * (but in the serial last colour). */
static void expect_colouring(const colouring *c, const int32_t *elements, int32_t count, int32_t per,
                             int32_t vertex_count, int32_t group)
{
    cr_assert_eq(c->group_count, (count + group - 1) / group);
    cr_assert_eq(c->start[0], 0);
    cr_assert_eq(c->start[c->colour_count], c->group_count, "%d placed, %d groups", c->start[c->colour_count],
                 c->group_count);
    cr_assert_eq(c->group_size, group);
    for (int32_t g = 0; g < c->group_count; g++) {
        int32_t end = colouring_group_end(c, g);
        cr_assert_eq(end, g + 1 < c->group_count ? (g + 1) * group : count, "group %d ends at element %d", g, end);
    }
    uint8_t *seen = calloc((size_t)c->group_count + 1, 1);
    int32_t *owner = malloc(((size_t)vertex_count + 1) * sizeof *owner); /* the group that last took it */
    int32_t *owner_colour = malloc(((size_t)vertex_count + 1) * sizeof *owner_colour);
    for (int32_t v = 0; v < vertex_count; v++) owner[v] = -1, owner_colour[v] = -1;
    for (int32_t k = 0; k < c->colour_count; k++) {
        bool serial = c->last_serial && k + 1 == c->colour_count;
        cr_assert_lt(c->start[k], c->start[k + 1], "colour %d is empty", k);
        for (int32_t i = c->start[k]; i < c->start[k + 1]; i++) {
            int32_t g = c->groups[i];
            cr_assert(g >= 0 && g < c->group_count && !seen[g], "group %d placed twice or out of range", g);
            seen[g] = 1;
            if (i > c->start[k]) cr_assert_gt(g, c->groups[i - 1], "colour %d is not in group order", k);
            for (int32_t e = g * group, end = colouring_group_end(c, g); e < end; e++)
                for (int32_t j = 0; j < per; j++) {
                    int32_t v = elements[(size_t)e * (size_t)per + (size_t)j];
                    if (!serial && owner_colour[v] == k)
                        cr_assert_eq(owner[v], g, "colour %d has groups %d and %d at vertex %d", k, owner[v], g, v);
                    owner[v] = g, owner_colour[v] = k;
                }
        }
    }
    free(seen), free(owner), free(owner_colour);
}

/* Puts the grid's triangles in a random (fixed) order. */
static void shuffle_triangles(grid_mesh *g)
{
    srand(7);
    for (int32_t t = g->triangle_count - 1; t > 0; t--) {
        int32_t u = rand() % (t + 1);
        for (int k = 0; k < 3; k++) {
            int32_t swap = g->triangles[3 * t + k];
            g->triangles[3 * t + k] = g->triangles[3 * u + k], g->triangles[3 * u + k] = swap;
        }
    }
}

/* The colouring of the runs of `group` triangles of an n² grid (its triangles in random
 * order when `shuffled`), checked by expect_colouring. */
static colouring colour_grid(int32_t n, int32_t group, bool shuffled)
{
    grid_mesh g = grid_mesh_make(n, 1.0, 0.0);
    if (shuffled) shuffle_triangles(&g);
    colouring c;
    cr_assert(colouring_build(&c, g.triangles, g.triangle_count, 3, g.vertex_count, group));
    expect_colouring(&c, g.triangles, g.triangle_count, 3, g.vertex_count, group);
    grid_mesh_free(&g);
    return c;
}

Test(colouring, a_grid_takes_few_colours_and_no_two_elements_of_one_share_a_vertex)
{
    colouring c = colour_grid(20, 1, false);
    cr_assert(!c.last_serial);
    /* each vertex of a regular grid is on six triangles: greedy needs at least six colours */
    cr_assert(c.colour_count >= 6 && c.colour_count <= 12, "%d colours", c.colour_count);
    colouring_free(&c);
}

/* Runs of 64 triangles of a 100² grid are about a third of a row of squares: each meets the
 * runs beside it and those of the rows above and below, so a few colours do. */
Test(colouring, groups_of_a_grid_in_row_order_take_a_few_colours)
{
    colouring c = colour_grid(100, 64, false);
    cr_assert(!c.last_serial);
    cr_assert(c.colour_count >= 2 && c.colour_count <= 6, "%d colours", c.colour_count);
    colouring_free(&c);
}

/* The same grid with its triangles in random order: every run of triangles is spread over
 * the whole mesh, so the runs meet each other everywhere and run out of colours (the cloth
 * then colours it element by element, cloth.c). */
Test(colouring, groups_of_a_mesh_in_random_order_run_out_of_colours)
{
    colouring c = colour_grid(100, 64, true);
    cr_assert(c.last_serial || c.colour_count > 16, "%d colours", c.colour_count);
    colouring_free(&c);
}

Test(colouring, a_fan_beyond_the_colours_ends_in_one_serial_colour)
{
    enum { FAN = 150 }; /* triangles around vertex 0 */
    int32_t tris[3 * FAN];
    for (int32_t t = 0; t < FAN; t++) tris[3 * t] = 0, tris[3 * t + 1] = 1 + t, tris[3 * t + 2] = 1 + (t + 1) % FAN;
    colouring c;
    cr_assert(colouring_build(&c, tris, FAN, 3, FAN + 1, 1));
    expect_colouring(&c, tris, FAN, 3, FAN + 1, 1);
    cr_assert(c.last_serial);
    cr_assert_eq(c.colour_count, COLOURING_MAX);
    cr_assert_eq(c.start[c.colour_count] - c.start[c.colour_count - 1], FAN - (COLOURING_MAX - 1));
    colouring_free(&c);
}

Test(colouring, no_elements)
{
    colouring c;
    cr_assert(colouring_build(&c, NULL, 0, 3, 0, 64));
    cr_assert_eq(c.colour_count, 0);
    cr_assert_eq(c.group_count, 0);
    cr_assert_eq(c.start[0], 0);
    colouring_free(&c);
}

#ifdef _OPENMP
/* 72 x 72: above every parallel threshold a cloth step meets (assembly over 2048 triangles,
 * matrix rows over 2048, CG vectors over 4096 vertices and 12288 values); under valgrind
 * (test_quick) 36 x 36, which is above the assembly's only */
#define SWING_GRID (test_quick() ? 36 : 72)

/* A cloth pinned at two corners, swinging for 1/8 s; `shuffled`: its triangles in random
 * order, which the cloth colours element by element. */
static double *swing(bool shuffled)
{
    grid_mesh g = grid_mesh_make(SWING_GRID, 1.0, 1.0);
    if (shuffled) shuffle_triangles(&g);
    sb_world_def wd = sb_default_world_def();
    sb_world *w;
    cr_assert_eq(sb_world_create(&wd, &w), SB_OK);
    sb_cloth_def cd = sb_default_cloth_def();
    cd.vertex_count = g.vertex_count, cd.positions = g.positions;
    cd.triangle_count = g.triangle_count, cd.triangles = g.triangles;
    int32_t pins[2] = {0, SWING_GRID - 1};
    sb_cloth_id cloth;
    cd.pin_count = 2, cd.pins = pins;
    cr_assert_eq(sb_world_add_cloth(w, &cd, &cloth), SB_OK);
    cr_assert_eq(sb_world_step_to(w, 0.125), SB_OK);
    double *x = malloc(3 * (size_t)g.vertex_count * sizeof *x);
    cr_assert_eq(sb_cloth_get_positions(w, cloth, x, g.vertex_count), SB_OK);
    sb_world_destroy(w);
    grid_mesh_free(&g);
    return x;
}

static void expect_same_bytes_on_any_number_of_threads(bool shuffled)
{
    int saved = omp_get_max_threads();
    omp_set_num_threads(1);
    double *one = swing(shuffled);
    omp_set_num_threads(3);
    double *three = swing(shuffled);
    omp_set_num_threads(saved);
    cr_assert(memcmp(one, three, 3 * SWING_GRID * SWING_GRID * sizeof *one) == 0,
              "positions differ between 1 and 3 threads");
    int32_t middle = SWING_GRID * (SWING_GRID / 2) + SWING_GRID / 2;
    cr_assert_lt(one[3 * middle + 2], 0.95, "the cloth did not swing down (z %g)", one[3 * middle + 2]);
    free(one), free(three);
}

Test(colouring, a_cloth_steps_to_the_same_bytes_on_any_number_of_threads, .timeout = 120)
{
    expect_same_bytes_on_any_number_of_threads(false);
}

Test(colouring, a_cloth_in_random_order_steps_to_the_same_bytes_on_any_number_of_threads, .timeout = 120)
{
    expect_same_bytes_on_any_number_of_threads(true);
}
#endif
