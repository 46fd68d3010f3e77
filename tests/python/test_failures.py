"""Solver trouble in the user's words (failures.describe), the failure through the bindings,
and a cache cut short when a bake keeps the frames before a failure."""

import os
import tempfile
import unittest
from array import array

from simbake import failures, native, pc2
from test_native import grid


def failure(kind, object_kind="CLOTH", index=0, **values):
    out = dict(kind=kind, object_kind=object_kind, object=index, cg_iterations=1000, time=0.5, step=1e-6,
               cg_residual=0.3, strain_change=0.45, speed=2.5e4)
    out.update(values)
    return out


class OperatorMessage(unittest.TestCase):
    def test_only_blenders_leading_error_prefix_goes(self):
        text = ("Error: SimBake could not write the bake into the scene (AttributeError: 'Action' object "
                "has no attribute 'fcurves')\n")
        self.assertEqual(failures.operator_message(text), "SimBake could not write the bake into the scene "
                         "(AttributeError: 'Action' object has no attribute 'fcurves')")
        self.assertEqual(failures.operator_message("Flag: pin group 'x' does not exist"),
                         "Flag: pin group 'x' does not exist")


class Describe(unittest.TestCase):
    cloths, bodies = {0: "Flag", 1: "Sail"}, {0: "Crate"}

    def describe(self, value, frame=12):
        return failures.describe(value, frame, self.cloths, self.bodies, "library words")

    def test_names_the_frame_the_object_and_what_happened(self):
        text = self.describe(failure("STRAIN", index=1))
        self.assertTrue(text.startswith("SimBake stopped at frame 12 on cloth 'Sail': "), text)
        self.assertIn("45%", text)
        self.assertIn("pin group", text)

    def test_every_kind_says_what_to_change(self):
        for kind, words in (("CG", "Substeps"), ("STRAIN", "Stretch"), ("SPEED", "Substeps"),
                            ("NOT_FINITE", "extreme values")):
            with self.subTest(kind=kind):
                self.assertIn(words, self.describe(failure(kind)))
        self.assertIn("2.5e+04 m/s", self.describe(failure("SPEED")))
        self.assertIn("1000 iterations", self.describe(failure("CG")))

    def test_rigid_bodies_are_named_with_their_own_advice(self):
        text = self.describe(failure("SPEED", "BODY", 0, speed=2000.0))
        self.assertIn("rigid body 'Crate'", text)
        self.assertIn("Initial Velocity", text)

    def test_out_of_memory_and_unknown_objects_fall_back_to_the_library(self):
        self.assertIn("ran out of memory", self.describe(failure("OUT_OF_MEMORY", None, -1)))
        self.assertEqual(self.describe(failure("CG", index=7)), "SimBake stopped at frame 12: library words")


class ThroughTheBindings(unittest.TestCase):
    def test_a_blow_up_raises_solver_failure_with_the_details(self):
        positions, triangles = grid(4)
        with native.World(max_speed=0.5) as world:
            cloth = world.add_cloth(positions, triangles)
            with self.assertRaises(native.SolverFailure) as caught:
                world.step_to(1.0)
            self.assertEqual(caught.exception.code, "SB_ERROR_SOLVER")
            details = caught.exception.failure
            self.assertEqual((details["kind"], details["object_kind"], details["object"]), ("SPEED", "CLOTH", cloth))
            self.assertGreater(details["speed"], 0.5)
            self.assertEqual(world.failure()["kind"], "SPEED")


class CacheCutShort(unittest.TestCase):
    def test_end_early_publishes_the_frames_written(self):
        folder = tempfile.mkdtemp()
        path = os.path.join(folder, "cut.pc2")
        writer = pc2.PC2Writer(path, 2, 10, start_frame=5)
        for value in (1.0, 2.0, 3.0):
            writer.write(array("f", [value] * 6))
        writer.end_early()
        writer.finish()
        self.assertEqual(pc2.read_header(path), (2, 5.0, 1.0, 3))
        self.assertEqual(list(pc2.read_sample(path, 2)), [3.0] * 6)


if __name__ == "__main__":
    unittest.main()
