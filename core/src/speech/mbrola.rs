//! Labelled speech for grading lip sync: an MBROLA voice (Debian's `mbrola` and its voices)
//! speaks a sentence from the phone file espeak-ng's command line writes for it (`--pho`),
//! keeping every phone's duration, so the labels are exact and come from another synthesiser
//! than any the lip sync listens with ([`super::eval`]).

use std::path::{Path, PathBuf};
use std::process::Command;

use super::eval::{PhoneSpan, parse_pho};

/// `text` spoken by the MBROLA `voice` (its folder under `voices`, e.g. /usr/share/mbrola)
/// into `dir/name.wav`, and its exact phone labels (from `dir/name.pho`).
///
/// # Errors
/// espeak-ng or mbrola missing or failing, or a diphone the voice lacks (spoken as silence,
/// which would leave the labels naming a sound that is not there).
pub fn speak(
    voices: &Path,
    voice: &str,
    text: &str,
    dir: &Path,
    name: &str,
) -> Result<(PathBuf, Vec<PhoneSpan>), String> {
    let pho = dir.join(format!("{name}.pho"));
    let wav = dir.join(format!("{name}.wav"));
    let out = Command::new("espeak-ng")
        .args(["-v", &format!("mb-{voice}"), "-q", "--pho"])
        .arg(format!("--phonout={}", pho.display()))
        .arg(text)
        .output()
        .map_err(|e| format!("espeak-ng: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "espeak-ng: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let read =
        |path: &Path| std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()));
    std::fs::write(&pho, sanitised(&read(&pho)?)).map_err(|e| format!("{}: {e}", pho.display()))?;
    let out = Command::new("mbrola")
        .arg("-e")
        .arg(voices.join(voice).join(voice))
        .args([&pho, &wav])
        .output()
        .map_err(|e| format!("mbrola: {e}"))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() || stderr.contains("unknown") {
        return Err(format!("mbrola {voice} {name}: {stderr}"));
    }
    Ok((wav, parse_pho(&read(&pho)?)?))
}

/// `pho` with the phones espeak-ng writes that the voices lack (es1's unstressed "o/" and
/// "e/", tr1's "l/" and "&", which MBROLA would speak as silence) as the voice's own ("o",
/// "l", "e"); as scripts/mouth_net/make_data.py does.
#[must_use]
pub fn sanitised(pho: &str) -> String {
    pho.lines()
        .map(|line| {
            let (phone, rest) = line.split_once('\t').unwrap_or((line, ""));
            if phone.is_empty() || phone.starts_with([';', '#']) {
                return format!("{line}\n");
            }
            let phone = match phone {
                "&" => "e",
                p if p.len() > 1 => p.strip_suffix('/').unwrap_or(p),
                p => p,
            };
            if rest.is_empty() {
                format!("{phone}\n")
            } else {
                format!("{phone}\t{rest}\n")
            }
        })
        .collect()
}
