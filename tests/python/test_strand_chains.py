"""Splitting loose edges into strands (strand_chains.py): exact chains on small graphs, and on
random graphs every edge in exactly one chain with nodes only at the chains' ends."""

import unittest

import numpy as np

from simbake.strand_chains import split_chains


def chains_of(result):
    ends = np.cumsum(result.counts)
    return [list(result.vertices[end - count:end]) for end, count in zip(ends, result.counts)]


class SmallGraphs(unittest.TestCase):
    def test_a_rope_in_any_edge_order_is_one_chain_from_its_smaller_end(self):
        for edges in ([0, 1, 1, 2, 2, 3], [2, 3, 1, 2, 0, 1], [3, 2, 2, 1, 1, 0]):
            result = split_chains(edges, 4)
            self.assertEqual(chains_of(result), [[0, 1, 2, 3]])
            self.assertEqual(list(result.first_copy), [0, 1, 2, 3])
            self.assertEqual((len(result.junctions), result.cycles, result.loose_vertices), (0, 0, 0))

    def test_a_junction_ends_every_chain_through_it_each_with_its_own_copy(self):
        # a tassel: knot 0 with three threads, one of two segments; vertex 5 in no edge
        result = split_chains([0, 1, 0, 2, 0, 3, 3, 4], 6)
        self.assertEqual(chains_of(result), [[0, 1], [0, 2], [0, 3, 4]])
        self.assertEqual(list(result.junctions), [0])
        self.assertEqual(result.loose_vertices, 1)
        self.assertEqual(list(result.first_copy), [0, 1, 3, 5, 6, -1])

    def test_a_closed_loop_is_cut_open_at_one_vertex_which_ends_it_twice(self):
        result = split_chains([0, 1, 1, 2, 2, 0], 3)
        self.assertEqual(chains_of(result), [[0, 1, 2, 0]])
        self.assertEqual(result.cycles, 1)
        result = split_chains([0, 1, 1, 0], 2)  # two edges between the same vertices
        self.assertEqual(chains_of(result), [[0, 1, 0]])

    def test_a_loop_through_a_junction_is_a_chain_from_and_to_it(self):
        result = split_chains([0, 1, 1, 2, 2, 0, 2, 3], 4)
        self.assertEqual(sorted(map(tuple, chains_of(result))), [(2, 0, 1, 2), (2, 3)])
        self.assertEqual(result.cycles, 0)

    def test_edges_from_a_vertex_to_itself_are_left_out(self):
        result = split_chains([0, 0, 0, 1], 2)
        self.assertEqual((chains_of(result), result.self_loops), ([[0, 1]], 1))

    def test_no_edges_no_chains(self):
        result = split_chains([], 3)
        self.assertEqual((len(result.vertices), result.loose_vertices), (0, 3))

    def test_an_edge_outside_the_vertices_is_refused(self):
        with self.assertRaises(ValueError):
            split_chains([0, 5], 3)

    def test_pins_hold_every_copy_and_mesh_positions_take_the_first(self):
        result = split_chains([0, 1, 0, 2], 4)  # a V: vertex 0 has degree 2, one chain through it
        self.assertEqual(chains_of(result), [[1, 0, 2]])
        result = split_chains([0, 1, 0, 2, 0, 3], 5)
        self.assertEqual(list(result.pins([True, False, False, False, False])), [0, 2, 4])
        strands = np.arange(3 * len(result.vertices), dtype=float)
        rest = -np.ones(15)
        mesh = result.mesh_positions(strands, rest).reshape(-1, 3)
        self.assertEqual(list(mesh[0]), [0.0, 1.0, 2.0])  # vertex 0's first copy is strand vertex 0
        self.assertEqual(list(mesh[3]), list(strands.reshape(-1, 3)[5]))
        self.assertEqual(list(mesh[4]), [-1.0, -1.0, -1.0])  # in no edge: where it rests


class RandomGraphs(unittest.TestCase):
    def check(self, edges, vertex_count):
        result = split_chains(edges, vertex_count)
        pairs = np.asarray(edges).reshape(-1, 2)
        degree = np.bincount(pairs.reshape(-1), minlength=vertex_count)
        walked = []
        for chain in chains_of(result):
            self.assertGreaterEqual(len(chain), 2)
            walked += [tuple(sorted(pair)) for pair in zip(chain[:-1], chain[1:])]
            for v in chain[1:-1]:
                self.assertEqual(degree[v], 2, "a node inside a chain")
            if chain[0] != chain[-1] or degree[chain[0]] != 2:
                self.assertNotEqual(degree[chain[0]], 2)
                self.assertNotEqual(degree[chain[-1]], 2)
        self.assertEqual(sorted(walked), sorted(tuple(sorted(p)) for p in pairs), "each edge once")
        used = result.first_copy >= 0
        self.assertTrue(np.array_equal(used, degree > 0))
        self.assertTrue(np.array_equal(result.vertices[result.first_copy[used]], np.flatnonzero(used)))
        return result

    def test_random_forests_of_ropes_junctions_and_loops(self):
        rng = np.random.default_rng(31)
        for trial in range(40):
            n = int(rng.integers(2, 60))
            m = int(rng.integers(1, 2 * n))
            a = rng.integers(0, n, m)
            b = (a + rng.integers(1, n, m)) % n  # no self loops
            self.check(np.stack([a, b], axis=1).reshape(-1), n)

    def test_many_strands_split_in_bulk(self):
        # 500 strands of 30 segments, numbered strand by strand but with the edges shuffled
        strands, segments = 500, 30
        starts = np.arange(strands) * (segments + 1)
        a = (starts[:, None] + np.arange(segments)).reshape(-1)
        edges = np.stack([a, a + 1], axis=1)
        edges = edges[np.random.default_rng(1).permutation(len(edges))]
        result = self.check(edges.reshape(-1), strands * (segments + 1))
        self.assertEqual(list(result.counts), [segments + 1] * strands)
        self.assertEqual(list(result.vertices), list(range(strands * (segments + 1))))


if __name__ == "__main__":
    unittest.main()
