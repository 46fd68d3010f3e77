/* Fuzz target: sb_world_load_state with damaged states, past the checksum.
 *
 * Every input starts from the genuine state of a small world (a pinned cloth with self
 * collision over a floor and a ball of 448 triangles, whose collision tree is as deep as a
 * real collider's, two boxes on a static floor joined by a breakable hinge, deactivation on
 * and their still timers running, a third box asleep in the air from the start, goal springs
 * moving up, a sewing spring, the cloth meeting only the floor, stepped three frames), edits it
 * and gives it a correct header and checksum, so the fuzzer reaches the structural checks
 * behind them (counts, fingerprints, trees, contacts, warm starts) rather than stopping at
 * the checksum. Input: mode byte (0 edit, 1 cut to a length then edit, 2 edit and keep the
 * stale checksum) | [u32 length for mode 1] | then 5-byte edits: u32 offset (modulo the
 * payload's size) and a byte XORed in there. A refused state must leave the world as it
 * was; a loaded one must step on without crashing. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

enum { GRID = 4, HEADER_BYTES = 32, RINGS = 15, SEGMENTS = 16 };
static const sb_cloth_id CLOTH = {0}; /* the world's only cloth */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A UV sphere (poles as single vertices) of radius 0.05 just below the cloth. */
static sb_collider_def ball(void)
{
    enum { VERTICES = 2 + (RINGS - 1) * SEGMENTS, TRIANGLES = 2 * SEGMENTS * (RINGS - 1) };
    static double positions[3 * VERTICES];
    static int32_t triangles[3 * TRIANGLES];
    positions[2] = 0.15, positions[5] = 0.05; /* the poles: vertex 0 on top, 1 at the bottom */
    positions[0] = positions[3] = 0.15, positions[1] = positions[4] = 0.15;
    for (int r = 1; r < RINGS; r++)
        for (int k = 0; k < SEGMENTS; k++) {
            double polar = 3.141592653589793 * r / RINGS, around = 6.283185307179586 * k / SEGMENTS;
            double *p = &positions[3 * (2 + (r - 1) * SEGMENTS + k)];
            p[0] = 0.15 + 0.05 * sin(polar) * cos(around), p[1] = 0.15 + 0.05 * sin(polar) * sin(around);
            p[2] = 0.1 + 0.05 * cos(polar);
        }
    int32_t *t = triangles;
    for (int k = 0; k < SEGMENTS; k++) {
        int32_t next = (k + 1) % SEGMENTS, top = 2, bottom = 2 + (RINGS - 2) * SEGMENTS;
        t[0] = 0, t[1] = top + k, t[2] = top + next, t += 3;
        t[0] = 1, t[1] = bottom + next, t[2] = bottom + k, t += 3;
        for (int r = 0; r + 2 < RINGS; r++) {
            int32_t a = 2 + r * SEGMENTS + k, b = 2 + r * SEGMENTS + next;
            t[0] = a, t[1] = a + SEGMENTS, t[2] = b + SEGMENTS, t += 3;
            t[0] = a, t[1] = b + SEGMENTS, t[2] = b, t += 3;
        }
    }
    sb_collider_def def = sb_default_collider_def();
    def.vertex_count = VERTICES, def.positions = positions, def.triangle_count = TRIANGLES, def.triangles = triangles;
    return def;
}

static sb_world *make_world(void)
{
    static double cloth_positions[3 * GRID * GRID], floor_vertices[3 * 4];
    static int32_t cloth_triangles[6 * (GRID - 1) * (GRID - 1)], floor_triangles[6] = {0, 1, 2, 0, 2, 3};
    static const int32_t pins[2] = {0, GRID - 1};
    for (int j = 0, t = 0; j < GRID; j++)
        for (int i = 0; i < GRID; i++) {
            double *p = &cloth_positions[3 * (j * GRID + i)];
            p[0] = 0.1 * i, p[1] = 0.1 * j, p[2] = 0.2;
            if (i + 1 < GRID && j + 1 < GRID) {
                int32_t a = j * GRID + i, quad[6] = {a, a + 1, a + GRID + 1, a, a + GRID + 1, a + GRID};
                memcpy(&cloth_triangles[6 * t++], quad, sizeof quad);
            }
        }
    const double corners[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
    for (int k = 0; k < 4; k++)
        floor_vertices[3 * k] = corners[k][0], floor_vertices[3 * k + 1] = corners[k][1], floor_vertices[3 * k + 2] = 0.1;

    sb_world_def def = sb_default_world_def();
    sb_world *world = NULL;
    fuzz_require(sb_world_create(&def, &world) == SB_OK);
    sb_cloth_def cloth = sb_default_cloth_def();
    cloth.vertex_count = GRID * GRID, cloth.positions = cloth_positions;
    cloth.triangle_count = 2 * (GRID - 1) * (GRID - 1), cloth.triangles = cloth_triangles;
    cloth.pin_count = 2, cloth.pins = pins, cloth.self_collision = 1;
    /* goal springs on the far row, a sewing spring across the cloth */
    static double goals[GRID * GRID];
    for (int v = GRID * (GRID - 1); v < GRID * GRID; v++) goals[v] = 5.0;
    static const int32_t springs[2] = {GRID, 2 * GRID - 1};
    cloth.goal_stiffness = goals, cloth.goal_damping = 0.1;
    cloth.spring_count = 1, cloth.springs = springs, cloth.spring_max_force = 5.0;
    sb_cloth_id cloth_id;
    fuzz_require(sb_world_add_cloth(world, &cloth, &cloth_id) == SB_OK);
    sb_collider_def floor = sb_default_collider_def();
    floor.vertex_count = 4, floor.positions = floor_vertices, floor.triangle_count = 2, floor.triangles = floor_triangles;
    sb_collider_id id;
    fuzz_require(sb_world_add_collider(world, &floor, &id) == SB_OK);
    sb_collider_def sphere = ball();
    fuzz_require(sb_world_add_collider(world, &sphere, &id) == SB_OK);
    sb_body_def body = sb_default_body_def();
    body.shape = SB_SHAPE_BOX;
    body.type = SB_BODY_STATIC;
    body.center[0] = 3.0, body.center[2] = -0.5;
    body.half_extents[0] = body.half_extents[1] = 2.0, body.half_extents[2] = 0.5;
    sb_body_id body_id;
    fuzz_require(sb_world_add_body(world, &body, &body_id) == SB_OK);
    body.type = SB_BODY_DYNAMIC;
    body.half_extents[0] = body.half_extents[1] = body.half_extents[2] = 0.2;
    body.use_deactivation = 1, body.collision_groups = 0x5; /* still timers running in the state */
    for (int k = 0; k < 2; k++) {
        body.center[2] = 0.19 + 0.41 * k;
        fuzz_require(sb_world_add_body(world, &body, &body_id) == SB_OK);
    }
    /* and a box asleep in the air from the start: a sleep group in the state */
    body.start_deactivated = 1, body.center[0] = 4.0, body.center[2] = 2.0;
    fuzz_require(sb_world_add_body(world, &body, &body_id) == SB_OK);
    /* the two boxes joined by a breakable hinge with a limit, a motor and a spring */
    sb_joint_def joint = sb_default_joint_def();
    joint.type = SB_JOINT_HINGE, joint.body_a = (sb_body_id){1}, joint.body_b = (sb_body_id){2};
    joint.pivot[0] = 3.0, joint.pivot[2] = 0.4;
    joint.use_limit[5] = 1, joint.lower[5] = -0.5, joint.upper[5] = 0.5;
    joint.use_motor[5] = 1, joint.motor_velocity[5] = 1.0, joint.motor_max_force[5] = 0.1;
    joint.use_spring[0] = 1, joint.spring_stiffness[0] = 100.0, joint.spring_damping[0] = 1.0;
    joint.breakable = 1, joint.breaking_threshold = 1.0;
    sb_joint_id joint_id;
    fuzz_require(sb_world_add_joint(world, &joint, &joint_id) == SB_OK);
    /* a gusty wind on its way to a new pose, so the state holds a field's path half travelled */
    sb_field_def wind = sb_default_field_def();
    wind.type = SB_FIELD_WIND, wind.strength = 0.5, wind.flow = 0.2, wind.noise = 0.1, wind.axis[0] = 1.0;
    sb_field_id wind_id;
    fuzz_require(sb_world_add_field(world, &wind, &wind_id) == SB_OK);
    fuzz_require(sb_cloth_set_field_weight(world, cloth_id, wind_id, 0.8) == SB_OK);
    const double gust_at[3] = {0.5, 0.0, 0.3}, gust_axis[3] = {1.0, 0.5, 0.0};
    fuzz_require(sb_field_set_target(world, wind_id, 5.0 / 24.0, gust_at, gust_axis, 0.9) == SB_OK);
    /* the goals on their way up, and the cloth meeting only the floor */
    double goal_targets[3 * GRID * GRID];
    for (int i = 0; i < 3 * GRID * GRID; i++) goal_targets[i] = cloth_positions[i] + (i % 3 == 2 ? 0.1 : 0.0);
    fuzz_require(sb_cloth_set_goal_targets(world, cloth_id, 5.0 / 24.0, goal_targets, GRID * GRID) == SB_OK);
    fuzz_require(sb_cloth_set_colliders(world, cloth_id, &(sb_collider_id){0}, 1) == SB_OK);
    for (int frame = 1; frame <= 3; frame++) fuzz_require(sb_world_step_to(world, frame / 24.0) == SB_OK);
    return world;
}

static uint64_t payload_hash(const uint8_t *bytes, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL; /* the library's FNV-1a over 64-bit words */
    for (; n >= 8; n -= 8, bytes += 8) {
        uint64_t word;
        memcpy(&word, bytes, 8);
        h = (h ^ word) * 0x100000001b3ULL;
    }
    for (; n > 0; n--, bytes++) h = (h ^ *bytes) * 0x100000001b3ULL;
    return h;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sb_world *source = make_world();
    uint64_t state_size = 0;
    fuzz_require(sb_world_get_state_size(source, &state_size) == SB_OK && state_size > HEADER_BYTES);
    uint8_t *state = fuzz_alloc(state_size);
    fuzz_require(sb_world_save_state(source, state, state_size) == SB_OK);
    sb_world_destroy(source);

    fuzz_input in = fuzz_input_make(data, size);
    uint8_t mode = fuzz_byte(&in) % 3;
    uint64_t payload = state_size - HEADER_BYTES;
    if (mode == 1) {
        uint32_t length = 0;
        fuzz_bytes(&in, &length, sizeof length);
        payload = length % (payload + 1);
        memcpy(state + 16, &payload, 8);
    }
    while (fuzz_has(&in, 5) && payload > 0) {
        uint32_t offset = 0;
        fuzz_bytes(&in, &offset, sizeof offset);
        state[HEADER_BYTES + offset % payload] ^= fuzz_byte(&in);
    }
    if (mode != 2) {
        uint64_t checksum = payload_hash(state + HEADER_BYTES, payload);
        memcpy(state + 24, &checksum, 8);
    }

    sb_world *world = make_world();
    double before[3 * GRID * GRID], after[3 * GRID * GRID];
    fuzz_require(sb_cloth_get_positions(world, CLOTH, before, GRID * GRID) == SB_OK);
    sb_result loaded = CHECKED(sb_world_load_state(world, state, HEADER_BYTES + payload));
    if (loaded != SB_OK) {
        fuzz_require(sb_cloth_get_positions(world, CLOTH, after, GRID * GRID) == SB_OK);
        fuzz_require(memcmp(before, after, sizeof before) == 0); /* refused: nothing changed */
        fuzz_require(sb_world_get_time(world) == 3 / 24.0);
    } else {
        double now = sb_world_get_time(world);
        if (now > -1e6 && now < 1e6) {
            /* the next frame's targets, as a bake gives them, then one frame */
            double end = now + 1.0 / 24.0, targets[6] = {0, 0, 0.2, 0.3, 0, 0.2};
            if (CHECKED(sb_cloth_set_pin_targets(world, CLOTH, end, targets, 2)) == SB_OK) fuzz_step_to(world, end);
        }
    }
    sb_world_destroy(world);
    free(state);
    return 0;
}
