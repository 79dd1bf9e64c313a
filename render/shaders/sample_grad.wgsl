// Material textures as compute reads them: filtered for the footprint that the derivatives
// `uv_dx` and `uv_dy` give (set by the including module from the triangle's plane). Follows
// surface.wgsl.

fn sample_slot(t: texture_2d<f32>, slot: u32, uv: vec2<f32>) -> vec4<f32> {
    return textureSampleGrad(t, material_sampler, slot_uv(slot, uv), slot_step(slot, uv_dx), slot_step(slot, uv_dy));
}
