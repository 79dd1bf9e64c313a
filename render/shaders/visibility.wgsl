// The visibility pass: the rasterizer finds each pixel's nearest surface and writes which
// object and which of its triangles it is (no shading: on GPUs with few graphics units, such
// as NVIDIA's H100 and H200, the fragment stage runs on a small share of the chip); the compute
// resolve (classify.wgsl, resolve.wgsl) shades it. Prefixed with `enable primitive_index;`,
// globals.wgsl, deform.wgsl, surface.wgsl and sample_fragment.wgsl.

struct VisibilityOut {
    // Invariant: the same depth as the mesh passes' (the outlines and see-through surfaces
    // drawn after it test against it).
    @builtin(position) @invariant clip: vec4<f32>,
    @location(0) @interpolate(flat) object: u32,
}

struct MaskedVisibilityOut {
    @builtin(position) @invariant clip: vec4<f32>,
    @location(0) @interpolate(flat) object: u32,
    @location(1) uv: vec2<f32>,
}

@vertex
fn vs_visibility(@builtin(vertex_index) vertex_index: u32, @builtin(instance_index) instance: u32) -> VisibilityOut {
    let d = world_vertex(vertex_index, objects[instance]);
    var out: VisibilityOut;
    out.clip = globals.view_proj * vec4<f32>(d.position, 1.0);
    out.object = instance;
    return out;
}

@vertex
fn vs_visibility_masked(@builtin(vertex_index) vertex_index: u32, @builtin(instance_index) instance: u32) -> MaskedVisibilityOut {
    let d = world_vertex(vertex_index, objects[instance]);
    var out: MaskedVisibilityOut;
    out.clip = globals.view_proj * vec4<f32>(d.position, 1.0);
    out.object = instance;
    out.uv = d.uv;
    return out;
}

@fragment
fn fs_visibility(in: VisibilityOut, @builtin(primitive_index) triangle: u32) -> @location(0) vec2<u32> {
    return vec2<u32>(in.object, triangle);
}

// Masked surfaces cut their holes here (the resolve never sees what is behind a hole as the
// surface).
@fragment
fn fs_visibility_masked(in: MaskedVisibilityOut, @builtin(primitive_index) triangle: u32) -> @location(0) vec2<u32> {
    if albedo(in.uv).a < material.emissive.a {
        discard;
    }
    return vec2<u32>(in.object, triangle);
}
