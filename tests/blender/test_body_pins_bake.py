"""Issue 32's flag on a pole that swings on a hinge: a cloth parented to a rigid body of the
same bake has its pins carried by the body (sb_cloth_attach_pins_to_body). After the bake, at
every frame, the flag's pinned vertices sit where the baked pole's motion takes them, and the
rest of the flag hangs from them: once the pole has come to rest hanging down, so does the
flag, in the pole's plane (with its pins left where the pole was let go, the flag was simulated
hanging from a pole that stayed tilted, and the baked pole carried that drooping shape with it:
151.8 mm out of the pole's plane at the last frame, 4.4 mm with the pins carried one way, 28.0 mm
two way: below). Strands parented to the pole (role Strands, pinned roots) are carried the same
way: they end hanging under the pole, not turned by its swing."""

import math
import os
import sys
import tempfile
import unittest

import bpy
from mathutils import Matrix, Vector

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # Blender does not add it
import blender_test  # noqa: E402
from simbake import bake, checkpoint  # noqa: E402

FRAMES = 96
ANGLE = 0.6  # rad from the vertical, let go
DAMPING = 0.999  # Blender's angular damping: the swing dies down within the bake


def swinging_pole():
    """A 1 m pole (a rigid body, its swing damped) on a hinge about y at (0, 0, 2), let go at
    ANGLE."""
    scene = blender_test.rigid_scene(FRAMES)
    anchor = blender_test.box("Anchor", (0.0, 0.0, 2.15), (0.1, 0.1, 0.1), kind="PASSIVE")
    pole = blender_test.box("Pole", (0.5 * math.sin(ANGLE), 0.0, 2.0 - 0.5 * math.cos(ANGLE)), (0.03, 0.03, 0.5),
                            rotation=(0.0, -ANGLE, 0.0), mass=1.0, linear_damping=0.0, angular_damping=DAMPING)
    bpy.ops.object.empty_add(location=(0.0, 0.0, 2.0), rotation=(math.pi / 2, 0.0, 0.0))  # Z along -Y
    hinge = bpy.context.object
    hinge.name = "Hinge"
    bpy.ops.rigidbody.constraint_add(type="HINGE")
    hinge.rigid_body_constraint.object1, hinge.rigid_body_constraint.object2 = anchor, pole
    return scene, pole


def flag_on_a_pole(cuts=8):
    """The swinging pole and add_flag's flag on it."""
    scene, pole = swinging_pole()
    flag, pins = add_flag(pole, cuts)
    return scene, pole, flag, pins


def add_flag(pole, cuts=8):
    """A 0.4 m flag parented to `pole` in its yz plane, pinned along its edge 1 cm off the pole's side."""
    flag = blender_test.grid_object("Flag", size=0.4, cuts=cuts, location=(0.0, 0.0, 0.0))
    flag.parent = pole
    flag.matrix_parent_inverse = Matrix.Identity(4)
    flag.location, flag.rotation_euler = (0.0, 0.24, 0.0), (0.0, math.pi / 2, 0.0)  # in the pole's yz plane
    pins = [v.index for v in flag.data.vertices if v.co.y < -0.199]
    flag.vertex_groups.new(name="Pin").add(pins, 1.0, "REPLACE")
    flag.simbake.pin_group = "Pin"
    bpy.context.view_layer.update()
    return flag, pins


STRANDS, POINTS, SPACING = 3, 6, 0.05  # 25 cm strands


def strands_on_a_pole(blender_cloth=False):
    """The swinging pole; STRANDS strands of loose edges (role Strands, or with `blender_cloth`
    role None and Blender's Cloth modifier) parented to it, rooted 1 cm off its side near its
    lower end and sticking out across it in its plane of swing (the pole's local +x); the roots
    pinned. Vertex s * POINTS + k is strand s's k-th point."""
    scene, pole = swinging_pole()
    coords = [(0.04 + SPACING * k, 0.02 * (s - 1), -0.45) for s in range(STRANDS) for k in range(POINTS)]
    edges = [(s * POINTS + k, s * POINTS + k + 1) for s in range(STRANDS) for k in range(POINTS - 1)]
    mesh = bpy.data.meshes.new("Hair")
    mesh.from_pydata(coords, edges, [])
    hair = bpy.data.objects.new("Hair", mesh)
    scene.collection.objects.link(hair)
    hair.parent = pole  # the pole's own frame: the mesh's coordinates are the pole's
    roots = [s * POINTS for s in range(STRANDS)]
    hair.vertex_groups.new(name="Root").add(roots, 1.0, "REPLACE")
    if blender_cloth:
        hair.modifiers.new("Cloth", "CLOTH").settings.vertex_group_mass = "Root"
    else:
        hair.simbake.role, hair.simbake.pin_group = "STRANDS", "Root"
    bpy.context.view_layer.update()
    return scene, pole, hair, roots


class BodyPins(unittest.TestCase):
    def ride(self, feels_cloth, most_offset):
        """Bakes the flag on the pole (the pole feeling the cloth or not) and checks the pins rode it."""
        scene, pole, flag, pins = flag_on_a_pole()
        pole.simbake.feels_cloth = feels_cloth
        scene.frame_set(1)
        start = pole.matrix_world.inverted()
        vertices = blender_test.world_vertices(flag)
        local = [start @ Vector(vertices[3 * i:3 * i + 3]) for i in pins]
        self.assertEqual(bpy.ops.simbake.bake(), {"FINISHED"})
        warnings = scene.simbake.last_bake_warnings
        self.assertNotIn("Flag", warnings, warnings)
        worst, angles, lowest, offset = 0.0, [], [], 0.0
        for frame in range(1, FRAMES + 1):
            scene.frame_set(frame)
            vertices = blender_test.world_vertices(flag)
            for i, p in zip(pins, local):
                worst = max(worst, (Vector(vertices[3 * i:3 * i + 3]) - pole.matrix_world @ p).length)
            axis = pole.matrix_world.col[2]  # the pole's length
            angles.append(math.atan2(axis[0], axis[2]))
            lowest.append(min(vertices[2::3]))
            # the flag's mean distance from the pole's yz plane (the flag's plane at the start)
            inverse = pole.matrix_world.inverted()
            offset = sum((inverse @ Vector(vertices[3 * i:3 * i + 3])).x for i in range(len(vertices) // 3))
            offset /= len(vertices) // 3
        swing = max(angles) - min(angles)
        print(f"flag on a swinging pole ({'two' if feels_cloth else 'one'} way): pins off the pole's points by {worst * 1000:.4f} mm at most; the pole "
              f"swung through {swing:.3f} rad and ended at {angles[-1]:.3f} rad; the flag ended {offset * 1000:.1f} mm "
              "out of the pole's plane", flush=True)
        # the cache holds single-precision positions in the flag's own space
        self.assertLess(worst, 1e-5, "the pins left the pole")
        self.assertGreater(swing, 0.8, "the pole did not swing through the vertical")
        # the flag stays whole between its pins and below the pole's top
        self.assertTrue(all(z > 0.5 for z in lowest), lowest)
        self.assertLess(abs(angles[-1]), 0.05, "the pole has not come to rest hanging down")
        self.assertLess(abs(offset), most_offset, "the flag hangs as if the pole were still where it was let go")

    def test_the_flags_pins_ride_the_swinging_pole(self):
        """One way (Feels Cloth off): the pole swings as without the flag; the flag ends 4.4 mm out
        of the pole's plane."""
        self.ride(False, 0.02)

    def test_the_flags_pins_ride_a_pole_that_feels_them(self):
        """Two way (Feels Cloth on, the default): the flag's pull on its pins reaches the pole. The
        flag ends 28.0 mm out of the pole's plane, steady from frame 73 on: turned about the hanging
        pole's axis (a door's motion) it neither rises nor falls, so where it settles depends on the
        swing it took; far from the 151.8 mm of pins left where the pole was let go."""
        self.ride(True, 0.05)


    def strands_ride(self, blender_cloth):
        """Strands carried as the flag is (two way): their roots stay on the pole's points, and
        once the pole hangs down they hang under it (with the roots left where the pole was let
        go, the baked pole turned their hanging shape by its swing: tips ANGLE off the vertical)."""
        scene, pole, hair, roots = strands_on_a_pole(blender_cloth)
        scene.frame_set(1)
        start = pole.matrix_world.inverted()
        vertices = blender_test.world_vertices(hair)
        local = [start @ Vector(vertices[3 * i:3 * i + 3]) for i in roots]
        self.assertEqual(bpy.ops.simbake.bake(), {"FINISHED"}, scene.simbake.last_bake_message)
        warnings = scene.simbake.last_bake_warnings
        # Blender's cloth names the settings strands leave out; none is about the pins
        self.assertTrue(blender_cloth or "Hair" not in warnings, warnings)
        self.assertNotIn("pin", warnings.lower(), warnings)
        worst = 0.0
        for frame in range(1, FRAMES + 1):
            scene.frame_set(frame)
            vertices = blender_test.world_vertices(hair)
            for i, p in zip(roots, local):
                worst = max(worst, (Vector(vertices[3 * i:3 * i + 3]) - pole.matrix_world @ p).length)
        axis = pole.matrix_world.col[2]
        bottom = (pole.matrix_world @ Vector((0.0, 0.0, -0.5))).z
        # each strand's root-to-tip direction from the vertical, and how far its tip is below the pole's end
        tilts = []
        for s in range(STRANDS):
            root, tip = (Vector(vertices[3 * i:3 * i + 3]) for i in (s * POINTS, s * POINTS + POINTS - 1))
            tilts.append(math.atan2((tip - root).xy.length, root.z - tip.z))
        lowest = min(vertices[2::3])
        print(f"strands ({'Cloth modifier' if blender_cloth else 'role Strands'}) on a swinging pole (two way): roots off the pole's points by {worst * 1000:.4f} mm at most; "
              f"the pole ended at {math.atan2(axis[0], axis[2]):.3f} rad; strands ended "
              f"{', '.join(f'{t:.3f}' for t in tilts)} rad off the vertical, the lowest point "
              f"{(bottom - lowest) * 1000:.1f} mm below the pole's end", flush=True)
        self.assertLess(worst, 1e-5, "the roots left the pole")
        self.assertLess(abs(math.atan2(axis[0], axis[2])), 0.05, "the pole has not come to rest hanging down")
        self.assertLess(max(tilts), 0.2, "the strands hang as if the pole were still where it was let go")
        self.assertGreater(bottom - lowest, 0.1, "the strands do not hang below the pole")

    def test_strands_roots_ride_a_pole_that_feels_them(self):
        self.strands_ride(False)

    def test_blender_cloth_strands_roots_ride_a_pole_that_feels_them(self):
        """A Cloth modifier on the loose edges (role None) bakes as strands, carried the same way."""
        self.strands_ride(True)

    def test_a_resumed_bake_carries_the_flag_and_strands_as_one_straight_through(self):
        """A bake with a flag and strands carried by the pole, paused at a checkpoint mid-swing and
        resumed from it, has the frames of the bake straight through: the carried pins are part of
        the world the checkpoint resumes into, and the frames after it are written under the baked
        pole's motion as before."""
        scene, pole, hair, roots = strands_on_a_pole()
        flag, _ = add_flag(pole)
        movers = (pole, hair, flag)

        def frames():
            out = []
            for frame in range(1, FRAMES + 1):
                scene.frame_set(frame)
                out.append([list(blender_test.world_vertices(o)) for o in (hair, flag)] +
                           [[v for row in pole.matrix_world for v in row]])
            return out

        self.assertEqual(bpy.ops.simbake.bake(), {"FINISHED"}, scene.simbake.last_bake_message)
        straight = frames()
        self.assertEqual(bpy.ops.simbake.free_bake(), {"FINISHED"})
        scene.frame_set(1)
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "bake.checkpoint")
            objects = bake.bakeable_objects(scene)
            self.assertTrue(all(o in objects for o in movers), objects)
            job = bake.Bake(bpy.context, objects, checkpoints=checkpoint.Plan(path, 10, 30))
            with self.assertRaises(bake.BakePaused):
                job.run()
            job = bake.Bake(bpy.context, bake.bakeable_objects(scene), checkpoints=checkpoint.Plan(path, 10),
                            resume=True)
            job.run()
            self.assertEqual(job.resumed_at, 30)
        resumed = frames()
        worst = max(abs(a - b) for f, g in zip(resumed, straight) for m, n in zip(f, g) for a, b in zip(m, n))
        swing = max(abs(f[2][2]) for f in straight)  # the pole's axis along x: it swings
        print(f"flag and strands on the pole, resumed at frame 30: {worst * 1000:.6f} mm off the straight bake "
              "at most", flush=True)
        self.assertGreater(swing, 0.3, "the pole did not swing")
        # the caches hold single-precision positions: a few ulps of a metre
        self.assertLess(worst, 1e-5, "the resumed bake is not the bake straight through")



if __name__ == "__main__":
    blender_test.main()
