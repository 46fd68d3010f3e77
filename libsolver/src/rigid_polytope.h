/* Convex polytopes for rigid-body shapes: polygon faces with outward planes, and edges with
 * the two faces they join (for the separating-axis tests). Built from points by qhull. */
#ifndef SB_POLYTOPE_H
#define SB_POLYTOPE_H

#include <stdbool.h>
#include <stdint.h>

#include "math3.h"

/* A box's edges by direction: face[k] and back[k] are the k-th pair of opposite faces (the
 * first's normal u_k); edge[k][s][t] the edge along u_k joining the faces of the other two
 * pairs (in increasing order) with signs s and t (0: +u, 1: -u). */
typedef struct box_topology {
    int8_t face[3], back[3];
    int8_t edge[3][2][2];
} box_topology;

typedef struct polytope {
    int32_t vertex_count, face_count, edge_count;
    vec3 *vertices;
    int32_t *face_first;  /* face_count + 1: each face's range in face_loops */
    int32_t *face_loops;  /* vertex ids, counter-clockwise seen from outside */
    vec3 *normals;        /* face_count, outward unit normals */
    double *offsets;      /* face_count: the plane is normal · x = offset */
    int32_t *edges;       /* edge_count x 2 vertex ids */
    int32_t *edge_faces;  /* edge_count x 2 faces meeting at the edge */
    double radius;        /* largest vertex distance from the origin */
    bool is_box;          /* three pairs of opposite faces at right angles: */
    box_topology box;
} polytope;

/* The convex hull of `count` points (qhull; coplanar facets merged into polygons). False
 * when the points span no volume or memory runs out. */
bool polytope_from_points(const vec3 *points, int32_t count, polytope *out);
/* The box [-h, h]. */
bool polytope_box(vec3 half, polytope *out);
/* Moves every vertex: v -> R v + t (and the planes with them). */
void polytope_transform(polytope *p, mat3 r, vec3 t);
/* The surface as triangles (fans over the faces) for mass properties; caller frees. */
bool polytope_triangles(const polytope *p, int32_t **triangles, int32_t *triangle_count);
void polytope_free(polytope *p);

#endif
