// The mesh passes: the lit main pass and the shadow (depth from the light) pass.
// Prefixed with globals.wgsl and deform.wgsl.

// A primitive's material. Mirrors `gpu_types::GpuMaterial`.
struct Material {
    base_color: vec4<f32>,
    // Fragments with alpha below this are discarded (0 for opaque materials).
    alpha_cutoff: f32,
    pad0: f32,
    pad1: f32,
    pad2: f32,
}

// A vertex the deform pass wrote: xyz position and normal in the world, their w components
// the texture coordinate. Mirrors `gpu_types::GpuDeformed`.
struct DeformedVertex {
    position: vec4<f32>,
    normal: vec4<f32>,
}

@group(0) @binding(6) var<storage, read> deformed: array<DeformedVertex>;

@group(1) @binding(0) var<uniform> material: Material;
@group(1) @binding(1) var base_color_texture: texture_2d<f32>;
@group(1) @binding(2) var base_color_sampler: sampler;

@group(2) @binding(0) var shadow_map: texture_depth_2d;
@group(2) @binding(1) var shadow_sampler: sampler_comparison;

struct VsOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
}

// The world-space vertex: written by the deform pass for skinned or morphed objects, else the
// stored vertex placed by the object's model matrix.
fn world_vertex(vertex_index: u32, object: Object) -> Deformed {
    if object.deformed_base == NOT_DEFORMED {
        let v = vertices[vertex_index];
        let world = object.model * vec4<f32>(v.position.xyz, 1.0);
        return Deformed(world.xyz, (object.model * vec4<f32>(v.normal.xyz, 0.0)).xyz, v.uv);
    }
    let d = deformed[object.deformed_base + vertex_index - object.vertex_base];
    return Deformed(d.position.xyz, d.normal.xyz, vec2<f32>(d.position.w, d.normal.w));
}

// The vertex seen through `view_proj` (the camera's or the light's).
fn vertex_out(vertex_index: u32, instance: u32, view_proj: mat4x4<f32>) -> VsOut {
    let d = world_vertex(vertex_index, objects[instance]);
    var out: VsOut;
    out.clip = view_proj * vec4<f32>(d.position, 1.0);
    out.world = d.position;
    out.normal = d.normal;
    out.uv = d.uv;
    return out;
}

@vertex
fn vs_main(@builtin(vertex_index) vertex_index: u32, @builtin(instance_index) instance: u32) -> VsOut {
    return vertex_out(vertex_index, instance, globals.view_proj);
}

@vertex
fn vs_shadow(@builtin(vertex_index) vertex_index: u32, @builtin(instance_index) instance: u32) -> VsOut {
    return vertex_out(vertex_index, instance, globals.light_view_proj);
}

fn albedo(uv: vec2<f32>) -> vec4<f32> {
    return material.base_color * textureSample(base_color_texture, base_color_sampler, uv);
}

// Alpha-masked geometry (grass, leaves) casts shadows with its holes. (Opaque geometry has no
// fragment stage in the shadow pass.)
@fragment
fn fs_shadow_masked(in: VsOut) {
    if albedo(in.uv).a < material.alpha_cutoff {
        discard;
    }
}

// 1 in full light, 0 fully shadowed: four bilinear comparisons half a texel apart (each one
// already filters 2x2 texels), a smooth edge for little sampling.
fn sun_visibility(world: vec3<f32>, normal: vec3<f32>) -> f32 {
    if globals.params.w < 0.5 {
        return 1.0;
    }
    let offset_world = world + normal * globals.shadow.z;
    let p = globals.light_view_proj * vec4<f32>(offset_world, 1.0);
    let ndc = p.xyz / p.w;
    let uv = ndc.xy * vec2<f32>(0.5, -0.5) + vec2<f32>(0.5, 0.5);
    if any(uv < vec2<f32>(0.0)) || any(uv > vec2<f32>(1.0)) || ndc.z > 1.0 {
        return 1.0;
    }
    let depth = ndc.z - globals.shadow.y;
    let h = 0.5 * globals.shadow.x;
    var lit = textureSampleCompareLevel(shadow_map, shadow_sampler, uv + vec2<f32>(-h, -h), depth);
    lit += textureSampleCompareLevel(shadow_map, shadow_sampler, uv + vec2<f32>(h, -h), depth);
    lit += textureSampleCompareLevel(shadow_map, shadow_sampler, uv + vec2<f32>(-h, h), depth);
    lit += textureSampleCompareLevel(shadow_map, shadow_sampler, uv + vec2<f32>(h, h), depth);
    return lit * 0.25;
}

// Opaque surfaces: no discard anywhere in the shader, so the depth test runs before shading
// and hidden fragments cost nothing.
@fragment
fn fs_main(in: VsOut, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    return shade(in, front, albedo(in.uv));
}

// Alpha-masked surfaces (grass, leaves).
@fragment
fn fs_masked(in: VsOut, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    let base = albedo(in.uv);
    if base.a < material.alpha_cutoff {
        discard;
    }
    return shade(in, front, base);
}

// See-through surfaces, blended over what is behind them.
@fragment
fn fs_blended(in: VsOut, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    let base = albedo(in.uv);
    return vec4<f32>(shade(in, front, base).rgb, base.a);
}

fn shade(in: VsOut, front: bool, base: vec4<f32>) -> vec4<f32> {
    var n = normalize(in.normal);
    if !front {
        n = -n;
    }
    let l = globals.light_direction.xyz;
    let diffuse = max(dot(n, l), 0.0);
    let visibility = sun_visibility(in.world, n);
    // Soft sky light: brighter on surfaces facing up.
    let sky = globals.ambient.rgb * (0.75 + 0.25 * n.y);
    var color = base.rgb * (sky + visibility * diffuse * globals.light_color.rgb);
    let distance = length(in.world - globals.camera_position.xyz);
    let fog = clamp((distance - globals.params.x) / max(globals.params.y - globals.params.x, 0.001), 0.0, 1.0);
    color = mix(color, globals.fog_color.rgb, fog);
    return vec4<f32>(color, 1.0);
}
