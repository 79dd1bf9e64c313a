//! The demo project: three NPCs in the default scene with the default face settings.

use std::path::PathBuf;

use super::{Avatar, Gender, Npc, Project, Voice};

/// The project `projects/demo.ron` holds (its assets come from `npc-player generate-assets`).
#[must_use]
pub fn demo_project() -> Project {
    let npc = |id: &str, gender: Gender, spawn: [f32; 2]| Npc {
        id: id.to_owned(),
        avatar: Avatar {
            body: PathBuf::from("assets/avatar.glb"),
            head: None,
            bones: Default::default(),
            clips: None,
            shapes: None,
            springs: None,
        },
        voice: Voice {
            gender,
            ..Voice::default()
        },
        spawn,
        body: None,
        face: None,
        face_file: None,
    };
    Project {
        npcs: vec![
            npc("Elara", Gender::Female, [0.5, 0.52]),
            npc("Bram", Gender::Male, [0.52, 0.505]),
            npc("Mira", Gender::Female, [0.485, 0.5]),
        ],
        ..Project::default()
    }
}
