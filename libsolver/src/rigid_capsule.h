/* Convex shapes in world space for the narrow phase, and their contacts. Capsules (the points
 * within a radius of a segment) meeting convex polytopes: the point of the
 * segment nearest the polytope by a golden-section search (the signed distance to a convex
 * polytope is convex along a segment), and where the capsule lies along a face, both ends of
 * the part of its segment over that face, so that it rests on two points and rolls about its
 * axis. Spheres and other capsules meet it at the closest points of their segments, and a
 * capsule lying along another at both ends of the part of its segment beside the other's. */
#ifndef SB_RIGID_CAPSULE_H
#define SB_RIGID_CAPSULE_H

#include "rigid_narrowphase.h"

/* A convex polytope in world space; a mesh triangle is one too (one face, three edges). */
typedef struct world_poly {
    int32_t vertex_count, face_count, edge_count;
    const vec3 *v;                     /* vertices */
    const vec3 *n;                     /* face normals */
    const double *o;                   /* face offsets: n · p = o on the face */
    const int32_t *face_first, *face_loops;
    const int32_t *edges;              /* 2 vertex ids per edge */
    const vec3 *edge_normals;          /* 2 per edge: the normals of the faces meeting there */
    const int32_t *edge_faces;         /* 2 per edge: those faces (NULL for a triangle) */
    vec3 center;
    const box_topology *box;           /* a box's edges by direction, or NULL */
} world_poly;

/* Contacts of two polytopes closer than `margin` (normal from B to A, points on B) into out[]
 * (at most 4); rigid_polytope_contact.c. */
int32_t collide_polys(const world_poly *a, const world_poly *b, double margin, rigid_contact *out);
/* The pieces of collide_polys: the largest separation of B from A's face planes (stopping
 * once one exceeds `margin`) and its face; the same over the edge pairs bounding a face of the
 * Minkowski difference, the edges and the axis (from A towards B); those edges' contact at
 * their closest points, on B's edge; B's incident face clipped
 * against A's face `face` (ref_is_b: the reference face is B's); at most four of `count`
 * contacts (the deepest, the farthest from it, the two spanning the largest area). */
double poly_face_query(const world_poly *a, const world_poly *b, double margin, int32_t *face);
double poly_edge_query(const world_poly *a, const world_poly *b, double margin, int32_t *edge_a, int32_t *edge_b,
                       vec3 *axis_out);
rigid_contact poly_edge_contact(const world_poly *a, int32_t ea, const world_poly *b, int32_t eb, vec3 axis,
                                double separation);
int32_t poly_face_contact(const world_poly *ref, int32_t face, const world_poly *inc, bool ref_is_b, double margin,
                          rigid_contact *out);
int32_t reduce_four(rigid_contact *c, int32_t count, vec3 normal);
/* A sphere (centre c, radius r) against a polytope; normal from the polytope to the sphere. */
int32_t sphere_poly(vec3 c, double r, const world_poly *p, double margin, rigid_contact *out);

/* The capsule of segment a-b and radius r against the polytope p (a triangle: p has one
 * face) closer than `margin`: contacts into out[] (at most 2), normal from the polytope to the
 * capsule, points on the polytope. */
int32_t capsule_poly(vec3 a, vec3 b, double r, const world_poly *p, double margin, rigid_contact *out);

#endif
