// The visibility pass's far objects rasterized in compute: their triangles are a few pixels
// each, where the rasterizer (on GPUs with few graphics units, such as NVIDIA's H100 and
// H200) sets the pace; here every compute unit takes them, one triangle a thread. Each pixel
// keeps the nearest triangle by a 64-bit atomic of (depth, triangle), merged afterwards with
// what the rasterizer drew (raster_merge.wgsl). Prefixed with globals.wgsl, deform.wgsl,
// surface.wgsl and sample_grad.wgsl. Group 1 is a material's: the masked surfaces' alpha
// test reads it (the opaque dispatch binds any, never reading it).

// A run of one object's triangles. Mirrors `compute_raster::RasterItem`.
struct RasterItem {
    // Its index in `objects` (the visibility pass's instance).
    object: u32,
    // The first index of its triangles at the level drawn.
    first: u32,
    // Its first triangle's number among all the frame's rasterized triangles.
    start: u32,
    count: u32,
}

@group(2) @binding(0) var<storage, read> items: array<RasterItem>;
@group(2) @binding(1) var<storage, read> mesh_indices: array<u32>;
// Per pixel, the nearest triangle: (!depth bits) << 32 | its number; 0 where none. The
// inverted depth makes the nearest the largest, so the buffer clears to zeros.
@group(2) @binding(2) var<storage, read_write> nearest: array<atomic<u64>>;
// x, y: the target's size; z: items; w: triangles.
@group(2) @binding(3) var<uniform> raster: vec4<u32>;
// This dispatch's run of triangles: x its first triangle's number, y how many.
@group(2) @binding(4) var<uniform> run: vec4<u32>;

// The item holding triangle number `n`: the last whose start is at most `n`.
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

fn raster_position(vertex_index: u32, object: Object) -> vec3<f32> {
    if object.deformed_base == NOT_DEFORMED {
        return (object.model * vec4<f32>(vertices[vertex_index].position, 1.0)).xyz;
    }
    return deformed[object.deformed_base + vertex_index - object.vertex_base].position;
}

// Twice the signed area of (a, b, p), the same bits whichever way round the edge is given:
// a triangle and its neighbour across an edge see exactly opposite values, so every pixel
// centre on the edge goes to one of them (no cracks, no pixel drawn twice).
fn edge(a: vec2<f32>, b: vec2<f32>, p: vec2<f32>) -> f32 {
    if a.x < b.x || (a.x == b.x && a.y < b.y) {
        return (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x);
    }
    return -((a.x - b.x) * (p.y - b.y) - (a.y - b.y) * (p.x - b.x));
}

// Whether a pixel centre exactly on the edge from `a` to `b` (a triangle's edges taken round
// its positive side) belongs to it: one of two neighbours' opposite directions.
fn owns(a: vec2<f32>, b: vec2<f32>) -> bool {
    let d = b - a;
    return d.y > 0.0 || (d.y == 0.0 && d.x < 0.0);
}

fn inside(w: f32, a: vec2<f32>, b: vec2<f32>) -> bool {
    return w > 0.0 || (w == 0.0 && owns(a, b));
}

// The screen position of `clip` in pixels (y down), snapped to 1/256 of a pixel.
fn on_screen(clip: vec4<f32>, size: vec2<f32>) -> vec2<f32> {
    let ndc = clip.xy / clip.w;
    let p = vec2<f32>(ndc.x * 0.5 + 0.5, 0.5 - ndc.y * 0.5) * size;
    return round(p * 256.0) / 256.0;
}

// One corner of a triangle: where it is in clip space and its texture coordinate.
struct Corner {
    clip: vec4<f32>,
    uv: vec2<f32>,
}

// The texture coordinate is read only for a masked surface's alpha test.
fn corner(index: u32, object: Object, masked: bool) -> Corner {
    let vertex_index = mesh_indices[index] + object.vertex_base;
    var out: Corner;
    out.clip = globals.view_proj * vec4<f32>(raster_position(vertex_index, object), 1.0);
    if masked {
        out.uv = vertices[vertex_index].uv;
    }
    return out;
}

// Rasterizes the run's `local`-th triangle; with `masked`, its pixels where the material's
// alpha is under the cutoff are holes (as the masked visibility pipeline discards them).
fn raster_triangle(local: u32, masked: bool) {
    if local >= run.y {
        return;
    }
    let n = run.x + local;
    let item = items[item_of(n)];
    let object = objects[item.object];
    let first = item.first + 3u * (n - item.start);
    let k0 = corner(first, object, masked);
    var k1 = corner(first + 1u, object, masked);
    var k2 = corner(first + 2u, object, masked);
    // Far objects never reach the camera's plane; a triangle that does is left to the
    // rasterizer's clipping (the renderer sends only objects beyond it here).
    if min(k0.clip.w, min(k1.clip.w, k2.clip.w)) <= 1e-4 {
        return;
    }
    let size = vec2<f32>(raster.xy);
    let s0 = on_screen(k0.clip, size);
    var s1 = on_screen(k1.clip, size);
    var s2 = on_screen(k2.clip, size);
    var area = edge(s0, s1, s2);
    if area == 0.0 {
        return;
    }
    // Both faces are drawn (as the visibility pass draws them): a clockwise triangle is taken
    // the other way round.
    if area < 0.0 {
        let s = s1;
        s1 = s2;
        s2 = s;
        let k = k1;
        k1 = k2;
        k2 = k;
        area = -area;
    }
    let z = vec3<f32>(k0.clip.z / k0.clip.w, k1.clip.z / k1.clip.w, k2.clip.z / k2.clip.w);
    // The texture coordinate's steps a pixel right and a pixel down, from the triangle's plane
    // on screen (its few pixels see little of the perspective).
    if masked {
        let e1 = s1 - s0;
        let e2 = s2 - s0;
        let d1 = k1.uv - k0.uv;
        let d2 = k2.uv - k0.uv;
        let det = e1.x * e2.y - e2.x * e1.y;
        uv_dx = (d1 * e2.y - d2 * e1.y) / det;
        uv_dy = (d2 * e1.x - d1 * e2.x) / det;
    }
    // Pixel centres (x + 0.5, y + 0.5) within the triangle's bounds and the screen.
    let lo = max(vec2<i32>(ceil(min(s0, min(s1, s2)) - 0.5)), vec2<i32>(0));
    let hi = min(vec2<i32>(floor(max(s0, max(s1, s2)) - 0.5)), vec2<i32>(raster.xy) - 1);
    if any(lo > hi) {
        return;
    }
    for (var y = lo.y; y <= hi.y; y += 1) {
        for (var x = lo.x; x <= hi.x; x += 1) {
            let p = vec2<f32>(f32(x) + 0.5, f32(y) + 0.5);
            let w0 = edge(s1, s2, p);
            let w1 = edge(s2, s0, p);
            let w2 = edge(s0, s1, p);
            if !(inside(w0, s1, s2) && inside(w1, s2, s0) && inside(w2, s0, s1)) {
                continue;
            }
            // Depth is affine on screen: the barycentric mix of the corners' depths.
            let depth = (w0 * z.x + w1 * z.y + w2 * z.z) / area;
            if depth < 0.0 || depth > 1.0 {
                continue;
            }
            if masked {
                // The texture coordinate is affine in the world: weights over clip w.
                let b = vec3<f32>(w0 / k0.clip.w, w1 / k1.clip.w, w2 / k2.clip.w);
                let uv = (b.x * k0.uv + b.y * k1.uv + b.z * k2.uv) / (b.x + b.y + b.z);
                if albedo(uv).a < material.emissive.a {
                    continue;
                }
            }
            let key = (u64(~bitcast<u32>(depth)) << 32u) | u64(n);
            atomicMax(&nearest[u32(y) * raster.x + u32(x)], key);
        }
    }
}

// Opaque surfaces: every covered pixel.
@compute @workgroup_size(64)
fn cs_raster(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    raster_triangle(id.x + id.y * groups.x * 64u, false);
}

// Masked surfaces of one material (group 1): its holes cut by its alpha cutoff.
@compute @workgroup_size(64)
fn cs_raster_masked(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    raster_triangle(id.x + id.y * groups.x * 64u, true);
}
