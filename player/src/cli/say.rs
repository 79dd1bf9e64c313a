//! `npc-player say`: a line through a speech engine (offline by default, Azure when asked), to
//! WAV and viseme JSON.

use std::path::PathBuf;

use npc_core::speech::azure::{AzureConfig, AzureEngine};
use npc_core::speech::{OfflineEngine, SpeechEngine};

use super::voice::VoiceArgs;
use crate::output::{write_atomically, write_wav};

/// Which speech engine `say` uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum EngineArg {
    /// espeak-ng on this machine.
    Offline,
    /// Azure Speech; the key from AZURE_SPEECH_KEY.
    Azure,
}

#[derive(Debug, clap::Args)]
pub(super) struct SayArgs {
    /// The line to speak.
    #[arg(long)]
    pub(super) text: String,
    /// The speech engine.
    #[arg(long, value_enum, default_value_t = EngineArg::Offline)]
    pub(super) engine: EngineArg,
    /// The Azure region (AZURE_SPEECH_REGION overrides it).
    #[arg(long, default_value = "westeurope")]
    pub(super) region: String,
    #[command(flatten)]
    pub(super) voice: VoiceArgs,
    /// Where to write the audio (16-bit mono WAV).
    #[arg(long, value_name = "FILE.wav")]
    pub(super) out: PathBuf,
    /// Where to write the viseme events as JSON ([{"id", "offset_ms"}]).
    #[arg(long, value_name = "FILE.json")]
    pub(super) visemes_out: Option<PathBuf>,
}

/// Runs the say command.
pub(super) fn run(args: &SayArgs) -> anyhow::Result<()> {
    let utterance = match args.engine {
        EngineArg::Offline => OfflineEngine::new()?.synthesize(&args.text, &args.voice.voice())?,
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
