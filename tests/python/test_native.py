"""The ctypes bindings against the built library."""

import ctypes
import math
import os
import subprocess
import sys
import tempfile
import unittest
from array import array

from simbake import native


def grid(n, size=1.0):
    positions, triangles = array("d"), array("i")
    for j in range(n):
        for i in range(n):
            positions.extend((size * i / (n - 1), size * j / (n - 1), 0.0))
    for j in range(n - 1):
        for i in range(n - 1):
            a = j * n + i
            triangles.extend((a, a + 1, a + n + 1, a, a + n + 1, a + n))
    return positions, triangles


class Bindings(unittest.TestCase):
    def test_library_loads_with_the_right_version(self):
        available, version = native.availability()
        self.assertTrue(available, version)
        self.assertEqual(tuple(int(p) for p in version.split(".")[:2]), native.REQUIRED_VERSION)

    def test_free_fall_through_the_bindings(self):
        positions, triangles = grid(5)
        with native.World(gravity=(0, 0, -9.81), max_step=1 / 24) as world:
            cloth = world.add_cloth(positions, triangles, air_drag=0.0)
            for frame in range(1, 25):
                world.step_to(frame / 24)
            fallen = world.positions(cloth)
            self.assertAlmostEqual(world.time, 1.0)
            for k in range(2, len(fallen), 3):
                self.assertAlmostEqual(fallen[k], -0.5 * 9.81, places=6)
            self.assertEqual(world.stats()["steps"], 24)
            self.assertEqual(world.cloth_info(cloth)["vertex_count"], 25)

    def test_a_rope_through_the_bindings(self):
        """Strands: a 1 m rope of 10 segments pinned at one end swings down, its length kept;
        a strand of one vertex is refused with the library's reason."""
        positions = [coord for i in range(11) for coord in (0.1 * i, 0.0, 1.0)]
        with native.World(gravity=(0, 0, -9.81), max_step=1 / 24) as world:
            rope = world.add_strands(positions, [11], pins=[0], mass_per_length=0.02)
            for frame in range(1, 31):
                world.step_to(frame / 60)
            x = world.positions(rope)
            length = sum(math.dist(x[3 * i:3 * i + 3], x[3 * i + 3:3 * i + 6]) for i in range(10))
            self.assertAlmostEqual(length, 1.0, delta=0.01)
            self.assertLess(x[32], 0.5, "the tip swung down")
            self.assertEqual(list(x[:3]), [0.0, 0.0, 1.0])
            self.assertAlmostEqual(world.cloth_info(rope)["total_mass"], 0.02)
            with self.assertRaises(native.NativeError) as caught:
                world.add_strands(positions, [10, 1])
            self.assertIn("strand 1 has 1 vertices", str(caught.exception))

    def test_a_saved_state_resumes_bit_for_bit_through_the_bindings(self):
        positions, triangles = grid(6)

        def world_with_cloth():
            world = native.World(gravity=(0, 0, -9.81), max_step=1 / 24)
            world.add_cloth(positions, triangles, pins=array("i", [0, 5]))
            return world

        with world_with_cloth() as straight, world_with_cloth() as resumed:
            for frame in range(1, 6):
                straight.step_to(frame / 24)
            state = straight.save_state()
            resumed.load_state(state)
            for frame in range(6, 12):
                straight.step_to(frame / 24)
                resumed.step_to(frame / 24)
            self.assertEqual(straight.positions(0).tobytes(), resumed.positions(0).tobytes())
            with self.assertRaises(native.NativeError) as refused:
                resumed.load_state(state[:-1])
            self.assertIn("cut short", str(refused.exception))

    def test_errors_carry_the_library_message(self):
        positions, triangles = grid(3)
        triangles[4] = 99
        with native.World() as world:
            with self.assertRaises(native.NativeError) as caught:
                world.add_cloth(positions, triangles)
            self.assertEqual(caught.exception.code, "SB_ERROR_INVALID_MESH")
            self.assertIn("vertex 99", str(caught.exception))
            with self.assertRaises(native.NativeError):
                world.step_to(-1.0)

    def test_uvs_of_the_wrong_length_are_refused_before_the_library_reads_them(self):
        positions, triangles = grid(3)
        with native.World() as world:
            with self.assertRaises(native.NativeError) as caught:
                world.add_cloth(positions, triangles, uvs=[0.0] * (2 * len(triangles) - 1))
            self.assertEqual(caught.exception.code, "SB_ERROR_INVALID_ARGUMENT")
            self.assertIn("6 values per triangle", str(caught.exception))
            world.add_cloth(positions, triangles, uvs=[0.1 * (i % 7) for i in range(2 * len(triangles))])

    def test_shrink_takes_one_value_per_vertex(self):
        positions, triangles = grid(3)
        with native.World() as world:
            with self.assertRaises(native.NativeError) as caught:
                world.add_cloth(positions, triangles, shrink=[0.1] * 8)
            self.assertIn("one value per vertex", str(caught.exception))
            with self.assertRaises(native.NativeError) as caught:
                world.add_cloth(positions, triangles, shrink=[1.5] * 9)
            self.assertIn("shrink of vertex 0", str(caught.exception))
            world.add_cloth(positions, triangles, shrink=[0.1] * 9)

    def test_pressure_through_the_bindings(self):
        positions, triangles = grid(3)
        with native.World() as world:
            with self.assertRaises(native.NativeError) as caught:
                world.add_cloth(positions, triangles, pressure_weights=[1.0] * 8, pressure=10.0)
            self.assertIn("one value per vertex", str(caught.exception))
            with self.assertRaises(native.NativeError) as caught:  # an open sheet has no volume to keep
                world.add_cloth(positions, triangles, pressure_scale=1000.0)
            self.assertIn("is the mesh closed", str(caught.exception))
            with self.assertRaises(native.NativeError) as caught:
                world.add_cloth(positions, triangles, pressure_weights=[2.0] * 9, pressure=10.0)
            self.assertIn("pressure weight of vertex 0", str(caught.exception))
        # a uniform pressure lifts a weightless sheet wound counter-clockwise seen from +z
        with native.World(gravity=(0, 0, 0)) as world:
            cloth = world.add_cloth(positions, triangles, pins=array("i", [0, 2, 6, 8]), pressure=50.0,
                                    pressure_weights=[1.0] * 9)
            world.step_to(0.5)
            self.assertGreater(world.positions(cloth)[3 * 4 + 2], 0.01)

    def test_goal_springs_through_the_bindings(self):
        positions, triangles = grid(3, size=0.2)
        with native.World(gravity=(0, 0, 0), max_step=1 / 240) as world:
            with self.assertRaises(native.NativeError) as caught:
                world.add_cloth(positions, triangles, goal_stiffness=[1.0] * 8)
            self.assertIn("one value per vertex", str(caught.exception))
            with self.assertRaises(native.NativeError) as caught:
                world.add_cloth(positions, triangles, goal_stiffness=[-1.0] * 9)
            self.assertIn("goal_stiffness of vertex 0", str(caught.exception))
            cloth = world.add_cloth(positions, triangles, goal_stiffness=[50.0] * 9, goal_damping=0.05, air_drag=0.0)
            moved = array("d", (p + (0.1 if k % 3 == 2 else 0.0) for k, p in enumerate(positions)))
            with self.assertRaises(native.NativeError):
                world.set_goal_targets(cloth, 0.5, moved[:-3])
            world.set_goal_targets(cloth, 0.5, moved)
            for frame in range(1, 49):
                world.step_to(frame / 24)
            # the goals rose 0.1 m; the cloth, pulled up with them, has settled there
            for k in range(2, len(moved), 3):
                self.assertAlmostEqual(world.positions(cloth)[k], 0.1, places=4)

    def test_sewing_springs_and_internal_springs_through_the_bindings(self):
        positions, triangles = grid(4)
        top = array("d", positions)
        for k in range(2, len(top), 3):
            top[k] = 0.2
        both = positions + top
        triangles = triangles + array("i", [t + 16 for t in triangles])
        with native.World(gravity=(0, 0, 0), max_step=1 / 24) as world:
            cloth = world.add_cloth(both, triangles, springs={
                "springs": array("i", [0, 16, 3, 19]), "spring_rest_lengths": [0.0, 0.0],
                "spring_tension_stiffness": 100.0, "spring_max_force": 0.5})
            info = world.cloth_info(cloth)
            self.assertEqual((info["springs"], info["internal_springs"]), (2, 0))
            world.step_to(0.5)
            x = world.positions(cloth)
            self.assertLess(abs(x[3 * 16 + 2] - x[2]), 0.1, "the sewn corners came together")
            with self.assertRaisesRegex(native.NativeError, "spring_rest_lengths: expected 2 values, got 1"):
                world.add_cloth(both, triangles, springs={"springs": [0, 16, 3, 19], "spring_rest_lengths": [0.0]})
            with self.assertRaisesRegex(native.NativeError, "joins vertex 3 with itself"):
                world.add_cloth(both, triangles, springs={"springs": [0, 16, 3, 3]})
            closed = world.add_cloth(both, triangles, springs={"internal_springs": True,
                                                                "internal_spring_max_diversion": 0.0,
                                                                "internal_vertex_stiffness": [10.0, 5.0] * 32})
            # the lower sheet faces +z like the upper: its rays go down into nothing, the upper's
            # down onto the lower sheet, one spring per upper vertex
            self.assertEqual(world.cloth_info(closed)["internal_springs"], 16)

    def test_groups_and_colliders_through_the_bindings(self):
        positions, triangles = grid(3)
        floor = array("d", [-5, -5, -0.5, 5, -5, -0.5, 5, 5, -0.5, -5, 5, -0.5])
        floor_triangles = array("i", [0, 1, 2, 0, 2, 3])
        with native.World() as world:
            with self.assertRaises(native.NativeError) as caught:
                world.add_cloth(positions, triangles, stretch_scale=[1.0] * 8)
            self.assertIn("stretch_scale: expected one value per vertex", str(caught.exception))
            with self.assertRaises(native.NativeError) as caught:
                world.add_cloth(positions, triangles, object_collision_off=[3] * 9)
            self.assertIn("object_collision_off of vertex 0 is 3", str(caught.exception))
            kept = world.add_cloth(positions, triangles, stretch_scale=[2.0] * 9, self_friction=0.1,
                                   self_collision_off=[0] * 9)
            beside = array("d", [p + 3.0 if k % 3 == 0 else p for k, p in enumerate(positions)])
            passing = world.add_cloth(beside, triangles)
            floor_id = world.add_collider(floor, floor_triangles)
            world.set_colliders(kept, [floor_id])
            world.set_colliders(passing, [])
            with self.assertRaises(native.NativeError) as caught:
                world.set_colliders(kept, [floor_id + 1])
            self.assertEqual(caught.exception.code, "SB_ERROR_NOT_FOUND")
            world.step_to(1.0)
            self.assertGreater(min(world.positions(kept)[2::3]), -0.51)
            self.assertLess(max(world.positions(passing)[2::3]), -3.0)
            world.set_colliders(passing, None)  # every collider again

    def test_every_mirror_has_the_libraries_layout_and_a_changed_one_is_named(self):
        lib = native.load()
        self.assertEqual(native.layout_mismatches(lib), [])
        fields = list(native.ClothDef._fields_)
        fields[0], fields[1] = fields[1], fields[0]  # vertex_count and positions swapped, as a stale mirror might

        class Swapped(ctypes.Structure):
            _fields_ = fields

        class Short(ctypes.Structure):
            _fields_ = native.WorldDef._fields_[:-1]

        wrong = native.layout_mismatches(lib, {"sb_cloth_def": Swapped, "sb_world_def": Short, "sb_nothing": Short})
        self.assertEqual(len(wrong), 3, wrong)
        self.assertIn("sb_cloth_def.triangle_count is at byte 16 in the library, 12 here", wrong[0])
        self.assertIn("sb_world_def has 15 fields in the library, 14 here", wrong[1])
        self.assertIn("no public struct named 'sb_nothing'", wrong[2])

    def test_struct_layouts_match_the_library(self):
        # values read through the ctypes structs land in the right fields only if every
        # field before them has the C layout
        world = native.default_world_def()
        self.assertAlmostEqual(world.rigid_max_step, 1 / 240)
        self.assertEqual(world.rigid_iterations, 10)
        self.assertAlmostEqual(world.contact_margin, 0.005)
        body = native.load().sb_default_body_def()
        self.assertEqual(list(body.rotation), [1.0, 0.0, 0.0, 0.0])
        self.assertEqual((body.mass, body.friction, body.restitution), (1.0, 0.5, 0.0))

    def test_ids_are_typed_in_the_bindings_too(self):
        lib = native.load()
        with native.World() as world:
            cloth = world.add_cloth([0, 0, 0, 1, 0, 0, 0, 1, 0], [0, 1, 2])
            body = world.add_body("STATIC", "SPHERE", radius=0.5, center=(0, 0, -2))
            collider = world.add_collider([0, 0, -1, 1, 0, -1, 0, 1, -1], [0, 1, 2])
            self.assertEqual((cloth, body, collider), (0, 0, 0))  # indices, each kind from 0
            for wrong in ((native.BodyId(body), native.ColliderId(collider)), (collider, body)):
                with self.assertRaises(ctypes.ArgumentError):  # swapped kinds and bare ints alike
                    lib.sb_collider_follow_body(world._handle, *wrong)
            world.follow_body(collider, body)

    def test_pins_ride_a_body_through_the_bindings(self):
        with native.World() as world:
            pusher = world.add_body("KINEMATIC", "SPHERE", radius=0.1, center=(0, 0, 2))
            bare = world.add_cloth([0, 0, 0, 1, 0, 0, 0, 1, 0], [0, 1, 2])
            cloth = world.add_cloth([0, 0, 1, 1, 0, 1, 0, 1, 1], [0, 1, 2], pins=[0, 1])
            with self.assertRaises(native.NativeError) as caught:
                world.attach_pins_to_body(bare, pusher)
            self.assertIn("no pins", str(caught.exception))
            with self.assertRaises(native.NativeError):
                world.attach_pins_to_body(cloth, 5)
            world.attach_pins_to_body(cloth, pusher)
            with self.assertRaises(native.NativeError) as caught:
                world.set_pin_targets(cloth, 0.5, [0, 0, 1, 1, 0, 1])
            self.assertIn("follow body", str(caught.exception))
            world.set_body_target(pusher, 0.5, array("d", [1, 0, 0, 0.25, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]))
            world.step_to(0.5)
            # the pins slid 0.25 m along x with the body
            self.assertEqual([round(v, 12) for v in list(world.positions(cloth))[:6]], [0.25, 0, 1, 1.25, 0, 1])

    def test_the_thread_count_is_part_of_the_world(self):
        with native.World(threads=2) as world:
            world.add_cloth([0, 0, 0, 1, 0, 0, 0, 1, 0], [0, 1, 2])
            world.step_to(0.1)
        for wrong in (-1, 1025):
            with self.assertRaises(native.NativeError) as caught:
                native.World(threads=wrong)
            self.assertIn("threads", str(caught.exception))

    def test_rigid_bodies_through_the_bindings(self):
        with native.World() as world:
            world.add_body("STATIC", "BOX", half_extents=(5, 5, 0.5), center=(0, 0, -0.5))
            box = world.add_body("DYNAMIC", "BOX", half_extents=(0.5, 0.5, 0.5), center=(0, 0, 1.0), mass=2.0)
            pusher = world.add_body("KINEMATIC", "SPHERE", radius=0.25, center=(3, 0, 3))
            move = array("d", [1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 1])
            world.set_body_target(pusher, 1.0, move)
            world.step_to(2.0)
            state = world.body_state(box)
            self.assertAlmostEqual(state["position"][2], 0.5, places=4)
            self.assertAlmostEqual(state["contact_force"][2], 2.0 * 9.81, places=3)
            self.assertEqual(state["mass"], 2.0)
            self.assertEqual(list(world.body_transform(pusher))[3:12:4], [0.0, 1.0, 0.0])
            everything = world.body_transforms()
            self.assertEqual(len(everything), 48)
            self.assertEqual(list(everything[16:32]), list(world.body_transform(box)))
            log = array("d", [7.0]) * 52  # written from index 2, the rest untouched
            world.body_transforms_into(log, 2)
            self.assertEqual(list(log[2:50]), list(everything))
            self.assertEqual(list(log[:2]) + list(log[50:]), [7.0] * 4)
            for wrong in ((log, 5), (array("f", bytes(4 * 48)), 0), (log, -1)):
                with self.assertRaises(ValueError):
                    world.body_transforms_into(*wrong)
            frames = array("d", [7.0]) * 100  # two rows of 48, the last four untouched
            rows = world.transform_rows(frames, 2)
            world.body_transforms_to(rows[1])
            self.assertEqual(list(frames[48:96]), list(everything))
            self.assertEqual(list(frames[:48]) + list(frames[96:]), [7.0] * 52)
            for wrong in ((frames, 3), (array("f", bytes(4 * 96)), 2), (frames, 0)):
                with self.assertRaises(ValueError):
                    world.transform_rows(*wrong)
            with self.assertRaises(ValueError):
                world.body_transforms_to((ctypes.c_double * 32)())
            del rows
            with self.assertRaises(native.NativeError) as caught:
                world.add_body("DYNAMIC", "SPHERE", radius=-1.0)
            self.assertIn("radius", str(caught.exception))
            world.add_body("DYNAMIC", "SPHERE", radius=0.1, center=(5, 5, 5), feels_cloth=1)
            with self.assertRaises(native.NativeError) as caught:
                world.add_body("DYNAMIC", "SPHERE", radius=0.1, feels_cloth=2)
            self.assertIn("feels_cloth", str(caught.exception))
            with self.assertRaises(native.NativeError):
                world.set_body_target(box, 3.0, move)

    def test_joints_through_the_bindings(self):
        with native.World() as world:
            bob = world.add_body("DYNAMIC", "BOX", half_extents=(0.05, 0.05, 0.5), center=(0, 0, -0.5), mass=1.0)
            heavy = world.add_body("DYNAMIC", "BOX", half_extents=(0.1, 0.1, 0.1), center=(0, 0, -1.1), mass=3.0)
            hinge = world.add_joint("HINGE", bob, pivot=(0, 0, 0), rotation=(math.sqrt(0.5), math.sqrt(0.5), 0, 0),
                                    limits={5: (-0.5, 0.5)})
            weak = world.add_joint("FIXED", heavy, bob, pivot=(0, 0, -1.0), breaking_threshold=0.1,
                                   breaking_step=1 / 60)  # 6 N: less than the heavy box's weight
            world.step_to(1.0)
            self.assertIsNone(world.joint_broken(hinge))
            when = world.joint_broken(weak)
            self.assertTrue(0.0 < when < 0.01, when)
            self.assertEqual(world.broken_joints(), {weak: when})
            self.assertLess(abs(world.body_state(bob)["position"][2] + 0.5), 1e-9)  # still hanging
            with self.assertRaises(native.NativeError) as caught:
                world.add_joint("POINT", bob, bob)
            self.assertIn("itself", str(caught.exception))
            with self.assertRaises(native.NativeError) as caught:
                world.add_joint("HINGE", bob, limits={5: (1.0, -1.0)})
            self.assertIn("lower is above upper", str(caught.exception))

    def test_transform_points(self):
        matrix = array("d", [2, 0, 0, 1, 0, 2, 0, 0, 0, 0, 2, -1, 0, 0, 0, 1])
        out = native.transform_points(matrix, array("f", [1, 2, 3]), "d")
        self.assertEqual(list(out), [3.0, 4.0, 5.0])
        self.assertEqual(native.transform_points(matrix, array("d", [1, 2, 3]), "f").typecode, "f")

    @staticmethod
    def availability_with(library):
        """native.availability() in a fresh interpreter that loads `library`."""
        code = "from simbake import native; ok, why = native.availability(); print(ok); print(why)"
        env = dict(os.environ, SIMBAKE_LIBRARY=library)
        result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        return result.stdout.splitlines()

    def test_missing_library_is_reported_not_raised(self):
        ok, why = self.availability_with("/nonexistent/libsimbake.so")
        self.assertEqual(ok, "False")
        self.assertIn("not found", why)
        self.assertIn("cmake --build build", why)

    def test_library_of_another_version_is_refused(self):
        with tempfile.TemporaryDirectory() as folder:
            source = os.path.join(folder, "old.c")
            with open(source, "w") as f:
                f.write("int sb_version(void) { return 90000; }\n")
            library = os.path.join(folder, "libsimbake.so")
            subprocess.run(["cc", "-shared", "-fPIC", "-o", library, source], check=True)
            ok, why = self.availability_with(library)
        self.assertEqual(ok, "False")
        self.assertIn("another version", why)


if __name__ == "__main__":
    unittest.main()
