"""The add-on installs from a zip of addon/simbake like any Blender add-on, finds its
library, registers its settings, and unregisters cleanly.

Runs in its own Blender with BLENDER_USER_SCRIPTS pointing at a scratch folder."""

import os
import sys
import tempfile
import unittest
import zipfile

import bpy

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class InstallFromZip(unittest.TestCase):
    def test_install_enable_bake_disable(self):
        if not os.environ.get("BLENDER_USER_SCRIPTS"):
            self.fail("BLENDER_USER_SCRIPTS must point at a scratch folder for this test")
        folder = tempfile.mkdtemp(prefix="simbake-zip-")
        archive = os.path.join(folder, "simbake.zip")
        source = os.path.join(REPO, "addon", "simbake")
        with zipfile.ZipFile(archive, "w") as z:
            for name in sorted(os.listdir(source)):
                if name.endswith((".py", ".so", ".toml")):
                    z.write(os.path.join(source, name), f"simbake/{name}")
        os.environ.pop("SIMBAKE_LIBRARY", None)  # the zipped copy must find its own library
        bpy.ops.preferences.addon_install(filepath=archive, overwrite=True)
        bpy.ops.preferences.addon_enable(module="simbake")
        import simbake
        from simbake import native
        self.assertTrue(simbake.__file__.startswith(os.environ["BLENDER_USER_SCRIPTS"]), simbake.__file__)
        available, detail = native.availability()
        self.assertTrue(available, detail)
        self.assertTrue(hasattr(bpy.types.Object, "simbake") and hasattr(bpy.types.Scene, "simbake"))
        bpy.ops.mesh.primitive_grid_add(x_subdivisions=4, y_subdivisions=4)
        bpy.context.object.simbake.role = "CLOTH"
        bpy.ops.wm.save_as_mainfile(filepath=os.path.join(folder, "scene.blend"))
        bpy.context.scene.simbake.frame_end = 5
        self.assertEqual(bpy.ops.simbake.bake(), {"FINISHED"})
        self.assertEqual(bpy.context.object.modifiers[0].name, "SimBake")
        bpy.ops.preferences.addon_disable(module="simbake")
        self.assertFalse(hasattr(bpy.types.Object, "simbake"))


result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(
    unittest.defaultTestLoader.loadTestsFromTestCase(InstallFromZip))
sys.exit(0 if result.wasSuccessful() else 1)
