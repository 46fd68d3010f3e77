"""Inside Blender, for scripts/simbake-bake: bakes the open file and saves it as OUT.

    blender -b --factory-startup IN.blend -P scripts/blender/bake_job.py -- \
        --output OUT.blend --result RESULT.json [--frames A B] [--variant VARIANT.json]
        [--checkpoint PATH [--checkpoint-every N] [--stop-at FRAME] [--resume]]

Writes RESULT.json, the report scripts/simbake-bake --json passes on:
    {"ok": bool, "message": str, "input": path, "output": path, "frames": [a, b],
     "seconds": float, "objects": [{"name", "role", "status": "baked" | "failed", "frames",
     "output", "cache_file", "seconds", "error"}], "variant": name (with --variant),
     "paused": true (stopped at --stop-at), "resumed_from": frame (resumed from a checkpoint),
     "warnings": [what the bake did not carry over or had to change, naming the object]}
Its absence tells the caller that Blender never ran this script."""

import argparse
import hashlib
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


def source_of(blend, variant_path):
    """What the bake is made from, for its checkpoints: the input file as it is now and the
    variant's content."""
    stat = os.stat(blend)
    variant_hash = None
    if variant_path:
        with open(variant_path, "rb") as f:
            variant_hash = hashlib.sha256(f.read()).hexdigest()
    return {"blend": os.path.abspath(blend), "size": stat.st_size, "mtime_ns": stat.st_mtime_ns,
            "variant": variant_hash}


def main():
    parser = argparse.ArgumentParser(prog="bake_job.py")
    parser.add_argument("--output", required=True)
    parser.add_argument("--result", required=True)
    parser.add_argument("--frames", type=int, nargs=2)
    parser.add_argument("--variant")
    parser.add_argument("--checkpoint")
    parser.add_argument("--checkpoint-every", type=int, default=0)
    parser.add_argument("--stop-at", type=int)
    parser.add_argument("--resume", action="store_true")
    args = parser.parse_args(sys.argv[sys.argv.index("--") + 1:])
    sys.path.insert(0, os.path.join(REPO, "addon"))
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import simbake
    import variant
    from simbake import bake, checkpoint, failures, ops
    simbake.register()

    bpy.context.preferences.filepaths.save_version = 0  # no OUT.blend1 backups
    scene = bpy.context.scene
    if args.frames:
        scene.simbake.frame_start, scene.simbake.frame_end = args.frames
    result = {"ok": False, "input": bpy.data.filepath, "output": os.path.abspath(args.output), "objects": [],
              "frames": [scene.simbake.frame_start, scene.simbake.frame_end], "warnings": []}
    output_existed = os.path.exists(args.output)
    started = time.perf_counter()
    targets = []
    try:
        if args.variant:
            with open(args.variant) as f:
                chosen = json.load(f)
            result["variant"] = chosen.get("name") if isinstance(chosen, dict) else None
            variant.apply(scene, chosen)
        result["frames"] = [scene.simbake.frame_start, scene.simbake.frame_end]
        targets = bake.bakeable_objects(scene)
        # save first, so caches relative to the .blend land beside the output
        os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
        bpy.ops.wm.save_as_mainfile(filepath=os.path.abspath(args.output))
        plan = None
        if args.checkpoint:
            plan = checkpoint.Plan(args.checkpoint, args.checkpoint_every, args.stop_at,
                                   source_of(result["input"], args.variant))
        job = bake.Bake(bpy.context, targets, progress=ops.print_progress, checkpoints=plan, resume=args.resume)
        job.run()
        result["warnings"] = list(job.warnings)
        for warning in job.warnings:
            print(f"SimBake: warning: {warning}", flush=True)
        if job.resumed_at is not None:
            result["resumed_from"] = job.resumed_at
        bpy.ops.wm.save_mainfile()
        if plan is not None and os.path.exists(plan.path):
            os.remove(plan.path)  # the bake is whole: nothing left to resume
        result.update(ok=True, message=scene.simbake.last_bake_message)
    except bake.BakePaused as paused:
        result.update(paused=True, message=str(paused))
    except (RuntimeError, OSError, ValueError) as error:  # VariantError and JSON errors are ValueErrors
        message = failures.operator_message(str(error))
        if isinstance(error, OSError) and args.variant and not result.get("variant"):
            message = f"variant file {args.variant}: {error.strerror or error}"
        if isinstance(error, json.JSONDecodeError):
            message = f"variant file {args.variant}: not JSON ({error})"
        result["message"] = message
        if not output_existed and os.path.exists(args.output):
            os.remove(args.output)
    result["objects"] = [object_report(obj, result) for obj in targets]
    result["seconds"] = time.perf_counter() - started
    with open(args.result, "w") as f:
        json.dump(result, f, indent=2)


main()
