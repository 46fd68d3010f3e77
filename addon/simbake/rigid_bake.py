"""The rigid bodies of a bake: the objects that move (baked to keyframes) and the obstacles
they meet (static, or following their own animation)."""

from array import array

from . import native, rigid_compound, rigid_joints, rigid_settings, scene_io, settings, transforms
from .settings import SettingsError

try:
    import numpy as np
except ImportError:  # Debian's Blender without python3-numpy: each body's frames sliced out in turn
    np = None

IDENTITY = transforms.IDENTITY


def _chain_animated(obj):
    """Whether what places the object (its parents, its constraints) may move over time."""
    return len(obj.constraints) > 0 or (obj.parent is not None and scene_io.is_animated(obj.parent, 0))


class RigidJob:
    """An object simulated as a moving rigid body and baked to keyframes."""

    def __init__(self, obj):
        self.obj = obj
        self.parent_animated = _chain_animated(obj)
        self.animated = self.parent_animated
        self.body_id = None
        self.cloth_collider_id = None  # its mesh, carried, when cloth bakes with it
        self.mesh = None              # scene_io.BodyMesh at the first frame
        self.friction = None
        self.world_start = None       # world matrix at the first frame, 16 row-major
        self.displacements = array("d")  # 16 per frame: the motion since the first frame
        self.parents = []             # effective parent matrix per frame (one if it stays)

    def world_matrices(self):
        """World matrix of each baked frame, from the first: displacement @ start."""
        return [transforms.multiply(list(self.displacements[16 * f:16 * f + 16]), self.world_start)
                for f in range(len(self.displacements) // 16)]

    def parent_inverses(self):
        """Inverse of the effective parent matrix of each frame (one if it stays)."""
        inverses = [transforms.invert_affine(parent) for parent in self.parents]
        if any(inverse is None for inverse in inverses):
            raise SettingsError(f"{self.obj.name}: its parent's transform is singular (a scale of zero?)")
        return inverses

    def bases(self):
        """matrix_basis of each baked frame under the object's parent at that frame."""
        inverses = self.parent_inverses()
        out = []
        for f, world in enumerate(self.world_matrices()):
            inverse = inverses[f] if len(inverses) > 1 else inverses[0]
            out.append(world if inverse == IDENTITY else transforms.local_basis(world, inverse))
        return out

    def bases_array(self):
        """bases() as a numpy array, frames x 4 x 4, made in a few array operations."""
        from . import rigid_channels  # numpy: only when the caller has it
        world = rigid_channels.world_matrices(self.displacements, self.world_start)
        if self.parents == [IDENTITY]:  # no parent, nothing to invert
            return world
        inverses = self.parent_inverses()
        if len(inverses) == 1 and inverses[0] == IDENTITY:
            return world
        return rigid_channels.local_bases(world, inverses)


class ObstacleJob:
    """An object rigid bodies collide with: static, or kinematic following its animation."""

    def __init__(self, obj):
        self.obj = obj
        self.animated = scene_io.is_animated(obj, 0)
        self.body_id = None
        self.start_inverse = None  # inverse of its rigid world matrix at the first frame


def rigid_objects(candidates):
    """Moving rigid bodies (a Compound Parent's children are its shape, not bodies)."""
    return [obj for obj in candidates
            if obj.type in scene_io.COLLIDER_TYPES and settings.resolve_role(obj) == "RIGID"
            and not rigid_compound.is_part(obj)]


def obstacle_objects(scene, moving):
    """Objects rigid bodies collide with: colliders (SimBake's, Blender's passive or animated
    rigid bodies; not Blender's cloth-only Collision modifier) and rigid objects not in this
    bake, which keep to their own motion."""
    moving = set(moving)
    out = []
    for obj in scene.objects:
        if obj.type not in scene_io.COLLIDER_TYPES or obj in moving or rigid_compound.is_part(obj):
            continue
        role = settings.resolve_role(obj)
        if role == "RIGID" or (role == "COLLIDER" and (obj.simbake.role == "COLLIDER" or obj.rigid_body)):
            out.append(obj)
    return out


def mesh_source_cuts(objects):
    """(object, cut) for modifiers_hidden: the bodies among `objects` (and their compounds'
    parts) whose Source is 'Deform', cut before their first modifier that builds geometry."""
    shapes = list(objects)
    for obj in objects:
        if rigid_compound.is_compound_parent(obj):
            shapes += rigid_compound.part_objects(obj)
    cuts = [(obj, rigid_settings.deform_cut(obj.modifiers)) for obj in shapes
            if rigid_settings.mesh_source(obj) == "DEFORM"]
    return [(obj, cut) for obj, cut in cuts if cut < len(obj.modifiers)]


def _effective_parent(obj_eval):
    """parent @ parent inverse (and constraints) as Blender applies them: matrix_world @
    matrix_basis⁻¹ (IDENTITY itself without a parent or constraints). The basis is not
    singular: the body was checked when added."""
    if obj_eval.parent is None and not len(obj_eval.constraints):
        return IDENTITY
    basis = transforms.invert_affine(native.matrix_rows(obj_eval.matrix_basis))
    return transforms.multiply(list(native.matrix_rows(obj_eval.matrix_world)), basis)


def _compound(obj, parts, depsgraph, warnings):
    """A Compound Parent's shape: its parts (native.World.add_body's) from its children as
    they are now in world space, and a BodyMesh of their surfaces under the parent's matrix."""
    out, surfaces = [], []
    for child in parts:
        shape, notes = rigid_settings.part_shape(child)
        warnings.extend(notes)
        sample = scene_io.read_body_mesh(child, depsgraph, base=rigid_settings.mesh_source(child) == "BASE")
        try:  # a part is always convex: a flat box stays a thin box
            shape, geometry = rigid_settings.shape_geometry(shape, True, sample.matrix, sample.local,
                                                            sample.positions, sample.triangles)
        except SettingsError as error:
            raise SettingsError(f"{child.name}: {error}") from error
        out.append(dict(geometry, shape=shape))
        surfaces.append((sample.positions, sample.triangles))
    positions, triangles = rigid_compound.merged_surface(surfaces)
    matrix = native.matrix_rows(obj.evaluated_get(depsgraph).matrix_world)
    return out, scene_io.BodyMesh(array("f"), positions, triangles, matrix)


def _add(world, obj, depsgraph, moving, body_type, warnings):
    parts = rigid_compound.part_objects(obj) if rigid_compound.is_compound_parent(obj) else []
    values, notes = rigid_settings.body_settings(obj, moving, has_parts=bool(parts))
    friction = values["friction"]
    warnings.extend(notes)
    if values["shape"] == "COMPOUND":
        geometry, sample = _compound(obj, parts, depsgraph, warnings)
        shape, geometry = values.pop("shape"), {"parts": geometry}
    else:
        sample = scene_io.read_body_mesh(obj, depsgraph, base=rigid_settings.mesh_source(obj) == "BASE")
    if transforms.invert_affine(sample.matrix) is None:
        raise SettingsError(f"{obj.name}: its transform is singular (a scale of zero?)")
    if "shape" in values:
        try:
            shape, geometry = rigid_settings.shape_geometry(values.pop("shape"), moving, sample.matrix, sample.local,
                                                            sample.positions, sample.triangles)
        except SettingsError as error:
            raise SettingsError(f"{obj.name}: {error}") from error
    if not moving:
        for name in ("mass", "linear_velocity", "angular_velocity", "linear_damping", "angular_damping",
                     "feels_cloth"):
            values.pop(name, None)
    try:
        body = world.add_body(body_type, shape, **geometry, **values)
    except native.NativeError as error:
        raise SettingsError(f"{obj.name}: {error}") from error
    return body, sample, friction


def add_rigid(world, job, depsgraph, warnings):
    job.body_id, sample, job.friction = _add(world, job.obj, depsgraph, True, "DYNAMIC", warnings)
    job.mesh = sample
    job.world_start = list(sample.matrix)
    job.parents = [_effective_parent(job.obj.evaluated_get(depsgraph))]
    job.displacements.extend(IDENTITY)


def add_obstacle(world, job, depsgraph, warnings):
    body_type = "KINEMATIC" if job.animated else "STATIC"
    job.body_id, sample, _ = _add(world, job.obj, depsgraph, False, body_type, warnings)
    job.start_inverse = transforms.invert_affine(transforms.rigid_part(sample.matrix))


def add_cloth_collider(world, job, warnings):
    """The cloth of the bake meets a moving body: its mesh becomes a collider the body
    carries (two-way where the body's Feels Cloth is on, else one way)."""
    if not len(job.mesh.triangles):
        warnings.append(f"{job.obj.name}: its mesh has no faces, so cloth passes through it")
        return
    material = settings.body_collider_material(job.obj, job.friction)
    job.cloth_collider_id = world.add_collider(job.mesh.positions, job.mesh.triangles, **material)
    world.follow_body(job.cloth_collider_id, job.body_id)


def follow(world, job, time, depsgraph):
    """An animated obstacle moves to where its animation has it at `time`."""
    matrix = native.matrix_rows(job.obj.evaluated_get(depsgraph).matrix_world)
    world.set_body_target(job.body_id, time, transforms.multiply(transforms.rigid_part(matrix), job.start_inverse))


class MotionLog:
    """The moving bodies' displacements, frame by frame: each frame's transforms of every body
    written by the library straight into one array kept for the frames left (its rows made
    once: no buffer, cast or slice a frame), handed out to the jobs' displacements by flush(),
    before anything reads them."""

    def __init__(self, jobs):
        self.jobs = jobs
        self.parented = [job for job in jobs if job.parent_animated]
        self.frames = array("d")  # the library's transforms, `count` rows of `width` written
        self.rows = ()            # native.World.transform_rows over `frames`
        self.count = 0
        self.width = 0            # doubles a frame (16 per body)

    def record(self, world, depsgraph, frames_left=1):
        """Keeps this frame's displacements of `world`'s bodies (and the moving parents' matrices);
        `frames_left`, this one included, sizes the array when a new one is needed."""
        if self.count == len(self.rows) or 16 * world.body_count != self.width:  # once a bake, as a rule
            self.flush()
            self.width = 16 * world.body_count
            rows = max(1, frames_left)
            self.frames = array("d", bytes(8 * self.width * rows))
            self.rows = world.transform_rows(self.frames, rows)
        world.body_transforms_to(self.rows[self.count])
        self.count += 1
        for job in self.parented:
            job.parents.append(_effective_parent(job.obj.evaluated_get(depsgraph)))

    def flush(self):
        """Appends the frames kept so far to each job's displacements."""
        count, self.rows = self.count, ()
        if count:
            if np is not None:
                frames = np.frombuffer(self.frames, dtype=np.float64, count=count * self.width)
                frames = frames.reshape(count, self.width // 16, 16)
                for job in self.jobs:
                    job.displacements.frombytes(frames[:, job.body_id].tobytes())
            else:
                for job in self.jobs:
                    for f in range(count):
                        start = f * self.width + 16 * job.body_id
                        job.displacements.extend(self.frames[start:start + 16])
        self.frames, self.count = array("d"), 0


def add_joints(world, scene, jobs, depsgraph, fps, warnings):
    """Blender's rigid body constraints between the bake's bodies (`jobs`: moving and
    obstacles) as joints (rigid_joints.py). Returns {joint id: constraint object's name}."""
    bodies = {job.obj: job.body_id for job in jobs}
    joints, notes = rigid_joints.plan(rigid_joints.constraint_objects(scene), bodies)
    warnings.extend(notes)
    step = rigid_joints.breaking_step(scene.rigidbody_world, fps)
    names = {}
    for owner, body_a, body_b in joints:
        matrix = native.matrix_rows(owner.evaluated_get(depsgraph).matrix_world)
        values, notes = rigid_joints.joint_settings(owner.rigid_body_constraint, matrix, step)
        warnings.extend(f"{owner.name}: {note}" for note in notes)
        try:
            names[world.add_joint(body_a=body_a, body_b=body_b, **values)] = owner.name
        except native.NativeError as error:
            raise SettingsError(f"{owner.name}: its rigid body constraint: {error}") from error
    return names
