//! Lip sync from audio alone: recorded lines without text (a voice actor's WAV, another TTS)
//! get visemes from their spectrum. Per 10 ms frame it measures
//!
//! - the first two formants by linear prediction ([`super::formants`]): F1 rises as the mouth
//!   opens, F2 rises as the lips spread and falls as they round;
//! - spectral tilt: energy above 900 Hz against below it; together with a very low F1 it
//!   marks nasal murmur (m, n), which is voiced and loud but no vowel;
//! - hiss: energy above 4 kHz, for s/z.
//!
//! Each vowel viseme (aa, E, I, O, U, and the schwa's) has a prototype (F1, F2); a frame scores each by its
//! distance to the prototype on a log-frequency scale, gated by loudness (vowels are the loud
//! part of speech). Frames whose formants cannot be read keep the previous frame's scores.
//! Each score attacks fast and releases slower, and the strongest one becomes the viseme of
//! the frame. The result is a viseme track, so the same face animator plays it as it plays a
//! speech engine's track.
//!
//! (Band centroids of 200-1000 Hz and 900-3000 Hz, tried first, stand in for F1 and F2 on
//! synthetic voices but not on recorded ones: on a real recording they called half of the
//! speech "U".)

use realfft::RealFftPlanner;

use super::formants::FormantTracker;

use crate::anim::lipsync::VisemeEvent;
use crate::viseme::VisemeId;

/// Analysis parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct AnalysisSettings {
    /// Analysis window, ms.
    pub window_ms: f64,
    /// Step between frames, ms.
    pub hop_ms: f64,
    /// Frames quieter than the loudest by more than this are silence, dB.
    pub silence_db: f32,
    /// Score rise per ms towards a higher value (0-1 scale).
    pub attack_per_ms: f32,
    /// Score fall per ms towards a lower value.
    pub release_per_ms: f32,
    /// Shortest viseme kept, ms; shorter changes are merged into their neighbour.
    pub min_viseme_ms: f64,
}

impl Default for AnalysisSettings {
    fn default() -> Self {
        Self {
            window_ms: 32.0,
            hop_ms: 10.0,
            silence_db: 35.0,
            attack_per_ms: 0.05,
            release_per_ms: 0.012,
            min_viseme_ms: 50.0,
        }
    }
}

/// The visemes the analysis can tell apart, in score order.
pub const ANALYSED: [u8; VISEMES] = [2, 4, 6, 8, 7, 1, 15];
/// How many visemes the analysis scores: six vowels and the hiss.
pub const VISEMES: usize = 7;
/// Index of the hiss (SS) in [`ANALYSED`].
const HISS: usize = VISEMES - 1;

/// What the analysis measured in one frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameFeatures {
    pub time_ms: f64,
    /// Level relative to the loudest frame, dB (<= 0).
    pub level_db: f32,
    /// Energy above 900 Hz against below, dB.
    pub tilt_db: f32,
    /// Share of energy above 4 kHz, 0-1.
    pub hiss: f32,
    /// First and second formant, Hz (0 where the frame has none).
    pub f1_hz: f32,
    pub f2_hz: f32,
}

/// Per-frame features and smoothed scores of an audio clip.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Analysis {
    pub frames: Vec<FrameFeatures>,
    /// Scores per frame for [`ANALYSED`] (aa, E, I, O, U, schwa, SS), 0-1.
    pub scores: Vec<[f32; VISEMES]>,
}

impl Analysis {
    /// The viseme with the highest score, summed over all frames.
    #[must_use]
    pub fn dominant(&self) -> Option<VisemeId> {
        let mut totals = [0.0_f32; VISEMES];
        for s in &self.scores {
            for (t, v) in totals.iter_mut().zip(s) {
                *t += v;
            }
        }
        let (best, total) = totals
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1))?;
        (*total > 0.0).then(|| VisemeId::new_or_silence(ANALYSED[best]))
    }
}

/// Energy of the spectrum between `lo` and `hi` Hz.
fn band_energy(spectrum: &[f32], bin_hz: f32, lo: f32, hi: f32) -> f32 {
    spectrum
        .iter()
        .enumerate()
        .filter(|&(i, _)| (lo..hi).contains(&(i as f32 * bin_hz)))
        .map(|(_, &p)| p)
        .sum()
}

/// A soft "how much is x above a" ramp from a to b.
fn ramp(x: f32, a: f32, b: f32) -> f32 {
    ((x - a) / (b - a)).clamp(0.0, 1.0)
}

/// Measures every frame of mono audio in [-1, 1].
#[must_use]
pub fn analyse(samples: &[f32], sample_rate: u32, settings: &AnalysisSettings) -> Analysis {
    let rate = f64::from(sample_rate.max(1));
    let window = ((settings.window_ms * rate / 1000.0) as usize).clamp(64, 1 << 15);
    let hop = ((settings.hop_ms * rate / 1000.0) as usize).max(1);
    let mut planner = RealFftPlanner::<f32>::new();
    let fft = planner.plan_fft_forward(window);
    let mut input = fft.make_input_vec();
    let mut output = fft.make_output_vec();
    let hann: Vec<f32> = (0..window)
        .map(|i| 0.5 - 0.5 * (std::f32::consts::TAU * i as f32 / window as f32).cos())
        .collect();
    let bin_hz = sample_rate as f32 / window as f32;
    let mut power = vec![0.0_f32; output.len()];
    let mut formants = FormantTracker::default();
    let mut raw: Vec<(FrameFeatures, f32)> = Vec::new();
    let mut start = 0;
    while start + window <= samples.len().max(window) {
        for (i, x) in input.iter_mut().enumerate() {
            *x = samples.get(start + i).copied().unwrap_or(0.0) * hann[i];
        }
        if fft.process(&mut input, &mut output).is_err() {
            break;
        }
        for (p, c) in power.iter_mut().zip(&output) {
            *p = c.norm_sqr();
        }
        let total: f32 = power.iter().sum();
        let below = band_energy(&power, bin_hz, 80.0, 900.0);
        let above = band_energy(&power, bin_hz, 900.0, 4000.0);
        let hiss = band_energy(&power, bin_hz, 4000.0, 11_000.0);
        let tiny = 1e-12;
        let frame = &samples[start.min(samples.len())..(start + window).min(samples.len())];
        let (f1_hz, f2_hz) = formants.measure(frame, sample_rate).unwrap_or((0.0, 0.0));
        let features = FrameFeatures {
            time_ms: (start + window / 2) as f64 * 1000.0 / rate,
            level_db: 0.0,
            tilt_db: 10.0 * ((above + tiny) / (below + tiny)).log10(),
            hiss: hiss / (total + tiny),
            f1_hz,
            f2_hz,
        };
        raw.push((features, 10.0 * (total + tiny).log10()));
        start += hop;
        if start + window > samples.len() {
            break;
        }
    }
    let loudest = raw.iter().map(|r| r.1).fold(f32::MIN, f32::max);
    let mut analysis = Analysis::default();
    let mut smoothed = [0.0_f32; VISEMES];
    let mut vowel_shape = [0.0_f32; HISS];
    let hop_ms = settings.hop_ms as f32;
    for (mut f, level) in raw {
        f.level_db = level - loudest;
        let voiced = ramp(
            f.level_db,
            -settings.silence_db,
            -settings.silence_db + 10.0,
        );
        let hissy = ramp(f.hiss, 0.2, 0.4);
        // Nasal murmur: F1 at the bottom of the range and almost nothing above 900 Hz.
        let nasal = (1.0 - ramp(f.f1_hz, 235.0, 275.0)) * ramp(-f.tilt_db, 20.0, 25.0);
        // Vowels are the loud part of speech; consonants sit 10-20 dB lower.
        let vowel = voiced * ramp(f.level_db, -20.0, -8.0) * (1.0 - hissy) * (1.0 - nasal);
        if let Some(shape) = vowel_likeness(f.f1_hz, f.f2_hz) {
            vowel_shape = shape;
        }
        let mut target = [0.0_f32; VISEMES];
        for (t, shape) in target.iter_mut().zip(vowel_shape) {
            *t = vowel * shape;
        }
        target[HISS] = voiced.max(ramp(
            f.level_db,
            -settings.silence_db - 10.0,
            -settings.silence_db,
        )) * hissy;
        for (s, t) in smoothed.iter_mut().zip(target) {
            let rate = if t > *s {
                settings.attack_per_ms
            } else {
                settings.release_per_ms
            };
            let step = rate * hop_ms;
            *s = if t > *s {
                (*s + step).min(t)
            } else {
                (*s - step).max(t)
            };
        }
        analysis.frames.push(f);
        analysis.scores.push(smoothed);
    }
    analysis
}

/// Vowel prototypes (F1, F2) in Hz for aa, E, I, O, U and the central vowels (schwa, "uh"),
/// between typical female and male values (a fronted American "oo" included).
const VOWEL_PROTOTYPES: [(f32, f32); HISS] = [
    (750.0, 1_300.0),
    (550.0, 1_900.0),
    (320.0, 2_300.0),
    (560.0, 1_000.0),
    (340.0, 1_350.0),
    (480.0, 1_600.0),
];
/// Spread of a prototype on the natural-log scale of F1 and of F2.
const PROTOTYPE_SPREAD: (f32, f32) = (0.25, 0.2);

/// How much a frame's formants look like each vowel prototype, 0-1; `None` when the
/// formants are implausible for a vowel (a missed F1 reads F2 as F1).
fn vowel_likeness(f1: f32, f2: f32) -> Option<[f32; HISS]> {
    if !(150.0..=1_100.0).contains(&f1) || f2 < f1 * 1.2 || f2 > 3_300.0 {
        return None;
    }
    let mut shape = [0.0_f32; HISS];
    for (s, (p1, p2)) in shape.iter_mut().zip(VOWEL_PROTOTYPES) {
        let d1 = (f1 / p1).ln() / PROTOTYPE_SPREAD.0;
        let d2 = (f2 / p2).ln() / PROTOTYPE_SPREAD.1;
        *s = (-0.5 * (d1 * d1 + d2 * d2)).exp();
    }
    Some(shape)
}

/// A viseme track from an analysis: the strongest score per frame (silence when every score
/// is low), with changes shorter than `min_viseme_ms` merged away.
#[must_use]
pub fn track_from_analysis(analysis: &Analysis, settings: &AnalysisSettings) -> Vec<VisemeEvent> {
    let mut events: Vec<VisemeEvent> = vec![VisemeEvent::new(VisemeId::SILENCE, 0.0)];
    for (f, scores) in analysis.frames.iter().zip(&analysis.scores) {
        let (best, score) = scores
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .map_or((0, 0.0), |(i, s)| (i, *s));
        let id = if score < 0.15 {
            VisemeId::SILENCE
        } else {
            VisemeId::new_or_silence(ANALYSED[best])
        };
        let start = (f.time_ms - settings.hop_ms / 2.0).max(0.0);
        let count = events.len();
        match events.last_mut() {
            Some(last) if last.id == id => {}
            Some(last) if count > 1 && start - last.offset_ms < settings.min_viseme_ms => {
                last.id = id;
            }
            _ => events.push(VisemeEvent::new(id, start)),
        }
    }
    events.dedup_by(|b, a| a.id == b.id);
    events
}
