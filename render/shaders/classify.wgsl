// Sorts the screen's 8x8 tiles by what shades their pixels, for the compute resolve: each
// list (a material at one set of shading needs, or the sky) gets the tiles where it shows, and
// its count is the x of its indirect dispatch.

@group(0) @binding(0) var visibility: texture_2d<u32>;
// The visibility pass's depth, or its merge with the compute raster's (compute_raster.rs).
@group(0) @binding(1) var scene_depth: texture_2d<f32>;
// Per object: the first index of the triangles the visibility pass drew and its list.
@group(0) @binding(2) var<storage, read> object_draws: array<vec2<u32>>;
// Each list's tiles: list l's at l * stride, its own number first, then its tiles.
@group(0) @binding(3) var<storage, read_write> tiles: array<u32>;
// Each list's indirect dispatch (x, y, z), x counting its tiles (reset to 0, 1, 1 each frame).
@group(0) @binding(4) var<storage, read_write> dispatches: array<atomic<u32>>;
// x: u32s per list (stride), y: the sky's list, z: tiles across the screen.
@group(0) @binding(5) var<uniform> lists: vec4<u32>;

// Lists of one tile, one bit each (at most 32 * 8 lists: the renderer draws more with the
// mesh passes).
var<workgroup> present: array<atomic<u32>, 8>;

@compute @workgroup_size(8, 8)
fn cs_classify(@builtin(workgroup_id) tile: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>, @builtin(local_invocation_index) lane: u32) {
    if lane < 8u {
        atomicStore(&present[lane], 0u);
    }
    workgroupBarrier();
    let pixel = tile.xy * 8u + local.xy;
    if all(pixel < textureDimensions(visibility)) {
        var list = lists.y;
        if textureLoad(scene_depth, pixel, 0).r < 1.0 {
            list = object_draws[textureLoad(visibility, pixel, 0).x].y;
        }
        atomicOr(&present[list / 32u], 1u << (list % 32u));
    }
    workgroupBarrier();
    if lane < 8u {
        var bits = atomicLoad(&present[lane]);
        let index = tile.y * lists.z + tile.x;
        while bits != 0u {
            let list = lane * 32u + firstTrailingBit(bits);
            bits &= bits - 1u;
            let slot = atomicAdd(&dispatches[list * 3u], 1u);
            tiles[list * lists.x + 1u + slot] = index;
        }
    }
}
