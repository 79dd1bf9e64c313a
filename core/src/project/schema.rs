//! The parts of a project file besides the face: the scene, the NPC roster, the agent
//! directory and the speech engine.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::clip_files::ClipFiles;
use crate::anim::{FaceSettings, OwnShapes};
use crate::body::{BodySettings, NamedSprings};

/// The world the NPCs stand in.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SceneSettings {
    /// The scene's glTF file (terrain, foliage, props).
    pub asset: PathBuf,
    /// Folder holding `sky_{day,noon,night}_{px,nx,py,ny,pz,nz}.png`.
    pub sky: PathBuf,
    /// Length of a full day in seconds of play.
    pub day_length_s: f64,
    /// Time of day at start, as a fraction of the day (0 = midnight, 0.5 = noon).
    pub start_time: f64,
    pub fog: FogSettings,
    pub sun: SunSettings,
    /// Side of the square shadow map, texels.
    pub shadow_size: u32,
    /// Scene light to display light before the tone map (Khronos PBR Neutral): 1 shows it as
    /// lit, 2 a stop brighter.
    pub exposure: f32,
    /// Strength of the light the sky itself gives (its diffuse light and reflections): 1 as
    /// bright as the sky is drawn, 0 none (sun only).
    pub sky_light: f32,
}

impl Default for SceneSettings {
    fn default() -> Self {
        Self {
            asset: PathBuf::from("assets/scene.glb"),
            sky: PathBuf::from("assets/sky"),
            day_length_s: 600.0,
            start_time: 0.4,
            fog: FogSettings::default(),
            sun: SunSettings::default(),
            shadow_size: 2048,
            exposure: 1.0,
            sky_light: 1.0,
        }
    }
}

/// Distance fog, in scene units (metres).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FogSettings {
    pub start: f32,
    pub end: f32,
}

impl Default for FogSettings {
    fn default() -> Self {
        Self {
            start: 80.0,
            end: 300.0,
        }
    }
}

/// The sun: its strength and colour at noon.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SunSettings {
    pub intensity: f32,
    pub color: [f32; 3],
}

impl Default for SunSettings {
    fn default() -> Self {
        Self {
            intensity: 1.0,
            color: [1.0, 0.96, 0.9],
        }
    }
}

/// Voice gender, used to pick a voice when none is named.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Gender {
    #[default]
    Female,
    Male,
}

/// How an NPC sounds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Voice {
    pub gender: Gender,
    /// Language tag, e.g. "en-US".
    pub language: String,
    /// A voice name of the speech engine; the engine's default for the gender when absent.
    pub name: Option<String>,
}

impl Default for Voice {
    fn default() -> Self {
        Self {
            gender: Gender::Female,
            language: "en-US".to_owned(),
            name: None,
        }
    }
}

/// The files an NPC is drawn from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Avatar {
    /// The body (skinned, with clips idle / walk / talk), possibly with the head on it.
    pub body: PathBuf,
    /// A separate ARKit head, when the body has none.
    #[serde(default)]
    pub head: Option<PathBuf>,
    /// Humanoid bones (VRM 1.0 names: `leftUpperArm`) placed on joints of the body by name,
    /// for rigs whose names are not recognised; other bones are still found automatically.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub bones: BTreeMap<String, String>,
    /// The file (glTF, VRMA or FBX), or list of files, whose humanoid clips (idle, walk, talk)
    /// the avatar plays, retargeted onto its rig: `Some("clips/Idle.fbx")`,
    /// `Some(["clips/Idle.fbx", "clips/Walking.fbx"])`. By default the body's own clips, or
    /// when it has none the project's built-in body's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clips: Option<ClipFiles>,
    /// The avatar's own shapes: which of its targets each viseme sets, and which play ARKit
    /// targets. By default a starting table when its shapes are a known set (Oculus visemes,
    /// VRM vowels, DAZ-style expressions); `(visemes: {}, targets: {})` turns them off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shapes: Option<OwnShapes>,
    /// Joint chains that swing with the body (hair, ponytails, coat tails), named for rigs
    /// without VRM spring bones or to retune a VRM file's: when it names any chain, they
    /// replace the file's own (docs/body.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub springs: Option<NamedSprings>,
}

/// One NPC of the roster.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Npc {
    /// The speaker id agents use in their lines.
    pub id: String,
    pub avatar: Avatar,
    #[serde(default)]
    pub voice: Voice,
    /// Where it starts, in normalised map coordinates (0-1), as npc_state.json uses.
    pub spawn: [f32; 2],
    /// Its own idle-life settings, replacing the project's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<BodySettings>,
    /// Its own face profile (viseme table, lip sync, gaze, blinks), replacing the project's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub face: Option<FaceSettings>,
    /// Its own face profile kept in a RON file of its own (relative to the project file)
    /// instead of inline: read into `face` on load, written back from it on save.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub face_file: Option<PathBuf>,
}

/// Which speech engine speaks the lines.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum SpeechEngine {
    /// Offline synthesis with viseme timing; no account, no network.
    #[default]
    Offline,
    /// Azure Speech, with the key from the environment; falls back to offline per line.
    Azure { region: String },
}
