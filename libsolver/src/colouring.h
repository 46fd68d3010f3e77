/* Colours of mesh elements (triangles, hinges) such that no two elements of one colour share
 * a vertex: within a colour, elements can add into per-vertex forces and matrix blocks in
 * parallel without races, and each sum takes its terms in an order fixed by the mesh alone
 * (colour by colour), whatever the number of threads. */
#ifndef SB_COLOURING_H
#define SB_COLOURING_H

#include <stdbool.h>
#include <stdint.h>

typedef struct colouring {
    int32_t colour_count;
    int32_t *start; /* colour_count + 1: colour k is order[start[k] .. start[k + 1]) */
    int32_t *order; /* element indices, by colour, ascending within each */
    bool last_serial; /* the last colour may share vertices: walk it on one thread */
} colouring;

/* Greedy colouring in element order: each element takes the lowest colour none of its
 * vertices has yet. Elements that find none of the first COLOURING_MAX - 1 free (vertices of
 * very high valence) go to a last colour that is walked on one thread. False when out of
 * memory. */
enum { COLOURING_MAX = 64 };
bool colouring_build(colouring *out, const int32_t *elements, int32_t element_count, int32_t per_element,
                     int32_t vertex_count);
void colouring_free(colouring *c);

#endif
