//! Which joint of a rig each humanoid bone is. Names propose (see `names.rs`); structure
//! confirms: every bone must sit below the one before it on its chain (hips, spine, neck,
//! head; shoulder, upper arm, lower arm, hand, fingers; upper leg, lower leg, foot, toes), the
//! spine is the joints between the hips and the neck whatever they are called, and left and
//! right are decided by where the bones are in the rest pose, facing where the feet point.
//! A project's overrides come first, then the table a VRM file declares, then the names.

use std::collections::BTreeMap;

use glam::Vec3;
use serde::Serialize;

use super::bone::{ARMS, EYES, FINGERS, HumanoidBone, LEGS, Side};
use super::names::{Part, read_name};
use crate::body::skeleton::Skeleton;

/// How the arms lie in the rest pose.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum RestPose {
    /// Arms out to the sides (within 20 degrees of level).
    T,
    /// Arms angled down (20 to 65 degrees below level).
    A,
    /// Anything else, or no arms found.
    #[serde(rename = "other")]
    Other,
}

/// Below this angle under level the rest arms count as a T-pose; below the next, an A-pose.
const T_POSE_MAX_DEG: f32 = 20.0;
const A_POSE_MAX_DEG: f32 = 65.0;

/// Which joint of a rig each humanoid bone is, and the rig's rest facts.
#[derive(Clone, Debug, PartialEq)]
pub struct HumanoidMap {
    bones: Vec<(HumanoidBone, usize)>,
    /// The avatar's front in its own space (unit, level): where its feet point.
    pub front: Vec3,
    pub rest: RestPose,
    /// Overrides that named a bone or joint the rig does not have.
    pub problems: Vec<String>,
}

impl Default for HumanoidMap {
    fn default() -> Self {
        Self {
            bones: Vec::new(),
            front: Vec3::Z,
            rest: RestPose::Other,
            problems: Vec::new(),
        }
    }
}

/// One joint's reading of its own name.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    joint: usize,
    side: Option<Side>,
    part: Part,
}

impl HumanoidMap {
    /// The map of `skeleton`, found from its names and confirmed by its structure.
    #[must_use]
    pub fn of(skeleton: &Skeleton) -> Self {
        Self::with_overrides(skeleton, &BTreeMap::new())
    }

    /// The map of `skeleton` with `overrides` (VRM bone name -> joint name) taking precedence
    /// over what the names propose; an override naming an unknown bone or joint is reported in
    /// [`Self::problems`] and left out.
    #[must_use]
    pub fn with_overrides(skeleton: &Skeleton, overrides: &BTreeMap<String, String>) -> Self {
        let candidates: Vec<Candidate> = skeleton
            .names
            .iter()
            .enumerate()
            .filter_map(|(joint, name)| {
                read_name(name).map(|(side, part)| Candidate { joint, side, part })
            })
            .collect();
        let mut found = Found {
            skeleton,
            candidates,
            bones: BTreeMap::new(),
        };
        let mut problems = Vec::new();
        for (bone_name, joint_name) in overrides {
            match (
                HumanoidBone::from_name(bone_name),
                skeleton.index(joint_name),
            ) {
                (Some(bone), Some(joint)) => {
                    found.bones.insert(bone, joint);
                }
                (None, _) => problems.push(format!(
                    "`{bone_name}` is not a humanoid bone (VRM 1.0 names: hips, spine, leftUpperArm, ...)"
                )),
                (_, None) => problems.push(format!(
                    "bone {bone_name}: the rig has no joint named `{joint_name}`"
                )),
            }
        }
        // Then the file's own table (a VRM file's), trusted as overrides are.
        for (bone_name, joint) in &skeleton.declared_bones {
            if let Some(bone) = HumanoidBone::from_name(bone_name)
                && *joint < skeleton.len()
            {
                found.bones.entry(bone).or_insert(*joint);
            }
        }
        found.trunk();
        for side in [Side::Left, Side::Right] {
            found.arm(side);
            found.leg(side);
        }
        let world: Vec<Vec3> = skeleton
            .rest_world()
            .iter()
            .map(|m| m.w_axis.truncate())
            .collect();
        let front = found.front(&world);
        found.sides_by_position(&world, front);
        let rest = found.rest_pose(&world);
        let mut bones: Vec<(HumanoidBone, usize)> = found.bones.into_iter().collect();
        bones.sort_by_key(|(b, _)| *b);
        Self {
            bones,
            front,
            rest,
            problems,
        }
    }

    /// The mapped bones and their joints, in bone order.
    #[must_use]
    pub fn bones(&self) -> &[(HumanoidBone, usize)] {
        &self.bones
    }

    /// The joint of `bone`, when the rig has it.
    #[must_use]
    pub fn joint(&self, bone: HumanoidBone) -> Option<usize> {
        self.bones.iter().find(|(b, _)| *b == bone).map(|(_, j)| *j)
    }

    /// The bones of `wanted` the rig lacks.
    #[must_use]
    pub fn missing(&self, wanted: &[HumanoidBone]) -> Vec<HumanoidBone> {
        wanted
            .iter()
            .copied()
            .filter(|b| self.joint(*b).is_none())
            .collect()
    }

    /// The avatar's left in its own space (unit): up crossed with the front.
    #[must_use]
    pub fn left(&self) -> Vec3 {
        Vec3::Y.cross(self.front).normalize_or(Vec3::X)
    }
}

/// The map while it is being found.
struct Found<'a> {
    skeleton: &'a Skeleton,
    candidates: Vec<Candidate>,
    bones: BTreeMap<HumanoidBone, usize>,
}

impl Found<'_> {
    /// Whether `joint` lies below `ancestor` (strictly).
    fn below(&self, joint: usize, ancestor: usize) -> bool {
        let mut node = self.skeleton.parents.get(joint).copied().flatten();
        let mut steps = 0;
        while let Some(p) = node {
            if p == ancestor {
                return true;
            }
            node = self.skeleton.parents[p];
            steps += 1;
            if steps > self.skeleton.len() {
                return false;
            }
        }
        false
    }

    /// The first joint named as `part` on `side` below `under` (anywhere when `None`).
    fn pick(&self, part: Part, side: Option<Side>, under: Option<usize>) -> Option<usize> {
        self.candidates
            .iter()
            .filter(|c| c.part == part && c.side == side)
            .map(|c| c.joint)
            .find(|&j| under.is_none_or(|u| self.below(j, u)))
    }

    /// Places `bone` (unless an override already did) at the first joint named `part` below
    /// `under`; returns where the bone is.
    fn place(
        &mut self,
        bone: HumanoidBone,
        part: Part,
        side: Option<Side>,
        under: Option<usize>,
    ) -> Option<usize> {
        if let Some(&j) = self.bones.get(&bone) {
            return Some(j);
        }
        let j = self.pick(part, side, under)?;
        self.bones.insert(bone, j);
        Some(j)
    }

    /// Hips, spine chain, neck, head, jaw and eyes.
    fn trunk(&mut self) {
        use HumanoidBone as B;
        let hips = match self.bones.get(&B::Hips) {
            Some(&j) => Some(j),
            None => {
                // Of several joints named like hips, the one with the most named joints below.
                let best = self
                    .candidates
                    .iter()
                    .filter(|c| c.part == Part::Hips)
                    .max_by_key(|h| {
                        let below = self
                            .candidates
                            .iter()
                            .filter(|c| self.below(c.joint, h.joint))
                            .count();
                        // Ties go to the earlier joint.
                        (below, std::cmp::Reverse(h.joint))
                    })
                    .map(|c| c.joint);
                if let Some(j) = best {
                    self.bones.insert(B::Hips, j);
                }
                best
            }
        };
        let Some(hips) = hips else { return };
        let Some(head) = self.place(B::Head, Part::Head, None, Some(hips)) else {
            return;
        };
        let neck = match self.bones.get(&B::Neck) {
            Some(&j) => Some(j),
            None => {
                let named = self
                    .pick(Part::Neck, None, Some(hips))
                    .filter(|&n| self.below(head, n));
                let neck = named.or_else(|| {
                    self.skeleton.parents[head].filter(|&p| p != hips && self.below(p, hips))
                });
                if let Some(n) = neck {
                    self.bones.insert(B::Neck, n);
                }
                neck
            }
        };
        // The spine: the joints between the hips and the neck (or the head).
        let top = neck.unwrap_or(head);
        let mut chain = Vec::new();
        let mut node = self.skeleton.parents[top];
        while let Some(p) = node {
            if p == hips || chain.len() > self.skeleton.len() {
                break;
            }
            chain.push(p);
            node = self.skeleton.parents[p];
        }
        chain.reverse();
        let spine_bones: &[(HumanoidBone, usize)] = match chain.len() {
            0 => &[],
            1 => &[(B::Spine, 0)],
            2 => &[(B::Spine, 0), (B::Chest, 1)],
            n => &[(B::Spine, 0), (B::Chest, n / 2), (B::UpperChest, n - 1)],
        };
        for &(bone, i) in spine_bones {
            self.bones.entry(bone).or_insert(chain[i]);
        }
        self.place(B::Jaw, Part::Jaw, None, Some(head));
        for side in [Side::Left, Side::Right] {
            self.place(EYES[side.index()], Part::Eye, Some(side), Some(head));
        }
    }

    /// One side's arm and fingers, each bone below the one before.
    fn arm(&mut self, side: Side) {
        let Some(&hips) = self.bones.get(&HumanoidBone::Hips) else {
            return;
        };
        let [shoulder, upper, lower, hand] = ARMS[side.index()];
        let mut under = hips;
        for (bone, part) in [
            (shoulder, Part::Shoulder),
            (upper, Part::UpperArm),
            (lower, Part::LowerArm),
            (hand, Part::Hand),
        ] {
            if let Some(j) = self.place(bone, part, Some(side), Some(under)) {
                under = j;
            }
        }
        let Some(&hand) = self.bones.get(&hand) else {
            return;
        };
        for (finger, joints) in FINGERS[side.index()].iter().enumerate() {
            let mut under = hand;
            for (joint, &bone) in joints.iter().enumerate() {
                match self.place(bone, Part::Finger(finger, joint), Some(side), Some(under)) {
                    Some(j) => under = j,
                    None => break,
                }
            }
        }
    }

    /// One side's leg, each bone below the one before.
    fn leg(&mut self, side: Side) {
        let Some(&hips) = self.bones.get(&HumanoidBone::Hips) else {
            return;
        };
        let mut under = hips;
        for (bone, part) in LEGS[side.index()].into_iter().zip([
            Part::UpperLeg,
            Part::LowerLeg,
            Part::Foot,
            Part::Toes,
        ]) {
            if let Some(j) = self.place(bone, part, Some(side), Some(under)) {
                under = j;
            }
        }
    }

    /// Where the feet point (level, unit); +Z when the rig has no toes.
    fn front(&self, world: &[Vec3]) -> Vec3 {
        let mut sum = Vec3::ZERO;
        for [_, _, foot, toes] in LEGS {
            if let (Some(&f), Some(&t)) = (self.bones.get(&foot), self.bones.get(&toes)) {
                let d = world[t] - world[f];
                sum += Vec3::new(d.x, 0.0, d.z);
            }
        }
        sum.try_normalize().unwrap_or(Vec3::Z)
    }

    /// Swaps every sided bone when the ones named left stand on the character's right.
    fn sides_by_position(&mut self, world: &[Vec3], front: Vec3) {
        let left = Vec3::Y.cross(front);
        let pairs = [
            (HumanoidBone::LeftUpperArm, HumanoidBone::RightUpperArm),
            (HumanoidBone::LeftUpperLeg, HumanoidBone::RightUpperLeg),
            (HumanoidBone::LeftShoulder, HumanoidBone::RightShoulder),
        ];
        let Some(offset) = pairs.iter().find_map(|(l, r)| {
            let (l, r) = (self.bones.get(l)?, self.bones.get(r)?);
            Some((world[*l] - world[*r]).dot(left))
        }) else {
            return;
        };
        if offset >= 0.0 {
            return;
        }
        let swapped: BTreeMap<HumanoidBone, usize> = self
            .bones
            .iter()
            .map(|(&bone, &joint)| (mirror(bone), joint))
            .collect();
        self.bones = swapped;
    }

    /// How far below level the rest arms lie.
    fn rest_pose(&self, world: &[Vec3]) -> RestPose {
        let mut angles = Vec::new();
        for [_, upper, lower, _] in ARMS {
            if let (Some(&u), Some(&l)) = (self.bones.get(&upper), self.bones.get(&lower)) {
                let d = (world[l] - world[u]).normalize_or_zero();
                angles.push((-d.y).clamp(-1.0, 1.0).asin().to_degrees());
            }
        }
        if angles.is_empty() {
            return RestPose::Other;
        }
        let mean = angles.iter().sum::<f32>() / angles.len() as f32;
        if mean.abs() < T_POSE_MAX_DEG {
            RestPose::T
        } else if (T_POSE_MAX_DEG..A_POSE_MAX_DEG).contains(&mean) {
            RestPose::A
        } else {
            RestPose::Other
        }
    }
}

/// The same bone on the other side (itself for centre bones).
fn mirror(bone: HumanoidBone) -> HumanoidBone {
    let lefts = EYES[..1]
        .iter()
        .chain(&ARMS[0])
        .chain(&LEGS[0])
        .chain(FINGERS[0].iter().flatten());
    let rights = EYES[1..]
        .iter()
        .chain(&ARMS[1])
        .chain(&LEGS[1])
        .chain(FINGERS[1].iter().flatten());
    for (l, r) in lefts.zip(rights) {
        if *l == bone {
            return *r;
        }
        if *r == bone {
            return *l;
        }
    }
    bone
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::asset::Transform;

    /// A small rig: hips, a spine of `spine` joints, neck, head; per side an upper arm, lower
    /// arm and hand out along `side_x` (+1: the names' left at +X), and a leg with toes ahead
    /// along `front_z`. Names by `name(part, side)`.
    fn rig(
        spine: usize,
        side_x: f32,
        front_z: f32,
        name: &dyn Fn(&str, &str) -> String,
    ) -> Skeleton {
        let mut parents = Vec::new();
        let mut names = Vec::new();
        let mut rest = Vec::new();
        let mut add = |parent: Option<usize>, n: String, at: Vec3| {
            parents.push(parent);
            names.push(n);
            rest.push(Transform {
                translation: at,
                ..Transform::IDENTITY
            });
            parents.len() - 1
        };
        let hips = add(None, name("hips", ""), Vec3::Y);
        let mut top = hips;
        for i in 0..spine {
            top = add(Some(top), format!("torso_{i}"), Vec3::Y * 0.1);
        }
        let neck = add(Some(top), name("neck", ""), Vec3::Y * 0.1);
        add(Some(neck), name("head", ""), Vec3::Y * 0.1);
        for (side, x) in [("l", side_x), ("r", -side_x)] {
            let upper = add(
                Some(top),
                name("upperarm", side),
                Vec3::new(0.2 * x, 0.0, 0.0),
            );
            let lower = add(
                Some(upper),
                name("forearm", side),
                Vec3::new(0.3 * x, 0.0, 0.0),
            );
            add(
                Some(lower),
                name("hand", side),
                Vec3::new(0.25 * x, 0.0, 0.0),
            );
            let thigh = add(
                Some(hips),
                name("thigh", side),
                Vec3::new(0.1 * x, 0.0, 0.0),
            );
            let shin = add(Some(thigh), name("shin", side), Vec3::new(0.0, -0.45, 0.0));
            let foot = add(Some(shin), name("foot", side), Vec3::new(0.0, -0.45, 0.0));
            add(
                Some(foot),
                name("toe", side),
                Vec3::new(0.0, -0.05, 0.12 * front_z),
            );
        }
        Skeleton::new(parents, names, rest)
    }

    fn blender(part: &str, side: &str) -> String {
        if side.is_empty() {
            part.to_owned()
        } else {
            format!("{part}.{}", side.to_uppercase())
        }
    }

    #[test]
    fn the_spine_is_whatever_lies_between_the_hips_and_the_neck() {
        let map = HumanoidMap::of(&rig(5, 1.0, 1.0, &blender));
        let joint = |b| map.joint(b).unwrap();
        assert_eq!(joint(HumanoidBone::Spine), 1);
        assert_eq!(joint(HumanoidBone::Chest), 3);
        assert_eq!(joint(HumanoidBone::UpperChest), 5);
        assert_eq!(map.rest, RestPose::T);
        assert_eq!(map.front, Vec3::Z);
        assert!(map.missing(&crate::body::humanoid::CORE_BONES).is_empty());
        let one = HumanoidMap::of(&rig(1, 1.0, 1.0, &blender));
        assert!(one.joint(HumanoidBone::Chest).is_none());
        assert_eq!(one.joint(HumanoidBone::Spine), Some(1));
    }

    #[test]
    fn left_and_right_follow_the_rest_pose_not_the_names() {
        // Facing +Z, the character's left is +X; here the bones named left stand at -X.
        let swapped = HumanoidMap::of(&rig(3, -1.0, 1.0, &blender));
        let named_left = swapped.joint(HumanoidBone::RightUpperArm).unwrap();
        assert_eq!(rig(3, -1.0, 1.0, &blender).names[named_left], "upperarm.L");
        // Facing -Z (toes point there) the same bones are on the character's left: kept.
        let turned = HumanoidMap::of(&rig(3, -1.0, -1.0, &blender));
        assert_eq!(turned.front, Vec3::NEG_Z);
        let left = turned.joint(HumanoidBone::LeftUpperArm).unwrap();
        assert_eq!(rig(3, -1.0, -1.0, &blender).names[left], "upperarm.L");
    }

    #[test]
    fn a_joint_named_like_a_bone_off_its_chain_is_not_taken() {
        // A joint named hand.L hanging from the hips comes first in the file; the real hand
        // is the one below the lower arm.
        let rig = rig(3, 1.0, 1.0, &blender);
        let skeleton = Skeleton::new(
            std::iter::once(Some(1))
                .chain(rig.parents.iter().map(|p| p.map(|p| p + 1)))
                .collect(),
            std::iter::once("hand.L".to_owned())
                .chain(rig.names.iter().cloned())
                .collect(),
            std::iter::once(Transform::IDENTITY)
                .chain(rig.rest.iter().copied())
                .collect(),
        );
        let map = HumanoidMap::of(&skeleton);
        let hand = map.joint(HumanoidBone::LeftHand).unwrap();
        assert_ne!(hand, 0);
        assert_eq!(skeleton.names[hand], "hand.L");
    }

    #[test]
    fn overrides_place_bones_and_report_what_they_cannot() {
        let skeleton = rig(3, 1.0, 1.0, &|part, side| format!("x{part}{side}"));
        let overrides: BTreeMap<String, String> = [
            ("hips", "xhips"),
            ("head", "xhead"),
            ("leftUpperArm", "xupperarml"),
            ("leftElbow", "xforearml"),
            ("leftHand", "nothing"),
        ]
        .into_iter()
        .map(|(a, b)| (a.to_owned(), b.to_owned()))
        .collect();
        let map = HumanoidMap::with_overrides(&skeleton, &overrides);
        assert_eq!(map.joint(HumanoidBone::Hips), Some(0));
        assert_eq!(
            map.joint(HumanoidBone::LeftUpperArm),
            skeleton.index("xupperarml")
        );
        // The spine is still found between the hips and the head.
        assert_eq!(map.joint(HumanoidBone::Spine), Some(1));
        assert_eq!(map.problems.len(), 2, "{:?}", map.problems);
    }
}
