/* Decoding of fuzzer bytes into values. Every reader returns a safe default once the
 * stream runs out, so any prefix of an input is itself a valid input.
 *
 * Doubles are a tag byte and an optional payload: one-byte tags reach the hostile values
 * (NaN, Inf, huge, denormal) in one mutation, and compact tags keep seeds small:
 *   0 default          1 8-byte little-endian double   2 NaN        3 +Inf      4 -Inf
 *   5 0.0              6 -0.0                           7 DBL_MAX    8 -DBL_MAX  9 DBL_MIN
 *  10 smallest denormal  11 -default  12 default * 1e6  13 default * 1e-6
 *  14 4-byte little-endian float  15 one signed byte / 16 (-8 .. 7.9375)
 * Only the low four bits of the tag count. make_corpus.py writes the same format. */
#ifndef FUZZ_INPUT_H
#define FUZZ_INPUT_H

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct fuzz_input {
    const uint8_t *data;
    size_t size;
    size_t pos;
} fuzz_input;

static inline fuzz_input fuzz_input_make(const uint8_t *data, size_t size)
{
    return (fuzz_input){.data = data, .size = size, .pos = 0};
}

static inline bool fuzz_has(const fuzz_input *in, size_t bytes)
{
    return in->size - in->pos >= bytes;
}

/* Next byte, 0 when the stream has run out. */
static inline uint8_t fuzz_byte(fuzz_input *in)
{
    return fuzz_has(in, 1) ? in->data[in->pos++] : 0;
}

static inline bool fuzz_bool(fuzz_input *in) { return fuzz_byte(in) & 1; }

/* Little-endian bytes into *out; false (and nothing consumed) when too few remain. */
static inline bool fuzz_bytes(fuzz_input *in, void *out, size_t bytes)
{
    if (!fuzz_has(in, bytes)) return false;
    memcpy(out, in->data + in->pos, bytes); /* host order: little-endian on every target we build */
    in->pos += bytes;
    return true;
}

static inline double fuzz_double(fuzz_input *in, double fallback)
{
    uint8_t tag = fuzz_byte(in) & 0x0f;
    switch (tag) {
    case 1: {
        double v;
        return fuzz_bytes(in, &v, sizeof v) ? v : fallback;
    }
    case 2: return NAN;
    case 3: return INFINITY;
    case 4: return -INFINITY;
    case 5: return 0.0;
    case 6: return -0.0;
    case 7: return DBL_MAX;
    case 8: return -DBL_MAX;
    case 9: return DBL_MIN;
    case 10: return DBL_TRUE_MIN;
    case 11: return -fallback;
    case 12: return fallback * 1e6;
    case 13: return fallback * 1e-6;
    case 14: {
        float v;
        return fuzz_bytes(in, &v, sizeof v) ? (double)v : fallback;
    }
    case 15: return fuzz_has(in, 1) ? (int8_t)fuzz_byte(in) / 16.0 : fallback;
    default: return fallback;
    }
}

static inline void fuzz_doubles(fuzz_input *in, double *out, size_t count, double fallback)
{
    for (size_t i = 0; i < count; i++) out[i] = fuzz_double(in, fallback);
}

/* An int32: tag 0 default, 1 4-byte little-endian, 2 INT32_MIN, 3 INT32_MAX, 4 -1,
 * 5 0, else tag - 6 (so small values are one byte). */
static inline int32_t fuzz_i32(fuzz_input *in, int32_t fallback)
{
    uint8_t tag = fuzz_byte(in);
    switch (tag) {
    case 0: return fallback;
    case 1: {
        int32_t v;
        return fuzz_bytes(in, &v, sizeof v) ? v : fallback;
    }
    case 2: return INT32_MIN;
    case 3: return INT32_MAX;
    case 4: return -1;
    case 5: return 0;
    default: return tag - 6;
    }
}

/* Bytes 0xfc..0xff: the hostile ones among indices and enums. */
static inline int32_t fuzz_hostile_index(uint8_t byte, int32_t count)
{
    switch (byte) {
    case 0xfc: return -1;
    case 0xfd: return INT32_MIN;
    case 0xfe: return INT32_MAX;
    default: return count; /* one past the end */
    }
}

/* A mesh index or id for something with `count` elements: the byte itself (out of range
 * when >= count), or one of the hostile values. */
static inline int32_t fuzz_index(fuzz_input *in, int32_t count)
{
    uint8_t byte = fuzz_byte(in);
    return byte < 0xfc ? byte : fuzz_hostile_index(byte, count);
}

/* One of `count` choices (an enum), valid unless the byte is one of the hostile ones. */
static inline int32_t fuzz_choice(fuzz_input *in, int32_t count)
{
    uint8_t byte = fuzz_byte(in);
    return byte < 0xfc ? byte % count : fuzz_hostile_index(byte, count);
}

/* A count in 0..max (how many of something the target builds). */
static inline int32_t fuzz_count(fuzz_input *in, int32_t max)
{
    return fuzz_byte(in) % (max + 1);
}

#endif
