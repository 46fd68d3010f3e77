/* Fuzz target: joints of every type between a few boxes and spheres (and the world), with
 * limits, motors, springs and breaking, stepped, then the joint getters with hostile ids
 * and capacities. fuzz_rigid fuzzes the bodies' shapes; here they stay simple.
 *
 * Input: world def (fuzz_read_world_def) | body count (1..4) | per body: type, shape (sphere
 * or box), centre, size, velocity | joint count (<= 6) | per joint: type, body a, body b
 * (byte - 1: 0 the world), pivot, rotation, and per coordinate: use_limit, lower, upper,
 * use_motor, velocity, max force, use_spring, stiffness, damping | disable_collisions,
 * breakable, threshold, breaking step | step count (1..3) and lengths | capacity.
 * Everything past the end of the input takes its default: a chain of boxes hung from the
 * world by ball joints, stepped once. */
#include <math.h>
#include <stdlib.h>

#include "fuzz_common.h"

enum { MAX_BODIES = 4, MAX_JOINTS = 6, MAX_STEPS = 3 };

static const double MAX_STEP_LENGTH = 0.05;

static void add_body(fuzz_input *in, sb_world *world, int32_t i)
{
    sb_body_def d = sb_default_body_def();
    d.type = fuzz_choice(in, 3);
    d.shape = fuzz_choice(in, 2) == 1 ? SB_SHAPE_SPHERE : SB_SHAPE_BOX;
    for (int k = 0; k < 3; k++) d.center[k] = fuzz_double(in, k == 0 ? 0.5 * i : 1.0);
    double size = fuzz_double(in, 0.2);
    d.radius = size;
    for (int k = 0; k < 3; k++) d.half_extents[k] = size;
    for (int k = 0; k < 3; k++) d.linear_velocity[k] = fuzz_double(in, 0.0);
    sb_body_id id;
    CHECKED(sb_world_add_body(world, &d, &id));
}

/* Body b: byte - 1 so that the default (0) is the world; the hostile bytes stay hostile. */
static int32_t read_body_b(fuzz_input *in, int32_t body_count)
{
    uint8_t byte = fuzz_byte(in);
    return byte < 0xfc ? (int32_t)byte - 1 : fuzz_hostile_index(byte, body_count);
}

static void add_joint(fuzz_input *in, sb_world *world, int32_t j, int32_t body_count)
{
    sb_joint_def d = sb_default_joint_def();
    uint8_t type = fuzz_byte(in);
    d.type = type == 0 ? SB_JOINT_POINT : type < 0xfc ? (sb_joint_type)((type - 1) % 6)
                                                      : (sb_joint_type)fuzz_hostile_index(type, 6);
    uint8_t a = fuzz_byte(in);
    d.body_a.index = a == 0 ? j % body_count : a < 0xfc ? a - 1 : fuzz_hostile_index(a, body_count);
    d.body_b.index = read_body_b(in, body_count);
    for (int k = 0; k < 3; k++) d.pivot[k] = fuzz_double(in, k == 0 ? 0.5 * j - 0.25 : 1.0);
    for (int k = 0; k < 4; k++) d.rotation[k] = fuzz_double(in, d.rotation[k]);
    for (int c = 0; c < 6; c++) {
        d.use_limit[c] = fuzz_i32(in, 0);
        d.lower[c] = fuzz_double(in, -0.5);
        d.upper[c] = fuzz_double(in, 0.5);
        d.use_motor[c] = fuzz_i32(in, 0);
        d.motor_velocity[c] = fuzz_double(in, 1.0);
        d.motor_max_force[c] = fuzz_double(in, 10.0);
        d.use_spring[c] = fuzz_i32(in, 0);
        d.spring_stiffness[c] = fuzz_double(in, 100.0);
        d.spring_damping[c] = fuzz_double(in, 1.0);
    }
    d.disable_collisions = fuzz_i32(in, d.disable_collisions);
    d.breakable = fuzz_i32(in, 1);
    d.breaking_threshold = fuzz_double(in, 0.05);
    d.breaking_step = fuzz_double(in, d.breaking_step);
    sb_joint_id id = {-1};
    CHECKED(sb_world_add_joint(world, &d, &id));
}

/* The two getters agree: each joint broken by sb_joint_get_broken is listed, in id order,
 * with the same time, by sb_world_get_broken_joints (whose count never exceeds the joints). */
static void check_broken(fuzz_input *in, const sb_world *world, int32_t joint_count)
{
    sb_joint_id listed[MAX_JOINTS + 1];
    double times[MAX_JOINTS + 1];
    int32_t count = -1;
    if (CHECKED(sb_world_get_broken_joints(world, listed, times, MAX_JOINTS + 1, &count)) != SB_OK) return;
    fuzz_require(count >= 0 && count <= joint_count);
    int32_t next = 0;
    for (int32_t j = 0; j < joint_count; j++) {
        int32_t broken = -1;
        double time = 0.0;
        fuzz_require(CHECKED(sb_joint_get_broken(world, (sb_joint_id){j}, &broken, &time)) == SB_OK);
        fuzz_require(broken == 0 || broken == 1);
        if (broken) {
            fuzz_require(next < count && listed[next].index == j && times[next] == time);
            fuzz_require(time >= 0.0 && time <= sb_world_get_time(world));
            next++;
        } else {
            fuzz_require(time == -1.0);
        }
    }
    fuzz_require(next == count);
    /* a capacity too small, NULL outputs: the count is still the whole number */
    int32_t capacity = fuzz_count(in, MAX_JOINTS), again = -1;
    uint8_t nulls = fuzz_byte(in);
    if (CHECKED(sb_world_get_broken_joints(world, nulls & 1 ? NULL : listed, nulls & 2 ? NULL : times, capacity,
                                           &again)) == SB_OK)
        fuzz_require(again == count);
}

static void misuse(const sb_world *world, int32_t joint_count)
{
    sb_joint_def def = sb_default_joint_def();
    sb_joint_id id;
    int32_t broken, count;
    double time;
    CHECKED(sb_world_add_joint(NULL, &def, &id));
    CHECKED(sb_world_add_joint((sb_world *)world, NULL, &id));
    CHECKED(sb_world_add_joint((sb_world *)world, &def, NULL));
    const int32_t bad_ids[] = {-1, INT32_MIN, INT32_MAX, joint_count};
    for (size_t i = 0; i < sizeof bad_ids / sizeof bad_ids[0]; i++)
        CHECKED(sb_joint_get_broken(world, (sb_joint_id){bad_ids[i]}, &broken, &time));
    CHECKED(sb_joint_get_broken(NULL, (sb_joint_id){0}, &broken, &time));
    if (joint_count > 0) CHECKED(sb_joint_get_broken(world, (sb_joint_id){0}, NULL, NULL));
    CHECKED(sb_world_get_broken_joints(NULL, NULL, NULL, 0, &count));
    CHECKED(sb_world_get_broken_joints(world, NULL, NULL, 0, NULL));
    CHECKED(sb_world_get_broken_joints(world, NULL, NULL, -1, &count));
    CHECKED(sb_world_get_broken_joints(world, NULL, NULL, INT32_MIN, &count));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in = fuzz_input_make(data, size);
    sb_world *world = fuzz_open_world(&in);
    if (!world) return 0;

    int32_t wanted = fuzz_has(&in, 1) ? 1 + fuzz_count(&in, MAX_BODIES - 1) : 3;
    for (int32_t i = 0; i < wanted; i++) add_body(&in, world, i);
    int32_t body_count = 0;
    while (CHECKED(sb_body_get_state(world, (sb_body_id){body_count}, &(sb_body_state){0})) == SB_OK) body_count++;
    int32_t joints = fuzz_has(&in, 1) ? fuzz_count(&in, MAX_JOINTS) : 3;
    for (int32_t j = 0; j < joints; j++) add_joint(&in, world, j, body_count > 0 ? body_count : 1);
    int32_t joint_count = 0;
    while (CHECKED(sb_joint_get_broken(world, (sb_joint_id){joint_count}, NULL, NULL)) == SB_OK) joint_count++;
    fuzz_require(joint_count <= joints);

    int32_t steps = 1 + fuzz_count(&in, MAX_STEPS - 1);
    for (int32_t s = 0; s < steps; s++) {
        double length = fuzz_bound_if_valid(fuzz_double(&in, MAX_STEP_LENGTH), 0.0, MAX_STEP_LENGTH);
        fuzz_step_to(world, sb_world_get_time(world) + length);
        check_broken(&in, world, joint_count);
    }
    misuse(world, joint_count);

    sb_world_destroy(world);
    return 0;
}
