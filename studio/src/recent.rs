//! The recent projects, kept between runs in the user's configuration folder
//! (`$XDG_CONFIG_HOME/living-npc/recent.ron`, else `~/.config/living-npc/recent.ron`).

use std::fs;
use std::path::{Path, PathBuf};

/// Where the recent projects are kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecentStore {
    path: PathBuf,
}

impl RecentStore {
    /// The store in the user's configuration folder; `None` when there is no home to keep
    /// it in.
    #[must_use]
    pub fn in_config_dir() -> Option<Self> {
        npc_core::user_config::dir().map(|dir| Self::at(dir.join("recent.ron")))
    }

    /// The store in `path`.
    #[must_use]
    pub fn at(path: PathBuf) -> Self {
        Self { path }
    }

    /// The remembered projects, most recent first. A missing or unreadable file gives none
    /// (and a warning when it exists but cannot be read): recent files are a convenience.
    #[must_use]
    pub fn load(&self) -> Vec<PathBuf> {
        let text = match fs::read_to_string(&self.path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Vec::new(),
            Err(e) => {
                tracing::warn!("cannot read {}: {e}", self.path.display());
                return Vec::new();
            }
        };
        match ron::from_str::<Vec<PathBuf>>(&text) {
            Ok(list) => list,
            Err(e) => {
                tracing::warn!(
                    "{}: not a list of paths ({e}); starting afresh",
                    self.path.display()
                );
                Vec::new()
            }
        }
    }

    /// Writes `list` (through a temporary file, so a crash never leaves half a list).
    pub fn save(&self, list: &[PathBuf]) -> anyhow::Result<()> {
        use anyhow::Context;
        let dir = self.path.parent().unwrap_or(Path::new("."));
        fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let text = ron::ser::to_string_pretty(list, ron::ser::PrettyConfig::default())?;
        npc_core::atomic::write_atomically(&self.path, text.as_bytes())
            .with_context(|| format!("cannot write {}", self.path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_survives_a_restart_and_a_broken_file_gives_none() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = RecentStore::at(dir.path().join("cfg").join("recent.ron"));
        assert!(store.load().is_empty());
        let list = vec![PathBuf::from("/a/b.ron"), PathBuf::from("c d/é.ron")];
        store.save(&list).expect("save");
        assert_eq!(RecentStore::at(store.path.clone()).load(), list);
        fs::write(&store.path, "[not ron").expect("write");
        assert!(store.load().is_empty());
    }
}
