//! The first two formants of a frame of voiced speech, by linear prediction: the frame's
//! all-pole model (autocorrelation and Levinson-Durbin) and the peaks of its spectral
//! envelope. F1 rises as the jaw opens; F2 rises as the tongue moves forward and the lips
//! spread, and falls as they round.

/// Lowest frequency taken for F1, Hz (below it lies the voice's fundamental).
const F1_FLOOR_HZ: f32 = 200.0;
/// Envelope searched up to this frequency, Hz.
const SEARCH_TOP_HZ: f32 = 3_800.0;
/// How far a formant peak rises above the higher of its two valleys (power ratio, 4 dB).
const MIN_PROMINENCE: f32 = 2.5;
/// Envelope step, Hz.
const STEP_HZ: f32 = 20.0;

/// Reusable buffers for formant estimation.
#[derive(Clone, Debug, Default)]
pub struct FormantTracker {
    /// Hamming window of the last frame length.
    window: Vec<f64>,
    frame: Vec<f64>,
    autocorrelation: Vec<f64>,
    lpc: Vec<f64>,
    scratch: Vec<f64>,
    envelope: Vec<f32>,
}

impl FormantTracker {
    /// F1 and F2 in Hz of `samples` (one analysis frame, unwindowed) at `rate`; `None` when
    /// the frame is silent or its envelope has fewer than two peaks.
    pub fn measure(&mut self, samples: &[f32], rate: u32) -> Option<(f32, f32)> {
        let n = samples.len();
        if n < 32 || rate == 0 {
            return None;
        }
        // Pre-emphasis (flattens the voice's -6 dB/octave tilt) and a Hamming window.
        if self.window.len() != n {
            self.window = (0..n)
                .map(|i| 0.54 - 0.46 * (std::f64::consts::TAU * i as f64 / (n - 1) as f64).cos())
                .collect();
        }
        self.frame.clear();
        let mut previous = 0.0_f64;
        for (&s, w) in samples.iter().zip(&self.window) {
            let x = f64::from(s);
            self.frame.push((x - 0.97 * previous) * w);
            previous = x;
        }
        // Two poles per kHz of bandwidth, plus two.
        let order = ((rate / 1000) as usize + 2).min(24).min(n - 1);
        self.autocorrelation.clear();
        for lag in 0..=order {
            let r: f64 = self.frame[lag..]
                .iter()
                .zip(&self.frame)
                .map(|(a, b)| a * b)
                .sum();
            self.autocorrelation.push(r);
        }
        if self.autocorrelation[0] <= 1e-12 {
            return None;
        }
        // A touch of white noise keeps the recursion stable on very clean signals.
        self.autocorrelation[0] *= 1.0 + 1e-9;
        levinson(&self.autocorrelation, &mut self.lpc, &mut self.scratch)?;
        // The envelope 1 / |A(e^jw)|^2 on a grid; its first two peaks above the floor.
        self.envelope.clear();
        let steps = (SEARCH_TOP_HZ / STEP_HZ) as usize;
        for k in 0..=steps {
            let w = std::f64::consts::TAU * f64::from(k as f32 * STEP_HZ) / f64::from(rate);
            // A(e^jw) = sum a_j e^(-j w j): the phasor turns by e^(-jw) per coefficient.
            let (step_re, step_im) = (w.cos(), -w.sin());
            let (mut z_re, mut z_im) = (1.0_f64, 0.0_f64);
            let (mut re, mut im) = (0.0_f64, 0.0_f64);
            for a in &self.lpc {
                re += a * z_re;
                im += a * z_im;
                (z_re, z_im) = (
                    z_re * step_re - z_im * step_im,
                    z_re * step_im + z_im * step_re,
                );
            }
            self.envelope
                .push((1.0 / (re * re + im * im).max(1e-30)) as f32);
        }
        let e = &self.envelope;
        let maxima: Vec<usize> = (1..e.len() - 1)
            .filter(|&k| e[k] > e[k - 1] && e[k] >= e[k + 1])
            .collect();
        // A formant stands out from the valleys on both sides; the small bumps an all-pole
        // model puts between formants do not.
        let mut peaks = maxima
            .iter()
            .enumerate()
            .filter(|&(i, &k)| {
                let left = if i == 0 { 0 } else { maxima[i - 1] };
                let right = maxima.get(i + 1).copied().unwrap_or(e.len() - 1);
                let valley = |range: &[f32]| range.iter().copied().fold(f32::MAX, f32::min);
                let floor = valley(&e[left..=k]).max(valley(&e[k..=right]));
                k as f32 * STEP_HZ >= F1_FLOOR_HZ && e[k] >= floor * MIN_PROMINENCE
            })
            .map(|(_, &k)| refine(e, k) * STEP_HZ);
        let f1 = peaks.next()?;
        let f2 = peaks.next()?;
        Some((f1, f2))
    }
}

/// Levinson-Durbin: prediction coefficients `a` (a[0] = 1) from autocorrelation `r`.
fn levinson(r: &[f64], a: &mut Vec<f64>, scratch: &mut Vec<f64>) -> Option<()> {
    let order = r.len() - 1;
    a.clear();
    a.resize(order + 1, 0.0);
    a[0] = 1.0;
    let mut error = r[0];
    for i in 1..=order {
        let mut acc = r[i];
        for j in 1..i {
            acc += a[j] * r[i - j];
        }
        let k = -acc / error;
        scratch.clear();
        scratch.extend_from_slice(&a[..=i]);
        for j in 1..i {
            a[j] = scratch[j] + k * scratch[i - j];
        }
        a[i] = k;
        error *= 1.0 - k * k;
        if error <= 0.0 || !error.is_finite() {
            return None;
        }
    }
    Some(())
}

/// A peak's position between grid points, from the parabola through it and its neighbours.
fn refine(e: &[f32], k: usize) -> f32 {
    let (l, c, r) = (e[k - 1].ln(), e[k].ln(), e[k + 1].ln());
    let denominator = l - 2.0 * c + r;
    let offset = if denominator.abs() > 1e-9 {
        0.5 * (l - r) / denominator
    } else {
        0.0
    };
    k as f32 + offset.clamp(-0.5, 0.5)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A vowel-like sound: a 120 Hz pulse train through two resonators.
    fn vowel(f1: f32, f2: f32, rate: u32) -> Vec<f32> {
        let n = (rate as f32 * 0.04) as usize;
        let mut x: Vec<f32> = (0..n)
            .map(|i| {
                if i % (rate as usize / 120) == 0 {
                    1.0
                } else {
                    0.0
                }
            })
            .collect();
        for (f, bw) in [(f1, 80.0_f32), (f2, 100.0)] {
            let r = (-std::f32::consts::PI * bw / rate as f32).exp();
            let c = 2.0 * r * (std::f32::consts::TAU * f / rate as f32).cos();
            let (mut y1, mut y2) = (0.0, 0.0);
            for s in &mut x {
                let y = *s + c * y1 - r * r * y2;
                y2 = y1;
                y1 = y;
                *s = y;
            }
        }
        x
    }

    #[test]
    fn formants_of_synthetic_vowels_are_found() {
        let mut tracker = FormantTracker::default();
        for rate in [16_000, 22_050] {
            for (f1, f2) in [(300.0, 2_300.0), (750.0, 1_200.0), (350.0, 900.0)] {
                let (m1, m2) = tracker
                    .measure(&vowel(f1, f2, rate), rate)
                    .expect("formants");
                assert!((m1 - f1).abs() < 60.0, "F1 {m1} for {f1} at {rate}");
                assert!((m2 - f2).abs() < 100.0, "F2 {m2} for {f2} at {rate}");
            }
        }
        assert_eq!(tracker.measure(&[0.0; 512], 16_000), None);
    }
}
