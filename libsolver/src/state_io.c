/* The pieces every object's part of a saved state is made of: checked numbers and the
 * collision trees (the byte streams themselves are in state_io.h). */
#include <float.h>
#include <math.h>

#include "api_error.h"
#include "state_io.h"

enum { NODE_BYTES = 6 * 8 + 2 * 4 };

bool state_damaged(state_reader *in, const char *what)
{
    return STATE_FAIL(in, SB_ERROR_INVALID_ARGUMENT, "saved state is damaged: %s", what);
}

/* n finite doubles, at most `limit` in size, into dst: checked in the CHECK pass, copied
 * when applying (into the world) or always (`always`: into the caller's own variables). */
bool state_doubles(state_reader *in, double *dst, size_t n, bool always, double limit, const char *what)
{
    const uint8_t *bytes = state_span(in, n * sizeof(double));
    if (!bytes) return state_damaged(in, what);
    if (in->pass == PASS_CHECK)
        for (size_t i = 0; i < n; i++) {
            double value;
            memcpy(&value, bytes + i * sizeof value, sizeof value);
            if (!(fabs(value) <= limit)) return state_damaged(in, what);
        }
    if ((always || in->pass == PASS_APPLY) && n > 0) memcpy(dst, bytes, n * sizeof(double));
    return true;
}

bool state_read_doubles(state_reader *in, double *dst, size_t n, const char *what)
{
    return state_doubles(in, dst, n, false, DBL_MAX, what);
}

/* Positions, as every entry point bounds them. */
bool state_read_positions(state_reader *in, double *dst, size_t n, const char *what)
{
    return state_doubles(in, dst, n, false, MAX_COORDINATE, what);
}

/* Whether saved nodes form a tree as bvh_build lays one out: in preorder (each inner node's left
 * child right after it, its right child after the left subtree), every node reached once,
 * the leaves covering the primitives in order, no deeper than BVH_MAX_DEPTH (the fixed stacks
 * of the traversals rely on it). */
static const char *check_nodes(const uint8_t *bytes, int32_t node_count, int32_t prim_count)
{
    if (node_count == 0) return prim_count == 0 ? NULL : "a collision tree has no nodes";
    struct { int32_t node, depth; } stack[BVH_MAX_DEPTH + 2];
    int top = 0;
    int32_t next_node = 0, next_prim = 0;
    stack[top++].node = 0, stack[0].depth = 0;
    while (top > 0) {
        int32_t id = stack[--top].node, depth = stack[top].depth;
        if (id != next_node++) return "a collision tree's nodes are not in the order of a tree";
        const uint8_t *node = bytes + (size_t)NODE_BYTES * (size_t)id;
        double box[6];
        int32_t count, index;
        memcpy(box, node, sizeof box), memcpy(&count, node + 48, 4), memcpy(&index, node + 52, 4);
        for (int k = 0; k < 6; k++)
            if (isnan(box[k])) return "a collision tree's box is not a number";
        if (count > 0) {
            if (index != next_prim || count > prim_count - next_prim)
                return "a collision tree's leaves do not cover its mesh's triangles in order";
            next_prim += count;
        } else if (count < 0 || index <= id + 1 || index >= node_count) {
            return "a collision tree's node points outside the tree";
        } else if (depth >= BVH_MAX_DEPTH) {
            return "a collision tree is deeper than any tree SimBake builds";
        } else {
            stack[top].node = index, stack[top++].depth = depth + 1;
            stack[top].node = id + 1, stack[top++].depth = depth + 1;
        }
    }
    if (next_node != node_count || next_prim != prim_count) return "a collision tree does not fit its mesh";
    return NULL;
}

bool state_read_tree(state_reader *in, bvh *t, const aabb *boxes, int32_t primitives)
{
    int32_t node_count = 0, prim_count = 0;
    double built_area = 0.0;
    const uint8_t *nodes = NULL, *prims = NULL;
    bool present = STATE_TAKE(in, node_count) && STATE_TAKE(in, prim_count) && STATE_TAKE(in, built_area) &&
                   node_count >= 0;
    if (in->pass == PASS_CHECK) {
        if (node_count == -1 && prim_count == -1) return true;
        if (!present || prim_count != primitives || node_count > 2 * prim_count + 1 || isnan(built_area) ||
            !(nodes = state_span(in, NODE_BYTES * (uint64_t)node_count)) ||
            !(prims = state_span(in, 4 * (uint64_t)prim_count)))
            return state_damaged(in, "a collision tree does not fit its mesh");
        const char *wrong = check_nodes(nodes, node_count, prim_count);
        if (wrong) return state_damaged(in, wrong);
        return state_check_permutation(in, prims, prim_count, "a tree's primitives are not a permutation");
    }
    if (!present) { /* no tree saved: the world had not built it yet */
        if (in->pass == PASS_APPLY) t->built = false, t->node_count = t->prim_count = 0, t->built_area = 0.0;
        return true;
    }
    nodes = state_span(in, NODE_BYTES * (uint64_t)node_count);
    prims = state_span(in, 4 * (uint64_t)prim_count);
    if (in->pass == PASS_RESERVE) { /* room only: a load refused later leaves the tree as it was */
        if (!bvh_reserve(t, primitives)) return STATE_FAIL(in, SB_ERROR_OUT_OF_MEMORY, "out of memory loading a saved state");
        return true;
    }
    for (int32_t i = 0; i < node_count; i++, nodes += NODE_BYTES) {
        bvh_node *node = &t->nodes[i];
        memcpy(&node->box.lo, nodes, 24), memcpy(&node->box.hi, nodes + 24, 24);
        memcpy(&node->count, nodes + 48, 4), memcpy(&node->index, nodes + 52, 4);
    }
    if (prim_count > 0) memcpy(t->prims, prims, 4 * (size_t)prim_count);
    t->node_count = node_count, t->prim_count = prim_count, t->built_area = built_area, t->boxes = boxes;
    t->built = true;
    bvh_set_last(t);
    return true;
}

void state_write_tree(state_writer *out, const bvh *t)
{
    int32_t node_count = t->built ? t->node_count : -1, prim_count = t->built ? t->prim_count : -1;
    STATE_PUT(out, node_count), STATE_PUT(out, prim_count), STATE_PUT(out, t->built_area);
    for (int32_t i = 0; i < node_count; i++) {
        const bvh_node *node = &t->nodes[i];
        STATE_PUT(out, node->box.lo), STATE_PUT(out, node->box.hi);
        STATE_PUT(out, node->count), STATE_PUT(out, node->index);
    }
    if (prim_count > 0) state_put(out, t->prims, 4 * (size_t)prim_count);
}

