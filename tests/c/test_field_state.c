/* A world with animated force fields saved half way resumes bit for bit, and a state does not
 * load into a world whose fields or field weights differ. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "simbake.h"
#include "testutil.h"

typedef struct scene {
    sb_world *world;
    grid_mesh mesh;
    sb_cloth_id patch;
    sb_field_id wind, turbulence;
} scene;

/* A patch pinned along one edge in a gusty wind that swings round, and a turbulence felt at
 * `turbulence_weight`; `with_turbulence` 0 leaves that field out. */
static scene build(bool with_turbulence, double turbulence_weight)
{
    scene s = {0};
    sb_world_def wdef = sb_default_world_def();
    cr_assert_eq(sb_world_create(&wdef, &s.world), SB_OK, "%s", sb_last_error());
    s.mesh = grid_mesh_make(6, 0.5, 1.0);
    int32_t pins[6] = {0, 1, 2, 3, 4, 5};
    sb_cloth_def def = grid_cloth_def(&s.mesh);
    def.pin_count = 6, def.pins = pins;
    cr_assert_eq(sb_world_add_cloth(s.world, &def, &s.patch), SB_OK, "%s", sb_last_error());
    sb_field_def wind = sb_default_field_def();
    wind.type = SB_FIELD_WIND, wind.shape = SB_FIELD_PLANE, wind.strength = 2.0, wind.flow = 0.5, wind.noise = 1.0;
    wind.seed = 9, wind.position[1] = -2.0, wind.axis[1] = 1.0, wind.axis[2] = 1.0;
    cr_assert_eq(sb_world_add_field(s.world, &wind, &s.wind), SB_OK, "%s", sb_last_error());
    if (with_turbulence) {
        sb_field_def turbulence = sb_default_field_def();
        turbulence.type = SB_FIELD_TURBULENCE, turbulence.strength = 1.5, turbulence.noise_size = 0.2;
        cr_assert_eq(sb_world_add_field(s.world, &turbulence, &s.turbulence), SB_OK, "%s", sb_last_error());
        cr_assert_eq(sb_cloth_set_field_weight(s.world, s.patch, s.turbulence, turbulence_weight), SB_OK, "%s",
                     sb_last_error());
    }
    return s;
}

static void destroy(scene *s)
{
    sb_world_destroy(s->world);
    grid_mesh_free(&s->mesh);
}

/* Frames `from`..`to` at 24 fps, the wind's target sent each frame as the add-on sends it. */
static void play(scene *s, int from, int to)
{
    for (int frame = from; frame <= to; frame++) {
        double t = frame / 24.0, angle = 0.3 * frame;
        const double position[3] = {0.1 * frame, -2.0, 0.0}, axis[3] = {sin(angle), cos(angle), 0.5};
        cr_assert_eq(sb_field_set_target(s->world, s->wind, t, position, axis, 2.0 + 0.2 * frame), SB_OK, "%s",
                     sb_last_error());
        cr_assert_eq(sb_world_step_to(s->world, t), SB_OK, "%s", sb_last_error());
    }
}

static void positions(const scene *s, double *out)
{
    cr_assert_eq(sb_cloth_get_positions(s->world, s->patch, out, s->mesh.vertex_count), SB_OK);
}

Test(field_state, a_world_with_animated_fields_resumes_bit_for_bit)
{
    scene a = build(true, 0.8);
    play(&a, 1, 6);
    uint64_t size = 0;
    cr_assert_eq(sb_world_get_state_size(a.world, &size), SB_OK);
    uint8_t *state = malloc(size);
    cr_assert_eq(sb_world_save_state(a.world, state, size), SB_OK, "%s", sb_last_error());
    double before[3 * 36];
    positions(&a, before);
    play(&a, 7, 18);

    scene b = build(true, 0.8);
    cr_assert_eq(sb_world_load_state(b.world, state, size), SB_OK, "%s", sb_last_error());
    play(&b, 7, 18);
    double xa[3 * 36], xb[3 * 36];
    positions(&a, xa), positions(&b, xb);
    cr_expect(memcmp(xa, xb, sizeof xa) == 0, "the resumed world ends elsewhere");
    double moved = 0.0;
    for (int i = 0; i < 3 * 36; i++) moved = fmax(moved, fabs(xa[i] - before[i]));
    cr_expect_gt(moved, 0.01, "nothing moved after the save (%g m): nothing was tested", moved);

    scene no_turbulence = build(false, 1.0);
    cr_expect_eq(sb_world_load_state(no_turbulence.world, state, size), SB_ERROR_INVALID_ARGUMENT);
    cr_expect(strstr(sb_last_error(), "1 force fields, the state 2"), "%s", sb_last_error());
    scene other_weight = build(true, 0.5);
    cr_expect_eq(sb_world_load_state(other_weight.world, state, size), SB_ERROR_INVALID_ARGUMENT);
    cr_expect(strstr(sb_last_error(), "field 1's definition or its weights"), "%s", sb_last_error());
    free(state);
    destroy(&a), destroy(&b), destroy(&no_turbulence), destroy(&other_weight);
}
