// Material textures as the fragment stage reads them: filtered for the pixel's footprint, its
// derivatives taken from its neighbours in the quad. Follows surface.wgsl.

fn sample_slot(t: texture_2d<f32>, slot: u32, uv: vec2<f32>) -> vec4<f32> {
    return textureSample(t, material_sampler, slot_uv(slot, uv));
}

// Called first in each fragment entry point, before any branch or discard.
fn set_derivatives(in: VsOut) {
    uv_dx = dpdx(in.uv);
    uv_dy = dpdy(in.uv);
    world_dx = dpdx(in.world);
    world_dy = dpdy(in.world);
}
