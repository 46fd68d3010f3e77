/* Collision groups and sleeping islands (sb_body_def.collision_groups, use_deactivation,
 * start_deactivated): bodies in no common group pass through each other; a resting stack falls
 * asleep after deactivate_time and then costs no narrow-phase test and no integration (counted
 * in sb_world_stats, not timed); a falling box, a moving kinematic body or a joint to an awake
 * body wakes what sleeps; a body that starts deactivated hangs in the air until hit, as in
 * Blender; a saved world with sleeping bodies and running timers resumes bit for bit; bad
 * definitions are refused with a message. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rigid_sleep.h"
#include "testutil.h"

static const double G = 9.81;

static sb_world *make_world(void)
{
    sb_world_def wd = sb_default_world_def();
    wd.gravity[2] = -G;
    sb_world *w = NULL;
    cr_assert_eq(sb_world_create(&wd, &w), SB_OK, "%s", sb_last_error());
    return w;
}

/* A cube of half-extent 0.5 at (x, 0, z). */
static sb_body_def cube(int type, double x, double z)
{
    sb_body_def d = sb_default_body_def();
    d.type = type, d.shape = SB_SHAPE_BOX, d.mass = 1.0;
    d.center[0] = x, d.center[2] = z;
    d.half_extents[0] = d.half_extents[1] = d.half_extents[2] = 0.5;
    return d;
}

static sb_body_id add(sb_world *w, sb_body_def d)
{
    sb_body_id id;
    cr_assert_eq(sb_world_add_body(w, &d, &id), SB_OK, "%s", sb_last_error());
    return id;
}

/* A static floor, its top at z = 0, in every collision group. */
static sb_body_id add_floor(sb_world *w)
{
    sb_body_def d = sb_default_body_def();
    d.type = SB_BODY_STATIC, d.shape = SB_SHAPE_BOX, d.center[2] = -0.5;
    d.half_extents[0] = d.half_extents[1] = 10.0, d.half_extents[2] = 0.5;
    d.collision_groups = 0xffffffffu;
    return add(w, d);
}

static sb_body_state state_of(sb_world *w, sb_body_id b)
{
    sb_body_state s;
    cr_assert_eq(sb_body_get_state(w, b, &s), SB_OK, "%s", sb_last_error());
    return s;
}

static sb_world_stats stats_of(sb_world *w)
{
    sb_world_stats s;
    cr_assert_eq(sb_world_get_stats(w, &s), SB_OK, "%s", sb_last_error());
    return s;
}

static void step_to(sb_world *w, double t)
{
    cr_assert_eq(sb_world_step_to(w, t), SB_OK, "%s", sb_last_error());
}

/* --- collision groups --------------------------------------------------------------------- */

/* A cube dropped from 1.5 m onto a cube resting on the floor, in groups `upper` and `lower`:
 * the height where the upper one is after 2 s. */
static double dropped_height(uint32_t upper, uint32_t lower)
{
    sb_world *w = make_world();
    add_floor(w);
    sb_body_def d = cube(SB_BODY_DYNAMIC, 0.0, 0.5);
    d.collision_groups = lower;
    add(w, d);
    d = cube(SB_BODY_DYNAMIC, 0.1, 2.0);
    d.collision_groups = upper;
    sb_body_id top = add(w, d);
    step_to(w, 2.0);
    double z = state_of(w, top).position[2];
    sb_world_destroy(w);
    return z;
}

Test(sleep, bodies_in_no_common_collision_group_pass_through_each_other)
{
    double shared = dropped_height(0x3, 0x6), apart = dropped_height(0x2, 0x1), none = dropped_height(0, 0x1);
    printf("collision groups: upper cube at %.4f m sharing a group, %.4f m in none of the lower's, %.4f m in no "
           "group\n", shared, apart, none);
    cr_assert(fabs(shared - 1.5) < 0.01, "sharing bit 1 the cube lands on the other, at %g m", shared);
    cr_assert(fabs(apart - 0.5) < 0.01, "apart the cube falls through the other onto the floor, at %g m", apart);
    cr_assert(none < -5.0, "in no group the cube meets nothing, not even the floor: at %g m", none);
}

Test(sleep, two_bodies_in_no_common_group_are_never_tested_for_contact)
{
    /* no floor, no gravity: two overlapping cubes, alone */
    sb_world_def wd = sb_default_world_def();
    wd.gravity[2] = 0.0;
    for (int shared = 0; shared < 2; shared++) {
        sb_world *w = NULL;
        cr_assert_eq(sb_world_create(&wd, &w), SB_OK);
        sb_body_def d = cube(SB_BODY_DYNAMIC, 0.0, 0.0);
        d.collision_groups = 1u << 19; /* Blender's collection 20 */
        add(w, d);
        d = cube(SB_BODY_DYNAMIC, 0.3, 0.0);
        d.collision_groups = shared ? 1u << 19 | 1u : 1u;
        add(w, d);
        step_to(w, 0.1);
        sb_world_stats st = stats_of(w);
        if (shared) cr_assert(st.rigid_pair_tests > 0, "sharing a group the pair is tested");
        else cr_assert_eq(st.rigid_pair_tests, 0, "in no common group: %lld tests", (long long)st.rigid_pair_tests);
        sb_world_destroy(w);
    }
}

/* --- sleeping ----------------------------------------------------------------------------- */

enum { STACK = 3 };

/* A stack of STACK cubes resting on the floor, deactivation on (or off). */
static void add_stack(sb_world *w, sb_body_id ids[STACK], int deactivation, int start_deactivated, double base)
{
    for (int i = 0; i < STACK; i++) {
        sb_body_def d = cube(SB_BODY_DYNAMIC, 0.0, base + 0.5 + i);
        d.use_deactivation = deactivation, d.start_deactivated = start_deactivated;
        ids[i] = add(w, d);
    }
}

static int sleeping(sb_world *w, const sb_body_id ids[], int n)
{
    int count = 0;
    for (int i = 0; i < n; i++) count += state_of(w, ids[i]).sleeping;
    return count;
}

Test(sleep, a_resting_stack_falls_asleep_after_its_time_and_then_costs_nothing)
{
    sb_world *w = make_world();
    add_floor(w);
    sb_body_id stack[STACK];
    add_stack(w, stack, 1, 0, 0.0);
    step_to(w, 1.9);
    cr_assert_eq(sleeping(w, stack, STACK), 0, "asleep before deactivate_time (2 s)");
    cr_assert_eq(stats_of(w).sleeping_bodies, 0);
    step_to(w, 2.2);
    cr_assert_eq(sleeping(w, stack, STACK), STACK, "the stack is not asleep after 2.2 s");
    sb_world_stats asleep = stats_of(w);
    cr_assert_eq(asleep.sleeping_bodies, STACK);
    double before[STACK * 16], after[STACK * 16];
    double all_before[(STACK + 1) * 16], all_after[(STACK + 1) * 16];
    cr_assert_eq(sb_world_get_body_transforms(w, all_before, STACK + 1), SB_OK);
    step_to(w, 4.0);
    sb_world_stats later = stats_of(w);
    cr_assert_eq(sb_world_get_body_transforms(w, all_after, STACK + 1), SB_OK);
    memcpy(before, all_before + 16, sizeof before), memcpy(after, all_after + 16, sizeof after);
    printf("sleeping stack: %lld pair tests and %lld body moves up to 2.2 s, %lld and %lld more over the next 1.8 s\n",
           (long long)asleep.rigid_pair_tests, (long long)asleep.rigid_body_moves,
           (long long)(later.rigid_pair_tests - asleep.rigid_pair_tests),
           (long long)(later.rigid_body_moves - asleep.rigid_body_moves));
    cr_assert(asleep.rigid_pair_tests > 0 && asleep.rigid_body_moves > 0);
    cr_assert_eq(later.rigid_pair_tests, asleep.rigid_pair_tests, "a sleeping stack was tested for contact");
    cr_assert_eq(later.rigid_body_moves, asleep.rigid_body_moves, "a sleeping stack was integrated");
    cr_assert_eq(memcmp(before, after, sizeof before), 0, "a sleeping body moved");
    for (int i = 0; i < STACK; i++) {
        sb_body_state s = state_of(w, stack[i]);
        cr_assert(s.kinetic_energy == 0.0 && s.linear_velocity[2] == 0.0, "a sleeping body has velocity");
        cr_assert(fabs(s.position[2] - (0.5 + i)) < 2e-3, "cube %d sleeps at %g m", i, s.position[2]);
    }
    sb_world_destroy(w);

    /* without deactivation the same stack never sleeps and is tested every step */
    w = make_world();
    add_floor(w);
    add_stack(w, stack, 0, 1, 0.0); /* Start Deactivated without Deactivation: ignored, as Blender */
    step_to(w, 4.0);
    cr_assert_eq(sleeping(w, stack, STACK), 0);
    cr_assert(stats_of(w).rigid_pair_tests > later.rigid_pair_tests);
    sb_world_destroy(w);
}

Test(sleep, a_sleeping_stack_is_woken_by_a_falling_box_and_sleeps_again)
{
    sb_world *w = make_world();
    add_floor(w);
    sb_body_id stack[STACK];
    add_stack(w, stack, 1, 0, 0.0);
    step_to(w, 2.5);
    cr_assert_eq(sleeping(w, stack, STACK), STACK);
    sb_body_def d = cube(SB_BODY_DYNAMIC, 0.2, STACK + 1.0); /* 0.5 m above the top, off centre */
    d.use_deactivation = 1;
    sb_body_id falling = add(w, d);
    step_to(w, 2.9); /* it falls 0.5 m in 0.32 s */
    cr_assert_eq(sleeping(w, stack, STACK), 0, "the stack slept on through the hit");
    double top = state_of(w, falling).position[2];
    cr_assert(top > STACK + 0.4, "the falling box passed into the stack: at %g m", top);
    step_to(w, 6.0);
    sb_body_id all[STACK + 1] = {stack[0], stack[1], stack[2], falling};
    cr_assert_eq(sleeping(w, all, STACK + 1), STACK + 1, "the stack and the box did not sleep again");
    top = state_of(w, falling).position[2];
    printf("woken stack: the box that hit it rests at %.4f m (%.1f expected), all asleep again by 6 s\n", top,
           STACK + 0.5);
    cr_assert(fabs(top - (STACK + 0.5)) < 0.01);
    sb_world_destroy(w);
}

/* Bullet wakes a sleeping island that an active body touches into WANTS_DEACTIVATION (timer
 * zero, btSimulationIslandManager::buildIslands), and wantsSleeping() holds in that state: a
 * woken body that stays slow sleeps again as soon as nothing active is in its island, without
 * waiting deactivate_time again. A light ball bouncing off a sleeping heavy box: the box wakes
 * at the hit and is asleep again while the ball is still in the air, 0.3 s later. */
Test(sleep, a_woken_body_that_stays_slow_sleeps_again_without_waiting_its_time_again)
{
    sb_world *w = make_world();
    add_floor(w);
    sb_body_def d = cube(SB_BODY_DYNAMIC, 0.0, 0.5);
    d.use_deactivation = 1, d.restitution = 1.0;
    sb_body_id box = add(w, d);
    step_to(w, 2.5);
    cr_assert(state_of(w, box).sleeping, "the box is not asleep after 2.5 s");
    sb_body_def b = sb_default_body_def();
    b.shape = SB_SHAPE_SPHERE, b.radius = 0.1, b.mass = 0.01, b.restitution = 1.0;
    b.center[2] = 1.6; /* 0.5 m above the box: it lands after 0.32 s at 3.1 m/s */
    sb_body_id ball = add(w, b);
    double woke_at = -1.0, slept_at = -1.0;
    for (int k = 1; k <= 144; k++) { /* 2.5 s .. 3.1 s, one rigid step (1/240 s) at a time */
        double t = 2.5 + k / 240.0;
        step_to(w, t);
        int asleep = state_of(w, box).sleeping;
        if (!asleep && woke_at < 0.0) woke_at = t;
        if (asleep && woke_at >= 0.0 && slept_at < 0.0) slept_at = t;
    }
    sb_body_state ball_state = state_of(w, ball), box_state = state_of(w, box);
    printf("ball on a sleeping box: the box woke by %.2f s, slept again by %.2f s; the ball at %.3f m "
           "going %+.3f m/s at 3.1 s\n", woke_at, slept_at, ball_state.position[2], ball_state.linear_velocity[2]);
    cr_assert(woke_at > 2.75 && woke_at < 2.9, "the box woke at %g s, not at the hit (2.82 s)", woke_at);
    cr_assert(ball_state.position[2] > 1.2, "the ball did not bounce: at %g m", ball_state.position[2]);
    cr_assert(slept_at > 0.0 && slept_at < woke_at + 0.1,
              "the woken box waited to sleep again (asleep by %g s, woken by %g s)", slept_at, woke_at);
    cr_assert(fabs(box_state.position[2] - 0.5) < 2e-3, "the box sleeps at %g m", box_state.position[2]);
    sb_world_destroy(w);
}

Test(sleep, a_body_started_deactivated_hangs_in_the_air_until_hit)
{
    sb_world *w = make_world();
    add_floor(w);
    sb_body_id stack[STACK];
    add_stack(w, stack, 1, 1, 3.0); /* 3 m above the floor, asleep from the start */
    step_to(w, 1.0);
    for (int i = 0; i < STACK; i++) {
        sb_body_state s = state_of(w, stack[i]);
        cr_assert(s.sleeping && s.position[2] == 3.5 + i, "cube %d at %g m", i, s.position[2]);
    }
    cr_assert_eq(stats_of(w).rigid_body_moves, 0, "a body started deactivated was moved");
    sb_body_def d = cube(SB_BODY_DYNAMIC, 0.0, 3.0 + STACK + 1.0);
    sb_body_id falling = add(w, d);
    step_to(w, 3.0);
    /* the hit on the top wakes the whole stack (their bounds overlap), which falls to the floor */
    cr_assert_eq(sleeping(w, stack, STACK), 0);
    for (int i = 0; i < STACK; i++) {
        double z = state_of(w, stack[i]).position[2];
        cr_assert(z < 3.0 + i, "cube %d did not fall: at %g m", i, z);
    }
    cr_assert(state_of(w, falling).position[2] < 3.0 + STACK + 0.5);
    sb_world_destroy(w);
}

Test(sleep, a_moving_kinematic_body_wakes_what_it_pushes_and_a_still_one_does_not)
{
    sb_world *w = make_world();
    sb_body_def d = cube(SB_BODY_DYNAMIC, 0.0, 5.0);
    d.use_deactivation = d.start_deactivated = 1;
    sb_body_id asleep = add(w, d);
    sb_body_id pusher = add(w, cube(SB_BODY_KINEMATIC, -1.0, 5.0)); /* touching, standing still */
    step_to(w, 0.5);
    cr_assert(state_of(w, asleep).sleeping, "a kinematic body standing still woke it");
    double m[16] = {1, 0, 0, 0.5, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    cr_assert_eq(sb_body_set_target(w, pusher, 1.0, m), SB_OK, "%s", sb_last_error());
    step_to(w, 1.0);
    sb_body_state s = state_of(w, asleep);
    cr_assert(!s.sleeping && s.position[2] < 5.0 && s.position[0] > 0.1, "pushed: at (%g, %g)", s.position[0],
              s.position[2]);
    sb_world_destroy(w);
}

Test(sleep, a_joint_to_an_awake_body_wakes_a_sleeping_one)
{
    sb_world *w = make_world();
    sb_body_def d = cube(SB_BODY_DYNAMIC, 0.0, 5.0);
    d.use_deactivation = d.start_deactivated = 1;
    sb_body_id asleep = add(w, d);
    sb_body_id awake = add(w, cube(SB_BODY_DYNAMIC, 1.5, 5.0));
    sb_joint_def j = sb_default_joint_def();
    j.type = SB_JOINT_FIXED, j.body_a = asleep, j.body_b = awake;
    j.pivot[0] = 0.75, j.pivot[2] = 5.0;
    sb_joint_id joint;
    cr_assert_eq(sb_world_add_joint(w, &j, &joint), SB_OK, "%s", sb_last_error());
    step_to(w, 0.5);
    sb_body_state a = state_of(w, asleep), b = state_of(w, awake);
    double drop = 0.5 * G * 0.25;
    printf("joined to an awake body: the sleeping one fell %.4f m, the other %.4f m (free fall %.4f m)\n",
           5.0 - a.position[2], 5.0 - b.position[2], drop);
    cr_assert(!a.sleeping && fabs(5.0 - a.position[2] - drop) < 0.02 && fabs(5.0 - b.position[2] - drop) < 0.02);
    sb_world_destroy(w);
}

/* A world's step that is rejected (a cloth's, say) undoes the bodies' advance: the sleep it
 * changed too, or the step tried again would start with the bodies asleep and moving. */
Test(sleep, an_undone_advance_gives_back_the_sleep_it_changed)
{
    rigid_system sys;
    rigid_system_init(&sys, (rigid_settings){.gravity = v3(0, 0, -G), .max_step = 1.0 / 240.0, .iterations = 10,
                                             .contact_margin = 0.005, .max_speed = 1000.0, .time_scale = 1.0});
    int32_t id;
    sb_body_def floor = cube(SB_BODY_STATIC, 0.0, -0.5);
    cr_assert_eq(rigid_system_add_body(&sys, &floor, 0.0, &id), SB_OK);
    for (int i = 0; i < STACK; i++) {
        sb_body_def d = cube(SB_BODY_DYNAMIC, 0.0, 0.5 + i);
        d.use_deactivation = 1;
        cr_assert_eq(rigid_system_add_body(&sys, &d, 0.0, &id), SB_OK);
    }
    sb_failure failure;
    double t = 0.0, h = 1.0 / 24.0;
    for (; t < 1.99; t += h) cr_assert_eq(rigid_system_advance(&sys, t, h, &failure), SB_OK);
    double still[STACK + 1];
    for (int i = 1; i <= STACK; i++) {
        still[i] = sys.bodies[i]->state.still_time;
        cr_assert_eq(sys.bodies[i]->state.sleep_group, SLEEP_AWAKE);
    }
    cr_assert_eq(rigid_system_advance(&sys, t, 4 * h, &failure), SB_OK);
    cr_assert_eq(rigid_sleep_count(&sys), STACK, "the stack did not fall asleep in the step");
    rigid_system_undo_advance(&sys);
    for (int i = 1; i <= STACK; i++) {
        cr_assert_eq(sys.bodies[i]->state.sleep_group, SLEEP_AWAKE, "body %d stayed asleep after the undo", i);
        cr_assert_eq(sys.bodies[i]->state.still_time, still[i]);
    }
    rigid_system_free(&sys);
}

/* --- saved states ------------------------------------------------------------------------- */

/* A stack that falls asleep at about 2 s, a cube dropped from 36 m that hits it at about 2.6 s
 * and wakes it, and a cube that started deactivated beside it. */
static sb_world *sleepy_scene(void)
{
    sb_world *w = make_world();
    add_floor(w);
    sb_body_id stack[STACK];
    add_stack(w, stack, 1, 0, 0.0);
    sb_body_def d = cube(SB_BODY_DYNAMIC, 0.1, 36.0);
    d.use_deactivation = 1;
    add(w, d);
    d = cube(SB_BODY_DYNAMIC, 3.0, 2.0);
    d.use_deactivation = d.start_deactivated = 1;
    add(w, d);
    return w;
}

enum { SCENE_BODIES = STACK + 3 };

static void resume_at(double saved, double end)
{
    sb_world *w = sleepy_scene();
    step_to(w, saved);
    int32_t asleep_then = stats_of(w).sleeping_bodies;
    uint64_t size = 0;
    cr_assert_eq(sb_world_get_state_size(w, &size), SB_OK);
    void *state = malloc(size);
    cr_assert_eq(sb_world_save_state(w, state, size), SB_OK, "%s", sb_last_error());
    step_to(w, end);
    double straight[SCENE_BODIES * 16], resumed[SCENE_BODIES * 16];
    cr_assert_eq(sb_world_get_body_transforms(w, straight, SCENE_BODIES), SB_OK);
    sb_world_stats a = stats_of(w);

    sb_world *w2 = sleepy_scene();
    cr_assert_eq(sb_world_load_state(w2, state, size), SB_OK, "%s", sb_last_error());
    cr_assert_eq(stats_of(w2).sleeping_bodies, asleep_then);
    step_to(w2, end);
    cr_assert_eq(sb_world_get_body_transforms(w2, resumed, SCENE_BODIES), SB_OK);
    sb_world_stats b = stats_of(w2);
    printf("sleepy scene saved at %.1f s with %d bodies asleep, resumed to %.1f s: %d asleep at the end\n", saved,
           asleep_then, end, a.sleeping_bodies);
    cr_assert_eq(memcmp(straight, resumed, sizeof straight), 0, "the resumed world went another way");
    cr_assert(a.sleeping_bodies == b.sleeping_bodies && a.rigid_pair_tests == b.rigid_pair_tests &&
              a.rigid_body_moves == b.rigid_body_moves, "other figures");
    free(state);
    sb_world_destroy(w), sb_world_destroy(w2);
}

Test(sleep, a_saved_world_with_sleeping_bodies_and_running_timers_resumes_bit_for_bit)
{
    resume_at(1.0, 3.5);  /* timers running, one body asleep from the start */
    resume_at(2.3, 3.5);  /* the stack asleep, about to be hit */
    /* a state whose bodies sleep differently does not fit a world whose deactivation differs */
    sb_world *w = sleepy_scene();
    uint64_t size = 0;
    cr_assert_eq(sb_world_get_state_size(w, &size), SB_OK);
    void *state = malloc(size);
    cr_assert_eq(sb_world_save_state(w, state, size), SB_OK);
    sb_world *other = make_world();
    add_floor(other);
    sb_body_id stack[STACK];
    add_stack(other, stack, 0, 0, 0.0);
    add(other, cube(SB_BODY_DYNAMIC, 0.1, 36.0));
    add(other, cube(SB_BODY_DYNAMIC, 3.0, 2.0));
    cr_assert_eq(sb_world_load_state(other, state, size), SB_ERROR_INVALID_ARGUMENT);
    cr_assert_not_null(strstr(sb_last_error(), "body 1"), "%s", sb_last_error());
    free(state);
    sb_world_destroy(w), sb_world_destroy(other);
}

/* --- definitions ------------------------------------------------------------------------- */

Test(sleep, bad_deactivation_settings_are_refused_with_a_message)
{
    sb_world *w = make_world();
    sb_body_id id;
    sb_body_def d = cube(SB_BODY_DYNAMIC, 0.0, 0.0);
    cr_assert_eq(d.collision_groups, 1u, "Blender's default: collection 1 alone");
    cr_assert(d.deactivate_linear_velocity == 0.4 && d.deactivate_angular_velocity == 0.5 &&
              d.deactivate_time == 2.0 && d.use_deactivation == 0 && d.start_deactivated == 0);
    d.deactivate_linear_velocity = -0.1;
    cr_assert_eq(sb_world_add_body(w, &d, &id), SB_ERROR_INVALID_ARGUMENT);
    cr_assert_not_null(strstr(sb_last_error(), "deactivation velocities"), "%s", sb_last_error());
    d = cube(SB_BODY_DYNAMIC, 0.0, 0.0);
    d.deactivate_angular_velocity = NAN;
    cr_assert_eq(sb_world_add_body(w, &d, &id), SB_ERROR_INVALID_ARGUMENT);
    d = cube(SB_BODY_DYNAMIC, 0.0, 0.0);
    d.deactivate_linear_velocity = INFINITY;
    cr_assert_eq(sb_world_add_body(w, &d, &id), SB_ERROR_INVALID_ARGUMENT);
    d = cube(SB_BODY_DYNAMIC, 0.0, 0.0);
    d.deactivate_time = -1.0;
    cr_assert_eq(sb_world_add_body(w, &d, &id), SB_ERROR_INVALID_ARGUMENT);
    cr_assert_not_null(strstr(sb_last_error(), "deactivate_time"), "%s", sb_last_error());
    /* a static body set to start deactivated is simply static */
    d = cube(SB_BODY_STATIC, 0.0, 0.0);
    d.use_deactivation = d.start_deactivated = 1;
    cr_assert_eq(sb_world_add_body(w, &d, &id), SB_OK, "%s", sb_last_error());
    cr_assert_eq(state_of(w, id).sleeping, 0);
    sb_world_destroy(w);
}
