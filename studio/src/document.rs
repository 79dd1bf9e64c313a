//! What the studio edits and undoes: the project and the pose on the pose editor.

use npc_core::Pose;
use npc_core::project::Project;

/// The undoable part of the studio's state.
#[derive(Clone, Debug, PartialEq)]
pub struct Document {
    pub project: Project,
    /// The pose being shaped in the pose editor (not saved in the project).
    pub pose: Pose,
}

impl Document {
    #[must_use]
    pub fn new(project: Project) -> Self {
        Self {
            project,
            pose: Pose::NEUTRAL,
        }
    }
}

/// Most steps kept for undo.
pub const UNDO_LIMIT: usize = 500;

/// Undo and redo as snapshots of the document before each edit.
#[derive(Clone, Debug, Default)]
pub struct History {
    undo: Vec<Document>,
    redo: Vec<Document>,
}

impl History {
    /// Remembers `before` (the document as it was before an edit); clears redo.
    pub fn record(&mut self, before: Document) {
        if self.undo.last() == Some(&before) {
            return;
        }
        self.undo.push(before);
        if self.undo.len() > UNDO_LIMIT {
            self.undo.remove(0);
        }
        self.redo.clear();
    }

    /// The document to go back to from `current`, if any.
    pub fn undo(&mut self, current: &Document) -> Option<Document> {
        let previous = self.undo.pop()?;
        self.redo.push(current.clone());
        Some(previous)
    }

    /// The document to go forward to from `current`, if any.
    pub fn redo(&mut self, current: &Document) -> Option<Document> {
        let next = self.redo.pop()?;
        self.undo.push(current.clone());
        Some(next)
    }

    #[must_use]
    pub fn can_undo(&self) -> bool {
        !self.undo.is_empty()
    }

    #[must_use]
    pub fn can_redo(&self) -> bool {
        !self.redo.is_empty()
    }

    /// Forgets everything (a new or opened project).
    pub fn clear(&mut self) {
        self.undo.clear();
        self.redo.clear();
    }
}

#[cfg(test)]
mod tests {
    use npc_core::ArkitTarget;

    use super::*;

    fn doc(jaw: f32) -> Document {
        let mut d = Document::new(Project::default());
        d.pose.set(ArkitTarget::JawOpen, jaw);
        d
    }

    #[test]
    fn undo_and_redo_walk_the_snapshots() {
        let mut h = History::default();
        h.record(doc(0.0));
        h.record(doc(0.5));
        let now = doc(1.0);
        let back = h.undo(&now).expect("undo");
        assert_eq!(back, doc(0.5));
        let back2 = h.undo(&back).expect("undo");
        assert_eq!(back2, doc(0.0));
        assert!(h.undo(&back2).is_none());
        assert_eq!(h.redo(&back2), Some(doc(0.5)));
        // A new edit forgets what could be redone.
        h.record(doc(0.5));
        assert!(!h.can_redo());
    }
}
