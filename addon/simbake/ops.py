"""Operators: bake and free bake."""

import traceback

import bpy

from . import bake, outputs, worker


def _targets(context, selected_only):
    objects = context.selected_objects if selected_only else None
    return bake.bakeable_objects(context.scene, objects)


# events that reach the rest of Blender during a modal bake: drawing, timers and pointer
# moves; key presses and clicks do not, so nothing edits the scene under the bake
_PASSED_DURING_BAKE = {"TIMER", "TIMER_REPORT", "TIMERREGION", "MOUSEMOVE", "INBETWEEN_MOUSEMOVE",
                       "WINDOW_DEACTIVATE", "NONE"}


def print_progress(frame, done, total):
    print(f"SimBake: frame {frame} ({done}/{total}, {100.0 * done / max(1, total):.0f}%)", flush=True)


def _redraw_panels(context):
    screen = context.screen
    if screen is None:
        return
    for area in screen.areas:
        if area.type in {"PROPERTIES", "STATUSBAR"}:
            area.tag_redraw()


class SIMBAKE_OT_bake(bpy.types.Operator):
    """Simulate cloth and rigid bodies over the SimBake frame range and bake the result"""
    bl_idname = "simbake.bake"
    bl_label = "Bake"
    bl_options = {"REGISTER"}

    selected_only: bpy.props.BoolProperty(name="Selected Only", default=False,
                                          description="Bake only the selected objects")

    @classmethod
    def description(cls, context, properties):
        if properties.selected_only:
            return "Simulate the selected objects over the SimBake frame range and bake the result"
        return "Simulate every cloth and rigid body of the scene over the SimBake frame range and bake the result"

    def _report_outcome(self, job):
        for warning in job.warnings:
            self.report({"WARNING"}, warning)
        self.report({"INFO"}, job.scene.simbake.last_bake_message)

    def _report_failure(self, error):
        if isinstance(error, bake.BakeCancelled):
            self.report({"WARNING"}, "SimBake: bake cancelled; the scene is as it was")
        elif isinstance(error, bake.BakeError):
            self.report({"ERROR"}, str(error))
        else:  # a bug of ours must not take the user's scene with it
            traceback.print_exception(type(error), error, error.__traceback__)
            self.report({"ERROR"}, f"SimBake failed unexpectedly ({type(error).__name__}: {error}); the scene "
                                   "is unchanged, details are in the system console")
        print(f"SimBake: {error}", flush=True)

    # --- scripts and background mode: the whole bake at once ----------------------------

    def execute(self, context):
        try:
            job = bake.Bake(context, _targets(context, self.selected_only), progress=print_progress)
            job.run()
        except Exception as error:
            self._report_failure(error)
            return {"CANCELLED"}
        self._report_outcome(job)
        return {"FINISHED"}

    # --- the UI: the solver in a worker thread, progress on a timer, Esc cancels ---------

    def invoke(self, context, event):
        wm = context.window_manager
        if bpy.app.background or context.window is None:
            return self.execute(context)
        if wm.simbake_baking:
            self.report({"WARNING"}, "SimBake is already baking")
            return {"CANCELLED"}
        self._worker = worker.Worker()
        self._cancel_requested = False
        self._timer = None
        try:
            self._job = bake.Bake(context, _targets(context, self.selected_only), progress=self._progress)
            self._job.begin()
        except Exception as error:
            self._report_failure(error)
            return {"CANCELLED"}
        wm.simbake_baking = True
        wm.simbake_progress = 0.0
        wm.progress_begin(0, max(1, self._job.total_frames))
        self._show_status(context, f"SimBake: starting frames {self._job.frame_start}-{self._job.frame_end}, "
                                   f"{self._job.estimate.describe()}")
        try:
            self._job.prepare_frame()
            self._worker.start(self._job.solve_frame)
        except Exception as error:
            return self._stop(context, error)
        self._timer = wm.event_timer_add(0.05, window=context.window)
        wm.modal_handler_add(self)
        return {"RUNNING_MODAL"}

    def modal(self, context, event):
        if event.type == "ESC" and event.value == "PRESS":
            self._cancel_requested = True
            self._show_status(context, "SimBake: cancelling after this frame...")
        elif event.type == "TIMER" and not self._worker.busy:
            return self._next(context)
        return {"PASS_THROUGH"} if event.type in _PASSED_DURING_BAKE else {"RUNNING_MODAL"}

    def cancel(self, context):
        """Blender ends the operator (the file is closed, the window goes): undo the bake."""
        self._worker.wait()
        self._job.abort()
        self._end(context)

    def _next(self, context):
        """The worker finished a frame: keep it and start the next, or end the bake."""
        try:
            self._worker.result()
            if self._cancel_requested:
                raise bake.BakeCancelled("bake cancelled")
            self._job.collect_frame()
            if self._job.done:
                self._job.finish()
                self._end(context)
                self._report_outcome(self._job)
                return {"FINISHED"}
            self._job.prepare_frame()
            self._worker.start(self._job.solve_frame)
        except Exception as error:
            return self._stop(context, error)
        return {"RUNNING_MODAL"}

    def _stop(self, context, error):
        """Ends a bake that failed or was cancelled: the scene goes back as it was (or keeps the
        frames before a solver failure, if the scene's settings say so)."""
        error = self._job.end_failed(error)
        self._end(context)
        self._report_failure(error)
        return {"CANCELLED"}

    def _progress(self, frame, done, total):
        print_progress(frame, done, total)
        wm = bpy.context.window_manager
        wm.progress_update(done)
        wm.simbake_progress = 100.0 * done / max(1, total)
        if not self._cancel_requested:
            self._show_status(bpy.context, f"SimBake: frame {frame} ({done}/{total}, "
                                           f"{wm.simbake_progress:.0f}%), Esc to cancel")

    def _show_status(self, context, text):
        context.window_manager.simbake_status = text
        if context.workspace is not None:
            context.workspace.status_text_set(text)
        _redraw_panels(context)

    def _end(self, context):
        wm = context.window_manager
        if self._timer is not None:
            wm.event_timer_remove(self._timer)
            self._timer = None
        wm.progress_end()
        wm.simbake_baking = False
        wm.simbake_status = ""
        if context.workspace is not None:
            context.workspace.status_text_set(None)
        _redraw_panels(context)


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
            context.scene.simbake.last_bake_message = context.scene.simbake.last_bake_warnings = ""
        self.report({"INFO"}, f"Freed the bake of {len(freed)} object(s)")
        print(f"SimBake: freed {', '.join(freed) or 'nothing'}", flush=True)
        return {"FINISHED"}


CLASSES = (SIMBAKE_OT_bake, SIMBAKE_OT_free_bake)

register, unregister = bpy.utils.register_classes_factory(CLASSES)
