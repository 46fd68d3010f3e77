"""SimBake settings stored on objects (Object.simbake) and scenes (Scene.simbake)."""

import bpy
from bpy.props import (BoolProperty, EnumProperty, FloatProperty, FloatVectorProperty,
                       IntProperty, PointerProperty, StringProperty)

ROLE_ITEMS = [
    ("NONE", "None", "Use the object's Blender physics (rigid body, cloth or collision), if any"),
    ("CLOTH", "Cloth", "Simulate the mesh as cloth"),
    ("RIGID", "Rigid Body", "Simulate the object as a rigid body"),
    ("COLLIDER", "Collider", "Other objects collide with it; it follows its own animation"),
    ("STRANDS", "Strands", "Simulate the mesh's loose edges as strands: hair, ropes, cables"),
]

SHAPE_ITEMS = [
    ("CONVEX_HULL", "Convex Hull", "The convex hull of the mesh"),
    ("BOX", "Box", "The mesh's bounding box"),
    ("SPHERE", "Sphere", "A sphere around the mesh"),
    ("MESH", "Mesh", "The triangle mesh itself"),
    ("CAPSULE", "Capsule", "A capsule along the object's local Z around the mesh's bounding box"),
    ("CYLINDER", "Cylinder", "A cylinder along the object's local Z around the mesh's bounding box"),
    ("CONE", "Cone", "A cone along the object's local Z, apex up, around the mesh's bounding box"),
]


class SimBakeObjectSettings(bpy.types.PropertyGroup):
    role: EnumProperty(name="Role", items=ROLE_ITEMS, default="NONE",
                       description="How SimBake treats this object")

    # rigid body
    mass: FloatProperty(name="Mass", default=1.0, min=1e-6, soft_max=1e4, unit="MASS",
                        description="Mass of the rigid body (kg); its inertia follows from its shape")
    restitution: FloatProperty(name="Restitution", default=0.0, min=0.0, max=1.0,
                               description="Bounciness; a contact uses the product of both objects' values")
    shape: EnumProperty(name="Shape", items=SHAPE_ITEMS, default="CONVEX_HULL")
    initial_velocity: FloatVectorProperty(name="Initial Velocity", size=3, subtype="VELOCITY",
                                          unit="VELOCITY", description="World-space velocity at the start (m/s)")
    initial_angular_velocity: FloatVectorProperty(
        name="Initial Angular Velocity", size=3, subtype="XYZ",
        description="World-space angular velocity at the start (rad/s)")
    feels_cloth: BoolProperty(
        name="Feels Cloth", default=True,
        description="Two-way coupling: the cloth of the bake pushes this moving body back (its contacts and "
                    "friction, momentum kept), so it rests on cloth and drags it; off: the body moves as if the "
                    "cloth were not there (one way, as Blender's own rigid bodies do)")

    # cloth
    density: FloatProperty(name="Density", default=0.15, min=1e-6, soft_max=10.0, precision=3,
                           description="Mass per area of the cloth (kg/m²)")
    stretch_stiffness: FloatProperty(name="Stretch", default=2000.0, min=0.0, soft_max=1e5,
                                     description="Resistance to stretching along warp and weft (N/m)")
    shear_stiffness: FloatProperty(name="Shear", default=200.0, min=0.0, soft_max=1e5,
                                   description="Resistance to shearing (N/m)")
    bend_stiffness: FloatProperty(name="Bend", default=1e-5, min=0.0, soft_max=1.0, precision=6,
                                  description="Resistance to bending (N·m)")
    damping: FloatProperty(name="Damping", default=0.01, min=0.0, soft_max=1.0, precision=4, unit="TIME",
                           description="Internal damping: each stiffness damped with damping × stiffness (s)")
    air_drag: FloatProperty(name="Air Drag", default=0.1, min=0.0, soft_max=10.0,
                            description="Drag of still air on the cloth (kg/(m² s))")
    pin_group: StringProperty(name="Pin Group",
                              description="Vertex group whose vertices (weight 0.5 or more) follow the "
                                          "object's own animation")
    thickness: FloatProperty(name="Thickness", default=0.005, min=0.0, soft_max=0.1, unit="LENGTH",
                             precision=4, description="Half-thickness for collisions: cloth keeps this far "
                                                      "(plus the other object's) from colliders and cloth (m)")
    self_collision: BoolProperty(name="Self Collision", default=False,
                                 description="Keep the cloth from passing through itself")
    self_thickness: FloatProperty(name="Self Thickness", default=0.0, min=0.0, soft_max=0.1, unit="LENGTH",
                                  precision=4, description="Half of the gap two parts of this cloth keep "
                                                           "between them (m); 0: the same as Thickness")
    friction: FloatProperty(name="Friction", default=0.5, min=0.0, soft_max=2.0,
                            description="Coulomb friction; a contact uses the product of both objects' values")
    max_stretch: FloatProperty(name="Max Stretch", default=0.1, min=0.0, max=10.0, soft_max=1.0, precision=3,
                               description="Strain limit: no edge ever longer than 1 + this times its rest "
                                           "length at the end of a step (fraction: 0.1 is 10%, as woven "
                                           "cloth; 0: no limit)")
    # off by default: with both limits at 10% the curtain sample, gathered along its rail, blew
    # up at frame 41 (2360 m/s); the stretch limit alone bakes it
    max_compression: FloatProperty(name="Max Compression", default=0.0, min=0.0, max=0.99, precision=3,
                                   description="Strain limit: no edge ever shorter than 1 - this times its rest "
                                               "length at the end of a step; woven cloth buckles rather than "
                                               "compressing in its plane (fraction; 0: no limit)")

    # strands (also use damping, thickness, friction and pin_group above); defaults: a cord of
    # 10 g/m, the library's sb_default_strand_def
    strand_mass_per_length: FloatProperty(name="Mass per Length", default=0.01, min=1e-6, soft_max=10.0,
                                          precision=4, description="Mass of a metre of strand (kg/m)")
    strand_stretch_stiffness: FloatProperty(
        name="Stretch", default=1e4, min=0.0, soft_max=1e7,
        description="Resistance to stretching, EA (N): the force that would double a strand's length")
    strand_bend_stiffness: FloatProperty(
        name="Bend", default=1e-4, min=0.0, soft_max=1.0, precision=6,
        description="Resistance to bending, EI (N·m²); 0: limp. The strand's rest shape is the bend it keeps")
    strand_air_drag: FloatProperty(name="Air Drag", default=0.01, min=0.0, soft_max=10.0, precision=4,
                                   description="Drag of still air on a metre of strand (kg/(m s))")
    # the library's strand strain limits (sb_strand_def), 10% each way by default: a strand
    # buckles into bending rather than shortening along itself
    strand_max_stretch: FloatProperty(
        name="Max Stretch", default=0.1, min=0.0, max=10.0, soft_max=1.0, precision=3,
        description="Strain limit: no segment ever longer than 1 + this times its rest length at the end of a "
                    "step (fraction: 0.1 is 10%; 0: no limit)")
    strand_max_compression: FloatProperty(
        name="Max Compression", default=0.1, min=0.0, max=0.99, precision=3,
        description="Strain limit: no segment ever shorter than 1 - this times its rest length at the end of a "
                    "step (fraction: 0.1 is 10%; 0: no limit)")

    # bookkeeping of a bake in place (JSON), so free_bake can restore the object exactly
    bake_record: StringProperty(options={"HIDDEN"})


class SimBakeSceneSettings(bpy.types.PropertyGroup):
    frame_start: IntProperty(name="Start", default=1, min=0, description="First frame of the bake")
    frame_end: IntProperty(name="End", default=250, min=1, description="Last frame of the bake")
    substeps: IntProperty(name="Substeps", default=1, min=1, max=100,
                          description="Largest solver steps per frame (the solver may take smaller ones)")
    use_scene_gravity: BoolProperty(name="Scene Gravity", default=True,
                                    description="Use the scene's gravity; otherwise 9.81 m/s² downwards")
    tolerance: FloatProperty(name="Tolerance", default=1e-3, min=1e-12, max=0.1, precision=7,
                             description="Relative residual at which each step's linear solve stops "
                                         "(Blender's own cloth stops at 1e-2)")
    cache_dir: StringProperty(name="Cache Folder", default="//simbake_cache/", subtype="DIR_PATH",
                              description="Where cloth caches go ('//' is the .blend file's folder; the default "
                                          "gives each .blend a subfolder of its own)")
    cloth_output: EnumProperty(
        name="Cloth Output", default="MESH_CACHE",
        items=[("MESH_CACHE", "Mesh Cache", "A PC2 file and a Mesh Cache modifier named SimBake"),
               ("SHAPE_KEYS", "Shape Keys", "One animated shape key per frame, stored in the .blend")])
    keep_frames_on_failure: BoolProperty(
        name="Keep Frames on Failure", default=False,
        description="When the solver gives up at a frame, bake the frames simulated before it; "
                    "otherwise the scene is left as it was")
    last_bake_seconds: FloatProperty(options={"HIDDEN"})
    last_bake_message: StringProperty(options={"HIDDEN"})
    last_bake_warnings: StringProperty(options={"HIDDEN"})  # one a line: what the last bake did not carry over


CLASSES = (SimBakeObjectSettings, SimBakeSceneSettings)


_register_classes, _unregister_classes = bpy.utils.register_classes_factory(CLASSES)


def register():
    _register_classes()
    bpy.types.Object.simbake = PointerProperty(type=SimBakeObjectSettings)
    bpy.types.Scene.simbake = PointerProperty(type=SimBakeSceneSettings)
    # the state of a bake running in the UI: on the window manager, never saved with the file
    bpy.types.WindowManager.simbake_baking = BoolProperty(options={"HIDDEN", "SKIP_SAVE"})
    bpy.types.WindowManager.simbake_progress = FloatProperty(
        name="Progress", subtype="PERCENTAGE", min=0.0, max=100.0, options={"SKIP_SAVE"})
    bpy.types.WindowManager.simbake_status = StringProperty(options={"HIDDEN", "SKIP_SAVE"})


def unregister():
    del bpy.types.WindowManager.simbake_status
    del bpy.types.WindowManager.simbake_progress
    del bpy.types.WindowManager.simbake_baking
    del bpy.types.Scene.simbake
    del bpy.types.Object.simbake
    _unregister_classes()
