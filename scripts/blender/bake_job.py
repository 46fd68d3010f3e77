"""Inside Blender, for scripts/simbake-bake: bakes the open file and saves it as OUT.

    blender -b --factory-startup IN.blend -P scripts/blender/bake_job.py -- \
        --output OUT.blend --result RESULT.json [--frames A B]

Writes RESULT.json, the report scripts/simbake-bake --json passes on:
    {"ok": bool, "message": str, "input": path, "output": path, "frames": [a, b],
     "seconds": float, "objects": [{"name", "role", "status": "baked" | "failed", "frames",
     "output", "cache_file", "seconds", "error"}]}
Its absence tells the caller that Blender never ran this script."""

import argparse
import json
import os
import sys
import time

import bpy

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def object_report(obj, result):
    """Per-object entry of the report: what was baked, or why not."""
    from simbake import outputs, settings
    entry = {"name": obj.name, "role": settings.resolve_role(obj)}
    record = outputs.load_record(obj) if result["ok"] else None
    if record is None:
        entry["status"] = "failed"
        message = result.get("message", "")
        if message.startswith(f"{obj.name}:") or f"'{obj.name}'" in message:
            entry["error"] = message
        return entry
    entry.update(status="baked", frames=record["frames"], output=record.get("output"),
                 seconds=record.get("seconds"))
    if record.get("cache_file"):
        entry["cache_file"] = record["cache_file"]
    return entry


def main():
    parser = argparse.ArgumentParser(prog="bake_job.py")
    parser.add_argument("--output", required=True)
    parser.add_argument("--result", required=True)
    parser.add_argument("--frames", type=int, nargs=2)
    args = parser.parse_args(sys.argv[sys.argv.index("--") + 1:])
    sys.path.insert(0, os.path.join(REPO, "addon"))
    import simbake
    from simbake import bake
    simbake.register()

    bpy.context.preferences.filepaths.save_version = 0  # no OUT.blend1 backups
    scene = bpy.context.scene
    if args.frames:
        scene.simbake.frame_start, scene.simbake.frame_end = args.frames
    targets = bake.bakeable_objects(scene)
    result = {"ok": False, "input": bpy.data.filepath, "output": os.path.abspath(args.output),
              "frames": [scene.simbake.frame_start, scene.simbake.frame_end], "objects": []}
    output_existed = os.path.exists(args.output)
    started = time.perf_counter()
    try:
        # save first, so caches relative to the .blend land beside the output
        os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
        bpy.ops.wm.save_as_mainfile(filepath=os.path.abspath(args.output))
        bpy.ops.simbake.bake()
        bpy.ops.wm.save_mainfile()
        result.update(ok=True, message=scene.simbake.last_bake_message)
    except (RuntimeError, OSError) as error:
        message = str(error).replace("Error: ", "", 1).strip()
        result["message"] = message
        if not output_existed and os.path.exists(args.output):
            os.remove(args.output)
    result["objects"] = [object_report(obj, result) for obj in targets]
    result["seconds"] = time.perf_counter() - started
    with open(args.result, "w") as f:
        json.dump(result, f, indent=2)


main()
