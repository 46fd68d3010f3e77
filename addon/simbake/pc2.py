"""Point Cache 2 (.pc2) files, as Blender's Mesh Cache modifier reads them. No bpy here.

Layout (little-endian): char[12] "POINTCACHE2\\0", int32 version (1), int32 point count,
float32 start frame, float32 sample rate (frames per sample), int32 sample count, then
sample_count x point_count x 3 float32 positions.
"""

import os
import struct
import sys
from array import array

try:
    import fcntl  # POSIX advisory locks; Windows has none here and goes without the busy check
except ImportError:
    fcntl = None

MAGIC = b"POINTCACHE2\0"
HEADER = struct.Struct("<12siiffi")


class PC2Error(RuntimeError):
    pass


class PC2Busy(PC2Error):
    """Another writer (another bake, in this Blender or another) is writing the same cache now."""


def _open_locked(temp, create):
    """`temp` opened for reading and writing, not truncated, and locked for this writer alone
    (an exclusive flock, held until the file is closed: a killed bake's lock goes with it).
    Opening never truncates, so a writer that finds the lock taken leaves the holder's samples
    alone. If the name moved on between opening and locking (a finishing writer renamed that
    file onto its cache), the file locked is no longer the temporary one: open again."""
    flags = os.O_RDWR | getattr(os, "O_BINARY", 0) | (os.O_CREAT if create else 0)
    for _ in range(3):
        handle = os.fdopen(os.open(temp, flags, 0o666), "r+b")
        if fcntl is None:
            return handle
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            raise PC2Busy(f"{temp}: another bake is writing this cache now (the same object of the same "
                          "scene, or another .blend with the same cache path); wait for it, or give this "
                          "bake another output or Cache Folder") from None
        try:
            same = os.path.samestat(os.fstat(handle.fileno()), os.stat(temp))
        except FileNotFoundError:
            same = False
        if same:
            return handle
        handle.close()
    raise PC2Busy(f"{temp}: other bakes keep replacing this cache; give this bake another output or Cache Folder")


def _sync_folder(folder):
    """A rename into `folder` is on disk too (POSIX; elsewhere a folder cannot be opened)."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


class PC2Writer:
    """Streams samples to `path` through a temporary file `path.partial` in the same folder,
    locked while this writer has it open (a second writer of the same path gets PC2Busy); the
    cache appears only when every sample has been written and finish() is called, which
    fsyncs the samples and renames the file onto `path` in one step (os.replace): a reader,
    such as the Mesh Cache modifier of another bake's Blender, sees the old cache whole or
    the new one whole, never a half-written one. abort() removes it."""

    def __init__(self, path, point_count, sample_count, start_frame=1.0, sample_rate=1.0, resume_at=None):
        """resume_at: go on with the temporary file a detached writer left, keeping its first
        `resume_at` samples (any written after them are cut off)."""
        self.path = path
        self.point_count = point_count
        self.sample_count = sample_count
        self.written = 0
        self.start_frame, self.sample_rate = float(start_frame), float(sample_rate)
        self._temp = path + ".partial"
        folder = os.path.dirname(os.path.abspath(path))
        self._created_folders = []  # the folders this writer makes, deepest first
        while not os.path.isdir(folder) and folder not in self._created_folders:
            self._created_folders.append(folder)
            folder = os.path.dirname(folder)
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        header = HEADER.pack(MAGIC, 1, point_count, float(start_frame), float(sample_rate), sample_count)
        if resume_at is None:
            self._file = _open_locked(self._temp, create=True)
            self._file.truncate(0)  # a killed bake's leftover, if any
            self._file.write(header)
            return
        keep = HEADER.size + 12 * point_count * resume_at
        try:
            self._file = _open_locked(self._temp, create=False)
        except OSError as error:
            raise PC2Error(f"{self._temp}: cannot reopen the cache to resume ({error.strerror})") from error
        if self._file.read(HEADER.size) != header or os.path.getsize(self._temp) < keep:
            self._file.close()
            raise PC2Error(f"{self._temp}: not the cache of this bake, or shorter than its {resume_at} samples")
        self._file.truncate(keep)
        self._file.seek(keep)
        self.written = resume_at

    def sync(self):
        """Every sample written so far is on disk (for a checkpoint that counts them)."""
        self._file.flush()
        os.fsync(self._file.fileno())

    def detach(self):
        """The bake stops for now: the temporary file stays for a writer made with resume_at."""
        if not self._file.closed:
            self._file.close()

    def write(self, positions):
        """One sample: a flat float32 array('f') of point_count x 3 values."""
        if len(positions) != 3 * self.point_count:
            raise PC2Error(f"sample has {len(positions) // 3} points, the cache {self.point_count}")
        if self.written >= self.sample_count:
            raise PC2Error(f"cache already holds its {self.sample_count} samples")
        if positions.typecode != "f" or sys.byteorder != "little":
            positions = array("f", positions)
            if sys.byteorder != "little":
                positions.byteswap()
        positions.tofile(self._file)
        self.written += 1

    def end_early(self):
        """Fewer samples than announced: the header is rewritten to the number written."""
        self.sample_count = self.written
        self._file.seek(0)
        self._file.write(HEADER.pack(MAGIC, 1, self.point_count, self.start_frame, self.sample_rate,
                                     self.written))
        self._file.seek(0, os.SEEK_END)

    def finish(self):
        if self.written != self.sample_count:
            self.abort()
            raise PC2Error(f"cache got {self.written} of {self.sample_count} samples")
        self.sync()
        os.replace(self._temp, self.path)  # still locked: no other writer has this file meanwhile
        self._file.close()
        _sync_folder(os.path.dirname(os.path.abspath(self.path)))

    def abort(self):
        if self._file.closed and os.path.exists(self._temp):  # detached: lock it again, unless another has
            try:
                self._file = _open_locked(self._temp, create=False)
            except (PC2Busy, OSError):
                pass
        if not self._file.closed:  # removed while still locked: never another writer's file
            if os.path.exists(self._temp):
                os.remove(self._temp)
            self._file.close()
        for folder in self._created_folders:  # the folders this writer made, if nothing else is in them
            try:
                os.rmdir(folder)
            except OSError:
                break
        self._created_folders = []

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is not None:
            self.abort()


def read_header(path):
    """(point_count, start_frame, sample_rate, sample_count); checks the file's size."""
    with open(path, "rb") as f:
        raw = f.read(HEADER.size)
    if len(raw) < HEADER.size:
        raise PC2Error(f"{path}: too short for a PC2 header")
    magic, version, points, start, rate, samples = HEADER.unpack(raw)
    if magic != MAGIC:
        raise PC2Error(f"{path}: not a PC2 file")
    expected = HEADER.size + 12 * points * samples
    if os.path.getsize(path) != expected:
        raise PC2Error(f"{path}: {os.path.getsize(path)} bytes, expected {expected} for "
                       f"{samples} samples of {points} points")
    return points, start, rate, samples


def read_sample(path, index):
    """Sample `index` as a flat float32 array."""
    points, _, _, samples = read_header(path)
    if not 0 <= index < samples:
        raise PC2Error(f"{path}: sample {index} outside 0..{samples - 1}")
    out = array("f")
    with open(path, "rb") as f:
        f.seek(HEADER.size + 12 * points * index)
        out.fromfile(f, 3 * points)
    if sys.byteorder != "little":
        out.byteswap()
    return out
