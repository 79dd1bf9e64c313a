//! The light of the day: from the time of day (0 = midnight, 0.25 = sunrise, 0.5 = noon,
//! 0.75 = sunset) to the blend of the three skies, the light, the ambient, the fog colour and
//! the sky's brightness, so sky, lit scene and fog change together.
//!
//! Colours are linear RGB. The light direction follows the skies: it is the blend of the sun
//! (or moon) directions painted into the skies that show, so shadows agree with the sky.

use glam::Vec3;

use crate::procedural::sky::{SkyKind, sun_direction};
use crate::project::SunSettings;

/// Everything the renderer needs to light one moment of the day.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Daylight {
    /// Weights of the day (morning / evening), noon and night skies; they sum to 1.
    pub sky: [f32; 3],
    /// How much of the warm sunrise / sunset tint shows, 0-1.
    pub warmth: f32,
    /// Unit vector toward the light (the sun by day, the moon by night).
    pub light_direction: Vec3,
    /// The light's colour times its strength.
    pub light_color: Vec3,
    /// Light from the whole sky, reaching every surface.
    pub ambient: Vec3,
    /// The colour distant things fade into.
    pub fog_color: Vec3,
    /// Multiplier of the sky's texels: 1 at noon, low at night.
    pub brightness: f32,
}

/// The look of each sky: light colour (before the sun's settings), ambient, fog, brightness.
struct SkyLight {
    light: Vec3,
    ambient: Vec3,
    fog: Vec3,
    brightness: f32,
}

const fn sky_light(kind: SkyKind) -> SkyLight {
    match kind {
        SkyKind::Day => SkyLight {
            light: Vec3::new(1.0, 0.86, 0.7),
            ambient: Vec3::new(0.30, 0.29, 0.30),
            fog: Vec3::new(0.72, 0.68, 0.64),
            brightness: 0.9,
        },
        SkyKind::Noon => SkyLight {
            light: Vec3::new(1.15, 1.12, 1.05),
            ambient: Vec3::new(0.32, 0.35, 0.42),
            fog: Vec3::new(0.62, 0.72, 0.86),
            brightness: 1.0,
        },
        SkyKind::Night => SkyLight {
            light: Vec3::new(0.10, 0.12, 0.20),
            ambient: Vec3::new(0.035, 0.04, 0.07),
            fog: Vec3::new(0.02, 0.025, 0.05),
            brightness: 0.35,
        },
    }
}

/// The colour the warm tint pulls toward.
const WARM: Vec3 = Vec3::new(1.0, 0.55, 0.3);

/// Hermite step from 0 at `a` to 1 at `b`.
fn smoothstep(a: f32, b: f32, x: f32) -> f32 {
    let t = ((x - a) / (b - a)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// Sky weights (day, noon, night) at time `t` of the day. The day is symmetric about noon:
/// night until 0.20, morning sky from 0.28 to 0.38, noon sky from 0.45, and back the same way.
#[must_use]
pub fn sky_weights(t: f32) -> [f32; 3] {
    // Fold the afternoon onto the morning: 0.7 looks like 0.3.
    let t = if t > 0.5 { 1.0 - t } else { t };
    let not_night = smoothstep(0.20, 0.28, t);
    let noon = smoothstep(0.38, 0.45, t);
    [not_night * (1.0 - noon), not_night * noon, 1.0 - not_night]
}

/// The light of the day at `time_of_day` (wrapped into 0-1; not finite is taken as noon).
#[must_use]
pub fn daylight(time_of_day: f64, sun: &SunSettings) -> Daylight {
    let t = if time_of_day.is_finite() {
        time_of_day.rem_euclid(1.0) as f32
    } else {
        0.5
    };
    let sky = sky_weights(t);
    let mut light = Vec3::ZERO;
    let mut ambient = Vec3::ZERO;
    let mut fog = Vec3::ZERO;
    let mut brightness = 0.0;
    let mut direction = Vec3::ZERO;
    for (kind, w) in SkyKind::ALL.into_iter().zip(sky) {
        let look = sky_light(kind);
        light += w * look.light;
        ambient += w * look.ambient;
        fog += w * look.fog;
        brightness += w * look.brightness;
        direction += w * sun_direction(kind);
    }
    // Warm light and fog around sunrise (0.25) and sunset (0.75).
    let warmth = (1.0 - (t - 0.25).abs() / 0.06)
        .max(1.0 - (t - 0.75).abs() / 0.06)
        .clamp(0.0, 1.0);
    let warmth = warmth * warmth * (3.0 - 2.0 * warmth);
    light = light.lerp(light.length() / WARM.length() * WARM, 0.5 * warmth);
    fog = fog.lerp(WARM * fog.length() / WARM.length(), 0.45 * warmth);
    let sun_rgb = Vec3::from(sun.color);
    let strength = if sun.intensity.is_finite() {
        sun.intensity.max(0.0)
    } else {
        1.0
    };
    Daylight {
        sky,
        warmth,
        light_direction: direction.try_normalize().unwrap_or(Vec3::Y),
        light_color: light * sun_rgb * strength,
        ambient,
        fog_color: fog,
        brightness,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn luminance(v: Vec3) -> f32 {
        v.dot(Vec3::new(0.2126, 0.7152, 0.0722))
    }

    #[test]
    fn weights_sum_to_one_over_the_day() {
        for i in 0..=200 {
            let w = sky_weights(i as f32 / 200.0);
            assert!((w.iter().sum::<f32>() - 1.0).abs() < 1e-5, "{i}: {w:?}");
            assert!(w.iter().all(|&x| (0.0..=1.0).contains(&x)));
        }
    }

    #[test]
    fn midnight_is_night_and_noon_is_noon() {
        assert_eq!(sky_weights(0.0), [0.0, 0.0, 1.0]);
        assert_eq!(sky_weights(0.5), [0.0, 1.0, 0.0]);
        assert_eq!(sky_weights(0.32), [1.0, 0.0, 0.0]);
        assert_eq!(sky_weights(0.68), sky_weights(0.32));
    }

    #[test]
    fn night_is_darker_than_noon_in_every_term() {
        let sun = SunSettings::default();
        let noon = daylight(0.5, &sun);
        let night = daylight(0.0, &sun);
        assert!(luminance(night.light_color) < 0.25 * luminance(noon.light_color));
        assert!(luminance(night.ambient) < 0.25 * luminance(noon.ambient));
        assert!(luminance(night.fog_color) < 0.25 * luminance(noon.fog_color));
        assert!(night.brightness < noon.brightness);
    }

    #[test]
    fn sunrise_is_warm_and_noon_is_not() {
        let sun = SunSettings::default();
        let dawn = daylight(0.25, &sun);
        assert!(dawn.warmth > 0.99);
        assert!(dawn.fog_color.x > dawn.fog_color.z);
        assert_eq!(daylight(0.5, &sun).warmth, 0.0);
    }

    #[test]
    fn light_follows_the_sky_and_stays_a_unit_vector() {
        let sun = SunSettings::default();
        let noon = daylight(0.5, &sun);
        assert!((noon.light_direction - sun_direction(SkyKind::Noon)).length() < 1e-5);
        for t in [f64::NAN, -0.3, 0.1, 0.27, 0.41, 1.7] {
            let d = daylight(t, &sun).light_direction;
            assert!((d.length() - 1.0).abs() < 1e-4, "{t}: {d}");
        }
    }

    #[test]
    fn sun_settings_scale_the_light() {
        let dim = SunSettings {
            intensity: 0.5,
            ..SunSettings::default()
        };
        let a = daylight(0.5, &SunSettings::default()).light_color;
        let b = daylight(0.5, &dim).light_color;
        assert!((b * 2.0 - a).length() < 1e-5);
    }
}
