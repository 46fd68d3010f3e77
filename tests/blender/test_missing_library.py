"""Without its native library (or with one of another version) the add-on still loads;
the panel says what is wrong and how to fix it, and a bake fails with that message instead
of a traceback."""

import os
import sys
import unittest

import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # Blender does not add it
import blender_test  # noqa: E402
from simbake import native, ui  # noqa: E402


class RecordingLayout:
    """Stands in for a panel's layout: keeps the text of every label."""

    def __init__(self, lines=None):
        self.lines = [] if lines is None else lines

    def box(self):
        return RecordingLayout(self.lines)

    def label(self, text="", icon="NONE"):
        self.lines.append(text)


class MissingLibrary(unittest.TestCase):
    def setUp(self):
        self.saved = os.environ.get("SIMBAKE_LIBRARY")
        os.environ["SIMBAKE_LIBRARY"] = "/nonexistent/libsimbake.so"
        native._library = None  # forget the library loaded so far

    def tearDown(self):
        if self.saved is None:
            os.environ.pop("SIMBAKE_LIBRARY", None)
        else:
            os.environ["SIMBAKE_LIBRARY"] = self.saved
        native._library = None

    def test_the_panel_says_what_is_wrong_and_how_to_fix_it(self):
        layout = RecordingLayout()
        self.assertTrue(ui._library_missing(layout))
        text = " ".join(layout.lines)
        self.assertIn("not available", text)
        self.assertIn("/nonexistent/libsimbake.so", text)
        self.assertIn("Build", text)

    def test_a_bake_reports_the_problem_and_changes_nothing(self):
        blender_test.empty_scene()
        cloth = blender_test.grid_object("Cloth", cuts=4)
        before = blender_test.snapshot(cloth)
        with self.assertRaises(RuntimeError) as caught:
            bpy.ops.simbake.bake()
        self.assertIn("libsimbake.so", str(caught.exception))
        self.assertNotIn("Traceback", str(caught.exception))
        self.assertEqual(blender_test.snapshot(cloth), before)

    def test_the_panel_works_again_once_the_library_is_there(self):
        os.environ["SIMBAKE_LIBRARY"] = self.saved or os.path.join(os.path.dirname(native.__file__),
                                                                     native.LIBRARY_NAME)
        native._library = None
        self.assertFalse(ui._library_missing(RecordingLayout()))


blender_test.main()
