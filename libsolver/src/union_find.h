/* Disjoint sets over ids 0..n-1 as a parent array (parent[i] == i: a root), for islands of
 * touching bodies and impact zones of colliding vertices. Deterministic: of two sets joined,
 * the smaller root leads, so each set's root is its smallest id whatever the order of the
 * joins. */
#ifndef SB_UNION_FIND_H
#define SB_UNION_FIND_H

#include <stdint.h>

/* Every id a set of its own. */
static inline void union_find_reset(int32_t *parent, int32_t n)
{
    for (int32_t i = 0; i < n; i++) parent[i] = i;
}

/* The root of i's set, halving the path on the way (each node visited points to its
 * grandparent). */
static inline int32_t union_find_root(int32_t *parent, int32_t i)
{
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

/* Joins the sets of a and b under the smaller of their roots. */
static inline void union_find_unite(int32_t *parent, int32_t a, int32_t b)
{
    a = union_find_root(parent, a), b = union_find_root(parent, b);
    if (a != b) parent[a > b ? a : b] = a < b ? a : b;
}

#endif
