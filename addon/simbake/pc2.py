"""Point Cache 2 (.pc2) files, as Blender's Mesh Cache modifier reads them. No bpy here.

Layout (little-endian): char[12] "POINTCACHE2\\0", int32 version (1), int32 point count,
float32 start frame, float32 sample rate (frames per sample), int32 sample count, then
sample_count x point_count x 3 float32 positions.
"""

import os
import struct
import sys
from array import array

MAGIC = b"POINTCACHE2\0"
HEADER = struct.Struct("<12siiffi")


class PC2Error(RuntimeError):
    pass


class PC2Writer:
    """Streams samples to `path` through a temporary file; the file appears only when
    every sample has been written and finish() is called. abort() removes it."""

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
        self._created_folder = None if os.path.isdir(folder) else folder
        os.makedirs(folder, exist_ok=True)
        header = HEADER.pack(MAGIC, 1, point_count, float(start_frame), float(sample_rate), sample_count)
        if resume_at is None:
            self._file = open(self._temp, "wb")
            self._file.write(header)
            return
        keep = HEADER.size + 12 * point_count * resume_at
        try:
            self._file = open(self._temp, "r+b")
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
        self._file.close()
        os.replace(self._temp, self.path)

    def abort(self):
        if not self._file.closed:
            self._file.close()
        if os.path.exists(self._temp):
            os.remove(self._temp)
        if self._created_folder is not None:  # a folder this writer made, if nothing else is in it
            try:
                os.rmdir(self._created_folder)
            except OSError:
                pass
            self._created_folder = None

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
