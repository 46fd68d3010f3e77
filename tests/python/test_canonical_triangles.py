"""A collider's triangles reach the solver in an order fixed by the triangles alone."""

import random
import unittest
from array import array

from unittest import mock

from simbake import triangle_order
from simbake.triangle_order import canonical_triangles


def signed_triangles(flat):
    """Each triangle as its vertex cycle started at the smallest index (winding kept)."""
    out = set()
    for i in range(0, len(flat), 3):
        t = list(flat[i:i + 3])
        k = t.index(min(t))
        out.add(tuple(t[k:] + t[:k]))
    return out


class CanonicalTriangles(unittest.TestCase):
    def test_any_face_order_and_starting_corner_give_the_same_triangles_in_the_same_order(self):
        rng = random.Random(3)
        triangles = [rng.sample(range(500), 3) for _ in range(400)]
        first = array("i", [v for t in triangles for v in t])
        rng.shuffle(triangles)
        turned = [t[k:] + t[:k] for t, k in zip(triangles, (rng.randrange(3) for _ in triangles))]
        second = array("i", [v for t in turned for v in t])
        self.assertNotEqual(first, second)
        self.assertEqual(canonical_triangles(first), canonical_triangles(second))
        self.assertEqual(signed_triangles(canonical_triangles(first)), signed_triangles(first), "winding kept")

    def test_a_flipped_triangle_stays_flipped(self):
        self.assertEqual(list(canonical_triangles(array("i", [2, 1, 0, 5, 3, 4]))), [0, 2, 1, 3, 4, 5])

    def test_no_triangles(self):
        self.assertEqual(len(canonical_triangles(array("i"))), 0)

    def test_without_numpy_the_same_order(self):
        """Debian's Blender may have no numpy: the plain-Python path gives the same list,
        degenerate triangles (a repeated index) included."""
        rng = random.Random(5)
        flat = array("i", [rng.randrange(40) for _ in range(3 * 500)] + [7, 7, 3, 3, 9, 3, 9, 3, 3])
        with_numpy = canonical_triangles(flat)
        with mock.patch.object(triangle_order, "numpy", None):
            self.assertEqual(canonical_triangles(flat), with_numpy)
            self.assertEqual(len(canonical_triangles(array("i"))), 0)


if __name__ == "__main__":
    unittest.main()
