"""Where a saved .blend's cloth caches go. No bpy here.

The default Cache Folder, `//simbake_cache/`, is shared by every .blend in a folder: a copy
saved beside its original (Save As shot_v2.blend), or one scene baked by two headless jobs
to two outputs (`simbake-bake IN.blend -o A.blend` and `-o B.blend`, at the same time on a
farm), would write the same `simbake_cache/Cloth.pc2`. So with the default, each .blend's
caches go to a subfolder named after it, `//simbake_cache/<blend name>/` (as Blender's own
disk caches go to `//blendcache_<blend name>/`). A Cache Folder the user chose is used as it
is: they picked that folder, and cache_owner refuses a cache another existing .blend holds."""

import hashlib
import os
import re

DEFAULT_FOLDER = "//simbake_cache/"


def safe_name(name):
    """`name` as one path component, safe on every file system; distinct names stay distinct
    (a name that had to change gets a digest of the original)."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("._") or "blend"
    if safe != name:
        safe += "-" + hashlib.sha1(name.encode("utf-8")).hexdigest()[:8]
    return safe


def is_default(cache_dir):
    """Whether the Cache Folder setting is the default one (empty counts as the default)."""
    return not cache_dir or cache_dir.replace("\\", "/").rstrip("/") + "/" == DEFAULT_FOLDER


def folder_setting(cache_dir, blend_path):
    """The Cache Folder to use for a saved .blend at `blend_path`, still as a Blender path
    ('//' the .blend's folder): the default gets the .blend's own subfolder."""
    if not is_default(cache_dir):
        return cache_dir
    stem = os.path.splitext(os.path.basename(blend_path))[0]
    return DEFAULT_FOLDER + safe_name(stem) + "/"
