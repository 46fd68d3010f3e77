/* Shrinking (Blender's Shrinking Factor and shrink group): a cloth whose rest shape is
 * smaller than the shape it is given pulls itself together to that size, where it is asked
 * to, and weighs what the given shape weighs. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "simbake.h"
#include "testutil.h"

static sb_world *weightless_world(void)
{
    sb_world_def wdef = sb_default_world_def();
    wdef.gravity[2] = 0.0;
    sb_world *w;
    cr_assert_eq(sb_world_create(&wdef, &w), SB_OK);
    return w;
}

/* Mean length ratio (now / given) of the grid's edges along x whose both ends satisfy keep. */
static double mean_edge_ratio(const grid_mesh *g, const double *x, bool (*keep)(double))
{
    double sum = 0.0;
    int count = 0;
    for (int32_t j = 0; j < g->n; j++)
        for (int32_t i = 0; i + 1 < g->n; i++) {
            int32_t a = j * g->n + i, b = a + 1;
            if (!keep(g->positions[3 * a]) || !keep(g->positions[3 * b])) continue;
            double given = fabs(g->positions[3 * b] - g->positions[3 * a]);
            sum += hypot(hypot(x[3 * b] - x[3 * a], x[3 * b + 1] - x[3 * a + 1]), x[3 * b + 2] - x[3 * a + 2]) / given;
            count++;
        }
    return sum / count;
}

static bool anywhere(double x) { (void)x; return true; }
static bool left_side(double x) { return x < -0.05; }
static bool right_side(double x) { return x > 0.05; }

/* Settles a 0.4 m cloth without gravity for two seconds, its vertices shrunk by shrink(x). */
static double *settle(const grid_mesh *g, double (*shrink)(double), sb_cloth_info *info)
{
    sb_world *w = weightless_world();
    double *factors = malloc((size_t)g->vertex_count * sizeof *factors);
    for (int32_t i = 0; i < g->vertex_count; i++) factors[i] = shrink(g->positions[3 * i]);
    sb_cloth_def def = grid_cloth_def(g);
    def.shrink = factors;
    sb_cloth_id cloth;
    cr_assert_eq(sb_world_add_cloth(w, &def, &cloth), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_cloth_get_info(w, cloth, info), SB_OK);
    cr_assert_eq(sb_world_step_to(w, 2.0), SB_OK, "%s", sb_last_error());
    double *x = malloc(3 * (size_t)g->vertex_count * sizeof *x);
    cr_assert_eq(sb_cloth_get_positions(w, cloth, x, g->vertex_count), SB_OK);
    free(factors);
    sb_world_destroy(w);
    return x;
}

static double none(double x) { (void)x; return 0.0; }
static double fifth(double x) { (void)x; return 0.2; }
static double left_third(double x) { return x < 0.0 ? 0.3 : 0.0; }

Test(shrink, a_shrunk_cloth_settles_at_its_smaller_rest_size)
{
    /* under valgrind (test_quick) a coarser grid: the strain limit's sweeps over a cloth given
     * 25% longer than its rest shape take most of the time */
    grid_mesh g = grid_mesh_make(test_quick() ? 5 : 9, 0.4, 0.0);
    sb_cloth_info plain, shrunk;
    double *x0 = settle(&g, none, &plain), *x1 = settle(&g, fifth, &shrunk);
    cr_expect_float_eq(mean_edge_ratio(&g, x0, anywhere), 1.0, 1e-6, "an unshrunk cloth moved");
    double ratio = mean_edge_ratio(&g, x1, anywhere);
    cr_expect(fabs(ratio - 0.8) < 0.016, "edges settled at %.4f of their given length, not 0.8", ratio);
    cr_expect_float_eq(shrunk.total_mass, plain.total_mass, 1e-12, "shrinking changed the mass");
    free(x0), free(x1);
    grid_mesh_free(&g);
}

Test(shrink, only_the_shrunk_part_of_a_cloth_pulls_together)
{
    grid_mesh g = grid_mesh_make(test_quick() ? 9 : 17, 0.4, 0.0);
    sb_cloth_info info;
    double *x = settle(&g, left_third, &info);
    double left = mean_edge_ratio(&g, x, left_side), right = mean_edge_ratio(&g, x, right_side);
    cr_expect(fabs(left - 0.7) < 0.05, "the shrunk half's edges are %.4f of their length, not 0.7", left);
    cr_expect(fabs(right - 1.0) < 0.05, "the other half's edges are %.4f of their length, not 1", right);
    free(x);
    grid_mesh_free(&g);
}

Test(shrink, shrink_factors_out_of_range_are_refused)
{
    grid_mesh g = grid_mesh_make(3, 0.4, 0.0);
    sb_world *w = weightless_world();
    const double bad[] = {NAN, 1.0, -1.0, INFINITY};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        double factors[9] = {0};
        factors[4] = bad[k];
        sb_cloth_def def = grid_cloth_def(&g);
        def.shrink = factors;
        sb_cloth_id cloth;
        cr_expect_eq(sb_world_add_cloth(w, &def, &cloth), SB_ERROR_INVALID_ARGUMENT, "shrink %g was taken", bad[k]);
        cr_expect(strstr(sb_last_error(), "shrink of vertex 4"), "%s", sb_last_error());
    }
    sb_world_destroy(w);
    grid_mesh_free(&g);
}
