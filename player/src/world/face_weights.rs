//! An NPC's morph weights, one list per mesh of its face, with the active targets the draw
//! list copies picked again whenever they change (the two never disagree: the weights are
//! changed only through [`FaceWeights::edit`]).

use npc_render::ActiveMorphs;

#[derive(Clone, Debug, Default)]
pub struct FaceWeights {
    per_mesh: Vec<Vec<f32>>,
    active: ActiveMorphs,
}

impl FaceWeights {
    #[must_use]
    pub fn new(per_mesh: Vec<Vec<f32>>) -> Self {
        let active = ActiveMorphs::of(&per_mesh);
        Self { per_mesh, active }
    }

    /// The weights, one list per mesh.
    #[must_use]
    pub fn per_mesh(&self) -> &[Vec<f32>] {
        &self.per_mesh
    }

    /// Their active targets.
    #[must_use]
    pub fn active(&self) -> &ActiveMorphs {
        &self.active
    }

    /// Changes the weights with `change`, then picks the active targets again.
    pub fn edit(&mut self, change: impl FnOnce(&mut [Vec<f32>])) {
        change(&mut self.per_mesh);
        self.active.pick(&self.per_mesh);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_active_targets_follow_every_edit() {
        let mut weights = FaceWeights::new(vec![vec![0.0; 4], vec![0.5]]);
        assert_eq!(weights.active().len(), 1);
        weights.edit(|w| {
            w[0][2] = 0.25;
            w[1][0] = 0.0;
        });
        assert_eq!(weights.active().len(), 1);
        assert_eq!(weights.active().of_mesh(0)[0].target, 2);
        assert!(weights.active().of_mesh(1).is_empty());
    }
}
