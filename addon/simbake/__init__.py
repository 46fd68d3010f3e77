"""SimBake: cloth simulation baked into Blender scenes by a native solver.

This module only registers. Modules that need bpy are imported in register(), so the
bpy-free ones (native, pc2, settings, transforms, worker, bake_state) can be imported and
tested in plain Python. Imports are relative, so the package works under any name: as
`simbake` (Blender 3.4 to 4.1, bl_info below) and as a 4.2+ extension (blender_manifest.toml)
under bl_ext.<repository>.simbake."""

bl_info = {
    "name": "SimBake",
    "author": "SimBake developers",
    "version": (0, 4, 0),
    "blender": (3, 4, 0),
    "location": "Properties > Physics > SimBake",
    "description": "Fast, stable cloth and rigid body bakes by a native solver",
    "category": "Physics",
}


def _modules():
    from . import ops, props, ui
    return (props, ops, ui)


def register():
    for module in _modules():
        module.register()


def unregister():
    for module in reversed(_modules()):
        module.unregister()
