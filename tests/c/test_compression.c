/* Compression stiffness (Blender's Compression): the stretch conditions resist shortening with
 * a stiffness of their own, lengthening with the stretch stiffness; by default the same. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "cloth.h"
#include "cloth_forces.h"
#include "testutil.h"

/* x-force on the grid's corner 0 (at -x) with the cloth scaled by `scale` along x, no gravity. */
static double corner_force(double stretch, double compression, double scale)
{
    grid_mesh g = grid_mesh_make(3, 0.1, 0.0);
    sb_cloth_def def = grid_cloth_def(&g);
    def.stretch_stiffness = stretch, def.compression_stiffness = compression;
    def.shear_stiffness = 0.0, def.bend_stiffness = 0.0, def.damping = 0.0, def.air_drag = 0.0;
    const double no_gravity[3] = {0.0, 0.0, 0.0};
    cloth *c = NULL;
    cr_assert_eq(cloth_create(&def, 0.0, no_gravity, &c), SB_OK, "%s", sb_last_error());
    size_t len = 3 * (size_t)g.vertex_count;
    double *x = malloc(len * sizeof *x), *v = calloc(len, sizeof *v), *f = malloc(len * sizeof *f);
    for (size_t k = 0; k < len; k++) x[k] = g.positions[k] * (k % 3 == 0 ? scale : 1.0);
    cloth_forces(c, 0.0, x, v, no_gravity, NULL, f);
    double fx = f[0];
    free(x), free(v), free(f);
    cloth_destroy(c);
    grid_mesh_free(&g);
    return fx;
}

Test(compression, shortening_is_resisted_with_the_compression_stiffness)
{
    double same = corner_force(1000.0, -1.0, 0.9), soft = corner_force(1000.0, 100.0, 0.9);
    cr_assert_lt(same, 0.0, "a compressed cloth does not push its corner outwards (%g N)", same);
    cr_expect_float_eq(soft / same, 0.1, 1e-12, "compression at 1/10 of the stretch stiffness gave %g of the force",
                       soft / same);
    cr_expect_float_eq(corner_force(1000.0, 1000.0, 0.9), same, 1e-15, "the default is the stretch stiffness");
}

Test(compression, lengthening_ignores_the_compression_stiffness)
{
    double same = corner_force(1000.0, -1.0, 1.1), soft = corner_force(1000.0, 100.0, 1.1);
    cr_assert_gt(same, 0.0, "a stretched cloth does not pull its corner inwards (%g N)", same);
    cr_expect_float_eq(soft, same, 1e-15, "compression stiffness changed a stretched cloth's force");
}

Test(compression, a_bad_compression_stiffness_is_refused)
{
    grid_mesh g = grid_mesh_make(3, 0.1, 0.0);
    const double bad[] = {NAN, -INFINITY, INFINITY};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        sb_cloth_def def = grid_cloth_def(&g);
        def.compression_stiffness = bad[k];
        const double gravity[3] = {0.0, 0.0, -9.81};
        cloth *c = NULL;
        cr_expect_eq(cloth_create(&def, 0.0, gravity, &c), SB_ERROR_INVALID_ARGUMENT, "%g was taken", bad[k]);
        cloth_destroy(c);
    }
    grid_mesh_free(&g);
}
