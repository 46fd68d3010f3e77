"""Triangles in an order of their own, whatever order the mesh gave them in. No bpy here."""

from array import array
from itertools import chain

try:
    import numpy
except ImportError:  # Debian's Blender without python3-numpy: sorted in plain Python
    numpy = None


def canonical_triangles(triangles):
    """The same triangles (flat vertex indices, winding kept) in an order fixed by the
    triangles alone: each starts at its smallest index, then sorted. Blender's primitives
    (the UV sphere in 3.4) number their faces differently in every process, and a collider's
    triangle order reaches the solver's contact order, so bakes of the same scene differed."""
    if numpy is None:
        return array("i", chain.from_iterable(sorted(map(_smallest_first, triangles[0::3], triangles[1::3],
                                                         triangles[2::3]))))
    t = numpy.frombuffer(triangles, dtype=numpy.int32).reshape(-1, 3)
    start = numpy.argmin(t, axis=1)
    rolled = t[numpy.arange(len(t))[:, None], (start[:, None] + numpy.arange(3)) % 3]
    order = numpy.lexsort((rolled[:, 2], rolled[:, 1], rolled[:, 0]))
    return array("i", rolled[order].astype(numpy.int32).tobytes())


def _smallest_first(a, b, c):
    """A triangle's corners turned to start at its smallest index (winding kept)."""
    if a <= b and a <= c:
        return a, b, c
    return (b, c, a) if b <= c else (c, a, b)
