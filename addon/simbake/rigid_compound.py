"""Blender's Compound Parent shape: an active or passive rigid body whose collision shape is
'COMPOUND' is one body made of its children's shapes. As in Blender (rigidbody.cc,
rigidbody_validate_sim_shape_helper): the children that are rigid bodies give their own
shapes, where they are; a child that is a Compound Parent too gives its children's; the
parent's own mesh is not part of it, and its mass, friction and bounciness are the body's. The
children are no bodies of their own: they follow the parent. No bpy here: functions take any
object with the same attributes (parent, children, rigid_body, simbake.role, name)."""

from array import array


def is_compound_parent(obj):
    """Whether the object bakes as Blender's Compound Parent (its Blender settings decide)."""
    body = getattr(obj, "rigid_body", None)
    return obj.simbake.role == "NONE" and body is not None and body.collision_shape == "COMPOUND"


def is_part(obj):
    """Whether the object is a shape of its parent's compound rather than a body of its own."""
    parent = obj.parent
    return (parent is not None and getattr(obj, "rigid_body", None) is not None and obj.simbake.role == "NONE"
            and is_compound_parent(parent))


def part_objects(obj):
    """The objects whose shapes make the compound of `obj`, by name (nested compounds give
    their children's)."""
    out = []
    for child in sorted(obj.children, key=lambda o: o.name):
        if not is_part(child):
            continue
        out += part_objects(child) if is_compound_parent(child) else [child]
    return out


def merged_surface(meshes):
    """One surface of several (world positions float64, triangles), for cloth to meet."""
    positions, triangles = array("d"), array("i")
    for mesh_positions, mesh_triangles in meshes:
        first = len(positions) // 3
        positions.extend(mesh_positions)
        triangles.extend(index + first for index in mesh_triangles)
    return positions, triangles
