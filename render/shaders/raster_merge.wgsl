// What the compute raster found (raster.wgsl) merged with what the rasterizer drew: where a
// far triangle is nearer, its object and triangle go into the visibility pass's ids, as the
// rasterizer would have written them; the nearer depth of the two goes into the depth the
// classify pass and the resolve read.

// A run of one object's triangles. Mirrors `compute_raster::RasterItem`.
struct RasterItem {
    object: u32,
    first: u32,
    start: u32,
    count: u32,
}

@group(0) @binding(0) var<storage, read> items: array<RasterItem>;
// Per pixel (!depth bits, triangle number) as (low, high) words; 0 where none. The merge
// zeroes what it read, so the next frame's raster starts from an empty screen without a clear.
@group(0) @binding(1) var<storage, read_write> nearest: array<vec2<u32>>;
@group(0) @binding(2) var drawn_depth: texture_depth_2d;
@group(0) @binding(3) var ids: texture_storage_2d<rg32uint, write>;
@group(0) @binding(4) var depth: texture_storage_2d<r32float, write>;
// x, y: the target's size; z: items; w: triangles.
@group(0) @binding(5) var<uniform> raster: vec4<u32>;

fn item_of(n: u32) -> u32 {
    var lo = 0u;
    var hi = raster.z;
    while hi - lo > 1u {
        let mid = (lo + hi) / 2u;
        if items[mid].start <= n {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    return lo;
}

@compute @workgroup_size(8, 8)
fn cs_merge(@builtin(global_invocation_id) id: vec3<u32>) {
    let pixel = id.xy;
    if any(pixel >= raster.xy) {
        return;
    }
    var nearer = textureLoad(drawn_depth, pixel, 0);
    let at = pixel.y * raster.x + pixel.x;
    let found = nearest[at];
    if found.y != 0u {
        nearest[at] = vec2<u32>(0u, 0u);
        let d = bitcast<f32>(~found.y);
        if d < nearer {
            nearer = d;
            let item = items[item_of(found.x)];
            textureStore(ids, pixel, vec4<u32>(item.object, found.x - item.start, 0u, 0u));
        }
    }
    textureStore(depth, pixel, vec4<f32>(nearer, 0.0, 0.0, 0.0));
}
