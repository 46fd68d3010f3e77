"""The modal bake in real (not background) Blender, under Xvfb:

    xvfb-run -a blender --factory-startup --enable-event-simulate -P tests/ui/test_modal_bake.py

1. starts the bake as the UI does (INVOKE_DEFAULT), waits until some frames are done,
   presses Esc (a simulated event) and checks that the scene is exactly as before;
2. starts it again, lets it finish, and checks the result and what the Bake panel shows.

Blender's UI runs the test from a timer; the process exits 0 only if every check passed."""

import os
import sys
import tempfile
import threading
import time
import traceback

import bpy

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "blender"))

import blender_test  # noqa: E402  (registers the add-on)
from simbake import bake_state, outputs, ui  # noqa: E402

TIME_LIMIT = 600.0  # s: a hung UI must not hang CI
FRAMES = 40


def build_scene():
    """A cloth with animated shape keys and a pin group held by an animated object, a
    rigid cube with its own keyframes on a channel SimBake does not bake, a floor, a rope of
    loose edges (role Strands) and hair (a Curves object, which SimBake does not bake)."""
    # reading factory settings again would leave this script's context without a window, so
    # the factory startup scene is emptied instead
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)
    folder = tempfile.mkdtemp(prefix="simbake-ui-test-")
    bpy.ops.wm.save_as_mainfile(filepath=os.path.join(folder, "scene.blend"))
    scene = bpy.context.scene
    scene.simbake.frame_start, scene.simbake.frame_end = 1, FRAMES
    cloth = blender_test.grid_object("Cloth", size=1.0, cuts=19, location=(0.0, 0.0, 1.2))
    cloth.simbake.self_collision = True
    cloth.shape_key_add(name="Basis")
    wave = cloth.shape_key_add(name="Wave")
    for i, point in enumerate(wave.data):
        point.co.z += 0.02 * (i % 3)
    wave.value = 0.0
    wave.keyframe_insert("value", frame=1)
    wave.value = 1.0
    wave.keyframe_insert("value", frame=20)
    pin = cloth.vertex_groups.new(name="pin")
    pin.add([0, 19], 1.0, "REPLACE")
    cloth.simbake.pin_group = "pin"
    cloth.keyframe_insert("location", frame=1)
    cloth.location.x = 0.3
    cloth.keyframe_insert("location", frame=FRAMES)

    bpy.ops.mesh.primitive_cube_add(size=0.3, location=(0.1, 0.1, 2.0))
    cube = bpy.context.object
    cube.name = "Cube"
    cube.simbake.role = "RIGID"
    cube.simbake.shape = "BOX"
    cube.keyframe_insert("scale", frame=1)  # its own animation on a channel the bake leaves alone

    bpy.ops.mesh.primitive_plane_add(size=4.0, location=(0.0, 0.0, 0.0))
    floor = bpy.context.object
    floor.name = "Floor"
    floor.simbake.role = "COLLIDER"

    mesh = bpy.data.meshes.new("Rope")
    mesh.from_pydata([(-1.0 + 0.1 * i, 0.8, 1.5) for i in range(6)], [(i, i + 1) for i in range(5)], [])
    rope = bpy.data.objects.new("Rope", mesh)
    scene.collection.objects.link(rope)
    rope.vertex_groups.new(name="root").add([0], 1.0, "REPLACE")
    rope.simbake.role = "STRANDS"
    rope.simbake.pin_group = "root"
    bpy.ops.object.curves_random_add(location=(1.5, 1.5, 0.0))
    bpy.context.object.name = "Hair"
    scene.frame_set(7)
    bpy.ops.wm.save_mainfile()
    return folder


def scene_state(folder):
    """Everything a cancelled bake must leave as it was."""
    state = blender_test.objects_state()
    state.update(frame=bpy.context.scene.frame_current,
                 scene=blender_test.rna_values(bpy.context.scene.simbake),
                 actions=sorted((a.name, a.users, a.use_fake_user, len(blender_test.action_fcurves(a))) for a in bpy.data.actions),
                 files=sorted(os.path.relpath(os.path.join(root, name), folder)
                              for root, dirs, files in os.walk(folder) for name in dirs + files))
    return state


def ui_context():
    window = bpy.context.window_manager.windows[0]
    area = max(window.screen.areas, key=lambda a: a.width * a.height)
    return window, area


def invoke_bake():
    window, area = ui_context()
    with bpy.context.temp_override(window=window, area=area, screen=window.screen):
        return bpy.ops.simbake.bake("INVOKE_DEFAULT")


def wait_until(condition, seconds, what):
    """Yields (letting Blender run) until condition() holds."""
    end = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        yield


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def draw_panels(area, obj, tab):
    """Draws the Properties editor's `tab` with `obj` active; returns the SimBake panels
    that drew, the lines the Bake panel showed, and any error a draw raised."""
    drawn, lines, errors = [], [], []
    originals = {cls: cls.draw for cls in ui.CLASSES}

    def recording(cls, draw):
        def wrapper(panel, context):
            try:
                draw(panel, context)
            except Exception:
                errors.append(traceback.format_exc())
                raise
            drawn.append(cls.__name__)
            if cls is ui.SIMBAKE_PT_object_bake and outputs.is_baked(context.object):
                lines.extend(bake_state.describe(outputs.load_record(context.object)))
        return wrapper

    for cls, draw in originals.items():
        cls.draw = recording(cls, draw)
    try:
        bpy.context.view_layer.objects.active = obj
        area.spaces.active.context = tab
        window = bpy.context.window_manager.windows[0]
        with bpy.context.temp_override(window=window, area=area):
            bpy.ops.wm.redraw_timer(type="DRAW_WIN_SWAP", iterations=1)
    finally:
        for cls, draw in originals.items():
            cls.draw = draw
    return set(drawn), lines, errors


def properties_area():
    window = bpy.context.window_manager.windows[0]
    return next(area for area in window.screen.areas if area.type == "PROPERTIES")


def steps(folder):
    wm = bpy.context.window_manager
    cloth = bpy.data.objects["Cloth"]
    bpy.context.view_layer.objects.active = cloth
    before = scene_state(folder)
    yield

    # 1. start, let a few frames pass, press Esc
    check(invoke_bake() == {"RUNNING_MODAL"}, "the bake did not start as a modal operator")
    yield from wait_until(lambda: wm.simbake_progress >= 10.0, 300, "10% of the bake")
    check(wm.simbake_baking, "the bake ended before Esc")
    check("Esc to cancel" in wm.simbake_status, f"status bar text: {wm.simbake_status!r}")
    progress_at_cancel = wm.simbake_progress
    window = wm.windows[0]
    window.event_simulate(type="ESC", value="PRESS")
    window.event_simulate(type="ESC", value="RELEASE")
    yield from wait_until(lambda: not wm.simbake_baking, 120, "the bake to stop after Esc")
    print(f"SimBake test: cancelled at {progress_at_cancel:.0f}%", flush=True)
    check(progress_at_cancel < 100.0, "the bake had finished before Esc")
    after = scene_state(folder)
    for key in before:
        check(after[key] == before[key], f"cancelling changed {key}:\n before {before[key]}\n after  {after[key]}")
    check(not any(outputs.is_baked(obj) for obj in bpy.context.scene.objects), "an object is marked baked")

    # 2. a bake that finishes: the result is in place and the panel shows it
    check(invoke_bake() == {"RUNNING_MODAL"}, "the second bake did not start")
    yield from wait_until(lambda: not wm.simbake_baking, 400, "the bake to finish")
    for name in ("Cloth", "Cube", "Rope"):
        record = outputs.load_record(bpy.data.objects[name])
        check(record is not None and record["frames"] == [1, FRAMES], f"{name} is not baked: {record}")
    bpy.context.scene.frame_set(FRAMES)
    cube_z = bpy.data.objects["Cube"].matrix_world.translation.z
    check(cube_z < 1.0, f"the cube did not fall (z = {cube_z:.3f} at the last frame)")
    area = properties_area()
    drawn, lines, errors = draw_panels(area, bpy.data.objects["Cloth"], "PHYSICS")
    print(f"SimBake test: Bake panel shows {lines}", flush=True)
    check(not errors, "a panel failed to draw:\n" + "\n".join(errors))
    check(any(line.startswith(f"Baked frames 1-{FRAMES}") for line in lines), f"panel lines {lines}")
    check(any(line.startswith("Cache ") and ("KB" in line or "MB" in line) for line in lines), f"panel lines {lines}")
    check(any(line.startswith("Last bake") for line in lines), f"panel lines {lines}")
    expected = {
        ("Cloth", "PHYSICS"): {"SIMBAKE_PT_object", "SIMBAKE_PT_cloth", "SIMBAKE_PT_cloth_stiffness",
                               "SIMBAKE_PT_cloth_collisions", "SIMBAKE_PT_object_bake"},
        ("Cube", "PHYSICS"): {"SIMBAKE_PT_object", "SIMBAKE_PT_rigid", "SIMBAKE_PT_rigid_surface"},
        ("Floor", "PHYSICS"): {"SIMBAKE_PT_object", "SIMBAKE_PT_collider"},
        ("Rope", "PHYSICS"): {"SIMBAKE_PT_object", "SIMBAKE_PT_strands", "SIMBAKE_PT_strands_strain_limit",
                              "SIMBAKE_PT_object_bake"},
        ("Hair", "PHYSICS"): {"SIMBAKE_PT_hair"},
        ("Floor", "SCENE"): {"SIMBAKE_PT_scene", "SIMBAKE_PT_scene_output", "SIMBAKE_PT_scene_bake"},
    }
    for (name, tab), panels in expected.items():
        drawn, _, errors = draw_panels(area, bpy.data.objects[name], tab)
        check(not errors, f"{name}, {tab}: a panel failed to draw:\n" + "\n".join(errors))
        check(panels <= drawn, f"{name}, {tab}: missing panels {sorted(panels - drawn)}")
        check(not (name != "Cloth" and "SIMBAKE_PT_cloth" in drawn), f"{name}: the cloth panel shows")


def run():
    runner = steps(build_scene())  # before the UI's event loop starts: the usual context

    def tick():
        try:
            next(runner)
        except StopIteration:
            print("SimBake test: modal bake OK", flush=True)
            os._exit(0)
        except Exception:
            traceback.print_exc()
            sys.stdout.flush()
            os._exit(1)
        return 0.1

    def watchdog():
        time.sleep(TIME_LIMIT)
        print(f"SimBake test: no result after {TIME_LIMIT:.0f} s", flush=True)
        os._exit(2)

    threading.Thread(target=watchdog, daemon=True).start()
    bpy.app.timers.register(tick, first_interval=1.0, persistent=True)


run()
