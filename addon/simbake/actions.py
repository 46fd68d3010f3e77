"""Actions on every Blender the add-on supports. From 4.4 actions are layered: an animated
ID block plays one slot of its action, and that slot's F-curves live in a channelbag of the
action's keyframe strip (5.0 removed the flat Action.fcurves that 3.4 to 4.3 have; 4.3 has
slots only as an experiment, so it takes the flat path). The add-on makes, reads and assigns
actions only through here."""

from array import array

import bpy

LAYERED = bpy.app.version >= (4, 4, 0)
LINEAR_INTERPOLATION = 1  # Keyframe.interpolation enum value of 'LINEAR' for foreach_set


def playing(idblock):
    """What animates `idblock` now, as plain values for a bake record: whether it has
    animation data, the name of its action and the identifier of its slot (None without)."""
    anim = idblock.animation_data
    action = anim.action if anim is not None else None
    slot = anim.action_slot if LAYERED and action is not None else None
    return {"animation_data": anim is not None, "action": action.name if action else None,
            "slot": slot.identifier if slot is not None else None}


def play(idblock, action_name, slot_identifier=None):
    """Makes `idblock` play the named action (None: no action) in the named slot, if the
    action has it (otherwise the slot Blender picks when the action is assigned)."""
    if action_name is None and idblock.animation_data is None:
        return
    anim = idblock.animation_data or idblock.animation_data_create()
    action = bpy.data.actions.get(action_name) if action_name else None
    anim.action = action
    if LAYERED and action is not None and slot_identifier:
        slot = action.slots.get(slot_identifier)
        if slot is not None:
            anim.action_slot = slot


class Channels:
    """The F-curves that animate one ID block from one action: the action's own (3.4 to 4.3)
    or those of the ID block's slot (4.4 and later)."""

    def __init__(self, action, idblock, slot_identifier=None):
        self.action = action
        self.slot = None
        if LAYERED:
            self.slot = action.slots.get(slot_identifier) if slot_identifier else None
            if self.slot is None:
                self.slot = action.slots.new(id_type=idblock.id_type, name=idblock.name)
            layer = action.layers[0] if len(action.layers) else action.layers.new("Layer")
            strip = layer.strips[0] if len(layer.strips) else layer.strips.new(type="KEYFRAME")
            self._bag = strip.channelbag(self.slot, ensure=True)

    @property
    def fcurves(self):
        return self._bag.fcurves if LAYERED else self.action.fcurves

    def new(self, data_path, index=0, group=""):
        if not LAYERED:
            return self.action.fcurves.new(data_path, index=index, action_group=group)
        curve = self._bag.fcurves.new(data_path, index=index)  # 4.4 and 4.5 take no group name here
        if group:
            curve.group = self._bag.groups.get(group) or self._bag.groups.new(group)
        return curve

    def remove(self, data_paths):
        """Removes the F-curves of these data paths."""
        for curve in [c for c in self.fcurves if c.data_path in data_paths]:
            self.fcurves.remove(curve)

    @property
    def slot_identifier(self):
        return self.slot.identifier if self.slot is not None else None

    def name_slot(self, idblock):
        """Names the slot after `idblock` (as new() names a slot it makes): a copied action's slot
        keeps the name of the ID block its original was made for."""
        if self.slot is not None and self.slot.name_display != idblock.name:
            self.slot.name_display = idblock.name

    def assign_to(self, idblock):
        """Makes `idblock` play this action, from these channels' slot."""
        anim = idblock.animation_data or idblock.animation_data_create()
        anim.action = self.action
        if LAYERED:
            anim.action_slot = self.slot


def _floats(values):
    return values if isinstance(values, array) and values.typecode == "f" else array("f", values)


def pairs(frames, values):
    """Keys' (frame, value) pairs, flat float32, as foreach_set("co") takes them."""
    co = array("f", bytes(8 * len(frames)))
    co[0::2] = _floats(frames)
    co[1::2] = _floats(values)
    return co


def key_linear(curve, frames, values, linear=None):
    """Fills an empty F-curve with LINEAR keys (frame, value): key_pairs of their pairs()."""
    key_pairs(curve, pairs(frames, values), linear)


def key_pairs(curve, co, linear=None):
    """Fills an empty F-curve with LINEAR keys from `co`, their (frame, value) pairs flat in a
    float32 buffer that foreach_set copies whole (an array("f") or a contiguous float32 numpy
    array), in two bulk calls; `linear`: the int array of LINEAR_INTERPOLATION as long as the
    keys (shared by the curves of a bake). update() sorts the keys and sets their handles."""
    count = len(co) // 2
    points = curve.keyframe_points
    points.add(count)
    points.foreach_set("co", co)
    if linear is None or len(linear) != count:
        linear = array("i", [LINEAR_INTERPOLATION]) * count
    points.foreach_set("interpolation", linear)
    curve.update()


def rekey(curve, co):
    """Writes the values of an F-curve's keys again, from `co` (key_pairs'), keeping everything
    else of them (interpolation, handle types); update() sets their handles for the new values."""
    points = curve.keyframe_points
    if len(points) != len(co) // 2:
        raise ValueError(f"rekey: {curve.data_path}[{curve.array_index}] has {len(points)} keys, not {len(co) // 2}")
    points.foreach_set("co", co)
    curve.update()


def animated_paths(idblock):
    """The data paths that the ID block's own action animates it by (empty without one)."""
    anim = idblock.animation_data
    action = anim.action if anim is not None else None
    if action is None:
        return set()
    if not LAYERED:
        return {c.data_path for c in action.fcurves}
    slot = anim.action_slot
    bags = [strip.channelbag(slot) for layer in action.layers for strip in layer.strips] if slot else []
    return {c.data_path for bag in bags if bag is not None for c in bag.fcurves}
