// The shadow map's casters rasterized in compute (raster.wgsl, its shadow runs) merged with
// what the rasterizer drew into the map (the nearer of the two) and packed as the 16-bit
// depth texture's rows, two texels a word, for a copy into it.

// Per texel, the nearest biased depth's bits inverted; 0 where none. The pack zeroes what it
// read, so the next frame's raster starts from an empty map without a clear.
@group(0) @binding(0) var<storage, read_write> shadow_nearest: array<u32>;
@group(0) @binding(1) var<storage, read_write> packed: array<u32>;
// x: the map's size in texels.
@group(0) @binding(2) var<uniform> map: vec4<u32>;
@group(0) @binding(3) var drawn: texture_depth_2d;

fn unorm16(texel: u32) -> u32 {
    var depth = textureLoad(drawn, vec2<u32>(texel % map.x, texel / map.x), 0);
    let key = shadow_nearest[texel];
    if key != 0u {
        depth = min(depth, bitcast<f32>(~key));
        shadow_nearest[texel] = 0u;
    }
    return u32(round(clamp(depth, 0.0, 1.0) * 65535.0));
}

@compute @workgroup_size(64)
fn cs_pack(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let word = id.x + id.y * groups.x * 64u;
    if word >= map.x * map.x / 2u {
        return;
    }
    packed[word] = unorm16(2u * word) | (unorm16(2u * word + 1u) << 16u);
}
