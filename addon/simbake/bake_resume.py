"""The part of a bake that saves checkpoints and goes on from one (checkpoint.py has the
file). A mixin of bake.Bake: it reads the bake's jobs, world and outputs. No bpy here."""

import time
from array import array

from . import checkpoint, native
from .pc2 import PC2Error


class BakeResume:
    def save_checkpoint(self):
        """Saves what a resumed bake needs to go on from this frame (checkpoint.py)."""
        self._motions.flush()
        info = dict(self._identity(), frame=self.frame, warnings=self.warnings,
                    seconds=self._seconds_before + time.perf_counter() - self._started,
                    cloth_outputs={}, parents={})
        blobs = {"solver": self._world.save_state()}
        for job in self.jobs:
            info["cloth_outputs"][job.obj.name], blobs[f"cloth {job.obj.name}"] = job.output.checkpoint()
        for job in self.rigid_jobs:
            info["parents"][job.obj.name] = job.parents
            blobs[f"rigid {job.obj.name}"] = job.displacements.tobytes()
        try:
            checkpoint.save(self.checkpoints.path, checkpoint.Checkpoint(info, blobs))
        except OSError as error:
            raise checkpoint.CheckpointError(f"SimBake cannot write the checkpoint {self.checkpoints.path}: {error.strerror}") from error

    def _identity(self):
        return checkpoint.identity(self.frame_start, self.frame_end, [job.obj.name for job in self.jobs],
                                   [job.obj.name for job in self.rigid_jobs], self.props.cloth_output,
                                   self.checkpoints.source)

    def _read_checkpoint(self, path):
        """The checkpoint at `path` if it is of this bake; else None, saying why."""
        try:
            saved = checkpoint.load(path)
        except checkpoint.CheckpointError as error:
            print(f"SimBake: not resuming: {error}; baking from the start", flush=True)
            return None
        why = checkpoint.mismatch(saved.info, self._identity())
        if why is not None:
            print(f"SimBake: not resuming from {path}: {why}; baking from the start", flush=True)
            return None
        return saved

    def _start_outputs(self):
        """Each cloth's output, and the solver's state: at the first frame, or as the checkpoint
        to resume from left them (when it fits the world just built)."""
        saved, self._resume = self._resume, None
        if saved is not None:
            try:
                self._go_on_from(saved)
                return
            except (native.NativeError, PC2Error, ValueError, KeyError, OSError) as error:
                for job in self.jobs:
                    if job.output is not None:
                        job.output.detach()
                        job.output = None
                print(f"SimBake: not resuming from {self.checkpoints.path}: {error}; baking from the start",
                      flush=True)
        for job in self.jobs:
            job.output = self._make_output(job)
            self._write_frame(job, job.input.sample.positions)

    def _go_on_from(self, saved):
        info, blobs = saved.info, saved.blobs
        displacements = {}
        for job in self.rigid_jobs:
            displacements[job] = array("d")
            displacements[job].frombytes(blobs[f"rigid {job.obj.name}"])
            if len(displacements[job]) != 16 * (info["frame"] - self.frame_start + 1):
                raise ValueError(f"{job.obj.name}'s keyframes in the checkpoint do not match its frame")
        for job in self.jobs:
            job.output = self._make_output(job, info["cloth_outputs"][job.obj.name], blobs[f"cloth {job.obj.name}"])
        self._world.load_state(blobs["solver"])  # last: it either fits or changes nothing
        for job in self.rigid_jobs:
            job.displacements = displacements[job]
            job.parents = info["parents"][job.obj.name]
        self.frame = self.resumed_at = info["frame"]
        self._seconds_before = info["seconds"]
        self.warnings = info["warnings"]
        print(f"SimBake: resuming at frame {self.frame} from {self.checkpoints.path}", flush=True)
