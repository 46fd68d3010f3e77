/* Fuzz target: rigid bodies of every shape and type, kinematic targets, a collider carried
 * by a body, a few steps, then the read-back entry points with hostile ids and counts.
 *
 * Input: world def (fuzz_read_world_def) | body count (<= 6) | per body: type, shape, mesh
 * (<= 32 vertices, <= 48 triangles), centre, radius, half extents, rotation, mass,
 * friction, restitution, velocities, dampings, collision groups, deactivation byte (bit 0
 * use_deactivation, bit 1 start_deactivated), its two speeds and time, [compound: part count
 * (<= 4) and per part shape, mesh (<= 12 vertices, <= 20 triangles), centre, radius, half
 * extents, rotation, lie byte], feels_cloth, definition lie byte | collider flag [+ mesh,
 * followed body] | step count (<= 3) and per step: target body, time, matrix, length |
 * read-back counts. Everything past the end of the input takes its default. */
#include <math.h>
#include <stdlib.h>

#include "fuzz_common.h"

enum { MAX_BODIES = 6, MAX_BODY_VERTICES = 32, MAX_BODY_TRIANGLES = 48, MAX_STEPS = 3, MAX_PARTS = 4,
       MAX_PART_VERTICES = 12, MAX_PART_TRIANGLES = 20 };

/* A compound's parts, read into parts[] (their meshes into meshes[]); returns the count. */
static int32_t read_parts(fuzz_input *in, sb_body_part parts[MAX_PARTS], fuzz_mesh meshes[MAX_PARTS])
{
    int32_t count = fuzz_count(in, MAX_PARTS);
    for (int32_t i = 0; i < count; i++) {
        sb_body_part *p = &parts[i];
        *p = sb_default_body_part();
        p->shape = fuzz_choice(in, 8);
        meshes[i] = fuzz_read_mesh(in, MAX_PART_VERTICES, MAX_PART_TRIANGLES);
        p->vertex_count = meshes[i].vertex_count, p->vertices = meshes[i].positions;
        p->triangle_count = meshes[i].triangle_count, p->triangles = meshes[i].triangles;
        fuzz_doubles(in, p->center, 3, 0.0);
        p->radius = fuzz_double(in, 0.3);
        fuzz_doubles(in, p->half_extents, 3, 0.3);
        for (int k = 0; k < 4; k++) p->rotation[k] = fuzz_double(in, p->rotation[k]);
        switch (fuzz_byte(in) % 8) { /* counts that disagree with the arrays, never beyond them */
        case 1: p->vertex_count = -1; break;
        case 2: p->vertices = NULL; break;
        case 3: p->triangle_count = INT32_MIN; break;
        default: break;
        }
    }
    return count;
}

static const double MAX_STEP_LENGTH = 0.05;

/* Reads one body and adds it; the mesh is only borrowed by the call. */
static void add_body(fuzz_input *in, sb_world *world)
{
    sb_body_def d = sb_default_body_def();
    d.type = fuzz_choice(in, 3);
    d.shape = fuzz_choice(in, 8);
    fuzz_mesh mesh = fuzz_read_mesh(in, MAX_BODY_VERTICES, MAX_BODY_TRIANGLES);
    d.vertex_count = mesh.vertex_count;
    d.vertices = mesh.positions;
    d.triangle_count = mesh.triangle_count;
    d.triangles = mesh.triangles;
    fuzz_doubles(in, d.center, 3, 0.0);
    d.radius = fuzz_double(in, 0.5);
    fuzz_doubles(in, d.half_extents, 3, 0.5);
    for (int k = 0; k < 4; k++) d.rotation[k] = fuzz_double(in, d.rotation[k]);
    d.mass = fuzz_double(in, d.mass);
    d.friction = fuzz_double(in, d.friction);
    d.restitution = fuzz_double(in, d.restitution);
    fuzz_doubles(in, d.linear_velocity, 3, 0.0);
    fuzz_doubles(in, d.angular_velocity, 3, 0.0);
    d.linear_damping = fuzz_double(in, 0.0);
    d.angular_damping = fuzz_double(in, 0.0);
    d.collision_groups = (uint32_t)fuzz_i32(in, (int32_t)d.collision_groups);
    uint8_t sleep = fuzz_byte(in);
    d.use_deactivation = sleep & 1, d.start_deactivated = (sleep >> 1) & 1;
    d.deactivate_linear_velocity = fuzz_double(in, d.deactivate_linear_velocity);
    d.deactivate_angular_velocity = fuzz_double(in, d.deactivate_angular_velocity);
    d.deactivate_time = fuzz_double(in, d.deactivate_time);
    sb_body_part parts[MAX_PARTS];
    fuzz_mesh part_meshes[MAX_PARTS];
    int32_t part_count = 0;
    if (d.shape == SB_SHAPE_COMPOUND) {
        part_count = read_parts(in, parts, part_meshes);
        d.part_count = part_count;
        d.parts = part_count > 0 || fuzz_bool(in) ? parts : NULL;
    }
    d.feels_cloth = fuzz_choice(in, 2);
    /* counts that disagree with the arrays, but never claim more than they hold */
    switch (fuzz_byte(in) % 8) {
    case 1: d.vertex_count -= 1; break;
    case 2: d.vertex_count = -1; break;
    case 3: d.triangle_count = INT32_MIN; break;
    case 4: d.vertices = NULL; break;
    case 5: d.triangles = NULL; break;
    default: break;
    }
    sb_body_id id = {-1};
    CHECKED(sb_world_add_body(world, &d, &id));
    fuzz_mesh_free(&mesh);
    for (int32_t i = 0; i < part_count; i++) fuzz_mesh_free(&part_meshes[i]);
}

static fuzz_mesh add_carried_collider(fuzz_input *in, sb_world *world, int32_t body_count)
{
    fuzz_mesh mesh = fuzz_read_mesh(in, MAX_BODY_VERTICES, MAX_BODY_TRIANGLES);
    sb_collider_def d = sb_default_collider_def();
    d.vertex_count = mesh.vertex_count;
    d.positions = mesh.positions;
    d.triangle_count = mesh.triangle_count;
    d.triangles = mesh.triangles;
    sb_collider_id collider = {-1};
    CHECKED(sb_world_add_collider(world, &d, &collider));
    sb_body_id body = {fuzz_choice(in, body_count > 0 ? body_count : 1)};
    CHECKED(sb_collider_follow_body(world, collider, body));
    CHECKED(sb_collider_follow_body(world, collider, body)); /* twice: refused */
    if (mesh.vertex_count > 0) /* a carried collider cannot be moved by hand */
        CHECKED(sb_collider_set_positions(world, collider, 1.0, mesh.positions, mesh.vertex_count));
    return mesh;
}

static void step(fuzz_input *in, sb_world *world, int32_t body_count)
{
    double now = sb_world_get_time(world);
    sb_body_id body = {fuzz_choice(in, body_count > 0 ? body_count : 1)};
    double target_time = fuzz_double(in, now + 0.05);
    double matrix[16];
    fuzz_read_matrix(in, matrix);
    CHECKED(sb_body_set_target(world, body, target_time, fuzz_bool(in) ? NULL : matrix));

    double length = fuzz_bound_if_valid(fuzz_double(in, 1.0 / 60.0), 0.0, MAX_STEP_LENGTH);
    fuzz_step_to(world, now + length);
}

static void read_back(fuzz_input *in, const sb_world *world, int32_t body_count)
{
    for (sb_body_id id = {-1}; id.index <= body_count; id.index++) {
        sb_body_state state;
        double transform[16];
        if (CHECKED(sb_body_get_state(world, id, &state)) == SB_OK)
            fuzz_require(state.mass >= 0.0 && state.contacts >= 0 && (state.sleeping == 0 || state.sleeping == 1));
        if (CHECKED(sb_body_get_transform(world, id, transform)) == SB_OK)
            fuzz_require(transform[15] == 1.0);
    }
    double *transforms = fuzz_alloc(16 * ((size_t)body_count + 1) * sizeof *transforms);
    CHECKED(sb_world_get_body_transforms(world, transforms, body_count));
    CHECKED(sb_world_get_body_transforms(world, transforms, fuzz_wrong_count(in, body_count)));
    free(transforms);
}

/* NULL pointers and unknown ids: cheap, so every input takes them. */
static void misuse(sb_world *world, int32_t body_count)
{
    sb_body_def def = sb_default_body_def();
    sb_body_state state;
    double matrix[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    sb_body_id id;
    CHECKED(sb_world_add_body(NULL, &def, &id));
    CHECKED(sb_world_add_body(world, NULL, &id));
    CHECKED(sb_world_add_body(world, &def, NULL));
    CHECKED(sb_world_add_body(world, &def, &id)); /* a hull of no vertices */
    CHECKED(sb_world_get_body_transforms(NULL, matrix, 0));
    CHECKED(sb_world_get_body_transforms(world, NULL, body_count));
    const int32_t bad_ids[] = {-1, INT32_MIN, INT32_MAX, body_count};
    for (size_t i = 0; i < sizeof bad_ids / sizeof bad_ids[0]; i++) {
        sb_body_id bad = {bad_ids[i]};
        CHECKED(sb_body_get_state(world, bad, &state));
        CHECKED(sb_body_get_transform(world, bad, matrix));
        CHECKED(sb_body_set_target(world, bad, 1e9, matrix));
        CHECKED(sb_body_get_state(NULL, bad, &state));
    }
    if (body_count > 0) {
        CHECKED(sb_body_get_state(world, (sb_body_id){0}, NULL));
        CHECKED(sb_body_get_transform(world, (sb_body_id){0}, NULL));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in = fuzz_input_make(data, size);
    sb_world *world = fuzz_open_world(&in);
    if (!world) return 0;

    int32_t wanted = fuzz_count(&in, MAX_BODIES);
    for (int32_t i = 0; i < wanted; i++) add_body(&in, world);
    int32_t body_count = 0;
    while (CHECKED(sb_body_get_state(world, (sb_body_id){body_count}, &(sb_body_state){0})) == SB_OK) body_count++;
    fuzz_require(body_count <= wanted);

    fuzz_mesh collider_mesh = {0};
    if (fuzz_bool(&in)) collider_mesh = add_carried_collider(&in, world, body_count);
    int32_t steps = 1 + fuzz_count(&in, MAX_STEPS - 1);
    for (int32_t i = 0; i < steps; i++) step(&in, world, body_count);
    read_back(&in, world, body_count);
    misuse(world, body_count);

    sb_world_destroy(world);
    fuzz_mesh_free(&collider_mesh);
    return 0;
}
