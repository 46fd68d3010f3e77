/* Continuous collision detection between linearly moving primitives (Bridson, Fedkiw &
 * Anderson 2002, §4): the first time t in [0, 1] at which a vertex comes within `tolerance`
 * of a triangle, or an edge within `tolerance` of another edge.
 *
 * The four points are coplanar where a cubic in t vanishes; its roots in [0, 1], and its
 * turning points where the primitives graze the plane, are the candidate times, each checked
 * with an exact distance. Primitives that stay (nearly) coplanar or parallel all along
 * leave the cubic flat; then the distance itself is searched over the interval. */
#ifndef SB_CCD_H
#define SB_CCD_H

#include <stdbool.h>

#include "math3.h"

typedef struct ccd_hit {
    double t;        /* first time of contact in [0, 1] */
    double w[4];     /* weights of the four points at contact: vertex-face (1, -bary), edge-edge
                        (1-s, s, -(1-u), -u): Σ w_i x_i is the separation vector */
    vec3 normal;     /* unit direction pushing the first primitive away from the second */
    double distance; /* at time t */
} ccd_hit;

/* Vertex p against triangle (a, b, c); index 0 = start of the step, 1 = end. */
bool ccd_vertex_face(const vec3 x0[4], const vec3 x1[4], double tolerance, ccd_hit *hit);
/* Edge (x[0], x[1]) against edge (x[2], x[3]). */
bool ccd_edge_edge(const vec3 x0[4], const vec3 x1[4], double tolerance, ccd_hit *hit);

/* Distance, weights and unit normal (first primitive minus second) at given positions. */
double vertex_face_distance(const vec3 x[4], double w[4], vec3 *normal);
double edge_edge_distance(const vec3 x[4], double w[4], vec3 *normal);

#endif
