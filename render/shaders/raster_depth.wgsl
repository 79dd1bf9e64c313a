// The compute raster's merged depth laid into the depth attachment before what the mesh
// passes draw over the resolve (outlines, see-through surfaces), so that they hide behind far
// objects rasterized in compute as behind any other: one triangle over the screen, each
// fragment writing its pixel's merged depth (compute_raster.rs).

@group(0) @binding(0) var merged_depth: texture_2d<f32>;

@vertex
fn vs_screen(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let corner = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    return vec4<f32>(corner * 2.0 - 1.0, 0.0, 1.0);
}

struct DepthOut {
    @builtin(frag_depth) depth: f32,
}

@fragment
fn fs_merged_depth(@builtin(position) at: vec4<f32>) -> DepthOut {
    return DepthOut(textureLoad(merged_depth, vec2<u32>(at.xy), 0).r);
}
