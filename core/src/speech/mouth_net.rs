//! The mouth's class read from the sound frame by frame: a small network over each 10 ms
//! frame's mel cepstra, with what the phone recogniser heard there, in a window of 100 ms
//! either side (the look-ahead a stream waits for). It was trained by the project on voices
//! and text it is never graded on (`scripts/mouth_net/`: the data recipe and the training
//! script; the weights are `mouth_net.bin` beside this file).
//!
//! A second network reads the cepstra alone, for where no phone recogniser is installed and
//! where speed matters more than the last points: the mean of two networks trained the same
//! way without the recogniser's class, one on the synthetic voices alone
//! (`mouth_net_sound.bin`), one larger on those and 250 sentences of a man's recorded Russian
//! (`mouth_net_sound_real.bin`), whose errors differ (docs/align.md, "Real speech in the
//! training").
//!
//! The classes are then decoded as a whole (a class changes only where the sound pays for
//! it, as an HMM's path would) and become visemes: where the recogniser's phone has the class
//! the network found, its own viseme; elsewhere the class's plainest viseme.

use super::eval::MouthClass;
pub use super::heard_closures::{with_closure_onsets_at_belief, with_heard_closures};
use super::mfcc::{self, HOP_MS};
use crate::anim::lipsync::VisemeEvent;
use crate::viseme::VisemeId;
use nalgebra::DMatrix;
use std::sync::OnceLock;

/// The weights the project trained (see the module's text).
const TRAINED: &[u8] = include_bytes!("mouth_net.bin");
/// The weights of the networks that read the sound alone: trained on synthetic voices, and on
/// those and recorded speech.
const SOUND_ONLY: &[u8] = include_bytes!("mouth_net_sound.bin");
const SOUND_ONLY_REAL: &[u8] = include_bytes!("mouth_net_sound_real.bin");
/// The frames each decision looks at, relative to its own.
pub const CONTEXT: [isize; 11] = [-10, -8, -6, -4, -2, 0, 2, 4, 6, 8, 10];
/// Per frame: the cepstral features ...
const FEATURES: usize = 26;
/// ... and the recogniser's class, one of seven.
pub const FRAME_INPUTS: usize = FEATURES + CLASSES;
const CLASSES: usize = MouthClass::ALL.len();
/// How the network's frame scores are decoded into classes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Decoding {
    /// What one change of class costs, in log probability.
    pub switch_cost: f32,
    /// Added to each class's log probability, in [`MouthClass::ALL`]'s order: a closure is
    /// rarer than the consonants it is confused with, and a missed one shows more.
    pub bias: [f32; CLASSES],
    /// Lips shut wherever the network's probability of a closure peaks at this or more,
    /// though the decoding chose another class there (0: never; [`with_heard_closures`]).
    pub closure_peak: f32,
    /// Each closure begins where the network's belief in it first reaches this share of its
    /// peak (0: where the decoding put it; [`with_closure_onsets_at_belief`]).
    pub closure_onset: f32,
}

impl Default for Decoding {
    fn default() -> Self {
        Self {
            switch_cost: 0.5,
            bias: [0.0; CLASSES],
            closure_peak: 0.0,
            closure_onset: 0.0,
        }
    }
}
/// Frame f's centre, ms after the sound's start (the cepstra's 25 ms window from f * 10 ms).
const CENTRE_MS: f64 = 12.5;

/// Each frame's inputs: its cepstral features and a one-hot of the class of the viseme the
/// recogniser put in force at its centre.
#[must_use]
pub fn frame_inputs(samples: &[f32], sample_rate: u32, heard: &[VisemeEvent]) -> Vec<Vec<f32>> {
    frame_inputs_warped(samples, sample_rate, heard, 1.0)
}

/// [`frame_inputs`] with the mel bands scaled by `warp`, as a longer or shorter vocal tract
/// would move them: more voices to train on from the same sounds.
#[must_use]
pub fn frame_inputs_warped(
    samples: &[f32],
    sample_rate: u32,
    heard: &[VisemeEvent],
    warp: f32,
) -> Vec<Vec<f32>> {
    mfcc::features_warped(samples, sample_rate, warp)
        .into_iter()
        .enumerate()
        .map(|(f, mut row)| {
            row.resize(FEATURES, 0.0);
            let class = class_in_force(heard, frame_centre_ms(f));
            row.extend(
                MouthClass::ALL
                    .iter()
                    .map(|&c| f32::from(u8::from(c == class))),
            );
            row
        })
        .collect()
}

/// Frame `f`'s centre, ms.
#[must_use]
pub fn frame_centre_ms(f: usize) -> f64 {
    f as f64 * HOP_MS + CENTRE_MS
}

/// The class in force at each of `frames` frames' centres along `track`.
#[must_use]
pub fn frame_classes(track: &[VisemeEvent], frames: usize) -> Vec<MouthClass> {
    (0..frames)
        .map(|f| class_in_force(track, frame_centre_ms(f)))
        .collect()
}

fn class_in_force(events: &[VisemeEvent], t: f64) -> MouthClass {
    let i = events.partition_point(|e| e.offset_ms <= t);
    MouthClass::of_viseme(if i == 0 { 0 } else { events[i - 1].id.get() })
}

/// Frame `f`'s window: the inputs of the frames at [`CONTEXT`] around it, the sound's first
/// and last frames standing in for those beyond its ends.
#[must_use]
pub fn window(frames: &[Vec<f32>], f: usize) -> Vec<f32> {
    window_of(frames, f, FRAME_INPUTS)
}

/// [`window`] of the first `width` inputs of each frame.
fn window_of(frames: &[Vec<f32>], f: usize, width: usize) -> Vec<f32> {
    let last = frames.len().saturating_sub(1) as isize;
    CONTEXT
        .iter()
        .flat_map(|&d| {
            let frame = &frames[(f as isize + d).clamp(0, last) as usize];
            frame[..width.min(frame.len())].iter().copied()
        })
        .collect()
}

/// One fully connected layer: `outputs` rows of `inputs` weights, a bias each.
#[derive(Clone, Debug, PartialEq)]
struct Dense {
    /// `inputs` x `outputs`: the file's rows as columns, so a block of frames (one a row)
    /// times it gives the layer's outputs for each frame.
    weights: DMatrix<f32>,
    bias: Vec<f32>,
}

impl Dense {
    /// The layer's outputs for each row of `x` (a frame's inputs a row), all at once.
    fn apply(&self, x: &DMatrix<f32>, relu: bool) -> DMatrix<f32> {
        let mut y = x * &self.weights;
        for (mut column, &b) in y.column_iter_mut().zip(&self.bias) {
            for v in column.iter_mut() {
                *v += b;
                if relu {
                    *v = v.max(0.0);
                }
            }
        }
        y
    }
}

/// A trained network: dense layers, rectified between them, the last giving the seven
/// classes' log probabilities. Or several such networks that read the same inputs, whose
/// probabilities are averaged ([`MouthNet::mean_of`]).
#[derive(Clone, Debug, PartialEq)]
pub struct MouthNet {
    /// Each member network's layers.
    members: Vec<Vec<Dense>>,
    /// The inputs it reads of each frame: [`FRAME_INPUTS`], or the cepstral features alone.
    frame_width: usize,
}

impl MouthNet {
    /// The network the project trained.
    ///
    /// # Panics
    /// Never: the committed weights are read by a unit test.
    #[must_use]
    #[allow(clippy::expect_used)]
    pub fn trained() -> &'static Self {
        static NET: OnceLock<MouthNet> = OnceLock::new();
        NET.get_or_init(|| Self::from_bytes(TRAINED).expect("the committed mouth network reads"))
    }

    /// The network the project trained to read the sound alone, without a recogniser.
    ///
    /// # Panics
    /// Never: the committed weights are read by a unit test.
    #[must_use]
    #[allow(clippy::expect_used)]
    pub fn sound_only() -> &'static Self {
        static NET: OnceLock<MouthNet> = OnceLock::new();
        NET.get_or_init(|| {
            [SOUND_ONLY, SOUND_ONLY_REAL]
                .into_iter()
                .map(Self::from_bytes)
                .collect::<Result<Vec<_>, _>>()
                .and_then(Self::mean_of)
                .expect("the committed sound-only mouth networks read")
        })
    }

    /// Whether it reads the recogniser's class beside the sound.
    #[must_use]
    pub fn hears_phones(&self) -> bool {
        self.frame_width == FRAME_INPUTS
    }

    /// A network from its file: "NPCMOUTH", then little-endian u32 layer count and per layer
    /// u32 inputs, u32 outputs, the weights row by row and the biases, all f32.
    ///
    /// # Errors
    /// Not such a file, or its layers do not chain from [`FRAME_INPUTS`] (or the cepstral
    /// features alone) x [`CONTEXT`] to the seven classes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, String> {
        let rest = bytes
            .strip_prefix(b"NPCMOUTH")
            .ok_or("not a mouth network (no NPCMOUTH header)")?;
        let mut words = rest
            .chunks_exact(4)
            .map(|c| [c[0], c[1], c[2], c[3]])
            .collect::<Vec<_>>()
            .into_iter();
        let mut next_u32 = || {
            words
                .next()
                .map(u32::from_le_bytes)
                .ok_or_else(|| "the mouth network ends early".to_owned())
        };
        let count = next_u32()?;
        let mut layers = Vec::new();
        let mut width = 0;
        for _ in 0..count {
            let (inputs, outputs) = (next_u32()? as usize, next_u32()? as usize);
            if layers.is_empty() {
                width = [FRAME_INPUTS, FEATURES]
                    .map(|w| w * CONTEXT.len())
                    .into_iter()
                    .find(|&w| w == inputs)
                    .unwrap_or(FRAME_INPUTS * CONTEXT.len());
            }
            if inputs != width {
                return Err(format!("a layer takes {inputs} inputs where {width} come"));
            }
            let mut floats = |n: usize| -> Result<Vec<f32>, String> {
                (0..n).map(|_| next_u32().map(f32::from_bits)).collect()
            };
            let rows = floats(inputs * outputs)?;
            let bias = floats(outputs)?;
            layers.push(Dense {
                // Row o of the file is output o's weights: column o here.
                weights: DMatrix::from_column_slice(inputs, outputs, &rows),
                bias,
            });
            width = outputs;
        }
        if width != CLASSES || layers.is_empty() {
            return Err(format!("the network gives {width} outputs, not {CLASSES}"));
        }
        let frame_width = layers[0].weights.nrows() / CONTEXT.len();
        Ok(Self {
            members: vec![layers],
            frame_width,
        })
    }

    /// The networks as one, each class's probability their mean (an ensemble: networks
    /// trained on different speech err in different places).
    ///
    /// # Errors
    /// No networks, or they read different inputs.
    pub fn mean_of(nets: Vec<Self>) -> Result<Self, String> {
        let frame_width = nets.first().ok_or("no networks to average")?.frame_width;
        if nets.iter().any(|n| n.frame_width != frame_width) {
            return Err("the networks read different inputs".to_owned());
        }
        Ok(Self {
            members: nets.into_iter().flat_map(|n| n.members).collect(),
            frame_width,
        })
    }

    /// Each class's log probability for one window.
    #[must_use]
    pub fn log_probs(&self, window: &[f32]) -> [f32; CLASSES] {
        let x = DMatrix::from_row_slice(1, window.len(), window);
        self.rows_log_probs(x).pop().unwrap_or([0.0; CLASSES])
    }

    /// Every frame's log probabilities, each frame read in its window; the frames are read
    /// together, as one matrix product a layer.
    #[must_use]
    pub fn frame_log_probs(&self, frames: &[Vec<f32>]) -> Vec<[f32; CLASSES]> {
        if frames.is_empty() {
            return Vec::new();
        }
        let width = self.frame_width * CONTEXT.len();
        let windows: Vec<f32> = (0..frames.len())
            .flat_map(|f| window_of(frames, f, self.frame_width))
            .collect();
        self.rows_log_probs(DMatrix::from_row_slice(frames.len(), width, &windows))
    }

    /// The log probabilities of each row of `x` (a window a row): of the mean of the members'
    /// probabilities.
    fn rows_log_probs(&self, x: DMatrix<f32>) -> Vec<[f32; CLASSES]> {
        let [first, rest @ ..] = &self.members[..] else {
            return Vec::new();
        };
        if rest.is_empty() {
            return member_log_probs(first, x);
        }
        let mut sum: Vec<[f32; CLASSES]> = vec![[0.0; CLASSES]; x.nrows()];
        for member in &self.members {
            for (total, row) in sum.iter_mut().zip(member_log_probs(member, x.clone())) {
                for (t, p) in total.iter_mut().zip(row) {
                    *t += p.exp();
                }
            }
        }
        let n = self.members.len() as f32;
        sum.into_iter()
            .map(|total| total.map(|t| (t / n).ln()))
            .collect()
    }
}

/// The log probabilities one member network gives each row of `x` (a window a row).
fn member_log_probs(layers: &[Dense], mut x: DMatrix<f32>) -> Vec<[f32; CLASSES]> {
    for (i, layer) in layers.iter().enumerate() {
        x = layer.apply(&x, i + 1 < layers.len());
    }
    x.row_iter()
        .map(|row| {
            let top = row.iter().fold(f32::MIN, |m, &v| m.max(v));
            let sum: f32 = row.iter().map(|v| (v - top).exp()).sum();
            std::array::from_fn(|c| row[c] - top - sum.ln())
        })
        .collect()
}

/// Every frame's class: the network's log probabilities decoded as a whole.
#[must_use]
pub fn classes(log_probs: &[[f32; CLASSES]], decoding: &Decoding) -> Vec<MouthClass> {
    let scores: Vec<[f32; CLASSES]> = log_probs
        .iter()
        .map(|p| std::array::from_fn(|c| p[c] + decoding.bias[c]))
        .collect();
    let mut path = decode(&scores, decoding.switch_cost);
    with_heard_closures(&mut path, log_probs, decoding.closure_peak);
    with_closure_onsets_at_belief(&mut path, log_probs, decoding.closure_onset);
    path
}

/// One 10 ms frame of a recording's mouth as heard: the class of the viseme in force at its
/// centre, and how sure the network is of it (its probability of that class, 0-1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HeardFrame {
    pub class: MouthClass,
    pub confidence: f32,
}

/// Each frame of `track` with the network's probability of its class (`log_probs` per frame).
#[must_use]
pub fn heard_frames(log_probs: &[[f32; CLASSES]], track: &[VisemeEvent]) -> Vec<HeardFrame> {
    log_probs
        .iter()
        .enumerate()
        .map(|(f, p)| {
            let class = class_in_force(track, frame_centre_ms(f));
            HeardFrame {
                class,
                confidence: p[class.index()].exp(),
            }
        })
        .collect()
}

/// The class sequence of greatest total log probability, less `switch_cost` per change
/// (Viterbi over seven states).
#[must_use]
pub fn decode(scores: &[[f32; CLASSES]], switch_cost: f32) -> Vec<MouthClass> {
    let Some(first) = scores.first() else {
        return Vec::new();
    };
    let mut total = *first;
    let mut from: Vec<[u8; CLASSES]> = Vec::with_capacity(scores.len());
    from.push([0; CLASSES]);
    for s in &scores[1..] {
        let (best, best_total) = total
            .iter()
            .enumerate()
            .fold((0, f32::MIN), |b, (c, &t)| if t > b.1 { (c, t) } else { b });
        let mut next = [0.0; CLASSES];
        let mut back = [0u8; CLASSES];
        for c in 0..CLASSES {
            let (stay, switch) = (total[c], best_total - switch_cost);
            (next[c], back[c]) = if stay >= switch {
                (stay + s[c], c as u8)
            } else {
                (switch + s[c], best as u8)
            };
        }
        total = next;
        from.push(back);
    }
    let mut c = (0..CLASSES)
        .max_by(|&a, &b| total[a].total_cmp(&total[b]))
        .unwrap_or(0);
    let mut path = vec![MouthClass::ALL[c]; scores.len()];
    for f in (1..scores.len()).rev() {
        c = usize::from(from[f][c]);
        path[f - 1] = MouthClass::ALL[c];
    }
    path
}

/// Azure's viseme of ʃ ʒ tʃ dʒ.
const POSTALVEOLAR: u8 = 16;

/// The plainest viseme of each class.
fn plain_viseme(class: MouthClass) -> u8 {
    match class {
        MouthClass::Silence => 0,
        MouthClass::Closed => 21,
        MouthClass::Labiodental => 18,
        MouthClass::Rounded => 7,
        MouthClass::Open => 2,
        MouthClass::Spread => 6,
        MouthClass::Other => 19,
    }
}

/// The viseme track of each frame's class: the recogniser's own viseme where it is of that
/// class, the class's plainest elsewhere; an event where the viseme changes, between the
/// frames' centres.
#[must_use]
pub fn track(classes: &[MouthClass], heard: &[VisemeEvent]) -> Vec<VisemeEvent> {
    let mut out: Vec<VisemeEvent> = vec![VisemeEvent::new(VisemeId::SILENCE, 0.0)];
    for (f, &class) in classes.iter().enumerate() {
        let centre = frame_centre_ms(f);
        let i = heard.partition_point(|e| e.offset_ms <= centre);
        let own = i.checked_sub(1).map(|i| heard[i].id);
        let id = match own {
            Some(id) if MouthClass::of_viseme(id.get()) == class => id,
            // The committed weights were trained with ʃ ʒ tʃ dʒ (Azure's 16, a rounded viseme)
            // among the other consonants, as the labels' classes had them then: where the
            // network hears a consonant and the recogniser a postalveolar, the postalveolar
            // stays.
            Some(id) if class == MouthClass::Other && id.get() == POSTALVEOLAR => id,
            _ => VisemeId::new(u32::from(plain_viseme(class))).unwrap_or(VisemeId::SILENCE),
        };
        if out.last().is_some_and(|e| e.id != id) {
            out.push(VisemeEvent::new(id, (centre - HOP_MS / 2.0).max(0.0)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_weights_read_and_give_probabilities() {
        let net = MouthNet::trained();
        let p = net.log_probs(&vec![0.0; FRAME_INPUTS * CONTEXT.len()]);
        let sum: f32 = p.iter().map(|l| l.exp()).sum();
        assert!((sum - 1.0).abs() < 1e-4, "{p:?}");
        assert!(net.hears_phones());
        let alone = MouthNet::sound_only();
        assert!(!alone.hears_phones());
        let p = alone.log_probs(&vec![0.0; FEATURES * CONTEXT.len()]);
        let sum: f32 = p.iter().map(|l| l.exp()).sum();
        assert!((sum - 1.0).abs() < 1e-4, "{p:?}");
        assert!(MouthNet::from_bytes(b"NPCMOUTH\x01\x00\x00\x00").is_err());
        assert!(MouthNet::from_bytes(b"nothing").is_err());
    }

    #[test]
    #[allow(clippy::unwrap_used)]
    fn networks_averaged_give_the_mean_of_their_probabilities() {
        let one = MouthNet::from_bytes(SOUND_ONLY).unwrap();
        let other = MouthNet::from_bytes(SOUND_ONLY_REAL).unwrap();
        let window: Vec<f32> = (0..FEATURES * CONTEXT.len())
            .map(|i| ((i * 7919) % 23) as f32 / 11.0 - 1.0)
            .collect();
        let (a, b) = (one.log_probs(&window), other.log_probs(&window));
        assert_ne!(a, b, "the two networks differ");
        let mean = MouthNet::mean_of(vec![one, other.clone()]).unwrap();
        let m = mean.log_probs(&window);
        for c in 0..CLASSES {
            let expected = f32::midpoint(a[c].exp(), b[c].exp());
            assert!(
                (m[c].exp() - expected).abs() < 1e-5,
                "{c}: {m:?} {a:?} {b:?}"
            );
        }
        assert_eq!(&mean, MouthNet::sound_only());
        assert!(MouthNet::mean_of(vec![MouthNet::trained().clone(), other]).is_err());
        assert!(MouthNet::mean_of(Vec::new()).is_err());
    }

    #[test]
    fn decoding_changes_class_only_where_the_sound_pays_for_it() {
        let (lo, hi) = (-3.0, -0.1);
        let frame = |c: usize| std::array::from_fn(|k| if k == c { hi } else { lo });
        // A one-frame blip of "open" in a run of "closed" (2.9 better) is not worth two
        // changes (4) ...
        let scores = [frame(1), frame(1), frame(4), frame(1), frame(1)];
        assert!(
            decode(&scores, 2.0)
                .iter()
                .all(|&c| c == MouthClass::Closed)
        );
        // ... but three frames of it are (8.7), and a free switch follows every frame.
        let scores = [frame(1), frame(4), frame(4), frame(4), frame(1)];
        let path = decode(&scores, 2.0);
        assert_eq!(path[2], MouthClass::Open);
        assert_eq!(path[0], MouthClass::Closed);
        let free = decode(&[frame(1), frame(4), frame(1)], 0.0);
        assert_eq!(free[1], MouthClass::Open);
    }

    #[test]
    fn each_heard_frame_has_its_class_and_the_networks_belief_in_it() {
        let sure_open: [f32; CLASSES] = std::array::from_fn(|c| if c == 4 { -0.05 } else { -4.0 });
        let track = [
            VisemeEvent::new(VisemeId::SILENCE, 0.0),
            VisemeEvent::new(VisemeId::new(2).unwrap_or(VisemeId::SILENCE), 15.0),
        ];
        let frames = heard_frames(&[sure_open, sure_open], &track);
        // Frame 0 (centre 12.5 ms) is silence, which the network doubts; frame 1 is open.
        assert_eq!(frames[0].class, MouthClass::Silence);
        assert!(frames[0].confidence < 0.05, "{frames:?}");
        assert_eq!(frames[1].class, MouthClass::Open);
        assert!(frames[1].confidence > 0.9, "{frames:?}");
    }

    #[test]
    fn the_track_keeps_the_recognisers_viseme_where_the_classes_agree() {
        let v = |id: u8, at: f64| {
            VisemeEvent::new(
                VisemeId::new(u32::from(id)).unwrap_or(VisemeId::SILENCE),
                at,
            )
        };
        // Heard: silence, then viseme 8 (o, rounded) from 20 ms, 21 (closed) from 30 ms.
        let heard = [v(0, 0.0), v(8, 20.0), v(21, 30.0)];
        let classes = [
            MouthClass::Silence,
            MouthClass::Rounded,
            MouthClass::Rounded,
            MouthClass::Open,
        ];
        let ids: Vec<u8> = track(&classes, &heard).iter().map(|e| e.id.get()).collect();
        // Rounded where 8 was heard keeps 8; rounded where the lips were heard shut is the
        // plain 7; open is 2.
        assert_eq!(ids, [0, 8, 7, 2]);
        // A consonant where a postalveolar (16) was heard keeps it; where an s (15) was, too
        // (its own class); where a vowel was, the plain 19.
        let heard = [v(0, 0.0), v(16, 20.0), v(15, 30.0), v(4, 40.0)];
        let classes = [
            MouthClass::Silence,
            MouthClass::Other,
            MouthClass::Other,
            MouthClass::Other,
        ];
        let ids: Vec<u8> = track(&classes, &heard).iter().map(|e| e.id.get()).collect();
        assert_eq!(ids, [0, 16, 15, 19]);
    }
}
