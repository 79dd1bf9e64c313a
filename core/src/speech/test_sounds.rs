//! Sounds for the speech modules' unit tests.

/// A sine of `hz` at half scale, `seconds` long at `rate`.
pub(super) fn tone(hz: f32, rate: u32, seconds: f32) -> Vec<f32> {
    (0..(rate as f32 * seconds) as usize)
        .map(|i| (std::f32::consts::TAU * hz * i as f32 / rate as f32).sin() * 0.5)
        .collect()
}
