"""Solver trouble in the user's words: which object, which frame, what happened and what to
change, from the library's sb_failure (native.World.failure()). No bpy here."""

# What the user can change, in the names the panels show.
_CLOTH_ADVICE = {
    "CG": "raise Substeps in the scene's SimBake settings, or lower the cloth's Stretch and Shear "
          "stiffness (or raise its Density)",
    "STRAIN": "check the animation of its pin group and of colliders moving through it (a jump between "
              "two frames tears it), or lower its Stretch stiffness",
    "SPEED": "raise Substeps, lower its Stretch stiffness or Friction, and check pins and colliders "
             "that jump between frames",
    "NOT_FINITE": "check the object's scale and its SimBake settings for extreme values",
}
_BODY_ADVICE = {
    "SPEED": "check its Mass, Initial Velocity and Initial Angular Velocity, and animated objects that "
             "push it",
    "NOT_FINITE": "check its Mass, size and initial velocities for extreme values",
}
_MEMORY_ADVICE = "bake fewer objects at once, or use meshes with fewer vertices"


def _what(failure):
    kind = failure["kind"]
    if kind == "CG":
        return (f"its linear solve did not converge (relative residual {failure['cg_residual']:.2g} after "
                f"{failure['cg_iterations']} iterations), even in steps of {failure['step']:.2g} s")
    if kind == "STRAIN":
        return (f"it was pulled apart faster than the solver can follow, even in steps of {failure['step']:.2g} s "
                f"(a triangle's stretch changed by {100.0 * failure['strain_change']:.0f}% in one step)")
    if kind == "SPEED":
        return f"it reached {failure['speed']:.3g} m/s: the simulation blew up"
    if kind == "NOT_FINITE":
        return "its motion became NaN or infinite"
    return "the solver could not go on"


def describe(failure, frame, cloth_names, body_names, library_message):
    """One message for the user: 'SimBake stopped at frame F on cloth 'X': what happened;
    what to change.' `failure` is World.failure()'s dict, `frame` the frame being solved,
    cloth_names and body_names dicts of object names by library id."""
    kind, object_kind, index = failure.get("kind"), failure.get("object_kind"), failure.get("object", -1)
    if kind == "OUT_OF_MEMORY":
        return f"SimBake stopped at frame {frame}: it ran out of memory; {_MEMORY_ADVICE}"
    name = {"CLOTH": cloth_names, "BODY": body_names}.get(object_kind, {}).get(index)
    advice = (_CLOTH_ADVICE if object_kind == "CLOTH" else _BODY_ADVICE).get(kind)
    if name is None or advice is None:
        return f"SimBake stopped at frame {frame}: {library_message}"
    label = "cloth" if object_kind == "CLOTH" else "rigid body"
    return f"SimBake stopped at frame {frame} on {label} '{name}': {_what(failure)}; {advice}"


def operator_message(text):
    """The message of an operator's error as the user should read it: Blender raises it as a
    RuntimeError whose text starts with the report's type, "Error: "; only that leading prefix
    goes ("AttributeError: ..." inside the message stays whole)."""
    return text.strip().removeprefix("Error: ").strip()
