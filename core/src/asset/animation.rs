//! Animation clips: keyframed translation, rotation, scale and morph weights per node, sampled
//! with glTF's LINEAR, STEP and CUBICSPLINE interpolation, and cross-blending between poses.

use std::sync::Arc;

use glam::{Quat, Vec3};
use gltf::json;
use gltf::json::validation::Checked;

use super::accessor::Reader;
use super::clip_face::FaceTracks;
use super::error::{AssetError, Result};
use super::scene::Node;
use super::transform::Transform;

/// How values between two keys are found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interpolation {
    /// Straight line between keys (spherical for rotations).
    Linear,
    /// Holds each key's value until the next key.
    Step,
    /// Hermite spline with an in- and out-tangent per key.
    CubicSpline,
}

/// What a channel animates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Property {
    Translation,
    Rotation,
    Scale,
    /// Morph target weights of the node's mesh.
    Weights,
}

/// The keys of one property of one node.
#[derive(Clone, Debug, PartialEq)]
pub struct Channel {
    pub node: usize,
    pub property: Property,
    pub interpolation: Interpolation,
    /// Key times in seconds: finite and non-decreasing. Shared: every body playing a clip
    /// reads the same keys (a crowd's copies of a clip cost a count each, not the keys).
    pub times: Arc<[f32]>,
    /// Flattened key values, `width` per key; for [`Interpolation::CubicSpline`] three groups
    /// of `width` per key (in-tangent, value, out-tangent) as glTF stores them.
    pub values: Arc<[f32]>,
    /// Values per key: 3 for translation and scale, 4 for rotation (x, y, z, w), the number of
    /// morph targets for weights.
    pub width: usize,
}

/// One named animation.
#[derive(Clone, Debug, PartialEq)]
pub struct Clip {
    /// The animation's name, or `"clip N"` (N its index) when it has none.
    pub name: String,
    /// The latest last key time over all channels; 0 without channels.
    pub duration_s: f32,
    pub channels: Vec<Channel>,
    /// What it does to the face (a VRM animation's expression and look-at tracks; empty for
    /// clips of other files).
    pub face: FaceTracks,
}

/// Whether a clip's name says nothing of what it is: none, or what tools write when no one
/// named it (Mixamo's "mixamo.com", FBX's "Take 001", three.js's "animation", Blender's
/// "Armature|mixamo.com|Layer0", this loader's "clip N" for an animation without a name). A file's lone clip so named takes the file's name.
#[must_use]
pub fn name_says_nothing(name: &str) -> bool {
    let lower = name.trim().to_ascii_lowercase();
    lower.is_empty()
        || lower == "animation"
        || lower == "default"
        || lower.contains("mixamo.com")
        || lower.starts_with("take ")
        || lower.starts_with("clip ")
}

/// Reads every animation as a clip.
///
/// `mesh_target_counts(mesh)` gives the number of morph targets of a mesh; a weights channel
/// must have that many values per key when it is known (non-zero).
///
/// Errors ([`AssetError::BadAnimation`]): a channel targeting a node that does not exist or
/// using a sampler that does not exist, an unknown interpolation, key times that are empty,
/// non-finite or decreasing, or an output whose size does not match its keys. Channels with a
/// path this loader does not know (such as KHR_animation_pointer's `pointer`), and weights
/// channels on nodes without a mesh, are skipped.
pub fn read_clips(
    reader: &Reader<'_>,
    nodes: &[Node],
    mesh_target_counts: &dyn Fn(usize) -> usize,
) -> Result<Vec<Clip>> {
    reader
        .root
        .animations
        .iter()
        .enumerate()
        .map(|(index, animation)| read_clip(reader, nodes, mesh_target_counts, index, animation))
        .collect()
}

fn read_clip(
    reader: &Reader<'_>,
    nodes: &[Node],
    mesh_target_counts: &dyn Fn(usize) -> usize,
    index: usize,
    animation: &json::Animation,
) -> Result<Clip> {
    let mut channels = Vec::with_capacity(animation.channels.len());
    for (c, channel) in animation.channels.iter().enumerate() {
        let read = read_channel(reader, nodes, mesh_target_counts, animation, channel);
        match read {
            Ok(Some(channel)) => channels.push(channel),
            Ok(None) => {}
            Err(reason) => {
                return Err(AssetError::BadAnimation {
                    animation: index,
                    reason: format!("channel {c}: {reason}"),
                });
            }
        }
    }
    let duration_s = channels
        .iter()
        .filter_map(|c| c.times.last().copied())
        .fold(0.0_f32, f32::max);
    Ok(Clip {
        name: animation
            .name
            .clone()
            .unwrap_or_else(|| format!("clip {index}")),
        duration_s,
        channels,
        face: FaceTracks::default(),
    })
}

/// One channel, `None` when it is skipped, or why it is broken.
fn read_channel(
    reader: &Reader<'_>,
    nodes: &[Node],
    mesh_target_counts: &dyn Fn(usize) -> usize,
    animation: &json::Animation,
    channel: &json::animation::Channel,
) -> std::result::Result<Option<Channel>, String> {
    use json::animation::{Interpolation as JsonInterpolation, Property as JsonProperty};

    let property = match channel.target.path {
        Checked::Valid(JsonProperty::Translation) => Property::Translation,
        Checked::Valid(JsonProperty::Rotation) => Property::Rotation,
        Checked::Valid(JsonProperty::Scale) => Property::Scale,
        Checked::Valid(JsonProperty::MorphTargetWeights) => Property::Weights,
        Checked::Invalid => return Ok(None),
    };
    let node_index = channel.target.node.value();
    let node = nodes
        .get(node_index)
        .ok_or_else(|| format!("targets node {node_index}, which does not exist"))?;
    let sampler_index = channel.sampler.value();
    let sampler = animation
        .samplers
        .get(sampler_index)
        .ok_or_else(|| format!("uses sampler {sampler_index}, which does not exist"))?;
    let interpolation = match sampler.interpolation {
        Checked::Valid(JsonInterpolation::Linear) => Interpolation::Linear,
        Checked::Valid(JsonInterpolation::Step) => Interpolation::Step,
        Checked::Valid(JsonInterpolation::CubicSpline) => Interpolation::CubicSpline,
        Checked::Invalid => return Err("unknown interpolation".into()),
    };
    let mesh = match (property, node.mesh) {
        (Property::Weights, None) => return Ok(None),
        (_, mesh) => mesh,
    };

    let times = reader
        .scalars(sampler.input.value(), "animation key times")
        .map_err(|e| e.to_string())?;
    check_times(&times)?;
    let (mut values, element_width) = reader
        .floats(sampler.output.value())
        .map_err(|e| e.to_string())?;

    let keys = times.len();
    let per_key = if interpolation == Interpolation::CubicSpline {
        3
    } else {
        1
    };
    let width = match property {
        Property::Translation | Property::Scale => 3,
        Property::Rotation => 4,
        Property::Weights => {
            let groups = keys.saturating_mul(per_key);
            if !values.len().is_multiple_of(groups) || values.is_empty() {
                return Err(format!(
                    "{} weight values do not divide evenly over {keys} keys",
                    values.len()
                ));
            }
            let width = values.len() / groups;
            let targets = mesh.map_or(0, mesh_target_counts);
            if targets != 0 && targets != width {
                return Err(format!(
                    "animates {width} morph weights but mesh {} has {targets} targets",
                    mesh.unwrap_or_default()
                ));
            }
            width
        }
    };
    let expected_element_width = if property == Property::Weights {
        1
    } else {
        width
    };
    if element_width != expected_element_width {
        return Err(format!(
            "output has {element_width} components per element, expected {expected_element_width}"
        ));
    }
    let expected = keys.saturating_mul(width).saturating_mul(per_key);
    if values.len() != expected {
        return Err(format!(
            "output has {} values, expected {keys} keys × {width}{}",
            values.len(),
            if per_key == 3 { " × 3" } else { "" }
        ));
    }
    for v in &mut values {
        if !v.is_finite() {
            *v = 0.0;
        }
    }
    Ok(Some(Channel {
        node: node_index,
        property,
        interpolation,
        times: times.into(),
        values: values.into(),
        width,
    }))
}

/// Key times must exist, be finite and never go backwards.
fn check_times(times: &[f32]) -> std::result::Result<(), String> {
    if times.is_empty() {
        return Err("has no keys".into());
    }
    if let Some(i) = times.iter().position(|t| !t.is_finite()) {
        return Err(format!("key time {i} is not finite"));
    }
    if let Some(i) = times.windows(2).position(|w| w[1] < w[0]) {
        return Err(format!("key time {} goes back in time", i + 1));
    }
    Ok(())
}

/// Where a time falls among the keys.
#[derive(Clone, Copy, Debug)]
enum Span {
    /// At, before the first, after the last key, or between STEP keys: that key's value.
    Hold(usize),
    /// Between key `from` and `from + 1`, `u` of the way (0..1), the keys `dt` seconds apart.
    Between { from: usize, u: f32, dt: f32 },
}

fn locate(times: &[f32], t: f32) -> Span {
    let after = keys_at_or_before(times, t);
    if after == 0 {
        return Span::Hold(0);
    }
    let from = after - 1;
    match (times.get(from), times.get(after)) {
        (Some(&t0), Some(&t1)) if t1 > t0 => {
            let dt = t1 - t0;
            Span::Between {
                from,
                u: ((t - t0) / dt).clamp(0.0, 1.0),
                dt,
            }
        }
        _ => Span::Hold(from),
    }
}

/// How many keys are at or before `t` (times are non-decreasing).
///
/// Most clips are baked at a fixed rate, so the key is first guessed from the first and last
/// times and the guess checked; only a wrong guess pays for the binary search.
fn keys_at_or_before(times: &[f32], t: f32) -> usize {
    let n = times.len();
    if let (Some(&first), Some(&last)) = (times.first(), times.last())
        && n > 2
        && last > first
    {
        let guess = ((t - first) / (last - first) * (n - 1) as f32).floor();
        if guess >= 0.0 && guess < (n - 1) as f32 {
            let k = guess as usize;
            if times[k] <= t && t < times[k + 1] {
                return k + 1;
            }
        }
    }
    times.partition_point(|&k| k <= t)
}

/// A unit quaternion from any four numbers; identity when they cannot be normalised.
fn unit_quat(q: Quat) -> Quat {
    let length_squared = q.length_squared();
    if q.is_finite() && length_squared > 1e-12 && length_squared.is_finite() {
        q.normalize()
    } else {
        Quat::IDENTITY
    }
}

impl Channel {
    /// Component `c` of the value at `t_s` seconds (clamped to the keys).
    #[must_use]
    pub fn component_at(&self, t_s: f32, c: usize) -> f32 {
        self.sample_component(locate(&self.times, t_s), c)
    }

    /// The rotation at `t_s` seconds (clamped to the keys), for a rotation channel.
    #[must_use]
    pub fn rotation_at(&self, t_s: f32) -> Quat {
        self.sample_rotation(locate(&self.times, t_s))
    }

    /// Component `c` of key `key`'s value (the middle group for cubic splines); 0 when absent.
    fn value(&self, key: usize, c: usize) -> f32 {
        let at = if self.interpolation == Interpolation::CubicSpline {
            key.checked_mul(3)
                .and_then(|k| k.checked_add(1))
                .and_then(|k| k.checked_mul(self.width))
        } else {
            key.checked_mul(self.width)
        };
        self.component(at, c)
    }

    /// Component `c` of key `key`'s in-tangent (`group` 0) or out-tangent (`group` 2).
    fn tangent(&self, key: usize, group: usize, c: usize) -> f32 {
        let at = key
            .checked_mul(3)
            .and_then(|k| k.checked_add(group))
            .and_then(|k| k.checked_mul(self.width));
        self.component(at, c)
    }

    fn component(&self, at: Option<usize>, c: usize) -> f32 {
        at.and_then(|a| a.checked_add(c))
            .and_then(|i| self.values.get(i))
            .copied()
            .unwrap_or(0.0)
    }

    /// Component `c` at `span`, interpolated per component (everything but LINEAR rotation).
    fn sample_component(&self, span: Span, c: usize) -> f32 {
        match span {
            Span::Hold(key) => self.value(key, c),
            Span::Between { from, u, dt } => match self.interpolation {
                Interpolation::Step => self.value(from, c),
                Interpolation::Linear => {
                    let a = self.value(from, c);
                    let b = self.value(from + 1, c);
                    a + (b - a) * u
                }
                Interpolation::CubicSpline => {
                    let to = from + 1;
                    let p0 = self.value(from, c);
                    let m0 = self.tangent(from, 2, c) * dt;
                    let p1 = self.value(to, c);
                    let m1 = self.tangent(to, 0, c) * dt;
                    let u2 = u * u;
                    let u3 = u2 * u;
                    (2.0 * u3 - 3.0 * u2 + 1.0) * p0
                        + (u3 - 2.0 * u2 + u) * m0
                        + (-2.0 * u3 + 3.0 * u2) * p1
                        + (u3 - u2) * m1
                }
            },
        }
    }

    fn sample_vec3(&self, span: Span) -> Vec3 {
        Vec3::new(
            self.sample_component(span, 0),
            self.sample_component(span, 1),
            self.sample_component(span, 2),
        )
    }

    fn quat_at(&self, key: usize) -> Quat {
        unit_quat(Quat::from_xyzw(
            self.value(key, 0),
            self.value(key, 1),
            self.value(key, 2),
            self.value(key, 3),
        ))
    }

    fn sample_rotation(&self, span: Span) -> Quat {
        match (self.interpolation, span) {
            (Interpolation::Linear, Span::Between { from, u, .. }) => {
                unit_quat(self.quat_at(from).slerp(self.quat_at(from + 1), u))
            }
            _ => unit_quat(Quat::from_xyzw(
                self.sample_component(span, 0),
                self.sample_component(span, 1),
                self.sample_component(span, 2),
                self.sample_component(span, 3),
            )),
        }
    }
}

impl Clip {
    /// Where `t_s` seconds fall in the clip: wrapped into it when `looped`, else as given (the
    /// keys clamp it).
    #[must_use]
    pub fn time_in(&self, t_s: f32, looped: bool) -> f32 {
        if !t_s.is_finite() {
            if looped || t_s.is_nan() { 0.0 } else { t_s }
        } else if looped && self.duration_s > 0.0 {
            t_s.rem_euclid(self.duration_s)
        } else {
            t_s
        }
    }

    /// Samples the clip at `t_s` seconds (wrapped into the clip when `looped`, else clamped to
    /// its keys) into `locals` (one per node) and `weights` (morph weights per node).
    ///
    /// Only animated properties change. `weights[node]` is resized to the channel's width when
    /// its length differs, so repeated calls do not allocate. Nodes beyond either slice are
    /// ignored.
    pub fn sample(
        &self,
        t_s: f32,
        looped: bool,
        locals: &mut [Transform],
        weights: &mut [Vec<f32>],
    ) {
        let t = self.time_in(t_s, looped);
        for channel in &self.channels {
            let span = locate(&channel.times, t);
            if channel.property == Property::Weights {
                if let Some(w) = weights.get_mut(channel.node) {
                    if w.len() != channel.width {
                        w.resize(channel.width, 0.0);
                    }
                    for (c, out) in w.iter_mut().enumerate() {
                        let v = channel.sample_component(span, c);
                        *out = if v.is_finite() { v } else { 0.0 };
                    }
                }
                continue;
            }
            let Some(local) = locals.get_mut(channel.node) else {
                continue;
            };
            match channel.property {
                Property::Translation => {
                    let v = channel.sample_vec3(span);
                    if v.is_finite() {
                        local.translation = v;
                    }
                }
                Property::Scale => {
                    let v = channel.sample_vec3(span);
                    if v.is_finite() {
                        local.scale = v;
                    }
                }
                Property::Rotation => local.rotation = channel.sample_rotation(span),
                Property::Weights => {}
            }
        }
    }
}

impl Clip {
    /// The clip on another rig's nodes: each channel moved to the node `node_of` gives for
    /// its own, left out where it gives none.
    #[must_use]
    pub fn on_nodes(&self, node_of: impl Fn(usize) -> Option<usize>) -> Self {
        Self {
            name: self.name.clone(),
            duration_s: self.duration_s,
            channels: self
                .channels
                .iter()
                .filter_map(|c| {
                    Some(Channel {
                        node: node_of(c.node)?,
                        ..c.clone()
                    })
                })
                .collect(),
            face: self.face.clone(),
        }
    }

    /// The clip with `node`'s travel taken out (root motion made in place): its translation's
    /// drift from the first key to the last is spread over the keys and taken away, so the
    /// node sways, bobs and loops where it starts while the player moves the character. A clip
    /// already in place is left as it is, bar any seam between its last and first key.
    #[must_use]
    pub fn in_place(&self, node: usize) -> Self {
        let mut clip = self.clone();
        for channel in &mut clip.channels {
            if channel.node != node || channel.property != Property::Translation {
                continue;
            }
            let (Some(&t0), Some(&t1)) = (channel.times.first(), channel.times.last()) else {
                continue;
            };
            let keys = channel.times.len();
            let group = if channel.interpolation == Interpolation::CubicSpline {
                3
            } else {
                1
            };
            let w = channel.width;
            if t1 <= t0 || w != 3 || channel.values.len() != keys * group * w {
                continue;
            }
            let value = |k: usize, c: usize| channel.values[(k * group + group / 2) * w + c];
            let drift: [f32; 3] = std::array::from_fn(|c| value(keys - 1, c) - value(0, c));
            let mut values = channel.values.to_vec();
            for (k, &t) in channel.times.iter().enumerate() {
                let share = (t - t0) / (t1 - t0);
                for c in 0..3 {
                    values[(k * group + group / 2) * w + c] -= drift[c] * share;
                    if group == 3 {
                        // The tangents are rates: the drift's rate leaves them too.
                        let rate = drift[c] / (t1 - t0);
                        values[(k * group) * w + c] -= rate;
                        values[(k * group + 2) * w + c] -= rate;
                    }
                }
            }
            channel.values = values.into();
        }
        clip
    }
}

/// Blends two sets of local transforms, `t` of the way from `a` to `b` (clamped to 0..1):
/// translation and scale linearly, rotation by shortest-path slerp.
///
/// Writes `out[i]` for every node present in `a`, `b` and `out`; the rest of `out` is left
/// unchanged.
pub fn blend(a: &[Transform], b: &[Transform], t: f32, out: &mut [Transform]) {
    let t = if t.is_nan() { 0.0 } else { t.clamp(0.0, 1.0) };
    for ((out, a), b) in out.iter_mut().zip(a).zip(b) {
        *out = Transform {
            translation: a.translation.lerp(b.translation, t),
            rotation: unit_quat(unit_quat(a.rotation).slerp(unit_quat(b.rotation), t)),
            scale: a.scale.lerp(b.scale, t),
        };
        out.sanitise();
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::float_cmp)]

    use base64::Engine as _;

    use super::*;
    use crate::asset::Source;
    use crate::asset::scene::read_nodes;

    /// A walk that travels 1.4 m along +X in a second while the hips bob.
    fn travelling_walk(interpolation: Interpolation) -> Clip {
        let times: Vec<f32> = vec![0.0, 0.25, 0.5, 0.75, 1.0];
        let mut values = Vec::new();
        for &t in &times {
            let v = [1.4 * t, 1.0 + 0.05 * (std::f32::consts::TAU * t).cos(), 0.0];
            if interpolation == Interpolation::CubicSpline {
                values.extend([1.4, 0.0, 0.0]);
                values.extend(v);
                values.extend([1.4, 0.0, 0.0]);
            } else {
                values.extend(v);
            }
        }
        Clip {
            name: "walk".into(),
            duration_s: 1.0,
            channels: vec![Channel {
                node: 0,
                property: Property::Translation,
                interpolation,
                times: times.into(),
                values: values.into(),
                width: 3,
            }],
            face: FaceTracks::default(),
        }
    }

    #[test]
    fn a_walk_with_root_motion_is_made_in_place_and_keeps_its_bob() {
        for interpolation in [Interpolation::Linear, Interpolation::CubicSpline] {
            let clip = travelling_walk(interpolation).in_place(0);
            let at = |t: f32| {
                let mut locals = vec![Transform::IDENTITY];
                clip.sample(t, false, &mut locals, &mut []);
                locals[0].translation
            };
            for t in [0.0, 0.25, 0.5, 0.75, 1.0, 0.6] {
                let v = at(t);
                assert!(v.x.abs() < 1e-4, "{interpolation:?} at {t}: {v}");
            }
            // The bob stays.
            assert!((at(0.5).y - 0.95).abs() < 1e-4, "{interpolation:?}");
            assert!((at(1.0).y - 1.05).abs() < 1e-4, "{interpolation:?}");
            // Another node's channel is left alone.
            let other = travelling_walk(interpolation).in_place(3);
            assert_eq!(other, travelling_walk(interpolation));
        }
    }

    #[test]
    fn the_guessed_key_is_the_searched_key() {
        let uniform: Vec<f32> = (0..121).map(|i| i as f32 / 30.0).collect();
        let uneven = vec![0.0, 0.1, 0.15, 0.9, 1.0, 2.5, 4.0];
        let repeated = vec![0.0, 0.5, 0.5, 0.5, 1.0, 1.0, 2.0];
        let short = vec![1.0, 2.0];
        for times in [&uniform, &uneven, &repeated, &short] {
            let mut probes: Vec<f32> = (-20..500).map(|i| i as f32 * 0.01).collect();
            probes.extend(times.iter().copied());
            probes.extend([f32::NAN, f32::INFINITY, f32::NEG_INFINITY]);
            for t in probes {
                assert_eq!(
                    keys_at_or_before(times, t),
                    times.partition_point(|&k| k <= t),
                    "t {t} over {times:?}"
                );
            }
        }
    }

    /// Accessors appended to one buffer, for building test documents.
    #[derive(Debug, Default)]
    struct Builder {
        bytes: Vec<u8>,
        accessors: Vec<String>,
    }

    impl Builder {
        /// Adds an accessor of `kind` ("SCALAR", "VEC3", ...) holding `values`.
        fn add(&mut self, kind: &str, width: usize, values: &[f32]) -> usize {
            let offset = self.bytes.len();
            self.bytes
                .extend(values.iter().flat_map(|v| v.to_le_bytes()));
            self.accessors.push(format!(
                r#"{{"bufferView":0,"byteOffset":{offset},"componentType":5126,"count":{},"type":"{kind}"}}"#,
                values.len() / width
            ));
            self.accessors.len() - 1
        }

        /// A whole document with these nodes, meshes and animations.
        fn document(&self, nodes: &str, animations: &str) -> Source {
            let data = base64::engine::general_purpose::STANDARD.encode(&self.bytes);
            let json = format!(
                r#"{{"asset":{{"version":"2.0"}},
                "buffers":[{{"byteLength":{len},"uri":"data:application/octet-stream;base64,{data}"}}],
                "bufferViews":[{{"buffer":0,"byteLength":{len}}}],
                "accessors":[{accessors}],
                "meshes":[{{"primitives":[{{"attributes":{{}}}}]}}],
                "nodes":[{nodes}],
                "animations":[{animations}]}}"#,
                len = self.bytes.len(),
                accessors = self.accessors.join(","),
            );
            Source::from_bytes(json.as_bytes(), None).expect("test document parses")
        }
    }

    fn load(source: &Source, targets: usize) -> Result<(Vec<Node>, Vec<Clip>)> {
        let reader = Reader::new(&source.root, &source.buffers);
        let nodes = read_nodes(&reader, &mut Vec::new())?;
        let clips = read_clips(&reader, &nodes, &|_| targets)?;
        Ok((nodes, clips))
    }

    fn close(a: f32, b: f32) -> bool {
        (a - b).abs() < 1e-5
    }

    const NODES: &str =
        r#"{"name":"a"},{"name":"b"},{"name":"c"},{"name":"d"},{"name":"face","mesh":0}"#;

    /// Five channels: LINEAR translation (node 0), STEP translation (node 1), LINEAR rotation
    /// (node 2), CUBICSPLINE translation (node 3), LINEAR weights (node 4, two targets).
    fn full() -> (Vec<Node>, Vec<Clip>) {
        let mut b = Builder::default();
        let times = b.add("SCALAR", 1, &[0.0, 1.0, 2.0]);
        let linear = b.add("VEC3", 3, &[0.0, 0.0, 0.0, 2.0, 4.0, 6.0, 2.0, 4.0, 10.0]);
        let step = b.add("VEC3", 3, &[1.0, 1.0, 1.0, 5.0, 5.0, 5.0, 9.0, 9.0, 9.0]);
        let half = std::f32::consts::FRAC_1_SQRT_2;
        let rotation = b.add(
            "VEC4",
            4,
            &[0.0, 0.0, 0.0, 1.0, 0.0, half, 0.0, half, 0.0, 1.0, 0.0, 0.0],
        );
        let cubic_times = b.add("SCALAR", 1, &[0.0, 2.0]);
        #[rustfmt::skip]
        let cubic = b.add("VEC3", 3, &[
            // key 0: in-tangent, value, out-tangent
            0.0, 0.0, 0.0,   0.0, 0.0, 0.0,   1.0, 0.0, 0.0,
            // key 1
            1.0, 0.0, 0.0,   4.0, 0.0, 0.0,   0.0, 0.0, 0.0,
        ]);
        let weights = b.add("SCALAR", 1, &[0.0, 1.0, 1.0, 0.0, 0.5, 0.5]);
        let animation = format!(
            r#"{{"name":"walk","samplers":[
                {{"input":{times},"output":{linear}}},
                {{"input":{times},"output":{step},"interpolation":"STEP"}},
                {{"input":{times},"output":{rotation},"interpolation":"LINEAR"}},
                {{"input":{cubic_times},"output":{cubic},"interpolation":"CUBICSPLINE"}},
                {{"input":{times},"output":{weights}}}],
              "channels":[
                {{"sampler":0,"target":{{"node":0,"path":"translation"}}}},
                {{"sampler":1,"target":{{"node":1,"path":"translation"}}}},
                {{"sampler":2,"target":{{"node":2,"path":"rotation"}}}},
                {{"sampler":3,"target":{{"node":3,"path":"translation"}}}},
                {{"sampler":4,"target":{{"node":4,"path":"weights"}}}},
                {{"sampler":0,"target":{{"node":0,"path":"pointer"}}}}]}},
              {{"samplers":[],"channels":[]}}"#
        );
        let source = b.document(NODES, &animation);
        load(&source, 2).expect("loads")
    }

    fn sample(clip: &Clip, t: f32, looped: bool) -> (Vec<Transform>, Vec<Vec<f32>>) {
        let mut locals = vec![Transform::IDENTITY; 5];
        let mut weights = vec![Vec::new(); 5];
        clip.sample(t, looped, &mut locals, &mut weights);
        (locals, weights)
    }

    /// A clip written with `KHR_animation_pointer` (as newer Ready Player Me exports write
    /// them) plays as the same clip written with ordinary channels; a channel animating a
    /// material is skipped with a warning and the rest loads.
    #[test]
    fn animation_pointer_channels_play_as_ordinary_ones() {
        let mut b = Builder::default();
        let times = b.add("SCALAR", 1, &[0.0, 1.0]);
        let moves = b.add("VEC3", 3, &[0.0, 0.0, 0.0, 1.0, 2.0, 3.0]);
        let weights = b.add("SCALAR", 1, &[0.0, 0.0, 1.0, 0.5]);
        let colour = b.add("VEC4", 4, &[1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0]);
        let samplers = format!(
            r#""samplers":[{{"input":{times},"output":{moves}}},
                {{"input":{times},"output":{weights}}},
                {{"input":{times},"output":{colour}}}]"#
        );
        let ordinary = format!(
            r#"{{"name":"wave",{samplers},"channels":[
                {{"sampler":0,"target":{{"node":1,"path":"translation"}}}},
                {{"sampler":1,"target":{{"node":4,"path":"weights"}}}}]}}"#
        );
        let pointer = |sampler: usize, p: &str| {
            format!(
                r#"{{"sampler":{sampler},"target":{{"path":"pointer","extensions":
                    {{"KHR_animation_pointer":{{"pointer":"{p}"}}}}}}}}"#
            )
        };
        let pointed = format!(
            r#"{{"name":"wave",{samplers},"channels":[{},{},{}]}}"#,
            pointer(0, "/nodes/1/translation"),
            pointer(1, "/meshes/0/weights"),
            pointer(2, "/materials/0/pbrMetallicRoughness/baseColorFactor"),
        );
        let plain = b.document(NODES, &ordinary);
        assert!(plain.warnings.is_empty());
        let resolved = b.document(NODES, &pointed);
        assert_eq!(resolved.warnings.len(), 1, "{:?}", resolved.warnings);
        assert!(resolved.warnings[0].contains("baseColorFactor"));
        let (_, expected) = load(&plain, 2).expect("ordinary");
        let (_, clips) = load(&resolved, 2).expect("pointed");
        for t in [0.0, 0.3, 0.5, 1.0] {
            assert_eq!(sample(&clips[0], t, false), sample(&expected[0], t, false));
        }
        let (moved, _) = sample(&clips[0], 0.5, false);
        assert!(close(moved[1].translation.y, 1.0), "{:?}", moved[1]);
    }

    #[test]
    fn reads_channels() {
        let (_, clips) = full();
        assert_eq!(clips.len(), 2);
        let clip = &clips[0];
        assert_eq!(clip.name, "walk");
        assert_eq!(clips[1].name, "clip 1");
        assert_eq!(clips[1].duration_s, 0.0);
        // The pointer channel is skipped.
        assert_eq!(clip.channels.len(), 5);
        assert_eq!(clip.duration_s, 2.0);
        let widths: Vec<usize> = clip.channels.iter().map(|c| c.width).collect();
        assert_eq!(widths, vec![3, 3, 4, 3, 2]);
        assert_eq!(clip.channels[1].interpolation, Interpolation::Step);
        assert_eq!(clip.channels[3].interpolation, Interpolation::CubicSpline);
        assert_eq!(clip.channels[4].property, Property::Weights);
    }

    #[test]
    fn linear_translation_at_keys_and_midpoints() {
        let (_, clips) = full();
        let clip = &clips[0];
        let at = |t| sample(clip, t, false).0[0].translation;
        assert_eq!(at(0.0), Vec3::ZERO);
        assert_eq!(at(1.0), Vec3::new(2.0, 4.0, 6.0));
        assert_eq!(at(2.0), Vec3::new(2.0, 4.0, 10.0));
        assert!(at(0.5).abs_diff_eq(Vec3::new(1.0, 2.0, 3.0), 1e-6));
        assert!(at(1.5).abs_diff_eq(Vec3::new(2.0, 4.0, 8.0), 1e-6));
        // Clamped outside the keys.
        assert_eq!(at(-3.0), Vec3::ZERO);
        assert_eq!(at(7.0), Vec3::new(2.0, 4.0, 10.0));
        // Untouched nodes keep what they had.
        let (locals, _) = sample(clip, 0.5, false);
        assert_eq!(locals[4], Transform::IDENTITY);
    }

    #[test]
    fn step_holds_the_previous_key() {
        let (_, clips) = full();
        let at = |t| sample(&clips[0], t, false).0[1].translation;
        assert_eq!(at(0.0), Vec3::ONE);
        assert_eq!(at(0.99), Vec3::ONE);
        assert_eq!(at(1.0), Vec3::splat(5.0));
        assert_eq!(at(1.5), Vec3::splat(5.0));
        assert_eq!(at(2.5), Vec3::splat(9.0));
    }

    #[test]
    fn rotation_slerps() {
        let (_, clips) = full();
        let at = |t| sample(&clips[0], t, false).0[2].rotation;
        assert!(at(0.0).abs_diff_eq(Quat::IDENTITY, 1e-6));
        assert!(at(1.0).abs_diff_eq(Quat::from_rotation_y(std::f32::consts::FRAC_PI_2), 1e-6));
        let mid = at(0.5);
        assert!(
            mid.abs_diff_eq(Quat::from_rotation_y(std::f32::consts::FRAC_PI_4), 1e-5),
            "{mid}"
        );
        assert!(close(mid.length(), 1.0));
        // Key 2 is a half turn about y: the slerp from the quarter turn stays on that axis.
        let late = at(1.5);
        assert!(
            late.abs_diff_eq(
                Quat::from_rotation_y(3.0 * std::f32::consts::FRAC_PI_4),
                1e-5
            ),
            "{late}"
        );
    }

    #[test]
    fn cubic_spline_follows_hermite() {
        let (_, clips) = full();
        let at = |t| sample(&clips[0], t, false).0[3].translation.x;
        assert!(close(at(0.0), 0.0));
        assert!(close(at(2.0), 4.0));
        // u = 0.5, dt = 2: 0.5*p0 + 0.125*(1*2) + 0.5*p1 + (-0.125)*(1*2) = 2.
        assert!(close(at(1.0), 2.0), "{}", at(1.0));
        // u = 0.25: h00=0.84375 h10=0.140625 h01=0.15625 h11=-0.046875.
        let expected = 0.140_625 * 2.0 + 0.156_25 * 4.0 - 0.046_875 * 2.0;
        assert!(close(at(0.5), expected), "{} != {expected}", at(0.5));
    }

    #[test]
    fn weights_interpolate_and_resize_only_when_needed() {
        let (_, clips) = full();
        let clip = &clips[0];
        let (_, weights) = sample(clip, 0.5, false);
        assert_eq!(weights[4], vec![0.5, 0.5]);
        assert!(weights[0].is_empty());
        let (_, weights) = sample(clip, 2.0, false);
        assert_eq!(weights[4], vec![0.5, 0.5]);
        let (_, weights) = sample(clip, 1.0, false);
        assert_eq!(weights[4], vec![1.0, 0.0]);

        let mut locals = vec![Transform::IDENTITY; 5];
        let mut weights = vec![Vec::new(); 5];
        clip.sample(0.25, false, &mut locals, &mut weights);
        let pointer = weights[4].as_ptr();
        for i in 0..100 {
            clip.sample(i as f32 * 0.05, true, &mut locals, &mut weights);
        }
        assert_eq!(weights[4].as_ptr(), pointer);
        // Fewer slots than nodes: ignored, no panic.
        clip.sample(0.25, false, &mut locals[..1], &mut weights[..2]);
    }

    #[test]
    fn looping_wraps() {
        let (_, clips) = full();
        let clip = &clips[0];
        let at = |t, looped| sample(clip, t, looped).0[0].translation;
        assert!(at(2.5, true).abs_diff_eq(at(0.5, false), 1e-5));
        assert!(at(4.5, true).abs_diff_eq(at(0.5, false), 1e-5));
        assert!(at(-0.5, true).abs_diff_eq(at(1.5, false), 1e-5));
        assert_eq!(at(2.5, false), Vec3::new(2.0, 4.0, 10.0));
        // Non-finite times do not panic.
        for t in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            for looped in [false, true] {
                let (locals, _) = sample(clip, t, looped);
                assert!(locals.iter().all(|l| l.translation.is_finite()));
            }
        }
    }

    fn single_channel(
        times: &[f32],
        output: (&str, usize, &[f32]),
        target: &str,
    ) -> Result<Vec<Clip>> {
        let mut b = Builder::default();
        let input = b.add("SCALAR", 1, times);
        let output = b.add(output.0, output.1, output.2);
        let animation = format!(
            r#"{{"samplers":[{{"input":{input},"output":{output}}}],
                "channels":[{{"sampler":0,"target":{target}}}]}}"#
        );
        let source = b.document(NODES, &animation);
        load(&source, 2).map(|(_, clips)| clips)
    }

    #[test]
    fn times_out_of_order_are_an_error() {
        let err = single_channel(
            &[0.0, 2.0, 1.0],
            ("VEC3", 3, &[0.0; 9]),
            r#"{"node":0,"path":"translation"}"#,
        )
        .unwrap_err();
        assert!(
            matches!(err, AssetError::BadAnimation { animation: 0, .. }),
            "{err}"
        );
        assert!(err.to_string().contains("back in time"), "{err}");
    }

    #[test]
    fn non_finite_times_are_an_error() {
        let err = single_channel(
            &[0.0, f32::NAN],
            ("VEC3", 3, &[0.0; 6]),
            r#"{"node":0,"path":"translation"}"#,
        )
        .unwrap_err();
        assert!(matches!(err, AssetError::BadAnimation { .. }), "{err}");
    }

    #[test]
    fn missing_node_is_an_error() {
        let err = single_channel(
            &[0.0, 1.0],
            ("VEC3", 3, &[0.0; 6]),
            r#"{"node":99,"path":"translation"}"#,
        )
        .unwrap_err();
        assert!(
            matches!(err, AssetError::BadAnimation { animation: 0, .. }),
            "{err}"
        );
        assert!(err.to_string().contains("node 99"), "{err}");
    }

    #[test]
    fn wrong_output_sizes_are_errors() {
        let translation = r#"{"node":0,"path":"translation"}"#;
        // Too few values.
        assert!(single_channel(&[0.0, 1.0], ("VEC3", 3, &[0.0; 3]), translation).is_err());
        // Wrong element type.
        assert!(single_channel(&[0.0, 1.0], ("VEC4", 4, &[0.0; 8]), translation).is_err());
        // Rotation needs VEC4.
        let rotation = r#"{"node":0,"path":"rotation"}"#;
        assert!(single_channel(&[0.0, 1.0], ("VEC3", 3, &[0.0; 6]), rotation).is_err());
        // Weights must match the mesh's two targets.
        let weights = r#"{"node":4,"path":"weights"}"#;
        assert!(single_channel(&[0.0, 1.0], ("SCALAR", 1, &[0.0; 6]), weights).is_err());
        assert!(single_channel(&[0.0, 1.0], ("SCALAR", 1, &[0.0; 5]), weights).is_err());
        assert!(single_channel(&[0.0, 1.0], ("SCALAR", 1, &[0.0; 4]), weights).is_ok());
        // Weights on a node without a mesh are skipped.
        let clips = single_channel(
            &[0.0, 1.0],
            ("SCALAR", 1, &[0.0; 4]),
            r#"{"node":0,"path":"weights"}"#,
        )
        .unwrap();
        assert!(clips[0].channels.is_empty());
    }

    #[test]
    fn missing_sampler_is_an_error() {
        let mut b = Builder::default();
        let input = b.add("SCALAR", 1, &[0.0]);
        let output = b.add("VEC3", 3, &[0.0; 3]);
        let animation = format!(
            r#"{{"samplers":[{{"input":{input},"output":{output}}}],
                "channels":[{{"sampler":3,"target":{{"node":0,"path":"scale"}}}}]}}"#
        );
        let err = load(&b.document(NODES, &animation), 2).unwrap_err();
        assert!(matches!(err, AssetError::BadAnimation { .. }), "{err}");
    }

    #[test]
    fn hand_built_channels_never_panic() {
        let clip = Clip {
            name: "broken".into(),
            duration_s: 1.0,
            channels: vec![
                Channel {
                    node: 0,
                    property: Property::Rotation,
                    interpolation: Interpolation::CubicSpline,
                    times: vec![0.0, 1.0].into(),
                    values: vec![1.0].into(),
                    width: 4,
                },
                Channel {
                    node: 1,
                    property: Property::Weights,
                    interpolation: Interpolation::Linear,
                    times: vec![].into(),
                    values: vec![].into(),
                    width: 3,
                },
            ],
            face: FaceTracks::default(),
        };
        let mut locals = vec![Transform::IDENTITY; 2];
        let mut weights = vec![Vec::new(); 2];
        clip.sample(0.5, true, &mut locals, &mut weights);
        assert!(locals[0].rotation.is_normalized());
        assert_eq!(weights[1], vec![0.0; 3]);
    }

    #[test]
    fn blend_mixes_poses() {
        let a = [Transform {
            translation: Vec3::ZERO,
            rotation: Quat::IDENTITY,
            scale: Vec3::ONE,
        }];
        let b = [Transform {
            translation: Vec3::new(2.0, 0.0, 0.0),
            rotation: Quat::from_rotation_z(std::f32::consts::FRAC_PI_2),
            scale: Vec3::splat(3.0),
        }];
        let mut out = [Transform::IDENTITY; 2];
        blend(&a, &b, 0.5, &mut out);
        assert!(
            out[0]
                .translation
                .abs_diff_eq(Vec3::new(1.0, 0.0, 0.0), 1e-6)
        );
        assert!(out[0].scale.abs_diff_eq(Vec3::splat(2.0), 1e-6));
        assert!(
            out[0]
                .rotation
                .abs_diff_eq(Quat::from_rotation_z(std::f32::consts::FRAC_PI_4), 1e-5)
        );
        assert_eq!(out[1], Transform::IDENTITY);
        blend(&a, &b, 0.0, &mut out);
        assert!(out[0].translation.abs_diff_eq(Vec3::ZERO, 1e-6));
        blend(&a, &b, 1.0, &mut out);
        assert!(out[0].rotation.abs_diff_eq(b[0].rotation, 1e-6));
        // The shortest path: -q is the same rotation as q.
        let negated = [Transform {
            rotation: -b[0].rotation,
            ..b[0]
        }];
        blend(&a, &negated, 0.5, &mut out);
        let angle = out[0]
            .rotation
            .angle_between(Quat::from_rotation_z(std::f32::consts::FRAC_PI_4));
        assert!(angle < 1e-3, "{angle}");
        blend(&a, &b, f32::NAN, &mut out);
        assert!(out[0].translation.is_finite());
    }
}
