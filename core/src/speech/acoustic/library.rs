//! PocketSphinx's C library (the 5prealpha API Debian ships as libpocketsphinx3), opened at
//! run time: a machine without it still speaks, lip-syncs and aligns by synthesis, and is
//! told what to install for alignment by the acoustic model.

#![allow(unsafe_code)]

use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::path::Path;
use std::sync::OnceLock;

use libloading::Library;

/// The library's names, tried in turn.
const NAMES: [&str; 2] = ["libpocketsphinx.so.3", "libpocketsphinx.so"];

type CmdLnParse = unsafe extern "C" fn(
    *mut c_void,
    *const c_void,
    c_int,
    *const *const c_char,
    c_int,
) -> *mut c_void;
type Args = unsafe extern "C" fn() -> *const c_void;
type Init = unsafe extern "C" fn(*mut c_void) -> *mut c_void;
type Free = unsafe extern "C" fn(*mut c_void) -> c_int;
type AddWord = unsafe extern "C" fn(*mut c_void, *const c_char, *const c_char, c_int) -> c_int;
type SetJsgf = unsafe extern "C" fn(*mut c_void, *const c_char, *const c_char) -> c_int;
type SetSearch = unsafe extern "C" fn(*mut c_void, *const c_char) -> c_int;
type Utt = unsafe extern "C" fn(*mut c_void) -> c_int;
type ProcessRaw = unsafe extern "C" fn(*mut c_void, *const i16, usize, c_int, c_int) -> c_int;
type SegIter = unsafe extern "C" fn(*mut c_void) -> *mut c_void;
type SegWord = unsafe extern "C" fn(*mut c_void) -> *const c_char;
type SegFrames = unsafe extern "C" fn(*mut c_void, *mut c_int, *mut c_int);
type SetLogFp = unsafe extern "C" fn(*mut c_void);

/// The entry points used, looked up once.
struct Api {
    cmd_ln_parse: CmdLnParse,
    cmd_ln_free: Free,
    ps_args: Args,
    ps_init: Init,
    ps_free: Free,
    add_word: AddWord,
    set_jsgf: SetJsgf,
    set_search: SetSearch,
    start_utt: Utt,
    end_utt: Utt,
    process_raw: ProcessRaw,
    seg_iter: SegIter,
    seg_next: SegIter,
    seg_word: SegWord,
    seg_frames: SegFrames,
    /// Kept open as long as the pointers above are used.
    _library: Library,
}

/// Decoders are made and freed one at a time (making one reads the model files and sets up
/// the library's tables); between that, each searches on its own thread without a lock. Two
/// phone recognitions at once freed an invalid pointer while each decoder set the one global
/// log file (-logfn); logging is off for the process instead (see `Api::open`).
static MAKING: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn making() -> std::sync::MutexGuard<'static, ()> {
    MAKING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The library, opened once for the process (or why it could not be).
static API: OnceLock<Result<Api, String>> = OnceLock::new();

fn api() -> Result<&'static Api, String> {
    API.get_or_init(Api::open).as_ref().map_err(Clone::clone)
}

impl Api {
    fn open() -> Result<Self, String> {
        let mut tried = Vec::new();
        let library = NAMES
            .iter()
            .find_map(|name| {
                // SAFETY: loading PocketSphinx runs its (and sphinxbase's) initialisers, which
                // only set up their own tables.
                unsafe { Library::new(name) }
                    .map_err(|e| tried.push(e.to_string()))
                    .ok()
            })
            .ok_or_else(|| {
                format!(
                    "PocketSphinx's library is not installed ({}); install the Debian packages \
                     libpocketsphinx3 and pocketsphinx-en-us",
                    tried.join("; ")
                )
            })?;
        macro_rules! get {
            ($name:literal) => {
                // SAFETY: each symbol is looked up with the C signature the 5prealpha headers
                // (pocketsphinx.h, ps_search.h, sphinxbase's cmd_ln.h) give it.
                *unsafe { library.get($name) }
                    .map_err(|e| format!("PocketSphinx's library lacks an entry point: {e}"))?
            };
        }
        // Logging off, once for the process: a decoder told to log to a file of its own
        // (-logfn) replaces the one global log file, closing the one another thread's decoder
        // is writing to.
        let set_log: SetLogFp = get!(b"err_set_logfp\0");
        // SAFETY: sphinxbase's err_set_logfp(FILE *) takes NULL to mean "no logging".
        unsafe { set_log(std::ptr::null_mut()) };
        Ok(Self {
            cmd_ln_parse: get!(b"cmd_ln_parse_r\0"),
            cmd_ln_free: get!(b"cmd_ln_free_r\0"),
            ps_args: get!(b"ps_args\0"),
            ps_init: get!(b"ps_init\0"),
            ps_free: get!(b"ps_free\0"),
            add_word: get!(b"ps_add_word\0"),
            set_jsgf: get!(b"ps_set_jsgf_string\0"),
            set_search: get!(b"ps_set_search\0"),
            start_utt: get!(b"ps_start_utt\0"),
            end_utt: get!(b"ps_end_utt\0"),
            process_raw: get!(b"ps_process_raw\0"),
            seg_iter: get!(b"ps_seg_iter\0"),
            seg_next: get!(b"ps_seg_next\0"),
            seg_word: get!(b"ps_seg_word\0"),
            seg_frames: get!(b"ps_seg_frames\0"),
            _library: library,
        })
    }
}

/// A word the decoder found and its frames (first and last, 10 ms each).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Segment {
    pub word: String,
    pub first: usize,
    pub last: usize,
}

/// A PocketSphinx decoder over one acoustic model at one sample rate.
pub(super) struct Decoder {
    api: &'static Api,
    ps: *mut c_void,
    config: *mut c_void,
}

impl std::fmt::Debug for Decoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Decoder").finish_non_exhaustive()
    }
}

fn c_string(s: &str) -> Result<CString, String> {
    CString::new(s).map_err(|_| format!("{s:?} holds a NUL byte"))
}

impl Decoder {
    /// A decoder over the model in `model_dir` for sound at `sample_rate`, with no words yet,
    /// and `settings` (PocketSphinx's option names and values) over its defaults.
    pub fn new(
        model_dir: &Path,
        sample_rate: u32,
        settings: &[(&str, &str)],
    ) -> Result<Self, String> {
        let api = api()?;
        let _making = making();
        let dir = model_dir
            .to_str()
            .ok_or_else(|| format!("{} is not a UTF-8 path", model_dir.display()))?;
        // The analysis window (25.6 ms) must fit the FFT.
        let nfft = (f64::from(sample_rate) * 0.025_625).ceil().max(2.0) as u32;
        let (rate, nfft) = (
            sample_rate.to_string(),
            nfft.next_power_of_two().to_string(),
        );
        let mut pairs = vec![
            ("-hmm", dir),
            ("-samprate", rate.as_str()),
            ("-nfft", nfft.as_str()),
            // The decoder's voice activity detector drops the frames it calls silence, and
            // the frame numbers of what it hears then skip them: MFA's acoustic_corpus, which
            // opens with a second of room noise, came out a second early throughout.
            ("-remove_silence", "no"),
        ];
        pairs.extend_from_slice(settings);
        let owned: Vec<CString> = pairs
            .iter()
            .flat_map(|(k, v)| [c_string(k), c_string(v)])
            .collect::<Result<_, String>>()?;
        let argv: Vec<*const c_char> = owned.iter().map(|s| s.as_ptr()).collect();
        let argc = c_int::try_from(argv.len()).map_err(|_| "too many settings".to_owned())?;
        // SAFETY: ps_args returns the decoder's static argument table; cmd_ln_parse_r copies
        // the `argc` NUL-terminated name/value strings into a new config (strict: an unknown
        // name is an error).
        let config = unsafe {
            (api.cmd_ln_parse)(
                std::ptr::null_mut(),
                (api.ps_args)(),
                argc,
                argv.as_ptr(),
                1,
            )
        };
        if config.is_null() {
            return Err("PocketSphinx refused its settings".to_owned());
        }
        // SAFETY: `config` is a valid config; ps_init takes its own reference to it.
        let ps = unsafe { (api.ps_init)(config) };
        if ps.is_null() {
            // SAFETY: the config was made above and is not used again.
            unsafe { (api.cmd_ln_free)(config) };
            return Err(format!(
                "PocketSphinx could not load the acoustic model in {dir} (install the Debian \
                 package pocketsphinx-en-us, or point NPC_ACOUSTIC_MODEL at a model folder)"
            ));
        }
        Ok(Self { api, ps, config })
    }

    /// Adds `word` pronounced `phones` (the model's phone names, space-separated).
    pub fn add_word(&mut self, word: &str, phones: &str) -> Result<(), String> {
        let (w, p) = (c_string(word)?, c_string(phones)?);
        // SAFETY: a live decoder and two NUL-terminated strings it copies.
        let id = unsafe { (self.api.add_word)(self.ps, w.as_ptr(), p.as_ptr(), 1) };
        if id < 0 {
            return Err(format!("the model has no phones {phones:?} for {word:?}"));
        }
        Ok(())
    }

    /// The words heard in `samples` when the decoder may only follow `grammar` (JSGF), in
    /// order, with their frames.
    pub fn decode_grammar(
        &mut self,
        grammar: &str,
        samples: &[i16],
    ) -> Result<Vec<Segment>, String> {
        self.search_grammar(grammar)?;
        self.decode(samples)
    }

    /// From now on the decoder may only follow `grammar` (JSGF).
    pub fn search_grammar(&mut self, grammar: &str) -> Result<(), String> {
        let (name, jsgf) = (c_string("script")?, c_string(grammar)?);
        // SAFETY: a live decoder; the strings are copied (the grammar is compiled into an
        // FSG that replaces the previous search of that name).
        unsafe {
            if (self.api.set_jsgf)(self.ps, name.as_ptr(), jsgf.as_ptr()) < 0 {
                return Err("PocketSphinx could not compile the script's grammar".to_owned());
            }
            if (self.api.set_search)(self.ps, name.as_ptr()) < 0 {
                return Err("PocketSphinx could not search the script's grammar".to_owned());
            }
        }
        Ok(())
    }

    /// The words heard in `samples` by the decoder's current search (the one its settings
    /// name, or the last grammar set), in order, with their frames.
    pub fn decode(&mut self, samples: &[i16]) -> Result<Vec<Segment>, String> {
        self.start_entered()?;
        // The whole recording at once: its mean cepstrum is taken over all of it.
        // SAFETY: a live decoder with an utterance started, and a slice of `samples.len()`
        // samples.
        let processed =
            unsafe { (self.api.process_raw)(self.ps, samples.as_ptr(), samples.len(), 0, 1) };
        if processed < 0 {
            // Close the utterance so that the decoder can start another.
            let _ = self.finish_entered();
            return Err("PocketSphinx could not decode the recording".to_owned());
        }
        self.finish_entered()
    }

    /// Starts an utterance fed piece by piece ([`Self::feed`]) as it is heard.
    pub fn start(&mut self) -> Result<(), String> {
        self.start_entered()
    }

    fn start_entered(&mut self) -> Result<(), String> {
        // SAFETY: a live decoder.
        if unsafe { (self.api.start_utt)(self.ps) } < 0 {
            return Err("PocketSphinx could not start an utterance".to_owned());
        }
        Ok(())
    }

    /// Searches on through `samples`, the next piece of the utterance started.
    pub fn feed(&mut self, samples: &[i16]) -> Result<(), String> {
        // SAFETY: a live decoder with an utterance started, and a slice of `samples.len()`
        // samples.
        let processed =
            unsafe { (self.api.process_raw)(self.ps, samples.as_ptr(), samples.len(), 0, 0) };
        if processed < 0 {
            return Err("PocketSphinx could not decode the sound".to_owned());
        }
        Ok(())
    }

    /// Ends the utterance: the words heard in it, in order, with their frames.
    pub fn finish(&mut self) -> Result<Vec<Segment>, String> {
        self.finish_entered()
    }

    fn finish_entered(&mut self) -> Result<Vec<Segment>, String> {
        // SAFETY: a live decoder.
        if unsafe { (self.api.end_utt)(self.ps) } < 0 {
            return Err("PocketSphinx could not finish the utterance".to_owned());
        }
        Ok(self.segments())
    }

    /// The words of the best path so far through the utterance being fed, without ending it
    /// (the search's best word exit at the last frame, final state or not).
    pub fn partial(&self) -> Vec<Segment> {
        self.segments()
    }

    /// The words of the decoder's current best path, in order, with their frames.
    fn segments(&self) -> Vec<Segment> {
        let mut out = Vec::new();
        // SAFETY: the iterator belongs to the decoder's current (or last) result, which
        // mid-utterance is the best path to the last frame searched; ps_seg_next
        // returns null, freeing the iterator, after the last segment.
        unsafe {
            let mut seg = (self.api.seg_iter)(self.ps);
            while !seg.is_null() {
                let word = (self.api.seg_word)(seg);
                let (mut first, mut last) = (0, 0);
                (self.api.seg_frames)(seg, &raw mut first, &raw mut last);
                if !word.is_null() {
                    out.push(Segment {
                        word: CStr::from_ptr(word).to_string_lossy().into_owned(),
                        first: usize::try_from(first).unwrap_or(0),
                        last: usize::try_from(last).unwrap_or(0),
                    });
                }
                seg = (self.api.seg_next)(seg);
            }
        }
        out
    }
}

impl Drop for Decoder {
    fn drop(&mut self) {
        let _making = making();
        // SAFETY: both were made in `new` and are released once here.
        unsafe {
            (self.api.ps_free)(self.ps);
            (self.api.cmd_ln_free)(self.config);
        }
    }
}
