/* Contact points between two rigid bodies' shapes (course notes, "Collision and Contact"):
 * spheres by their centres, convex polytopes by separating axes (face normals, and edge
 * pairs whose Gauss-map arcs cross) with the incident face clipped against the reference
 * face, and either against the triangles of a mesh one triangle at a time. A compound body's
 * parts meet the other body's (or its parts) one pair at a time where their bounds overlap. */
#ifndef SB_NARROWPHASE_H
#define SB_NARROWPHASE_H

#include "rigid_body.h"

#define MANIFOLD_MAX 16 /* a compound's parts together; a pair of single shapes gives at most 8 */

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

struct placed_part;

typedef struct narrow_scratch {
    placed_polytope slot[2];
    struct placed_part *parts;  /* a compound pair's parts placed */
    int32_t part_capacity;
    rigid_contact *found;       /* a compound pair's contacts before they are reduced */
    int32_t found_capacity;
} narrow_scratch;

/* Contacts of a and b closer than `margin` into out (count 0: apart). A mesh is always
 * made the second body: then out->swapped is set. False only when out of memory. */
bool collide_bodies(const rigid_body *a, const rigid_body *b, double margin, narrow_scratch *scratch,
                    rigid_manifold *out);
void narrow_scratch_free(narrow_scratch *s);
/* The bodies moved: forget the polytopes placed at their old poses. */
void narrow_scratch_forget(narrow_scratch *s);

#endif
