"""One task at a time in a background thread, for the modal bake: the solver's frame runs
there (ctypes releases the GIL during library calls) while Blender's main thread keeps the
UI alive and polls. No bpy here: the task must not touch Blender data."""

import threading


class Worker:
    def __init__(self):
        self._thread = None
        self._error = None

    @property
    def busy(self):
        return self._thread is not None and self._thread.is_alive()

    def start(self, task):
        """Runs task() in a new thread; the previous one must have finished."""
        if self.busy:
            raise RuntimeError("the worker is still busy")
        self._error = None

        def run():
            try:
                task()
            except BaseException as error:  # handed to the main thread by result()
                self._error = error

        self._thread = threading.Thread(target=run, name="SimBake solver", daemon=True)
        self._thread.start()

    def result(self):
        """After the task finished: raises what it raised, if anything."""
        if self.busy:
            raise RuntimeError("the worker is still busy")
        self._thread = None
        error, self._error = self._error, None
        if error is not None:
            raise error

    def wait(self, timeout=None):
        """Blocks until the task finished (or `timeout` seconds passed); True if it did."""
        if self._thread is not None:
            self._thread.join(timeout)
        return not self.busy
