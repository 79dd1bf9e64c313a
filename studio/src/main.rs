//! `npc-studio`: the editing app. The window (eframe) is not built yet; until it is, this
//! binary says so and points at the command that exposes the same animation engine.

use std::process::ExitCode;

fn main() -> ExitCode {
    eprintln!(
        "npc-studio: the studio window is not available in this build yet.\n\
         The animation engine it will plot ({} ARKit targets, {} visemes) is available now\n\
         through `npc-player bake`; see README.md.",
        npc_core::ARKIT_TARGET_COUNT,
        npc_core::VISEME_COUNT,
    );
    ExitCode::FAILURE
}
