"""Strands in a bake: a mesh of loose edges read from Blender (in bulk), split into chains
(strand_chains.py) and added to the solver as strands, and the solver's strand vertices mapped
back to the mesh's vertices for the cache."""

from array import array

from . import native, scene_io, strand_material, unmapped

try:
    import numpy as np

    from . import strand_chains
except ImportError:  # Debian's Blender without python3-numpy: every other bake still works
    np = strand_chains = None
from .scene_io import MeshSample
from .settings import SettingsError, blender_pins, find_modifier, pinned_vertices


class StrandsInput:
    """A strands object at the first frame. `sample`: the mesh's world positions (mesh order) and
    matrix; `pins`: for each pinned strand vertex, in the library's pin order, the mesh vertex it
    is (the bake gathers the pins' animated targets with them); `vertex_count`: the mesh's."""

    def __init__(self, sample, local, chains, pinned, soft_pins):
        self.sample = sample
        self.local = local  # the mesh's own positions (float32, flat)
        self.chains = chains
        self.vertex_count = len(local) // 3
        self.pinned = pinned  # a bool per mesh vertex
        self.soft_pins = soft_pins  # vertices a Blender pin group pins softly (left free)
        self.strand_pins = chains.pins(pinned)
        self.pins = array("i", chains.vertices[self.strand_pins].tobytes())
        world = np.frombuffer(sample.positions, dtype=np.float64).reshape(-1, 3)
        self.strand_positions = array("d", world[chains.vertices].tobytes())
        in_edges = chains.first_copy >= 0
        self.simulated_vertices = int(np.count_nonzero(in_edges))
        segments = np.diff(world[chains.vertices], axis=0)
        lengths = np.sqrt((segments * segments).sum(axis=1))
        # a chain's last vertex and the next chain's first are no segment
        starts = np.delete(np.arange(len(lengths)), np.cumsum(chains.counts)[:-1] - 1)
        lengths = lengths[starts]
        zero = starts[lengths == 0.0][:3]
        # the mesh's vertices at the ends of the first few edges of length 0
        self.zero_edges = list(zip(chains.vertices[zero].tolist(), chains.vertices[zero + 1].tolist()))
        self.total_length = float(lengths.sum())
        self.mean_edge_length = self.total_length / max(1, len(lengths))

    def mesh_positions(self, strand_positions, matrix=None):
        """World positions of the mesh's vertices from the strands' (the library's order); a
        vertex in no edge goes where the object's `matrix` (16 row-major doubles; None: the first
        frame's) puts it."""
        rest = self.sample.positions if matrix is None else native.transform_points(matrix, self.local, "d")
        return array("d", self.chains.mesh_positions(strand_positions, rest).tobytes())

    def warnings(self, name):
        """What the strands' topology leaves out, in words naming the object."""
        found = unmapped.blender_soft_pins(name, self.soft_pins)
        chains = self.chains
        loose_junctions = int(np.count_nonzero(~self.pinned[chains.junctions]))
        if loose_junctions:
            found.append(f"{name}: {loose_junctions} unpinned vertex(es) where three or more edges meet: each "
                         "strand through one has its own copy of it, so the strands are not joined there "
                         "(pin it to hold them together)")
        if chains.cycles:
            found.append(f"{name}: {chains.cycles} closed loop(s) of edges cut open at one vertex each (its two "
                         "copies are joined only if it is pinned)")
        if chains.loose_vertices:
            found.append(f"{name}: {chains.loose_vertices} vertex(es) in no edge are not simulated (they move "
                         "with the object)")
        if chains.self_loops:
            found.append(f"{name}: {chains.self_loops} edge(s) from a vertex to itself left out")
        return found


def read_strands(obj, depsgraph, pin_group, blender_pinning=False):
    """The strands of a mesh of loose edges as evaluated now (modifiers above the cut hidden by
    the caller). Pins: with `blender_pinning` those Blender's cloth pins hard (weight⁴ ≥ 0.999),
    else weights of 0.5 or more. Raises SettingsError naming the object."""
    if obj.type != "MESH":
        raise SettingsError(f"{obj.name}: only mesh objects can be strands (this is a {obj.type.lower()})")
    if np is None:
        raise SettingsError(f"{obj.name}: strands need numpy, which this Blender's Python does not have "
                            "(Debian's Blender: apt-get install python3-numpy)")
    obj_eval, mesh = scene_io.evaluated_mesh(obj, depsgraph)
    try:
        count, faces = len(mesh.vertices), len(mesh.polygons)
        if faces:
            raise SettingsError(f"{obj.name}: strands are a mesh of loose edges, and this one has {faces} face(s) "
                                "(give it the role Cloth, or delete its faces and keep the edges)")
        if len(mesh.edges) == 0:
            raise SettingsError(f"{obj.name}: the mesh has no edges to simulate as strands ({count} vertices)")
        local = array("f", bytes(12 * count))
        mesh.vertices.foreach_get("co", local)
        edges = np.zeros(2 * len(mesh.edges), dtype=np.int32)
        mesh.edges.foreach_get("vertices", edges)
        weights = scene_io.vertex_group_weights(obj, mesh, pin_group, "pin group")
        matrix = native.matrix_rows(obj_eval.matrix_world)
    finally:
        obj_eval.to_mesh_clear()
    pinned = np.zeros(count, dtype=bool)
    pinned[np.asarray(blender_pins(weights) if blender_pinning else pinned_vertices(weights), dtype=np.int64)] = True
    soft = 0
    if blender_pinning and weights is not None:
        soft = int(np.count_nonzero((np.asarray(weights) > 0.0) & ~pinned))
    chains = strand_chains.split_chains(edges, count)
    if len(chains.counts) == 0:
        raise SettingsError(f"{obj.name}: no edge joins two different vertices, so there is no strand to simulate")
    sample = MeshSample(native.transform_points(matrix, local, "d"), matrix)
    strands = StrandsInput(sample, local, chains, pinned, soft)
    if strands.zero_edges:
        named = ", ".join(f"{a}–{b}" for a, b in strands.zero_edges)
        raise SettingsError(f"{obj.name}: edges of length 0 (between vertices {named}): a strand's segments need "
                            "a length (merge such vertices: Mesh > Clean Up > Merge by Distance)")
    return strands


def add_strands(world, job, depsgraph, warnings):
    """Reads a strands object and adds it to the solver: job.input, job.cloth_id."""
    obj = job.obj
    modifier = find_modifier(obj, "CLOTH")[1] if obj.simbake.role == "NONE" else None
    job.input = strands = read_strands(obj, depsgraph, job.pin_group, blender_pinning=modifier is not None)
    material = strand_material.strand_material(obj, strands.simulated_vertices,
                                               lambda: (strands.total_length, strands.mean_edge_length))
    job.cloth_id = world.add_strands(strands.strand_positions, array("i", strands.chains.counts.tobytes()),
                                     array("i", strands.strand_pins.tobytes()), **material)
    warnings.extend(strands.warnings(obj.name))
