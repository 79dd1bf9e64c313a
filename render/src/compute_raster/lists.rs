//! A frame's triangles for one raster, gathered: the opaque surfaces' first, then each
//! masked material's (its own dispatch, its textures bound for the alpha test).

use std::collections::BTreeMap;
use std::ops::Range;

use super::{RasterItem, RasterRun, number};
use crate::mesh_store::{GpuPrimitive, IndexRange, Surface};

/// The objects gathered so far.
#[derive(Debug, Default)]
pub struct RasterLists {
    opaque: Vec<RasterItem>,
    masked: BTreeMap<u32, Vec<RasterItem>>,
}

/// The gathered objects numbered for the raster: its items, triangles and dispatches.
#[derive(Debug, Default)]
pub struct Gathered {
    pub items: Vec<RasterItem>,
    pub triangles: u32,
    pub runs: Vec<RasterRun>,
}

impl RasterLists {
    /// Adds the `objects` (their indices among the frame's) drawing `p`'s triangles `range`:
    /// with its material's alpha test unless `p` is opaque.
    pub fn push(&mut self, p: &GpuPrimitive, objects: Range<u32>, range: IndexRange) {
        let list = if p.surface == Surface::Opaque {
            &mut self.opaque
        } else {
            self.masked.entry(p.material).or_default()
        };
        list.extend(objects.map(|object| RasterItem {
            object,
            first: range.first,
            start: 0,
            count: range.count / 3,
        }));
    }

    /// Numbers the triangles one after another, the opaque run first.
    #[must_use]
    pub fn gather(self) -> Gathered {
        let mut items = self.opaque;
        let mut runs = vec![RasterRun {
            material: None,
            first: 0,
            count: number(&mut items),
        }];
        for (material, mut run) in self.masked {
            let first = runs.last().map_or(0, |r| r.first.saturating_add(r.count));
            let count = number(&mut run);
            for item in &mut run {
                item.start = item.start.saturating_add(first);
            }
            items.append(&mut run);
            runs.push(RasterRun {
                material: Some(material),
                first,
                count,
            });
        }
        let triangles = runs.last().map_or(0, |r| r.first.saturating_add(r.count));
        Gathered {
            items,
            triangles,
            runs,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh_store::Surface;

    fn primitive(surface: Surface, material: u32) -> GpuPrimitive {
        GpuPrimitive {
            lods: [IndexRange { first: 0, count: 3 }; crate::LOD_COUNT],
            lod_vertices: [3; crate::LOD_COUNT],
            vertex_base: 0,
            vertex_count: 3,
            delta_base: 0,
            target_count: 0,
            material,
            skinned: false,
            surface,
            shading: crate::shading::Shading::FULL,
            outline: false,
        }
    }

    #[test]
    fn masked_materials_follow_the_opaque_run_each_its_own() {
        let mut lists = RasterLists::default();
        let range = |first, triangles: u32| IndexRange {
            first,
            count: 3 * triangles,
        };
        lists.push(&primitive(Surface::Masked, 7), 0..2, range(30, 4));
        lists.push(&primitive(Surface::Opaque, 1), 2..5, range(0, 10));
        lists.push(&primitive(Surface::Blended, 3), 5..6, range(60, 5));
        lists.push(&primitive(Surface::Masked, 7), 6..7, range(90, 1));
        let g = lists.gather();
        let runs: Vec<_> = g
            .runs
            .iter()
            .map(|r| (r.material, r.first, r.count))
            .collect();
        assert_eq!(runs, [(None, 0, 30), (Some(3), 30, 5), (Some(7), 35, 9)]);
        assert_eq!(g.triangles, 44);
        let objects: Vec<_> = g.items.iter().map(|i| (i.object, i.start)).collect();
        assert_eq!(
            objects,
            [(2, 0), (3, 10), (4, 20), (5, 30), (0, 35), (1, 39), (6, 43)]
        );
    }
}
