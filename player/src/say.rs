//! `npc-player say`: a line through a speech engine (offline by default, Azure when asked), to
//! WAV and viseme JSON.

use std::path::Path;

use anyhow::Context;
use npc_core::speech::azure::{AzureConfig, AzureEngine};
use npc_core::speech::{OfflineEngine, SpeechEngine, Utterance, wav};

use crate::cli::{EngineArg, SayArgs};
use crate::output::write_atomically;

/// Runs the say command.
pub fn run(args: &SayArgs) -> anyhow::Result<()> {
    let utterance = match args.engine {
        EngineArg::Offline => speak(&args.text, &args.voice.voice())?,
        EngineArg::Azure => {
            let config = AzureConfig::from_env(&args.region)?;
            AzureEngine::new(config).synthesize(&args.text, &args.voice.voice())?
        }
    };
    write_wav(&args.out, &utterance)?;
    if let Some(path) = &args.visemes_out {
        let json = serde_json::to_vec_pretty(&utterance.visemes)?;
        write_atomically(path, &json)?;
    }
    println!(
        "{}: {:.2} s, {} visemes, {} words",
        args.out.display(),
        utterance.duration_ms() / 1000.0,
        utterance.visemes.len(),
        utterance.words.len()
    );
    Ok(())
}

/// Synthesises a line with the offline engine.
pub fn speak(text: &str, voice: &npc_core::project::Voice) -> anyhow::Result<Utterance> {
    let engine = OfflineEngine::new()?;
    Ok(engine.synthesize(text, voice)?)
}

/// Writes an utterance's audio as WAV.
pub fn write_wav(path: &Path, utterance: &Utterance) -> anyhow::Result<()> {
    crate::output::check_folder(path)?;
    wav::write(path, &utterance.pcm, utterance.sample_rate)
        .with_context(|| format!("cannot write {}", path.display()))
}
