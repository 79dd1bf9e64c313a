// The mesh passes drawn by the rasterizer: the lit main pass, the shadow (depth from the
// light) pass and the main pass's depth laid first. Prefixed with globals.wgsl, deform.wgsl,
// surface.wgsl and sample_fragment.wgsl.

@vertex
fn vs_main(@builtin(vertex_index) vertex_index: u32, @builtin(instance_index) instance: u32) -> VsOut {
    return vertex_out(vertex_index, instance, globals.view_proj);
}

// MToon's outline: the surface grown along its normals (by metres in the world, or by a
// share of the screen's height whatever the distance, as UniVRM grows it in clip space); the
// pipeline draws only its inside faces, pushed back a little in depth, so a band shows past
// the silhouette and nowhere else.
@vertex
fn vs_outline(@builtin(vertex_index) vertex_index: u32, @builtin(instance_index) instance: u32) -> VsOut {
    let d = world_vertex(vertex_index, objects[instance]);
    let n = normalize(d.normal);
    var width = material.outline_width.x;
    if has_texture(SLOT_OUTLINE_WIDTH) {
        let texel = textureSampleLevel(outline_width_texture, material_sampler, slot_uv(SLOT_OUTLINE_WIDTH, d.uv), 0.0);
        width *= select(texel.g, texel.r, material.outline_width.z > 0.5);
    }
    var world = d.position;
    if material.outline_width.y == OUTLINE_WORLD {
        world += n * width;
    }
    var clip = globals.view_proj * vec4<f32>(world, 1.0);
    if material.outline_width.y == OUTLINE_SCREEN {
        // The normal's direction on screen in pixels' proportions (x scaled by width over
        // height), then a step of `width` screen heights along it: 2 * width in clip y per w.
        let aspect = globals.output.z;
        let on_screen = (globals.view_proj * vec4<f32>(n, 0.0)).xy * vec2<f32>(1.0 / aspect, 1.0);
        let length_on_screen = length(on_screen);
        if length_on_screen > 1e-6 {
            let step = on_screen / length_on_screen * 2.0 * width * clip.w;
            clip = vec4<f32>(clip.xy + step * vec2<f32>(aspect, 1.0), clip.zw);
        }
    }
    var out: VsOut;
    out.clip = clip;
    out.world = world;
    out.normal = d.normal;
    out.uv = d.uv;
    out.tangent = d.tangent;
    return out;
}

@vertex
fn vs_shadow(@builtin(vertex_index) vertex_index: u32, @builtin(instance_index) instance: u32) -> VsOut {
    return vertex_out(vertex_index, instance, globals.light_view_proj);
}

// Alpha-masked geometry (grass, leaves) casts shadows with its holes. (Opaque geometry has no
// fragment stage in the shadow pass.)
@fragment
fn fs_shadow_masked(in: VsOut) {
    set_derivatives(in);
    if albedo(in.uv).a < material.emissive.a {
        discard;
    }
}

// The main pass's depth laid down before shading (pipelines.rs, `DepthPrepass`): nothing
// written but depth, the holes of masked surfaces cut.
@fragment
fn fs_depth() -> @location(0) vec4<f32> {
    return vec4<f32>(0.0);
}

@fragment
fn fs_depth_masked(in: VsOut) -> @location(0) vec4<f32> {
    set_derivatives(in);
    if albedo(in.uv).a < material.emissive.a {
        discard;
    }
    return vec4<f32>(0.0);
}

// Opaque surfaces: no discard anywhere in the shader, so the depth test runs before shading
// and hidden fragments cost nothing.
@fragment
fn fs_main(in: VsOut, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    set_derivatives(in);
    return shade(in, front, albedo(in.uv));
}

// Alpha-masked surfaces (grass, leaves).
@fragment
fn fs_masked(in: VsOut, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    set_derivatives(in);
    let base = albedo(in.uv);
    if base.a < material.emissive.a {
        discard;
    }
    return shade(in, front, base);
}

// MToon's outline: its colour, tinted by the surface's lit colour as much as the material
// says. An opaque surface's outline has no discard, so the depth test runs first: most of the
// grown surface is hidden behind the surface itself.
@fragment
fn fs_outline(in: VsOut) -> @location(0) vec4<f32> {
    set_derivatives(in);
    return outline(in, albedo(in.uv));
}

// A masked surface's outline has its holes.
@fragment
fn fs_outline_masked(in: VsOut) -> @location(0) vec4<f32> {
    set_derivatives(in);
    let base = albedo(in.uv);
    if base.a < material.emissive.a {
        discard;
    }
    return outline(in, base);
}

fn outline(in: VsOut, base: vec4<f32>) -> vec4<f32> {
    // Shaded as the outside of the surface it grows from.
    let surface = lit(in, true, base);
    let color = material.toon_outline.rgb * mix(vec3<f32>(1.0), surface, material.toon_outline.a);
    return vec4<f32>(display(fogged(color, in.world)), 1.0);
}

// See-through surfaces, blended over what is behind them.
@fragment
fn fs_blended(in: VsOut, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    set_derivatives(in);
    let base = albedo(in.uv);
    return vec4<f32>(shade(in, front, base).rgb, base.a);
}

