// What a surface looks like: its material, the scene's light and the shading they make,
// shared by the mesh passes (mesh.wgsl) and the compute resolve (resolve.wgsl). The sampling
// of material textures (`sample_slot`) and the screen derivatives come from the including
// module. Prefixed with globals.wgsl and deform.wgsl.

// A primitive's material: glTF's metallic-roughness model. Mirrors `gpu_types::GpuMaterial`.
struct Material {
    // Linear RGBA.
    base_color: vec4<f32>,
    // rgb: linear light given off; a: fragments with alpha below it are discarded (0 for
    // opaque materials).
    emissive: vec4<f32>,
    // x: metallic, y: roughness, z: normal scale (0 without a normal map), w: occlusion
    // strength.
    surface: vec4<f32>,
    // Each texture's coordinate transform (two rows of a 2x3 matrix), by slot (the SLOT_
    // constants); the first row's w is 1 where the slot has a texture.
    uv: array<vec4<f32>, 30>,
    // x: 1 for eyes (a catchlight), y: 1 for skin (a softer, warmer falloff), z: the shading
    // model (0 physically based, 1 VRM's MToon, 2 unlit), w: 1 when MToon's shade texture is
    // the base colour's (read once).
    role: vec4<f32>,
    // MToon: rgb the shade colour, a toony.
    toon_shade: vec4<f32>,
    // MToon: x shift, y rim Fresnel power, z rim lift, w rim lighting mix.
    toon_step: vec4<f32>,
    // MToon: rgb the rim colour.
    toon_rim: vec4<f32>,
    // rgb: the dielectric's reflectance at normal incidence from its index of refraction (0.04
    // for glTF's 1.5) tinted by KHR_materials_specular's colour, before its texture and the
    // clamp to 1; a: the specular factor, before its texture.
    dielectric: vec4<f32>,
    // KHR_materials_clearcoat: x the coat's share (0 without one), y its roughness, z its
    // normal map's scale (0 without one).
    clearcoat: vec4<f32>,
    // MToon's outline: rgb its colour, a how much the lit colour tints it.
    toon_outline: vec4<f32>,
    // MToon's outline: x its width (0 without one), y how it is measured (OUTLINE_WORLD or
    // OUTLINE_SCREEN), z 1 when its width texture is read in red (VRM 0.x), else green.
    outline_width: vec4<f32>,
    // MToon: rgb the matcap's factor, a the shading shift texture's scale.
    toon_matcap: vec4<f32>,
}

// The parts of the lit shader a material needs, fixed per pipeline (render/src/shading.rs
// makes one pipeline per set the loaded materials use): a material's pipeline holds none of
// the code it does not need. (A branch on the material's uniform alone does not spare that
// work on a GPU that flattens branches holding texture samples.) With the defaults, one
// pipeline draws every material, reading its needs from the uniform.
override NORMAL_MAP: bool = true;
override METALLIC_ROUGHNESS_MAP: bool = true;
override OCCLUSION_MAP: bool = true;
override EMISSIVE_MAP: bool = true;
override SPECULAR_MAP: bool = true;
override SKIN: bool = true;
override EYE: bool = true;
override COAT: bool = true;
override TOON: bool = true;
override UNLIT: bool = true;
// A pipeline made for toon materials alone (TOON without UNLIT: only the pipeline for every
// material has both): the physically based light is left out of it altogether.
override TOON_ONLY: bool = TOON && !UNLIT;

const MODEL_TOON: f32 = 1.0;
const MODEL_UNLIT: f32 = 2.0;
// Outline widths in metres along the normal, or as a share of the screen's height.
const OUTLINE_WORLD: f32 = 1.0;
const OUTLINE_SCREEN: f32 = 2.0;

// How far past the terminator skin's light wraps, per channel: red scatters furthest under
// the skin, so the falloff warms as it softens.
const SKIN_WRAP: vec3<f32> = vec3<f32>(0.45, 0.25, 0.2);
// Roughness the catchlight is reflected with, whatever the eye material says (matte eyes
// too): the source is a broad one (a window, the open sky), so its reflection spans a few
// degrees of the eye's surface, a few pixels of a closeup rather than a lost sub-pixel glint.
const CORNEA_ROUGHNESS: f32 = 0.3;

const SLOT_BASE_COLOR: u32 = 0u;
const SLOT_METALLIC_ROUGHNESS: u32 = 1u;
const SLOT_NORMAL: u32 = 2u;
const SLOT_OCCLUSION: u32 = 3u;
const SLOT_EMISSIVE: u32 = 4u;
const SLOT_SPECULAR: u32 = 5u;
const SLOT_SPECULAR_COLOR: u32 = 6u;
const SLOT_CLEARCOAT: u32 = 7u;
const SLOT_CLEARCOAT_ROUGHNESS: u32 = 8u;
const SLOT_CLEARCOAT_NORMAL: u32 = 9u;
const SLOT_TOON_SHADE: u32 = 10u;
const SLOT_TOON_SHIFT: u32 = 11u;
const SLOT_MATCAP: u32 = 12u;
const SLOT_RIM: u32 = 13u;
const SLOT_OUTLINE_WIDTH: u32 = 14u;
const PI: f32 = 3.14159265;

// A vertex the deform pass wrote, in the world: the position, the normal and tangent
// (octahedral), the texture coordinate and the bitangent's sign (0: no tangent). Mirrors
// `gpu_types::GpuDeformed`.
struct DeformedVertex {
    position: vec3<f32>,
    u: f32,
    normal: u32,
    tangent: u32,
    v: f32,
    tangent_sign: f32,
}

@group(0) @binding(6) var<storage, read> deformed: array<DeformedVertex>;

@group(1) @binding(0) var<uniform> material: Material;
@group(1) @binding(1) var base_color_texture: texture_2d<f32>;
@group(1) @binding(2) var metallic_roughness_texture: texture_2d<f32>;
@group(1) @binding(3) var normal_texture: texture_2d<f32>;
@group(1) @binding(4) var occlusion_texture: texture_2d<f32>;
@group(1) @binding(5) var emissive_texture: texture_2d<f32>;
// KHR_materials_specular: the factor in alpha, the colour (sRGB).
@group(1) @binding(6) var specular_texture: texture_2d<f32>;
@group(1) @binding(7) var specular_color_texture: texture_2d<f32>;
// KHR_materials_clearcoat: the share in red, the roughness in green, the coat's normal map.
@group(1) @binding(8) var clearcoat_texture: texture_2d<f32>;
@group(1) @binding(9) var clearcoat_roughness_texture: texture_2d<f32>;
@group(1) @binding(10) var clearcoat_normal_texture: texture_2d<f32>;
// MToon: the shade colour (sRGB), the shading shift in red, the matcap and the rim's multiplier
// (sRGB), the outline's width (green, or red for VRM 0.x; read by the outline's vertices).
@group(1) @binding(11) var toon_shade_texture: texture_2d<f32>;
@group(1) @binding(12) var toon_shift_texture: texture_2d<f32>;
@group(1) @binding(13) var matcap_texture: texture_2d<f32>;
@group(1) @binding(14) var rim_texture: texture_2d<f32>;
@group(1) @binding(15) var outline_width_texture: texture_2d<f32>;
@group(1) @binding(16) var material_sampler: sampler;

@group(2) @binding(0) var shadow_map: texture_depth_2d;
@group(2) @binding(1) var shadow_sampler: sampler_comparison;
// The image-based light (render/src/environment.rs): the sky's diffuse light by normal, its
// prefiltered reflection by direction and roughness, the split-sum table.
@group(2) @binding(2) var sky_irradiance: texture_cube<f32>;
@group(2) @binding(3) var sky_specular: texture_cube<f32>;
@group(2) @binding(4) var brdf_table: texture_2d<f32>;
@group(2) @binding(5) var environment_sampler: sampler;
// The diffuse light straight up (rgb), as sampling `sky_irradiance` there gives it: worked out
// once a blend (environment.wgsl, cs_above), not in every fragment.
@group(2) @binding(6) var<uniform> sky_above: vec4<f32>;

// Levels of the specular cubemap, roughness 0 to 1 (mirrors environment::SPECULAR_LEVELS).
const SPECULAR_LEVELS: f32 = 6.0;
// The share of light the ground around reflects (grass and earth, neutral).
const GROUND_ALBEDO: f32 = 0.2;
// How much of the sky's own colour its diffuse light keeps (the rest is the day's ambient
// colour at the same luminance).
const SKY_COLOUR: f32 = 0.35;

struct VsOut {
    // Invariant: the main pass's depth-only pipelines and the shading ones compute the same
    // depth for a vertex, so shading tests it `Equal`.
    @builtin(position) @invariant clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
    // xyz along +u, w the bitangent's sign (0: no tangent; the frame comes from derivatives).
    @location(3) tangent: vec4<f32>,
}

// The world-space vertex: written by the deform pass for skinned or morphed objects, else the
// stored vertex placed by the object's model matrix.
fn world_vertex(vertex_index: u32, object: Object) -> Deformed {
    if object.deformed_base == NOT_DEFORMED {
        let v = vertices[vertex_index];
        let world = object.model * vec4<f32>(v.position, 1.0);
        let tangent = (object.model * vec4<f32>(octahedral_decode(v.tangent), 0.0)).xyz;
        return Deformed(world.xyz, (object.model * vec4<f32>(v.normal, 0.0)).xyz, v.uv, vec4<f32>(tangent, v.tangent_sign));
    }
    let d = deformed[object.deformed_base + vertex_index - object.vertex_base];
    return Deformed(d.position, octahedral_decode(d.normal), vec2<f32>(d.u, d.v), vec4<f32>(octahedral_decode(d.tangent), d.tangent_sign));
}

// The vertex seen through `view_proj` (the camera's or the light's).
fn vertex_out(vertex_index: u32, instance: u32, view_proj: mat4x4<f32>) -> VsOut {
    let d = world_vertex(vertex_index, objects[instance]);
    var out: VsOut;
    out.clip = view_proj * vec4<f32>(d.position, 1.0);
    out.world = d.position;
    out.normal = d.normal;
    out.uv = d.uv;
    out.tangent = d.tangent;
    return out;
}

// Whether the material has a texture in `slot` (uniform for a draw: branching on it keeps
// sampling in uniform control flow, and skips the neutral texture's samples).
fn has_texture(slot: u32) -> bool {
    return material.uv[2u * slot].w > 0.5;
}

// Screen derivatives (a pixel right, a pixel down) of the texture coordinate and of the world
// position where the surface is shaded: the fragment stage takes them from its neighbours
// (`set_derivatives`), the compute resolve from the triangle's plane.
var<private> uv_dx: vec2<f32>;
var<private> uv_dy: vec2<f32>;
var<private> world_dx: vec3<f32>;
var<private> world_dy: vec3<f32>;

// A step `d` of the texture coordinate as a step in `slot`'s (its transform's linear part).
fn slot_step(slot: u32, d: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(dot(material.uv[2u * slot].xy, d), dot(material.uv[2u * slot + 1u].xy, d));
}

// The texture coordinates of `slot` (its KHR_texture_transform applied).
fn slot_uv(slot: u32, uv: vec2<f32>) -> vec2<f32> {
    let p = vec3<f32>(uv, 1.0);
    return vec2<f32>(dot(material.uv[2u * slot].xyz, p), dot(material.uv[2u * slot + 1u].xyz, p));
}

// The base-colour texture's texel at this fragment, as `albedo` read it: MToon's shade reuses
// it where the shade texture is the base colour's (as VRM 1.0 exports often make it) instead of
// reading the same texture again.
var<private> base_texel: vec3<f32> = vec3<f32>(1.0);

fn albedo(uv: vec2<f32>) -> vec4<f32> {
    let texel = sample_slot(base_color_texture, SLOT_BASE_COLOR, uv);
    base_texel = texel.rgb;
    return material.base_color * texel;
}

// 1 in full light, 0 fully shadowed: four bilinear comparisons half a texel apart (each one
// already filters 2x2 texels), a smooth edge for little sampling.
fn sun_visibility(world: vec3<f32>, normal: vec3<f32>) -> f32 {
    if globals.params.w < 0.5 {
        return 1.0;
    }
    let offset_world = world + normal * globals.shadow.z;
    let p = globals.light_view_proj * vec4<f32>(offset_world, 1.0);
    let ndc = p.xyz / p.w;
    let uv = ndc.xy * vec2<f32>(0.5, -0.5) + vec2<f32>(0.5, 0.5);
    if any(uv < vec2<f32>(0.0)) || any(uv > vec2<f32>(1.0)) || ndc.z > 1.0 {
        return 1.0;
    }
    let depth = ndc.z - globals.shadow.y;
    let h = 0.5 * globals.shadow.x;
    var lit = textureSampleCompareLevel(shadow_map, shadow_sampler, uv + vec2<f32>(-h, -h), depth);
    lit += textureSampleCompareLevel(shadow_map, shadow_sampler, uv + vec2<f32>(h, -h), depth);
    lit += textureSampleCompareLevel(shadow_map, shadow_sampler, uv + vec2<f32>(-h, h), depth);
    lit += textureSampleCompareLevel(shadow_map, shadow_sampler, uv + vec2<f32>(h, h), depth);
    return lit * 0.25;
}

// The normal bent by the material's normal map. glTF's frame: the tangent along +u, the
// map's +Y up the image (toward smaller v), both reversed on back faces. The frame is the
// vertex's tangent (the file's or MikkTSpace's, as the map was baked with) where it has one,
// else made from the screen-space derivatives of position and texture coordinates.
fn mapped_normal(n: vec3<f32>, front: bool, world: vec3<f32>, uv: vec2<f32>, tangent: vec4<f32>) -> vec3<f32> {
    let scale = material.surface.z;
    // A uniform branch (the material's): what follows still runs for every pixel of the quad,
    // as implicit derivatives need.
    if !NORMAL_MAP || scale == 0.0 || !has_texture(SLOT_NORMAL) {
        return n;
    }
    let texel = sample_slot(normal_texture, SLOT_NORMAL, uv).xyz;
    return bent_normal(n, front, texel, scale, tangent, SLOT_NORMAL);
}

// `n` (the geometric normal, turned toward the viewer on back faces) bent by a normal map's
// `texel` read in `slot`, its tangent directions scaled by `scale`.
fn bent_normal(n: vec3<f32>, front: bool, texel: vec3<f32>, scale: f32, tangent: vec4<f32>, slot: u32) -> vec3<f32> {
    let tangent_space = texel * 2.0 - 1.0;
    let bent = vec3<f32>(tangent_space.xy * scale, tangent_space.z);
    let side = select(-1.0, 1.0, front);
    let dp1 = world_dx;
    let dp2 = world_dy;
    let duv1 = slot_step(slot, uv_dx);
    let duv2 = slot_step(slot, uv_dy);
    if tangent.w != 0.0 {
        let frame = stored_frame(n * side, tangent, slot);
        if frame[0].x < 2.0 {
            return normalize(side * (frame[0] * bent.x + frame[1] * bent.y) + n * bent.z);
        }
    }
    // Schüler's cotangent frame (as three.js draws glTF files without tangents). With WGSL's
    // downward screen y, the cotangent vectors t and b come out as -grad(u) and -grad(v)
    // scaled alike.
    let dp2perp = cross(dp2, n);
    let dp1perp = cross(n, dp1);
    let t = dp2perp * duv1.x + dp1perp * duv2.x;
    let b = dp2perp * duv1.y + dp1perp * duv2.y;
    let size = max(dot(t, t), dot(b, b));
    if size < 1e-20 {
        return n;
    }
    return normalize(side * inverseSqrt(size) * (b * bent.y - t * bent.x) + n * bent.z);
}

// The vertex's tangent frame (tangent, bitangent up the image) at the front-facing `normal`,
// square to it (a morph or the interpolation may have turned it), and turned with `slot`'s
// texture transform (taking a texel as long as it is wide on the surface); the tangent's x
// is 2 or more where there is no frame.
fn stored_frame(normal: vec3<f32>, tangent: vec4<f32>, slot: u32) -> mat2x3<f32> {
    let square = tangent.xyz - normal * dot(normal, tangent.xyz);
    if dot(square, square) < 1e-12 {
        return mat2x3<f32>(vec3<f32>(2.0), vec3<f32>(0.0));
    }
    // How the surface moves with u and v (v runs down the image).
    let along_u = normalize(square);
    let along_v = -cross(normal, along_u) * tangent.w;
    // With the transform uv' = M uv + offset, d/du' and d/dv' are M's inverse applied.
    let m = mat2x2<f32>(material.uv[2u * slot].xy, material.uv[2u * slot + 1u].xy);
    // m's rows are the transform's rows: m[0] = (m00, m01), m[1] = (m10, m11).
    let det = m[0].x * m[1].y - m[0].y * m[1].x;
    let u2 = along_u * m[1].y - along_v * m[1].x;
    let v2 = along_v * m[0].x - along_u * m[0].y;
    if abs(det) < 1e-12 || dot(u2, u2) < 1e-12 || dot(v2, v2) < 1e-12 {
        return mat2x3<f32>(vec3<f32>(2.0), vec3<f32>(0.0));
    }
    let flip = sign(det);
    return mat2x3<f32>(normalize(u2) * flip, -normalize(v2) * flip);
}

// GGX (Trowbridge-Reitz) distribution of microfacet normals, `a` = roughness squared.
fn ggx(n_dot_h: f32, a: f32) -> f32 {
    let a2 = a * a;
    let d = n_dot_h * n_dot_h * (a2 - 1.0) + 1.0;
    return a2 / (PI * d * d);
}

// Smith's height-correlated visibility for GGX (the microfacet denominator folded in).
fn smith_visibility(n_dot_l: f32, n_dot_v: f32, a: f32) -> f32 {
    let a2 = a * a;
    let gv = n_dot_l * sqrt(n_dot_v * n_dot_v * (1.0 - a2) + a2);
    let gl = n_dot_v * sqrt(n_dot_l * n_dot_l * (1.0 - a2) + a2);
    return 0.5 / max(gv + gl, 1e-5);
}

fn fresnel(f0: vec3<f32>, v_dot_h: f32) -> vec3<f32> {
    return f0 + (1.0 - f0) * pow(1.0 - v_dot_h, 5.0);
}

// The light a white matte surface facing `n` gets from the sky and the ground around. The
// sky: brighter where the sky above the horizon is brighter (its diffuse light has a mean
// luminance of 1 facing up), at the day's ambient level and mostly in the day's ambient
// colour, the sky's own colours only in part: painted skies are display colours, far too
// saturated as light (the noon sky's light is 14 times as blue as red, and turned faces
// violet). At the ambient level rather than the texels', so a night sky painted almost black
// still lights faces a little, as the project tuned it. The ground: a neutral surface lit by
// the sun and the sky, seen by surfaces turned down (the sky's painted ground is not lit by
// the sun). Both times the scene's sky light setting.
fn sky_diffuse(n: vec3<f32>) -> vec3<f32> {
    let luminance = vec3<f32>(0.2126, 0.7152, 0.0722);
    let level = dot(globals.ambient.rgb, luminance);
    let light = textureSampleLevel(sky_irradiance, environment_sampler, n, 0.0).rgb;
    let from_sky = mix(globals.ambient.rgb * dot(light, luminance), light * level, SKY_COLOUR);
    let above = sky_above.rgb;
    let sky_above = mix(globals.ambient.rgb * dot(above, luminance), above * level, SKY_COLOUR);
    let sun_on_ground = globals.light_color.rgb * max(globals.light_direction.y, 0.0);
    let ground = GROUND_ALBEDO * (sun_on_ground + sky_above);
    return (from_sky + ground * (0.5 - 0.5 * n.y)) * globals.output.y;
}

// The sky seen in direction `r` in a surface of `roughness` (prefiltered for its lobe), as
// bright as the sky pass draws it, times the scene's sky light setting: a mirror shows the sky.
fn sky_reflection(r: vec3<f32>, roughness: f32) -> vec3<f32> {
    let level = roughness * (SPECULAR_LEVELS - 1.0);
    return textureSampleLevel(sky_specular, environment_sampler, r, level).rgb * globals.params.z * globals.output.y;
}

// The share of the light from all around that a GGX surface reflects: F0 scaled and biased
// by the split-sum table.
fn split_sum(f0: vec3<f32>, roughness: f32, n_dot_v: f32) -> vec3<f32> {
    let ab = textureSampleLevel(brdf_table, environment_sampler, vec2<f32>(n_dot_v, roughness), 0.0).rg;
    return f0 * ab.x + ab.y;
}

// An eye's catchlight: the wet cornea mirroring the brightest light in front of the face, a
// soft source a little above the viewer (as a photographer's key light, or the open sky behind
// them), so eyes look alive from wherever the sun is, matte eye materials too.
fn catchlight(n: vec3<f32>, v: vec3<f32>) -> vec3<f32> {
    let source = normalize(v + vec3<f32>(0.0, 0.35, 0.0));
    let h = normalize(source + v);
    let a = CORNEA_ROUGHNESS * CORNEA_ROUGHNESS;
    let n_dot_l = max(dot(n, source), 0.0);
    let n_dot_v = max(dot(n, v), 1e-4);
    let reflected = fresnel(vec3<f32>(0.04), max(dot(v, h), 0.0))
        * ggx(max(dot(n, h), 0.0), a) * smith_visibility(n_dot_l, n_dot_v, a) * n_dot_l;
    // Brighter than the sky around it and a share of the sun: a glint by day, faint by night.
    let radiance = globals.ambient.rgb * 3.0 + globals.light_color.rgb * 0.75;
    return reflected * radiance * PI;
}

// VRM's MToon, as three-vrm draws it: the lit colour where the surface faces the light, the
// shade colour where it turns away, a step between them as hard as `toony` (shifted by
// `shift`), the sun's shadow stepping to the shade colour; the sky lights the lit colour; a rim
// light at grazing angles.
fn toon(n: vec3<f32>, v: vec3<f32>, l: vec3<f32>, lit: vec3<f32>, uv: vec2<f32>, visibility: f32, sky: vec3<f32>) -> vec3<f32> {
    let toony = material.toon_shade.a;
    var shift = material.toon_step.x;
    if has_texture(SLOT_TOON_SHIFT) {
        let at = slot_uv(SLOT_TOON_SHIFT, uv);
        shift += textureSampleLevel(toon_shift_texture, material_sampler, at, isotropic_level(toon_shift_texture, SLOT_TOON_SHIFT)).r * material.toon_matcap.a;
    }
    let step = clamp(
        (clamp(dot(n, l), -1.0, 1.0) + shift + 1.0 - toony) / max(2.0 - 2.0 * toony, 1e-4),
        0.0,
        1.0,
    ) * visibility;
    var shade = material.toon_shade.rgb;
    if material.role.w > 0.5 {
        shade *= base_texel;
    } else if has_texture(SLOT_TOON_SHADE) {
        let at = slot_uv(SLOT_TOON_SHADE, uv);
        shade *= textureSampleLevel(toon_shade_texture, material_sampler, at, isotropic_level(toon_shade_texture, SLOT_TOON_SHADE)).rgb;
    }
    let direct = mix(shade, lit, step) * globals.light_color.rgb;
    let rim_shape = pow(clamp(1.0 - dot(n, v) + material.toon_step.z, 0.0, 1.0), max(material.toon_step.y, 1e-5));
    var rim = material.toon_rim.rgb * rim_shape;
    if has_texture(SLOT_MATCAP) {
        let at = slot_uv(SLOT_MATCAP, matcap_uv(n, v));
        rim += material.toon_matcap.rgb * textureSampleLevel(matcap_texture, material_sampler, at, 0.0).rgb;
    }
    if has_texture(SLOT_RIM) {
        let at = slot_uv(SLOT_RIM, uv);
        rim *= textureSampleLevel(rim_texture, material_sampler, at, isotropic_level(rim_texture, SLOT_RIM)).rgb;
    }
    rim *= mix(vec3<f32>(1.0), globals.light_color.rgb + sky, material.toon_step.w);
    return direct + lit * sky + rim;
}

// The mip level a texture is read at in `slot`: trilinear, without the material
// sampler's anisotropic taps. For MToon's tints (shade, shift, rim), which need no sharpness
// at grazing angles; anisotropic reads of them cost a VRoid crowd's main pass 0.26 ms of 5.7
// on an H100 (100 NPCs, 1080p). The matcap is read at its top level: a small picture (VRoid's is
// 5 KB), indexed by the normal rather than by the surface, sharp enough there and 0.53 ms
// cheaper than a filtered read.
fn isotropic_level(t: texture_2d<f32>, slot: u32) -> f32 {
    let size = vec2<f32>(textureDimensions(t));
    let footprint = max(length(slot_step(slot, uv_dx) * size), length(slot_step(slot, uv_dy) * size));
    return log2(max(footprint, 1.0));
}

// Where a matcap is read for normal `n` seen from direction `v` (toward the camera), as
// three-vrm reads it: the normal in the camera's frame, turned toward the point's own view
// direction so a sphere's picture stays round and upright away from the screen's centre; the
// picture's top is up. The camera's right and up are the view-projection's first two rows
// (a perspective or orthographic lens without skew scales them, no more).
fn matcap_uv(n: vec3<f32>, v: vec3<f32>) -> vec2<f32> {
    let m = globals.view_proj;
    let right = normalize(vec3<f32>(m[0].x, m[1].x, m[2].x));
    let up = normalize(vec3<f32>(m[0].y, m[1].y, m[2].y));
    let back = cross(right, up);
    let view_v = vec3<f32>(dot(v, right), dot(v, up), dot(v, back));
    let view_n = vec3<f32>(dot(n, right), dot(n, up), dot(n, back));
    let x = normalize(vec3<f32>(view_v.z, 0.0, -view_v.x));
    let y = cross(view_v, x);
    return 0.5 + 0.5 * vec2<f32>(dot(x, view_n), -dot(y, view_n));
}

fn shade(in: VsOut, front: bool, base: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(display(fogged(lit(in, front, base), in.world)), 1.0);
}

// `color` at `world` faded into the fog by its distance from the camera.
fn fogged(color: vec3<f32>, world: vec3<f32>) -> vec3<f32> {
    let distance = length(world - globals.camera_position.xyz);
    let fog = clamp((distance - globals.params.x) / max(globals.params.y - globals.params.x, 0.001), 0.0, 1.0);
    return mix(color, globals.fog_color.rgb, fog);
}

// The light the surface sends toward the camera (linear, before fog).
fn lit(in: VsOut, front: bool, base: vec4<f32>) -> vec3<f32> {
    var geometric = normalize(in.normal);
    if !front {
        geometric = -geometric;
    }
    let n = mapped_normal(geometric, front, in.world, in.uv, in.tangent);
    var mr = vec4<f32>(1.0);
    if METALLIC_ROUGHNESS_MAP && has_texture(SLOT_METALLIC_ROUGHNESS) {
        mr = sample_slot(metallic_roughness_texture, SLOT_METALLIC_ROUGHNESS, in.uv);
    }
    var occlusion_texel = 1.0;
    if OCCLUSION_MAP && has_texture(SLOT_OCCLUSION) {
        occlusion_texel = sample_slot(occlusion_texture, SLOT_OCCLUSION, in.uv).r;
    }
    var emissive_texel = vec3<f32>(1.0);
    if EMISSIVE_MAP && has_texture(SLOT_EMISSIVE) {
        emissive_texel = sample_slot(emissive_texture, SLOT_EMISSIVE, in.uv).rgb;
    }
    let v = normalize(globals.camera_position.xyz - in.world);
    let l = globals.light_direction.xyz;
    if TOON_ONLY {
        let visibility = sun_visibility(in.world, geometric);
        return toon(n, v, l, base.rgb, in.uv, visibility, sky_diffuse(n)) + material.emissive.rgb * emissive_texel;
    }
    let metallic = clamp(material.surface.x * mr.b, 0.0, 1.0);
    let roughness = clamp(material.surface.y * mr.g, 0.045, 1.0);
    let occlusion = mix(1.0, occlusion_texel, material.surface.w);
    let a = roughness * roughness;
    // KHR_materials_specular: the colour's texture tints the reflectance before it is held to
    // 1, the factor's scales it after.
    var tinted = material.dielectric.rgb;
    var strength = material.dielectric.a;
    if SPECULAR_MAP && has_texture(SLOT_SPECULAR_COLOR) {
        tinted *= sample_slot(specular_color_texture, SLOT_SPECULAR_COLOR, in.uv).rgb;
    }
    if SPECULAR_MAP && has_texture(SLOT_SPECULAR) {
        strength *= sample_slot(specular_texture, SLOT_SPECULAR, in.uv).a;
    }
    let f0 = mix(min(tinted, vec3<f32>(1.0)) * strength, base.rgb, metallic);
    let diffuse_color = base.rgb * (1.0 - metallic);

    let h = normalize(l + v);
    let n_dot_l = max(dot(n, l), 0.0);
    let n_dot_v = max(abs(dot(n, v)), 1e-4);
    let n_dot_h = max(dot(n, h), 0.0);
    let v_dot_h = max(dot(v, h), 0.0);
    // The sun: its colour is the light a white matte surface facing it shows, so both lobes
    // are scaled by pi (Lambert's 1/pi folded into the light).
    let f = fresnel(f0, v_dot_h);
    let specular = f * ggx(n_dot_h, a) * smith_visibility(n_dot_l, n_dot_v, a) * PI;
    // Skin: light wraps past the terminator, red furthest (scattering under the skin).
    var diffuse_light = vec3<f32>(n_dot_l);
    if SKIN && material.role.y > 0.5 {
        diffuse_light = clamp((vec3<f32>(dot(n, l)) + SKIN_WRAP) / (1.0 + SKIN_WRAP), vec3<f32>(0.0), vec3<f32>(1.0));
    }
    let sun = diffuse_color * (1.0 - f) * diffuse_light + specular * n_dot_l;
    let visibility = sun_visibility(in.world, geometric);
    // The sky: its diffuse light by the normal, its reflection by the mirrored view, where a
    // bent normal reflects from below the surface's horizon, the surface hides it.
    let sky = sky_diffuse(n);
    let r = reflect(-v, n);
    let horizon = clamp(1.0 + dot(r, geometric), 0.0, 1.0);
    let reflection = sky_reflection(r, roughness) * horizon * horizon;
    let sky_light = (diffuse_color * sky + split_sum(f0, roughness, n_dot_v) * reflection) * occlusion;
    var color = sky_light + visibility * sun * globals.light_color.rgb
        + material.emissive.rgb * emissive_texel;
    // Eyes only (a uniform branch: other materials skip its work).
    if EYE && material.role.x > 0.5 {
        color += catchlight(n, v);
    }
    // A clear coat over it all (a uniform branch): its own sharper lobe on the geometric
    // normal (the coat is smooth over the base's bumps) or its own normal map's, dimming what is
    // under it by the light it reflects.
    if COAT && material.clearcoat.x > 0.0 {
        var coat = material.clearcoat.x;
        if has_texture(SLOT_CLEARCOAT) {
            coat *= sample_slot(clearcoat_texture, SLOT_CLEARCOAT, in.uv).r;
        }
        var coat_roughness = max(material.clearcoat.y, 0.045);
        if has_texture(SLOT_CLEARCOAT_ROUGHNESS) {
            let texel = sample_slot(clearcoat_roughness_texture, SLOT_CLEARCOAT_ROUGHNESS, in.uv).g;
            coat_roughness = max(material.clearcoat.y * texel, 0.045);
        }
        var cn = geometric;
        if material.clearcoat.z != 0.0 && has_texture(SLOT_CLEARCOAT_NORMAL) {
            let texel = sample_slot(clearcoat_normal_texture, SLOT_CLEARCOAT_NORMAL, in.uv).xyz;
            cn = bent_normal(geometric, front, texel, material.clearcoat.z, in.tangent, SLOT_CLEARCOAT_NORMAL);
        }
        let coat_a = coat_roughness * coat_roughness;
        let c_dot_l = max(dot(cn, l), 0.0);
        let c_dot_v = max(abs(dot(cn, v)), 1e-4);
        let coat_f = fresnel(vec3<f32>(0.04), v_dot_h).x * coat;
        let coat_sun = coat_f * ggx(max(dot(cn, h), 0.0), coat_a) * smith_visibility(c_dot_l, c_dot_v, coat_a) * PI * c_dot_l;
        let coat_sky = split_sum(vec3<f32>(0.04), coat_roughness, c_dot_v).x * coat
            * sky_reflection(reflect(-v, cn), coat_roughness);
        color = color * (1.0 - coat_f) + visibility * coat_sun * globals.light_color.rgb + coat_sky * occlusion;
    }
    if TOON && material.role.z == MODEL_TOON {
        color = toon(n, v, l, base.rgb, in.uv, visibility, sky) + material.emissive.rgb * emissive_texel;
    } else if UNLIT && material.role.z == MODEL_UNLIT {
        color = base.rgb;
    }
    return color;
}
