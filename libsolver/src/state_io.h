/* Byte streams of a saved world state (world_state.c): a writer that counts or copies, a reader
 * that never reads past its buffer, a 64-bit FNV-1a hash for fingerprints and checksums, and
 * the checked pieces (numbers, collision trees) each object's part is made of (state_io.c). */
#ifndef SB_STATE_IO_H
#define SB_STATE_IO_H

#include <stdbool.h>
#include <float.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collision_bvh.h"
#include "api_error.h"

/* Writes to `at` when it is not NULL; `size` counts the bytes either way. */
typedef struct state_writer {
    uint8_t *at;
    uint64_t size;
} state_writer;

static inline void state_put(state_writer *w, const void *bytes, size_t n)
{
    if (w->at && n > 0) memcpy(w->at + w->size, bytes, n);
    w->size += n;
}

#define STATE_PUT(w, value) state_put((w), &(value), sizeof(value))

/* A state is loaded in three passes over the same bytes: CHECK validates everything and
 * changes nothing, RESERVE makes every allocation (the world stays as it was), APPLY
 * copies and cannot fail. */
typedef enum state_pass { PASS_CHECK, PASS_RESERVE, PASS_APPLY } state_pass;

typedef struct state_reader {
    const uint8_t *at, *end;
    state_pass pass;
    sb_result result; /* why reading stopped */
} state_reader;

/* Stops reading: records the error (error_set's arguments) and returns false. */
#define STATE_FAIL(in, ...) ((in)->result = error_set(__VA_ARGS__), false)

/* The next n bytes, or NULL when fewer are left. */
static inline const uint8_t *state_span(state_reader *r, uint64_t n)
{
    if ((uint64_t)(r->end - r->at) < n) return NULL;
    const uint8_t *span = r->at;
    r->at += n;
    return span;
}

/* Copies the next n bytes to out; false when fewer are left. */
static inline bool state_take(state_reader *r, void *out, size_t n)
{
    const uint8_t *span = state_span(r, n);
    if (span && n > 0) memcpy(out, span, n);
    return span != NULL;
}

#define STATE_TAKE(r, value) state_take((r), &(value), sizeof(value))

/* Whether the `count` int32 at `bytes` are a permutation of 0..count-1; stops the reader
 * saying "saved state is damaged: `what`" otherwise (or out of memory). */
static inline bool state_check_permutation(state_reader *in, const uint8_t *bytes, int32_t count, const char *what)
{
    uint8_t *seen = calloc((size_t)count + 1, 1);
    if (!seen) return STATE_FAIL(in, SB_ERROR_OUT_OF_MEMORY, "out of memory checking a saved state");
    bool ok = true;
    for (int32_t i = 0; i < count && ok; i++) {
        int32_t id;
        memcpy(&id, bytes + 4 * (size_t)i, 4);
        ok = id >= 0 && id < count && !seen[id];
        if (ok) seen[id] = 1;
    }
    free(seen);
    return ok || STATE_FAIL(in, SB_ERROR_INVALID_ARGUMENT, "saved state is damaged: %s", what);
}

/* FNV-1a over 64-bit words (then the tail bytes): fast enough to fingerprint a million
 * vertices in milliseconds, and any changed byte changes it. */
#define STATE_HASH_START 0xcbf29ce484222325ULL

static inline uint64_t state_hash(uint64_t h, const void *bytes, size_t n)
{
    const uint64_t prime = 0x100000001b3ULL;
    const uint8_t *p = bytes;
    for (; n >= 8; n -= 8, p += 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        h = (h ^ word) * prime;
    }
    for (; n > 0; n--, p++) h = (h ^ *p) * prime;
    return h;
}

#define STATE_HASH(h, value) ((h) = state_hash((h), &(value), sizeof(value)))

/* Stops the reader: "saved state is damaged: `what`". Returns false. */
bool state_damaged(state_reader *in, const char *what);
/* n doubles of at most `limit` in size (NaN refused) into dst: checked in the CHECK pass,
 * copied when applying (into the world) or always (`always`: into the caller's variables). */
bool state_doubles(state_reader *in, double *dst, size_t n, bool always, double limit, const char *what);
/* Finite doubles into the world's arrays, copied in the APPLY pass. */
bool state_read_doubles(state_reader *in, double *dst, size_t n, const char *what);
/* Positions, bounded as every entry point bounds them (MAX_COORDINATE). */
bool state_read_positions(state_reader *in, double *dst, size_t n, const char *what);
/* A local variable made of doubles (double, vec3, quat, mat3), read in every pass. */
#define STATE_TAKE_VALUES(in, var, what) \
    state_doubles((in), (double *)&(var), sizeof(var) / sizeof(double), true, DBL_MAX, (what))

/* A collision tree over `primitives` boxes, or that none was built yet. Reading checks that
 * the nodes form a tree as bvh_build lays one out (BVH_MAX_DEPTH deep at most, the leaves
 * covering the primitives in order), reserves its room, then copies it. */
void state_write_tree(state_writer *out, const bvh *t);
bool state_read_tree(state_reader *in, bvh *t, const aabb *boxes, int32_t primitives);

#endif
