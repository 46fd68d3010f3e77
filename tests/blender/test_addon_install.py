"""The built package (build/simbake.zip, made by scripts/package-addon) installs into a fresh
Blender as users install it: from 4.2 on as an extension (into an extension repository of its
own in a temporary folder, as Install from Disk does), before that as a legacy add-on (into
$BLENDER_USER_SCRIPTS, a scratch folder). The installed copy finds its own library, bakes
stack.blend and tablecloth.blend, Free Bake leaves every object as it was, and it unregisters.

Runs in its own Blender; needs $SIMBAKE_PACKAGE (the zip) and $BLENDER_USER_SCRIPTS."""

import importlib
import os
import shutil
import sys
import tempfile
import unittest

import bpy

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import scene_state  # noqa: E402  (reads the scene only: the add-on under test is the installed one)

EXTENSIONS = bpy.app.version >= (4, 2, 0)
REPOSITORY = "simbake_install_test"


def install(package):
    """Installs and enables the zip; returns the installed package's module name."""
    if EXTENSIONS:
        folder = tempfile.mkdtemp(prefix="simbake-extensions-")
        bpy.ops.preferences.extension_repo_add(name=REPOSITORY, type="LOCAL", use_custom_directory=True,
                                               custom_directory=folder)
        repo = next(r for r in bpy.context.preferences.extensions.repos if r.directory == folder)
        result = bpy.ops.extensions.package_install_files(filepath=package, repo=repo.module,
                                                          enable_on_install=True)
        assert result == {"FINISHED"}, result
        return f"bl_ext.{repo.module}.simbake"
    bpy.ops.preferences.addon_install(filepath=package, overwrite=True)
    bpy.ops.preferences.addon_enable(module="simbake")
    return "simbake"


class InstallFromPackage(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        package = os.environ.get("SIMBAKE_PACKAGE", "")
        if not os.path.isfile(package):
            raise AssertionError(f"SIMBAKE_PACKAGE must name the built zip (build/simbake.zip), not {package!r}")
        if not EXTENSIONS and not os.environ.get("BLENDER_USER_SCRIPTS"):
            raise AssertionError("BLENDER_USER_SCRIPTS must point at a scratch folder for this test")
        os.environ.pop("SIMBAKE_LIBRARY", None)  # the installed copy must find its own library
        cls.module = install(package)
        cls.addon = importlib.import_module(cls.module)

    def test_1_the_installed_copy_is_the_one_registered_and_finds_its_library(self):
        installed = os.path.dirname(self.addon.__file__)
        self.assertFalse(installed.startswith(os.path.join(REPO, "addon")), installed)
        self.assertTrue(os.path.isfile(os.path.join(installed, "libsimbake.so")), installed)
        native = importlib.import_module(self.module + ".native")
        available, detail = native.availability()
        self.assertTrue(available, detail)
        self.assertTrue(hasattr(bpy.types.Object, "simbake") and hasattr(bpy.types.Scene, "simbake"))

    def bake_and_free(self, sample, kinds):
        folder = tempfile.mkdtemp(prefix="simbake-install-")
        path = os.path.join(folder, sample)
        shutil.copy(os.path.join(REPO, "sample_blends", sample), path)
        bpy.ops.wm.open_mainfile(filepath=path)
        scene = bpy.context.scene
        scene.frame_set(scene.simbake.frame_start)
        before = scene_state.objects_state()
        scene.simbake.frame_end = scene.simbake.frame_start + 12
        self.assertEqual(bpy.ops.simbake.bake(), {"FINISHED"})
        baked = {obj.name: obj for obj in scene.objects if obj.simbake.bake_record}
        self.assertTrue(baked, f"{sample}: nothing was baked")
        for obj in baked.values():
            kind = "cloth" if obj.modifiers.get("SimBake") else "keys" if obj.animation_data else "?"
            kinds.discard(kind)
        self.assertEqual(kinds, set(), f"{sample}: no object was baked as {kinds}")
        moved = set()
        for obj in baked.values():
            scene.frame_set(scene.simbake.frame_start)
            start = scene_state.world_vertices(obj)
            scene.frame_set(scene.simbake.frame_end)
            if max(abs(a - b) for a, b in zip(start, scene_state.world_vertices(obj))) > 1e-3:
                moved.add(obj.name)
        self.assertTrue(moved, f"{sample}: no baked object moved")
        self.assertEqual(bpy.ops.simbake.free_bake(), {"FINISHED"})
        scene.frame_set(scene.simbake.frame_start)
        after = scene_state.objects_state()
        for name in before:
            self.assertEqual(before[name], after[name], f"{sample}: Free Bake left {name} changed")

    def test_2_stack_bakes_and_frees(self):
        self.bake_and_free("stack.blend", {"keys"})

    def test_3_tablecloth_bakes_and_frees(self):
        self.bake_and_free("tablecloth.blend", {"cloth", "keys"})

    def test_4_it_unregisters(self):
        bpy.ops.preferences.addon_disable(module=self.module)
        self.assertFalse(hasattr(bpy.types.Object, "simbake"))


result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(
    unittest.defaultTestLoader.loadTestsFromTestCase(InstallFromPackage))
sys.exit(0 if result.wasSuccessful() else 1)
