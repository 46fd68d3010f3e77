/* The strain projection on a load spread over a whole pinned cloth (cloth_pin_reach.h): a sheet
 * pinned along one side that the solve left stretched everywhere at once, as a strong wind
 * leaves issue 30's pinned flag, ends within its limit with its pins where they were, and a soft
 * sheet under a load that the limit must carry bakes within it. Before
 * the reach to the pins, the Gauss-Seidel sweeps moved such a stretch to the pins a ring of
 * triangles a sweep and stopped at their cap of 400 with the cloth beyond its limit. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "cloth_strain_limit.h"
#include "simbake.h"
#include "testutil.h"
#include "world.h"

/* Longest edge of the grid at x over its rest length. */
static double longest_edge(const grid_mesh *g, const double *x)
{
    double shortest, longest;
    grid_edge_ratios(g, x, &shortest, &longest);
    return longest;
}

/* A 1 m sheet of n x n vertices pinned along x = -0.5, its end positions those of a step that
 * stretched it by `stretch` along x and swung it by 0.5 rad about its pinned side (a door, as
 * the wind swings the flag), projected once: the sweeps taken, the edges' longest ratio to rest. */
static strain_limit_report project_pulled_sheet(int32_t n, double stretch, double *longest)
{
    grid_mesh g = grid_mesh_make(n, 1.0, 0.0);
    sb_world_def wdef = sb_default_world_def();
    sb_world *w;
    cr_assert_eq(sb_world_create(&wdef, &w), SB_OK);
    sb_cloth_def def = grid_cloth_def(&g);
    int32_t *pins = malloc((size_t)n * sizeof *pins);
    for (int32_t j = 0; j < n; j++) pins[j] = j * n;
    def.pin_count = n, def.pins = pins, def.max_stretch = 0.1, def.max_compression = 0.0;
    sb_cloth_id cid;
    cr_assert_eq(sb_world_add_cloth(w, &def, &cid), SB_OK, "%s", sb_last_error());
    cloth *c = w->cloths[0];
    const double h = 1.0 / 240.0;
    for (int32_t v = 0; v < g.vertex_count; v++) {
        const double *x = &c->state.x[3 * (size_t)v];
        double *x1 = &c->scratch.x_new[3 * (size_t)v], *v1 = &c->scratch.v_new[3 * (size_t)v];
        double out = x[0] + 0.5; /* distance from the pinned side at rest */
        x1[0] = -0.5 + (1.0 + stretch) * out * cos(0.5), x1[1] = x[1], x1[2] = (1.0 + stretch) * out * sin(0.5);
        for (int k = 0; k < 3; k++) v1[k] = (x1[k] - x[k]) / h;
        c->scratch.held[v] = c->model.pinned[v] ? STRAIN_FIXED : STRAIN_FREE;
    }
    cr_assert_gt(strain_limit_excess(c, c->scratch.x_new), 0.5 * stretch);
    strain_limit_report r = strain_limit_project(c, h);
    *longest = longest_edge(&g, c->scratch.x_new);
    for (int32_t j = 0; j < n; j++)
        for (int k = 0; k < 3; k++)
            cr_expect_eq(c->scratch.x_new[3 * (size_t)pins[j] + k], g.positions[3 * (size_t)pins[j] + k]);
    free(pins);
    sb_world_destroy(w);
    grid_mesh_free(&g);
    return r;
}

Test(pin_reach, a_sheet_stretched_everywhere_from_its_pins_ends_within_its_limit)
{
    for (int32_t n = 17; n <= 65; n += 48) {
        double longest;
        strain_limit_report r = project_pulled_sheet(n, 0.3, &longest);
        cr_log_info("%d x %d: %d sweeps, excess left %.3g, longest edge %.6f of rest", (int)n, (int)n, (int)r.sweeps,
                    r.worst_excess, longest);
        cr_expect_leq(r.worst_excess, STRAIN_SLACK, "%d x %d: %.3g beyond the limit after %d sweeps", (int)n, (int)n,
                      r.worst_excess, (int)r.sweeps);
        cr_expect_leq(longest, 1.1 * (1.0 + 1e-6));
    }
}

/* A sheet held by its pinned side under a load its soft material cannot hold within the limit
 * (stretch stiffness 20, 1000 m/s² along the sheet away from the pins), baked for 0.25 s: within
 * its step budget, and every edge within the limit at the end. Before the reach to the pins: 50
 * steps, 49 of them ending beyond the limit, the longest edge at 1.117 of rest at the end. */
Test(pin_reach, a_soft_sheet_under_a_load_the_limit_carries_bakes_within_its_limit, .timeout = 120)
{
    const int32_t n = 17;
    grid_mesh g = grid_mesh_make(n, 1.0, 0.0);
    sb_world_def wdef = sb_default_world_def();
    wdef.gravity[0] = 1000.0, wdef.gravity[1] = 0.0, wdef.gravity[2] = -50.0;
    sb_world *w;
    cr_assert_eq(sb_world_create(&wdef, &w), SB_OK);
    sb_cloth_def def = grid_cloth_def(&g);
    int32_t pins[17];
    for (int32_t j = 0; j < n; j++) pins[j] = j * n;
    def.pin_count = n, def.pins = pins, def.max_stretch = 0.1, def.max_compression = 0.0;
    def.stretch_stiffness = 20.0, def.shear_stiffness = 2.0;
    sb_cloth_id cid;
    cr_assert_eq(sb_world_add_cloth(w, &def, &cid), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_world_step_to(w, 0.25), SB_OK, "%s", sb_last_error());
    sb_world_stats stats;
    sb_world_get_stats(w, &stats);
    double *x = malloc(3 * (size_t)g.vertex_count * sizeof *x);
    cr_assert_eq(sb_cloth_get_positions(w, cid, x, g.vertex_count), SB_OK);
    double longest = longest_edge(&g, x);
    cr_log_info("%lld steps, %lld rejected, %lld beyond the limit; longest edge %.6f of rest", (long long)stats.steps,
                (long long)stats.rejected_steps, (long long)stats.strain_violations, longest);
    cr_expect_leq(stats.steps + stats.rejected_steps, 2000);
    cr_expect_leq(longest, 1.1 * (1.0 + 1e-6));
    free(x);
    sb_world_destroy(w);
    grid_mesh_free(&g);
}
