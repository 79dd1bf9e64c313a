//! The character the studio shows and edits: the one picked in the side panel, else the
//! roster's first. Its face profile, own shapes, body settings and avatar are the ones edited.

use npc_core::project::{Npc, Project};

/// The character `selected` names (by id), else the roster's first.
#[must_use]
pub fn character<'a>(project: &'a Project, selected: Option<&str>) -> Option<&'a Npc> {
    selected
        .and_then(|id| project.npcs.iter().find(|n| n.id == id))
        .or_else(|| project.npcs.first())
}

/// As [`character`], to edit (from the roster, so the rest of the project stays free).
pub fn character_mut<'a>(roster: &'a mut [Npc], selected: Option<&str>) -> Option<&'a mut Npc> {
    let index = selected
        .and_then(|id| roster.iter().position(|n| n.id == id))
        .unwrap_or(0);
    roster.get_mut(index)
}
