//! The active morph targets of a set of meshes' weights, picked once when the weights change
//! and copied into each frame's draw list from there: a crowd's far NPCs keep their faces for
//! several frames, and picking scans every weight of every mesh.

use super::draw_list::active;
use super::gpu_types::GpuMorph;

/// Each mesh's active targets (as [`crate::DrawList::push_morphs`] picks them), one list
/// after another.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ActiveMorphs {
    morphs: Vec<GpuMorph>,
    /// Where each mesh's targets end in `morphs`.
    ends: Vec<usize>,
}

impl ActiveMorphs {
    /// The active targets of `weights` (one list per mesh).
    #[must_use]
    pub fn of(weights: &[Vec<f32>]) -> Self {
        let mut active = Self::default();
        active.pick(weights);
        active
    }

    /// Picks the active targets of `weights` again, keeping the memory.
    pub fn pick(&mut self, weights: &[Vec<f32>]) {
        self.morphs.clear();
        self.ends.clear();
        for mesh in weights {
            self.morphs.extend(active(mesh).map(|(t, &w)| GpuMorph {
                target: t as u32,
                weight: w,
            }));
            self.ends.push(self.morphs.len());
        }
    }

    /// Active targets of every mesh together.
    #[must_use]
    pub fn len(&self) -> usize {
        self.morphs.len()
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.morphs.is_empty()
    }

    /// Meshes.
    #[must_use]
    pub fn meshes(&self) -> usize {
        self.ends.len()
    }

    /// The active targets of mesh `mesh` (none past the last).
    #[must_use]
    pub fn of_mesh(&self, mesh: usize) -> &[GpuMorph] {
        let start = match mesh {
            0 => 0,
            m => self.ends.get(m - 1).copied().unwrap_or(self.morphs.len()),
        };
        let end = self.ends.get(mesh).copied().unwrap_or(start);
        &self.morphs[start..end]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_mesh_keeps_its_own_non_zero_targets_in_order() {
        let weights = vec![vec![0.0, 0.5, 0.0, -0.25], vec![], vec![1e-5, 0.75]];
        let active = ActiveMorphs::of(&weights);
        let pairs = |m: usize| -> Vec<(u32, f32)> {
            active
                .of_mesh(m)
                .iter()
                .map(|g| (g.target, g.weight))
                .collect()
        };
        assert_eq!(active.meshes(), 3);
        assert_eq!(active.len(), 3);
        assert_eq!(pairs(0), [(1, 0.5), (3, -0.25)]);
        assert_eq!(pairs(1), []);
        assert_eq!(pairs(2), [(1, 0.75)]);
        assert_eq!(pairs(3), [], "no mesh past the last");
    }
}
