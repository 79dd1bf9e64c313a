// The deform pass: once per frame, every vertex of every skinned or morphed object is
// deformed (morphs, then skin, then placement) into `deformed`, which the shadow and main
// passes read. Work comes in chunks of 64 vertices of one object.
// Prefixed with globals.wgsl and deform.wgsl.

// One chunk: an object and the first of its vertices. Mirrors `gpu_types::DeformChunk`.
struct Chunk {
    object: u32,
    first: u32,
}

// Mirrors `gpu_types::GpuDeformed`: xyz position and normal, w the texture coordinate.
struct DeformedVertex {
    position: vec4<f32>,
    normal: vec4<f32>,
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
    // The texture coordinate rides in the w components, so drawing reads one record.
    deformed[object.deformed_base + local] = DeformedVertex(vec4<f32>(d.position, d.uv.x), vec4<f32>(d.normal, d.uv.y));
}
