//! The first-person camera: walks on the ground at eye height (WASD, Shift to hurry), looks
//! around with the mouse.

use glam::Vec3;

use crate::world::{EYE_HEIGHT, Ground};
use npc_render::Camera;

/// Walking speed, metres per second (doubled with Shift).
pub const SPEED: f32 = 3.0;
/// Radians of turn per pixel of mouse motion.
pub const LOOK_SENSITIVITY: f32 = 0.003;

/// Which way a key moves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Moves {
    pub forward: bool,
    pub back: bool,
    pub left: bool,
    pub right: bool,
    pub hurry: bool,
}

/// A walker's position and view direction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FirstPerson {
    /// Feet on the ground.
    pub position: Vec3,
    /// Turn about +Y; 0 looks along -Z.
    pub yaw: f32,
    /// Up (+) or down (-), radians.
    pub pitch: f32,
    pub moves: Moves,
}

impl FirstPerson {
    /// Standing at the eye of `camera`, looking where it looks.
    #[must_use]
    pub fn from_camera(camera: &Camera) -> Self {
        let d = (camera.target - camera.position).normalize_or(Vec3::NEG_Z);
        Self {
            position: camera.position - Vec3::Y * EYE_HEIGHT,
            yaw: (-d.x).atan2(-d.z),
            pitch: d.y.clamp(-1.0, 1.0).asin(),
            moves: Moves::default(),
        }
    }

    /// The direction looked along.
    #[must_use]
    pub fn forward(&self) -> Vec3 {
        Vec3::new(
            -self.yaw.sin() * self.pitch.cos(),
            self.pitch.sin(),
            -self.yaw.cos() * self.pitch.cos(),
        )
    }

    /// Turns by a mouse motion of (`dx`, `dy`) pixels.
    pub fn look(&mut self, dx: f64, dy: f64) {
        self.yaw -= dx as f32 * LOOK_SENSITIVITY;
        self.pitch = (self.pitch - dy as f32 * LOOK_SENSITIVITY).clamp(-1.45, 1.45);
    }

    /// Walks for `dt_s` as the keys say, feet kept on `ground`.
    pub fn update(&mut self, dt_s: f32, ground: &Ground) {
        let flat_forward = Vec3::new(-self.yaw.sin(), 0.0, -self.yaw.cos());
        let right = Vec3::new(self.yaw.cos(), 0.0, -self.yaw.sin());
        let m = self.moves;
        let mut dir = Vec3::ZERO;
        if m.forward {
            dir += flat_forward;
        }
        if m.back {
            dir -= flat_forward;
        }
        if m.right {
            dir += right;
        }
        if m.left {
            dir -= right;
        }
        let speed = if m.hurry { 2.0 * SPEED } else { SPEED };
        let dt = if dt_s.is_finite() {
            dt_s.clamp(0.0, 0.25)
        } else {
            0.0
        };
        self.position += dir.normalize_or_zero() * speed * dt;
        self.position.x = self.position.x.clamp(ground.min.x, ground.max.x);
        self.position.z = self.position.z.clamp(ground.min.y, ground.max.y);
        self.position.y = ground.height(self.position.x, self.position.z);
    }

    /// The camera at eye height.
    #[must_use]
    pub fn camera(&self) -> Camera {
        let eye = self.position + Vec3::Y * EYE_HEIGHT;
        Camera::looking_at(eye, eye + self.forward())
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec2;
    use npc_core::asset::collision::GroundGrid;

    use super::*;

    fn flat() -> Ground {
        let a = Vec3::new(-50.0, 0.5, -50.0);
        let b = Vec3::new(50.0, 0.5, -50.0);
        let c = Vec3::new(50.0, 0.5, 50.0);
        let d = Vec3::new(-50.0, 0.5, 50.0);
        Ground {
            grid: GroundGrid::new(vec![[a, c, b], [a, d, c]]),
            min: Vec2::splat(-50.0),
            max: Vec2::splat(50.0),
        }
    }

    #[test]
    fn a_camera_round_trips_through_the_walker() {
        let cam = Camera::looking_at(Vec3::new(1.0, 2.2, 3.0), Vec3::new(4.0, 1.0, -2.0));
        let fp = FirstPerson::from_camera(&cam);
        let dir = (cam.target - cam.position).normalize();
        assert!((fp.forward() - dir).length() < 1e-5);
        assert!((fp.camera().position - cam.position).length() < 1e-5);
    }

    #[test]
    fn forward_walks_where_it_looks_on_the_ground() {
        let ground = flat();
        let mut fp = FirstPerson::from_camera(&Camera::looking_at(
            Vec3::new(0.0, 2.2, 0.0),
            Vec3::new(10.0, 2.2, 0.0),
        ));
        fp.moves.forward = true;
        for _ in 0..4 {
            fp.update(0.25, &ground);
        }
        assert!(
            (fp.position - Vec3::new(SPEED, 0.5, 0.0)).length() < 1e-4,
            "{}",
            fp.position
        );
        fp.moves = Moves {
            left: true,
            hurry: true,
            ..Moves::default()
        };
        fp.update(0.25, &ground);
        fp.update(0.25, &ground);
        // Left of +X is -Z.
        assert!((fp.position.z + SPEED).abs() < 1e-4, "{}", fp.position);
    }

    #[test]
    fn the_walker_stays_on_the_map_and_cannot_flip_over() {
        let ground = flat();
        let mut fp = FirstPerson::from_camera(&Camera::looking_at(Vec3::ZERO, Vec3::NEG_Z));
        fp.moves.forward = true;
        fp.update(0.25, &ground);
        for _ in 0..1000 {
            fp.update(0.25, &ground);
        }
        assert!(fp.position.z >= -50.0);
        fp.look(0.0, -1.0e6);
        assert!(fp.pitch <= 1.45);
    }
}
