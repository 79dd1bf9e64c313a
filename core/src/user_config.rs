//! The user's configuration folder, where the tools keep what outlives a run (the studio's
//! recent projects, the player's volume and subtitles): `$XDG_CONFIG_HOME/living-npc`, else
//! `~/.config/living-npc`.

use std::path::{Path, PathBuf};

/// The folder; `None` when the environment names no home to keep it in.
#[must_use]
pub fn dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|h| Path::new(&h).join(".config"))
        })?;
    Some(base.join("living-npc"))
}
