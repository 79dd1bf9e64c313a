//! Lip sync graded against labels it did not make: MBROLA voices (Debian's mbrola packages,
//! driven by espeak-ng) speak sentences from phone files (`.pho`) that fix every phone's
//! duration, so the labels are exact and come from another synthesiser than the one the
//! aligner listens with. Each sentence is graded by the one measure (npc_core::speech::eval):
//! frames in the right mouth class, p/b/m closed; from the sound alone and with the script.
//!
//! Prints the figures per language (`cargo test --test lipsync_mbrola -- --nocapture`;
//! `NPC_EVAL_CONFUSION=1` adds each confusion table); the last two sentences of each language
//! are held out of any tuning and printed apart. None of these voices or sentences is in the
//! mouth network's training data (scripts/mouth_net/). Asserts that every sentence is spoken
//! and graded, that the voice's own labels grade as all right, and the floors in [`check`].

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use npc_core::anim::lipsync::VisemeEvent;
use npc_core::project::{Gender, Voice};
use npc_core::speech::LineSource;
use npc_core::speech::acoustic::AcousticModel;
use npc_core::speech::eval::{MouthClass, PhoneSpan, Score, missed_closure_lines, score};
use npc_core::speech::unscripted::{by_sound_alone, recognised};
use npc_core::viseme::VisemeId;

/// Each language: the MBROLA voice, the NPCs' language tag, and sentences (the last two held
/// out).
const LANGUAGES: [(&str, &str, [&str; 6]); 5] = [
    (
        "us1",
        "en-US",
        [
            "Bob bought a map from the old man by the bridge.",
            "We will walk over the hill before the moon is up.",
            "Five brave farmers moved the boat to the river.",
            "Please pass me the blue cup of warm milk.",
            "My brother found a small piece of paper.",
            "Where have you been all morning, friend?",
        ],
    ),
    (
        "fr1",
        "fr-FR",
        [
            "Bonjour, mon ami, le marché ouvre bientôt.",
            "Nous partirons demain matin vers la montagne.",
            "Le petit bateau bleu flotte sur la rivière.",
            "Pourquoi veux-tu porter ce vieux manteau?",
            "Ma mère prépare une bonne soupe aux pommes.",
            "Le vent souffle fort sur le pont de bois.",
        ],
    ),
    (
        "de1",
        "de-DE",
        [
            "Guten Morgen, mein Freund, der Markt ist offen.",
            "Wir wandern morgen früh über den Berg.",
            "Das kleine blaue Boot schwimmt auf dem Fluss.",
            "Bitte bring mir eine Tasse warme Milch.",
            "Mein Bruder fand ein Stück Papier im Wald.",
            "Warum willst du diesen alten Mantel tragen?",
        ],
    ),
    (
        "es1",
        "es-ES",
        [
            "Buenos días, amigo, el mercado ya está abierto.",
            "Mañana por la mañana iremos a la montaña.",
            "El pequeño barco azul flota en el río.",
            "Por favor, pásame una taza de leche caliente.",
            "Mi hermano encontró un papel en el bosque.",
            "Ven pronto, que la comida se enfría.",
        ],
    ),
    (
        "tr1",
        "tr-TR",
        [
            "Günaydın dostum, pazar birazdan açılıyor.",
            "Yarın sabah dağa doğru yürüyeceğiz.",
            "Küçük mavi bir bot nehirde yüzüyor.",
            "Lütfen bana bir bardak sıcak süt ver.",
            "Kardeşim ormanda bir parça kağıt buldu.",
            "Bu eski paltoyu neden giymek istiyorsun?",
        ],
    ),
];

/// Where Debian's mbrola voices are, when they and the commands are installed.
fn mbrola_voices() -> Option<PathBuf> {
    let dir =
        PathBuf::from(std::env::var_os("NPC_MBROLA").unwrap_or_else(|| "/usr/share/mbrola".into()));
    let runs = |cmd: &str| Command::new(cmd).arg("--help").output().is_ok();
    if dir.join("us1/us1").is_file() && runs("espeak-ng") && runs("mbrola") {
        Some(dir)
    } else {
        common::not_run(
            "the MBROLA voices and espeak-ng's command line",
            "scripts/setup.sh installs mbrola, its voices and espeak-ng from Debian contrib and non-free",
        );
        None
    }
}

/// `text` spoken by `voice`: the WAV and its exact phone labels.
fn speak(
    voices: &Path,
    voice: &str,
    text: &str,
    dir: &Path,
    name: &str,
) -> (PathBuf, Vec<PhoneSpan>) {
    npc_core::speech::mbrola::speak(voices, voice, text, dir, name).unwrap()
}

/// The labels as a track: a viseme of each phone's class at its start.
fn labels_as_track(
    labels: &[PhoneSpan],
    class_of: impl Fn(&str) -> MouthClass,
) -> Vec<VisemeEvent> {
    labels
        .iter()
        .map(|l| VisemeEvent {
            id: VisemeId::new(match class_of(&l.phone) {
                MouthClass::Silence => 0,
                MouthClass::Closed => 21,
                MouthClass::Labiodental => 18,
                MouthClass::Rounded => 7,
                MouthClass::Open => 2,
                MouthClass::Spread => 6,
                MouthClass::Other => 19,
            })
            .unwrap(),
            offset_ms: l.start_ms,
        })
        .collect()
}

fn line(s: &Score) -> String {
    format!(
        "{:5.1}% of {:4} frames, {:3}/{:3} p/b/m closed, {} false closures, {:2}/{:2} rounding onsets",
        s.frame_share() * 100.0,
        s.frames,
        s.closed,
        s.closures,
        s.false_closures,
        s.rounded,
        s.roundings
    )
}

/// The frames by labelled class (rows) and class heard (columns), when `NPC_EVAL_CONFUSION`
/// is set.
fn confusion(s: &Score) -> String {
    if std::env::var_os("NPC_EVAL_CONFUSION").is_none() {
        return String::new();
    }
    let names = ["sil", "clo", "lab", "rnd", "opn", "spr", "oth"];
    let mut out = format!("\n      {}", names.map(|n| format!("{n:>5}")).join(""));
    for (name, row) in names.iter().zip(&s.confusion) {
        out += &format!("\n  {name} {}", row.map(|n| format!("{n:5}")).join(""));
    }
    out
}

/// Prints each p, b or m that `events` leave open, with the events around it, when
/// `NPC_EVAL_MISSES` is set.
fn misses(
    what: &str,
    events: &[VisemeEvent],
    labels: &[PhoneSpan],
    class_of: impl Fn(&str) -> MouthClass,
) {
    if std::env::var_os("NPC_EVAL_MISSES").is_some() {
        for miss in missed_closure_lines(events, labels, class_of) {
            eprintln!("  {what}: {miss}");
        }
    }
}

#[test]
fn mbrola_voices_grade_lip_sync_in_five_languages() {
    let Some(voices) = mbrola_voices() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for (voice, language, sentences) in LANGUAGES {
        let npc_voice = Voice {
            gender: Gender::Female,
            language: language.to_owned(),
            ..Voice::default()
        };
        let mut graded = [[Score::default(); 4]; 2];
        for (i, text) in sentences.iter().enumerate() {
            let (wav, labels) = speak(&voices, voice, text, dir.path(), &format!("{voice}-{i}"));
            let class_of = |p: &str| MouthClass::of_sampa_in(language, p);
            let own = score(&labels_as_track(&labels, class_of), &labels, class_of);
            assert!(own.frames > 20, "{voice} {i}: {own:?}");
            assert_eq!(
                own.right, own.frames,
                "{voice} {i}: the labels grade as all right"
            );
            assert_eq!(own.closed, own.closures);
            let held_out = usize::from(i >= 4);
            let alone = LineSource::from_wav(&wav, language).unwrap();
            graded[held_out][0] =
                graded[held_out][0].plus(score(alone.cue.track.events(), &labels, class_of));
            let (samples, rate) = npc_core::speech::wav::read_mono(&wav).unwrap();
            graded[held_out][2] = graded[held_out][2].plus(score(
                &recognised(&samples, rate, language).visemes,
                &labels,
                class_of,
            ));
            graded[held_out][3] = graded[held_out][3].plus(score(
                &by_sound_alone(&samples, rate).visemes,
                &labels,
                class_of,
            ));
            let scripted = LineSource::from_wav_and_script(&wav, text, &npc_voice).unwrap();
            graded[held_out][1] =
                graded[held_out][1].plus(score(scripted.cue.track.events(), &labels, class_of));
            misses(
                &format!("{voice} {i} alone"),
                alone.cue.track.events(),
                &labels,
                class_of,
            );
            misses(
                &format!("{voice} {i} script"),
                scripted.cue.track.events(),
                &labels,
                class_of,
            );
        }
        for (part, name) in [(0, "sentences 1-4"), (1, "held out 5-6")] {
            eprintln!(
                "mbrola {voice} ({language}) {name}: sound alone {}{}\n    \
                 phones recognised alone {}{}\n    no recogniser {}{}\n    \
                 with the script {}{}",
                line(&graded[part][0]),
                confusion(&graded[part][0]),
                line(&graded[part][2]),
                confusion(&graded[part][2]),
                line(&graded[part][3]),
                confusion(&graded[part][3]),
                line(&graded[part][1]),
                confusion(&graded[part][1])
            );
        }
        let [alone, scripted, heard, _] = std::array::from_fn(|k| graded[0][k].plus(graded[1][k]));
        check(language, alone, scripted, heard);
        held_out_floors(language, graded[1][0], graded[1][1]);
    }
}

/// The held-out sentences (5-6) of each language, a few points under what was measured
/// (docs/align.md): (language, sound alone: frames, p/b/m closed; with the script: frames,
/// p/b/m closed). Measured on 2026-12-06 (fifth session), with the script's mouth shapes
/// moved to where the sound shows them outside English, and the recogniser's in English: en
/// 83.2% 8/8 (the recogniser and the network's closures), 91.3% 8/8 (not moved); fr 77.8%
/// 9/10, 98.3% 10/10; de 88.0% 7/7, 93.2% 7/7; es 81.0% 10/11, 97.1% 11/11; tr 89.8% 7/8,
/// 94.1% 8/8. (Before the moving, with the script: fr 85.5%, de 81.6% 6/7, es 91.2%, tr
/// 89.8%; English alone 80.5% 7/8.)
const HELD_OUT_FLOORS: [(&str, f64, usize, f64, usize); 5] = [
    ("en-US", 0.79, 7, 0.87, 8),
    ("fr-FR", 0.73, 8, 0.94, 9),
    ("de-DE", 0.84, 6, 0.89, 6),
    ("es-ES", 0.77, 9, 0.93, 10),
    ("tr-TR", 0.86, 6, 0.90, 7),
];

/// The frames each language's script puts right over all six sentences, a few points under
/// what was measured on 2026-12-06 (fifth session: en 89.6%, fr 98.1%, de 92.7%, es 96.2%, tr
/// 92.1%; sixth, with a bilabial after n or l begun halfway through their hum: de 93.7%, es
/// 96.6%). Without the script's mouth shapes moved to where the sound shows them (English is
/// not moved) it was fr 88.8%, de 81.2%, es 86.6%, tr 83.7%: every floor but English's fails
/// then.
const SCRIPTED_FLOORS: [(&str, f64); 5] = [
    ("en-US", 0.87),
    ("fr-FR", 0.95),
    ("de-DE", 0.91),
    ("es-ES", 0.93),
    ("tr-TR", 0.89),
];

/// The p, b and m each language's sound alone closes over all six sentences, a few under
/// what was measured on 2026-12-06 (en 25 of 31, fr 23/25, de 20/22, es 24/26, tr 14/18; en
/// 26 once the recogniser's track was moved to where the network hears its shapes; es 25 and
/// tr 15 once closures began where the network's belief nears its peak).
/// Without the closures the network hears (`Decoding::closure_peak` 0) English closed 15 and
/// German 17.
const CLOSURE_FLOORS: [(&str, usize); 5] = [
    ("en-US", 23),
    ("fr-FR", 21),
    ("de-DE", 18),
    ("es-ES", 23),
    ("tr-TR", 13),
];

fn held_out_floors(language: &str, alone: Score, scripted: Score) {
    if AcousticModel::installed().is_err() {
        return;
    }
    let Some(&(_, frames, closed, frames_scripted, closed_scripted)) =
        HELD_OUT_FLOORS.iter().find(|f| f.0 == language)
    else {
        panic!("no floors for {language}");
    };
    assert!(alone.frame_share() >= frames, "{language} alone: {alone:?}");
    assert!(alone.closed >= closed, "{language} alone: {alone:?}");
    assert!(
        scripted.frame_share() >= frames_scripted,
        "{language} with the script: {scripted:?}"
    );
    assert!(
        scripted.closed >= closed_scripted,
        "{language} with the script: {scripted:?}"
    );
}

/// What must hold on every voice (all six sentences; the voices were not trained or tuned
/// on): with the script, the lips close at every p, b and m (German missed two m after an n,
/// Spanish one after an l, before the hum of the two was shared: `murmurs_shared`) and never
/// twice on a vowel; outside English, the network that hears the sound alone puts at least 74% of frames
/// right, 5 points more than the phones recognised alone (measured 2026-12-06: 79.1-82.9%
/// against 56.9-71.2%; French the closest, 79.1% against 71.2%).
fn check(language: &str, alone: Score, scripted: Score, heard: Score) {
    if AcousticModel::installed().is_err() {
        common::not_run(
            "the lip sync figures' checks",
            "no acoustic model (scripts/setup.sh installs pocketsphinx-en-us)",
        );
        return;
    }
    assert_eq!(
        scripted.closed, scripted.closures,
        "{language} with the script: every p, b and m closed"
    );
    assert!(scripted.false_closures <= 1, "{language}: {scripted:?}");
    let Some(&(_, frames_scripted)) = SCRIPTED_FLOORS.iter().find(|f| f.0 == language) else {
        panic!("no floor with the script for {language}");
    };
    assert!(
        scripted.frame_share() >= frames_scripted,
        "{language} with the script: {scripted:?}"
    );
    assert!(alone.false_closures <= 2, "{language}: {alone:?}");
    let Some(&(_, closed)) = CLOSURE_FLOORS.iter().find(|f| f.0 == language) else {
        panic!("no closure floor for {language}");
    };
    assert!(alone.closed >= closed, "{language} alone: {alone:?}");
    if !language.starts_with("en") {
        assert!(alone.frame_share() >= 0.74, "{language}: {alone:?}");
        assert!(
            alone.frame_share() >= heard.frame_share() + 0.05,
            "{language}: {alone:?} against {heard:?}"
        );
    }
}
