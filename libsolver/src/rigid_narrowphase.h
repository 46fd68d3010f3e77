/* Contact points between two rigid bodies' shapes (course notes, "Collision and Contact"):
 * spheres by their centres, convex polytopes by separating axes (face normals, and edge
 * pairs whose Gauss-map arcs cross) with the incident face clipped against the reference
 * face, and either against the triangles of a mesh one triangle at a time. */
#ifndef SB_NARROWPHASE_H
#define SB_NARROWPHASE_H

#include "rigid_body.h"

#define MANIFOLD_MAX 8

typedef struct rigid_contact {
    vec3 point;        /* world, on B's surface */
    vec3 normal;       /* unit, from B towards A */
    double separation; /* gap along the normal; negative when the shapes overlap */
} rigid_contact;

typedef struct rigid_manifold {
    int32_t a, b;      /* body ids: a is pushed along +normal, b along -normal */
    bool swapped;      /* collide_bodies(x, y) computed it as (y, x): a is y */
    int32_t count;
    rigid_contact points[MANIFOLD_MAX];
} rigid_manifold;

/* A body's polytope moved to its pose: world vertices, face normals (then 2 per edge), face
 * offsets. Kept for the next pair: the broad phase reports a body's pairs one after another. */
typedef struct placed_polytope {
    vec3 *v, *n;
    double *o;
    int32_t capacity;
    const rigid_body *body; /* whose polytope it holds, NULL for none */
} placed_polytope;

typedef struct narrow_scratch {
    placed_polytope slot[2];
} narrow_scratch;

/* Contacts of a and b closer than `margin` into out (count 0: apart). A mesh is always
 * made the second body: then out->swapped is set. False only when out of memory. */
bool collide_bodies(const rigid_body *a, const rigid_body *b, double margin, narrow_scratch *scratch,
                    rigid_manifold *out);
void narrow_scratch_free(narrow_scratch *s);
/* The bodies moved: forget the polytopes placed at their old poses. */
void narrow_scratch_forget(narrow_scratch *s);

#endif
