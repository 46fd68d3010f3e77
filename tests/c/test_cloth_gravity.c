/* A cloth's share of the world's gravity (Blender's Field Weights → Gravity): it falls with
 * gravity times its scale, exactly, since constant accelerations are integrated exactly. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "simbake.h"
#include "testutil.h"

static double fall(double scale)
{
    sb_world_def wdef = sb_default_world_def();
    sb_world *w;
    cr_assert_eq(sb_world_create(&wdef, &w), SB_OK);
    grid_mesh g = grid_mesh_make(4, 0.3, 1.0);
    sb_cloth_def def = grid_cloth_def(&g);
    def.air_drag = 0.0, def.gravity_scale = scale;
    sb_cloth_id cloth;
    cr_assert_eq(sb_world_add_cloth(w, &def, &cloth), SB_OK, "%s", sb_last_error());
    cr_assert_eq(sb_world_step_to(w, 0.5), SB_OK, "%s", sb_last_error());
    double x[3 * 16];
    cr_assert_eq(sb_cloth_get_positions(w, cloth, x, g.vertex_count), SB_OK);
    sb_world_destroy(w);
    grid_mesh_free(&g);
    return x[2] - 1.0;
}

Test(cloth_gravity, a_cloth_falls_with_its_share_of_gravity)
{
    const double scales[] = {1.0, 0.5, 0.0, -0.25};
    for (size_t k = 0; k < sizeof scales / sizeof scales[0]; k++) {
        double expected = -0.5 * 9.81 * scales[k] * 0.25, fallen = fall(scales[k]);
        cr_expect(fabs(fallen - expected) <= 1e-9 * (1.0 + fabs(expected)), "scale %g: moved %.12g m, expected %.12g m",
                  scales[k], fallen, expected);
    }
}

Test(cloth_gravity, a_scale_that_is_not_a_number_is_refused)
{
    sb_world_def wdef = sb_default_world_def();
    sb_world *w;
    cr_assert_eq(sb_world_create(&wdef, &w), SB_OK);
    grid_mesh g = grid_mesh_make(3, 0.3, 1.0);
    sb_cloth_def def = grid_cloth_def(&g);
    def.gravity_scale = NAN;
    sb_cloth_id cloth;
    cr_assert_eq(sb_world_add_cloth(w, &def, &cloth), SB_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(sb_last_error(), "gravity_scale"), "%s", sb_last_error());
    sb_world_destroy(w);
    grid_mesh_free(&g);
}
