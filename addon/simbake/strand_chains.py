"""A mesh's loose edges split into strands (chains of vertices), in bulk with numpy. No bpy here.

The edge graph is cut at its nodes: a vertex of degree 1 ends a chain, and a vertex of degree 3
or more (a junction) ends every chain that meets it, each chain getting its own copy of it. A
closed loop without either (every vertex of degree 2) is cut open at one of its vertices, which
then starts and ends its chain (two copies, the loop's every edge kept). The library simulates
each chain as one strand: copies of a vertex are not joined and move apart unless pinned (a pin
holds every copy). The mesh shows each vertex where its first copy is.

The walk along the chains is list ranking by pointer jumping (log₂ of the edge count passes of
whole-array operations) on half-edges: a half-edge a→b goes on to b→c, b's other edge, where b
has degree 2, and ends where b is a node."""

import numpy as np


class Chains:
    """vertices: for each strand vertex, in the library's order, the mesh vertex it is (int32);
    counts: vertices per chain (int32); first_copy: for each mesh vertex, its first strand vertex
    (-1 for a vertex in no edge); junctions: the mesh vertices of degree 3 or more; cycles (loops
    cut open), loose_vertices (in no edge) and self_loops (edges from a vertex to itself, left
    out) counted."""

    def __init__(self, vertices, counts, first_copy, junctions=(), cycles=0, loose_vertices=0, self_loops=0):
        self.vertices = vertices
        self.counts = counts
        self.first_copy = first_copy
        self.junctions = np.asarray(junctions, dtype=np.int64)
        self.cycles = cycles
        self.loose_vertices = loose_vertices
        self.self_loops = self_loops

    def pins(self, pinned):
        """The strand vertices whose mesh vertex is pinned (`pinned`: a bool per mesh vertex)."""
        return np.flatnonzero(np.asarray(pinned, dtype=bool)[self.vertices]).astype(np.int32)

    def mesh_positions(self, strand_positions, rest_positions):
        """Positions of the mesh's vertices (flat xyz) from the strands' (flat xyz, the library's
        order); a vertex in no edge keeps its place in `rest_positions` (flat xyz, mesh order)."""
        out = np.array(rest_positions, dtype=np.float64).reshape(-1, 3)
        used = self.first_copy >= 0
        out[used] = np.asarray(strand_positions, dtype=np.float64).reshape(-1, 3)[self.first_copy[used]]
        return out.reshape(-1)


def _walk(successor, rounds):
    """For each half-edge: the last half-edge of its path and the number of steps to it
    (Wyllie's list ranking: the path's end points to itself and is 0 steps from it)."""
    ids = np.arange(len(successor))
    ends = successor < 0
    jump = np.where(ends, ids, successor)
    steps = (~ends).astype(np.int64)
    for _ in range(rounds):
        steps = steps + steps[jump]
        jump = jump[jump]
    return jump, steps


def split_chains(edges, vertex_count):
    """Chains of `edges` (flat vertex pairs, or an (m, 2) array) on `vertex_count` vertices."""
    pairs = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    if len(pairs) and (pairs.min() < 0 or pairs.max() >= vertex_count):
        raise ValueError(f"an edge names a vertex outside 0..{vertex_count - 1}")
    self_loop = pairs[:, 0] == pairs[:, 1]
    pairs = pairs[~self_loop]
    degree = np.bincount(pairs.reshape(-1), minlength=vertex_count)
    edge_count = len(pairs)
    loose = int(np.count_nonzero(degree == 0))
    if edge_count == 0:
        return Chains(np.zeros(0, np.int32), np.zeros(0, np.int32), np.full(vertex_count, -1, np.int64),
                      loose_vertices=loose, self_loops=int(self_loop.sum()))
    # half-edge h < m runs pairs[h, 0] → pairs[h, 1], h + m the other way
    source = np.concatenate([pairs[:, 0], pairs[:, 1]])
    target = np.concatenate([pairs[:, 1], pairs[:, 0]])
    count = 2 * edge_count
    ids = np.arange(count)
    reverse = (ids + edge_count) % count
    leaving = np.argsort(source, kind="stable")  # half-edges grouped by the vertex they leave
    first_leaving = np.concatenate([[0], np.cumsum(degree)])
    successor = np.full(count, -1, dtype=np.int64)
    through = degree[target] == 2
    vertex = target[through]
    one, other = leaving[first_leaving[vertex]], leaving[first_leaving[vertex] + 1]
    successor[through] = np.where(one == reverse[through], other, one)

    rounds = int(np.ceil(np.log2(count))) + 1
    last, _ = _walk(successor, rounds)
    in_cycle = successor[last] >= 0  # never reaches an end
    cycle_starts = np.zeros(0, dtype=np.int64)
    if in_cycle.any():
        # each directed loop's smallest half-edge; of a loop's two directions the one whose
        # smallest half-edge is smaller is kept, cut open before that half-edge
        label, jump = ids.copy(), np.where(successor < 0, ids, successor)
        for _ in range(rounds):
            label = np.minimum(label, label[jump])
            jump = jump[jump]
        keep = in_cycle & (label == ids) & (label < label[reverse])
        cycle_starts = np.flatnonzero(keep)
        kept = np.zeros(count, dtype=bool)
        kept[cycle_starts] = True
        successor[in_cycle & kept[label] & (successor == label)] = -1
    last, steps = _walk(successor, rounds)

    node_starts = np.flatnonzero(degree[source] != 2)
    # of a chain's two directions, the one from the smaller vertex (then half-edge) is kept
    other_way = reverse[last[node_starts]]
    forward = (source[node_starts] < source[other_way]) | (
        (source[node_starts] == source[other_way]) & (node_starts <= other_way))
    starts = np.concatenate([node_starts[forward], cycle_starts])
    starts = starts[np.lexsort((starts, source[starts]))]

    chain_of_end = np.full(count, -1, dtype=np.int64)
    chain_of_end[last[starts]] = np.arange(len(starts))
    chain = chain_of_end[last]
    member = np.flatnonzero(chain >= 0)
    chain = chain[member]
    edges_per_chain = steps[starts] + 1
    edge_offsets = np.concatenate([[0], np.cumsum(edges_per_chain)])
    place = edge_offsets[chain] + steps[starts][chain] - steps[member]
    ordered = np.empty(len(member), dtype=np.int64)
    ordered[place] = member
    # each chain: its first half-edge's source, then every half-edge's target
    vertices = np.empty(len(member) + len(starts), dtype=np.int64)
    chain_of_place = np.repeat(np.arange(len(starts)), edges_per_chain)
    vertices[np.arange(len(member)) + chain_of_place + 1] = target[ordered]
    vertices[edge_offsets[:-1] + np.arange(len(starts))] = source[starts]

    first_copy = np.full(vertex_count, -1, dtype=np.int64)
    unique, first = np.unique(vertices, return_index=True)
    first_copy[unique] = first
    return Chains(vertices.astype(np.int32), (edges_per_chain + 1).astype(np.int32), first_copy,
                  junctions=np.flatnonzero(degree > 2), cycles=len(cycle_starts),
                  loose_vertices=loose, self_loops=int(self_loop.sum()))
