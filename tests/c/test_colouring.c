/* Colours of mesh elements for parallel assembly: no two elements of a colour share a
 * vertex, every element has exactly one place, and a cloth steps to the same bytes on one
 * thread or several. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "colouring.h"
#include "simbake.h"
#include "testutil.h"

/* Checks that `c` is a colouring of the elements: each once, none sharing a vertex with
 * another of its colour (but the serial last colour). */
static void expect_colouring(const colouring *c, const int32_t *elements, int32_t count, int32_t per,
                             int32_t vertex_count)
{
    cr_assert_eq(c->start[0], 0);
    cr_assert_eq(c->start[c->colour_count], count, "%d placed, %d elements", c->start[c->colour_count], count);
    uint8_t *seen = calloc((size_t)count, 1);
    int32_t *owner = malloc((size_t)vertex_count * sizeof *owner); /* the colour that last took the vertex */
    for (int32_t v = 0; v < vertex_count; v++) owner[v] = -1;
    for (int32_t k = 0; k < c->colour_count; k++) {
        bool serial = c->last_serial && k + 1 == c->colour_count;
        cr_assert_lt(c->start[k], c->start[k + 1], "colour %d is empty", k);
        for (int32_t i = c->start[k]; i < c->start[k + 1]; i++) {
            int32_t e = c->order[i];
            cr_assert(e >= 0 && e < count && !seen[e], "element %d placed twice or out of range", e);
            seen[e] = 1;
            if (i > c->start[k]) cr_assert_gt(e, c->order[i - 1], "colour %d is not in element order", k);
            for (int32_t j = 0; j < per; j++) {
                int32_t v = elements[(size_t)e * (size_t)per + (size_t)j];
                if (!serial) cr_assert_neq(owner[v], k, "colour %d has two elements at vertex %d", k, v);
                owner[v] = k;
            }
        }
    }
    free(seen), free(owner);
}

Test(colouring, a_grid_takes_few_colours_and_no_two_elements_of_one_share_a_vertex)
{
    grid_mesh g = grid_mesh_make(20, 1.0, 0.0);
    colouring c;
    cr_assert(colouring_build(&c, g.triangles, g.triangle_count, 3, g.vertex_count));
    expect_colouring(&c, g.triangles, g.triangle_count, 3, g.vertex_count);
    cr_assert(!c.last_serial);
    /* each vertex of a regular grid is on six triangles: greedy needs at least six colours */
    cr_assert(c.colour_count >= 6 && c.colour_count <= 12, "%d colours", c.colour_count);
    colouring_free(&c);
    grid_mesh_free(&g);
}

Test(colouring, a_fan_beyond_the_colours_ends_in_one_serial_colour)
{
    enum { FAN = 150 }; /* triangles around vertex 0 */
    int32_t tris[3 * FAN];
    for (int32_t t = 0; t < FAN; t++) tris[3 * t] = 0, tris[3 * t + 1] = 1 + t, tris[3 * t + 2] = 1 + (t + 1) % FAN;
    colouring c;
    cr_assert(colouring_build(&c, tris, FAN, 3, FAN + 1));
    expect_colouring(&c, tris, FAN, 3, FAN + 1);
    cr_assert(c.last_serial);
    cr_assert_eq(c.colour_count, COLOURING_MAX);
    cr_assert_eq(c.start[c.colour_count] - c.start[c.colour_count - 1], FAN - (COLOURING_MAX - 1));
    colouring_free(&c);
}

Test(colouring, no_elements)
{
    colouring c;
    cr_assert(colouring_build(&c, NULL, 0, 3, 0));
    cr_assert_eq(c.colour_count, 0);
    cr_assert_eq(c.start[0], 0);
    colouring_free(&c);
}

#ifdef _OPENMP
enum { SWING_GRID = 36 }; /* 2450 triangles: assembled in parallel (above 2048) */

/* A cloth pinned at two corners, swinging for 1/8 s. */
static double *swing(void)
{
    grid_mesh g = grid_mesh_make(SWING_GRID, 1.0, 1.0);
    sb_world_def wd = sb_default_world_def();
    sb_world *w;
    cr_assert_eq(sb_world_create(&wd, &w), SB_OK);
    sb_cloth_def cd = sb_default_cloth_def();
    cd.vertex_count = g.vertex_count, cd.positions = g.positions;
    cd.triangle_count = g.triangle_count, cd.triangles = g.triangles;
    int32_t cloth, pins[2] = {0, SWING_GRID - 1};
    cd.pin_count = 2, cd.pins = pins;
    cr_assert_eq(sb_world_add_cloth(w, &cd, &cloth), SB_OK);
    cr_assert_eq(sb_world_step_to(w, 0.125), SB_OK);
    double *x = malloc(3 * (size_t)g.vertex_count * sizeof *x);
    cr_assert_eq(sb_cloth_get_positions(w, cloth, x, g.vertex_count), SB_OK);
    sb_world_destroy(w);
    grid_mesh_free(&g);
    return x;
}

Test(colouring, a_cloth_steps_to_the_same_bytes_on_any_number_of_threads, .timeout = 120)
{
    int saved = omp_get_max_threads();
    omp_set_num_threads(1);
    double *one = swing();
    omp_set_num_threads(3);
    double *three = swing();
    omp_set_num_threads(saved);
    cr_assert(memcmp(one, three, 3 * SWING_GRID * SWING_GRID * sizeof *one) == 0,
              "positions differ between 1 and 3 threads");
    int32_t middle = SWING_GRID * (SWING_GRID / 2) + SWING_GRID / 2;
    cr_assert_lt(one[3 * middle + 2], 0.95, "the cloth did not swing down (z %g)", one[3 * middle + 2]);
    free(one), free(three);
}
#endif
