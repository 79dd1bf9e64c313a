// Vertex pulling, morph targets and skinning: `deform` is what the deform pass (and the deform
// check) run once per vertex and frame; the mesh passes read its results.

// One vertex. Mirrors `gpu_types::GpuVertex`.
struct Vertex {
    position: vec3<f32>,
    // The bitangent's sign (glTF's tangent w); 0: no tangent.
    tangent_sign: f32,
    normal: vec3<f32>,
    // The tangent's direction, octahedral.
    tangent: u32,
    uv: vec2<f32>,
    // Four joint indices, two 16-bit halves per word (low half first).
    joints: vec2<u32>,
    weights: vec4<f32>,
}

// One drawn copy of a primitive. Mirrors `gpu_types::GpuObject`.
struct Object {
    model: mat4x4<f32>,
    // Where the primitive's vertices start in `vertices`.
    vertex_base: u32,
    // Where its morph deltas start in `deltas`; target t of vertex v sits at
    // delta_base + (t * vertex_count + v) * 2 (position), + 1 (normal).
    delta_base: u32,
    vertex_count: u32,
    // First joint matrix in `palette`, or NO_PALETTE for a rigid object.
    palette_offset: u32,
    // The object's active targets: morphs[morph_offset .. morph_offset + morph_count].
    morph_offset: u32,
    morph_count: u32,
    // Where the deform pass wrote this object's vertices (world space) in `deformed`, or
    // NOT_DEFORMED for a rigid object drawn from `vertices` with `model`.
    deformed_base: u32,
    // How many of its first vertices the deform pass writes (the prefix its level uses).
    deformed_count: u32,
}

// One active morph target and its weight. Mirrors `gpu_types::GpuMorph`.
struct Morph {
    target_index: u32,
    weight: f32,
}

const NO_PALETTE: u32 = 0xffffffffu;
const NOT_DEFORMED: u32 = 0xffffffffu;

@group(0) @binding(1) var<storage, read> vertices: array<Vertex>;
@group(0) @binding(2) var<storage, read> deltas: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> objects: array<Object>;
@group(0) @binding(4) var<storage, read> morphs: array<Morph>;
// Each joint's skinning matrix as the top three rows of an affine matrix (`m[r]` is row r).
// Mirrors `gpu_types::JointRows`.
@group(0) @binding(5) var<storage, read> palette: array<mat3x4<f32>>;

struct Deformed {
    position: vec3<f32>,
    normal: vec3<f32>,
    uv: vec2<f32>,
    // xyz along +u, w the bitangent's sign (0: none).
    tangent: vec4<f32>,
}

// A direction as 32 bits: the octahedral map, two 16-bit signed-normalised halves (a zero
// vector gives +Z). Mirrors render/src/octahedral.rs.
fn octahedral_encode(v: vec3<f32>) -> u32 {
    let p = v.xy / max(abs(v.x) + abs(v.y) + abs(v.z), 1e-20);
    if v.z >= 0.0 {
        return pack2x16snorm(p);
    }
    return pack2x16snorm((1.0 - abs(p.yx)) * select(vec2<f32>(-1.0), vec2<f32>(1.0), p >= vec2<f32>(0.0)));
}

fn octahedral_decode(bits: u32) -> vec3<f32> {
    let p = unpack2x16snorm(bits);
    var v = vec3<f32>(p, 1.0 - abs(p.x) - abs(p.y));
    let t = max(-v.z, 0.0);
    v.x -= t * select(-1.0, 1.0, v.x >= 0.0);
    v.y -= t * select(-1.0, 1.0, v.y >= 0.0);
    return normalize(v);
}

// The world-space vertex `vertex_index` of `object`: morphs first (in the mesh's own space),
// then the skin, then the object's placement.
fn deform(vertex_index: u32, object: Object) -> Deformed {
    let v = vertices[vertex_index];
    var position = v.position;
    var normal = v.normal;
    var tangent = octahedral_decode(v.tangent);
    let local = vertex_index - object.vertex_base;
    for (var i = 0u; i < object.morph_count; i += 1u) {
        let m = morphs[object.morph_offset + i];
        let d = object.delta_base + (m.target_index * object.vertex_count + local) * 2u;
        position += m.weight * deltas[d].xyz;
        normal += m.weight * deltas[d + 1u].xyz;
    }
    if object.palette_offset != NO_PALETTE {
        let o = object.palette_offset;
        let skin = v.weights.x * palette[o + (v.joints.x & 0xffffu)]
            + v.weights.y * palette[o + (v.joints.x >> 16u)]
            + v.weights.z * palette[o + (v.joints.y & 0xffffu)]
            + v.weights.w * palette[o + (v.joints.y >> 16u)];
        // A row vector times the matrix of rows: each component is one row's dot product.
        position = vec4<f32>(position, 1.0) * skin;
        normal = vec4<f32>(normal, 0.0) * skin;
        tangent = vec4<f32>(tangent, 0.0) * skin;
    }
    let world = object.model * vec4<f32>(position, 1.0);
    let world_normal = (object.model * vec4<f32>(normal, 0.0)).xyz;
    // (Morph targets' tangent deltas are not read: the shading makes the tangent square to
    // the morphed normal.)
    let world_tangent = (object.model * vec4<f32>(tangent, 0.0)).xyz;
    return Deformed(world.xyz, world_normal, v.uv, vec4<f32>(world_tangent, v.tangent_sign));
}
