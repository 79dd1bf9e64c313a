# Writes a glTF binary's skinned body and its animations as a binary FBX (7.4) the way Mixamo
# downloads look: centimetres with UnitScaleFactor 1, Y up, bones named as in the glTF
# (mixamorig:Hips ...), no leaf bones, one take per glTF animation named after it.
# Debian's blender 3.4 (with python3-numpy) runs it headless:
#   blender -b --factory-startup -noaudio --python-exit-code 1 --python glb2fbx.py -- IN.glb OUT.fbx [FPS]
# tests/fbx_clips.rs runs it (npc_blender in scripts/setup.sh installs Blender).
import bpy, sys
import numpy as np
# Debian's Blender 3.4 glTF importer still names np.bool, gone since numpy 1.24.
if not hasattr(np, "bool"):
    np.bool = bool
argv = sys.argv[sys.argv.index("--") + 1:]
src, dst = argv[0], argv[1]
fps = int(argv[2]) if len(argv) > 2 else 30
for ob in list(bpy.data.objects):
    bpy.data.objects.remove(ob, do_unlink=True)
sc = bpy.context.scene
sc.render.fps, sc.render.fps_base = fps, 1.0
sc.unit_settings.system = 'METRIC'
sc.unit_settings.scale_length = 0.01
bpy.ops.import_scene.gltf(filepath=src, bone_heuristic='BLENDER', guess_original_bind_pose=True, merge_vertices=False)
for ob in bpy.data.objects:
    ad = ob.animation_data
    for tr in (ad.nla_tracks if ad else []):
        tr.mute, tr.lock = False, False
        for st in tr.strips:
            st.name = tr.name
            st.mute = False
bpy.ops.export_scene.fbx(
    filepath=dst, use_selection=False, object_types={'ARMATURE', 'MESH'},
    apply_unit_scale=True, apply_scale_options='FBX_SCALE_NONE', global_scale=1.0,
    axis_forward='-Z', axis_up='Y', use_space_transform=True, bake_space_transform=False,
    add_leaf_bones=False, primary_bone_axis='Y', secondary_bone_axis='X',
    use_armature_deform_only=False, armature_nodetype='NULL', mesh_smooth_type='OFF',
    bake_anim=True, bake_anim_use_all_bones=True, bake_anim_use_nla_strips=True,
    bake_anim_use_all_actions=False, bake_anim_force_startend_keying=True,
    bake_anim_step=1.0, bake_anim_simplify_factor=0.0,
    path_mode='COPY', embed_textures=True, batch_mode='OFF')
