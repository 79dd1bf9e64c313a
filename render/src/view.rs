//! What one frame looks at: the camera, the day's light, fog and the shadow's reach, turned
//! into the shaders' per-frame values.

use glam::{Mat4, Vec3};
use npc_core::daylight::Daylight;

use super::gpu_types::{Globals, mat, vec4};

/// A perspective camera.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    pub position: Vec3,
    /// Point looked at.
    pub target: Vec3,
    /// Vertical field of view, radians.
    pub fov_y: f32,
    pub near: f32,
    pub far: f32,
}

impl Camera {
    /// A camera at `position` looking at `target` with a 60 degree field of view.
    #[must_use]
    pub fn looking_at(position: Vec3, target: Vec3) -> Self {
        Self {
            position,
            target,
            fov_y: 60_f32.to_radians(),
            near: 0.05,
            far: 1000.0,
        }
    }

    /// Projection times view for an image of `aspect` (width / height).
    #[must_use]
    pub fn view_proj(&self, aspect: f32) -> Mat4 {
        let forward = (self.target - self.position)
            .try_normalize()
            .unwrap_or(Vec3::NEG_Z);
        // Looking straight up or down: any other up works.
        let up = if forward.y.abs() > 0.999 {
            Vec3::Z
        } else {
            Vec3::Y
        };
        let view = glam::camera::rh::view::look_at_mat4(self.position, self.position + forward, up);
        let proj = glam::camera::rh::proj::directx::perspective(
            self.fov_y,
            aspect.max(1e-3),
            self.near,
            self.far,
        );
        proj * view
    }
}

/// The region the shadow map covers: a sphere around what the camera sees nearby.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShadowReach {
    pub center: Vec3,
    pub radius: f32,
}

/// Everything a frame needs besides the draw list.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrameView {
    pub camera: Camera,
    pub daylight: Daylight,
    pub fog_start: f32,
    pub fog_end: f32,
    pub shadows: bool,
    pub shadow_reach: ShadowReach,
    /// Scene light to display light before the tone map (1: as lit).
    pub exposure: f32,
    /// Strength of the light from the sky (diffuse and reflected), 1 as the sky shows.
    pub sky_light: f32,
}

/// The light's view and orthographic projection covering `reach`, its centre snapped to
/// whole shadow-map texels so shadows do not shimmer as the camera moves.
#[must_use]
pub fn light_view_proj(light_direction: Vec3, reach: ShadowReach, map_size: u32) -> Mat4 {
    let l = light_direction.try_normalize().unwrap_or(Vec3::Y);
    let r = reach.radius.max(0.1);
    let up = if l.y.abs() > 0.999 { Vec3::Z } else { Vec3::Y };
    let view = glam::camera::rh::view::look_at_mat4(reach.center + l * (2.0 * r), reach.center, up);
    // Snap the centre in light space.
    let texel = 2.0 * r / map_size.max(1) as f32;
    let c = view.transform_point3(reach.center);
    let snap = Vec3::new(
        (c.x / texel).round() * texel - c.x,
        (c.y / texel).round() * texel - c.y,
        0.0,
    );
    let view = Mat4::from_translation(snap) * view;
    let proj = glam::camera::rh::proj::directx::orthographic(-r, r, -r, r, 0.0, 4.0 * r);
    proj * view
}

impl FrameView {
    /// The shaders' per-frame values for an image of `aspect` and a shadow map of `map_size`.
    #[must_use]
    pub fn globals(&self, aspect: f32, map_size: u32) -> Globals {
        let view_proj = self.camera.view_proj(aspect);
        let d = &self.daylight;
        let light = light_view_proj(d.light_direction, self.shadow_reach, map_size);
        Globals {
            view_proj: mat(view_proj),
            light_view_proj: mat(light),
            inverse_view_proj: mat(view_proj.inverse()),
            camera_position: vec4(self.camera.position, 1.0),
            light_direction: vec4(d.light_direction, 0.0),
            light_color: vec4(d.light_color, 1.0),
            ambient: vec4(d.ambient, 1.0),
            fog_color: vec4(d.fog_color, 1.0),
            sky_weights: [d.sky[0], d.sky[1], d.sky[2], d.warmth],
            params: [
                self.fog_start,
                self.fog_end,
                d.brightness,
                if self.shadows { 1.0 } else { 0.0 },
            ],
            shadow: [
                1.0 / map_size.max(1) as f32,
                0.0005,
                0.04 * self.shadow_reach.radius / 30.0,
                0.0,
            ],
            output: [
                self.exposure.max(0.0),
                self.sky_light.max(0.0),
                1.0 / aspect.max(1e-3),
                0.0,
            ],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_camera_puts_its_target_in_the_middle_of_the_image() {
        let c = Camera::looking_at(Vec3::new(3.0, 2.0, 5.0), Vec3::new(0.0, 1.0, 0.0));
        let p = c.view_proj(16.0 / 9.0).project_point3(c.target);
        assert!(p.x.abs() < 1e-5 && p.y.abs() < 1e-5, "{p}");
        assert!((0.0..1.0).contains(&p.z));
    }

    #[test]
    fn the_shadow_reach_lies_inside_the_light_volume() {
        let reach = ShadowReach {
            center: Vec3::new(10.0, 0.0, -4.0),
            radius: 20.0,
        };
        let m = light_view_proj(Vec3::new(0.3, 0.8, 0.2), reach, 2048);
        for offset in [
            Vec3::ZERO,
            Vec3::X * 19.0,
            Vec3::NEG_Z * 19.0,
            Vec3::Y * 19.0,
        ] {
            let p = m.project_point3(reach.center + offset);
            assert!(p.x.abs() <= 1.0 && p.y.abs() <= 1.0, "{offset}: {p}");
            assert!((0.0..=1.0).contains(&p.z), "{offset}: {p}");
        }
    }

    #[test]
    fn things_nearer_the_light_have_smaller_depth() {
        let reach = ShadowReach {
            center: Vec3::ZERO,
            radius: 10.0,
        };
        let l = Vec3::new(0.0, 1.0, 0.0);
        let m = light_view_proj(l, reach, 1024);
        let high = m.project_point3(Vec3::new(0.0, 2.0, 0.0));
        let low = m.project_point3(Vec3::ZERO);
        assert!(high.z < low.z);
    }
}
