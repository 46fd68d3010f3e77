"""A whole bake: read the scene, run the solver frame by frame, write the results.

Nothing in the scene changes until every frame has been simulated; a bake that fails or
is cancelled leaves the scene as it was (cache files half-written are removed)."""

import os
import tempfile
import time
import uuid
from array import array
from contextlib import ExitStack, contextmanager

import bpy

from . import (budget, cache_owner, cache_paths, checkpoint, failures, fields, keyframes, native, outputs, pc2,
               rigid_bake, rigid_joints, rigid_settings, scene_io, settings, strand_bake, strand_material,
               transforms, unmapped)
from .bake_resume import BakeResume
from .settings import SettingsError


class BakeError(RuntimeError):
    """A bake that could not proceed; the message names the object and the problem."""


class BakeCancelled(RuntimeError):
    pass


class SolverStopped(BakeError):
    """The solver gave up at a frame (see failures.describe)."""


class BakePaused(RuntimeError):
    """The bake stopped at the frame its checkpoint plan asked for; the checkpoint resumes it.
    The scene is as it was."""


class ClothJob:
    def __init__(self, obj):
        self.obj = obj
        self.cut = scene_io.simulation_cut(obj)
        self.strands = settings.resolve_role(obj) == "STRANDS"  # its input is a strand_bake.StrandsInput
        self.pin_group = settings.pin_group_name(obj)
        self.animated = scene_io.is_animated(obj, self.cut)
        self.input = None
        self.cloth_id = None
        self.has_goals = False  # soft pins: goal springs that follow the animated mesh
        self.carrier = None  # the RigidJob of the bake whose body carries its pins (a parent)
        self.output = None
        self.inverse = None  # of its world matrix at the start (for a cloth that stays put)


class ColliderJob:
    def __init__(self, obj):
        self.obj = obj
        self.animated = scene_io.is_animated(obj, len(obj.modifiers))
        self.input = None
        self.collider_id = None


def collider_objects(scene):
    """Objects of the scene that the cloth collides with (whatever is being baked)."""
    return [obj for obj in scene.objects
            if obj.type in scene_io.COLLIDER_TYPES and settings.resolve_role(obj) == "COLLIDER"]


def cloth_objects(candidates):
    """Cloth and strands: both bake as the library's cloths, into a cache of their mesh."""
    return [obj for obj in candidates if obj.type == "MESH" and settings.resolve_role(obj) in ("CLOTH", "STRANDS")]


def bakeable_objects(scene, only=None):
    """Objects of the scene (or of `only`) that bake: cloth and moving rigid bodies."""
    candidates = list(only if only is not None else scene.objects)
    return cloth_objects(candidates) + rigid_bake.rigid_objects(candidates)


def cache_directory(scene_props, bake_token):
    """Absolute cache folder: relative paths are relative to the .blend, and the default one
    is the .blend's own subfolder of it (cache_paths). An unsaved file uses
    a folder of this bake's own (`bake_token`) in the add-on's user data folder (Blender 4.2+
    extensions) or the system's temporary folder: two unsaved scenes baking objects of the same
    name never share a cache. Never inside the add-on's own folder, which an update or
    uninstall deletes."""
    path = scene_props.cache_dir or cache_paths.DEFAULT_FOLDER
    if bpy.data.filepath:
        path = cache_paths.folder_setting(path, bpy.data.filepath)
    if path.startswith("//") and not bpy.data.filepath:
        user_folder = getattr(bpy.utils, "extension_path_user", None)
        if user_folder is not None and __package__.startswith("bl_ext."):
            return os.path.join(user_folder(__package__, path="cache", create=True), "simbake_cache", bake_token)
        return os.path.join(tempfile.gettempdir(), "simbake_cache", bake_token)
    folder = os.path.abspath(bpy.path.abspath(path))
    addon_folder = os.path.dirname(os.path.abspath(__file__))
    if os.path.commonpath([folder, addon_folder]) == addon_folder:
        raise BakeError(f"the cache folder {folder} is inside the SimBake add-on, which updates delete; "
                        "choose another Cache Folder in the scene's SimBake settings")
    return folder


class Bake(BakeResume):
    """A bake of `objects` in `context.scene`, in phases so that the UI can run the solver in
    a worker thread: begin(), then per frame prepare_frame() (main thread: reads the scene),
    solve_frame() (any thread: only the library) and collect_frame() (main thread), then
    finish() writes the result into the scene, or abort() leaves it as it was. run() does
    it all. progress(frame, done, total) is called after each frame; should_cancel() is
    polled between frames by run(). With `checkpoints` (checkpoint.Plan), run() saves
    checkpoints as it plans and stops at its stop_at frame (BakePaused); with `resume` set
    too, the bake goes on from the plan's checkpoint file if there is one that fits."""

    def __init__(self, context, objects, progress=None, should_cancel=None, checkpoints=None, resume=False):
        self.context = context
        self.scene = context.scene
        self.props = self.scene.simbake
        self.jobs = [ClothJob(obj) for obj in cloth_objects(objects)]
        self.colliders = [ColliderJob(obj) for obj in collider_objects(context.scene)] if self.jobs else []
        self.rigid_jobs = [rigid_bake.RigidJob(obj) for obj in rigid_bake.rigid_objects(objects)]
        moving = [job.obj for job in self.rigid_jobs]
        self.obstacles = ([rigid_bake.ObstacleJob(obj) for obj in rigid_bake.obstacle_objects(context.scene, moving)]
                          if self.rigid_jobs else [])
        self.cloth_names = {}  # library id -> object name, for messages from the worker thread
        self.body_names = {}
        self.joint_names = {}  # library id -> the constraint object's name
        self.progress = progress or (lambda frame, done, total: None)
        self.should_cancel = should_cancel or (lambda: False)
        self.frame_start, self.frame_end = self.props.frame_start, self.props.frame_end
        self.frame = self.frame_start  # the last frame simulated
        self.seconds = 0.0
        self.warnings = []
        self._stack = None
        self.estimate = None  # budget.Estimate, once begin() has checked it
        self._world = None
        self._started = None
        self._seconds_before = 0.0  # spent before the checkpoint a resumed bake went on from
        self._original_frame = None
        self._now = None
        self._matrices = {}
        self._depsgraph = None
        self._motions = rigid_bake.MotionLog(self.rigid_jobs)
        self.checkpoints = checkpoints
        self._resume = None  # checkpoint.Checkpoint to go on from, once begin() has read it
        if resume and checkpoints is not None and os.path.exists(checkpoints.path):
            self._resume = self._read_checkpoint(checkpoints.path)
        self.resumed_at = None  # the frame a resumed bake went on from
        self._cache_folder = None  # cache_folder(), once asked
        self._token = uuid.uuid4().hex[:16]  # names the cache folder of an unsaved file's bake

    def cache_folder(self):
        """This bake's cache folder (the same however often asked)."""
        if self._cache_folder is None:
            self._cache_folder = cache_directory(self.props, self._token)
        return self._cache_folder

    @property
    def total_frames(self):
        return self.frame_end - self.frame_start

    @property
    def done(self):
        return self.frame >= self.frame_end

    def run(self):
        self.begin()
        try:
            while not self.done:
                if self.should_cancel():
                    raise BakeCancelled("bake cancelled")
                self.prepare_frame()
                self.solve_frame()
                self.collect_frame()
                if self.checkpoints and self.checkpoints.due(self.frame, self.frame_start, self.frame_end):
                    self.save_checkpoint()
                    if self.frame == self.checkpoints.stop_at:
                        break
        except BaseException as error:
            reported = self.end_failed(error)
            if reported is error:
                raise
            raise reported from error
        if not self.done:
            self.pause()
            raise BakePaused(f"stopped at frame {self.frame} as asked; the checkpoint {self.checkpoints.path} "
                             "resumes the bake from there")
        self.finish()

    def end_failed(self, error):
        """Ends a bake that raised `error` and returns the error to report. The scene is left as
        it was, except after a solver failure with Keep Frames on Failure set: then the frames
        simulated so far are baked (if there are any beyond the first)."""
        if not (isinstance(error, SolverStopped) and self.props.keep_frames_on_failure
                and self.frame > self.frame_start):
            self.abort()
            if isinstance(error, SolverStopped):
                return SolverStopped(f"{error}. Nothing was baked: the scene is as it was (Keep Frames on "
                                     "Failure in the scene's SimBake settings keeps the frames before)")
            return error
        self.frame_end = self.frame
        for job in self.jobs:
            job.output.end_early()
        try:
            self.finish()
        except BaseException as finish_error:
            self.abort()
            return finish_error
        self.props.last_bake_message = f"Baked frames {self.frame_start}-{self.frame_end} only: {error}"
        return SolverStopped(f"{error}. Frames {self.frame_start}-{self.frame_end} were baked and kept")

    # --- the phases --------------------------------------------------------------------

    def begin(self):
        """Checks the bake, reads every object and sets up the solver at the first frame.
        On failure the scene is as it was."""
        if not self.jobs and not self.rigid_jobs:
            raise BakeError("nothing to bake: no object has the role Cloth, Strands or Rigid Body (or a Cloth "
                            "modifier, or an active rigid body)")
        try:
            settings.check_frame_range(self.frame_start, self.frame_end)
            self._rigid_time_scale = (rigid_settings.world_time_scale(self.scene.rigidbody_world)
                                      if self.rigid_jobs else 1.0)
            native.load()
        except (SettingsError, native.LibraryUnavailable) as error:
            raise BakeError(str(error)) from error
        self.estimate = self._check_budget()
        self.warnings.extend(self._settings_not_carried_over())
        for job in self.jobs:
            if job.obj.data.users > 1 and self.props.cloth_output == "SHAPE_KEYS":
                raise BakeError(f"{job.obj.name}: its mesh is shared by {job.obj.data.users} users; "
                                "shape keys would change all of them, use the Mesh Cache output")
        self._started = time.perf_counter()
        self._original_frame = self.scene.frame_current
        records = {job.obj: outputs.load_record(job.obj) for job in self.rigid_jobs}
        self._stack = ExitStack()
        try:
            self._stack.enter_context(scene_io.modifiers_hidden([(job.obj, job.cut) for job in self.jobs]))
            # a body's Source 'Deform' (not an object cloth meets as a collider: that is its final mesh)
            cloth_colliders = {job.obj for job in self.colliders}
            self._stack.enter_context(scene_io.modifiers_hidden(rigid_bake.mesh_source_cuts(
                [job.obj for job in self.rigid_jobs + self.obstacles if job.obj not in cloth_colliders])))
            self._stack.enter_context(outputs.shape_key_bakes_suspended([job.obj for job in self.jobs]))
            self._stack.enter_context(keyframes.own_motion([job.obj for job in self.rigid_jobs], records))
            self._set_up()
        except BaseException:
            self.abort()
            raise

    def prepare_frame(self):
        """Main thread: moves the scene to the next frame and hands its animation (pins,
        colliders, obstacles) to the solver."""
        frame = self.frame + 1
        self._now = self._time(frame)
        self._matrices = {}
        if self._follow:
            self.scene.frame_set(frame)
            self._depsgraph = self.context.evaluated_depsgraph_get()
            self._matrices = self._follow_animation(self._world, self._now, self._depsgraph)

    def solve_frame(self):
        """Any thread: the solver's work for the frame prepare_frame set up (no bpy here)."""
        try:
            self._world.step_to(self._now)
        except native.SolverFailure as error:
            raise SolverStopped(failures.describe(error.failure, self.frame + 1, self.cloth_names,
                                                  self.body_names, str(error))) from error

    def collect_frame(self):
        """Main thread: keeps the frame's result."""
        self.frame += 1
        for job in self.jobs:
            positions, matrix = self._world.positions(job.cloth_id), self._carried_matrix(job)
            if job.strands:  # the strands' vertices back in the mesh's order (those in no edge: matrix's)
                positions = job.input.mesh_positions(positions, matrix)
            self._write_frame(job, positions, matrix)
        if self.rigid_jobs:
            self._motions.record(self._world, self._depsgraph, self.frame_end - self.frame + 1)
        self.progress(self.frame, self.frame - self.frame_start, self.total_frames)

    def finish(self):
        """Writes the bake into the scene (replacing an older bake)."""
        self._motions.flush()
        broken = self._broken_constraints()
        self._close()
        self.seconds = self._seconds_before + time.perf_counter() - self._started
        self._apply()
        self.props.last_bake_seconds = self.seconds
        self.props.last_bake_message = (f"Baked {len(self.jobs) + len(self.rigid_jobs)} object(s), frames "
                                        f"{self.frame_start}-{self.frame_end}, in {self.seconds:.1f} s{broken}")
        self.props.last_bake_warnings = "\n".join(self.warnings)

    def _broken_constraints(self):
        """The constraints that broke, in words for the bake's message ("" if none did)."""
        if not self.joint_names or self._world is None:
            return ""
        broken = sorted(self._world.broken_joints().items(), key=lambda item: item[1])
        if not broken:
            return ""
        fps = self._fps / self._fps_base
        named = ", ".join(f"{self.joint_names[joint]} at frame {self.frame_start + round(when * fps)}"
                          for joint, when in broken[:3])
        more = f" and {len(broken) - 3} more" if len(broken) > 3 else ""
        return f"; {len(broken)} rigid body constraint(s) broke: {named}{more}"

    def pause(self):
        """Leaves the scene as it was before begin(), keeping the caches so far for a bake
        resumed from the last checkpoint."""
        for job in self.jobs:
            if job.output is not None:
                job.output.detach()
        self._close()

    def abort(self):
        """Leaves the scene as it was before begin() (half-written caches are removed)."""
        # the last made first: the first output's writer made the cache folder and removes it
        # only if it is empty by then (a cancelled bake of a cloth and a rope left it behind)
        for job in reversed(self.jobs):
            if job.output is not None:
                job.output.abort()
        self._close()

    def _close(self):
        """Ends the solver and what begin() changed in the scene; safe to call twice."""
        if self._world is not None:
            self._world.close()
            self._world = None
        if self._stack is not None:
            stack, self._stack = self._stack, None
            try:
                stack.close()
            finally:
                self.scene.frame_set(self._original_frame)

    def _check_budget(self):
        """Tells what the bake will need before anything is read or allocated, and refuses a
        bake that cannot fit in memory or on the cache's disk."""
        cloths = []
        for job in self.jobs:
            mesh, obj = job.obj.data, job.obj
            if job.strands:  # each vertex about once (a copy more where strands meet); no self collision
                cloths.append(budget.ClothSize(len(mesh.vertices), False, 0.0, 0.0))
                continue
            corners = array("i", bytes(4 * len(mesh.polygons)))
            mesh.polygons.foreach_get("loop_total", corners)
            areas = array("f", bytes(4 * len(mesh.polygons)))
            mesh.polygons.foreach_get("area", areas)
            scale = obj.matrix_world.to_scale()
            area = sum(areas) * abs(scale[0] * scale[1] * scale[2]) ** (2.0 / 3.0)
            triangles = sum(corners) - 2 * len(corners)
            edge = budget.typical_edge_length(area, triangles)
            with _named_errors(obj):
                material = settings.cloth_material(obj, len(mesh.vertices), lambda: (area, edge))
            cloths.append(budget.ClothSize(len(mesh.vertices), bool(material["self_collision"]),
                                           material["thickness"], edge))
        collider_vertices = sum(len(getattr(c.obj.data, "vertices", ())) for c in self.colliders)
        needed = budget.estimate(cloths, collider_vertices, self.total_frames + 1, self.props.cloth_output)
        print(f"SimBake: this bake needs {needed.describe()}", flush=True)
        folder = self.cache_folder() if needed.cache else None
        try:
            budget.check(needed, budget.available_memory(), budget.free_disk(folder) if folder else None, folder)
        except ValueError as error:
            raise BakeError(f"SimBake cannot start: {error}") from error
        return needed

    def _settings_not_carried_over(self):
        """Warnings for the Blender physics settings of the bake's objects (and of the scene)
        that SimBake does not carry over (unmapped.py)."""
        found = []
        for job in self.jobs:
            modifier = settings.find_modifier(job.obj, "CLOTH")[1]
            if job.obj.simbake.role == "NONE" and modifier is not None:
                found += unmapped.blender_cloth(job.obj.name, modifier)
                if job.strands:
                    found += unmapped.blender_cloth_as_strands(job.obj.name, modifier)
        for job in self.colliders:
            if job.obj.simbake.role == "NONE" and settings.find_modifier(job.obj, "COLLISION")[1] is not None:
                found += unmapped.collision_modifier(job.obj.name, job.obj.collision)
        bodies = [job.obj for job in self.rigid_jobs + self.obstacles]
        for obj in bodies:
            if obj.simbake.role == "NONE" and obj.rigid_body is not None:
                found += unmapped.rigid_body(obj.name, obj.rigid_body)
        baked = {job.obj for job in self.jobs} | set(bodies)
        for obj in rigid_joints.constraint_objects(self.scene) if self.rigid_jobs else ():
            constraint = obj.rigid_body_constraint
            if constraint.object1 in baked or constraint.object2 in baked:
                found += unmapped.rigid_body_constraint(obj.name, constraint)
        for obj in self.scene.objects:
            if getattr(obj, "field", None) is not None:
                found += unmapped.force_field(obj.name, obj.field, rigid_bodies_baked=bool(self.rigid_jobs))
        return found

    def _time(self, frame):
        return settings.frame_time(frame, self.frame_start, self._fps, self._fps_base)

    def _set_up(self):
        render = self.scene.render
        self._fps, self._fps_base = render.fps, render.fps_base
        self.scene.frame_set(self.frame_start)
        depsgraph = self._depsgraph = self.context.evaluated_depsgraph_get()
        world_kwargs = settings.world_settings(self.props, render.fps, render.fps_base,
                                               self.scene.gravity, self.scene.use_gravity)
        world_kwargs["rigid_time_scale"] = self._rigid_time_scale  # Blender's rigid body world Speed
        world = self._world = native.World(**world_kwargs)
        for job in self.jobs:
            self._add_cloth(world, job, depsgraph)
        self._add_fields(world, depsgraph)
        for collider in self.colliders:
            self._add_collider(world, collider, depsgraph)
        for job in self.rigid_jobs:
            self._add_rigid(rigid_bake.add_rigid, world, job, depsgraph)
            if self.jobs:
                with _named_errors(job.obj):
                    rigid_bake.add_cloth_collider(world, job, self.warnings)
        for obstacle in self.obstacles:
            self._add_rigid(rigid_bake.add_obstacle, world, obstacle, depsgraph)
        self._attach_pins(world)
        self._choose_colliders(world)
        self._report_tangles(world)
        if self.rigid_jobs:
            fps = render.fps / render.fps_base
            try:
                self.joint_names = rigid_bake.add_joints(world, self.scene, self.rigid_jobs + self.obstacles,
                                                         depsgraph, fps, self.warnings)
            except SettingsError as error:
                raise BakeError(str(error)) from error
        self.cloth_names = {job.cloth_id: job.obj.name for job in self.jobs}
        self.body_names = {job.body_id: job.obj.name for job in self.rigid_jobs + self.obstacles}
        self._start_outputs()
        self._follow = bool(self._fields) or any(
            job.animated for job in self.jobs + self.colliders + self.rigid_jobs + self.obstacles)

    def _attach_pins(self, world):
        """A cloth or strands whose parent (or a parent of its parent) is a moving rigid body of
        the bake: its pins ride that body (the nearest such parent), as they would ride the body's
        animation once baked; a resumed bake makes the same calls before loading its state."""
        bodies = {job.obj: job for job in self.rigid_jobs}
        for job in self.jobs:
            if not len(job.input.pins):
                continue
            node = job.obj.parent
            while node is not None and node not in bodies:
                node = node.parent
            if node is None:
                continue
            with _named_errors(job.obj):
                world.attach_pins_to_body(job.cloth_id, bodies[node].body_id)
            job.carrier = bodies[node]
            if job.has_goals:
                self.warnings.append(f"{job.obj.name}: its soft pins (pin weights below 1) follow the scene's "
                                     f"animation, not the simulated motion of {node.name}, which carries its pins")

    def _choose_colliders(self, world):
        """Blender cloths meet the colliders their Object Collisions settings choose (every
        collider otherwise): a resumed bake makes the same calls before loading its state."""
        colliders = [(job.collider_id, job.obj) for job in self.colliders]
        colliders += [(job.cloth_collider_id, job.obj) for job in self.rigid_jobs + self.obstacles
                      if getattr(job, "cloth_collider_id", None) is not None]
        for job in self.jobs:
            modifier = settings.find_modifier(job.obj, "CLOTH")[1] if job.obj.simbake.role == "NONE" else None
            if modifier is None:
                continue
            met = settings.blender_colliders_met(modifier.collision_settings, colliders)
            if met is not None:
                world.set_colliders(job.cloth_id, met)

    def _report_tangles(self, world):
        """What starts tangled, by name, in the bake's warnings: the library counts the
        intersecting pairs and the bake pulls them apart (docs/robustness.md)."""
        colliders = [(job.collider_id, job.obj) for job in self.colliders]
        colliders += [(job.cloth_collider_id, job.obj) for job in self.rigid_jobs + self.obstacles
                      if getattr(job, "cloth_collider_id", None) is not None]
        for i, job in enumerate(self.jobs):
            found = [("itself", world.count_intersections(job.cloth_id))]
            found += [(other.obj.name, world.count_intersections(job.cloth_id, other=other.cloth_id))
                      for other in self.jobs[i + 1:]]
            found += [(obj.name, world.count_intersections(job.cloth_id, collider=collider))
                      for collider, obj in colliders]
            self.warnings.extend(f"{job.obj.name} starts through {name}: {pairs} intersecting pairs, pulled apart "
                                 "in the first frames" for name, pairs in found if pairs > 0)
            # a cloth wholly inside a closed collider crosses none of its triangles
            inside = [(obj.name, world.count_inside(job.cloth_id, collider)) for collider, obj in colliders
                      if dict(found).get(obj.name) == 0]
            self.warnings.extend(f"{job.obj.name} starts inside {name}: {count} vertices, pulled out in the first "
                                 "frames" for name, count in inside if count > 0)

    def _follow_animation(self, world, now, depsgraph):
        """Animated pins, colliders and obstacles move to where the scene has them now;
        returns the world matrix of each animated cloth."""
        matrices = {}
        for job in self.jobs:
            if not job.animated:
                continue
            if len(job.input.pins) or job.has_goals:
                sample = scene_io.sample_positions(job.obj, depsgraph, job.input.vertex_count)
                if len(job.input.pins) and job.carrier is None:
                    world.set_pin_targets(job.cloth_id, now, scene_io.gather(sample.positions, job.input.pins))
                if job.has_goals:  # soft pins: goal springs toward the animated mesh
                    world.set_goal_targets(job.cloth_id, now, sample.positions)
                matrices[job] = sample.matrix
            else:
                matrices[job] = native.matrix_rows(job.obj.evaluated_get(depsgraph).matrix_world)
        for collider in self.colliders:
            if collider.animated:
                sample = scene_io.sample_positions(collider.obj, depsgraph, collider.input.vertex_count)
                world.set_collider_positions(collider.collider_id, now, sample.positions)
        for obstacle in self.obstacles:
            if obstacle.animated:
                rigid_bake.follow(world, obstacle, now, depsgraph)
        for obj, field_id in self._fields:
            # every frame: a field's object, its parents and its strength may all be animated
            evaluated = obj.evaluated_get(depsgraph)
            world.set_field_target(field_id, now, *fields.pose(native.matrix_rows(evaluated.matrix_world), obj.field,
                                                               self._fps / self._fps_base))
        return matrices

    def _add_fields(self, world, depsgraph):
        """The scene's force fields that cloth feels, each cloth weighing them by its Blender
        Field Weights and effector collection (fields.py)."""
        self._fields = []
        if not self.jobs:
            return
        for obj in self.scene.objects:
            field = getattr(obj, "field", None)
            if not fields.acts_on_cloth(field):
                continue
            matrix = native.matrix_rows(obj.evaluated_get(depsgraph).matrix_world)
            kind, shape, falloff, side, values = fields.definition(field, matrix, self._fps / self._fps_base)
            with _named_errors(obj):
                field_id = world.add_field(kind, shape, falloff, side, **values)
            self._fields.append((obj, field_id))
            for job in self.jobs:
                modifier = settings.find_modifier(job.obj, "CLOTH")[1] if job.obj.simbake.role == "NONE" else None
                weights = modifier.settings.effector_weights if modifier is not None else None
                collection = weights.collection if weights is not None else None
                members = set(collection.all_objects) if collection is not None else None
                weight = 0.0 if obj == job.obj else fields.cloth_weight(weights, kind, obj, members)
                if job.strands and modifier is not None:  # Blender pushes its edge-only cloth per vertex
                    weight *= strand_material.blender_field_scale(job.input.simulated_vertices,
                                                                  job.input.total_length)
                if weight != 1.0:
                    world.set_field_weight(job.cloth_id, field_id, weight)

    def _add_cloth(self, world, job, depsgraph):
        obj = job.obj
        if job.strands:
            with _named_errors(obj):
                strand_bake.add_strands(world, job, depsgraph, self.warnings)
            job.inverse = transforms.invert_affine(job.input.sample.matrix)
            if job.inverse is None:
                raise BakeError(f"{obj.name}: its transform is singular (a scale of zero?)")
            return
        blender_cloth = settings.find_modifier(obj, "CLOTH")[1] if obj.simbake.role == "NONE" else None
        cloth = blender_cloth.settings if blender_cloth is not None else None
        with _named_errors(obj):
            groups = settings.blender_group_names(cloth, blender_cloth.collision_settings) if cloth is not None else ()
            job.input = scene_io.read_cloth(obj, depsgraph, job.pin_group, **settings.blender_cloth_groups(cloth),
                                            groups=groups, blender_pinning=cloth is not None)
            # Blender's mean spring length leaves its sewing springs out
            sewing = cloth is not None and cloth.use_sewing_springs
            measure = lambda: job.input.area_and_edge_length(sewing)  # noqa: E731
            material = settings.cloth_material(obj, job.input.vertex_count, measure)
            shrink = goals = springs = None
            if cloth is not None:
                shrink = settings.blender_shrink(cloth, job.input.vertex_count, job.input.shrink_weights)
                material.update(settings.blender_pressure(cloth, job.input.sample.positions, job.input.triangles,
                                                          job.input.pressure_weights))
                goals, material["goal_damping"] = settings.blender_goals(cloth, job.input.pin_weights, measure()[1])
                springs = settings.blender_springs(obj.name, cloth, lambda: measure()[1], job.input.loose_edges,
                                                   job.input.intern_weights)
                if sewing and len(job.input.loose_edges):
                    # a seam gathers its panels: held to 10% of compression, the triangles along
                    # a seam round a body cannot gather and it stays open (1.1 mm after 4 s where
                    # Blender's closes to 0.04 mm: test_sewing_like_blender), so a sewn cloth is
                    # limited in stretch only
                    material["max_compression"] = 0.0
                weights = job.input.group_weights
                material.update(settings.blender_stiffness_factors(cloth, material, weights, measure()[1]))
                material.update(settings.blender_collision_groups(blender_cloth.collision_settings, weights))
            job.has_goals = goals is not None
            job.cloth_id = world.add_cloth(job.input.sample.positions, job.input.triangles, job.input.uvs,
                                           job.input.pins, shrink, job.input.pressure_weights, goals, springs,
                                           **material)
        job.inverse = transforms.invert_affine(job.input.sample.matrix)
        if job.inverse is None:
            raise BakeError(f"{obj.name}: its transform is singular (a scale of zero?)")
        info = world.cloth_info(job.cloth_id)
        if info["degenerate_triangles"]:
            self.warnings.append(f"{obj.name}: {info['degenerate_triangles']} zero-area triangle(s) "
                                 "left out of the simulation")
        if info["nonmanifold_edges"]:
            self.warnings.append(f"{obj.name}: {info['nonmanifold_edges']} edge(s) shared by more than "
                                 "two faces do not resist bending")

    def _add_collider(self, world, collider, depsgraph):
        with _named_errors(collider.obj):
            collider.input = scene_io.read_collider(collider.obj, depsgraph)
            material = settings.collider_material(collider.obj)
            collider.collider_id = world.add_collider(collider.input.positions, collider.input.triangles,
                                                      **material)

    def _add_rigid(self, add, world, job, depsgraph):
        with _named_errors(job.obj):
            add(world, job, depsgraph, self.warnings)

    def _make_output(self, job, resume=None, resume_bytes=b""):
        """A cloth's output, new or going on from what checkpoint() gave (`resume`)."""
        if self.props.cloth_output == "SHAPE_KEYS":
            return outputs.ShapeKeyOutput(self.frame_start, resume, resume_bytes, job.input.vertex_count)
        path = os.path.join(self.cache_folder(), settings.cache_file_name(job.obj.name))
        other = cache_owner.other_owner(path, bpy.data.filepath, self.scene.name)
        if other is not None:
            raise BakeError(f"{job.obj.name}: the cache {path} holds the bake of scene '{other['scene']}' in "
                            f"{other['blend']}, which would play this bake instead: free that bake, or choose "
                            "another Cache Folder in the scene's SimBake settings")
        try:
            return outputs.MeshCacheOutput(path, job.input.vertex_count, self.frame_start, self.frame_end, resume,
                                           owner=(bpy.data.filepath, self.scene.name))
        except OSError as error:
            raise BakeError(f"{job.obj.name}: cannot write the cache {path}: {error.strerror}") from error
        except pc2.PC2Busy as error:
            raise BakeError(f"{job.obj.name}: {error}") from error

    def _carried_matrix(self, job):
        """A cloth's (or strands') world matrix now (None: as at the start). Under the body that
        carries its pins it is where the baked body's keys will take it: the body's displacement
        since the start times the cloth's matrix in the scene (during the bake the body does not
        move in the scene)."""
        matrix = self._matrices.get(job)
        if job.carrier is None:
            return matrix
        own = list(matrix) if matrix is not None else list(job.input.sample.matrix)
        return transforms.multiply(list(self._world.body_transform(job.carrier.body_id)), own)

    def _write_frame(self, job, world_positions, world_matrix=None):
        """A frame of a cloth in its object's space: `world_matrix` is its object's now, if
        it moves."""
        inverse = job.inverse if world_matrix is None else transforms.invert_affine(world_matrix)
        if inverse is None:
            raise BakeError(f"{job.obj.name}: its transform is singular (a scale of zero?)")
        job.output.add_frame(native.transform_points(inverse, world_positions, "f"))

    def _apply(self):
        try:
            values = dict(zip(self.rigid_jobs, keyframes.rigid_channel_values(self.rigid_jobs, self.frame_start)))
        except SettingsError as error:
            for job in self.jobs:
                job.output.abort()
            raise BakeError(str(error)) from error
        for job in self.jobs + self.rigid_jobs:
            outputs.free(job.obj)  # baking again replaces the old bake
        written = []
        try:
            made = {}  # actions to copy (keyframes.apply)
            for job in self.rigid_jobs:
                record = {}
                keyframes.apply(job.obj, values[job], record, made)
                outputs.write_record(job.obj, record, self.frame_start, self.frame_end, self.seconds)
                written.append(job)
            for job in self.jobs:
                record = {}
                job.output.apply(job.obj, job.cut, record)
                outputs.switch_off_blender_cloth(job.obj, record)
                outputs.write_record(job.obj, record, self.frame_start, self.frame_end, self.seconds)
                written.append(job)
        except Exception as error:
            for job in self.jobs:
                if job not in written:
                    job.output.abort()
            done = ", ".join(job.obj.name for job in written) or "none"
            raise BakeError(f"SimBake could not write the bake into the scene ({type(error).__name__}: {error}). "
                            f"Written: {done}; the other objects are left without a bake") from error


@contextmanager
def _named_errors(obj):
    """Settings and library errors while adding `obj` as BakeErrors naming it."""
    try:
        yield
    except SettingsError as error:
        raise BakeError(str(error)) from error
    except native.NativeError as error:
        raise BakeError(f"{obj.name}: {error}") from error
