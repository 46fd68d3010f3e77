/* Arrays that grow by doubling. */
#ifndef SB_GROW_H
#define SB_GROW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

/* Makes *items hold at least `needed` elements of `size` bytes; false when out of memory
 * (then *items and *capacity are unchanged). */
static inline bool grow(void **items, int32_t *capacity, int32_t needed, size_t size)
{
    if (needed <= *capacity) return true;
    int32_t cap = *capacity ? *capacity : 16;
    while (cap < needed) cap = cap > INT32_MAX / 2 ? needed : 2 * cap;
    void *grown = realloc(*items, (size_t)cap * size);
    if (!grown) return false;
    *items = grown;
    *capacity = cap;
    return true;
}

#endif
