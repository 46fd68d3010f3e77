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
} world_poly;

/* Contacts of two polytopes closer than `margin` (normal from B to A, points on B) into out[]
 * (at most 4); rigid_polytope_contact.c. */
int32_t collide_polys(const world_poly *a, const world_poly *b, double margin, rigid_contact *out);
/* A sphere (centre c, radius r) against a polytope; normal from the polytope to the sphere. */
int32_t sphere_poly(vec3 c, double r, const world_poly *p, double margin, rigid_contact *out);

/* The capsule of segment a-b and radius r against the polytope p (a triangle: p has one
 * face) closer than `margin`: contacts into out[] (at most 2), normal from the polytope to the
 * capsule, points on the polytope. */
int32_t capsule_poly(vec3 a, vec3 b, double r, const world_poly *p, double margin, rigid_contact *out);

#endif
