"""What a headless bake made, as bytes to compare: its cloth caches and a digest of every
keyframe and shape key in the saved .blend."""

import json
import os
import shutil
import subprocess

BLENDER = os.environ.get("BLENDER") or shutil.which("blender")

DIGEST = """
import bpy, hashlib, array
h = hashlib.sha256()
def fcurves(a):  # layered actions (4.4+) keep their F-curves in channelbags; 5.0 has no Action.fcurves
    if bpy.app.version < (4, 4, 0):
        return a.fcurves
    return [c for layer in a.layers for strip in layer.strips for bag in strip.channelbags for c in bag.fcurves]
for a in sorted(bpy.data.actions, key=lambda a: a.name):
    for c in fcurves(a):
        v = array.array('f', bytes(8 * len(c.keyframe_points)))
        c.keyframe_points.foreach_get('co', v)
        h.update(a.name.encode() + c.data_path.encode() + v.tobytes())
for o in sorted(bpy.data.objects, key=lambda o: o.name):
    keys = o.data.shape_keys if o.type == 'MESH' else None
    for k in (keys.key_blocks if keys else []):
        v = array.array('f', bytes(12 * len(k.data)))
        k.data.foreach_get('co', v)
        h.update(o.name.encode() + k.name.encode() + v.tobytes())
print('DIGEST', h.hexdigest())
"""


def run(*args, **kwargs):
    return subprocess.run(list(args), capture_output=True, text=True, **kwargs)


def result(blend, report_path):
    """(cache bytes in path order, digest of keys and shape keys) of a baked .blend."""
    with open(report_path) as f:
        report = json.load(f)
    caches = sorted(e["cache_file"] for e in report["objects"] if e.get("output") == "MESH_CACHE")
    cache_bytes = []
    for path in caches:
        with open(path, "rb") as f:
            cache_bytes.append(f.read())
    done = run(BLENDER, "-b", blend, "--python-exit-code", "1", "--python-expr", DIGEST)
    if done.returncode != 0:
        raise AssertionError(done.stdout + done.stderr)
    digest = next(line for line in done.stdout.splitlines() if line.startswith("DIGEST "))
    return cache_bytes, digest
