//! The offline engine: espeak-ng through its C library, synthesising into memory with phoneme
//! and word events that carry their audio positions. espeak-ng keeps global state, so one
//! process-wide instance serves every caller, one line at a time.

#![allow(unsafe_code)]

use std::ffi::{CStr, CString, c_char, c_int, c_short, c_void};
use std::sync::{Mutex, OnceLock};

use espeakng_sys as sys;

use super::ipa::{PhonemeVisemes, visemes_for_ipa, visemes_for_ipa_in};
use super::letters::unreadable_letters;
use super::{PhonemeTiming, StressMarks};
use super::{SpeechChunk, SpeechEngine, SpeechError, WordTiming};
use crate::anim::lipsync::VisemeEvent;
use crate::project::{Gender, Voice};
use crate::viseme::VisemeId;

/// The initialised library and its output sample rate.
#[derive(Debug)]
struct Library {
    sample_rate: u32,
}

static LIBRARY: OnceLock<Result<Mutex<Library>, String>> = OnceLock::new();

/// Files espeak-ng cannot speak without, in its data folder.
const DATA_FILES: [&str; 4] = ["phontab", "phondata", "phonindex", "intonations"];

/// Where espeak-ng will read its data (`ESPEAK_DATA_PATH/espeak-ng-data` when that is set and
/// is a folder, else the installed one), and why it cannot speak from there, if it cannot.
/// Checked before the library starts: without its data it prints an error and then
/// synthesises silence.
fn data_problem() -> Option<String> {
    // SAFETY: a null path makes espeak-ng choose its data folder as espeak_Initialize would;
    // this only sets the library's path, called once under the OnceLock.
    unsafe { sys::espeak_ng_InitializePath(std::ptr::null()) };
    let mut path: *const c_char = std::ptr::null();
    // SAFETY: espeak_Info writes a pointer to the library's own NUL-terminated path buffer.
    unsafe { sys::espeak_Info(&raw mut path) };
    if path.is_null() {
        return Some("espeak-ng did not say where its data is".to_owned());
    }
    // SAFETY: not null, and the buffer lives as long as the library (the process).
    let dir = unsafe { CStr::from_ptr(path) }
        .to_string_lossy()
        .into_owned();
    let missing: Vec<&str> = DATA_FILES
        .into_iter()
        .filter(|f| !std::path::Path::new(&dir).join(f).is_file())
        .collect();
    (!missing.is_empty()).then(|| {
        format!(
            "espeak-ng's data is missing ({} not found in {dir}): install the Debian package \
             espeak-ng-data, or set ESPEAK_DATA_PATH to the folder that holds espeak-ng-data/",
            missing.join(", ")
        )
    })
}

fn library() -> Result<&'static Mutex<Library>, SpeechError> {
    LIBRARY
        .get_or_init(|| {
            if let Some(problem) = data_problem() {
                return Err(problem);
            }
            // SAFETY: called once (OnceLock); a null path makes espeak-ng use its installed
            // data. Synchronous output writes nothing to any audio device.
            let rate = unsafe {
                sys::espeak_Initialize(
                    sys::espeak_AUDIO_OUTPUT_AUDIO_OUTPUT_SYNCHRONOUS,
                    0,
                    std::ptr::null(),
                    // Phonemes reported in IPA, the same alphabet in every language.
                    (sys::espeakINITIALIZE_PHONEME_EVENTS | sys::espeakINITIALIZE_PHONEME_IPA)
                        as c_int,
                )
            };
            if rate <= 0 {
                return Err(format!(
                    "espeak-ng failed to initialise (code {rate}); is espeak-ng-data installed?"
                ));
            }
            // SAFETY: the callback is a plain function valid for the life of the process.
            unsafe { sys::espeak_SetSynthCallback(Some(synth_callback)) };
            Ok(Mutex::new(Library {
                sample_rate: u32::try_from(rate).unwrap_or(22_050),
            }))
        })
        .as_ref()
        .map_err(|e| SpeechError::EngineUnavailable(e.clone()))
}

/// Offline text-to-speech with viseme timing (espeak-ng).
#[derive(Clone, Copy, Debug, Default)]
pub struct OfflineEngine;

impl OfflineEngine {
    /// Starts the engine (once per process); fails with a clear message when espeak-ng or its
    /// data is missing.
    pub fn new() -> Result<Self, SpeechError> {
        library().map(|_| Self)
    }

    /// The espeak-ng voice name for a voice: its own name, or the language with a female or
    /// male variant.
    #[must_use]
    pub fn voice_name(voice: &Voice) -> String {
        if let Some(name) = &voice.name {
            return name.clone();
        }
        let variant = match voice.gender {
            Gender::Female => "f3",
            Gender::Male => "m3",
        };
        format!("{}+{variant}", voice.language.to_lowercase())
    }
}

/// A gap without sound is a pause, where the mouth rests, when it lasts this long, ms. The
/// empty phonemes espeak-ng 1.51 puts inside words or between vowels last 37-52 ms; its commas
/// 150 ms and its full stops 300 ms.
const PAUSE_MS: f64 = 80.0;

/// Turns espeak-ng's events into viseme events and words as they arrive. A phoneme's second
/// viseme (diphthongs, affricates) and a word's length are only known when the next event
/// comes, so each is held back until then.
struct Timing<'a> {
    sink: &'a mut dyn FnMut(SpeechChunk),
    chars: Vec<char>,
    /// The phoneme being spoken: its visemes and start.
    pending_phoneme: Option<(PhonemeVisemes, f64)>,
    /// The word being spoken: text, start, and where a pause cut it short.
    pending_word: Option<(String, f64, Option<f64>)>,
    /// Where a phoneme without sound (espeak-ng's empty phoneme) began: a pause if it lasts,
    /// a glide between two vowels if it does not, known when the next phoneme comes.
    pending_gap: Option<f64>,
    last_viseme: Option<(VisemeId, f64)>,
    /// The line's transcript, giving each phoneme its stress.
    marks: StressMarks,
    /// The voice's language (BCP 47), for its own spelling of some sounds.
    language: &'a str,
    samples: usize,
    sample_rate: u32,
}

impl Timing<'_> {
    fn emit_viseme(&mut self, id: VisemeId, offset_ms: f64) {
        // Keep offsets non-decreasing and drop repeats of silence.
        let offset_ms = self
            .last_viseme
            .map_or(offset_ms, |(_, last)| offset_ms.max(last));
        if matches!(self.last_viseme, Some((last, _)) if last == id && id == VisemeId::SILENCE) {
            return;
        }
        self.last_viseme = Some((id, offset_ms));
        (self.sink)(SpeechChunk::Viseme(VisemeEvent::new(id, offset_ms)));
    }

    /// Emits what is held of the previous phoneme, now that the next starts at `next_ms`.
    fn flush_phoneme(&mut self, next_ms: f64) {
        if let Some((ids, start)) = self.pending_phoneme.take() {
            let ids = ids.as_slice();
            for (i, &id) in ids.iter().enumerate().skip(1) {
                let at = start + (next_ms - start) * i as f64 / ids.len() as f64;
                self.emit_viseme(id, at);
            }
        }
    }

    fn phoneme(&mut self, ipa: &str, at_ms: f64) {
        if ipa.starts_with('(') {
            // A language switch, "(en)": no sound of its own.
            return;
        }
        self.flush_phoneme(at_ms);
        if ipa.is_empty() {
            self.pending_gap.get_or_insert(at_ms);
            return;
        }
        self.close_gap(Some(at_ms));
        let ids = visemes_for_ipa_in(self.language, ipa).unwrap_or_else(|| {
            tracing::debug!("phoneme {ipa:?} has a letter that is not IPA; taking the tongue tip");
            visemes_for_ipa("t").unwrap_or(PhonemeVisemes::SILENCE)
        });
        let stress = self.marks.next(ipa);
        (self.sink)(SpeechChunk::Phoneme(PhonemeTiming {
            ipa: ipa.to_owned(),
            offset_ms: at_ms,
            stress,
        }));
        let ids_slice = ids.as_slice();
        if let Some(&first) = ids_slice.first() {
            self.emit_viseme(first, at_ms);
        }
        if ids_slice.first() == Some(&VisemeId::SILENCE)
            && let Some((_, _, end)) = &mut self.pending_word
        {
            end.get_or_insert(at_ms);
        }
        self.pending_phoneme = Some((ids, at_ms));
    }

    /// Ends the gap held since an empty phoneme, now that sound resumes at `next_ms` (None:
    /// the line ends): a pause rests the mouth and ends the word; a shorter gap (espeak-ng
    /// puts one between some vowels, "amiable", "see it") leaves the mouth as it was. The
    /// line's last gap always rests it, from its start (not from the audio's end, whose
    /// length moves by a few samples with what the process spoke before).
    fn close_gap(&mut self, next_ms: Option<f64>) {
        let Some(start) = self.pending_gap.take() else {
            return;
        };
        if next_ms.is_some_and(|next| next - start < PAUSE_MS) {
            return;
        }
        self.emit_viseme(VisemeId::SILENCE, start);
        if let Some((_, _, end)) = &mut self.pending_word {
            end.get_or_insert(start);
        }
    }

    fn flush_word(&mut self, next_ms: f64) {
        if let Some((text, start, end)) = self.pending_word.take() {
            let end = end.unwrap_or(next_ms).max(start);
            (self.sink)(SpeechChunk::Word(WordTiming {
                text,
                offset_ms: start,
                duration_ms: end - start,
            }));
        }
    }

    fn word(&mut self, text_position: c_int, length: c_int, at_ms: f64) {
        // A pause before this word ends the word before it.
        self.close_gap(Some(at_ms));
        self.flush_word(at_ms);
        let start = usize::try_from(text_position.max(1) - 1).unwrap_or(0);
        let length = usize::try_from(length.max(0)).unwrap_or(0);
        let text: String = self.chars.iter().skip(start).take(length).collect();
        self.pending_word = Some((text, at_ms, None));
    }

    fn audio_ms(&self) -> f64 {
        self.samples as f64 * 1000.0 / f64::from(self.sample_rate.max(1))
    }

    /// Closes the line: last phoneme and word, then silence at the end of the audio.
    fn finish(&mut self) {
        let end = self.audio_ms();
        self.flush_phoneme(end);
        self.close_gap(None);
        self.flush_word(end);
        self.emit_viseme(VisemeId::SILENCE, end);
    }
}

/// Receives audio and events from espeak-ng during `espeak_Synth`.
///
/// # Safety
/// Called by espeak-ng only while `synthesize_streaming` holds the library lock and a live
/// `Timing` is passed as user data; `wav` holds `count` samples and `events` is an array ended
/// by an `espeakEVENT_LIST_TERMINATED` entry, as the espeak-ng API documents.
unsafe extern "C" fn synth_callback(
    wav: *mut c_short,
    count: c_int,
    events: *mut sys::espeak_EVENT,
) -> c_int {
    if events.is_null() {
        return 0;
    }
    // SAFETY: espeak-ng passes the user data given to espeak_Synth in every event; it points to
    // the `Timing` that outlives the synchronous espeak_Synth call.
    let timing = unsafe {
        let user_data = (*events).user_data;
        if user_data.is_null() {
            // Nobody listens (the primer): stop synthesising.
            return 1;
        }
        &mut *user_data.cast::<Timing<'_>>()
    };
    if !wav.is_null() && count > 0 {
        // SAFETY: espeak-ng says `wav` holds `count` samples.
        let samples =
            unsafe { std::slice::from_raw_parts(wav, usize::try_from(count).unwrap_or(0)) };
        timing.samples += samples.len();
        (timing.sink)(SpeechChunk::Audio(samples.to_vec()));
    }
    let mut at = events;
    loop {
        // SAFETY: the array is terminated by espeakEVENT_LIST_TERMINATED; we stop there.
        let event = unsafe { &*at };
        let ms = f64::from(event.audio_position);
        match event.type_ {
            sys::espeak_EVENT_TYPE_espeakEVENT_LIST_TERMINATED => break,
            sys::espeak_EVENT_TYPE_espeakEVENT_PHONEME => {
                // SAFETY: for phoneme events the id union holds up to 8 chars of mnemonic.
                let raw = unsafe { event.id.string };
                let bytes: Vec<u8> = raw
                    .iter()
                    .take_while(|&&c| c != 0)
                    .map(|&c| c as u8)
                    .collect();
                timing.phoneme(&String::from_utf8_lossy(&bytes), ms);
            }
            sys::espeak_EVENT_TYPE_espeakEVENT_WORD => {
                timing.word(event.text_position, event.length, ms)
            }
            _ => {}
        }
        // SAFETY: not yet at the terminator, so the next entry is part of the array.
        at = unsafe { at.add(1) };
    }
    0
}

/// Vowels in each of the primer's two words: the primer's clause must have more phonemes than
/// any clause of a line (each `[[...]]` word stays under espeak-ng's 200 phonemes a word, and
/// the text under its 800-byte clause buffer).
const PRIMER_VOWELS: usize = 150;

/// Puts one clause of vowels through espeak-ng's phoneme list and stops before any sound is
/// kept. espeak-ng 1.51 leaves the two pause entries that end each clause in that list with the
/// pre-pause of whatever phoneme filled the slot in an earlier utterance (fixed upstream in
/// 1.52, commit 199cbe4a "Mark re-used phoneme_list as undefined"); so without this a line's
/// timing depends on what the process spoke before: after "bring back", "Welcome, traveler."
/// gains a 32 ms pause. Vowels carry no pre-pause, so every line meets the same clean list.
///
/// # Safety
/// The library must be initialised and its lock held.
unsafe fn prime() -> Result<(), SpeechError> {
    let vowels = "a ".repeat(PRIMER_VOWELS);
    let text =
        CString::new(format!("[[{vowels}]]")).map_err(|e| SpeechError::Synthesis(e.to_string()))?;
    // SAFETY: the caller holds the lock; null user data makes the callback stop the synthesis
    // at its first call, after the clause's phoneme list is built.
    unsafe { synth(&text, sys::espeakPHONEMES, std::ptr::null_mut()) }.map_err(|status| {
        SpeechError::Synthesis(format!("espeak_Synth returned {status} for the primer"))
    })
}

/// Separates phonemes in [`transcript`]'s output.
const TRANSCRIPT_SEPARATOR: char = '_';

/// espeak-ng's IPA transcript of `text` in the current voice, clause by clause, phonemes
/// separated by [`TRANSCRIPT_SEPARATOR`], stressed vowels marked.
///
/// # Safety
/// The library must be initialised, its lock held and the voice set.
unsafe fn transcript(text: &CStr) -> String {
    let mut out = String::new();
    let mut at: *const c_void = text.as_ptr().cast::<c_void>();
    let mode = sys::espeakPHONEMES_IPA as c_int | ((TRANSCRIPT_SEPARATOR as c_int) << 8);
    // A clause per call; espeak-ng sets the pointer to null after the last. The bound guards
    // against a library that never does.
    for _ in 0..text.to_bytes().len() + 1 {
        if at.is_null() {
            break;
        }
        // SAFETY: `at` points into the NUL-terminated `text` (espeak-ng advances it within
        // it); the returned string is the library's own buffer, copied before the next call.
        let clause = unsafe {
            sys::espeak_TextToPhonemes(&raw mut at, sys::espeakCHARS_UTF8 as c_int, mode)
        };
        if clause.is_null() {
            break;
        }
        // SAFETY: a NUL-terminated string owned by the library, valid until the next call.
        out.push_str(&unsafe { CStr::from_ptr(clause) }.to_string_lossy());
        out.push(' ');
    }
    out
}

/// Synthesises `text` (UTF-8, plus `flags`) in synchronous mode, `user_data` reaching the
/// callback with every event; the espeak-ng status when it is not OK.
///
/// # Safety
/// The library must be initialised and its lock held; `user_data` is null or points to a
/// `Timing` that lives until this returns.
unsafe fn synth(text: &CStr, flags: u32, user_data: *mut c_void) -> Result<(), sys::espeak_ERROR> {
    let bytes = text.to_bytes_with_nul();
    // SAFETY: NUL-terminated text of the given size; synchronous mode returns only when the
    // synthesis has ended, so `user_data` is not used after this call.
    let status = unsafe {
        sys::espeak_Synth(
            bytes.as_ptr().cast::<c_void>(),
            bytes.len(),
            0,
            sys::espeak_POSITION_TYPE_POS_CHARACTER,
            0,
            sys::espeakCHARS_UTF8 | flags,
            std::ptr::null_mut(),
            user_data,
        )
    };
    if status == sys::espeak_ERROR_EE_OK {
        Ok(())
    } else {
        Err(status)
    }
}

impl SpeechEngine for OfflineEngine {
    fn synthesize_streaming(
        &self,
        text: &str,
        voice: &Voice,
        sink: &mut dyn FnMut(SpeechChunk),
    ) -> Result<(), SpeechError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(SpeechError::EmptyText);
        }
        // The voice named ("ja", "en-us+f3") speaks, else the language's.
        let speaks = voice.name.as_deref().map_or(voice.language.as_str(), |n| {
            n.split('+').next().unwrap_or(n)
        });
        if let Some(why) = unreadable_letters(speaks, text) {
            tracing::warn!("{why}");
        }
        let library = library()?;
        let guard = library
            .lock()
            .map_err(|_| SpeechError::Synthesis("an earlier synthesis panicked".into()))?;
        let name = Self::voice_name(voice);
        // A region espeak-ng has no voice for ("fr-FR", "de-DE", "es-ES": BCP 47 as users
        // write it) speaks the language's own voice ("fr").
        let base = voice
            .name
            .is_none()
            .then(|| {
                name.split_once('-')
                    .map(|(lang, _)| lang)
                    .zip(name.split_once('+'))
            })
            .flatten()
            .map(|(lang, (_, variant))| format!("{lang}+{variant}"));
        let set = |name: &str| -> Result<bool, SpeechError> {
            let c_name = CString::new(name.to_owned())
                .map_err(|_| SpeechError::UnknownVoice(name.to_owned()))?;
            // SAFETY: a valid NUL-terminated string; the library is initialised and locked.
            Ok(unsafe { sys::espeak_SetVoiceByName(c_name.as_ptr()) } == sys::espeak_ERROR_EE_OK)
        };
        if !set(&name)? && !base.as_deref().map(set).transpose()?.unwrap_or(false) {
            return Err(SpeechError::UnknownVoice(name));
        }
        let c_text = CString::new(text.replace('\0', " "))
            .map_err(|e| SpeechError::Synthesis(e.to_string()))?;
        // SAFETY: the library is initialised and locked (`guard`), the voice set.
        let marks = StressMarks::parse(&unsafe { transcript(&c_text) }, TRANSCRIPT_SEPARATOR);
        // SAFETY: the library is initialised and locked (`guard`).
        unsafe { prime()? };
        sink(SpeechChunk::Start {
            sample_rate: guard.sample_rate,
        });
        let mut timing = Timing {
            sink,
            chars: text.chars().collect(),
            pending_phoneme: None,
            pending_word: None,
            pending_gap: None,
            last_viseme: None,
            marks,
            language: &voice.language,
            samples: 0,
            sample_rate: guard.sample_rate,
        };
        timing.emit_viseme(VisemeId::SILENCE, 0.0);
        // SAFETY: the library is locked (`guard`); `timing` outlives the synchronous call.
        unsafe { synth(&c_text, 0, std::ptr::from_mut(&mut timing).cast::<c_void>()) }
            .map_err(|status| SpeechError::Synthesis(format!("espeak_Synth returned {status}")))?;
        if timing.samples == 0 {
            return Err(SpeechError::Synthesis(format!(
                "espeak-ng made no sound for {text:?}"
            )));
        }
        timing.finish();
        drop(guard);
        Ok(())
    }
}
