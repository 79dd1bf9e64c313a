//! Mel-frequency cepstra of speech, 10 ms apart: the spectral envelope of each frame on the
//! mel scale, as speech recognisers and aligners compare sounds. Frames are measured in Hz,
//! so sounds at different sample rates give comparable features; each utterance's cepstra are
//! normalised to zero mean and unit variance, so a different voice or microphone matters less
//! than what is said.

use realfft::RealFftPlanner;

/// Frames are this far apart, ms.
pub const HOP_MS: f64 = 10.0;
/// Each frame looks at this much sound, ms.
const WINDOW_MS: f64 = 25.0;
/// Mel bands, from this to this frequency, Hz.
const BANDS: usize = 26;
const LOW_HZ: f32 = 80.0;
const HIGH_HZ: f32 = 7_600.0;
/// Cepstra kept per frame, from this one on (0 is the overall loudness).
const CEPSTRA: usize = 13;
const FIRST_CEPSTRUM: u8 = 0;
/// Band energies below this share of the loudest frame's are taken as this (digital silence
/// would otherwise give minus infinity).
const FLOOR: f32 = 1e-7;
/// Deltas are taken over this many frames either side.
const DELTA_SPAN: usize = 2;

/// Each frame's normalised cepstra followed by their deltas.
#[must_use]
pub fn features(samples: &[f32], sample_rate: u32) -> Vec<Vec<f32>> {
    features_warped(samples, sample_rate, 1.0)
}

/// [`features`] with the mel bands' frequencies scaled by `warp` (a longer vocal tract puts
/// every formant lower: bands scaled down by its ratio to another speaker's match theirs).
#[must_use]
pub fn features_warped(samples: &[f32], sample_rate: u32, warp: f32) -> Vec<Vec<f32>> {
    let rate = sample_rate.max(1) as f32;
    let hop = ((HOP_MS / 1000.0) * f64::from(rate)).round().max(1.0) as usize;
    let window = ((WINDOW_MS / 1000.0) * f64::from(rate)).round().max(16.0) as usize;
    let size = window.next_power_of_two();
    let mut planner = RealFftPlanner::<f32>::new();
    let fft = planner.plan_fft_forward(size);
    let hann: Vec<f32> = (0..window)
        .map(|i| 0.5 - 0.5 * (std::f32::consts::TAU * i as f32 / window as f32).cos())
        .collect();
    let filters = mel_filters(size, rate, warp);
    let frames = samples.len().div_ceil(hop);
    let mut input = fft.make_input_vec();
    let mut spectrum = fft.make_output_vec();
    let mut bands: Vec<[f32; BANDS]> = Vec::with_capacity(frames);
    for f in 0..frames {
        let start = f * hop;
        input.iter_mut().for_each(|x| *x = 0.0);
        for (i, w) in hann.iter().enumerate() {
            if let Some(s) = samples.get(start + i) {
                input[i] = s * w;
            }
        }
        if fft.process(&mut input, &mut spectrum).is_err() {
            bands.push([0.0; BANDS]);
            continue;
        }
        let power: Vec<f32> = spectrum.iter().map(|c| c.norm_sqr()).collect();
        let mut energy = [0.0; BANDS];
        for (e, filter) in energy.iter_mut().zip(&filters) {
            *e = filter.iter().map(|&(bin, w)| power[bin] * w).sum();
        }
        bands.push(energy);
    }
    let loudest = bands
        .iter()
        .flat_map(|b| b.iter())
        .fold(0.0_f32, |m, &e| m.max(e))
        .max(f32::MIN_POSITIVE);
    let cepstra: Vec<[f32; CEPSTRA]> = bands
        .iter()
        .map(|b| {
            let logs: Vec<f32> = b.iter().map(|&e| (e / loudest).max(FLOOR).ln()).collect();
            dct(&logs)
        })
        .collect();
    let normalised = normalise(&cepstra);
    with_deltas(&normalised)
}

/// Triangular mel filters over an FFT of `size` at `rate`: per band, (bin, weight).
fn mel_filters(size: usize, rate: f32, warp: f32) -> Vec<Vec<(usize, f32)>> {
    let mel = |hz: f32| 2595.0 * (1.0 + hz / 700.0).log10();
    let hz = |m: f32| 700.0 * (10f32.powf(m / 2595.0) - 1.0);
    let high = HIGH_HZ.min(rate * 0.5 - 1.0).max(LOW_HZ + 1.0);
    let (lo, hi) = (mel(LOW_HZ), mel(high));
    let edges: Vec<f32> = (0..BANDS + 2)
        .map(|i| hz(lo + (hi - lo) * i as f32 / (BANDS + 1) as f32) * warp)
        .collect();
    let bin_hz = rate / size as f32;
    (0..BANDS)
        .map(|b| {
            let (left, centre, right) = (edges[b], edges[b + 1], edges[b + 2]);
            (0..=size / 2)
                .filter_map(|bin| {
                    let f = bin as f32 * bin_hz;
                    let w = if f <= left || f >= right {
                        0.0
                    } else if f <= centre {
                        (f - left) / (centre - left)
                    } else {
                        (right - f) / (right - centre)
                    };
                    (w > 0.0).then_some((bin, w))
                })
                .collect()
        })
        .collect()
}

/// Cepstra 1..=CEPSTRA of log band energies (DCT-II).
fn dct(logs: &[f32]) -> [f32; CEPSTRA] {
    let n = logs.len() as f32;
    let mut out = [0.0; CEPSTRA];
    for (k, c) in out.iter_mut().enumerate() {
        let k = (k + usize::from(FIRST_CEPSTRUM)) as f32;
        *c = logs
            .iter()
            .enumerate()
            .map(|(i, &l)| l * (std::f32::consts::PI * k * (i as f32 + 0.5) / n).cos())
            .sum();
    }
    out
}

/// Zero mean and unit variance per coefficient over the utterance.
fn normalise(cepstra: &[[f32; CEPSTRA]]) -> Vec<[f32; CEPSTRA]> {
    let n = cepstra.len().max(1) as f32;
    let mut mean = [0.0; CEPSTRA];
    let mut var = [0.0; CEPSTRA];
    for c in cepstra {
        for k in 0..CEPSTRA {
            mean[k] += c[k] / n;
        }
    }
    for c in cepstra {
        for k in 0..CEPSTRA {
            var[k] += (c[k] - mean[k]).powi(2) / n;
        }
    }
    cepstra
        .iter()
        .map(|c| {
            let mut out = [0.0; CEPSTRA];
            for k in 0..CEPSTRA {
                out[k] = (c[k] - mean[k]) / var[k].sqrt().max(1e-6);
            }
            out
        })
        .collect()
}

/// Each frame's cepstra and their slope over the frames around it.
fn with_deltas(cepstra: &[[f32; CEPSTRA]]) -> Vec<Vec<f32>> {
    let last = cepstra.len().saturating_sub(1);
    let norm: f32 = (1..=DELTA_SPAN).map(|d| 2.0 * (d * d) as f32).sum();
    (0..cepstra.len())
        .map(|i| {
            let mut v = cepstra[i].to_vec();
            v.extend((0..CEPSTRA).map(|k| {
                let slope: f32 = (1..=DELTA_SPAN)
                    .map(|d| {
                        let ahead = cepstra[(i + d).min(last)][k];
                        let behind = cepstra[i.saturating_sub(d)][k];
                        d as f32 * (ahead - behind)
                    })
                    .sum();
                slope / norm
            }));
            v
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::speech::test_sounds::tone;

    #[test]
    fn the_same_sound_at_two_rates_gives_close_features() {
        // Half a second of a low tone, then of a high one, at 16 and 22.05 kHz.
        let sound = |rate| [tone(300.0, rate, 0.5), tone(2_000.0, rate, 0.5)].concat();
        let (a, b) = (
            features(&sound(16_000), 16_000),
            features(&sound(22_050), 22_050),
        );
        assert!(
            (a.len() as i32 - b.len() as i32).abs() <= 1,
            "{} {}",
            a.len(),
            b.len()
        );
        let distance = |x: &[f32], y: &[f32]| {
            x.iter()
                .zip(y)
                .map(|(p, q)| (p - q).powi(2))
                .sum::<f32>()
                .sqrt()
        };
        // Mid-way through each half the two rates agree far better than the two halves do.
        let (low, high) = (25, 75);
        let same = distance(&a[low], &b[low]).max(distance(&a[high], &b[high]));
        let other = distance(&a[low], &a[high]);
        assert!(same * 4.0 < other, "same sound {same}, other sound {other}");
    }
}
