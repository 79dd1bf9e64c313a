// Per-frame values shared by every pass. Mirrors `gpu_types::Globals`.
struct Globals {
    view_proj: mat4x4<f32>,
    light_view_proj: mat4x4<f32>,
    inverse_view_proj: mat4x4<f32>,
    // xyz: camera position in the world.
    camera_position: vec4<f32>,
    // xyz: unit vector toward the sun (or moon).
    light_direction: vec4<f32>,
    // rgb: light colour times strength.
    light_color: vec4<f32>,
    // rgb: sky light reaching every surface.
    ambient: vec4<f32>,
    // rgb: colour distant things fade into.
    fog_color: vec4<f32>,
    // Weights of the day, noon and night skies; w: warm sunrise / sunset tint.
    sky_weights: vec4<f32>,
    // x: fog start, y: fog end (scene units), z: sky brightness, w: 1 with shadows, 0 without.
    params: vec4<f32>,
    // x: one shadow-map texel in uv, y: depth bias, z: normal offset (scene units), w: unused.
    shadow: vec4<f32>,
    // x: exposure (scene light to display), y: strength of the image-based sky light, z: the
    // image's height over its width, w: unused.
    output: vec4<f32>,
}

@group(0) @binding(0) var<uniform> globals: Globals;

// Khronos PBR Neutral: linear scene light (exposure applied) to display light in 0..1. Keeps
// colours below 0.8 as they are (base colours come out as authored under white light) and
// rolls brighter ones off toward white, desaturating them, instead of clipping hue.
fn tone_map(light: vec3<f32>) -> vec3<f32> {
    let start_compression = 0.8 - 0.04;
    let desaturation = 0.15;
    var color = light;
    let x = min(color.r, min(color.g, color.b));
    var offset = 0.04;
    if x < 0.08 {
        offset = x - 6.25 * x * x;
    }
    color -= offset;
    let peak = max(color.r, max(color.g, color.b));
    if peak < start_compression {
        return color;
    }
    let d = 1.0 - start_compression;
    let new_peak = 1.0 - d * d / (peak + d - start_compression);
    color *= new_peak / peak;
    let g = 1.0 - 1.0 / (desaturation * (peak - new_peak) + 1.0);
    return mix(color, vec3<f32>(new_peak), g);
}

// What a pass writes for linear scene light: exposed and tone mapped (the target encodes sRGB).
fn display(light: vec3<f32>) -> vec3<f32> {
    return tone_map(light * globals.output.x);
}
