/* Fuzz target: the cloth's optional features on a fixed small mesh, with force fields and
 * colliders, stepped, then their entry points with hostile arguments. fuzz_cloth fuzzes
 * the mesh; this one keeps the mesh sound (a 3x3 grid or a closed octahedron) so the
 * fuzzer spends its bytes on what the features read.
 *
 * Input: world def (fuzz_read_world_def) | shape byte (0 grid, 1 octahedron) | pins (<= 2) |
 * pressure, pressure_scale, pressure_target_volume, [pressure_weights] | [goal_stiffness],
 * goal_damping | spring count (<= 6), pairs, [rest lengths], tension, compression, max force |
 * internal_springs, max length, max diversion, normal check, tension, compression,
 * [internal_vertex_stiffness] | [stretch_scale], [compression_scale], [shear_scale],
 * [bend_scale] | self_friction, self_collision, self_thickness, gravity_scale, [shrink] |
 * [self_collision_off], [object_collision_off] | collider count (<= 2) and heights | field
 * count (<= 3) and every field of each | field weights (<= 3: field id, weight) |
 * sb_cloth_set_colliders mode and ids | step | goal targets | field target | step | strands:
 * pin count (<= 2) and pins, every material value, self_collision | their field weights | step. The strands
 * (the grid's three rows as three strands, added last so that the inputs written before them
 * keep their meaning) feel the same fields: wind across their segments (strand_wind.c).
 * [x]: a flag byte, then (odd) vertex_count values. Everything past the end of the input
 * takes its default: a grid with springs, goals and a wind, stepped twice, then pinned strands
 * in the wind, stepped once. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

enum { MAX_VERTICES = 9, MAX_PINS = 2, MAX_SPRINGS = 6, MAX_COLLIDERS = 2, MAX_FIELDS = 3 };

static const double MAX_STEP_LENGTH = 0.05;

static const double GRID_POSITIONS[3 * 9] = {0, 0, 1,   0.1, 0, 1,   0.2, 0, 1,   0, 0.1, 1,   0.1, 0.1, 1,
                                             0.2, 0.1, 1, 0, 0.2, 1, 0.1, 0.2, 1, 0.2, 0.2, 1};
static const int32_t GRID_TRIANGLES[3 * 8] = {0, 1, 4, 0, 4, 3, 1, 2, 5, 1, 5, 4,
                                              3, 4, 7, 3, 7, 6, 4, 5, 8, 4, 8, 7};
/* wound counter-clockwise seen from outside: a positive volume */
static const double OCTAHEDRON_POSITIONS[3 * 6] = {0.1, 0, 1,  -0.1, 0, 1,  0, 0.1, 1,
                                                   0, -0.1, 1, 0, 0, 1.1, 0, 0, 0.9};
static const int32_t OCTAHEDRON_TRIANGLES[3 * 8] = {0, 2, 4, 2, 1, 4, 1, 3, 4, 3, 0, 4,
                                                    2, 0, 5, 1, 2, 5, 3, 1, 5, 0, 3, 5};

/* Arrays the cloth definition borrows, freed together. */
typedef struct owned {
    void *blocks[16];
    int count;
} owned;

static void *own(owned *o, size_t bytes)
{
    void *block = fuzz_alloc(bytes);
    if (o->count < (int)(sizeof o->blocks / sizeof o->blocks[0])) o->blocks[o->count++] = block;
    return block;
}

static void free_owned(owned *o)
{
    for (int i = 0; i < o->count; i++) free(o->blocks[i]);
    o->count = 0;
}

/* An optional array of `count` doubles: NULL for an even flag byte (the default). */
static const double *optional_doubles(fuzz_input *in, owned *o, size_t count, double fallback)
{
    if (!fuzz_bool(in)) return NULL;
    double *values = own(o, count * sizeof *values);
    fuzz_doubles(in, values, count, fallback);
    return values;
}

/* An optional array of `count` bytes (raw, so values other than 0 and 1 reach validation). */
static const uint8_t *optional_bytes(fuzz_input *in, owned *o, size_t count)
{
    if (!fuzz_bool(in)) return NULL;
    uint8_t *values = own(o, count);
    for (size_t i = 0; i < count; i++) values[i] = fuzz_byte(in);
    return values;
}

static sb_cloth_def read_cloth(fuzz_input *in, owned *o)
{
    sb_cloth_def d = sb_default_cloth_def();
    bool closed = fuzz_byte(in) % 2;
    d.vertex_count = closed ? 6 : 9;
    d.positions = closed ? OCTAHEDRON_POSITIONS : GRID_POSITIONS;
    d.triangle_count = 8;
    d.triangles = closed ? OCTAHEDRON_TRIANGLES : GRID_TRIANGLES;
    size_t n = (size_t)d.vertex_count;

    d.pin_count = fuzz_count(in, MAX_PINS);
    int32_t *pins = own(o, MAX_PINS * sizeof *pins);
    for (int32_t p = 0; p < d.pin_count; p++) pins[p] = fuzz_index(in, d.vertex_count);
    d.pins = pins;

    d.pressure = fuzz_double(in, closed ? 50.0 : 0.0);
    d.pressure_scale = fuzz_double(in, closed ? 100.0 : 0.0);
    d.pressure_target_volume = fuzz_double(in, 0.0);
    d.pressure_weights = optional_doubles(in, o, n, 1.0);

    /* by default (flag 0) every vertex has a goal; an odd flag: none; another even one: fuzzed */
    uint8_t goal_flag = fuzz_byte(in);
    if (goal_flag % 2 == 0) {
        double *goals = own(o, n * sizeof *goals);
        for (size_t i = 0; i < n; i++) goals[i] = goal_flag == 0 ? 20.0 : fuzz_double(in, 20.0);
        d.goal_stiffness = goals;
    }
    d.goal_damping = fuzz_double(in, 0.1);

    d.spring_count = fuzz_has(in, 1) ? fuzz_count(in, MAX_SPRINGS) : 2;
    int32_t *springs = own(o, 2 * MAX_SPRINGS * sizeof *springs);
    for (int32_t s = 0; s < MAX_SPRINGS; s++) /* defaults: across the mesh */
        springs[2 * s] = s % d.vertex_count, springs[2 * s + 1] = (s + d.vertex_count / 2 + 1) % d.vertex_count;
    for (int32_t s = 0; s < d.spring_count && fuzz_has(in, 1); s++) {
        springs[2 * s] = fuzz_index(in, d.vertex_count);
        springs[2 * s + 1] = fuzz_index(in, d.vertex_count);
    }
    d.springs = springs;
    d.spring_rest_lengths = optional_doubles(in, o, MAX_SPRINGS, 0.0);
    d.spring_tension_stiffness = fuzz_double(in, d.spring_tension_stiffness);
    d.spring_compression_stiffness = fuzz_double(in, d.spring_compression_stiffness);
    d.spring_max_force = fuzz_double(in, d.spring_max_force);

    d.internal_springs = fuzz_i32(in, closed);
    d.internal_spring_max_length = fuzz_double(in, d.internal_spring_max_length);
    d.internal_spring_max_diversion = fuzz_double(in, d.internal_spring_max_diversion);
    d.internal_spring_normal_check = fuzz_i32(in, 0);
    d.internal_tension_stiffness = fuzz_double(in, d.internal_tension_stiffness);
    d.internal_compression_stiffness = fuzz_double(in, d.internal_compression_stiffness);
    d.internal_vertex_stiffness = optional_doubles(in, o, 2 * n, 500.0);

    d.stretch_scale = optional_doubles(in, o, n, 1.0);
    d.compression_scale = optional_doubles(in, o, n, 0.5);
    d.shear_scale = optional_doubles(in, o, n, 1.0);
    d.bend_scale = optional_doubles(in, o, n, 2.0);

    d.self_friction = fuzz_double(in, d.self_friction);
    d.self_collision = fuzz_i32(in, 0);
    d.self_thickness = fuzz_double(in, d.self_thickness);
    d.gravity_scale = fuzz_double(in, d.gravity_scale);
    d.shrink = optional_doubles(in, o, n, 0.1);
    d.self_collision_off = optional_bytes(in, o, n);
    d.object_collision_off = optional_bytes(in, o, n);
    return d;
}

static void add_colliders(fuzz_input *in, sb_world *world, int32_t *out_count)
{
    static const int32_t triangles[6] = {0, 1, 2, 0, 2, 3};
    int32_t count = fuzz_has(in, 1) ? fuzz_count(in, MAX_COLLIDERS) : 1;
    *out_count = 0;
    for (int32_t c = 0; c < count; c++) {
        double z = fuzz_double(in, 0.85 - 0.1 * c);
        double positions[12] = {-1, -1, z, 1, -1, z, 1, 1, z, -1, 1, z};
        sb_collider_def d = sb_default_collider_def();
        d.vertex_count = 4, d.positions = positions, d.triangle_count = 2, d.triangles = triangles;
        sb_collider_id id;
        if (CHECKED(sb_world_add_collider(world, &d, &id)) == SB_OK) fuzz_require(id.index == (*out_count)++);
    }
}

static sb_field_def read_field(fuzz_input *in)
{
    sb_field_def d = sb_default_field_def();
    d.type = fuzz_choice(in, 6);
    d.shape = fuzz_choice(in, 3);
    for (int k = 0; k < 3; k++) d.position[k] = fuzz_double(in, k == 2 ? 1.5 : 0.0);
    for (int k = 0; k < 3; k++) d.axis[k] = fuzz_double(in, d.axis[k]);
    d.strength = fuzz_double(in, d.strength);
    d.flow = fuzz_double(in, d.flow);
    d.noise = fuzz_double(in, d.noise);
    d.seed = fuzz_i32(in, d.seed);
    d.falloff = fuzz_choice(in, 2);
    d.side = fuzz_choice(in, 3);
    d.falloff_power = fuzz_double(in, d.falloff_power);
    d.use_min_distance = fuzz_i32(in, 0);
    d.min_distance = fuzz_double(in, 0.1);
    d.use_max_distance = fuzz_i32(in, 0);
    d.max_distance = fuzz_double(in, 2.0);
    d.radial_power = fuzz_double(in, d.radial_power);
    d.use_min_radius = fuzz_i32(in, 0);
    d.min_radius = fuzz_double(in, 0.1);
    d.use_max_radius = fuzz_i32(in, 0);
    d.max_radius = fuzz_double(in, 2.0);
    d.noise_size = fuzz_double(in, d.noise_size);
    d.global_coordinates = fuzz_i32(in, 0);
    d.rest_length = fuzz_double(in, d.rest_length);
    d.damping = fuzz_double(in, d.damping);
    d.linear_drag = fuzz_double(in, d.linear_drag);
    d.quadratic_drag = fuzz_double(in, d.quadratic_drag);
    return d;
}

static int32_t add_fields(fuzz_input *in, sb_world *world)
{
    int32_t count = fuzz_has(in, 1) ? fuzz_count(in, MAX_FIELDS) : 1, added = 0;
    for (int32_t f = 0; f < count; f++) {
        sb_field_def d = read_field(in);
        sb_field_id id;
        if (CHECKED(sb_world_add_field(world, &d, &id)) == SB_OK) fuzz_require(id.index == added++);
    }
    return added;
}

static void set_field_weights(fuzz_input *in, sb_world *world, sb_cloth_id cloth, int32_t fields)
{
    int32_t count = fuzz_count(in, MAX_FIELDS);
    for (int32_t i = 0; i < count; i++) {
        sb_field_id field = {fuzz_index(in, fields)};
        CHECKED(sb_cloth_set_field_weight(world, cloth, field, fuzz_double(in, 0.5)));
    }
}

/* sb_cloth_set_colliders: leave it (0), all again (1), a list (2), or misuse. */
static void set_colliders(fuzz_input *in, sb_world *world, sb_cloth_id cloth, int32_t colliders)
{
    sb_collider_id ids[4];
    uint8_t mode = fuzz_byte(in) % 6;
    int32_t count = fuzz_count(in, 3);
    for (int32_t i = 0; i < 4; i++) ids[i] = (sb_collider_id){i < count ? fuzz_index(in, colliders) : 0};
    switch (mode) {
    case 1: CHECKED(sb_cloth_set_colliders(world, cloth, NULL, SB_ALL_COLLIDERS)); break;
    case 2: CHECKED(sb_cloth_set_colliders(world, cloth, ids, count)); break;
    case 3: CHECKED(sb_cloth_set_colliders(world, cloth, NULL, count)); break;
    case 4: CHECKED(sb_cloth_set_colliders(world, cloth, ids, SB_ALL_COLLIDERS)); break;
    case 5: CHECKED(sb_cloth_set_colliders(world, cloth, ids, fuzz_bool(in) ? -2 : INT32_MIN)); break;
    default: break;
    }
}

static void step_by(fuzz_input *in, sb_world *world, double fallback)
{
    double length = fuzz_bound_if_valid(fuzz_double(in, fallback), 0.0, MAX_STEP_LENGTH);
    fuzz_step_to(world, sb_world_get_time(world) + length);
}

static void set_goal_targets(fuzz_input *in, sb_world *world, sb_cloth_id cloth, const sb_cloth_def *def)
{
    int32_t n = def->vertex_count;
    double time = fuzz_double(in, sb_world_get_time(world) + 0.03);
    double *targets = fuzz_alloc(3 * ((size_t)n + 1) * sizeof *targets);
    for (int32_t i = 0; i < 3 * (n + 1); i++)
        targets[i] = fuzz_double(in, (i < 3 * n ? def->positions[i] : 0.0) + (i % 3 == 2 ? 0.05 : 0.0));
    int32_t count = fuzz_wrong_count(in, n);
    CHECKED(sb_cloth_set_goal_targets(world, cloth, time, fuzz_bool(in) ? NULL : targets, count));
    free(targets);
}

static void set_field_target(fuzz_input *in, sb_world *world, int32_t fields)
{
    sb_field_id field = {fuzz_index(in, fields)};
    double time = fuzz_double(in, sb_world_get_time(world) + 0.03), position[3], axis[3];
    for (int k = 0; k < 3; k++) position[k] = fuzz_double(in, k == 2 ? 1.2 : 0.1);
    for (int k = 0; k < 3; k++) axis[k] = fuzz_double(in, k == 0 ? 1.0 : 0.0);
    double strength = fuzz_double(in, 2.0);
    uint8_t nulls = fuzz_byte(in);
    CHECKED(sb_field_set_target(world, field, time, nulls & 1 ? NULL : position, nulls & 2 ? NULL : axis, strength));
}

static void read_back(const sb_world *world, sb_cloth_id cloth, const sb_cloth_def *def)
{
    double positions[3 * MAX_VERTICES], energy;
    CHECKED(sb_cloth_get_positions(world, cloth, positions, def->vertex_count));
    CHECKED(sb_cloth_get_kinetic_energy(world, cloth, &energy));
    sb_cloth_info info;
    if (CHECKED(sb_cloth_get_info(world, cloth, &info)) == SB_OK)
        fuzz_require(info.springs == def->spring_count && info.internal_springs >= 0 &&
                     info.vertex_count == def->vertex_count);
}

/* Strands in the world's fields, their definition from the input (hostile values reach
 * sb_world_add_strands' validation), stepped and read back. */
static void add_strands(fuzz_input *in, sb_world *world, int32_t fields)
{
    static const int32_t counts[3] = {3, 3, 3};
    sb_strand_def d = sb_default_strand_def();
    d.positions = GRID_POSITIONS, d.vertex_count = 9, d.strand_vertex_counts = counts, d.strand_count = 3;
    int32_t pins[MAX_PINS];
    d.pin_count = fuzz_has(in, 1) ? fuzz_count(in, MAX_PINS) : MAX_PINS;
    for (int32_t p = 0; p < d.pin_count; p++) pins[p] = fuzz_has(in, 1) ? fuzz_index(in, d.vertex_count) : 3 * p;
    d.pins = d.pin_count > 0 ? pins : NULL;
    double *values[] = {&d.mass_per_length, &d.stretch_stiffness, &d.bend_stiffness, &d.damping, &d.air_drag,
                        &d.thickness, &d.friction, &d.gravity_scale, &d.max_stretch, &d.max_compression};
    for (size_t k = 0; k < sizeof values / sizeof values[0]; k++) *values[k] = fuzz_double(in, *values[k]);
    d.self_collision = fuzz_i32(in, d.self_collision); /* the rows' segments against each other */
    sb_cloth_id strands;
    if (CHECKED(sb_world_add_strands(world, &d, &strands)) != SB_OK) return;
    set_field_weights(in, world, strands, fields);
    step_by(in, world, 0.03);
    double positions[3 * 9], energy;
    CHECKED(sb_cloth_get_positions(world, strands, positions, 9));
    CHECKED(sb_cloth_get_kinetic_energy(world, strands, &energy));
}

/* NULL pointers and unknown ids of the feature entry points: cheap, so every input takes them. */
static void misuse(sb_world *world, sb_cloth_id cloth, int32_t fields, int32_t colliders)
{
    sb_field_def def = sb_default_field_def();
    sb_field_id field;
    double point[3] = {0, 0, 1}, axis[3] = {0, 0, 1};
    CHECKED(sb_world_add_field(NULL, &def, &field));
    CHECKED(sb_world_add_field(world, NULL, &field));
    CHECKED(sb_world_add_field(world, &def, NULL));
    const int32_t bad_ids[] = {-1, INT32_MIN, INT32_MAX};
    for (size_t i = 0; i < sizeof bad_ids / sizeof bad_ids[0]; i++) {
        sb_cloth_id bad_cloth = {bad_ids[i]};
        sb_field_id bad_field = {bad_ids[i]};
        sb_collider_id bad_collider = {bad_ids[i]};
        CHECKED(sb_field_set_target(world, bad_field, 1e9, point, axis, 1.0));
        CHECKED(sb_cloth_set_field_weight(world, bad_cloth, (sb_field_id){0}, 1.0));
        CHECKED(sb_cloth_set_field_weight(world, cloth, bad_field, 1.0));
        CHECKED(sb_cloth_set_goal_targets(world, bad_cloth, 1e9, point, 1));
        CHECKED(sb_cloth_set_colliders(world, bad_cloth, NULL, SB_ALL_COLLIDERS));
        CHECKED(sb_cloth_set_colliders(world, cloth, &bad_collider, 1));
    }
    CHECKED(sb_field_set_target(world, (sb_field_id){fields}, 1e9, point, axis, 1.0));
    CHECKED(sb_field_set_target(NULL, (sb_field_id){0}, 1e9, point, axis, 1.0));
    CHECKED(sb_cloth_set_field_weight(NULL, cloth, (sb_field_id){0}, 1.0));
    CHECKED(sb_cloth_set_field_weight(world, cloth, (sb_field_id){fields}, 1.0));
    CHECKED(sb_cloth_set_goal_targets(NULL, cloth, 1e9, point, 1));
    CHECKED(sb_cloth_set_goal_targets(world, cloth, 1e9, NULL, 1));
    CHECKED(sb_cloth_set_colliders(NULL, cloth, NULL, SB_ALL_COLLIDERS));
    CHECKED(sb_cloth_set_colliders(world, cloth, &(sb_collider_id){colliders}, 1));
    if (colliders > 0) { /* listed twice */
        sb_collider_id twice[2] = {{0}, {0}};
        CHECKED(sb_cloth_set_colliders(world, cloth, twice, 2));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in = fuzz_input_make(data, size);
    sb_world *world = fuzz_open_world(&in);
    if (!world) return 0;

    owned arrays = {0};
    sb_cloth_def def = read_cloth(&in, &arrays);
    sb_cloth_id cloth = {-1};
    CHECKED(sb_world_add_cloth(world, &def, &cloth));
    int32_t colliders = 0;
    add_colliders(&in, world, &colliders);
    int32_t fields = add_fields(&in, world);
    set_field_weights(&in, world, cloth, fields);
    set_colliders(&in, world, cloth, colliders);

    step_by(&in, world, MAX_STEP_LENGTH);
    read_back(world, cloth, &def);
    set_goal_targets(&in, world, cloth, &def);
    set_field_target(&in, world, fields);
    step_by(&in, world, 0.03);
    read_back(world, cloth, &def);
    misuse(world, cloth, fields, colliders);
    add_strands(&in, world, fields);

    sb_world_destroy(world);
    free_owned(&arrays);
    return 0;
}
