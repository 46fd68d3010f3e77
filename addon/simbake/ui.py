"""Panels: the object's SimBake settings in the Physics tab (sub-panels per role, as
Blender's own physics panels), the scene's settings in the Scene tab, and the bake state
and buttons in both."""

import textwrap

import bpy

from . import bake_state, native, outputs, scene_io, settings


def _wrapped(layout, text, icon="NONE", width=60):
    for i, line in enumerate(textwrap.wrap(text, width)):
        layout.label(text=line, icon=icon if i == 0 else "BLANK1")


def _library_missing(layout):
    """Tells how to fix a missing or mismatched library; True if it is not usable."""
    available, detail = native.availability()
    if not available:
        box = layout.box()
        box.label(text="SimBake's native library is not available", icon="ERROR")
        _wrapped(box, detail)
    return not available


def draw_bake_controls(layout, context):
    """Progress of a running bake, or the Bake/Free buttons (all or selected)."""
    wm = context.window_manager
    if wm.simbake_baking:
        col = layout.column()
        col.prop(wm, "simbake_progress", text="Baking", slider=True)
        col.label(text=wm.simbake_status or "SimBake is baking", icon="TIME")
        col.label(text="Press Esc to cancel; the scene stays as it was", icon="BLANK1")
        return
    col = layout.column(align=True)
    row = col.row(align=True)
    row.operator("simbake.bake", text="Bake All", icon="PHYSICS").selected_only = False
    row.operator("simbake.bake", text="Bake Selected").selected_only = True
    row = col.row(align=True)
    row.operator("simbake.free_bake", text="Free All", icon="TRASH").selected_only = False
    row.operator("simbake.free_bake", text="Free Selected").selected_only = True
    message = context.scene.simbake.last_bake_message
    if message:
        _wrapped(layout, message, icon="INFO")
    for warning in filter(None, context.scene.simbake.last_bake_warnings.split("\n")):
        _wrapped(layout, warning, icon="ERROR")


class PhysicsPanel:
    bl_space_type = "PROPERTIES"
    bl_region_type = "WINDOW"
    bl_context = "physics"


class RolePanel(PhysicsPanel):
    """A sub-panel shown for objects whose SimBake role is `role`."""
    bl_parent_id = "SIMBAKE_PT_object"
    role = None
    types = scene_io.COLLIDER_TYPES

    @classmethod
    def poll(cls, context):
        obj = context.object
        return obj is not None and obj.type in cls.types and obj.simbake.role == cls.role


class SIMBAKE_PT_object(PhysicsPanel, bpy.types.Panel):
    bl_label = "SimBake"

    @classmethod
    def poll(cls, context):
        return context.object is not None and context.object.type in scene_io.COLLIDER_TYPES

    def draw(self, context):
        layout = _split_layout(self.layout)
        if _library_missing(layout):
            return
        obj = context.object
        layout.prop(obj.simbake, "role")
        role = settings.resolve_role(obj)
        if obj.simbake.role == "NONE":
            if role == "NONE":
                layout.label(text="Not simulated: choose a role, or add Blender physics", icon="INFO")
            else:
                _wrapped(layout, f"Baked as {role.title()} from Blender's own physics settings "
                                 "(see docs/blender-physics-mapping.md)", icon="INFO")


def _split_layout(layout):
    """Labels on the left, values on the right, as Blender's own property panels."""
    layout.use_property_split = True
    layout.use_property_decorate = False
    return layout


class PropertyList:
    """Draws the object's SimBake `properties`: names, or (name, label) pairs."""
    properties = ()

    def draw(self, context):
        col = _split_layout(self.layout).column()
        for item in self.properties:
            name, text = item if isinstance(item, tuple) else (item, None)
            if text is None:
                col.prop(context.object.simbake, name)
            else:
                col.prop(context.object.simbake, name, text=text)


class SIMBAKE_PT_cloth(RolePanel, PropertyList, bpy.types.Panel):
    bl_label = "Cloth"
    role, types = "CLOTH", {"MESH"}
    properties = ("density", "air_drag")


class ClothSubPanel(PhysicsPanel, PropertyList):
    bl_parent_id = "SIMBAKE_PT_cloth"


class SIMBAKE_PT_cloth_stiffness(ClothSubPanel, bpy.types.Panel):
    bl_label = "Stiffness"
    properties = ("stretch_stiffness", "shear_stiffness", "bend_stiffness")


class SIMBAKE_PT_cloth_strain_limit(ClothSubPanel, bpy.types.Panel):
    bl_label = "Strain Limit"
    properties = ("max_stretch", "max_compression")


class SIMBAKE_PT_cloth_damping(ClothSubPanel, bpy.types.Panel):
    bl_label = "Damping"
    properties = ("damping",)


class SIMBAKE_PT_cloth_shape(ClothSubPanel, bpy.types.Panel):
    bl_label = "Shape"

    def draw(self, context):
        _split_layout(self.layout).prop_search(context.object.simbake, "pin_group", context.object,
                                               "vertex_groups", text="Pin Group")


class SIMBAKE_PT_cloth_collisions(ClothSubPanel, bpy.types.Panel):
    bl_label = "Collisions"
    properties = ("thickness", "friction", "self_collision", "self_thickness")


class SIMBAKE_PT_strands(RolePanel, PropertyList, bpy.types.Panel):
    bl_label = "Strands"
    role, types = "STRANDS", {"MESH"}
    properties = ("strand_mass_per_length", "strand_stretch_stiffness", "strand_bend_stiffness", "damping",
                  "strand_air_drag", "thickness", "friction", "self_collision")

    def draw(self, context):
        _wrapped(self.layout, "Each chain of loose edges is a strand; edges meeting at a vertex of three or more "
                              "are separate strands there unless it is pinned", icon="INFO")
        _split_layout(self.layout).prop_search(context.object.simbake, "pin_group", context.object,
                                               "vertex_groups", text="Pin Group")
        super().draw(context)


class SIMBAKE_PT_strands_strain_limit(PhysicsPanel, PropertyList, bpy.types.Panel):
    bl_label = "Strain Limit"
    bl_parent_id = "SIMBAKE_PT_strands"
    properties = (("strand_max_stretch", "Max Stretch"), ("strand_max_compression", "Max Compression"))


HAIR_NOT_SUPPORTED = ("SimBake does not bake hair (Curves objects): Blender lets no Mesh Cache modifier or shape "
                      "key onto them. SimBake bakes strands from a mesh of loose edges (role Strands, or a Cloth "
                      "modifier on an edge-only mesh); in Blender 4.3 and 5.2 (not 3.4), Object > Convert > Mesh "
                      "makes one from hair")


class SIMBAKE_PT_hair(PhysicsPanel, bpy.types.Panel):
    bl_label = "SimBake"

    @classmethod
    def poll(cls, context):
        return context.object is not None and context.object.type == "CURVES"

    def draw(self, context):
        _wrapped(self.layout, HAIR_NOT_SUPPORTED, icon="INFO")


class SIMBAKE_PT_rigid(RolePanel, PropertyList, bpy.types.Panel):
    bl_label = "Rigid Body"
    role = "RIGID"
    properties = ("shape", "mass")


class SIMBAKE_PT_rigid_surface(PhysicsPanel, PropertyList, bpy.types.Panel):
    bl_label = "Surface Response"
    bl_parent_id = "SIMBAKE_PT_rigid"
    properties = ("friction", ("restitution", "Bounciness"))


class SIMBAKE_PT_rigid_motion(PhysicsPanel, PropertyList, bpy.types.Panel):
    bl_label = "Initial Motion"
    bl_parent_id = "SIMBAKE_PT_rigid"
    bl_options = {"DEFAULT_CLOSED"}
    properties = (("initial_velocity", "Velocity"), ("initial_angular_velocity", "Angular Velocity"))


class SIMBAKE_PT_cloth_coupling(PhysicsPanel, PropertyList, bpy.types.Panel):
    """Two-way coupling of a moving body with the bake's cloth: for SimBake's rigid bodies and
    Blender's active ones (role None) alike."""
    bl_label = "Cloth Coupling"
    bl_parent_id = "SIMBAKE_PT_object"
    properties = ("feels_cloth",)

    @classmethod
    def poll(cls, context):
        obj = context.object
        return obj is not None and obj.type in scene_io.COLLIDER_TYPES and settings.resolve_role(obj) == "RIGID"


class SIMBAKE_PT_collider(RolePanel, PropertyList, bpy.types.Panel):
    bl_label = "Collider"
    role = "COLLIDER"
    properties = ("thickness", "friction", ("restitution", "Bounciness"))


class SIMBAKE_PT_object_bake(PhysicsPanel, bpy.types.Panel):
    bl_label = "Bake"
    bl_parent_id = "SIMBAKE_PT_object"

    @classmethod
    def poll(cls, context):
        return native.availability()[0]

    def draw(self, context):
        layout = self.layout
        obj = context.object
        if outputs.is_baked(obj):
            box = layout.box()
            for i, line in enumerate(bake_state.describe(outputs.load_record(obj))):
                box.label(text=line, icon="CHECKMARK" if i == 0 else "BLANK1")
        elif settings.resolve_role(obj) in {"CLOTH", "RIGID", "STRANDS"}:
            layout.label(text="Not baked", icon="DOT")
        draw_bake_controls(layout, context)


class ScenePanel:
    bl_space_type = "PROPERTIES"
    bl_region_type = "WINDOW"
    bl_context = "scene"


class SIMBAKE_PT_scene(ScenePanel, bpy.types.Panel):
    bl_label = "SimBake"

    def draw(self, context):
        layout = _split_layout(self.layout)
        if _library_missing(layout):
            return
        props = context.scene.simbake
        col = layout.column(align=True)
        col.prop(props, "frame_start", text="Frame Start")
        col.prop(props, "frame_end", text="End")
        col = layout.column()
        col.prop(props, "substeps")
        col.prop(props, "tolerance")
        col.prop(props, "use_scene_gravity")


class SIMBAKE_PT_scene_output(ScenePanel, bpy.types.Panel):
    bl_label = "Output"
    bl_parent_id = "SIMBAKE_PT_scene"

    def draw(self, context):
        layout = _split_layout(self.layout)
        props = context.scene.simbake
        layout.prop(props, "cloth_output")
        layout.prop(props, "cache_dir")
        layout.prop(props, "keep_frames_on_failure")


class SIMBAKE_PT_scene_bake(ScenePanel, bpy.types.Panel):
    bl_label = "Bake"
    bl_parent_id = "SIMBAKE_PT_scene"

    @classmethod
    def poll(cls, context):
        return native.availability()[0]

    def draw(self, context):
        baked = [obj for obj in context.scene.objects if outputs.is_baked(obj)]
        if baked:
            self.layout.label(text=f"{len(baked)} object(s) baked", icon="CHECKMARK")
        draw_bake_controls(self.layout, context)


CLASSES = (SIMBAKE_PT_object, SIMBAKE_PT_cloth, SIMBAKE_PT_cloth_stiffness, SIMBAKE_PT_cloth_strain_limit,
           SIMBAKE_PT_cloth_damping,
           SIMBAKE_PT_cloth_shape, SIMBAKE_PT_cloth_collisions, SIMBAKE_PT_strands,
           SIMBAKE_PT_strands_strain_limit, SIMBAKE_PT_hair,
           SIMBAKE_PT_rigid, SIMBAKE_PT_rigid_surface,
           SIMBAKE_PT_rigid_motion, SIMBAKE_PT_cloth_coupling, SIMBAKE_PT_collider, SIMBAKE_PT_object_bake,
           SIMBAKE_PT_scene,
           SIMBAKE_PT_scene_output, SIMBAKE_PT_scene_bake)

register, unregister = bpy.utils.register_classes_factory(CLASSES)
