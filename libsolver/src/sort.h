/* Comparators for qsort shared across the solver. */
#ifndef SB_SORT_H
#define SB_SORT_H

#include <stdint.h>

/* int32_t in ascending order. */
static inline int compare_i32(const void *pa, const void *pb)
{
    int32_t a = *(const int32_t *)pa, b = *(const int32_t *)pb;
    return (a > b) - (a < b);
}

#endif
