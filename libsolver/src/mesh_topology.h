/* Edges of a triangle mesh, the triangles on each, and which triangle "owns" each vertex
 * and edge, so that collision tests between two triangles' features run once per pair of
 * features (a vertex is tested by its owner only, an edge likewise). */
#ifndef SB_TOPOLOGY_H
#define SB_TOPOLOGY_H

#include <stdbool.h>
#include <stdint.h>

typedef struct topology {
    int32_t vertex_count, triangle_count, edge_count;
    const int32_t *triangles;   /* triangle_count x 3 (not owned) */
    int32_t *edges;             /* edge_count x 2, lower index first */
    int32_t *edge_triangles;    /* edge_count x 2: the first two triangles on the edge, or -1 */
    int32_t *edge_face_count;   /* edge_count: triangles on the edge (> 2: non-manifold) */
    int32_t *triangle_edges;    /* triangle_count x 3: edge k joins corners k and k+1 */
    uint8_t *owned;             /* triangle_count: bits 0-2 corners, bits 3-5 edges it owns */
} topology;

/* Which collisions a cloth's feature is left out of (sb_cloth_def's *_collision_off), as bits
 * (cloth.h's left_out, collision_scratch.h's object_ref). */
enum { LEFT_OUT_OF_OBJECTS = 1, LEFT_OUT_OF_SELF = 2 };

bool topology_build(topology *t, const int32_t *triangles, int32_t triangle_count, int32_t vertex_count);
void topology_free(topology *t);

/* Whether the triangle (three vertex indices) has vertex v. */
static inline bool triangle_has_vertex(const int32_t *tri, int32_t v) { return tri[0] == v || tri[1] == v || tri[2] == v; }

static inline bool topology_owns_vertex(const topology *t, int32_t tri, int corner)
{
    return (t->owned[tri] >> corner) & 1u;
}
static inline bool topology_owns_edge(const topology *t, int32_t tri, int edge)
{
    return (t->owned[tri] >> (3 + edge)) & 1u;
}

#endif
