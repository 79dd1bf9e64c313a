// The deform pass: once per frame, every vertex of every skinned or morphed object is
// deformed (morphs, then skin, then placement) into `deformed`, which the shadow and main
// passes read. Work comes in chunks of 64 vertices of one object.
// Prefixed with globals.wgsl and deform.wgsl.

// One chunk: an object and the first of its vertices. Mirrors `gpu_types::DeformChunk`.
struct Chunk {
    object: u32,
    first: u32,
}

// Mirrors `gpu_types::GpuDeformed`: the position, the normal and tangent (octahedral), the
// texture coordinate and the bitangent's sign (0: no tangent); 32 bytes.
struct DeformedVertex {
    position: vec3<f32>,
    u: f32,
    normal: u32,
    tangent: u32,
    v: f32,
    tangent_sign: f32,
}

// How many chunks this frame has (the chunk buffer may be longer).
// Mirrors `gpu_types::DeformParams`.
struct DeformParams {
    chunk_count: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

@group(1) @binding(0) var<storage, read> chunks: array<Chunk>;
@group(1) @binding(1) var<storage, read_write> deformed: array<DeformedVertex>;
@group(1) @binding(2) var<uniform> params: DeformParams;

// Workgroups per row of the dispatch (the rest go to further rows).
const ROW: u32 = 32768u;

@compute @workgroup_size(64)
fn cs_deform_pass(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    let c = group.y * ROW + group.x;
    if c >= params.chunk_count {
        return;
    }
    let chunk = chunks[c];
    let object = objects[chunk.object];
    let local = chunk.first + lane;
    if local >= object.deformed_count {
        return;
    }
    let d = deform(object.vertex_base + local, object);
    deformed[object.deformed_base + local] = DeformedVertex(
        d.position,
        d.uv.x,
        // (The map is the same for any length: no normalising needed.)
        octahedral_encode(d.normal),
        octahedral_encode(d.tangent.xyz),
        d.uv.y,
        d.tangent.w,
    );
}
