/* Fuzz target: a cloth (and optionally a collider) in a world, stepped a little, then
 * every cloth and collider entry point with hostile arguments.
 *
 * Input: world def (fuzz_read_world_def) | cloth mesh (<= 64 vertices, <= 96 triangles) |
 * UV flag [+ 6 per triangle] | 8 material doubles | self_collision byte | pins (<= 8) |
 * definition lie byte | collider flag [+ mesh (<= 32, <= 48), thickness, friction, carrier
 * flag [+ a dynamic ball's centre, radius, mass, velocity, feels_cloth]] |
 * second cloth flag [+ offset] | end time | pin targets | collider targets | second step. Everything past the end of the
 * input takes its default. */
#include <math.h>
#include <stdlib.h>

#include "fuzz_common.h"

enum { MAX_CLOTH_VERTICES = 64, MAX_CLOTH_TRIANGLES = 96, MAX_PINS = 8 };
enum { MAX_COLLIDER_VERTICES = 32, MAX_COLLIDER_TRIANGLES = 48 };

/* Steps of the target stay this short: with the bounded world definition that is a few
 * dozen internal steps at most. */
static const double MAX_STEP_LENGTH = 0.05;

typedef struct cloth_input {
    fuzz_mesh mesh;
    double *uvs;
    int32_t *pins;
    sb_cloth_def def;
} cloth_input;

static cloth_input read_cloth(fuzz_input *in)
{
    cloth_input c = {.mesh = fuzz_read_mesh(in, MAX_CLOTH_VERTICES, MAX_CLOTH_TRIANGLES)};
    sb_cloth_def d = sb_default_cloth_def();
    d.vertex_count = c.mesh.vertex_count;
    d.positions = c.mesh.positions;
    d.triangle_count = c.mesh.triangle_count;
    d.triangles = c.mesh.triangles;
    if (fuzz_bool(in)) {
        size_t uv_values = 6 * (size_t)c.mesh.triangle_count;
        c.uvs = fuzz_alloc(uv_values * sizeof *c.uvs);
        fuzz_doubles(in, c.uvs, uv_values, 0.0);
        d.uvs = c.uvs;
    }
    d.density = fuzz_double(in, d.density);
    d.stretch_stiffness = fuzz_double(in, d.stretch_stiffness);
    d.shear_stiffness = fuzz_double(in, d.shear_stiffness);
    d.bend_stiffness = fuzz_double(in, d.bend_stiffness);
    d.damping = fuzz_double(in, d.damping);
    d.air_drag = fuzz_double(in, d.air_drag);
    d.thickness = fuzz_double(in, d.thickness);
    d.friction = fuzz_double(in, d.friction);
    d.self_collision = fuzz_i32(in, 0);
    d.pin_count = fuzz_count(in, MAX_PINS);
    c.pins = fuzz_alloc((size_t)d.pin_count * sizeof *c.pins);
    for (int32_t p = 0; p < d.pin_count; p++) c.pins[p] = fuzz_index(in, c.mesh.vertex_count);
    d.pins = c.pins;
    /* counts that disagree with the arrays (never claiming more than they hold), NULLs */
    switch (fuzz_byte(in) % 10) {
    case 1: d.vertex_count -= 1; break;
    case 2: d.vertex_count = -1; break;
    case 3: d.triangle_count = INT32_MIN; break;
    case 4: d.triangle_count -= 1; break;
    case 5: d.pin_count = -1; break;
    case 6: d.positions = NULL; break;
    case 7: d.triangles = NULL; break;
    case 8: d.pins = NULL; break;
    default: break;
    }
    c.def = d;
    return c;
}

static void free_cloth(cloth_input *c)
{
    fuzz_mesh_free(&c->mesh);
    free(c->uvs);
    free(c->pins);
}

static fuzz_mesh add_collider(fuzz_input *in, sb_world *world, sb_collider_id *out_id)
{
    fuzz_mesh mesh = fuzz_read_mesh(in, MAX_COLLIDER_VERTICES, MAX_COLLIDER_TRIANGLES);
    sb_collider_def d = sb_default_collider_def();
    d.vertex_count = mesh.vertex_count;
    d.positions = mesh.positions;
    d.triangle_count = mesh.triangle_count;
    d.triangles = mesh.triangles;
    d.thickness = fuzz_double(in, d.thickness);
    d.friction = fuzz_double(in, d.friction);
    CHECKED(sb_world_add_collider(world, &d, out_id));
    /* carried by a dynamic ball that may feel the cloth (two-way coupling) */
    if (fuzz_bool(in)) {
        sb_body_def ball = sb_default_body_def();
        ball.shape = SB_SHAPE_SPHERE;
        fuzz_doubles(in, ball.center, 3, 0.0);
        ball.radius = fuzz_double(in, 0.2);
        ball.mass = fuzz_double(in, ball.mass);
        fuzz_doubles(in, ball.linear_velocity, 3, 0.0);
        ball.feels_cloth = fuzz_choice(in, 2);
        sb_body_id body = {-1};
        if (CHECKED(sb_world_add_body(world, &ball, &body)) == SB_OK)
            CHECKED(sb_collider_follow_body(world, *out_id, body));
    }
    return mesh;
}

/* A second cloth: the first one's definition moved by a decoded offset (2 cm up unless
 * the input says otherwise), so the two can meet: different cloths never pass through
 * each other. Returns its positions. */
static double *add_moved_copy(fuzz_input *in, sb_world *world, const cloth_input *c)
{
    double offset[3];
    for (int k = 0; k < 3; k++) offset[k] = fuzz_double(in, k == 2 ? 0.02 : 0.0);
    size_t values = 3 * (size_t)c->mesh.vertex_count;
    double *positions = fuzz_alloc(values * sizeof *positions);
    for (size_t i = 0; i < values; i++) positions[i] = c->mesh.positions[i] + offset[i % 3];
    sb_cloth_def def = c->def;
    if (def.positions) def.positions = positions;
    sb_cloth_id id = {-1};
    CHECKED(sb_world_add_cloth(world, &def, &id));
    return positions;
}

/* Steps by a decoded length (bounded when valid: NaN, negative and the like pass). */
static void step_by(fuzz_input *in, sb_world *world, double fallback)
{
    double length = fuzz_bound_if_valid(fuzz_double(in, fallback), 0.0, MAX_STEP_LENGTH);
    fuzz_step_to(world, sb_world_get_time(world) + length);
}

/* The getters, with counts off by a little or a lot (within the buffer: the mesh's size). */
static void read_back(fuzz_input *in, const sb_world *world, sb_cloth_id cloth, const cloth_input *c)
{
    int32_t vertex_count = c->def.vertex_count;
    double *buffer = fuzz_alloc(3 * ((size_t)c->mesh.vertex_count + 1) * sizeof *buffer);
    CHECKED(sb_cloth_get_positions(world, cloth, buffer, fuzz_wrong_count(in, vertex_count)));
    CHECKED(sb_cloth_get_velocities(world, cloth, buffer, fuzz_wrong_count(in, vertex_count)));
    free(buffer);
    double energy;
    CHECKED(sb_cloth_get_kinetic_energy(world, cloth, &energy));
    sb_cloth_info info;
    if (CHECKED(sb_cloth_get_info(world, cloth, &info)) == SB_OK)
        fuzz_require(info.vertex_count == vertex_count && info.degenerate_triangles <= info.triangle_count);
    sb_world_stats stats;
    CHECKED(sb_world_get_stats(world, &stats));
    /* what is tangled now: with itself, the second cloth, the collider (when there are) */
    int64_t pairs = -1;
    if (CHECKED(sb_cloth_count_intersections(world, cloth, cloth, &pairs)) == SB_OK) fuzz_require(pairs >= 0);
    CHECKED(sb_cloth_count_intersections(world, cloth, (sb_cloth_id){1}, &pairs));
    CHECKED(sb_cloth_count_collider_intersections(world, cloth, (sb_collider_id){0}, &pairs));
    int64_t inside = -1;
    if (CHECKED(sb_cloth_count_vertices_inside_collider(world, cloth, (sb_collider_id){0}, &inside)) == SB_OK)
        fuzz_require(inside >= 0 && inside <= vertex_count);
}

static void set_pin_targets(fuzz_input *in, sb_world *world, sb_cloth_id cloth, const cloth_input *c)
{
    int32_t pins = c->def.pin_count > 0 ? c->def.pin_count : 0;
    double time = fuzz_double(in, sb_world_get_time(world) + 0.02);
    double *targets = fuzz_alloc(3 * (size_t)(pins + 1) * sizeof *targets);
    for (int32_t p = 0; p < pins + 1; p++)
        for (int k = 0; k < 3; k++) {
            int32_t v = p < pins ? c->pins[p] : -1;
            double rest = v >= 0 && v < c->mesh.vertex_count ? c->mesh.positions[3 * v + k] : 0.0;
            targets[3 * p + k] = fuzz_double(in, rest);
        }
    int32_t count = fuzz_wrong_count(in, pins);
    CHECKED(sb_cloth_set_pin_targets(world, cloth, time, fuzz_bool(in) ? NULL : targets, count));
    free(targets);
}

static void set_collider_positions(fuzz_input *in, sb_world *world, sb_collider_id collider, const fuzz_mesh *mesh)
{
    double time = fuzz_double(in, sb_world_get_time(world) + 0.02);
    size_t values = 3 * ((size_t)mesh->vertex_count + 1);
    double *targets = fuzz_alloc(values * sizeof *targets);
    for (size_t i = 0; i < values; i++)
        targets[i] = fuzz_double(in, i < 3 * (size_t)mesh->vertex_count ? mesh->positions[i] : 0.0);
    int32_t count = fuzz_wrong_count(in, mesh->vertex_count);
    CHECKED(sb_collider_set_positions(world, collider, time, fuzz_bool(in) ? NULL : targets, count));
    free(targets);
}

/* NULL pointers and unknown ids: cheap, so every input takes them. */
static void misuse(sb_world *world, const sb_cloth_def *def, sb_cloth_id cloth, sb_collider_id collider)
{
    sb_world *no_world = (sb_world *)1;
    CHECKED(sb_world_create(NULL, &no_world));
    fuzz_require(no_world == NULL);
    sb_cloth_id id;
    sb_collider_id collider_id;
    double value, point[3] = {0};
    sb_cloth_info info;
    sb_world_stats stats;
    sb_collider_def collider_def = sb_default_collider_def();
    CHECKED(sb_world_create(NULL, NULL));
    CHECKED(sb_world_add_cloth(NULL, def, &id));
    CHECKED(sb_world_add_cloth(world, NULL, &id));
    CHECKED(sb_world_add_cloth(world, def, NULL));
    CHECKED(sb_world_add_collider(world, NULL, &collider_id));
    CHECKED(sb_world_add_collider(world, &collider_def, NULL));
    CHECKED(sb_world_add_collider(world, &collider_def, &collider_id)); /* empty mesh */
    CHECKED(sb_cloth_get_info(world, cloth, NULL));
    CHECKED(sb_cloth_get_info(NULL, cloth, &info));
    int64_t pairs;
    CHECKED(sb_cloth_count_intersections(world, cloth, cloth, NULL));
    CHECKED(sb_cloth_count_intersections(NULL, cloth, cloth, &pairs));
    CHECKED(sb_cloth_count_collider_intersections(world, cloth, collider, NULL));
    CHECKED(sb_cloth_count_collider_intersections(NULL, cloth, collider, &pairs));
    CHECKED(sb_cloth_count_vertices_inside_collider(world, cloth, collider, NULL));
    CHECKED(sb_cloth_count_vertices_inside_collider(NULL, cloth, collider, &pairs));
    CHECKED(sb_cloth_get_kinetic_energy(world, cloth, NULL));
    CHECKED(sb_cloth_get_positions(world, cloth, NULL, 0));
    CHECKED(sb_world_get_stats(world, NULL));
    CHECKED(sb_world_get_stats(NULL, &stats));
    CHECKED(sb_world_get_failure(world, NULL));
    CHECKED(sb_world_get_failure(NULL, &(sb_failure){0}));
    CHECKED(sb_world_step_to(NULL, 1.0));
    const int32_t bad_ids[] = {-1, INT32_MIN, INT32_MAX};
    for (size_t i = 0; i < sizeof bad_ids / sizeof bad_ids[0]; i++) {
        sb_cloth_id bad_cloth = {bad_ids[i]};
        sb_collider_id bad_collider = {bad_ids[i]};
        CHECKED(sb_cloth_get_info(world, bad_cloth, &info));
        CHECKED(sb_cloth_count_intersections(world, bad_cloth, cloth, &pairs));
        CHECKED(sb_cloth_count_intersections(world, cloth, bad_cloth, &pairs));
        CHECKED(sb_cloth_count_collider_intersections(world, cloth, bad_collider, &pairs));
        CHECKED(sb_cloth_count_vertices_inside_collider(world, cloth, bad_collider, &pairs));
        CHECKED(sb_cloth_count_vertices_inside_collider(world, bad_cloth, collider, &pairs));
        CHECKED(sb_cloth_get_kinetic_energy(world, bad_cloth, &value));
        CHECKED(sb_cloth_get_positions(world, bad_cloth, point, 1));
        CHECKED(sb_cloth_set_pin_targets(world, bad_cloth, 1e9, point, 1));
        CHECKED(sb_collider_set_positions(world, bad_collider, 1e9, point, 1));
        CHECKED(sb_collider_follow_body(world, bad_collider, (sb_body_id){0}));
        CHECKED(sb_collider_follow_body(world, collider, (sb_body_id){bad_ids[i]}));
        CHECKED(sb_cloth_attach_pins_to_body(world, bad_cloth, (sb_body_id){0}));
        CHECKED(sb_cloth_attach_pins_to_body(world, cloth, (sb_body_id){bad_ids[i]}));
    }
    /* one past the last: the world has no bodies, at most two cloths and one collider */
    CHECKED(sb_cloth_get_info(world, (sb_cloth_id){2}, &info));
    CHECKED(sb_collider_set_positions(world, (sb_collider_id){1}, 1e9, point, 1));
    CHECKED(sb_collider_follow_body(world, collider, (sb_body_id){0}));
    CHECKED(sb_cloth_attach_pins_to_body(NULL, cloth, (sb_body_id){0}));
    fuzz_require(sb_world_get_time(NULL) == 0.0);
    sb_world_destroy(NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in = fuzz_input_make(data, size);
    sb_world *world = fuzz_open_world(&in);
    if (!world) return 0;

    cloth_input c = read_cloth(&in);
    sb_cloth_id cloth = {-1};
    sb_collider_id collider = {-1};
    CHECKED(sb_world_add_cloth(world, &c.def, &cloth));
    fuzz_mesh collider_mesh = {0};
    if (fuzz_bool(&in)) collider_mesh = add_collider(&in, world, &collider);
    double *second_cloth = fuzz_bool(&in) ? add_moved_copy(&in, world, &c) : NULL;

    step_by(&in, world, MAX_STEP_LENGTH);
    read_back(&in, world, cloth, &c);
    set_pin_targets(&in, world, cloth, &c);
    set_collider_positions(&in, world, collider, &collider_mesh);
    step_by(&in, world, 0.02);
    read_back(&in, world, cloth, &c);
    misuse(world, &c.def, cloth, collider);
    /* last, so the inputs before it read as they did: the pins carried by the ball (body 0, when
     * there is one) or a hostile id, then moved by hand (refused once attached) and stepped */
    if (fuzz_bool(&in)) {
        CHECKED(sb_cloth_attach_pins_to_body(world, cloth, (sb_body_id){fuzz_choice(&in, 2)}));
        set_pin_targets(&in, world, cloth, &c);
        step_by(&in, world, 0.02);
        read_back(&in, world, cloth, &c);
    }

    sb_world_destroy(world);
    fuzz_mesh_free(&collider_mesh);
    free(second_cloth);
    free_cloth(&c);
    return 0;
}
