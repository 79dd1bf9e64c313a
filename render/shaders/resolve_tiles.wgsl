// What the compute resolve reads of the visibility pass, and where it writes: group 3 of the
// resolve (resolve.wgsl) and the sky (sky.wgsl). One dispatch per list (classify.wgsl), one
// workgroup per 8x8 tile of it.

@group(3) @binding(0) var visibility: texture_2d<u32>;
// The visibility pass's depth, or its merge with the compute raster's (compute_raster.rs).
@group(3) @binding(1) var scene_depth: texture_2d<f32>;
// This dispatch's list: its own number, then its tiles (bound at the list's offset).
@group(3) @binding(2) var<storage, read> tile_list: array<u32>;
@group(3) @binding(3) var shaded: texture_storage_2d<rgba8unorm, write>;
@group(3) @binding(4) var<storage, read> indices: array<u32>;
// Per object: the first index of its drawn triangles and its list.
@group(3) @binding(5) var<storage, read> object_draws: array<vec2<u32>>;

// The pixel of lane `local` in the dispatch's `workgroup`-th tile.
fn tile_pixel(workgroup: u32, local: vec2<u32>) -> vec2<u32> {
    let tile = tile_list[1u + workgroup];
    let across = (textureDimensions(shaded).x + 7u) / 8u;
    return vec2<u32>(tile % across, tile / across) * 8u + local;
}

// The pixel's centre in normalized device coordinates (y up).
fn pixel_ndc(pixel: vec2<u32>) -> vec2<f32> {
    let size = vec2<f32>(textureDimensions(shaded));
    let at = (vec2<f32>(pixel) + 0.5) / size;
    return vec2<f32>(at.x * 2.0 - 1.0, 1.0 - at.y * 2.0);
}

// Writes display light (0..1) as the sRGB target would encode it.
fn store_display(pixel: vec2<u32>, color: vec3<f32>) {
    let c = clamp(color, vec3<f32>(0.0), vec3<f32>(1.0));
    let encoded = select(1.055 * pow(c, vec3<f32>(1.0 / 2.4)) - 0.055, c * 12.92, c <= vec3<f32>(0.0031308));
    textureStore(shaded, pixel, vec4<f32>(encoded, 1.0));
}
