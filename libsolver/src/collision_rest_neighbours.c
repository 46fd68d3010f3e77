#include "collision_rest_neighbours.h"

#include <stdlib.h>
#include <string.h>

#include "collision_bvh.h"
#include "collision_ccd.h"
#include "grow.h"
#include "threads.h"

/* Pairs (a, b) packed as a << 32 | b. */
typedef struct pair_list {
    int64_t *items;
    int32_t count, capacity;
    bool out_of_memory;
} pair_list;

typedef struct search {
    const double *x;
    const topology *topo;
    double distance;
    pair_list vertex_face, edge_edge;
} search;

static void push(pair_list *l, int32_t a, int32_t b)
{
    if (!grow((void **)&l->items, &l->capacity, l->count + 1, sizeof *l->items)) {
        l->out_of_memory = true;
        return;
    }
    l->items[l->count++] = (int64_t)a << 32 | (int64_t)(uint32_t)b;
}

static vec3 at(const search *s, int32_t v) { return v3_load(&s->x[3 * (size_t)v]); }

/* Each vertex one triangle owns against the other's face, each edge it owns against each
 * the other owns (mesh_topology.h): every feature pair is measured from one pair of triangles only,
 * the one of their owners (whose boxes hold the features, so they meet whenever the features
 * come within the distance). */
static void visit(void *ctx, int32_t ta, int32_t tb)
{
    search *s = ctx;
    const topology *topo = s->topo;
    const int32_t *a = &topo->triangles[3 * (size_t)ta], *b = &topo->triangles[3 * (size_t)tb];
    double w[4];
    vec3 n;
    for (int k = 0; k < 3; k++) {
        if (topology_owns_vertex(topo, ta, k) && !triangle_has_vertex(b, a[k])) {
            vec3 p[4] = {at(s, a[k]), at(s, b[0]), at(s, b[1]), at(s, b[2])};
            if (vertex_face_distance(p, w, &n) < s->distance) push(&s->vertex_face, a[k], tb);
        }
        if (topology_owns_vertex(topo, tb, k) && !triangle_has_vertex(a, b[k])) {
            vec3 p[4] = {at(s, b[k]), at(s, a[0]), at(s, a[1]), at(s, a[2])};
            if (vertex_face_distance(p, w, &n) < s->distance) push(&s->vertex_face, b[k], ta);
        }
    }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            if (!topology_owns_edge(topo, ta, i) || !topology_owns_edge(topo, tb, j)) continue;
            int32_t a0 = a[i], a1 = a[(i + 1) % 3], b0 = b[j], b1 = b[(j + 1) % 3];
            if (a0 == b0 || a0 == b1 || a1 == b0 || a1 == b1) continue;
            vec3 p[4] = {at(s, a0), at(s, a1), at(s, b0), at(s, b1)};
            if (edge_edge_distance(p, w, &n) >= s->distance) continue;
            int32_t ea = topo->triangle_edges[3 * (size_t)ta + i], eb = topo->triangle_edges[3 * (size_t)tb + j];
            push(&s->edge_edge, ea, eb);
            push(&s->edge_edge, eb, ea);
        }
}

typedef struct triangle_search {
    search *s;
    int32_t triangle;
} triangle_search;

static void visit_above(void *ctx, int32_t other)
{
    triangle_search *q = ctx;
    visit(q->s, q->triangle, other);
}

static bool append(pair_list *to, const pair_list *from)
{
    if (from->out_of_memory || (int64_t)to->count + from->count > INT32_MAX ||
        !grow((void **)&to->items, &to->capacity, to->count + from->count, sizeof *to->items))
        return false;
    if (from->count > 0) memcpy(to->items + to->count, from->items, (size_t)from->count * sizeof *from->items);
    to->count += from->count;
    return true;
}

/* Every triangle queries the tree for those above it (each pair once), in chunks shared out
 * among threads, each chunk into lists of its own, joined afterwards: to_table sorts them, so
 * their order does not matter. */
static bool search_pairs(search *all, const bvh *tree, const aabb *boxes, int32_t triangles)
{
    int32_t chunks = chunk_count(triangles);
    search *parts = calloc((size_t)chunks, sizeof *parts);
    if (!parts) return false;
#pragma omp parallel for schedule(dynamic, 1) if (chunks > 1)
    for (int32_t c = 0; c < chunks; c++) {
        parts[c] = (search){all->x, all->topo, all->distance, {0}, {0}};
        int32_t end = chunk_start(triangles, c + 1, chunks);
        for (int32_t t = chunk_start(triangles, c, chunks); t < end; t++) {
            triangle_search q = {&parts[c], t};
            bvh_query_above(tree, &boxes[t], t, visit_above, &q);
        }
    }
    bool ok = true;
    for (int32_t c = 0; c < chunks; c++) {
        ok = ok && append(&all->vertex_face, &parts[c].vertex_face) && append(&all->edge_edge, &parts[c].edge_edge);
        free(parts[c].vertex_face.items), free(parts[c].edge_edge.items);
    }
    free(parts);
    return ok;
}

/* The pairs as a CSR table over `rows` first indices, each row ascending: two stable
 * counting passes, by the second index and then by the first, sort them in linear time (a
 * qsort of the packed pairs took half the time of making a 100k-vertex cloth). There are no
 * duplicates to drop: visit measures each feature pair once. Frees the list. */
static bool to_table(pair_list *l, int32_t rows, int32_t columns, int32_t **start, int32_t **items)
{
    int32_t n = l->count;
    int64_t *by_column = malloc(((size_t)n + 1) * sizeof *by_column);
    int32_t *next = calloc((size_t)(rows > columns ? rows : columns) + 1, sizeof *next);
    *start = calloc((size_t)rows + 1, sizeof **start);
    *items = malloc(((size_t)n + 1) * sizeof **items);
    bool ok = by_column && next && *start && *items;
    if (ok) {
        for (int32_t k = 0; k < n; k++) next[(l->items[k] & 0xffffffff) + 1]++;
        for (int32_t c = 0; c < columns; c++) next[c + 1] += next[c];
        for (int32_t k = 0; k < n; k++) by_column[next[l->items[k] & 0xffffffff]++] = l->items[k];
        free(l->items);
        l->items = NULL;
        for (int32_t k = 0; k < n; k++) (*start)[(by_column[k] >> 32) + 1]++;
        for (int32_t r = 0; r < rows; r++) (*start)[r + 1] += (*start)[r];
        memcpy(next, *start, (size_t)rows * sizeof *next);
        for (int32_t k = 0; k < n; k++) (*items)[next[by_column[k] >> 32]++] = (int32_t)(by_column[k] & 0xffffffff);
    }
    free(by_column), free(next), free(l->items);
    l->items = NULL;
    return ok;
}

bool rest_neighbours_build(rest_neighbours *r, const double *x, const topology *topo, double distance)
{
    memset(r, 0, sizeof *r);
    search s = {x, topo, distance, {0}, {0}};
    aabb *boxes = malloc(((size_t)topo->triangle_count + 1) * sizeof *boxes);
    bvh tree = {0};
    bool ok = boxes != NULL;
    for (int32_t t = 0; ok && t < topo->triangle_count; t++) {
        aabb box = aabb_empty();
        for (int k = 0; k < 3; k++) box = aabb_add_point(box, at(&s, topo->triangles[3 * (size_t)t + k]));
        boxes[t] = aabb_inflate(box, 0.5 * distance); /* boxes that overlap come within `distance` */
    }
    ok = ok && bvh_build(&tree, boxes, topo->triangle_count) && search_pairs(&s, &tree, boxes, topo->triangle_count) &&
         to_table(&s.vertex_face, topo->vertex_count, topo->triangle_count, &r->face_start, &r->faces) &&
         to_table(&s.edge_edge, topo->edge_count, topo->edge_count, &r->edge_start, &r->edges);
    bvh_free(&tree);
    free(boxes), free(s.vertex_face.items), free(s.edge_edge.items);
    if (!ok) rest_neighbours_free(r);
    return ok;
}

void rest_neighbours_free(rest_neighbours *r)
{
    free(r->face_start), free(r->faces), free(r->edge_start), free(r->edges);
    memset(r, 0, sizeof *r);
}

static bool listed(const int32_t *start, const int32_t *items, int32_t row, int32_t item)
{
    int32_t lo = start[row], hi = start[row + 1];
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (items[mid] == item) return true;
        if (items[mid] < item) lo = mid + 1;
        else hi = mid;
    }
    return false;
}

bool rest_near_vertex_face(const rest_neighbours *r, int32_t vertex, int32_t face)
{
    return r->face_start && listed(r->face_start, r->faces, vertex, face);
}

bool rest_near_edges(const rest_neighbours *r, int32_t edge, int32_t other)
{
    return r->edge_start && listed(r->edge_start, r->edges, edge, other);
}
