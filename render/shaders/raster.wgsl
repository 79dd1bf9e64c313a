// The visibility pass's far objects rasterized in compute: their triangles are a few pixels
// each, where the rasterizer (on GPUs with few graphics units, such as NVIDIA's H100 and
// H200) sets the pace; here every compute unit takes them, one triangle a thread, and a
// triangle of many pixels (or one crossing the camera's plane) a workgroup. Each pixel keeps
// the nearest triangle by a 64-bit atomic of (depth, triangle), merged afterwards with what
// the rasterizer drew (raster_merge.wgsl). Prefixed with globals.wgsl, deform.wgsl,
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
// A dispatch's run of triangles. Mirrors the slots `compute_raster` writes.
struct Run {
    // Its first triangle's number.
    first: u32,
    // Its triangles.
    count: u32,
    // Its index among the frame's runs (its count of large triangles).
    index: u32,
    // 1: into the shadow map (the light's view, depth biased, `shadow_nearest`); 0: the
    // camera's.
    shadow: u32,
    // The target's size in pixels (texels of the shadow map).
    size: vec2<u32>,
}

@group(2) @binding(4) var<uniform> run: Run;
// The triangles each run left to its workgroups: the large at the run's triangles' numbers
// (room for all of them; how many in `large_counts[2 * run]`), then after all the frame's
// triangles the huge as pairs (triangle, pixels of its bounds), two words for each of the
// run's triangles (how many in `large_counts[2 * run + 1]`).
@group(2) @binding(5) var<storage, read_write> large: array<u32>;
@group(2) @binding(6) var<storage, read_write> large_counts: array<atomic<u32>>;
// Per shadow-map texel, the nearest biased depth's bits inverted; 0 where none.
@group(2) @binding(7) var<storage, read_write> shadow_nearest: array<atomic<u32>>;

// The shadow pipeline's depth bias (pipelines.rs): 2 of the 16-bit map's steps, and twice
// the depth's slope a texel.
const SHADOW_BIAS_STEPS: f32 = 2.0;
const SHADOW_BIAS_SLOPE: f32 = 2.0;

// Pixels of a triangle's bounds beyond which its workgroup draws it, not one thread
// (`NPC_RASTER_LARGE_PIXELS` sets it, for timing).
override LARGE_PIXELS: i32 = 64;
// Pixels of a triangle's bounds beyond which several workgroups take a share of it (the
// ground near the camera, a close face's), not one alone: one for each `HUGE_SHARE` pixels
// (`NPC_RASTER_HUGE_PIXELS` sets it, for timing).
override HUGE_PIXELS: i32 = 4096;
const HUGE_SHARE: u32 = 1024u;
// Threads of a raster workgroup.
const RASTER_THREADS: u32 = 64u;

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
    let world = vec4<f32>(raster_position(vertex_index, object), 1.0);
    if run.shadow != 0u {
        out.clip = globals.light_view_proj * world;
    } else {
        out.clip = globals.view_proj * world;
    }
    if masked {
        out.uv = vertices[vertex_index].uv;
    }
    return out;
}

fn mix_corners(a: Corner, b: Corner, t: f32) -> Corner {
    return Corner(mix(a.clip, b.clip, t), mix(a.uv, b.uv, t));
}

// The triangle numbered `n`'s corners.
fn corners(n: u32, masked: bool) -> array<Corner, 3> {
    let item = items[item_of(n)];
    let object = objects[item.object];
    let first = item.first + 3u * (n - item.start);
    return array<Corner, 3>(corner(first, object, masked), corner(first + 1u, object, masked), corner(first + 2u, object, masked));
}

// A triangle set up on screen: corners counter-clockwise (y down), snapped, their depths,
// twice its area and the pixels of its bounds on the screen.
struct Setup {
    k0: Corner,
    k1: Corner,
    k2: Corner,
    s0: vec2<f32>,
    s1: vec2<f32>,
    s2: vec2<f32>,
    z: vec3<f32>,
    area: f32,
    lo: vec2<i32>,
    hi: vec2<i32>,
    // Into the shadow map: the depth bias (as the rasterizer's, from the depth's slope).
    bias: f32,
}

// The triangle (every corner in front of the camera) set up, or its bounds empty (`lo` > `hi`)
// where nothing of it shows.
fn set_up(k0: Corner, k1_in: Corner, k2_in: Corner, masked: bool) -> Setup {
    var t: Setup;
    t.lo = vec2<i32>(1);
    t.hi = vec2<i32>(0);
    let size = vec2<f32>(run.size);
    var k1 = k1_in;
    var k2 = k2_in;
    let s0 = on_screen(k0.clip, size);
    var s1 = on_screen(k1.clip, size);
    var s2 = on_screen(k2.clip, size);
    var area = edge(s0, s1, s2);
    if area == 0.0 {
        return t;
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
    t.k0 = k0;
    t.k1 = k1;
    t.k2 = k2;
    t.s0 = s0;
    t.s1 = s1;
    t.s2 = s2;
    t.z = vec3<f32>(k0.clip.z / k0.clip.w, k1.clip.z / k1.clip.w, k2.clip.z / k2.clip.w);
    t.area = area;
    // Pixel centres (x + 0.5, y + 0.5) within the triangle's bounds and the screen.
    // (Clamped before converting: a corner clipped near the camera may be far off screen.)
    t.lo = vec2<i32>(clamp(ceil(min(s0, min(s1, s2)) - 0.5), vec2<f32>(0.0), size));
    t.hi = vec2<i32>(clamp(floor(max(s0, max(s1, s2)) - 0.5), vec2<f32>(-1.0), size - 1.0));
    if run.shadow != 0u {
        let e1 = s1 - s0;
        let e2 = s2 - s0;
        let dz = vec2<f32>(t.z.y - t.z.x, t.z.z - t.z.x);
        let slope = vec2<f32>(dz.x * e2.y - dz.y * e1.y, dz.y * e1.x - dz.x * e2.x) / area;
        t.bias = SHADOW_BIAS_STEPS / 65535.0 + SHADOW_BIAS_SLOPE * max(abs(slope.x), abs(slope.y));
    }
    // The texture coordinate's steps a pixel right and a pixel down, from the triangle's plane
    // on screen (a far triangle's few pixels see little of the perspective).
    if masked {
        let e1 = s1 - s0;
        let e2 = s2 - s0;
        let d1 = k1.uv - k0.uv;
        let d2 = k2.uv - k0.uv;
        uv_dx = (d1 * e2.y - d2 * e1.y) / area;
        uv_dy = (d2 * e1.x - d1 * e2.x) / area;
    }
    return t;
}

// Pixels in the bounds of what of a triangle crossing the near plane is in front of it: its
// corners in front and where its edges cross the plane.
fn clipped_pixels(corners_in: array<Corner, 3>) -> i32 {
    var k = corners_in;
    let size = vec2<f32>(run.size);
    var lo = vec2<f32>(3.0e38);
    var hi = vec2<f32>(-3.0e38);
    for (var j = 0u; j < 3u; j += 1u) {
        let a = k[j];
        let b = k[(j + 1u) % 3u];
        if a.clip.z >= 0.0 {
            let s = on_screen(a.clip, size);
            lo = min(lo, s);
            hi = max(hi, s);
        }
        if (a.clip.z < 0.0) != (b.clip.z < 0.0) {
            let s = on_screen(mix_corners(a, b, a.clip.z / (a.clip.z - b.clip.z)).clip, size);
            lo = min(lo, s);
            hi = max(hi, s);
        }
    }
    let l = vec2<i32>(clamp(ceil(lo - 0.5), vec2<f32>(0.0), size));
    let h = vec2<i32>(clamp(floor(hi - 0.5), vec2<f32>(-1.0), size - 1.0));
    if any(l > h) {
        return 0;
    }
    let d = h - l + 1;
    return d.x * d.y;
}

// Pixels in a triangle's bounds.
fn bounds_pixels(t: Setup) -> i32 {
    if any(t.lo > t.hi) {
        return 0;
    }
    let d = t.hi - t.lo + 1;
    return d.x * d.y;
}

// Keeps triangle `n` (set up as `t`) at pixel (x, y) where it covers the pixel's centre, is
// nearer than what the pixel has and (`masked`) the material's alpha there is not under its
// cutoff.
fn cover(t: Setup, x: i32, y: i32, n: u32, masked: bool) {
    let p = vec2<f32>(f32(x) + 0.5, f32(y) + 0.5);
    let w0 = edge(t.s1, t.s2, p);
    let w1 = edge(t.s2, t.s0, p);
    let w2 = edge(t.s0, t.s1, p);
    if !(inside(w0, t.s1, t.s2) && inside(w1, t.s2, t.s0) && inside(w2, t.s0, t.s1)) {
        return;
    }
    // Depth is affine on screen: the barycentric mix of the corners' depths; in front of the
    // near plane is clipped here.
    let depth = (w0 * t.z.x + w1 * t.z.y + w2 * t.z.z) / t.area;
    if depth < 0.0 || depth > 1.0 {
        return;
    }
    if masked {
        // The texture coordinate is affine in the world: weights over clip w.
        let b = vec3<f32>(w0 / t.k0.clip.w, w1 / t.k1.clip.w, w2 / t.k2.clip.w);
        let uv = (b.x * t.k0.uv + b.y * t.k1.uv + b.z * t.k2.uv) / (b.x + b.y + b.z);
        if albedo(uv).a < material.emissive.a {
            return;
        }
    }
    let pixel = u32(y) * run.size.x + u32(x);
    if run.shadow != 0u {
        atomicMax(&shadow_nearest[pixel], ~bitcast<u32>(min(depth + t.bias, 1.0)));
        return;
    }
    let key = (u64(~bitcast<u32>(depth)) << 32u) | u64(n);
    atomicMax(&nearest[pixel], key);
}

// Whether a triangle's corners (clip space) are all behind the near plane (nothing shows),
// some (it is clipped), or none.
fn behind(k: array<Corner, 3>) -> u32 {
    return u32(k[0].clip.z < 0.0) + u32(k[1].clip.z < 0.0) + u32(k[2].clip.z < 0.0);
}

// Rasterizes the run's `local`-th triangle in this thread, or leaves it to a workgroup
// (`cs_raster_large`) where its bounds are large or it crosses the near plane; with `masked`,
// its pixels where the material's alpha is under the cutoff are holes (as the masked
// visibility pipeline discards them).
fn raster_triangle(local: u32, masked: bool) {
    if local >= run.count {
        return;
    }
    let n = run.first + local;
    var k = corners(n, masked);
    let hidden = behind(k);
    if hidden == 3u {
        return;
    }
    var t: Setup;
    if hidden == 0u {
        t = set_up(k[0], k[1], k[2], masked);
    }
    // One crossing the camera's plane is clipped by its workgroups.
    var pixels = bounds_pixels(t);
    if hidden > 0u {
        pixels = clipped_pixels(k);
        if pixels == 0 {
            return;
        }
    }
    if pixels > HUGE_PIXELS {
        let at = atomicAdd(&large_counts[2u * run.index + 1u], 1u);
        let slot = raster.w + 2u * (run.first + at);
        large[slot] = n;
        large[slot + 1u] = u32(pixels);
        return;
    }
    if pixels > LARGE_PIXELS || hidden > 0u {
        let at = atomicAdd(&large_counts[2u * run.index], 1u);
        large[run.first + at] = n;
        return;
    }
    for (var y = t.lo.y; y <= t.hi.y; y += 1) {
        for (var x = t.lo.x; x <= t.hi.x; x += 1) {
            cover(t, x, y, n, masked);
        }
    }
}

// A share of a triangle's pixels: the bounds' pixels from `first` on, `stride` apart (a
// workgroup's threads, or every thread of the dispatch).
fn cover_share(t: Setup, first: u32, stride: u32, n: u32, masked: bool) {
    let pixels = bounds_pixels(t);
    let width = t.hi.x - t.lo.x + 1;
    for (var i = i32(first); i < pixels; i += i32(stride)) {
        cover(t, t.lo.x + i % width, t.lo.y + i / width, n, masked);
    }
}

// A share of triangle `n`'s pixels (`cover_share`); one crossing the near plane is clipped
// there first (into one or two triangles).
fn cover_clipped(n: u32, first: u32, stride: u32, masked: bool) {
    var k = corners(n, masked);
    let hidden = behind(k);
    if hidden == 0u {
        cover_share(set_up(k[0], k[1], k[2], masked), first, stride, n, masked);
        return;
    }
    if hidden == 3u {
        return;
    }
    // Rotate so that corner a is the odd one out (the one behind when one is, the one in
    // front when two are), keeping the winding.
    var a = 0u;
    for (var j = 0u; j < 3u; j += 1u) {
        if (k[j].clip.z < 0.0) == (hidden == 1u) {
            a = j;
        }
    }
    let ka = k[a];
    let kb = k[(a + 1u) % 3u];
    let kc = k[(a + 2u) % 3u];
    // Where the edges from a cross the near plane (z = 0).
    let ab = mix_corners(ka, kb, ka.clip.z / (ka.clip.z - kb.clip.z));
    let ac = mix_corners(ka, kc, ka.clip.z / (ka.clip.z - kc.clip.z));
    if hidden == 2u {
        // a alone in front: the triangle a, ab, ac.
        cover_share(set_up(ka, ab, ac, masked), first, stride, n, masked);
    } else {
        // a alone behind: the quadrilateral ab, b, c, ac.
        cover_share(set_up(ab, kb, kc, masked), first, stride, n, masked);
        cover_share(set_up(ab, kc, ac, masked), first, stride, n, masked);
    }
}

// The large triangles a run left, a workgroup each (the workgroups taking them in turn), then
// its huge ones, each shared by a workgroup for every `HUGE_SHARE` pixels of its bounds (all
// of them for one crossing the camera's plane), their threads taking the pixels in turn; the
// huge ones' workgroups start at different places, so that each workgroup has a fair part.
fn raster_large(group: u32, groups: u32, thread: u32, masked: bool) {
    let count = atomicLoad(&large_counts[2u * run.index]);
    for (var i = group; i < count; i += groups) {
        cover_clipped(large[run.first + i], thread, RASTER_THREADS, masked);
    }
    let huge = atomicLoad(&large_counts[2u * run.index + 1u]);
    var start = 0u;
    for (var i = 0u; i < huge; i += 1u) {
        let slot = raster.w + 2u * (run.first + i);
        let share = clamp((large[slot + 1u] + HUGE_SHARE - 1u) / HUGE_SHARE, 1u, groups);
        let rank = (group + groups - start) % groups;
        start = (start + share) % groups;
        if rank < share {
            cover_clipped(large[slot], rank * RASTER_THREADS + thread, share * RASTER_THREADS, masked);
        }
    }
}

// Opaque surfaces: every covered pixel.
@compute @workgroup_size(64)
fn cs_raster(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    raster_triangle(id.x + id.y * groups.x * RASTER_THREADS, false);
}

// Masked surfaces of one material (group 1): its holes cut by its alpha cutoff.
@compute @workgroup_size(64)
fn cs_raster_masked(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    raster_triangle(id.x + id.y * groups.x * RASTER_THREADS, true);
}

@compute @workgroup_size(64)
fn cs_raster_large(@builtin(workgroup_id) group: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>, @builtin(local_invocation_index) thread: u32) {
    raster_large(group.x, groups.x, thread, false);
}

@compute @workgroup_size(64)
fn cs_raster_large_masked(@builtin(workgroup_id) group: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>, @builtin(local_invocation_index) thread: u32) {
    raster_large(group.x, groups.x, thread, true);
}
