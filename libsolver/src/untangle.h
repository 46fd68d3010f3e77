/* Untangling cloth that starts through itself or through a collider (Baraff, Witkin & Kass,
 * "Untangling Cloth", SIGGRAPH 2003). The collision response keeps every part of a cloth on
 * the side it starts on, so a tangle present at the start would stay. Global intersection
 * analysis finds it instead:
 *   1. every intersecting triangle pair, and every cloth edge that passes properly through a
 *      triangle (its ends strictly on either side): the intersection curves cross those edges;
 *   2. the regions: the vertices joined by edges the curves do not cut (a collider is one);
 *   3. the tangles: regions joined by crossings. In each, the smallest cloth region on a cut
 *      edge is the one on the wrong side (the smaller side of the curve, as the paper's flood
 *      fill), and is pulled back through along the normals of the triangles its edges cross;
 *   4. cloth vertices inside a closed collider (odd crossings of a ray), and cloth edges and
 *      triangles passing through one, are pulled out towards the nearest point of its
 *      surface (untangle_inside.c), a cloth wholly inside one (no pair) too; a collider that
 *      is not closed is a sheet as in 3.
 * A pulled region keeps its pull from one analysis to the next (saved with the state) until
 * each vertex is past the plane of the crossings plus both thicknesses: as it comes through,
 * the curves may stop cutting the cloth apart (one ending inside each sheet where the other's
 * border pierces it), and the paper's regions are no longer defined. A tangle whose curves do
 * not cut the cloth apart (from the start, or after a collider's pulls: no side can be told
 * wrong) is unzipped from the ends of its curves instead: each border edge that pierces a
 * triangle has its shorter part (its tip) pulled back through, and the next border edge
 * pierces, until the curve is gone; this waits while vertices are pulled out of colliders,
 * whose pulls move parts of the sheets through each other, and while a region of the tangle
 * still comes through. A curve that runs through a vertex shared by triangles of both sheets
 * crosses no edge there and can be left (2 pairs of the hostile fold). A pulled region moves at the speed that takes its deepest
 * vertex through in UNTANGLE_SECONDS; the response skips the pairs between pulled vertices
 * and the tangled parts of the scene (untangle_skips), and only those: everything else keeps
 * the usual guarantees, so no new crossing starts there. The analysis runs at a step's start
 * while the last one found intersections (and once at the start, and after objects are
 * added): the response never makes any, so an untangled scene pays nothing. */
#ifndef SB_UNTANGLE_H
#define SB_UNTANGLE_H

#include <stdbool.h>
#include <stdint.h>

#include "cloth.h"
#include "collider.h"
#include "math3.h"

/* A pulled region moves its deepest vertex through (plus both thicknesses) in this long. */
#define UNTANGLE_SECONDS 0.2

typedef struct untangle_plan {
    bool analysed;         /* since the world was made or loaded, or objects were added */
    int64_t pairs;         /* intersecting triangle pairs at the last analysis, and cloth
                            * vertices inside a closed collider no pair of it shows them in */
    int64_t pairs_at_start; /* at the first analysis (-1: none yet) */
    bool active;           /* vertices are pulled in the current step */
    int32_t vertex_count, capacity; /* the response's numbering: cloths, then colliders */
    int32_t *region;       /* per vertex: the region (its smallest vertex) */
    int32_t *group;        /* per vertex: the tangle of its region, -1: none */
    int32_t *mover_of;     /* per pulled vertex: the tangle it passes through, -1: none */
    uint8_t *pulled;       /* per vertex: pulled this step (cloth_contact.c holds it in no contact) */
    vec3 *push;            /* per pulled vertex: the velocity of the pull */
    double *target;        /* per pulled vertex: pulled while x · push / |push| is below it */
} untangle_plan;

void untangle_free(untangle_plan *p);
/* Room for a plan of n vertices; a plan that had to grow forgets its pulls. */
bool untangle_reserve(untangle_plan *p, int32_t n);

/* Analyses the scene now (cloths at state.x, colliders at scratch.x0) and plans the pulls
 * of the step; points each cloth's scratch.untangling at its pulled flags (NULL when none).
 * False when out of memory. */
bool untangle_analyse(untangle_plan *p, cloth *const *cloths, int32_t cloth_count, collider *const *colliders,
                      int32_t collider_count);

/* Whether the step should analyse: at the start, and while the last analysis found pairs. */
static inline bool untangle_due(const untangle_plan *p) { return !p->analysed || p->pairs > 0; }

/* The pulls on the solve's result: a pulled vertex's velocity along its pull raised to the
 * pull's speed where it is less, its end position moved with it. */
void untangle_pull(const untangle_plan *p, cloth *const *cloths, int32_t cloth_count, double h);

/* Whether the response skips the pair of features v[0..split) and v[split..4) (global ids):
 * a pulled vertex on one side, a vertex of any tangle or pulled on the other. Pulls in one
 * scene can cross (a sheet folded through itself where a sphere cuts both layers: the sphere
 * pulls its vertices out through the other layer); stopping them there left collisions that
 * impulses could not end, and impact zones at every step (the hostile case, 7x slower). */
static inline bool untangle_skips(const untangle_plan *p, const int32_t v[4], int split)
{
    for (int i = 0; i < 4; i++) {
        if (p->mover_of[v[i]] < 0) continue;
        for (int j = i < split ? split : 0; j < (i < split ? 4 : split); j++)
            if (p->group[v[j]] >= 0 || p->mover_of[v[j]] >= 0) return true;
    }
    return false;
}

/* Intersecting triangle pairs between cloth a and cloth b (a == b: its own; triangles that
 * only touch at the vertices or edges they share do not count) or between cloth a and
 * collider k (b NULL), at their current positions (the collider's at the end of the last step);
 * -1 when out of memory. */
int64_t intersecting_pairs(const cloth *a, const cloth *b, const collider *k);

/* Vertices of cloth c inside collider k (odd crossings of a ray; 0 when k is not closed: it
 * has no inside), at the positions intersecting_pairs takes; -1 when out of memory. */
int64_t vertices_inside_collider(const cloth *c, const collider *k);

#endif
