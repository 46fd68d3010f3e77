"""Reading simulation input from Blender objects, in bulk (foreach_get, no per-vertex
Python beyond the pin group)."""

from array import array
from contextlib import contextmanager
from itertools import chain, compress

from . import native
from .settings import SettingsError, blender_pins, find_modifier, pinned_vertices
from .triangle_order import canonical_triangles

BAKE_MODIFIER_NAME = "SimBake"


def simulation_cut(obj):
    """Index in the modifier stack where the simulation sits: an existing SimBake bake's
    modifier, else Blender's Cloth modifier, else the top of the stack. Modifiers below
    it shape the simulated mesh (and move its pins); those above apply on the result."""
    for index, modifier in enumerate(obj.modifiers):
        if modifier.name == BAKE_MODIFIER_NAME and modifier.type == "MESH_CACHE":
            return index
    index, _ = find_modifier(obj, "CLOTH")
    return 0 if index is None else index


@contextmanager
def modifiers_hidden(objects_and_cuts):
    """Hides each object's modifiers from its cut upwards while reading input."""
    saved = []
    try:
        for obj, cut in objects_and_cuts:
            for modifier in list(obj.modifiers)[cut:]:
                saved.append((modifier, modifier.show_viewport))
                modifier.show_viewport = False
        yield
    finally:
        for modifier, shown in saved:
            modifier.show_viewport = shown


def is_animated(obj, cut):
    """Whether the object's world transform or its mesh below the cut may change over
    time (keyframes or drivers on it, its parents or its data; constraints; modifiers)."""
    def animated(idblock):
        data = getattr(idblock, "animation_data", None)
        return data is not None and (data.action is not None or len(data.drivers) > 0)

    node = obj
    while node is not None:
        if animated(node) or len(node.constraints) > 0:
            return True
        node = node.parent
    data = obj.data
    keys = getattr(data, "shape_keys", None)
    if data is not None and (animated(data) or (keys is not None and animated(keys))):
        return True
    return cut > 0


class MeshSample:
    """One evaluation of an object's mesh: world positions (float64, flat) and the
    object's world matrix as 16 row-major doubles."""

    def __init__(self, positions, matrix):
        self.positions = positions
        self.matrix = matrix


def evaluated_mesh(obj, depsgraph):
    """(evaluated object, its temporary mesh); call obj_eval.to_mesh_clear() when done."""
    obj_eval = obj.evaluated_get(depsgraph)
    return obj_eval, obj_eval.to_mesh()


def sample_positions(obj, depsgraph, expected_count=None):
    obj_eval, mesh = evaluated_mesh(obj, depsgraph)
    try:
        count = len(mesh.vertices)
        if expected_count is not None and count != expected_count:
            raise SettingsError(f"{obj.name}: the mesh changed from {expected_count} to {count} vertices "
                                "during the frame range; SimBake needs a fixed topology below the simulation")
        local = array("f", bytes(12 * count))
        mesh.vertices.foreach_get("co", local)
        matrix = native.matrix_rows(obj_eval.matrix_world)
        return MeshSample(native.transform_points(matrix, local, "d"), matrix)
    finally:
        obj_eval.to_mesh_clear()


class ClothInput:
    """Everything the solver needs about a cloth object at the first frame."""

    def __init__(self, sample, triangles, edges, uvs, pins, vertex_count, loose_flags=None, shrink_weights=None,
                 pressure_weights=None, pin_weights=None, intern_weights=None, group_weights=None):
        self.sample = sample
        self.triangles = triangles
        self.edges = edges  # the mesh's own edges, 2 vertex ids each
        flags = bytes(loose_flags) if loose_flags is not None else bytes(len(edges) // 2)
        self.loose_edges = select_edges(edges, flags)  # edges in no face (Blender's sewing edges), flat pairs
        self.face_edges = select_edges(edges, flags.translate(_NOT))  # the others
        self.intern_weights = intern_weights  # each vertex's weight in the internal springs group, or None
        self._measured = {}
        self.uvs = uvs
        self.pins = pins
        self.vertex_count = vertex_count
        self.shrink_weights = shrink_weights  # each vertex's weight in the shrink group, or None
        self.pressure_weights = pressure_weights  # each vertex's weight in the pressure group, or None
        self.pin_weights = pin_weights  # each vertex's weight in the pin group, or None
        self.group_weights = group_weights or {}  # other groups read: name -> each vertex's weight

    def area_and_edge_length(self, sewing=False):
        """Total area (m²) and mean edge length (m); only Blender-cloth settings need them. With
        `sewing` the loose edges are left out of the mean, as Blender leaves sewing springs out of
        its mean spring length."""
        key = bool(sewing)
        if key not in self._measured:
            edges = self.face_edges if sewing else self.edges
            self._measured[key] = _area_and_edge_length(self.sample.positions, self.triangles, edges)
        return self._measured[key]



def _group_weights(obj, mesh, group_name, what="vertex group"):
    """Each vertex's weight in the named vertex group (0 outside it), or None without one;
    `what` names the group in the error when it does not exist."""
    if not group_name:
        return None
    group = obj.vertex_groups.get(group_name)
    if group is None:
        raise SettingsError(f"{obj.name}: {what} '{group_name}' does not exist "
                            f"(vertex groups: {', '.join(g.name for g in obj.vertex_groups) or 'none'})")
    weights = array("d", bytes(8 * len(mesh.vertices)))
    # Vertex group weights have no bulk accessor in Blender's API.
    for v in mesh.vertices:
        for g in v.groups:
            if g.group == group.index:
                weights[v.index] = g.weight
    return weights


def vertex_group_weights(obj, mesh, group_name, what="vertex group"):
    """Each vertex's weight in the named vertex group (0 outside it), or None without a name."""
    return _group_weights(obj, mesh, group_name, what)


def _area_and_edge_length(positions, triangles, edges):
    """Total triangle area, and the mean length of the mesh's edges (not of the triangles'
    sides: a quad's diagonal is not one of Blender's springs)."""
    p = positions
    area = 0.0
    for t in range(0, len(triangles), 3):
        a, b, c = 3 * triangles[t], 3 * triangles[t + 1], 3 * triangles[t + 2]
        u = (p[b] - p[a], p[b + 1] - p[a + 1], p[b + 2] - p[a + 2])
        v = (p[c] - p[a], p[c + 1] - p[a + 1], p[c + 2] - p[a + 2])
        cross = (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])
        area += 0.5 * (cross[0] ** 2 + cross[1] ** 2 + cross[2] ** 2) ** 0.5
    edge_sum = 0.0
    for e in range(0, len(edges), 2):
        a, b = 3 * edges[e], 3 * edges[e + 1]
        edge_sum += ((p[b] - p[a]) ** 2 + (p[b + 1] - p[a + 1]) ** 2 + (p[b + 2] - p[a + 2]) ** 2) ** 0.5
    return area, edge_sum / max(1, len(edges) // 2)


def _vertices_and_triangles(mesh):
    """Local vertex positions (float32) and triangle vertex indices of a mesh, in bulk."""
    mesh.calc_loop_triangles()
    local = array("f", bytes(12 * len(mesh.vertices)))
    mesh.vertices.foreach_get("co", local)
    triangles = array("i", bytes(12 * len(mesh.loop_triangles)))
    mesh.loop_triangles.foreach_get("vertices", triangles)
    return local, triangles


_NOT = bytes([1, 0]) + bytes(254)  # bytes.translate table turning flags 0/1 into 1/0


def select_edges(edges, flags):
    """The pairs of `edges` (flat vertex pairs) whose flag (a byte each) is set, flat: in bulk,
    with C-level iterators rather than a Python loop per edge."""
    return array("i", chain.from_iterable(compress(zip(edges[0::2], edges[1::2]), flags)))


def read_cloth(obj, depsgraph, pin_group, shrink_group=None, pressure_group=None, intern_group=None, groups=(),
               blender_pinning=False):
    """Mesh, UVs, pins, loose edges (Blender's sewing edges) and the pin, shrink, pressure and
    internal springs groups' weights of a cloth object as evaluated now (modifiers above the cut
    hidden by the caller), and the weights of the other vertex groups named in `groups`
    (stiffness and collision groups). Pins: with `blender_pinning` those Blender's cloth pins
    hard (weight⁴ ≥ 0.999), else weights of 0.5 or more. Raises SettingsError naming the
    object."""
    if obj.type != "MESH":
        raise SettingsError(f"{obj.name}: only mesh objects can be cloth (this is a {obj.type.lower()})")
    obj_eval, mesh = evaluated_mesh(obj, depsgraph)
    try:
        local, triangles = _vertices_and_triangles(mesh)
        count, triangle_count = len(mesh.vertices), len(mesh.loop_triangles)
        if count == 0 or triangle_count == 0:
            raise SettingsError(f"{obj.name}: the mesh has no faces to simulate "
                                f"({count} vertices, {len(mesh.polygons)} faces)")
        uvs = None
        if mesh.uv_layers.active is not None:
            loops = array("i", bytes(12 * triangle_count))
            mesh.loop_triangles.foreach_get("loops", loops)
            loop_uvs = array("f", bytes(8 * len(mesh.loops)))
            mesh.uv_layers.active.data.foreach_get("uv", loop_uvs)
            uvs = gather(loop_uvs, loops, width=2)
        edges = array("i", bytes(8 * len(mesh.edges)))
        mesh.edges.foreach_get("vertices", edges)
        pin_weights = _group_weights(obj, mesh, pin_group, "pin group")
        pins = blender_pins(pin_weights) if blender_pinning else pinned_vertices(pin_weights)
        shrink_weights = _group_weights(obj, mesh, shrink_group, "shrink group")
        pressure_weights = _group_weights(obj, mesh, pressure_group, "pressure group")
        flags = array("b", bytes(len(mesh.edges)))
        mesh.edges.foreach_get("is_loose", flags)
        intern_weights = _group_weights(obj, mesh, intern_group, "internal springs group")
        group_weights = {name: _group_weights(obj, mesh, name) for name in groups}
        matrix = native.matrix_rows(obj_eval.matrix_world)
    finally:
        obj_eval.to_mesh_clear()
    positions = native.transform_points(matrix, local, "d")
    return ClothInput(MeshSample(positions, matrix), triangles, edges, uvs, pins, count, flags,
                      shrink_weights=shrink_weights, pressure_weights=pressure_weights, pin_weights=pin_weights,
                      intern_weights=intern_weights, group_weights=group_weights)


def gather(values, indices, width=3):
    """The `width`-tuples of `values` at `indices` (xyz triples by default), flat float64."""
    return array("d", [values[width * i + k] for i in indices for k in range(width)])


# Object types whose evaluated geometry can collide.
COLLIDER_TYPES = {"MESH", "CURVE", "SURFACE", "FONT", "META"}


def read_collider(obj, depsgraph):
    """A collider's evaluated triangles in world space (all its modifiers applied)."""
    if obj.type not in COLLIDER_TYPES:
        raise SettingsError(f"{obj.name}: a {obj.type.lower()} object has no surface to collide with")
    body = read_body_mesh(obj, depsgraph)
    if len(body.triangles) == 0:
        raise SettingsError(f"{obj.name}: the collider has no faces")
    return body


class BodyMesh:
    """A rigid body's mesh as evaluated now: local positions (float32), world positions
    (float64), triangles, and the world matrix (16 row-major doubles)."""

    def __init__(self, local, positions, triangles, matrix):
        self.local = local
        self.vertex_count = len(local) // 3
        self.positions = positions
        self.triangles = triangles
        self.matrix = matrix


def read_body_mesh(obj, depsgraph, base=False):
    """A rigid body's evaluated mesh (the modifiers not hidden applied), or with `base` its
    mesh itself (no shape keys or modifiers: Blender's rigid body Source 'Base')."""
    obj_eval = obj.evaluated_get(depsgraph)
    mesh = obj.data if base and obj.type == "MESH" else obj_eval.to_mesh()
    try:
        local, triangles = _vertices_and_triangles(mesh)
        triangles = canonical_triangles(triangles)
        if len(local) == 0:
            raise SettingsError(f"{obj.name}: the mesh has no vertices")
        matrix = native.matrix_rows(obj_eval.matrix_world)
    finally:
        if mesh is not obj.data:
            obj_eval.to_mesh_clear()
    return BodyMesh(local, native.transform_points(matrix, local, "d"), triangles, matrix)
