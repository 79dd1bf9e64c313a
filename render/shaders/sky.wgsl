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

@fragment
fn fs_sky(in: SkyOut) -> @location(0) vec4<f32> {
    let far = globals.inverse_view_proj * vec4<f32>(in.ndc, 1.0, 1.0);
    let near = globals.inverse_view_proj * vec4<f32>(in.ndc, 0.0, 1.0);
    let dir = normalize(far.xyz / far.w - near.xyz / near.w);
    let w = globals.sky_weights;
    var color = w.x * textureSample(sky_day, sky_sampler, dir).rgb
        + w.y * textureSample(sky_noon, sky_sampler, dir).rgb
        + w.z * textureSample(sky_night, sky_sampler, dir).rgb;
    // Warm band near the horizon at sunrise and sunset.
    let low = 1.0 - clamp(abs(dir.y) * 3.0, 0.0, 1.0);
    color = mix(color, color * vec3<f32>(1.35, 0.85, 0.6), w.w * low);
    return vec4<f32>(display(color * globals.params.z), 1.0);
}
