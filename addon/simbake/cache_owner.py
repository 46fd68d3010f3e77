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
        json.dump({"blend": _ours(blend), "scene": scene}, f)


def _recorded_owner(cache_path):
    """The (blend, scene) recorded beside the cache; None when there is no readable owner file
    (a cache from before owner files, or a damaged one): such a cache is nobody's."""
    try:
        with open(owner_path(cache_path)) as f:
            owner = json.load(f)
        return str(owner["blend"]), str(owner["scene"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _ours(blend):
    return os.path.abspath(blend) if blend else ""


def other_owner(cache_path, blend, scene):
    """The owner ({"blend", "scene"}) of an existing cache at `cache_path` when it is another
    scene's, whose .blend still exists; None when the path is free or this scene's own."""
    if not os.path.exists(cache_path):
        return None
    owner = _recorded_owner(cache_path)
    if owner is None or owner == (_ours(blend), scene) or not owner[0] or not os.path.exists(owner[0]):
        return None
    return {"blend": owner[0], "scene": owner[1]}


def held_by_other_blend(cache_path, blend):
    """Whether the cache at `cache_path` is the bake of another .blend that still exists: a
    copy saved from it (Save As) still names the original's cache in its bake record, and
    freeing or baking the copy again must leave the original's cache alone."""
    owner = _recorded_owner(cache_path)
    return owner is not None and bool(owner[0]) and owner[0] != _ours(blend) and os.path.exists(owner[0])


def release(cache_path):
    try:
        os.remove(owner_path(cache_path))
    except FileNotFoundError:
        pass
