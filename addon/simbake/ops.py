"""Operators: bake and free bake."""

import traceback

import bpy

from . import bake, outputs


def _targets(context, selected_only):
    objects = context.selected_objects if selected_only else None
    return bake.bakeable_objects(context.scene, objects)


class SIMBAKE_OT_bake(bpy.types.Operator):
    """Simulate cloth and rigid bodies over the SimBake frame range and bake the result"""
    bl_idname = "simbake.bake"
    bl_label = "Bake"
    bl_options = {"REGISTER"}

    selected_only: bpy.props.BoolProperty(name="Selected Only", default=False,
                                          description="Bake only the selected objects")

    def execute(self, context):
        wm = context.window_manager
        jobs = _targets(context, self.selected_only)
        total = max(1, context.scene.simbake.frame_end - context.scene.simbake.frame_start)
        interactive = not bpy.app.background

        def progress(frame, done, count):
            print(f"SimBake: frame {frame} ({done}/{count}, {100.0 * done / max(1, count):.0f}%)", flush=True)
            if interactive:
                wm.progress_update(done)

        if interactive:
            wm.progress_begin(0, total)
        try:
            job = bake.Bake(context, jobs, progress=progress)
            job.run()
        except (bake.BakeError, bake.BakeCancelled) as error:
            self.report({"ERROR"}, str(error))
            return {"CANCELLED"}
        except Exception as error:  # a bug of ours must not take the user's scene with it
            traceback.print_exc()
            self.report({"ERROR"}, f"SimBake failed unexpectedly ({type(error).__name__}: {error}); the scene "
                                   "is unchanged, details are in the system console")
            return {"CANCELLED"}
        finally:
            if interactive:
                wm.progress_end()
        for warning in job.warnings:
            self.report({"WARNING"}, warning)
        self.report({"INFO"}, context.scene.simbake.last_bake_message)
        return {"FINISHED"}


class SIMBAKE_OT_free_bake(bpy.types.Operator):
    """Remove SimBake's baked result and restore the objects as they were before the bake"""
    bl_idname = "simbake.free_bake"
    bl_label = "Free Bake"
    bl_options = {"REGISTER", "UNDO"}

    selected_only: bpy.props.BoolProperty(name="Selected Only", default=False)

    def execute(self, context):
        objects = context.selected_objects if self.selected_only else context.scene.objects
        freed = [obj.name for obj in objects if outputs.free(obj)]
        if freed:
            context.scene.simbake.last_bake_message = ""
        self.report({"INFO"}, f"Freed the bake of {len(freed)} object(s)")
        print(f"SimBake: freed {', '.join(freed) or 'nothing'}", flush=True)
        return {"FINISHED"}


CLASSES = (SIMBAKE_OT_bake, SIMBAKE_OT_free_bake)

register, unregister = bpy.utils.register_classes_factory(CLASSES)
