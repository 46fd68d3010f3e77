"""What the panels say about a bake in place, from an object's bake record (no bpy)."""

import os
import time

from . import pc2

OUTPUT_NAMES = {"MESH_CACHE": "mesh cache", "SHAPE_KEYS": "shape keys", "KEYFRAMES": "keyframes"}


def human_size(size):
    for unit in ("bytes", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "bytes" else f"{size:.1f} {unit}"
        size /= 1024.0


def cache_size(record):
    """Bytes the bake occupies on disk (a PC2 file), 0 when it lives in the .blend, None
    when its cache file is missing."""
    if record.get("output") != "MESH_CACHE":
        return 0
    try:
        return os.path.getsize(record["cache_file"])
    except (KeyError, OSError):
        return None


def cache_damage(record):
    """What is wrong with a cache file that is there but not whole (cut short, overwritten),
    or None."""
    try:
        pc2.read_header(record["cache_file"])
    except pc2.PC2Error as error:
        return str(error)
    except (KeyError, OSError):
        pass
    return None


def describe(record):
    """Lines for the panel: frames and output, cache size, when and how long."""
    first, last = record["frames"]
    lines = [f"Baked frames {first}-{last} ({last - first + 1} frames) as "
             f"{OUTPUT_NAMES.get(record.get('output'), record.get('output', '?'))}"]
    size = cache_size(record)
    damage = cache_damage(record) if size else None
    if size is None:
        lines.append(f"Cache file missing: {record.get('cache_file', '?')}; bake again")
    elif damage:
        lines.append(f"Cache file damaged: {damage}; bake again")
    elif size:
        lines.append(f"Cache {human_size(size)}: {os.path.basename(record['cache_file'])}")
    seconds = record.get("seconds")
    baked_at = record.get("baked_at")
    if seconds is not None and baked_at is not None:
        stamp = time.strftime("%Y-%m-%d %H:%M", time.localtime(baked_at))
        lines.append(f"Last bake {stamp}, took {seconds:.1f} s")
    return lines
