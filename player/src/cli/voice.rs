//! The voice options `bake` and `say` share.

use npc_core::project::{Gender, Voice};

/// Which voice speaks.
#[derive(Debug, clap::Args)]
pub(super) struct VoiceArgs {
    /// A voice name of the engine (e.g. "en-us+f3"); by default one for --gender.
    #[arg(long, value_name = "NAME")]
    pub(super) voice: Option<String>,
    /// Gender of the default voice.
    #[arg(long, value_enum, default_value_t = GenderArg::Female)]
    pub(super) gender: GenderArg,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum GenderArg {
    Female,
    Male,
}

impl VoiceArgs {
    #[must_use]
    pub(super) fn voice(&self) -> Voice {
        Voice {
            gender: match self.gender {
                GenderArg::Female => Gender::Female,
                GenderArg::Male => Gender::Male,
            },
            name: self.voice.clone(),
            ..Voice::default()
        }
    }
}
