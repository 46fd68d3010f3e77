#include "fuzz_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "api_error.h" /* error_clear(): internal, but the targets are built from the sources */

sb_result fuzz_check(sb_result result, const char *call)
{
    static int trace = -1;
    if (trace < 0) trace = getenv("SIMBAKE_FUZZ_TRACE") != NULL;
    const char *message = sb_last_error();
    if (trace)
        fprintf(stderr, "%s -> %s%s%s\n", call, sb_result_name(result), result == SB_OK ? "" : ": ",
                result == SB_OK || !message ? "" : message);
    if (result == SB_OK) return result;
    if (result < SB_ERROR_INVALID_ARGUMENT || result > SB_ERROR_SOLVER) {
        fprintf(stderr, "FUZZ CONTRACT BROKEN: %s returned %d, not an sb_result\n", call, (int)result);
        __builtin_trap();
    }
    if (!message || message[0] == '\0') {
        fprintf(stderr, "FUZZ CONTRACT BROKEN: %s failed with %s but sb_last_error() is empty\n", call,
                sb_result_name(result));
        __builtin_trap();
    }
    return result;
}

void fuzz_clear_error(void) { error_clear(); }

void fuzz_require_at(int condition, const char *text, const char *file, int line)
{
    if (condition) return;
    fprintf(stderr, "FUZZ CONTRACT BROKEN: %s (%s:%d)\n", text, file, line);
    __builtin_trap();
}

void *fuzz_alloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) abort();
    return p;
}

sb_world_def fuzz_read_world_def(fuzz_input *in)
{
    sb_world_def d = sb_default_world_def();
    for (int k = 0; k < 3; k++) d.gravity[k] = fuzz_double(in, d.gravity[k]);
    d.integrator = fuzz_choice(in, 4);
    d.max_step = fuzz_double(in, d.max_step);
    d.min_step = fuzz_double(in, d.min_step);
    d.grow_after = fuzz_i32(in, d.grow_after);
    d.max_strain_change = fuzz_double(in, d.max_strain_change);
    d.cg_tolerance = fuzz_double(in, d.cg_tolerance);
    d.cg_max_iterations = fuzz_i32(in, d.cg_max_iterations);
    d.error_tolerance = fuzz_double(in, d.error_tolerance);
    d.rigid_max_step = fuzz_double(in, d.rigid_max_step);
    d.rigid_iterations = fuzz_i32(in, d.rigid_iterations);
    d.contact_margin = fuzz_double(in, d.contact_margin);
    d.max_speed = fuzz_double(in, d.max_speed);
    d.rigid_time_scale = fuzz_double(in, d.rigid_time_scale);
    return d;
}

sb_result fuzz_step_to(sb_world *world, double end)
{
    double before = sb_world_get_time(world);
    sb_result r = CHECKED(sb_world_step_to(world, end));
    double after = sb_world_get_time(world);
    fuzz_require(after >= before);
    fuzz_require(r == SB_OK ? after == end : after <= end || !(end >= before));
    sb_failure failure;
    CHECKED(sb_world_get_failure(world, &failure));
    fuzz_require(failure.kind >= SB_FAILURE_NONE && failure.kind <= SB_FAILURE_TOLERANCE);
    fuzz_require(failure.object_kind >= SB_OBJECT_NONE && failure.object_kind <= SB_OBJECT_BODY);
    if (r == SB_OK) fuzz_require(failure.kind == SB_FAILURE_NONE);
    if (r == SB_ERROR_SOLVER || r == SB_ERROR_OUT_OF_MEMORY) fuzz_require(failure.kind != SB_FAILURE_NONE);
    return r;
}

double fuzz_bound_if_valid(double value, double lo, double hi)
{
    return value > 0.0 && isfinite(value) ? fmin(fmax(value, lo), hi) : value;
}

sb_world_def fuzz_bound_world_work(sb_world_def d)
{
    d.max_step = fuzz_bound_if_valid(d.max_step, 2e-3, 1.0 / 24.0);
    /* a rejected step halves: at most four halvings before min_step fails the call */
    if (d.min_step > 0.0 && d.min_step <= d.max_step) d.min_step = fmax(d.min_step, d.max_step / 16.0);
    if (d.grow_after > 8) d.grow_after = 8;
    if (d.cg_max_iterations > 200) d.cg_max_iterations = 200;
    d.rigid_max_step = fuzz_bound_if_valid(d.rigid_max_step, 1e-3, INFINITY);
    if (d.rigid_iterations > 20) d.rigid_iterations = 20;
    d.rigid_time_scale = fuzz_bound_if_valid(d.rigid_time_scale, 1e-3, 4.0);
    /* the explicit integrators shrink the step towards error_tolerance, down to min_step */
    return d;
}

void fuzz_probe_world_def(const sb_world_def *raw)
{
    sb_world *world = (sb_world *)1; /* must be reset to NULL on failure */
    if (CHECKED(sb_world_create(raw, &world)) != SB_OK) {
        fuzz_require(world == NULL);
        return;
    }
    double substeps = raw->max_step * raw->rigid_time_scale / raw->rigid_max_step;
    bool affordable = substeps <= 1e4 || substeps >= 2147483648.0;
    if (!affordable) {
        sb_world_destroy(world);
        return;
    }
    if (raw->integrator == SB_INTEGRATOR_IMPLICIT_EULER) {
        sb_body_def sphere = sb_default_body_def();
        sphere.shape = SB_SHAPE_SPHERE;
        sphere.radius = 0.5;
        sphere.center[2] = 1.0;
        sb_body_id id = {-1};
        CHECKED(sb_world_add_body(world, &sphere, &id));
    }
    /* lands on max_step: exactly one internal step of that size */
    fuzz_step_to(world, raw->max_step);
    sb_world_destroy(world);
}

fuzz_mesh fuzz_read_mesh(fuzz_input *in, int32_t max_vertices, int32_t max_triangles)
{
    fuzz_mesh m;
    m.vertex_count = fuzz_count(in, max_vertices);
    m.positions = fuzz_alloc(3 * (size_t)m.vertex_count * sizeof *m.positions);
    fuzz_doubles(in, m.positions, 3 * (size_t)m.vertex_count, 0.0);
    m.triangle_count = fuzz_count(in, max_triangles);
    m.triangles = fuzz_alloc(3 * (size_t)m.triangle_count * sizeof *m.triangles);
    for (size_t i = 0; i < 3 * (size_t)m.triangle_count; i++) m.triangles[i] = fuzz_index(in, m.vertex_count);
    return m;
}

void fuzz_mesh_free(fuzz_mesh *mesh)
{
    free(mesh->positions);
    free(mesh->triangles);
    *mesh = (fuzz_mesh){0};
}

static void set_identity(double m[16])
{
    for (int i = 0; i < 16; i++) m[i] = i % 5 == 0 ? 1.0 : 0.0;
}

void fuzz_read_matrix(fuzz_input *in, double m[16])
{
    set_identity(m);
    switch (fuzz_byte(in) % 4) {
    case 1: { /* rotation of q / |q|: zero or non-finite q gives NaN entries, on purpose */
        double w = fuzz_double(in, 1.0), x = fuzz_double(in, 0.0), y = fuzz_double(in, 0.0),
               z = fuzz_double(in, 0.0);
        double n = sqrt(w * w + x * x + y * y + z * z);
        w /= n, x /= n, y /= n, z /= n;
        double r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
                       2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                       2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)};
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) m[4 * i + j] = r[3 * i + j];
        for (int i = 0; i < 3; i++) m[4 * i + 3] = fuzz_double(in, 0.0);
        break;
    }
    case 2: {
        double s = fuzz_double(in, 1.0);
        for (int i = 0; i < 3; i++) m[5 * i] = s;
        for (int i = 0; i < 3; i++) m[4 * i + 3] = fuzz_double(in, 0.0);
        break;
    }
    case 3:
        for (int i = 0; i < 16; i++) m[i] = fuzz_double(in, m[i]);
        break;
    default: break;
    }
}

int32_t fuzz_wrong_count(fuzz_input *in, int32_t count)
{
    switch (fuzz_byte(in) % 6) {
    case 0: return count;
    case 1: return count - 1;
    case 2: return count + 1;
    case 3: return 0;
    case 4: return -1;
    default: return INT32_MIN;
    }
}

sb_world *fuzz_open_world(fuzz_input *in)
{
    sb_world_def raw = fuzz_read_world_def(in);
    fuzz_probe_world_def(&raw);
    sb_world_def def = fuzz_bound_world_work(raw);
    sb_world *world = NULL;
    return CHECKED(sb_world_create(&def, &world)) == SB_OK ? world : NULL;
}
