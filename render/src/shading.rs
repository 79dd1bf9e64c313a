//! Which parts of the lit shader a material needs. Each set of needs gets a pipeline of its
//! own, made from the one mesh shader with WGSL override constants, so that a material runs
//! none of the code it does not use: a branch on a material's uniform does not save that work
//! on a GPU that flattens branches holding texture samples (measured on the H200: untaken
//! normal, metal-roughness, occlusion and emissive map branches cost a plain material as much
//! as its specular light; docs/performance.md).

use crate::gpu_types::GpuMaterial;

/// The level of detail from which materials are shaded as [`Shading::far`]: the silhouette
/// level, which NPCs take beyond about 20 m, where a standing one is under 90 pixels tall.
pub const FAR_LOD: u8 = 3;

/// The level [`FAR_LOD`] or the setting `NPC_FAR_SHADING_LOD` names (a level; 4 or more: never),
/// for timing.
#[must_use]
pub fn far_lod_from_env() -> u8 {
    std::env::var("NPC_FAR_SHADING_LOD")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(FAR_LOD)
}

/// A material's shading needs: its texture maps and the optional parts of the shader.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Shading {
    pub normal_map: bool,
    pub metallic_roughness_map: bool,
    pub occlusion_map: bool,
    pub emissive_map: bool,
    /// `KHR_materials_specular`'s textures.
    pub specular_map: bool,
    /// The softer, warmer falloff of skin.
    pub skin: bool,
    /// The catchlight of eyes.
    pub eye: bool,
    pub clearcoat: bool,
    /// VRM's MToon.
    pub toon: bool,
    pub unlit: bool,
}

impl Shading {
    /// No part: the least needs (the first in order; [`Self::FULL`] is the last).
    pub const MIN: Self = Self {
        normal_map: false,
        metallic_roughness_map: false,
        occlusion_map: false,
        emissive_map: false,
        specular_map: false,
        skin: false,
        eye: false,
        clearcoat: false,
        toon: false,
        unlit: false,
    };

    /// Every part: what a pipeline made without override constants runs (the shader then
    /// reads each need from the material's uniform).
    pub const FULL: Self = Self {
        normal_map: true,
        metallic_roughness_map: true,
        occlusion_map: true,
        emissive_map: true,
        specular_map: true,
        skin: true,
        eye: true,
        clearcoat: true,
        toon: true,
        unlit: true,
    };

    /// The needs of the material whose uniform is `m`, read as the shader reads them.
    #[must_use]
    pub fn of(m: &GpuMaterial) -> Self {
        let has = |slot: usize| m.uv[2 * slot][3] > 0.5;
        Self {
            normal_map: has(2) && m.surface[2] != 0.0,
            metallic_roughness_map: has(1),
            occlusion_map: has(3),
            emissive_map: has(4),
            specular_map: has(5) || has(6),
            skin: m.role[1] > 0.5,
            eye: m.role[0] > 0.5,
            clearcoat: m.clearcoat[0] > 0.0,
            toon: m.role[2] == 1.0,
            unlit: m.role[2] == 2.0,
        }
    }

    /// The needs of the same material drawn at a far level of detail ([`FAR_LOD`] or
    /// coarser): no normal map. Its texels are smaller than a pixel there, and the coarse
    /// level's surface is no longer the one the map was baked on.
    #[must_use]
    pub fn far(self) -> Self {
        Self {
            normal_map: false,
            ..self
        }
    }

    /// The needs of a primitive with needs `self` drawn at level of detail `lod`, where the
    /// far shading begins at `far_lod`.
    #[must_use]
    pub fn at_lod(self, lod: u8, far_lod: u8) -> Self {
        if lod >= far_lod { self.far() } else { self }
    }

    /// The shader's override constants for these needs (mesh.wgsl).
    #[must_use]
    pub fn constants(self) -> [(&'static str, f64); 10] {
        let on = |b: bool| f64::from(u8::from(b));
        [
            ("NORMAL_MAP", on(self.normal_map)),
            ("METALLIC_ROUGHNESS_MAP", on(self.metallic_roughness_map)),
            ("OCCLUSION_MAP", on(self.occlusion_map)),
            ("EMISSIVE_MAP", on(self.emissive_map)),
            ("SPECULAR_MAP", on(self.specular_map)),
            ("SKIN", on(self.skin)),
            ("EYE", on(self.eye)),
            ("COAT", on(self.clearcoat)),
            ("TOON", on(self.toon)),
            ("UNLIT", on(self.unlit)),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_material_needs_nothing_and_each_part_is_read_from_the_uniform() {
        let plain: GpuMaterial = bytemuck::Zeroable::zeroed();
        assert_eq!(Shading::of(&plain), Shading::MIN);
        let mut eye = plain;
        eye.role[0] = 1.0;
        assert!(Shading::of(&eye).eye);
        let mut toon = plain;
        toon.role[2] = 1.0;
        assert!(Shading::of(&toon).toon && !Shading::of(&toon).unlit);
        let mut mapped = plain;
        mapped.uv[4][3] = 1.0;
        assert!(
            !Shading::of(&mapped).normal_map,
            "a normal map at scale 0 is not read"
        );
        mapped.surface[2] = 1.0;
        assert!(Shading::of(&mapped).normal_map);
        assert!(Shading::FULL.constants().iter().all(|&(_, v)| v == 1.0));
    }
}
