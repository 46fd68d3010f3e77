/* What the collision response (collision_response.c) and its candidate pairs (collision_pairs.c)
 * share: the scene's vertices under one numbering, its objects, and the feature pairs. */
#ifndef SB_COLLISION_SCRATCH_H
#define SB_COLLISION_SCRATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "collision_bvh.h"
#include "math3.h"
#include "collision_rest_neighbours.h"
#include "mesh_topology.h"

/* One cloth or collider, its vertices a range of the scene's global numbering. */
typedef struct object_ref {
    bool is_cloth;
    int32_t first;
    const int32_t *triangles;
    int32_t triangle_count;
    const topology *topo;
    double thickness, friction;
    double self_thickness; /* cloth: for pairs of its own features */
    bool self;
    bvh *tree;
    aabb *boxes;
    const rest_neighbours *near_at_rest; /* cloth with self collision: pairs never pushed apart */
    const uint8_t *sharp_edge, *sharp_vertex; /* collider: features that take part in proximity */
    double self_friction;  /* cloth: of pairs of its own features */
    int32_t index;         /* of the cloth or collider among the world's */
    /* cloth: LEFT_OUT_OF_* bits of its vertices, edges and triangles (cloth.h), NULL: none */
    const uint8_t *left_out_vertex, *left_out_edge, *left_out_triangle;
    const uint8_t *meets_collider; /* cloth: which colliders it meets (cloth_meets_collider) */
    int32_t meets_collider_count;
    /* strands (strands.h): their segments, vertex pairs, the primitives of `tree` and `boxes`
     * (they have no triangles); rest_positions to tell segments near at rest */
    const int32_t *segments;
    int32_t segment_count;
    const double *rest_positions;
    bool pinched; /* cloth: this step is a pinch (cloth_scratch.strain_recovers) */
} object_ref;

/* A vertex's path at the gathering, which its pairs were judged by. */
typedef struct gathered_path {
    vec3 x0, x1;
    bool anchored; /* longer than moving_path: its pairs are also judged by relative motion */
} gathered_path;

typedef struct feature_pair {
    bool edge_edge;
    bool proximity;     /* pushed apart when closer than the contact distance (else crossings only) */
    uint8_t feature;    /* which of the triangle pair's (see triangle_pair), its place in their order */
    int32_t v[4];       /* global vertex ids: vertex, face corners; or edge, edge */
    int32_t objects[2]; /* of the first and the second primitive */
    int32_t ta, tb;     /* the triangles it came from: of the cloth, of the other object */
} feature_pair;

/* Pairs found from one chunk of triangles, in the order they were found. */
typedef struct pair_buffer {
    feature_pair *pairs;
    int32_t count, capacity;
    int32_t *hits; /* triangles of the other object met by the current triangle */
    int32_t hit_count, hit_capacity;
    uint64_t *bits; /* sorting the hits */
    int32_t bit_capacity;
    uint64_t *keys; /* an update's triangle pairs (collision_update.c) */
    int32_t key_count, key_capacity;
    bool out_of_memory;
} pair_buffer;

typedef struct collision_scratch {
    int32_t vertex_capacity, vertex_count;
    vec3 *x0, *x1, *v1; /* start and end positions, end velocities of every vertex */
    double *inv_mass;
    int32_t *reacting;  /* per vertex: the world's index of the collider it belongs to if that
                           collider's body feels the cloth (two-way coupling), else -1 */
    struct collider *const *colliders; /* the world's, for their reactions */
    int32_t *pushed_by; /* per vertex: of cloth, the reacting collider that last pushed it, or -1 */
    int32_t *zone;      /* union-find parent of each vertex */
    uint8_t *moved;     /* vertices an impulse moved in the current round */
    uint8_t *recheck;   /* vertices moved in the previous round */
    int32_t *members;   /* zone membership lists */
    object_ref *objects;
    int32_t object_capacity, object_count;
    /* candidate pairs, and what they were gathered from (collision_pairs.c) */
    feature_pair *pairs;
    int32_t pair_count, pair_capacity;
    aabb *gathered;     /* per vertex: the box of its path x0 -> x1 at the gathering */
    int32_t gathered_capacity;
    gathered_path *paths; /* per vertex: its path at the gathering */
    int32_t path_capacity;
    double moving_path; /* the thinnest cloth's thickness */
    double slack;       /* how far a vertex may stray (path_within_box) before they must be gathered again */
    bool have_pairs;
    int32_t updates_since_gathering;
    int64_t gather_count, update_count; /* whole gatherings and updates so far (tests, benchmarks) */
    uint8_t *strayed;   /* per vertex: its path left its box (an update's scratch) */
    int32_t strayed_capacity;
    int32_t gathered_vertex_count, gathered_object_count;
    pair_buffer *buffers;
    int32_t buffer_count;
    /* an update's scratch: strayed triangles, their triangle pairs sorted, the new pairs */
    int32_t *strayed_triangles;
    int32_t strayed_triangle_capacity;
    uint64_t *keys;
    int32_t key_capacity;
    feature_pair *fresh;
    int32_t fresh_count, fresh_capacity;
    feature_pair *spare; /* the list's next array */
    int32_t spare_capacity;
    uint8_t *flagged;   /* per pair: PAIR_* bits of the parallel pre-pass at the start of a pass */
    int32_t flagged_capacity;
    int32_t *row_of;    /* per pair: its row in the proximity pass (-1: none yet) */
    int32_t row_of_capacity;
    /* the proximity pass's walks alternated with strain sweeps (collision_response.c): the
     * pairs that can come within reach while no vertex strays from listed_at by more than
     * near_slack */
    int32_t *near;
    int32_t near_count, near_capacity;
    vec3 *listed_at;
    int32_t listed_capacity;
    double near_slack;
    /* strands' candidate primitive pairs as keys, and their sort's spare half
     * (collision_strand_pairs.c) */
    uint64_t *strand_keys;
    int32_t strand_key_count, strand_key_capacity;
    bool out_of_memory;
    const struct untangle_plan *untangle; /* pairs it skips while tangles are pulled apart, NULL: none */
} collision_scratch;

/* Whether the pairs of cloth oa with object ob are looked for: itself with self collision,
 * another cloth always, a collider when the cloth meets it (sb_cloth_set_colliders). */
static inline bool objects_meet(const collision_scratch *s, int32_t oa, int32_t ob)
{
    const object_ref *A = &s->objects[oa], *B = &s->objects[ob];
    if (B->is_cloth) return oa != ob || A->self;
    return A->meets_collider_count < 0 || (B->index < A->meets_collider_count && A->meets_collider[B->index]);
}

/* Whether a feature of a cloth (its LEFT_OUT_OF_* bits in `flags`, NULL: none) is left out of
 * collisions of kind `bits`. */
static inline bool feature_left_out(const uint8_t *flags, int32_t feature, uint8_t bits)
{
    return flags && (flags[feature] & bits);
}

/* Whether any of the pair's four vertices is marked in the per-vertex flags. */
static inline bool any_marked(const uint8_t *flags, const feature_pair *p)
{
    return flags[p->v[0]] | flags[p->v[1]] | flags[p->v[2]] | flags[p->v[3]];
}

/* How far apart two boxes are along the axis where they are furthest apart (<= 0: overlap). */
static inline double box_gap(const aabb *a, const aabb *b)
{
    /* bound_hi: fmax inlined (boxes are never NaN here: every coordinate is checked finite) */
    double g = bound_hi(a->lo.x - b->hi.x, b->lo.x - a->hi.x);
    g = bound_hi(g, bound_hi(a->lo.y - b->hi.y, b->lo.y - a->hi.y));
    return bound_hi(g, bound_hi(a->lo.z - b->hi.z, b->lo.z - a->hi.z));
}

/* Continuous detection counts features closer than this as touching (d: contact distance). */
static inline double detection_tolerance(double d) { return fmax(1e-7, 1e-3 * d); }

/* A vertex's path from x0 to x1 as a box. */
static inline aabb path_box(vec3 a, vec3 b) { return aabb_add_point(aabb_add_point(aabb_empty(), a), b); }

static inline bool within_box(const aabb *box, vec3 p, double margin)
{
    return p.x >= box->lo.x - margin && p.x <= box->hi.x + margin && p.y >= box->lo.y - margin &&
           p.y <= box->hi.y + margin && p.z >= box->lo.z - margin && p.z <= box->hi.z + margin;
}

static inline bool within_slack(vec3 a, vec3 b, double slack)
{
    return fabs(a.x - b.x) <= slack && fabs(a.y - b.y) <= slack && fabs(a.z - b.z) <= slack;
}

/* Whether vertex v's path stays within the slack of what it was at the gathering. A vertex
 * that moved further than moving_path then is anchored: its pairs are also judged by their
 * relative motion (collision_pairs.c), so both ends of its path must stay near where they
 * were. Any other vertex need only keep its path in its box, which updates grow: cloth at
 * rest that jitters keeps its pairs. */
static inline bool path_within_box(const collision_scratch *s, int32_t v)
{
    const gathered_path *path = &s->paths[v];
    if (path->anchored) return within_slack(s->x0[v], path->x0, s->slack) && within_slack(s->x1[v], path->x1, s->slack);
    return within_box(&s->gathered[v], s->x0[v], s->slack) && within_box(&s->gathered[v], s->x1[v], s->slack);
}

/* Records vertex v's path now as the one its pairs are judged by. */
static inline void anchor_path(collision_scratch *s, int32_t v)
{
    s->paths[v] = (gathered_path){s->x0[v], s->x1[v], !within_slack(s->x0[v], s->x1[v], s->moving_path)};
}

/* Gathers every feature pair that can touch or come within its contact distance while no
 * vertex strays further than the slack from its path now (the pairs come in an order fixed
 * by the mesh, whatever the trees' shapes or the thread count); false when out of memory. */
bool pairs_gather(collision_scratch *s);

/* pairs_gather on the vertices' boxes as they are (tests compare it with an update). */
bool pairs_gather_within_boxes(collision_scratch *s);

/* Makes the pairs valid again (pairs_valid) after some vertices strayed: when few did, by
 * growing their boxes and gathering again only the pairs they are in; else by pairs_gather.
 * False when out of memory. */
bool pairs_refresh(collision_scratch *s);

/* Whether the gathered pairs still hold every pair that can touch or come within its contact
 * distance on the paths now. Any such set of pairs, in the gathered order, gives the response
 * the same result, provided each pass only looks at the pairs within reach at its start. */
bool pairs_valid(const collision_scratch *s);

void pairs_free(collision_scratch *s);

/* Shared by the gathering (collision_pairs.c) and the updates (collision_update.c). */

/* Strands' pairs (collision_strand_pairs.c): whether object o is strands; the boxes of its
 * segments from their vertices' boxes; the pairs of strands object oa with object ob (or of
 * cloth oa with strands ob), appended to s->pairs in order. False when out of memory. */
static inline bool object_is_strands(const object_ref *o) { return o->segment_count > 0; }
void strand_pairs_set_boxes(const collision_scratch *s, object_ref *obj);
bool strand_pairs_of_objects(collision_scratch *s, int32_t oa, int32_t ob);

/* Adds the feature pairs of triangle ta of cloth oa and tb of object ob to `out`. */
void pairs_of_triangles(const collision_scratch *s, int32_t oa, int32_t ta, int32_t ob, int32_t tb, pair_buffer *out);
/* The box triangle ta of cloth oa looks for object ob's triangles with. */
aabb pairs_query_box(const collision_scratch *s, int32_t oa, int32_t ob, int32_t ta);
/* bvh_query's callback: appends the triangle to the buffer's hits. */
void pairs_collect_hit(void *ctx, int32_t prim);
/* Cloth triangle t's box from its vertices' boxes, grown for the distances its pairs need. */
void pairs_set_triangle_box(const collision_scratch *s, object_ref *obj, int32_t t);
/* At least `count` pair buffers, the first `count` emptied. */
bool pairs_reserve_buffers(collision_scratch *s, int32_t count);
/* Appends the first `count` buffers' pairs, in buffer order, to the array *to. */
bool pairs_append_buffers(collision_scratch *s, int32_t count, feature_pair **to, int32_t *to_count,
                          int32_t *to_capacity);

#endif
