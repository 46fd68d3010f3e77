/* Comparators for qsort, searches in sorted index runs and a radix sort of keys, shared across
 * the solver. */
#ifndef SB_SORT_H
#define SB_SORT_H

#include <stdint.h>
#include <string.h>

/* int32_t in ascending order. */
static inline int compare_i32(const void *pa, const void *pb)
{
    int32_t a = *(const int32_t *)pa, b = *(const int32_t *)pb;
    return (a > b) - (a < b);
}

/* Index of `value` in the ascending run items[lo, hi), or -1. */
static inline int32_t find_sorted_i32(const int32_t *items, int32_t lo, int32_t hi, int32_t value)
{
    hi--;
    while (lo <= hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (items[mid] == value) return mid;
        if (items[mid] < value) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

/* Sorts n keys, all below `bound`, by least-significant digit first, 11 bits a pass, through
 * `spare` (n more); the result is in keys. Linear in n, where qsort showed in profiles. */
static inline void radix_sort_u64(uint64_t *keys, uint64_t *spare, int32_t n, uint64_t bound)
{
    enum { DIGIT_BITS = 11, DIGITS = 1 << DIGIT_BITS };
    int32_t counts[DIGITS];
    for (int shift = 0; shift < 64 && bound > (uint64_t)1 << shift; shift += DIGIT_BITS) {
        memset(counts, 0, sizeof counts);
        for (int32_t i = 0; i < n; i++) counts[(keys[i] >> shift) & (DIGITS - 1)]++;
        for (int32_t d = 0, sum = 0; d < DIGITS; d++) {
            int32_t c = counts[d];
            counts[d] = sum, sum += c;
        }
        for (int32_t i = 0; i < n; i++) spare[counts[(keys[i] >> shift) & (DIGITS - 1)]++] = keys[i];
        memcpy(keys, spare, (size_t)n * sizeof *keys);
    }
}

#endif
