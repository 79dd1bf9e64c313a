//! A recording aligned to its script: the offline engine speaks the script, dynamic time
//! warping over both sounds' mel cepstra ([`super::mfcc`]) finds which moment of the
//! recording each moment of the synthesis matches, and the synthesis's timing (visemes,
//! words, phonemes and their stress) is carried over through that map. The recording then
//! has a viseme track that follows its own phones, and its own loudness for the jaw.

use super::acoustic::{AcousticModel, Heard, ScriptPhone};
use super::mfcc::{HOP_MS, features, features_warped};
use super::{PhonemeTiming, Utterance, WordTiming};
use crate::anim::lipsync::VisemeEvent;

/// Why a recording could not be aligned.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum AlignError {
    #[error("the recording is empty")]
    NoRecording,
    #[error("the script gave no speech to align")]
    NoSpeech,
}

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

/// How a recording was aligned to its script.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AlignedBy {
    /// The acoustic model found the script's phones ([`crate::speech::acoustic`]).
    AcousticModel,
    /// The synthesis was warped onto the recording; why the model was not used.
    Synthesis { why_not_model: String },
}

/// A recording with its script's timing, and how that timing was found.
#[derive(Clone, Debug, PartialEq)]
pub struct Alignment {
    pub utterance: Utterance,
    pub by: AlignedBy,
}

fn check(samples: &[f32], sample_rate: u32, synthesis: &Utterance) -> Result<(), AlignError> {
    if samples.is_empty() || sample_rate == 0 {
        return Err(AlignError::NoRecording);
    }
    if synthesis.pcm.is_empty() || synthesis.visemes.is_empty() {
        return Err(AlignError::NoSpeech);
    }
    Ok(())
}

/// `synthesis` (the script spoken by the offline engine in a voice of `language`) with its
/// timing carried onto the recording (`samples` in -1..1 at `sample_rate`), and the recording
/// as its audio. The acoustic model finds the phones where it speaks the language and is
/// installed; otherwise the synthesis is warped onto the recording, and the reason is logged.
///
/// # Errors
/// An empty recording, or a synthesis with no sound.
pub fn align(
    samples: &[f32],
    sample_rate: u32,
    synthesis: &Utterance,
    language: &str,
) -> Result<Alignment, AlignError> {
    check(samples, sample_rate, synthesis)?;
    let by_model = AcousticModel::for_language(language)
        .and_then(|model| align_by_model(&model, samples, sample_rate, synthesis));
    match by_model {
        Ok(utterance) => Ok(Alignment {
            utterance,
            by: AlignedBy::AcousticModel,
        }),
        Err(why_not_model) => {
            tracing::warn!("aligning by synthesis: {why_not_model}");
            Ok(Alignment {
                utterance: align_by_synthesis(samples, sample_rate, synthesis)?,
                by: AlignedBy::Synthesis { why_not_model },
            })
        }
    }
}

/// `synthesis` with its timing carried onto the recording where `model` hears its phones:
/// each phoneme spans what the model heard of it, and the mouth rests through each silence
/// the model heard between words.
///
/// # Errors
/// The model's reason, in words, when it could not follow the script.
pub fn align_by_model(
    model: &AcousticModel,
    samples: &[f32],
    sample_rate: u32,
    synthesis: &Utterance,
) -> Result<Utterance, String> {
    let script = script_phones(synthesis);
    let heard = model.align(samples, sample_rate, &script)?;
    let recording_ms = samples.len() as f64 * 1000.0 / f64::from(sample_rate);
    let map = PhoneMap::new(synthesis, &heard, recording_ms);
    let mut aligned = warped(synthesis, &|t| map.map(t), samples, sample_rate);
    aligned.visemes = with_pauses(aligned.visemes, &heard.silences);
    Ok(aligned)
}

/// The synthesis's phonemes, each marked where it begins a word.
fn script_phones(synthesis: &Utterance) -> Vec<ScriptPhone<'_>> {
    let mut words = synthesis
        .words
        .iter()
        .filter(|w| !w.text.trim().is_empty())
        .map(|w| w.offset_ms)
        .peekable();
    synthesis
        .phonemes
        .iter()
        .map(|p| {
            // A word begins at the first phoneme at or after its start (1 ms of slack).
            let mut starts_word = false;
            while words.next_if(|&w| w <= p.offset_ms + 1.0).is_some() {
                starts_word = true;
            }
            ScriptPhone {
                ipa: &p.ipa,
                starts_word,
            }
        })
        .collect()
}

/// The synthesis's time mapped onto the recording's, phoneme by phoneme: each phoneme's span
/// in the synthesis stretched over the span the model heard it in.
#[derive(Clone, Debug, PartialEq)]
struct PhoneMap {
    /// (synthesis start, synthesis end, recording start, recording end) ms, in order.
    spans: Vec<(f64, f64, f64, f64)>,
    recording_ms: f64,
}

impl PhoneMap {
    fn new(synthesis: &Utterance, heard: &Heard, recording_ms: f64) -> Self {
        let phonemes = &synthesis.phonemes;
        let speech_end = synthesis.duration_ms();
        let mut spans = Vec::with_capacity(phonemes.len());
        let mut heard_until = 0.0;
        for (i, p) in phonemes.iter().enumerate() {
            let end = phonemes.get(i + 1).map_or(speech_end, |n| n.offset_ms);
            // A phoneme the model has no phone for takes no time in the recording.
            let (from, to) = heard
                .phones
                .get(i)
                .copied()
                .flatten()
                .unwrap_or((heard_until, heard_until));
            heard_until = to;
            spans.push((p.offset_ms, end.max(p.offset_ms), from, to));
        }
        // The last phoneme runs to the synthesis's end, which is mostly silence: it keeps the
        // span the model heard.
        if let Some(last) = spans.last_mut() {
            last.1 = last.0 + (last.3 - last.2);
        }
        Self {
            spans,
            recording_ms,
        }
    }

    fn map(&self, t: f64) -> f64 {
        let i = self.spans.partition_point(|s| s.0 <= t);
        let mapped = match i.checked_sub(1).map(|k| self.spans[k]) {
            None => {
                // Before the first phoneme: its start stretched back to 0.
                let first = self.spans.first().copied().unwrap_or((0.0, 0.0, 0.0, 0.0));
                if first.0 > 0.0 {
                    t / first.0 * first.2
                } else {
                    first.2
                }
            }
            Some((s0, s1, r0, r1)) if t < s1 => r0 + (t - s0) / (s1 - s0) * (r1 - r0),
            Some((_, s1, _, r1)) => r1 + (t - s1),
        };
        mapped.clamp(0.0, self.recording_ms)
    }
}

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

/// `synthesis`'s timing through `map` (from the script's time to the recording's), with the
/// recording's sound.
fn warped(
    synthesis: &Utterance,
    map: &dyn Fn(f64) -> f64,
    samples: &[f32],
    sample_rate: u32,
) -> Utterance {
    let pcm = samples
        .iter()
        .map(|&s| (s.clamp(-1.0, 1.0) * 32767.0).round() as i16)
        .collect();
    Utterance {
        pcm,
        sample_rate,
        visemes: synthesis
            .visemes
            .iter()
            .map(|e| VisemeEvent::new(e.id, map(e.offset_ms)))
            .collect(),
        words: synthesis
            .words
            .iter()
            .map(|w| {
                let start = map(w.offset_ms);
                WordTiming {
                    text: w.text.clone(),
                    offset_ms: start,
                    duration_ms: (map(w.offset_ms + w.duration_ms) - start).max(0.0),
                }
            })
            .collect(),
        phonemes: synthesis
            .phonemes
            .iter()
            .map(|p| PhonemeTiming {
                offset_ms: map(p.offset_ms),
                ..p.clone()
            })
            .collect(),
    }
}

/// A pause is at least this long, ms, ...
const PAUSE_MS: f64 = 120.0;
/// ... and this far above the recording's noise floor (its quietest tenth), dB, but at
/// least 25 dB below its loudest 10 ms.
const PAUSE_ABOVE_FLOOR_DB: f32 = 12.0;
const PAUSE_MAX_DB: f32 = -25.0;
const PAUSE_MIN_DB: f32 = -60.0;

/// Each 10 ms of the recording's loudness, dB below its loudest.
fn energy_db(samples: &[f32], sample_rate: u32) -> Vec<f32> {
    let hop = (sample_rate as usize / 100).max(1);
    let energy: Vec<f32> = samples
        .chunks(hop)
        .map(|c| c.iter().map(|s| s * s).sum::<f32>() / c.len() as f32)
        .collect();
    let loudest = energy.iter().fold(f32::MIN_POSITIVE, |m, &e| m.max(e));
    energy
        .iter()
        .map(|&e| 10.0 * (e / loudest).max(1e-12).log10())
        .collect()
}

/// A stop's closure is this quiet at least, dB below the recording's loudest ...
const CLOSURE_DB: f32 = -18.0;
/// ... and its release (the burst) this much louder than its last quiet frame within 20 ms, dB.
const BURST_RISE_DB: f32 = 12.0;
/// The stop is looked for this far either side of where the warp put the closure, ms.
const RELEASE_SEARCH_MS: f64 = 150.0;

/// `events` with each lip closure (p, b, m) moved onto the recording's own stop: the warp
/// finds about where the closure is, the sound says where it is exactly (a stop's silence,
/// the lips shut through it, and its burst, where they open). A closure with no such silence
/// near it (an m) keeps the warp's timing.
fn with_releases(mut events: Vec<VisemeEvent>, energy_db: &[f32]) -> Vec<VisemeEvent> {
    let at = |k: usize| energy_db.get(k).copied();
    let frame = |ms: f64| (ms / HOP_MS).max(0.0) as usize;
    for i in 1..events.len().saturating_sub(1) {
        if events[i].id != crate::viseme::VisemeId::BILABIAL {
            continue;
        }
        let (from, to) = (events[i].offset_ms, events[i + 1].offset_ms);
        // Within reach, and not past the events either side.
        let lo = frame((from - RELEASE_SEARCH_MS).max(events[i - 1].offset_ms + HOP_MS));
        let hi = frame(
            events
                .get(i + 2)
                .map_or(to + RELEASE_SEARCH_MS, |n| n.offset_ms - HOP_MS)
                .min(to + RELEASE_SEARCH_MS),
        );
        // Quiet runs ended by a burst; the deepest is the stop's silence.
        let mut best: Option<(f32, usize, usize)> = None;
        let mut k = lo;
        while k < hi {
            if at(k).is_none_or(|e| e >= CLOSURE_DB) {
                k += 1;
                continue;
            }
            let start = k;
            let mut deepest = f32::MAX;
            while k < hi && at(k).is_some_and(|e| e < CLOSURE_DB) {
                deepest = deepest.min(at(k).unwrap_or(0.0));
                k += 1;
            }
            let quiet = at(k - 1).unwrap_or(0.0);
            let burst = (k..(k + 2).min(energy_db.len()))
                .find(|&b| at(b).is_some_and(|e| e - quiet >= BURST_RISE_DB));
            if let Some(b) = burst
                && best.is_none_or(|(d, ..)| deepest < d)
            {
                best = Some((deepest, start, b));
            }
        }
        if let Some((_, start, burst)) = best {
            events[i].offset_ms = start as f64 * HOP_MS;
            events[i + 1].offset_ms = burst as f64 * HOP_MS;
        }
    }
    events
}

/// Where a recording of loudness `energy` (10 ms frames, [`energy_db`]) pauses: (start,
/// end) ms.
fn pauses_ms(energy: &[f32]) -> Vec<(f64, f64)> {
    let mut sorted = energy.to_vec();
    sorted.sort_by(f32::total_cmp);
    let floor = sorted.get(sorted.len() / 10).copied().unwrap_or(-120.0);
    let quiet = (floor + PAUSE_ABOVE_FLOOR_DB).clamp(PAUSE_MIN_DB, PAUSE_MAX_DB);
    let mut out = Vec::new();
    let mut start = None;
    for (k, &e) in energy
        .iter()
        .chain(std::iter::once(&f32::INFINITY))
        .enumerate()
    {
        match (e < quiet, start) {
            (true, None) => start = Some(k),
            (false, Some(s)) => {
                let (from, to) = (s as f64 * HOP_MS, k as f64 * HOP_MS);
                if to - from >= PAUSE_MS {
                    out.push((from, to));
                }
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// `events` with the mouth at rest through each pause the recording makes: what the warp put
/// there gives way, and what was due at the pause's end comes then.
fn with_pauses(events: Vec<VisemeEvent>, pauses: &[(f64, f64)]) -> Vec<VisemeEvent> {
    let mut out: Vec<VisemeEvent> = Vec::with_capacity(events.len() + 2 * pauses.len());
    let mut events = events.into_iter().peekable();
    for &(from, to) in pauses {
        while let Some(e) = events.next_if(|e| e.offset_ms < from) {
            out.push(e);
        }
        // What is sounding when the pause ends: the last event before its end.
        let mut resumed = out.last().copied();
        while let Some(e) = events.next_if(|e| e.offset_ms < to) {
            resumed = Some(e);
        }
        out.push(VisemeEvent::new(crate::viseme::VisemeId::SILENCE, from));
        if let Some(e) = resumed.filter(|e| e.id != crate::viseme::VisemeId::SILENCE)
            && events.peek().is_none_or(|n| n.offset_ms > to)
        {
            out.push(VisemeEvent::new(e.id, to));
        }
    }
    out.extend(events);
    out
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

    #[test]
    fn each_phoneme_is_stretched_over_where_the_model_heard_it() {
        let phoneme = |ipa: &str, offset_ms| PhonemeTiming {
            ipa: ipa.to_owned(),
            offset_ms,
            stress: crate::speech::Stress::None,
        };
        // Two phonemes of 100 ms each, then 200 ms of trailing silence, at 1 kHz.
        let synthesis = Utterance {
            pcm: vec![0; 400],
            sample_rate: 1000,
            phonemes: vec![phoneme("m", 0.0), phoneme("a", 100.0)],
            ..Utterance::default()
        };
        // Heard after 500 ms of silence: the m over 100 ms, the a over 300 ms.
        let heard = Heard {
            phones: vec![Some((500.0, 600.0)), Some((600.0, 900.0))],
            silences: vec![(0.0, 500.0)],
        };
        let map = PhoneMap::new(&synthesis, &heard, 1000.0);
        assert_eq!(map.map(0.0), 500.0);
        assert_eq!(map.map(50.0), 550.0);
        assert_eq!(map.map(100.0), 600.0);
        assert_eq!(map.map(150.0), 650.0);
        // Past the last phoneme's heard span, time runs on at its own pace, within the
        // recording.
        assert_eq!(map.map(400.0), 900.0);
        assert_eq!(map.map(450.0), 950.0);
        assert_eq!(map.map(10_000.0), 1000.0);
    }

    #[test]
    fn nothing_to_align_is_said_in_words() {
        let empty = Utterance::default();
        assert_eq!(
            align(&[], 16_000, &empty, "en-US"),
            Err(AlignError::NoRecording)
        );
        assert_eq!(
            align(&[0.0; 160], 16_000, &empty, "en-US"),
            Err(AlignError::NoSpeech)
        );
    }
}
