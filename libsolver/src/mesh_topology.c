#include "mesh_topology.h"

#include <stdlib.h>
#include <string.h>

typedef struct half_edge {
    int32_t a, b; /* a < b */
    int32_t triangle;
    int32_t corner; /* the edge joins corners corner and corner + 1 */
} half_edge;

static int compare_half_edges(const void *pa, const void *pb)
{
    const half_edge *x = pa, *y = pb;
    if (x->a != y->a) return (x->a > y->a) - (x->a < y->a);
    if (x->b != y->b) return (x->b > y->b) - (x->b < y->b);
    return (x->triangle > y->triangle) - (x->triangle < y->triangle);
}

bool topology_build(topology *t, const int32_t *triangles, int32_t triangle_count, int32_t vertex_count)
{
    memset(t, 0, sizeof *t);
    t->vertex_count = vertex_count;
    t->triangle_count = triangle_count;
    t->triangles = triangles;
    size_t count = 3 * (size_t)triangle_count;
    half_edge *half = malloc((count + 1) * sizeof *half);
    uint8_t *vertex_taken = calloc((size_t)vertex_count + 1, 1);
    t->edges = malloc((2 * count + 2) * sizeof *t->edges);
    t->edge_triangles = malloc((2 * count + 2) * sizeof *t->edge_triangles);
    t->edge_face_count = malloc((count + 1) * sizeof *t->edge_face_count);
    t->triangle_edges = malloc((count + 1) * sizeof *t->triangle_edges);
    t->owned = calloc((size_t)triangle_count + 1, 1);
    if (!half || !vertex_taken || !t->edges || !t->edge_triangles || !t->edge_face_count ||
        !t->triangle_edges || !t->owned) {
        free(half), free(vertex_taken);
        topology_free(t);
        return false;
    }
    for (int32_t tri = 0; tri < triangle_count; tri++)
        for (int k = 0; k < 3; k++) {
            int32_t a = triangles[3 * tri + k], b = triangles[3 * tri + (k + 1) % 3];
            half[3 * tri + k] = (half_edge){a < b ? a : b, a < b ? b : a, tri, k};
            if (!vertex_taken[triangles[3 * tri + k]]) { /* first triangle at a vertex owns it */
                vertex_taken[triangles[3 * tri + k]] = 1;
                t->owned[tri] |= (uint8_t)(1u << k);
            }
        }
    qsort(half, count, sizeof *half, compare_half_edges);
    int32_t edges = 0;
    for (size_t i = 0; i < count;) {
        size_t j = i;
        int32_t e = edges++;
        t->edges[2 * e] = half[i].a, t->edges[2 * e + 1] = half[i].b;
        t->edge_triangles[2 * e] = half[i].triangle;
        t->edge_triangles[2 * e + 1] = -1;
        /* the first (lowest-numbered) triangle on an edge owns it */
        t->owned[half[i].triangle] |= (uint8_t)(1u << (3 + half[i].corner));
        for (; j < count && half[j].a == half[i].a && half[j].b == half[i].b; j++) {
            t->triangle_edges[3 * half[j].triangle + half[j].corner] = e;
            if (j == i + 1) t->edge_triangles[2 * e + 1] = half[j].triangle;
        }
        t->edge_face_count[e] = (int32_t)(j - i);
        i = j;
    }
    t->edge_count = edges;
    free(half);
    free(vertex_taken);
    return true;
}

void topology_free(topology *t)
{
    free(t->edges), free(t->edge_triangles), free(t->edge_face_count);
    free(t->triangle_edges), free(t->owned);
    memset(t, 0, sizeof *t);
}
