//! Phone recognition: the model searched over every phone, weighted by a phone language
//! model (which phone follows which in English), for a recording without its script.

use std::path::{Path, PathBuf};

use super::library::Decoder;
use super::{FRAME_MS, arpabet};

/// One phone the model heard.
#[derive(Clone, Debug, PartialEq)]
pub struct HeardPhone {
    /// Its IPA (as the offline engine writes it), or None for a silence or a noise.
    pub ipa: Option<&'static str>,
    /// Start and end in the recording, ms.
    pub start_ms: f64,
    pub end_ms: f64,
}

/// The phone language model beside the acoustic model: `<model>-phone.lm.bin` in its parent
/// folder (as pocketsphinx-en-us lays it out), or `phone.lm.bin` inside it.
fn phone_lm(model: &Path) -> Result<PathBuf, String> {
    let beside = model.file_name().and_then(|name| {
        let parent = model.parent()?;
        Some(parent.join(format!("{}-phone.lm.bin", name.to_string_lossy())))
    });
    beside
        .into_iter()
        .chain([model.join("phone.lm.bin")])
        .find(|p| p.is_file())
        .ok_or_else(|| {
            format!(
                "no phone language model beside the acoustic model in {} (en-us-phone.lm.bin, \
                 from the Debian package pocketsphinx-en-us)",
                model.display()
            )
        })
}

/// The phones heard in `pcm` (16-bit at `sample_rate`) by the model in `model`.
pub(super) fn recognize(
    model: &Path,
    sample_rate: u32,
    pcm: &[i16],
) -> Result<Vec<HeardPhone>, String> {
    let lm = phone_lm(model)?;
    let lm = lm
        .to_str()
        .ok_or_else(|| format!("{} is not a UTF-8 path", lm.display()))?;
    // Measured on the five LibriVox utterances (core/tests/alignment.rs): these settings put
    // 76.1% of frames in the right class and close 25 of 29 p, b and m. Triphones
    // (-allphone_ci no) reached 81.0% at -lw 1 but searched four times as long; -lw 4 fell to
    // 59.5%, -lw 6.5 (the decoder's default) to 43.7%; noise removal off, 73.3%. Beams of
    // 1e-13 score as 1e-20 did (76.1% here, 66.1% on MFA's clips) and search about a tenth
    // less; 1e-10 fell to 59.1%. Two Gaussians a frame (-topn 2) cost MFA's clips 1.6 points.
    let settings = [
        ("-allphone", lm),
        ("-allphone_ci", "yes"),
        ("-beam", "1e-13"),
        ("-pbeam", "1e-13"),
        ("-lw", "2.0"),
        ("-remove_noise", "yes"),
    ];
    let segments = Decoder::new(model, sample_rate, &settings)?.decode(pcm)?;
    Ok(segments
        .iter()
        .map(|s| HeardPhone {
            ipa: arpabet::ipa_of(&s.word),
            start_ms: s.first as f64 * FRAME_MS,
            end_ms: (s.last + 1) as f64 * FRAME_MS,
        })
        .collect())
}
