// The compute resolve: shades each pixel the visibility pass found a surface in, as the mesh
// pass's fragment stage would (surface.wgsl), on every compute unit of the GPU. One dispatch
// per list (a material at one set of shading needs), over the tiles where it shows. Prefixed
// with globals.wgsl, deform.wgsl, surface.wgsl, sample_grad.wgsl and resolve_tiles.wgsl.

// Perspective-correct barycentric coordinates of a point on screen in a triangle, and their
// steps a pixel right and a pixel down.
struct Barycentrics {
    at: vec3<f32>,
    dx: vec3<f32>,
    dy: vec3<f32>,
    // The triangle faces the camera (counter-clockwise on screen, as the pipelines' front).
    front: bool,
}

// The triangle's clip positions `c0`..`c2` seen at `ndc`, a pixel being `step` in normalized
// device coordinates (y up, so a pixel down is a negative step). The surface point
// sum(b_i c_i) projects to the pixel where M b = s (x, y, 1) with M's columns the vertices'
// (x, y, w): b is M's inverse times (x, y, 1), normalized to sum 1, and the adjugate (rows
// of cross products) serves for the inverse (its scale cancels). Homogeneous: right for
// triangles that cross the camera's plane too.
fn barycentrics(c0: vec4<f32>, c1: vec4<f32>, c2: vec4<f32>, ndc: vec2<f32>, step: vec2<f32>) -> Barycentrics {
    let m0 = c0.xyw;
    let m1 = c1.xyw;
    let m2 = c2.xyw;
    let r0 = cross(m1, m2);
    let r1 = cross(m2, m0);
    let r2 = cross(m0, m1);
    let q = vec3<f32>(ndc, 1.0);
    let u = vec3<f32>(dot(r0, q), dot(r1, q), dot(r2, q));
    let ux = u + vec3<f32>(r0.x, r1.x, r2.x) * step.x;
    let uy = u + vec3<f32>(r0.y, r1.y, r2.y) * step.y;
    let at = u / (u.x + u.y + u.z);
    var out: Barycentrics;
    out.at = at;
    out.dx = ux / (ux.x + ux.y + ux.z) - at;
    out.dy = uy / (uy.x + uy.y + uy.z) - at;
    out.front = dot(m0, r0) > 0.0;
    return out;
}

fn mix3(b: vec3<f32>, a: vec3<f32>, c: vec3<f32>, d: vec3<f32>) -> vec3<f32> {
    return a * b.x + c * b.y + d * b.z;
}

fn mix2(b: vec3<f32>, a: vec2<f32>, c: vec2<f32>, d: vec2<f32>) -> vec2<f32> {
    return a * b.x + c * b.y + d * b.z;
}

@compute @workgroup_size(8, 8)
fn cs_resolve(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>) {
    let pixel = tile_pixel(group.x, local.xy);
    if any(pixel >= textureDimensions(shaded)) || textureLoad(scene_depth, pixel, 0).r >= 1.0 {
        return;
    }
    let id = textureLoad(visibility, pixel, 0).xy;
    let draw = object_draws[id.x];
    if draw.y != tile_list[0] {
        return;
    }
    let object = objects[id.x];
    let first = draw.x + 3u * id.y;
    let a = world_vertex(indices[first] + object.vertex_base, object);
    let b = world_vertex(indices[first + 1u] + object.vertex_base, object);
    let c = world_vertex(indices[first + 2u] + object.vertex_base, object);
    let size = vec2<f32>(textureDimensions(shaded));
    let bary = barycentrics(
        globals.view_proj * vec4<f32>(a.position, 1.0),
        globals.view_proj * vec4<f32>(b.position, 1.0),
        globals.view_proj * vec4<f32>(c.position, 1.0),
        pixel_ndc(pixel),
        vec2<f32>(2.0 / size.x, -2.0 / size.y),
    );
    var in: VsOut;
    in.world = mix3(bary.at, a.position, b.position, c.position);
    in.normal = mix3(bary.at, a.normal, b.normal, c.normal);
    in.uv = mix2(bary.at, a.uv, b.uv, c.uv);
    in.tangent = vec4<f32>(
        mix3(bary.at, a.tangent.xyz, b.tangent.xyz, c.tangent.xyz),
        dot(bary.at, vec3<f32>(a.tangent.w, b.tangent.w, c.tangent.w)),
    );
    uv_dx = mix2(bary.dx, a.uv, b.uv, c.uv);
    uv_dy = mix2(bary.dy, a.uv, b.uv, c.uv);
    world_dx = mix3(bary.dx, a.position, b.position, c.position);
    world_dy = mix3(bary.dy, a.position, b.position, c.position);
    store_display(pixel, shade(in, bary.front, albedo(in.uv)).rgb);
}
