/* A collider: a triangle mesh moved by the caller, each vertex in a straight line between
 * the positions given at two times (sampled once a frame, moving with that velocity), or
 * carried by a rigid body of the world (its poses at the start and end of each step). */
#ifndef SB_COLLIDER_H
#define SB_COLLIDER_H

#include "collision_bvh.h"
#include "math3.h"
#include "simbake.h"
#include "mesh_topology.h"

/* What the definition fixes (and sb_collider_follow_body, which binds it to a body). */
typedef struct collider_model {
    int32_t vertex_count, triangle_count;
    int32_t *triangles;
    topology topo;
    double thickness, friction;
    /* features that can poke into cloth between its vertices, in the defined shape: edges
     * whose faces meet at more than SHARP_ANGLE or that border fewer or more than two faces,
     * vertices with a face turned more than SHARP_ANGLE from their normal (see collision_response.c) */
    uint8_t *sharp_edge;        /* per topology edge */
    uint8_t *sharp_vertex;
    int32_t body;               /* the rigid body carrying it, or -1 */
    double *local;              /* vertex_count x 3 in that body's frame */
} collider_model;

/* What moving it changes: its path, and its tree, whose refits and rebuilds depend on the
 * path so far and whose shape orders the contact queries (world_state.c saves it). */
typedef struct collider_state {
    double *from, *to;          /* vertex_count x 3 at time_from and time_to */
    double time_from, time_to;
    bvh tree;
} collider_state;

/* Per step: positions at its start and end, and the swept triangle boxes the tree bounds.
 * Two-way coupling: whether the body carrying it feels the cloth (set by the world each
 * step), and what the cloth pushes it with over the step: the sum of the impulses on the
 * collider (opposite to those the cloth got from it) and their moment about the world origin. */
typedef struct collider_scratch {
    double *x0, *x1;
    aabb *boxes;
    bool pushes_body;
    vec3 reaction, reaction_moment;
    /* the part of the reaction the strain limit's rounds gave (two_way_coupling.h), and the
     * reaction before a round began */
    vec3 limit_reaction, limit_reaction_moment, reaction_mark, reaction_moment_mark;
} collider_scratch;

typedef struct collider {
    collider_model model;
    collider_state state;
    collider_scratch scratch;
} collider;

sb_result collider_create(const sb_collider_def *def, double time, collider **out);
void collider_destroy(collider *c);
/* Positions at time t (vertex_count x 3). */
void collider_positions_at(const collider *c, double t, double *out);
/* Fills x0, x1 for a step [t, t + h], refits the tree over the swept triangles and clears the
 * reaction. */
bool collider_prepare_step(collider *c, double t, double h);
/* Carried by a body at pose (x, q) now: keeps its positions at time t in the body's frame. */
bool collider_attach(collider *c, int32_t body, vec3 x, quat q, double t);
/* Positions of a carried collider over [t, t + h], the body going from pose 0 to pose 1. */
void collider_follow(collider *c, vec3 x0, quat q0, vec3 x1, quat q1, double t, double h);
/* Two-way coupling: impulse j on the collider at point p adds to its reaction, if its body
 * feels the cloth. */
static inline void collider_react(collider *c, vec3 j, vec3 p)
{
    if (!c->scratch.pushes_body) return;
    c->scratch.reaction = v3_add(c->scratch.reaction, j);
    c->scratch.reaction_moment = v3_add(c->scratch.reaction_moment, v3_cross(p, j));
}

#endif
