//! Alignment by synthesis: dynamic time warping over both sounds' mel cepstra
//! ([`crate::speech::mfcc`]) finds which moment of the recording each moment of the synthesis
//! matches.

use super::{AlignError, Utterance, check, warped};
use crate::speech::loudness::{energy_db, pauses_ms, with_pauses, with_releases};
use crate::speech::mfcc::{HOP_MS, features, features_warped};

/// How moments of one sound map onto another: for each 10 ms frame of the synthesis, the
/// first frame of the recording the warping path pairs with it.
#[derive(Clone, Debug, PartialEq)]
pub struct Warp {
    starts: Vec<usize>,
    /// The recording's length, ms.
    recording_ms: f64,
}

impl Warp {
    /// Warps the synthesis's features `from` onto the recording's `to`.
    #[must_use]
    pub fn between(from: &[Vec<f32>], to: &[Vec<f32>], recording_ms: f64) -> Self {
        Self::with_cost(from, to, recording_ms).0
    }

    /// [`Warp::between`] and the path's mean cost per step.
    fn with_cost(from: &[Vec<f32>], to: &[Vec<f32>], recording_ms: f64) -> (Self, f32) {
        let (path, cost) = path(from, to);
        let warp = Self {
            starts: first_matches(&path, from.len()),
            recording_ms,
        };
        (warp, cost / path.len().max(1) as f32)
    }

    /// Where `t_ms` of the synthesis falls in the recording, ms (interpolated between frames,
    /// never decreasing).
    #[must_use]
    pub fn map(&self, t_ms: f64) -> f64 {
        let Some(&last) = self.starts.last() else {
            return 0.0;
        };
        let x = (t_ms / HOP_MS).max(0.0);
        let i = x.floor() as usize;
        let at = |k: usize| self.starts.get(k).copied().unwrap_or(last) as f64;
        let frac = x - i as f64;
        ((at(i) + (at(i + 1) - at(i)) * frac) * HOP_MS).min(self.recording_ms)
    }
}

/// A step along one sound alone costs this much more than its distance (so the path does
/// not stall on one frame where both sounds move on).
const STALL_COST: f32 = 1.0;

/// The cheapest monotonic path pairing every frame of `a` with frames of `b`, from both
/// starts to both ends (steps: both, `a` alone, `b` alone; a diagonal step counts its cost
/// twice, so neither sound is favoured), and its cost.
fn path(a: &[Vec<f32>], b: &[Vec<f32>]) -> (Vec<(usize, usize)>, f32) {
    let (n, m) = (a.len(), b.len());
    if n == 0 || m == 0 {
        return (Vec::new(), 0.0);
    }
    let d = |i: usize, j: usize| -> f32 {
        a[i].iter()
            .zip(&b[j])
            .map(|(x, y)| (x - y).powi(2))
            .sum::<f32>()
            .sqrt()
    };
    let mut cost = vec![f32::INFINITY; n * m];
    // Which step reached each cell: 0 diagonal, 1 from the previous frame of `a`, 2 of `b`.
    let mut step = vec![0u8; n * m];
    for i in 0..n {
        for j in 0..m {
            let here = d(i, j);
            let (best, from) = if i == 0 && j == 0 {
                (here, 0)
            } else {
                let diag = if i > 0 && j > 0 {
                    cost[(i - 1) * m + j - 1] + 2.0 * here
                } else {
                    f32::INFINITY
                };
                let up = if i > 0 {
                    cost[(i - 1) * m + j] + here + STALL_COST
                } else {
                    f32::INFINITY
                };
                let left = if j > 0 {
                    cost[i * m + j - 1] + here + STALL_COST
                } else {
                    f32::INFINITY
                };
                if diag <= up && diag <= left {
                    (diag, 0)
                } else if up <= left {
                    (up, 1)
                } else {
                    (left, 2)
                }
            };
            cost[i * m + j] = best;
            step[i * m + j] = from;
        }
    }
    let total = cost[n * m - 1];
    let mut out = Vec::with_capacity(n + m);
    let (mut i, mut j) = (n - 1, m - 1);
    loop {
        out.push((i, j));
        if i == 0 && j == 0 {
            break;
        }
        match step[i * m + j] {
            0 => {
                i -= 1;
                j -= 1;
            }
            1 => i -= 1,
            _ => j -= 1,
        }
    }
    out.reverse();
    (out, total)
}

/// For each of `n` frames of the first sound, the first frame of the second the path pairs
/// with it.
fn first_matches(path: &[(usize, usize)], n: usize) -> Vec<usize> {
    let mut starts = vec![usize::MAX; n];
    for &(i, j) in path {
        starts[i] = starts[i].min(j);
    }
    // Every frame is on the path; keep the map monotonic all the same.
    let mut last = 0;
    for s in &mut starts {
        if *s == usize::MAX {
            *s = last;
        }
        last = last.max(*s);
        *s = last;
    }
    starts
}

/// Of a silence leading or trailing the recording, this much is kept next to the speech
/// when aligning, ms.
const MARGIN_MS: f64 = 50.0;

/// Scalings of the recording's mel bands tried (vocal tract length normalisation).
const VOCAL_TRACT_SCALES: [f32; 5] = [0.88, 0.94, 1.0, 1.06, 1.12];

/// `synthesis` (the script spoken by the offline engine) with its timing carried onto the
/// recording (`samples` in -1..1 at `sample_rate`) by warping the one sound onto the other,
/// and the recording as its audio.
///
/// # Errors
/// An empty recording, or a synthesis with no sound.
pub fn align_by_synthesis(
    samples: &[f32],
    sample_rate: u32,
    synthesis: &Utterance,
) -> Result<Utterance, AlignError> {
    check(samples, sample_rate, synthesis)?;
    let spoken: Vec<f32> = synthesis
        .pcm
        .iter()
        .map(|&s| f32::from(s) / 32768.0)
        .collect();
    let recording_ms = samples.len() as f64 * 1000.0 / f64::from(sample_rate);
    // The script is aligned to the speech: the silence before and after it is left out.
    let energy = energy_db(samples, sample_rate);
    let pauses = pauses_ms(&energy);
    let onset_ms = pauses
        .first()
        .filter(|p| p.0 <= 0.0)
        .map_or(0.0, |p| (p.1 - MARGIN_MS).max(0.0));
    let offset_ms = pauses
        .last()
        .filter(|p| p.1 >= recording_ms - HOP_MS)
        .map_or(recording_ms, |p| (p.0 + MARGIN_MS).min(recording_ms))
        .max(onset_ms + HOP_MS);
    let at = |ms: f64| ((ms * f64::from(sample_rate) / 1000.0) as usize).min(samples.len());
    let speech = &samples[at(onset_ms)..at(offset_ms)];
    let script = features(&spoken, synthesis.sample_rate);
    // The recording's speaker may have a longer or shorter vocal tract than the engine's
    // voice: the band scaling whose path is cheapest is taken.
    let warp = VOCAL_TRACT_SCALES
        .iter()
        .map(|&scale| {
            let heard = features_warped(speech, sample_rate, scale);
            Warp::with_cost(&script, &heard, offset_ms - onset_ms)
        })
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(warp, _)| warp)
        .ok_or(AlignError::NoSpeech)?;
    let mut aligned = warped(synthesis, &|t| onset_ms + warp.map(t), samples, sample_rate);
    // The sound itself has the last word on pauses and stops.
    aligned.visemes = with_releases(with_pauses(aligned.visemes, &pauses), &energy);
    Ok(aligned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sound_warped_onto_a_slower_copy_of_itself_maps_through_the_stretch() {
        // A rising then falling pattern, and the same at half speed.
        let pattern = |len: usize| -> Vec<Vec<f32>> {
            (0..len)
                .map(|i| {
                    let x = i as f32 / len as f32;
                    vec![(x * 6.0).sin(), (x * 11.0).cos(), x]
                })
                .collect()
        };
        let (fast, slow) = (pattern(100), pattern(200));
        let warp = Warp::between(&fast, &slow, 2000.0);
        for t in [100.0, 300.0, 500.0, 700.0, 900.0] {
            let mapped = warp.map(t);
            assert!((mapped - 2.0 * t).abs() <= 30.0, "{t} ms -> {mapped} ms");
        }
        // Never decreasing, and within the recording.
        let mut last = 0.0;
        for k in 0..120 {
            let m = warp.map(f64::from(k) * 10.0);
            assert!(m >= last && m <= 2000.0);
            last = m;
        }
    }
}
