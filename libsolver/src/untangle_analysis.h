/* What the untangling's analysis (untangle.c) shares with its pulls out of closed colliders
 * (untangle_inside.c): the scene's meshes now, under the collision response's numbering, and
 * the crossings found. */
#ifndef SB_UNTANGLE_ANALYSIS_H
#define SB_UNTANGLE_ANALYSIS_H

#include "collision_bvh.h"
#include "untangle.h"

/* One cloth or collider as the analysis sees it: positions now, triangles, and where its
 * vertices start in the global numbering. */
typedef struct mesh_view {
    const double *x;
    const int32_t *triangles;
    int32_t triangle_count, vertex_count, first;
    const topology *topo;
    double thickness;
    bool is_cloth, closed;
    bvh tree;
    aabb *boxes;
} mesh_view;

/* A cloth edge (global ends p, q) passing properly through a triangle (global corners t); or
 * (collider_edge) an edge of a closed collider through a cloth triangle. */
typedef struct crossing {
    int32_t p, q, t[3];
    int32_t object; /* of the triangle; of the edge when collider_edge */
    bool collider_edge;
} crossing;

typedef struct analysis {
    mesh_view *views;
    int32_t view_count;
    vec3 *x;              /* every vertex now, global numbering */
    crossing *crossings;
    int32_t crossing_count, crossing_capacity;
    bool out_of_memory;
} analysis;

/* Cloth vertices inside a closed collider they meet (meets: the pairs of each cloth and
 * collider, -1 where the cloth does not meet it), and cloth edges and triangles that pass
 * through one: pulled out to its nearest surface. Returns the vertices pulled out of colliders
 * that no pair shows them in (a cloth wholly inside); *pulled_any: whether any vertex is. */
int64_t untangle_pull_out_of_colliders(untangle_plan *p, const analysis *an, cloth *const *cloths, int32_t cloth_count,
                                       const int64_t *meets, bool *pulled_any);

/* Whether p is inside the closed mesh v (odd crossings of a ray; v's tree built); if so the
 * nearest point of its surface into *nearest. */
bool inside_closed(const mesh_view *v, vec3 p, vec3 *nearest);

#endif
