/* Shared by the fuzz targets: result checks, and decoding of world definitions, meshes
 * and matrices (fuzz_input.h holds the byte-level readers). */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "fuzz_input.h"
#include "simbake.h"

/* Every result is fine, but a failure must come with a message and a known code;
 * otherwise the target traps (libFuzzer then saves the input). With SIMBAKE_FUZZ_TRACE set
 * in the environment, prints each call, its result and message (to see what a seed or a
 * crash input does). */
sb_result fuzz_check(sb_result result, const char *call);
void fuzz_clear_error(void);

/* Calls `call` with the thread's message cleared first, so that a stale message of an
 * earlier failure cannot stand in for one the call forgot to set. */
#define CHECKED(call) (fuzz_clear_error(), fuzz_check((call), #call))

/* Traps (a finding) when `condition` is false, saying which: for contracts beyond
 * "no crash". */
#define fuzz_require(condition) fuzz_require_at((condition), #condition, __FILE__, __LINE__)
void fuzz_require_at(int condition, const char *text, const char *file, int line);

/* malloc that never returns NULL (the fuzzer's own allocations are not under test);
 * zero bytes still give a distinct pointer. */
void *fuzz_alloc(size_t bytes);

/* Every field of an sb_world_def from the input (defaults when it runs out). */
sb_world_def fuzz_read_world_def(fuzz_input *in);

/* sb_world_step_to(world, end), then the contracts around it: the clock never goes back,
 * lands on `end` on success and stays at or before it on failure, and
 * sb_world_get_failure agrees with the result. */
sb_result fuzz_step_to(sb_world *world, double end);

/* Valid but extreme settings make the library do what was asked, only slowly (max_step
 * 1e-9 s means 5e7 steps to 0.05 s): not a bug, but a fuzzer timeout. So the values that
 * control work are clamped into ranges that keep one input well under a second when they
 * are valid; invalid ones (NaN, Inf, zero, negative) are left for validation to reject. */
sb_world_def fuzz_bound_world_work(sb_world_def def);

/* The unbounded definition still deserves a run: creates a world from it and, if that
 * succeeds, adds a sphere and takes exactly one internal step (to t = max_step), whose
 * cost is known: max_step / rigid_max_step rigid substeps. That is skipped only when it is
 * valid but expensive (1e4 .. 2^31 substeps); beyond 2^31 no amount of time could honour
 * the request, so the library must refuse it, quickly. */
void fuzz_probe_world_def(const sb_world_def *raw);

/* The start of both world targets: reads a world definition, probes it raw, and creates a
 * world from its work-bounded copy; NULL when the library refuses it. */
sb_world *fuzz_open_world(fuzz_input *in);

/* Clamps a time or length into [lo, hi] when it is positive and finite; other values
 * pass unchanged so the library's validation sees them. */
double fuzz_bound_if_valid(double value, double lo, double hi);

/* A triangle mesh with arrays owned by the struct. */
typedef struct fuzz_mesh {
    int32_t vertex_count;
    double *positions;   /* vertex_count x 3 */
    int32_t triangle_count;
    int32_t *triangles;  /* triangle_count x 3, indices possibly out of range */
} fuzz_mesh;

/* Counts (up to the maxima), coordinates and indices from the input. */
fuzz_mesh fuzz_read_mesh(fuzz_input *in, int32_t max_vertices, int32_t max_triangles);
void fuzz_mesh_free(fuzz_mesh *mesh);

/* A 4x4 row-major matrix: mode byte 0 identity, 1 quaternion (not normalised) and
 * translation, 2 uniform scale and translation, 3 all 16 values (identity as default). */
void fuzz_read_matrix(fuzz_input *in, double out[16]);

/* An out-of-range count to pass with a buffer of `count + 1` elements: never more than
 * the buffer holds (a caller lying about sizes is out of the contract). */
int32_t fuzz_wrong_count(fuzz_input *in, int32_t count);

#endif
