//! What the person sets in the player's menu, kept between runs in the user's configuration
//! folder (`player.ron`): volume, subtitles, mouse sensitivity.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The player's settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Prefs {
    /// Every line's volume, 0-1 (times the distance's).
    pub volume: f32,
    /// Subtitles on or off; `None` follows the project.
    pub subtitles: Option<bool>,
    /// How far the view turns for the mouse's travel (1 is the default).
    pub mouse_sensitivity: f32,
}

impl Default for Prefs {
    fn default() -> Self {
        Self {
            volume: 1.0,
            subtitles: None,
            mouse_sensitivity: 1.0,
        }
    }
}

/// The range the menu offers for mouse sensitivity.
pub const SENSITIVITY: std::ops::RangeInclusive<f32> = 0.2..=3.0;

impl Prefs {
    /// The settings with every number in its range.
    #[must_use]
    pub fn sane(self) -> Self {
        let d = Self::default();
        let clamp = |v: f32, lo: f32, hi: f32, default: f32| {
            if v.is_finite() {
                v.clamp(lo, hi)
            } else {
                default
            }
        };
        Self {
            volume: clamp(self.volume, 0.0, 1.0, d.volume),
            subtitles: self.subtitles,
            mouse_sensitivity: clamp(
                self.mouse_sensitivity,
                *SENSITIVITY.start(),
                *SENSITIVITY.end(),
                d.mouse_sensitivity,
            ),
        }
    }
}

/// Where the settings are kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrefsStore {
    path: PathBuf,
}

impl PrefsStore {
    /// In the user's configuration folder; `None` without a home to keep them in.
    #[must_use]
    pub fn in_config_dir() -> Option<Self> {
        npc_core::user_config::dir().map(|dir| Self::at(dir.join("player.ron")))
    }

    #[must_use]
    pub fn at(path: PathBuf) -> Self {
        Self { path }
    }

    /// The kept settings; the defaults when there are none, or (with a warning) when the
    /// file cannot be read: settings are a convenience and never stop a run.
    #[must_use]
    pub fn load(&self) -> Prefs {
        let text = match std::fs::read_to_string(&self.path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Prefs::default(),
            Err(e) => {
                tracing::warn!("cannot read {}: {e}; default settings", self.path.display());
                return Prefs::default();
            }
        };
        match ron::from_str::<Prefs>(&text) {
            Ok(p) => p.sane(),
            Err(e) => {
                tracing::warn!(
                    "{}: not the player's settings ({e}); default settings",
                    self.path.display()
                );
                Prefs::default()
            }
        }
    }

    /// Writes `prefs` (whole or not at all: through a temporary file).
    ///
    /// # Errors
    /// The folder cannot be made or the file written.
    pub fn save(&self, prefs: &Prefs) -> anyhow::Result<()> {
        use anyhow::Context;
        let dir = self.path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let text = ron::ser::to_string_pretty(prefs, ron::ser::PrettyConfig::default())?;
        npc_core::atomic::write_atomically(&self.path, text.as_bytes())
            .with_context(|| format!("cannot write {}", self.path.display()))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn settings_survive_a_restart_and_a_broken_file_gives_the_defaults() {
        let dir = tempfile::tempdir().unwrap();
        let store = PrefsStore::at(dir.path().join("cfg").join("player.ron"));
        assert_eq!(store.load(), Prefs::default(), "nothing kept yet");
        let prefs = Prefs {
            volume: 0.4,
            subtitles: Some(false),
            mouse_sensitivity: 1.8,
        };
        store.save(&prefs).unwrap();
        assert_eq!(store.load(), prefs);
        std::fs::write(
            dir.path().join("cfg").join("player.ron"),
            "(volume: \"loud\")",
        )
        .unwrap();
        assert_eq!(store.load(), Prefs::default());
        std::fs::write(
            dir.path().join("cfg").join("player.ron"),
            "(volume: 7.0, mouse_sensitivity: -1.0)",
        )
        .unwrap();
        let loaded = store.load();
        assert_eq!((loaded.volume, loaded.mouse_sensitivity), (1.0, 0.2));
    }
}
