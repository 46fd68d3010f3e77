/* Comparators for qsort and searches in sorted index runs, shared across the solver. */
#ifndef SB_SORT_H
#define SB_SORT_H

#include <stdint.h>

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

#endif
