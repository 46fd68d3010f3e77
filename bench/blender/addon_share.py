"""The add-on's own share of a whole bake: how much of the time from starting a bake to the
baked scene goes to the solver (the library's steps) and how much to the add-on around it
(reading the scene, reading results back, turning them into keyframes or caches, writing
them into the scene). One Blender process, each scene built afresh for every run.

    blender -b --factory-startup --python-exit-code 1 -P bench/blender/addon_share.py -- \
        [--repeats 3] [--cases heap400,drape64] [--addon FOLDER] [--profile [--sort cumulative]] [--out OUT.json]

Cases:
- heap400: 400 boxes of 0.2 m, each turned by a random rotation (seeded), dropped in a heap
  on an open floor, 72 frames; Blender rigid bodies (role None) baked to keyframes;
- drape64: a 64 x 64 grid of 2 m with Blender's default cloth (self collision off) falls
  0.3 m onto a sphere of 0.5 m radius with a Collision modifier, 40 frames, baked to a PC2
  cache.

Per run: whole (Bake() made, run to the scene holding the bake), solver (the sum of the
frames' solve_frame, the library's step), add-on (whole - solver). Printed and written as
medians over the runs, and each run's figures. --profile runs each case once more under
cProfile and prints the 25 functions with the most own time (not counted in the medians).
--addon: the folder holding the simbake package to bake with (default: this repository's
addon/), e.g. an older commit's, to compare; give it the library with SIMBAKE_LIBRARY."""

import argparse
import cProfile
import json
import os
import pstats
import statistics
import sys
import time

import bpy

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HEAP_FRAMES, DRAPE_FRAMES = 72, 40


def arguments():
    parser = argparse.ArgumentParser(prog="addon_share.py")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cases", default="heap400,drape64")
    parser.add_argument("--addon", default=os.path.join(REPO, "addon"))
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--sort", default="tottime", help="the profile's order: tottime or cumulative")
    parser.add_argument("--out")
    return parser.parse_args(sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else [])


ARGS = arguments()
sys.path.insert(0, os.path.abspath(ARGS.addon))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simbake  # noqa: E402

if not hasattr(bpy.types.Object, "simbake"):
    simbake.register()
from simbake import bake, keyframes  # noqa: E402

# The scene builders of the side-by-side benchmarks (imported after simbake, which they would
# otherwise take from this repository whatever --addon says).
import cloth_vs_blender  # noqa: E402
import rigid_vs_blender  # noqa: E402

if getattr(keyframes, "rigid_channels", False) is None:  # an add-on with the numpy path that cannot use it
    sys.exit("addon_share.py: this Blender's Python finds no numpy (install python3-numpy; a pyenv Python that "
             "started Blender puts its own prefix first: start bench/run with /usr/bin/python3)")


class TimedBake(bake.Bake):
    """A bake that adds up the time of its solver steps."""

    solver_seconds = 0.0

    def solve_frame(self):
        began = time.perf_counter()
        try:
            super().solve_frame()
        finally:
            self.solver_seconds += time.perf_counter() - began


def build_heap(count=400):
    """rigid_vs_blender.py's heap: `count` randomly turned boxes over a square of the floor."""
    rigid_vs_blender.build_heap(count)
    scene = bpy.context.scene
    scene.rigidbody_world.point_cache.frame_end = 1  # Blender's own simulation is not timed
    scene.simbake.frame_start, scene.simbake.frame_end = 1, HEAP_FRAMES
    scene.frame_set(1)
    return list(scene.objects)


def build_drape(grid=64):
    """The drape of cloth_vs_blender.py with self collision off (Blender's default)."""
    cloth, _ = cloth_vs_blender.build(grid, 5, DRAPE_FRAMES)
    cloth.modifiers["Cloth"].collision_settings.use_self_collision = False
    scene = bpy.context.scene
    scene.simbake.frame_start, scene.simbake.frame_end = 1, DRAPE_FRAMES
    scene.frame_set(1)
    return [cloth]


CASES = {"heap400": build_heap, "drape64": build_drape}


def one_bake(objects):
    began = time.perf_counter()
    job = TimedBake(bpy.context, objects)
    job.run()
    whole = time.perf_counter() - began
    return {"whole_s": whole, "solver_s": job.solver_seconds, "addon_s": whole - job.solver_seconds,
            "addon_share": (whole - job.solver_seconds) / whole}


def main():
    args = ARGS
    print(f"SimBake add-on share: baking with the add-on in {os.path.dirname(simbake.__file__)}", flush=True)
    results = {}
    for case in args.cases.split(","):
        runs = [one_bake(CASES[case]()) for _ in range(args.repeats)]
        medians = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
        results[case] = {"runs": runs, **medians}
        print(f"SimBake add-on share: {case}: whole {medians['whole_s']:.3f} s, solver {medians['solver_s']:.3f} s, "
              f"add-on {medians['addon_s']:.3f} s ({100 * medians['addon_share']:.1f}%), medians of "
              f"{args.repeats}", flush=True)
        if args.profile:
            objects = CASES[case]()
            profile = cProfile.Profile()
            profile.enable()
            one_bake(objects)
            profile.disable()
            pstats.Stats(profile).sort_stats(args.sort).print_stats(25)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(results, f, indent=2)


main()
