//! How tall an avatar stands in its rest pose: the vertical extent of its meshes placed as
//! the file rests them (skinned meshes through their joints), in the file's units after node
//! scales, so a rig in centimetres under a 0.01 scale measures in metres.

use glam::{Mat4, Vec3};

use super::load::Asset;

impl Asset {
    /// The height of everything drawn in the rest pose (top minus bottom), `None` when
    /// nothing is drawn.
    #[must_use]
    pub fn rest_height(&self) -> Option<f32> {
        let locals: Vec<_> = self.nodes.iter().map(|n| n.transform).collect();
        let world = super::scene::world_transforms(&self.nodes, &locals);
        let (mut low, mut high) = (f32::INFINITY, f32::NEG_INFINITY);
        let mut palette = Vec::new();
        for (node, place) in self.nodes.iter().zip(&world) {
            let Some(mesh) = node.mesh.and_then(|m| self.meshes.get(m)) else {
                continue;
            };
            let skin = node.skin.and_then(|s| self.skins.get(s));
            if let Some(skin) = skin {
                skin.palette_into(&world, &mut palette);
            }
            for primitive in &mesh.primitives {
                for (v, p) in primitive.positions.iter().enumerate() {
                    let p = Vec3::from_array(*p);
                    let placed = match (skin, primitive.joints.get(v), primitive.weights.get(v)) {
                        (Some(_), Some(joints), Some(weights)) => {
                            let mut m = Mat4::ZERO;
                            for (j, w) in joints.iter().zip(weights) {
                                if let Some(joint) = palette.get(usize::from(*j)) {
                                    m += *joint * *w;
                                }
                            }
                            m.transform_point3(p)
                        }
                        _ => place.transform_point3(p),
                    };
                    if placed.y.is_finite() {
                        low = low.min(placed.y);
                        high = high.max(placed.y);
                    }
                }
            }
        }
        (high > low).then_some(high - low)
    }
}
