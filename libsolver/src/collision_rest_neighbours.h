/* Features of one cloth that are close in its rest shape: a vertex and a face, or two edges,
 * closer than a distance there (sharing no vertex). They stay close however the cloth moves,
 * so the collision response never pushes them apart, only keeps them from crossing. Found
 * once, when the cloth is made, so the response need not measure rest distances each step. */
#ifndef SB_REST_NEIGHBOURS_H
#define SB_REST_NEIGHBOURS_H

#include <stdbool.h>
#include <stdint.h>

#include "mesh_topology.h"

typedef struct rest_neighbours {
    int32_t *face_start, *faces; /* per vertex: the faces near it, ascending (CSR) */
    int32_t *edge_start, *edges; /* per edge: the edges near it, ascending */
} rest_neighbours;

/* Near means closer than `distance` at the positions x (vertex_count x 3). False when out of
 * memory. */
bool rest_neighbours_build(rest_neighbours *r, const double *x, const topology *topo, double distance);
void rest_neighbours_free(rest_neighbours *r);

bool rest_near_vertex_face(const rest_neighbours *r, int32_t vertex, int32_t face);
bool rest_near_edges(const rest_neighbours *r, int32_t edge, int32_t other);

#endif
