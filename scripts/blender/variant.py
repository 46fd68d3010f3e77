"""Inside Blender, for scripts/simbake-bake --variant: a variant's parameter overrides and
scattered initial states, applied to the open scene before it bakes.

    {"name": "stiff",
     "scene": {"simbake.substeps": 2},
     "objects": {"Flag": {"simbake.stretch_stiffness": 5000, "simbake.initial_velocity": [0, 0, 3]}},
     "seed": 7,
     "scatter": {"objects": ["Box*"], "location": [0.05, 0.05, 0], "rotation": [0, 0, 0.3]}}

Keys of "scene" and "objects" are Blender data paths from the scene or the named object (the
last part is set, so 'modifiers["Cloth"].settings.quality' works too). With "seed", the
objects "scatter" matches (fnmatch patterns, in name order) move and turn by uniform random
amounts within ± the given ones (m, rad; one number is the same on every axis), from a
generator seeded with it: the same seed gives the same scene."""

import fnmatch
import random

import bpy
from simbake import actions


class VariantError(ValueError):
    pass


def _vector(value, what):
    if isinstance(value, (int, float)):
        return [float(value)] * 3
    if isinstance(value, list) and len(value) == 3 and all(isinstance(v, (int, float)) for v in value):
        return [float(v) for v in value]
    raise VariantError(f"{what}: give one number or three, got {value!r}")


def _set(owner, path, value, where):
    head, _, attribute = path.rpartition(".")
    try:
        target = owner.path_resolve(head) if head else owner
    except ValueError:
        raise VariantError(f"{where}: '{head}' is not a property path here") from None
    if not hasattr(target, attribute):
        raise VariantError(f"{where}: '{attribute}' is not a property of {type(target).__name__}")
    try:
        setattr(target, attribute, value)
    except (TypeError, ValueError, AttributeError) as error:
        raise VariantError(f"{where}: cannot set it to {value!r} ({error})") from None


def _scatter(scene, spec, seed, name):
    if not isinstance(spec, dict):
        raise VariantError(f"variant '{name}': scatter must be an object")
    patterns = spec.get("objects", [])
    if isinstance(patterns, str):
        patterns = [patterns]
    chosen = sorted((obj for obj in scene.objects if any(fnmatch.fnmatchcase(obj.name, p) for p in patterns)),
                    key=lambda obj: obj.name)
    if not chosen:
        raise VariantError(f"variant '{name}': scatter matches no object ({', '.join(patterns) or 'no patterns'})")
    location = _vector(spec.get("location", 0.0), f"variant '{name}': scatter.location")
    rotation = _vector(spec.get("rotation", 0.0), f"variant '{name}': scatter.rotation")
    generator = random.Random(seed)
    for obj in chosen:
        if actions.animated_paths(obj) & {"location", "rotation_euler"}:
            raise VariantError(f"variant '{name}': scatter: '{obj.name}' has an animated location or "
                               "rotation, which would undo the scatter")
        for axis in range(3):
            obj.location[axis] += generator.uniform(-location[axis], location[axis])
            obj.rotation_euler[axis] += generator.uniform(-rotation[axis], rotation[axis])


def apply(scene, variant):
    """Applies `variant` (the parsed JSON) to `scene`; VariantError names the key at fault."""
    if not isinstance(variant, dict):
        raise VariantError("a variant must be a JSON object")
    name = variant.get("name", "unnamed")
    known = {"name", "scene", "objects", "seed", "scatter"}
    unknown = sorted(set(variant) - known)
    if unknown:
        raise VariantError(f"variant '{name}': unknown key(s) {', '.join(unknown)} (known: {', '.join(sorted(known))})")
    for path, value in (variant.get("scene") or {}).items():
        _set(scene, path, value, f"variant '{name}': scene.{path}")
    for object_name, settings in (variant.get("objects") or {}).items():
        obj = bpy.data.objects.get(object_name)
        if obj is None:
            raise VariantError(f"variant '{name}': objects.{object_name}: no object named '{object_name}'")
        if not isinstance(settings, dict):
            raise VariantError(f"variant '{name}': objects.{object_name} must map property paths to values")
        for path, value in settings.items():
            _set(obj, path, value, f"variant '{name}': objects.{object_name}.{path}")
    if "scatter" in variant:
        if not isinstance(variant.get("seed"), int):
            raise VariantError(f"variant '{name}': scatter needs a whole-number seed")
        _scatter(scene, variant["scatter"], variant["seed"], name)
