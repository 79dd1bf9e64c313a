//! Where the speaking NPCs stand, for listeners to find the nearest one: an R*-tree (rstar) so
//! that a crowd of listeners does not compare every pair.

use glam::Vec3;
use rstar::RTree;

/// The speakers of one frame.
#[derive(Debug)]
pub(super) struct Speakers {
    tree: RTree<[f32; 3]>,
}

impl Speakers {
    pub(super) fn new(positions: impl Iterator<Item = Vec3>) -> Self {
        Self {
            tree: RTree::bulk_load(positions.map(|p| p.to_array()).collect()),
        }
    }

    /// The nearest speaker to `at` within `reach` metres that is farther than `self_m` (a
    /// speaker does not listen to itself).
    pub(super) fn nearest(&self, at: Vec3, self_m: f32, reach: f32) -> Option<Vec3> {
        self.tree
            .nearest_neighbor_iter_with_distance_2(&at.to_array())
            .take_while(|(_, d2)| *d2 < reach * reach)
            .find(|(_, d2)| *d2 > self_m * self_m)
            .map(|(p, _)| Vec3::from_array(*p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_other_speaker_within_reach() {
        let speakers = Speakers::new(
            [
                Vec3::ZERO,
                Vec3::new(3.0, 0.0, 0.0),
                Vec3::new(-5.0, 0.0, 0.0),
            ]
            .into_iter(),
        );
        // Standing on the first speaker: itself is skipped, the next nearest is found.
        assert_eq!(
            speakers.nearest(Vec3::ZERO, 0.1, 8.0),
            Some(Vec3::new(3.0, 0.0, 0.0))
        );
        assert_eq!(
            speakers.nearest(Vec3::new(-4.0, 0.0, 0.0), 0.1, 8.0),
            Some(Vec3::new(-5.0, 0.0, 0.0))
        );
        // Out of reach.
        assert_eq!(speakers.nearest(Vec3::new(20.0, 0.0, 0.0), 0.1, 8.0), None);
        assert_eq!(
            Speakers::new(std::iter::empty()).nearest(Vec3::ZERO, 0.1, 8.0),
            None
        );
    }
}
