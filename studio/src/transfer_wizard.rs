//! The transfer wizard's state: the project's head and the character's, each seen from the
//! front or the side with its landmarks as found, and the landmarks the user moved (which the transfer
//! takes over the found ones, as `npc-player transfer --landmarks` does).

use std::path::{Path, PathBuf};

use glam::{Vec2, Vec3};
use npc_core::asset::Asset;
use npc_core::transfer::{Aspect, FaceView, Landmarks, Report, TransferOptions};

/// Which head of the transfer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Head {
    /// The head the shapes come from (the project's).
    Source,
    /// The character's head, which gets them.
    Target,
}

impl Head {
    fn index(self) -> usize {
        match self {
            Self::Source => 0,
            Self::Target => 1,
        }
    }
}

/// Where a landmark shown comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Found on the surface.
    Found,
    /// Guessed from the face's proportions (the surface did not show it).
    Guessed,
    /// Put there by the user.
    Moved,
}

/// The wizard open on one character.
#[derive(Clone, Debug)]
pub struct TransferWizard {
    /// The character whose head gets the shapes.
    pub npc: String,
    /// The file it wore when the wizard opened: the transfer's input.
    pub target_file: PathBuf,
    views: [FaceView; 2],
    moved: [Landmarks; 2],
    /// Where both heads are seen from.
    pub aspect: Aspect,
    /// What the last transfer made (a sentence), or why it failed.
    pub outcome: Option<String>,
    /// The last transfer's report (landmarks used, fit, seam check), until the next try.
    pub report: Option<Report>,
}

impl TransferWizard {
    /// Opens the wizard on `npc`'s head, read from `target_file`.
    pub fn open(npc: &str, target_file: &Path) -> Result<Self, String> {
        let source = npc_core::transfer::own_head()
            .map_err(|e| format!("the project's head: {e}"))
            .and_then(|a| FaceView::of(&a).map_err(|e| format!("the project's head: {e}")))?;
        let target = Asset::load(target_file)
            .map_err(|e| format!("cannot load {}: {e}", target_file.display()))
            .and_then(|a| {
                FaceView::of(&a).map_err(|e| format!("{}: {e}", target_file.display()))
            })?;
        Ok(Self {
            npc: npc.to_owned(),
            target_file: target_file.to_path_buf(),
            views: [source, target],
            moved: [Landmarks::default(), Landmarks::default()],
            aspect: Aspect::Front,
            outcome: None,
            report: None,
        })
    }

    #[must_use]
    pub fn view(&self, head: Head) -> &FaceView {
        &self.views[head.index()]
    }

    /// The landmark `name` of `head` as the transfer will take it, and where it comes from.
    #[must_use]
    pub fn landmark(&self, head: Head, name: &str) -> Option<(Vec3, Origin)> {
        let i = head.index();
        if let Some(p) = self.moved[i].get(name) {
            return Some((p, Origin::Moved));
        }
        let view = &self.views[i];
        let origin = if view.guessed.contains(&name) {
            Origin::Guessed
        } else {
            Origin::Found
        };
        view.found.get(name).map(|p| (p, origin))
    }

    /// Moves the landmark `name` of `head` to where it was dropped, `to` as seen from `seen`
    /// (see [`Aspect::seen`]).
    pub fn move_landmark(&mut self, head: Head, name: &str, to: Vec2, seen: Aspect) {
        let Some((from, _)) = self.landmark(head, name) else {
            return;
        };
        let at = self.views[head.index()].moved(name, from, to, seen);
        self.moved[head.index()].set(name, at);
    }

    /// Puts `head`'s landmarks back where they were found.
    pub fn reset(&mut self, head: Head) {
        self.moved[head.index()] = Landmarks::default();
    }

    /// The landmarks the user moved on `head`.
    #[must_use]
    pub fn moved(&self, head: Head) -> &Landmarks {
        &self.moved[head.index()]
    }

    /// The transfer's settings: the moved landmarks over the found ones.
    #[must_use]
    pub fn options(&self) -> TransferOptions {
        TransferOptions {
            source_landmarks: self.moved[0].clone(),
            target_landmarks: self.moved[1].clone(),
            ..TransferOptions::default()
        }
    }
}
