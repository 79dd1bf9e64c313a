//! A line's sound lip-synced as it streams in, block by block (what the player does with a
//! streamed reply that has no text), graded against the exact phone labels of MBROLA voices
//! (as core/tests/lipsync_mbrola.rs grades the sound read whole): each block heard by the
//! network that reads the sound alone, with two seconds before it and 100 ms after it,
//! streaming costs a few points of frames and at most two of a line's p, b and m. (English read
//! whole also runs the phone recogniser, which streamed blocks do not: there it costs more.)

#![allow(clippy::unwrap_used, clippy::print_stderr)]

mod common;

use std::path::Path;
use std::process::Command;

use npc_core::speech::eval::{MouthClass, PhoneSpan, Score, read_labels, score};
use npc_core::speech::unscripted::visemes_from_sound;
use npc_player::BlockLipSync;

const LINES: [(&str, &str, &str); 4] = [
    (
        "us1",
        "en-US",
        "Bob bought a map from the old man by the bridge. We will walk over the hill before the \
         moon is up. Five brave farmers moved the boat to the river.",
    ),
    (
        "fr1",
        "fr-FR",
        "Bonjour, mon ami, le marché ouvre bientôt. Nous partirons demain matin vers la \
         montagne. Le petit bateau bleu flotte sur la rivière.",
    ),
    (
        "de1",
        "de-DE",
        "Guten Morgen, mein Freund, der Markt ist offen. Wir wandern morgen früh über den Berg. \
         Das kleine blaue Boot schwimmt auf dem Fluss.",
    ),
    (
        "es1",
        "es-ES",
        "Buenos días, amigo, el mercado ya está abierto. Mañana por la mañana iremos a la \
         montaña. El pequeño barco azul flota en el río.",
    ),
];

/// `text` spoken by the MBROLA `voice` into `dir`: the sound (samples, rate) and its labels;
/// None (said by name) without MBROLA.
fn spoken(dir: &Path, voice: &str, text: &str) -> Option<(Vec<f32>, u32, Vec<PhoneSpan>)> {
    let voices = Path::new("/usr/share/mbrola");
    let runs = |cmd: &str| Command::new(cmd).arg("--help").output().is_ok();
    if !(voices.join(voice).join(voice).is_file() && runs("espeak-ng") && runs("mbrola")) {
        common::not_run(
            "the MBROLA voices and espeak-ng's command line",
            "scripts/setup.sh installs mbrola, its voices and espeak-ng",
        );
        return None;
    }
    let (wav, labels) = npc_core::speech::mbrola::speak(voices, voice, text, dir, voice).unwrap();
    let (samples, rate) = npc_core::speech::wav::read_mono(&wav).unwrap();
    Some((samples, rate, labels))
}

#[test]
fn a_streamed_line_is_lip_synced_nearly_as_well_as_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    for (voice, language, text) in LINES {
        let Some((samples, rate, labels)) = spoken(dir.path(), voice, text) else {
            return;
        };
        let class_of = |p: &str| MouthClass::of_sampa_in(language, p);
        let whole: Score = score(
            &visemes_from_sound(&samples, rate, language).visemes,
            &labels,
            class_of,
        );
        // Arriving 100 ms at a time, each whole block lip-synced as it can be.
        let events = BlockLipSync::as_arriving(&samples, rate, 100.0);
        // Only changes are sent: a block that begins with the viseme in force restates nothing
        // (the measure would take a restated closure for a new one).
        assert!(
            events.windows(2).all(|w| w[0].id != w[1].id),
            "{voice}: a viseme restated"
        );
        let streamed = score(&events, &labels, class_of);
        eprintln!(
            "{voice}: read whole {:.1}% of {} frames, {}/{} p/b/m; streamed {:.1}%, {}/{}, {} \
             false closures",
            whole.frame_share() * 100.0,
            whole.frames,
            whole.closed,
            whole.closures,
            streamed.frame_share() * 100.0,
            streamed.closed,
            streamed.closures,
            streamed.false_closures
        );
        assert!(streamed.false_closures <= 1, "{voice}: {streamed:?}");
        // Measured 2026-12-07 with 100 ms of look-ahead: us1 13 of 16 p/b/m closed (whole
        // 14), fr 11 of 12 (11), de 7 of 10 (7), es 10 of 11 (10); without it us1 closed 11
        // (this test fails).
        assert!(
            streamed.closed + 2 >= whole.closed,
            "{voice}: {streamed:?} against {whole:?}"
        );
        if language == "en-US" {
            // Measured 2026-12-07: 68.2% (whole 76.5%). Before the look-ahead, with the
            // recogniser hearing each block with 150 ms before it: 62.1% (whole 71.5%).
            assert!(streamed.frame_share() >= 0.64, "{voice}: {streamed:?}");
            continue;
        }
        // Measured 2026-12-07 with 100 ms of look-ahead: fr 80.1% (whole 83.7%), de 82.0%
        // (85.9%), es 87.2% (87.2%); without it 79.3, 82.4 and 85.2%. Before the two networks
        // were averaged and each block heard with two seconds before it: fr 81.3% (79.7%), de
        // 80.7% (85.5%), es 86.4% (82.9%); with 150 ms before each block: 60.6, 67.0, 65.4%.
        assert!(streamed.frame_share() >= 0.75, "{voice}: {streamed:?}");
        assert!(
            streamed.frame_share() >= whole.frame_share() - 0.06,
            "{voice}: {streamed:?} against {whole:?}"
        );
    }
}

/// The first sentences of festvox-ru (a man's read Russian, labelled by festvox's aligner; held
/// out of the mouth networks' training and of every choice), streamed as a reply without text.
const RUSSIAN_SENTENCES: usize = 30;

/// Real speech streamed: festvox-ru's first sentences arriving 100 ms at a time, graded against
/// its labels beside the same sound read whole.
#[test]
fn streamed_real_speech_is_lip_synced_above_its_floors() {
    let Some(dir) = common::fetched("NPC_RUSSIAN_SPEECH", "russian") else {
        return;
    };
    let list = std::fs::read_to_string(dir.join("etc/txt.done.data")).unwrap();
    let ids: Vec<&str> = list
        .lines()
        .filter_map(|l| l.trim().strip_prefix("( ")?.split(' ').next())
        .take(RUSSIAN_SENTENCES)
        .collect();
    assert_eq!(ids.len(), RUSSIAN_SENTENCES);
    let (mut whole, mut streamed) = (Score::default(), Score::default());
    for id in ids {
        let labels = read_labels(&dir.join(format!("lab/{id}.lab")), "ru-RU").unwrap();
        let class_of = |p: &str| labels.symbols.class(p);
        let (samples, rate) =
            npc_core::speech::wav::read_mono(&dir.join(format!("wav/{id}.wav"))).unwrap();
        let read = visemes_from_sound(&samples, rate, "ru-RU").visemes;
        whole = whole.plus(score(&read, &labels.spans, class_of));
        let events = BlockLipSync::as_arriving(&samples, rate, 100.0);
        streamed = streamed.plus(score(&events, &labels.spans, class_of));
    }
    eprintln!(
        "festvox-ru, first {RUSSIAN_SENTENCES}: read whole {:.1}% of {} frames, {}/{} p/b/m, {} \
         false closures; streamed {:.1}%, {}/{}, {}",
        whole.frame_share() * 100.0,
        whole.frames,
        whole.closed,
        whole.closures,
        whole.false_closures,
        streamed.frame_share() * 100.0,
        streamed.closed,
        streamed.closures,
        streamed.false_closures
    );
    // Measured 2026-12-07: streamed 80.4% of 17,899 frames, 164 of 206 p/b/m closed, 32
    // closures on vowels (read whole 83.0%, 170, 20); without the 100 ms look-ahead 75.7%,
    // 169, 32 (this test fails).
    assert!(streamed.frame_share() >= 0.78, "{streamed:?}");
    assert!(streamed.closure_share() >= 0.77, "{streamed:?}");
    assert!(streamed.false_closures <= 45, "{streamed:?}");
}
