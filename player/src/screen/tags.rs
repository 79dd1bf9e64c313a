//! Names over the NPCs near the camera: where each stands on screen, faded with distance,
//! marked while it speaks and lit while the person speaks to it.

use glam::Vec3;
use npc_render::Camera;

/// How far above the head joint a name stands, metres.
const ABOVE_HEAD_M: f32 = 0.32;
/// Names are whole up to this share of the reach, then fade out to it.
const WHOLE_SHARE: f32 = 0.6;
/// Nearer than this a name would cover the face it belongs to, metres.
const TOO_NEAR_M: f32 = 0.9;

/// One NPC as the tags need it.
#[derive(Clone, Copy, Debug)]
pub struct TagSource<'a> {
    pub name: &'a str,
    pub head: Vec3,
    pub speaking: bool,
    /// The person is speaking to it, or has just spoken to it.
    pub addressed: bool,
}

/// One name as drawn.
#[derive(Clone, Debug, PartialEq)]
pub struct NameTag {
    pub name: String,
    /// Where its lower middle stands, in pixels from the picture's top left.
    pub at: [f32; 2],
    pub opacity: f32,
    pub speaking: bool,
    pub addressed: bool,
}

/// The names of `npcs` seen by `camera` in a picture `size` pixels wide and high, for those
/// within `reach_m`; farthest first, so nearer names are drawn over them.
#[must_use]
pub fn name_tags(
    npcs: &[TagSource<'_>],
    camera: &Camera,
    size: [u32; 2],
    reach_m: f32,
) -> Vec<NameTag> {
    if !(reach_m.is_finite() && reach_m > 0.0) || size[0] == 0 || size[1] == 0 {
        return Vec::new();
    }
    let (w, h) = (size[0] as f32, size[1] as f32);
    let view_proj = camera.view_proj(w / h);
    let mut tags: Vec<(f32, NameTag)> = npcs
        .iter()
        .filter_map(|npc| {
            let top = npc.head + Vec3::Y * ABOVE_HEAD_M;
            let distance = top.distance(camera.position);
            if distance > reach_m || distance < TOO_NEAR_M {
                return None;
            }
            let clip = view_proj * top.extend(1.0);
            if clip.w <= 1e-4 {
                return None;
            }
            let ndc = clip.truncate() / clip.w;
            if ndc.x.abs() > 1.0 || ndc.y.abs() > 1.0 {
                return None;
            }
            let fade_from = reach_m * WHOLE_SHARE;
            let opacity = if distance <= fade_from {
                1.0
            } else {
                1.0 - (distance - fade_from) / (reach_m - fade_from)
            };
            Some((
                distance,
                NameTag {
                    name: npc.name.to_owned(),
                    at: [(ndc.x + 1.0) * 0.5 * w, (1.0 - ndc.y) * 0.5 * h],
                    opacity: opacity.clamp(0.0, 1.0),
                    speaking: npc.speaking,
                    addressed: npc.addressed,
                },
            ))
        })
        .collect();
    tags.sort_by(|a, b| b.0.total_cmp(&a.0));
    tags.into_iter().map(|(_, tag)| tag).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn npc(name: &str, x: f32, z: f32) -> TagSource<'_> {
        TagSource {
            name,
            head: Vec3::new(x, 1.6, z),
            speaking: false,
            addressed: false,
        }
    }

    #[test]
    fn names_stand_over_heads_in_view_and_fade_with_distance() {
        let camera = Camera::looking_at(Vec3::new(0.0, 1.7, 0.0), Vec3::new(0.0, 1.7, -10.0));
        let npcs = [
            npc("Near", 0.0, -2.0),
            npc("Far", 0.5, -6.5),
            npc("Gone", 0.0, -20.0),
            npc("Behind", 0.0, 3.0),
            npc("OnTop", 0.0, -0.2),
        ];
        let tags = name_tags(&npcs, &camera, [1280, 720], 8.0);
        let names: Vec<&str> = tags.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(
            names,
            ["Far", "Near"],
            "farthest first; out of reach, behind and too near left out"
        );
        let (far, near) = (&tags[0], &tags[1]);
        assert_eq!(near.opacity, 1.0);
        assert!(far.opacity > 0.0 && far.opacity < 0.5, "{}", far.opacity);
        // The near name is in the middle column, above the middle (it stands over a head
        // a little below the eye line plus the lift).
        assert!((near.at[0] - 640.0).abs() < 1.0, "{:?}", near.at);
        assert!(near.at[1] < 360.0, "{:?}", near.at);
        // Right of the middle for an NPC to the right.
        assert!(far.at[0] > 640.0);
        assert!(name_tags(&npcs, &camera, [1280, 720], 0.0).is_empty());
    }
}
