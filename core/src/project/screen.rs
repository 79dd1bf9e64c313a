//! What the player draws over the world: subtitles, names over NPCs.

use serde::{Deserialize, Serialize};

/// Where subtitles stand.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum SubtitlePlace {
    /// Under the picture's middle, above its lower edge (what games do).
    #[default]
    Bottom,
    /// Near the top, for scenes whose lower part matters.
    Top,
}

/// How subtitles look.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SubtitleSettings {
    /// Shown unless the person turns them off (menu) or `--no-subtitles`.
    pub show: bool,
    /// Text height as a share of the picture's height (0.035 is about 25 px at 720p).
    pub size: f32,
    pub place: SubtitlePlace,
    /// Opacity of the dark band behind the text, 0 (none) to 1.
    pub background: f32,
}

impl Default for SubtitleSettings {
    fn default() -> Self {
        Self {
            show: true,
            size: 0.035,
            place: SubtitlePlace::Bottom,
            background: 0.55,
        }
    }
}

/// What the player draws over the world.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ScreenSettings {
    pub subtitles: SubtitleSettings,
    /// Names over NPCs nearer than this, metres (faded out towards it); 0 shows none.
    pub names_within_m: f32,
}

impl Default for ScreenSettings {
    fn default() -> Self {
        Self {
            subtitles: SubtitleSettings::default(),
            names_within_m: 14.0,
        }
    }
}

impl SubtitleSettings {
    /// The settings with every number brought into its range (a hand-edited file may hold
    /// anything), so drawing never sees a negative size or an opacity above 1.
    #[must_use]
    pub fn sane(&self) -> Self {
        let clamp = |v: f32, lo: f32, hi: f32, default: f32| {
            if v.is_finite() {
                v.clamp(lo, hi)
            } else {
                default
            }
        };
        let d = Self::default();
        Self {
            show: self.show,
            size: clamp(self.size, 0.01, 0.2, d.size),
            place: self.place,
            background: clamp(self.background, 0.0, 1.0, d.background),
        }
    }
}
