// Image-based light from the three skies, made on the GPU when the skies are uploaded and
// blended by the time of day as the sky pass blends them:
// - `cs_specular`: one level of a sky's prefiltered specular cubemap, GGX-filtered for the
//   level's roughness (importance sampled, each sample read from the sky's mip whose texels
//   match the sample's share of the lobe: Karis' filtered importance sampling);
// - `cs_irradiance`: a sky's diffuse light, the cosine-weighted sky above the horizon over
//   each normal's hemisphere divided by pi (what a white matte surface facing that way shows;
//   the ground's light is added by the main pass, lit as the frame's sun lights it);
// - `cs_brdf_table`: the split-sum table, the share of light a GGX surface reflects from all
//   around as scale and bias of its F0, by n.v and roughness;
// - `cs_blend`: the day, noon and night results weighted as the sky is, with its warm band
//   low in the sky at sunrise and sunset (the diffuse light's weights also divide each sky by
//   its mean luminance: the main pass scales it to the day's ambient level).
// Cube faces are 2D array layers in wgpu's order (+X, -X, +Y, -Y, +Z, -Z), texel rows from the
// top of each face.

struct Filter {
    // Which sky: 0 day, 1 noon, 2 night.
    sky: u32,
    // Layer of the sky's first face in the output (6 * sky).
    first_layer: u32,
    // Roughness of the level made.
    roughness: f32,
    // Texels along a side of the sky's largest mip.
    source_size: f32,
}

struct Blend {
    // Weights of the day, noon and night skies; w: warm sunrise / sunset tint.
    weights: vec4<f32>,
    // rgb: light added everywhere (the diffuse light of a sky too dark to have a direction).
    uniform_light: vec4<f32>,
}

const PI: f32 = 3.14159265;
const SPECULAR_SAMPLES: u32 = 48u;
// Steps around and away from the normal for the diffuse light.
const IRRADIANCE_AROUND: u32 = 32u;
const IRRADIANCE_AWAY: u32 = 8u;
const BRDF_SAMPLES: u32 = 128u;

@group(0) @binding(0) var<uniform> level: Filter;
@group(0) @binding(1) var sky_day: texture_cube<f32>;
@group(0) @binding(2) var sky_noon: texture_cube<f32>;
@group(0) @binding(3) var sky_night: texture_cube<f32>;
@group(0) @binding(4) var sky_sampler: sampler;
@group(0) @binding(5) var filtered: texture_storage_2d_array<rgba16float, write>;

// Each pass's own bindings (one group, no number shared, so each pipeline's layout is the
// bindings its entry point uses).
@group(0) @binding(6) var<uniform> blend: Blend;
@group(0) @binding(7) var per_sky: texture_2d_array<f32>;
@group(0) @binding(8) var blended: texture_storage_2d_array<rgba16float, write>;

@group(0) @binding(9) var brdf_table: texture_storage_2d<rgba16float, write>;

// The blended diffuse light straight up (cs_above).
@group(0) @binding(10) var<storage, read_write> sky_above: vec4<f32>;

// The direction through texel `id` (x, y, face) of a face `size` texels wide.
fn texel_direction(id: vec3<u32>, size: u32) -> vec3<f32> {
    let st = (vec2<f32>(id.xy) + 0.5) / f32(size) * 2.0 - 1.0;
    let s = st.x;
    let t = st.y;
    var d: vec3<f32>;
    switch id.z {
        case 0u: { d = vec3<f32>(1.0, -t, -s); }
        case 1u: { d = vec3<f32>(-1.0, -t, s); }
        case 2u: { d = vec3<f32>(s, 1.0, t); }
        case 3u: { d = vec3<f32>(s, -1.0, -t); }
        case 4u: { d = vec3<f32>(s, -t, 1.0); }
        default: { d = vec3<f32>(-s, -t, -1.0); }
    }
    return normalize(d);
}

// The sky's light toward `dir`, read at mip `lod` (a uniform branch: one sky per dispatch).
fn sky_light(dir: vec3<f32>, lod: f32) -> vec3<f32> {
    if level.sky == 0u {
        return textureSampleLevel(sky_day, sky_sampler, dir, lod).rgb;
    } else if level.sky == 1u {
        return textureSampleLevel(sky_noon, sky_sampler, dir, lod).rgb;
    }
    return textureSampleLevel(sky_night, sky_sampler, dir, lod).rgb;
}

// The i-th of `n` points of the Hammersley set.
fn hammersley(i: u32, n: u32) -> vec2<f32> {
    return vec2<f32>(f32(i) / f32(n), f32(reverseBits(i)) * 2.3283064365386963e-10);
}

// Two unit vectors across `n`.
fn across(n: vec3<f32>) -> mat3x3<f32> {
    var up = vec3<f32>(0.0, 0.0, 1.0);
    if abs(n.z) > 0.999 {
        up = vec3<f32>(1.0, 0.0, 0.0);
    }
    let t = normalize(cross(up, n));
    let b = cross(n, t);
    return mat3x3<f32>(t, b, n);
}

// A microfacet normal around `n` drawn from GGX with `a` = roughness squared, for `xi`.
fn ggx_half_vector(xi: vec2<f32>, n: vec3<f32>, a: f32) -> vec3<f32> {
    let phi = 2.0 * PI * xi.x;
    let cos_theta = sqrt((1.0 - xi.y) / (1.0 + (a * a - 1.0) * xi.y));
    let sin_theta = sqrt(1.0 - cos_theta * cos_theta);
    let local = vec3<f32>(sin_theta * cos(phi), sin_theta * sin(phi), cos_theta);
    return across(n) * local;
}

fn ggx(n_dot_h: f32, a: f32) -> f32 {
    let a2 = a * a;
    let d = n_dot_h * n_dot_h * (a2 - 1.0) + 1.0;
    return a2 / (PI * d * d);
}

@compute @workgroup_size(8, 8, 1)
fn cs_specular(@builtin(global_invocation_id) id: vec3<u32>) {
    let size = textureDimensions(filtered).x;
    if id.x >= size || id.y >= size || id.z >= 6u {
        return;
    }
    let n = texel_direction(id, size);
    // A mirror: the sky itself, read at the mip of the level's texel size.
    let top_lod = max(log2(level.source_size / f32(size)), 0.0);
    var color = sky_light(n, top_lod);
    if level.roughness > 0.0 {
        let a = level.roughness * level.roughness;
        // Solid angle of one texel of the sky's largest mip.
        let texel_angle = 4.0 * PI / (6.0 * level.source_size * level.source_size);
        var sum = vec3<f32>(0.0);
        var weight = 0.0;
        for (var i = 0u; i < SPECULAR_SAMPLES; i++) {
            let h = ggx_half_vector(hammersley(i, SPECULAR_SAMPLES), n, a);
            let l = 2.0 * dot(n, h) * h - n;
            let n_dot_l = dot(n, l);
            if n_dot_l > 0.0 {
                // With the view along the normal, the sample's density is D / 4.
                let pdf = ggx(max(dot(n, h), 0.0), a) * 0.25;
                let sample_angle = 1.0 / (f32(SPECULAR_SAMPLES) * pdf + 1e-4);
                let lod = max(0.5 * log2(sample_angle / texel_angle) + 1.0, 0.0);
                sum += sky_light(l, lod) * n_dot_l;
                weight += n_dot_l;
            }
        }
        color = sum / max(weight, 1e-4);
    }
    textureStore(filtered, vec2<u32>(id.xy), i32(level.first_layer + id.z), vec4<f32>(color, 1.0));
}

@compute @workgroup_size(8, 8, 1)
fn cs_irradiance(@builtin(global_invocation_id) id: vec3<u32>) {
    let size = textureDimensions(filtered).x;
    if id.x >= size || id.y >= size || id.z >= 6u {
        return;
    }
    let n = texel_direction(id, size);
    let frame = across(n);
    // Samples about 2 * pi / IRRADIANCE_AROUND apart: read the mip whose texels are that wide.
    let lod = max(log2(level.source_size * 4.0 / f32(IRRADIANCE_AROUND)), 0.0);
    var sum = vec3<f32>(0.0);
    for (var i = 0u; i < IRRADIANCE_AROUND; i++) {
        let phi = 2.0 * PI * (f32(i) + 0.5) / f32(IRRADIANCE_AROUND);
        for (var j = 0u; j < IRRADIANCE_AWAY; j++) {
            let theta = 0.5 * PI * (f32(j) + 0.5) / f32(IRRADIANCE_AWAY);
            let local = vec3<f32>(sin(theta) * cos(phi), sin(theta) * sin(phi), cos(theta));
            let dir = frame * local;
            if dir.y > 0.0 {
                sum += sky_light(dir, lod) * cos(theta) * sin(theta);
            }
        }
    }
    // The integral of L cos over the hemisphere, over pi: the sum times the steps' area
    // (2 pi / around * pi / 2 / away), over pi.
    let irradiance = sum * PI / f32(IRRADIANCE_AROUND * IRRADIANCE_AWAY);
    textureStore(filtered, vec2<u32>(id.xy), i32(level.first_layer + id.z), vec4<f32>(irradiance, 1.0));
}

// Smith's height-correlated visibility for GGX.
fn smith_visibility(n_dot_l: f32, n_dot_v: f32, a: f32) -> f32 {
    let a2 = a * a;
    let gv = n_dot_l * sqrt(n_dot_v * n_dot_v * (1.0 - a2) + a2);
    let gl = n_dot_v * sqrt(n_dot_l * n_dot_l * (1.0 - a2) + a2);
    return 0.5 / max(gv + gl, 1e-5);
}

// Texel (x, y): n.v = (x + 0.5) / width, roughness = (y + 0.5) / height. Stores the scale (r)
// and bias (g) of F0 in the light a surface reflects from a uniform white sky.
@compute @workgroup_size(8, 8, 1)
fn cs_brdf_table(@builtin(global_invocation_id) id: vec3<u32>) {
    let size = textureDimensions(brdf_table);
    if id.x >= size.x || id.y >= size.y {
        return;
    }
    let n_dot_v = (f32(id.x) + 0.5) / f32(size.x);
    let roughness = (f32(id.y) + 0.5) / f32(size.y);
    let a = roughness * roughness;
    let v = vec3<f32>(sqrt(1.0 - n_dot_v * n_dot_v), 0.0, n_dot_v);
    let n = vec3<f32>(0.0, 0.0, 1.0);
    var scale = 0.0;
    var bias = 0.0;
    for (var i = 0u; i < BRDF_SAMPLES; i++) {
        let h = ggx_half_vector(hammersley(i, BRDF_SAMPLES), n, a);
        let l = 2.0 * dot(v, h) * h - v;
        let n_dot_l = l.z;
        let n_dot_h = max(h.z, 0.0);
        let v_dot_h = max(dot(v, h), 0.0);
        if n_dot_l > 0.0 {
            // The sample's weight: BRDF * n.l / pdf, with pdf = D n.h / (4 v.h).
            let g = smith_visibility(n_dot_l, n_dot_v, a) * 4.0 * n_dot_l * v_dot_h / max(n_dot_h, 1e-5);
            let fc = pow(1.0 - v_dot_h, 5.0);
            scale += (1.0 - fc) * g;
            bias += fc * g;
        }
    }
    let n_samples = f32(BRDF_SAMPLES);
    textureStore(brdf_table, vec2<u32>(id.xy), vec4<f32>(scale / n_samples, bias / n_samples, 0.0, 1.0));
}

// Texel `id` (x, y, face) of the skies' level `size` texels wide, blended by the weights.
fn blended_texel(id: vec3<u32>, size: u32) -> vec3<f32> {
    let w = blend.weights;
    let at = vec2<u32>(id.xy);
    let color = w.x * textureLoad(per_sky, at, id.z, 0).rgb
        + w.y * textureLoad(per_sky, at, id.z + 6u, 0).rgb
        + w.z * textureLoad(per_sky, at, id.z + 12u, 0).rgb
        + blend.uniform_light.rgb;
    // The sky pass's warm band near the horizon at sunrise and sunset.
    let dir = texel_direction(id, size);
    let low = 1.0 - clamp(abs(dir.y) * 3.0, 0.0, 1.0);
    return mix(color, color * vec3<f32>(1.35, 0.85, 0.6), w.w * low);
}

@compute @workgroup_size(8, 8, 1)
fn cs_blend(@builtin(global_invocation_id) id: vec3<u32>) {
    let size = textureDimensions(blended).x;
    if id.x >= size || id.y >= size || id.z >= 6u {
        return;
    }
    textureStore(blended, vec2<u32>(id.xy), i32(id.z), vec4<f32>(blended_texel(id, size), 1.0));
}

// The blended diffuse light straight up, as a linear sampler reads the cubemap there: the
// mean of the four middle texels of the +Y face (face 2). The light the ground bounces is the
// same for every pixel, so the main pass reads it here once a blend instead of sampling it
// in every fragment.
@compute @workgroup_size(1, 1, 1)
fn cs_above() {
    let size = textureDimensions(per_sky).x;
    let first = max(size / 2u, 1u) - 1u;
    let last = min(size / 2u, size - 1u);
    var sum = vec3<f32>(0.0);
    for (var i = 0u; i < 4u; i++) {
        let x = select(first, last, (i & 1u) == 1u);
        let y = select(first, last, i >= 2u);
        sum += blended_texel(vec3<u32>(x, y, 2u), size);
    }
    sky_above = vec4<f32>(sum * 0.25, 1.0);
}
