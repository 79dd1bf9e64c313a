// Writes the deformed world position of every vertex of one object, so the GPU's morph and
// skin path can be compared with the CPU's. Prefixed with globals.wgsl and deform.wgsl.

struct CheckParams {
    object: u32,
    first_vertex: u32,
    vertex_count: u32,
    pad: u32,
}

@group(1) @binding(0) var<uniform> check: CheckParams;
@group(1) @binding(1) var<storage, read_write> deformed: array<vec4<f32>>;

@compute @workgroup_size(64)
fn cs_deform(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x >= check.vertex_count {
        return;
    }
    let d = deform(check.first_vertex + id.x, objects[check.object]);
    deformed[id.x] = vec4<f32>(d.position, 1.0);
}
