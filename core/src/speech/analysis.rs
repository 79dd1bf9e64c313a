//! Lip sync from audio alone: recorded lines without text (a voice actor's WAV, another TTS)
//! get visemes from their spectrum. Per 10 ms frame it measures
//!
//! - openness (roughly F1): the energy centroid of 200-1000 Hz, high for "ah", low for "ee"/"oo";
//! - spread versus rounded (roughly F2): the energy centroid of 900-3000 Hz, high for "ee";
//! - spectral tilt: energy above 900 Hz against below it, about 0 dB for "ah" and far lower
//!   for the rounded vowels, which the F2 centroid alone cannot tell apart;
//! - hiss: energy above 4 kHz, for s/z.
//!
//! Those give scores for aa, E, I, O, U and SS; each score attacks fast and releases slower,
//! and the strongest one becomes the viseme of the frame. The result is a viseme track, so the
//! same face animator plays it as it plays a speech engine's track.

use realfft::RealFftPlanner;

use crate::lipsync::VisemeEvent;
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
pub const ANALYSED: [u8; 6] = [2, 4, 6, 8, 7, 15];

/// What the analysis measured in one frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameFeatures {
    pub time_ms: f64,
    /// Level relative to the loudest frame, dB (<= 0).
    pub level_db: f32,
    /// Energy centroid of 200-1000 Hz, Hz.
    pub low_centroid_hz: f32,
    /// Energy centroid of 900-3000 Hz, Hz.
    pub mid_centroid_hz: f32,
    /// Energy above 900 Hz against below, dB.
    pub tilt_db: f32,
    /// Share of energy above 4 kHz, 0-1.
    pub hiss: f32,
}

/// Per-frame features and smoothed scores of an audio clip.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Analysis {
    pub frames: Vec<FrameFeatures>,
    /// Scores per frame for [`ANALYSED`] (aa, E, I, O, U, SS), 0-1.
    pub scores: Vec<[f32; 6]>,
}

impl Analysis {
    /// The viseme with the highest score, summed over all frames.
    #[must_use]
    pub fn dominant(&self) -> Option<VisemeId> {
        let mut totals = [0.0_f32; 6];
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

fn band_energy(spectrum: &[f32], bin_hz: f32, lo: f32, hi: f32) -> (f32, f32) {
    let mut energy = 0.0;
    let mut weighted = 0.0;
    for (i, &p) in spectrum.iter().enumerate() {
        let f = i as f32 * bin_hz;
        if f >= lo && f < hi {
            energy += p;
            weighted += p * f;
        }
    }
    (
        energy,
        if energy > 0.0 {
            weighted / energy
        } else {
            (lo + hi) / 2.0
        },
    )
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
        let (_, low_centroid) = band_energy(&power, bin_hz, 200.0, 1000.0);
        let (_, mid_centroid) = band_energy(&power, bin_hz, 900.0, 3000.0);
        let (below, _) = band_energy(&power, bin_hz, 80.0, 900.0);
        let (above, _) = band_energy(&power, bin_hz, 900.0, 4000.0);
        let (hiss, _) = band_energy(&power, bin_hz, 4000.0, 11_000.0);
        let tiny = 1e-12;
        let features = FrameFeatures {
            time_ms: (start + window / 2) as f64 * 1000.0 / rate,
            level_db: 0.0,
            low_centroid_hz: low_centroid,
            mid_centroid_hz: mid_centroid,
            tilt_db: 10.0 * ((above + tiny) / (below + tiny)).log10(),
            hiss: hiss / (total + tiny),
        };
        raw.push((features, 10.0 * (total + tiny).log10()));
        start += hop;
        if start + window > samples.len() {
            break;
        }
    }
    let loudest = raw.iter().map(|r| r.1).fold(f32::MIN, f32::max);
    let tilt_shift = speaker_tilt_shift(&raw, loudest);
    let mut analysis = Analysis::default();
    let mut smoothed = [0.0_f32; 6];
    let hop_ms = settings.hop_ms as f32;
    for (mut f, level) in raw {
        f.level_db = level - loudest;
        let voiced = ramp(
            f.level_db,
            -settings.silence_db,
            -settings.silence_db + 10.0,
        );
        let open = ramp(f.low_centroid_hz, 400.0, 650.0);
        let spread = ramp(f.mid_centroid_hz, 2100.0, 2700.0);
        let rounded = ramp(tilt_shift - f.tilt_db, 4.5, 11.0);
        let hissy = ramp(f.hiss, 0.2, 0.4);
        // Vowels are the loud part of speech; nasals and liquids sit 10-20 dB lower and
        // would otherwise read as rounded vowels.
        let vowel = voiced * ramp(f.level_db, -20.0, -8.0) * (1.0 - hissy);
        let half_open = (1.0 - (open - 0.45).abs() / 0.45).max(0.0);
        let target = [
            vowel * open * (1.0 - rounded), // aa
            vowel * half_open * ramp(f.mid_centroid_hz, 1500.0, 2200.0) * (1.0 - rounded), // E
            vowel * (1.0 - open) * spread * (1.0 - rounded), // I
            vowel * open * rounded,         // O
            vowel * (1.0 - open) * (1.0 - spread) * rounded, // U
            voiced.max(ramp(
                f.level_db,
                -settings.silence_db - 10.0,
                -settings.silence_db,
            )) * hissy, // SS
        ];
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

/// Voices differ in overall spectral tilt (a recorded voice falls off faster above 900 Hz
/// than a formant synthesiser). With at least a second of loud speech, the clip's median tilt
/// calibrates the rounding cue to the speaker; shorter clips (a single sustained vowel) are
/// measured as they are.
fn speaker_tilt_shift(raw: &[(FrameFeatures, f32)], loudest: f32) -> f32 {
    /// Median tilt of varied speech from the offline voice, dB.
    const REFERENCE_MEDIAN_DB: f32 = -7.5;
    let mut tilts: Vec<f32> = raw
        .iter()
        .filter(|(_, level)| *level > loudest - 20.0)
        .map(|(f, _)| f.tilt_db)
        .collect();
    if tilts.len() < 100 {
        return 0.0;
    }
    tilts.sort_by(f32::total_cmp);
    (tilts[tilts.len() / 2] - REFERENCE_MEDIAN_DB).clamp(-10.0, 0.0)
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
