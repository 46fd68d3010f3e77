"""Panels in the Physics tab of the Properties editor."""

import textwrap

import bpy

from . import native, outputs, scene_io, settings


class SimBakePanel:
    bl_space_type = "PROPERTIES"
    bl_region_type = "WINDOW"
    bl_context = "physics"


class SIMBAKE_PT_object(SimBakePanel, bpy.types.Panel):
    bl_label = "SimBake"

    @classmethod
    def poll(cls, context):
        return context.object is not None and context.object.type in scene_io.COLLIDER_TYPES

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        obj = context.object
        available, detail = native.availability()
        if not available:
            box = layout.box()
            box.label(text="SimBake's native library is not available", icon="ERROR")
            for line in textwrap.wrap(detail, 60):
                box.label(text=line)
            return
        layout.prop(obj.simbake, "role")
        role = settings.resolve_role(obj)
        if obj.simbake.role == "NONE" and role != "NONE":
            layout.label(text=f"Baked as {role.title()} from Blender's physics settings", icon="INFO")
        if outputs.is_baked(obj):
            record = outputs.load_record(obj)
            layout.label(text=f"Baked frames {record['frames'][0]}-{record['frames'][1]}", icon="CHECKMARK")
        row = layout.row(align=True)
        row.operator("simbake.bake", icon="PHYSICS")
        row.operator("simbake.free_bake", icon="TRASH")


class SIMBAKE_PT_cloth(SimBakePanel, bpy.types.Panel):
    bl_label = "Cloth"
    bl_parent_id = "SIMBAKE_PT_object"

    @classmethod
    def poll(cls, context):
        obj = context.object
        return obj is not None and obj.type == "MESH" and obj.simbake.role == "CLOTH"

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        props = context.object.simbake
        col = layout.column()
        col.prop(props, "density")
        col.prop(props, "stretch_stiffness")
        col.prop(props, "shear_stiffness")
        col.prop(props, "bend_stiffness")
        col.prop(props, "damping")
        col.prop(props, "air_drag")
        layout.prop_search(props, "pin_group", context.object, "vertex_groups", text="Pin Group")


class SIMBAKE_PT_cloth_collisions(SimBakePanel, bpy.types.Panel):
    bl_label = "Collisions"
    bl_parent_id = "SIMBAKE_PT_cloth"

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        props = context.object.simbake
        layout.prop(props, "thickness")
        layout.prop(props, "friction")
        layout.prop(props, "self_collision")


class SIMBAKE_PT_rigid(SimBakePanel, bpy.types.Panel):
    bl_label = "Rigid Body"
    bl_parent_id = "SIMBAKE_PT_object"

    @classmethod
    def poll(cls, context):
        obj = context.object
        return obj is not None and obj.simbake.role == "RIGID"

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        props = context.object.simbake
        layout.prop(props, "shape")
        col = layout.column()
        col.prop(props, "mass")
        col.prop(props, "friction")
        col.prop(props, "restitution")
        layout.prop(props, "initial_velocity")
        layout.prop(props, "initial_angular_velocity")


class SIMBAKE_PT_collider(SimBakePanel, bpy.types.Panel):
    bl_label = "Collider"
    bl_parent_id = "SIMBAKE_PT_object"

    @classmethod
    def poll(cls, context):
        obj = context.object
        return obj is not None and obj.simbake.role == "COLLIDER"

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        props = context.object.simbake
        layout.prop(props, "thickness")
        layout.prop(props, "friction")
        layout.prop(props, "restitution")


class SIMBAKE_PT_scene(SimBakePanel, bpy.types.Panel):
    bl_label = "SimBake Scene"
    bl_parent_id = "SIMBAKE_PT_object"
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        props = context.scene.simbake
        col = layout.column(align=True)
        col.prop(props, "frame_start", text="Frame Start")
        col.prop(props, "frame_end", text="End")
        layout.prop(props, "substeps")
        layout.prop(props, "tolerance")
        layout.prop(props, "use_scene_gravity")
        layout.prop(props, "cache_dir")
        layout.prop(props, "cloth_output")
        if props.last_bake_message:
            layout.label(text=props.last_bake_message, icon="INFO")


CLASSES = (SIMBAKE_PT_object, SIMBAKE_PT_cloth, SIMBAKE_PT_cloth_collisions, SIMBAKE_PT_rigid,
           SIMBAKE_PT_collider, SIMBAKE_PT_scene)

register, unregister = bpy.utils.register_classes_factory(CLASSES)
