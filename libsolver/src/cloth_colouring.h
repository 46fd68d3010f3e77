/* Colours of groups of mesh elements (triangles, hinges) such that no two groups of one
 * colour share a vertex: within a colour, groups can add into per-vertex forces and matrix
 * blocks in parallel without races, and each sum takes its terms in an order fixed by the
 * mesh alone (colour by colour, then element by element within a group), whatever the number
 * of threads. A group is a run of consecutive elements: a mesh numbered with some locality
 * (as Blender's are) then walks its matrix a region at a time, where one colour of single
 * elements is spread over the whole mesh and each colour streams the whole matrix again. */
#ifndef SB_COLOURING_H
#define SB_COLOURING_H

#include <stdbool.h>
#include <stdint.h>

typedef struct colouring {
    int32_t colour_count;
    int32_t *start;       /* colour_count + 1: colour k is groups[start[k] .. start[k + 1]) */
    int32_t *groups;      /* group indices, by colour, ascending within each */
    int32_t group_count, group_size, element_count;
    int32_t chunk;        /* groups a thread takes at a time: some 64 elements */
    bool last_serial;     /* the last colour may share vertices: walk it on one thread */
} colouring;

/* Group g: elements [g * group_size, its end). */
static inline int32_t colouring_group_end(const colouring *c, int32_t g)
{
    int64_t end = ((int64_t)g + 1) * c->group_size;
    return end < c->element_count ? (int32_t)end : c->element_count;
}

/* Greedy colouring of the runs of `group_size` consecutive elements, in order: each group
 * takes the lowest colour none of its vertices has yet. Groups that find none of the first
 * COLOURING_MAX - 1 free (vertices of very high valence, or groups spread over the mesh) go
 * to a last colour that is walked on one thread. False when out of memory. */
enum { COLOURING_MAX = 64 };
bool colouring_build(colouring *out, const int32_t *elements, int32_t element_count, int32_t per_element,
                     int32_t vertex_count, int32_t group_size);
void colouring_free(colouring *c);

#endif
