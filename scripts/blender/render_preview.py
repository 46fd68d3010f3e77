"""Renders one frame of the open .blend to a PNG (inside Blender).

    blender -b FILE.blend -P scripts/blender/render_preview.py -- OUT.png [FRAME]
"""

import os
import sys

import bpy

argv = sys.argv[sys.argv.index("--") + 1:]
output = os.path.abspath(argv[0])
scene = bpy.context.scene
frame = int(argv[1]) if len(argv) > 1 else scene.frame_end
scene.frame_set(frame)
scene.render.filepath = output
scene.render.image_settings.file_format = "PNG"
if scene.render.engine == "CYCLES":
    scene.cycles.use_denoising = False  # not every Blender build has a denoiser
bpy.ops.render.render(write_still=True)
print(f"SimBake: preview of frame {frame} written to {output}")
