"""Which scene's bake a cloth cache belongs to, so that no bake overwrites another's. Beside
each finished cache, `<cache>.owner` names the .blend and the scene that baked it; a bake
refuses a cache path whose owner is another scene of a .blend that still exists (two .blend
files in one folder baking objects of the same name, a copy saved beside its original). A
cache with no owner file, or whose .blend is gone, is nobody's. No bpy here."""

import json
import os


def owner_path(cache_path):
    return cache_path + ".owner"


def claim(cache_path, blend, scene):
    """Records that the finished cache at `cache_path` is the bake of `scene` in `blend`
    (the .blend's absolute path; empty for an unsaved file)."""
    with open(owner_path(cache_path), "w") as f:
        json.dump({"blend": os.path.abspath(blend) if blend else "", "scene": scene}, f)


def other_owner(cache_path, blend, scene):
    """The owner ({"blend", "scene"}) of an existing cache at `cache_path` when it is another
    scene's, whose .blend still exists; None when the path is free or this scene's own."""
    if not os.path.exists(cache_path):
        return None
    try:
        with open(owner_path(cache_path)) as f:
            owner = json.load(f)
        other_blend, other_scene = str(owner["blend"]), str(owner["scene"])
    except (OSError, ValueError, KeyError, TypeError):
        return None  # a cache from before owner files, or one whose owner file is damaged
    ours = os.path.abspath(blend) if blend else ""
    if (other_blend, other_scene) == (ours, scene) or not other_blend or not os.path.exists(other_blend):
        return None
    return {"blend": other_blend, "scene": other_scene}


def held_by_other_blend(cache_path, blend):
    """Whether the cache at `cache_path` is the bake of another .blend that still exists: a
    copy saved from it (Save As) still names the original's cache in its bake record, and
    freeing or baking the copy again must leave the original's cache alone."""
    try:
        with open(owner_path(cache_path)) as f:
            other_blend = str(json.load(f)["blend"])
    except (OSError, ValueError, KeyError, TypeError):
        return False
    ours = os.path.abspath(blend) if blend else ""
    return bool(other_blend) and other_blend != ours and os.path.exists(other_blend)


def release(cache_path):
    try:
        os.remove(owner_path(cache_path))
    except FileNotFoundError:
        pass
