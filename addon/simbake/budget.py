"""What a bake will need, told before it starts: memory for the solver (and for shape keys),
disk for the cache; a bake that cannot fit is refused before anything changes. No bpy here.

The per-vertex figures were measured with the library (peak resident size after adding a
grid cloth and taking one frame, tests/python/test_budget.py keeps them honest):
about 2.2 kB per cloth vertex; self collision adds a fixed part (its tables, and the pairs
each thread gathers before they are joined) and candidate pairs, which grow as the square of
how many edge lengths the contact distance (twice the thickness) spans: 1.0-2.2 kB per vertex
while it spans about one edge, 17.6 kB at 3.7 edges, 59 kB at 7."""

import math
import os
import shutil
from dataclasses import dataclass

from .bake_state import human_size as human

CLOTH_BYTES_PER_VERTEX = 2600
SELF_COLLISION_BYTES_PER_VERTEX = 1300
SELF_COLLISION_PAIR_BYTES_PER_VERTEX = 1400  # times r², r = 2 thickness / edge
COLLIDER_BYTES_PER_VERTEX = 600
PC2_BYTES_PER_VERTEX_FRAME = 12             # float32 x, y, z
SHAPE_KEY_BYTES_PER_VERTEX_FRAME = 48       # our float32 copy, and Blender's key block and mix


@dataclass
class ClothSize:
    vertex_count: int
    self_collision: bool
    thickness: float
    edge_length: float  # typical, m


@dataclass
class Estimate:
    memory: int  # bytes
    cache: int   # bytes on disk

    def describe(self):
        text = f"about {human(self.memory)} of memory"
        return text + (f" and {human(self.cache)} of disk for the cache" if self.cache else "")


def typical_edge_length(area, triangle_count):
    """Edge of an equilateral-ish triangle of the mean area."""
    return math.sqrt(4.0 * area / (math.sqrt(3.0) * triangle_count)) if area > 0 and triangle_count else 0.0


def estimate(cloths, collider_vertices, frames, output):
    memory = collider_vertices * COLLIDER_BYTES_PER_VERTEX
    cache = 0
    for cloth in cloths:
        memory += cloth.vertex_count * CLOTH_BYTES_PER_VERTEX
        if cloth.self_collision:
            r = 2.0 * cloth.thickness / cloth.edge_length if cloth.edge_length > 0 else 4.0
            r = min(r, 16.0)
            pairs = SELF_COLLISION_PAIR_BYTES_PER_VERTEX * r * r
            memory += int(cloth.vertex_count * (SELF_COLLISION_BYTES_PER_VERTEX + pairs))
        if output == "SHAPE_KEYS":
            memory += cloth.vertex_count * frames * SHAPE_KEY_BYTES_PER_VERTEX_FRAME
        else:
            cache += cloth.vertex_count * frames * PC2_BYTES_PER_VERTEX_FRAME
    return Estimate(int(memory), int(cache))


def available_memory():
    """Bytes the system can still give (MemAvailable), or None where it cannot say."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def free_disk(folder):
    """Free bytes on the disk `folder` is (or would be) on."""
    path = os.path.abspath(folder)
    while not os.path.exists(path):
        parent = os.path.dirname(path)
        if parent == path:
            return None
        path = parent
    try:
        return shutil.disk_usage(path).free
    except OSError:
        return None


def check(needed, memory_available, disk_free, cache_folder):
    """Raises ValueError, saying what to change, when the bake cannot fit."""
    if memory_available is not None and needed.memory > memory_available:
        raise ValueError(f"this bake needs {needed.describe()}, but only {human(memory_available)} of memory "
                         "is available: bake fewer frames or objects, use meshes with fewer vertices, or "
                         "turn Self Collision off")
    if disk_free is not None and needed.cache > disk_free:
        raise ValueError(f"this bake needs {human(needed.cache)} for its cache, but {cache_folder} has only "
                         f"{human(disk_free)} free: bake fewer frames or choose another Cache Folder")
