// The sky: three cubemaps (day, noon, night) blended by the time of day, with a warm tint
// low in the sky at sunrise and sunset. Drawn as one triangle covering the screen, at the far
// plane behind everything. Prefixed with globals.wgsl.

@group(1) @binding(0) var sky_day: texture_cube<f32>;
@group(1) @binding(1) var sky_noon: texture_cube<f32>;
@group(1) @binding(2) var sky_night: texture_cube<f32>;
@group(1) @binding(3) var sky_sampler: sampler;

struct SkyOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) ndc: vec2<f32>,
}

@vertex
fn vs_sky(@builtin(vertex_index) i: u32) -> SkyOut {
    let xy = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u)) * 2.0 - 1.0;
    var out: SkyOut;
    out.clip = vec4<f32>(xy, 1.0, 1.0);
    out.ndc = xy;
    return out;
}

// The sky's display colour seen at `ndc`.
fn sky_display(ndc: vec2<f32>, level: f32) -> vec3<f32> {
    let far = globals.inverse_view_proj * vec4<f32>(ndc, 1.0, 1.0);
    let near = globals.inverse_view_proj * vec4<f32>(ndc, 0.0, 1.0);
    let dir = normalize(far.xyz / far.w - near.xyz / near.w);
    let w = globals.sky_weights;
    var color = w.x * textureSampleLevel(sky_day, sky_sampler, dir, level).rgb
        + w.y * textureSampleLevel(sky_noon, sky_sampler, dir, level).rgb
        + w.z * textureSampleLevel(sky_night, sky_sampler, dir, level).rgb;
    // Warm band near the horizon at sunrise and sunset.
    let low = 1.0 - clamp(abs(dir.y) * 3.0, 0.0, 1.0);
    color = mix(color, color * vec3<f32>(1.35, 0.85, 0.6), w.w * low);
    return display(color * globals.params.z);
}

@fragment
fn fs_sky(in: SkyOut) -> @location(0) vec4<f32> {
    return vec4<f32>(sky_display(in.ndc, 0.0), 1.0);
}

// The sky where the visibility pass found no surface, in the compute resolve (prefixed with
// resolve_tiles.wgsl too).
@compute @workgroup_size(8, 8)
fn cs_sky(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>) {
    let pixel = tile_pixel(group.x, local.xy);
    if any(pixel >= textureDimensions(shaded)) || textureLoad(scene_depth, pixel, 0).r < 1.0 {
        return;
    }
    store_display(pixel, sky_display(pixel_ndc(pixel), 0.0));
}
