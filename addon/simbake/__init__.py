"""SimBake: cloth simulation baked into Blender scenes by a native solver.

This module only registers. Modules that need bpy are imported in register(), so the
bpy-free ones (native, pc2, settings) can be imported and tested in plain Python."""

bl_info = {
    "name": "SimBake",
    "author": "SimBake developers",
    "version": (0, 1, 0),
    "blender": (3, 4, 0),
    "location": "Properties > Physics > SimBake",
    "description": "Fast, stable cloth simulation baked to mesh caches",
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
