/* Strand vertices swept against colliders' triangles over a step. A strand has no triangles,
 * so the cloth's continuous collisions (collision_response.c: vertex–face and edge–edge pairs
 * found through the cloth's triangles) never see it; its vertices meet colliders through the
 * contacts of cloth_contact.c, which hold a vertex found within the contact distance at a
 * step's start, and through this sweep, which catches one that would cross a surface within a
 * step: each free vertex's straight path x0 -> x1 is cast against the collider's triangles
 * where they are at the step's end; at the first one crossed, the vertex stops at the contact
 * distance on the side it came from and loses the velocity into the surface, and the contacts
 * hold it from the next step on. The collider's motion within the step is not swept for
 * vertices (a collider moving fast through a strand can still pass it).
 *
 * Then each segment is swept against the colliders' sharp edges (collider.h), which can poke
 * between two vertices that both stay outside (a rope across a thin slab's edge): continuous
 * edge–edge detection (collision_ccd.h) between the segment's motion and each edge's over
 * the step, the edges found through the collider's tree; at the earliest touch, the
 * segment's point there is put back at the contact distance from the edge on the side it
 * came from, its two ends moved by their weights, and loses the velocity into the edge
 * (taken as still: a moving collider's edge velocity is not given to the strand). */
#ifndef SB_STRAND_COLLIDE_H
#define SB_STRAND_COLLIDE_H

#include "cloth.h"
#include "collider.h"

/* On an accepted solve of strands c (model.strands), before the collision response (which
 * then keeps the strands off each other and off cloth where the sweep put them) and again
 * after it until it stops none (world_step.c); colliders prepared for the step. Returns how
 * many vertices and segments it stopped. */
int32_t strands_sweep_colliders(cloth *c, collider *const *colliders, int32_t collider_count);

#endif
