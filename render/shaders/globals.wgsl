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
}

@group(0) @binding(0) var<uniform> globals: Globals;
