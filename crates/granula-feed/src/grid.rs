//! A uniform hash grid of spheres for overlap queries during generation and validation.

use glam::DVec3;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// A sphere placed by a generator or a feed: centre and radius.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlacedSphere {
    /// Centre (m).
    pub center: DVec3,
    /// Radius (m).
    pub radius: f64,
}

/// Spheres binned in cubic cells; a query looks at the 27 cells around a point. The cell
/// size must be at least the largest diameter for queries to be complete.
#[derive(Clone, Debug)]
pub struct SphereGrid {
    cell: f64,
    bins: HashMap<(i64, i64, i64), Vec<u32>>,
    spheres: Vec<PlacedSphere>,
}

impl SphereGrid {
    /// An empty grid with cells of edge `cell` (m), which must be ≥ the largest diameter
    /// that will be inserted or queried.
    pub fn new(cell: f64) -> Self {
        SphereGrid { cell, bins: HashMap::new(), spheres: Vec::new() }
    }

    fn key(&self, p: DVec3) -> (i64, i64, i64) {
        let c = (p / self.cell).floor();
        (c.x as i64, c.y as i64, c.z as i64)
    }

    /// Adds a sphere; returns its index in insertion order.
    pub fn insert(&mut self, s: PlacedSphere) -> usize {
        let k = self.key(s.center);
        let i = self.spheres.len();
        self.bins.entry(k).or_default().push(i as u32);
        self.spheres.push(s);
        i
    }

    /// The inserted spheres, in insertion order.
    pub fn spheres(&self) -> &[PlacedSphere] {
        &self.spheres
    }

    /// The deepest overlap of sphere `s` with any inserted sphere, as `(index, depth)`, if
    /// some overlap exceeds `tolerance` (m). Ties go to the lowest index (deterministic).
    pub fn deepest_overlap(&self, s: &PlacedSphere, tolerance: f64) -> Option<(usize, f64)> {
        let (kx, ky, kz) = self.key(s.center);
        let mut best: Option<(usize, f64)> = None;
        for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -1..=1 {
                    let Some(bin) = self.bins.get(&(kx + dx, ky + dy, kz + dz)) else { continue };
                    for &j in bin {
                        let o = &self.spheres[j as usize];
                        let depth = s.radius + o.radius - (s.center - o.center).length();
                        if depth > tolerance {
                            let better = match best {
                                None => true,
                                Some((bj, bd)) => depth > bd || (depth == bd && (j as usize) < bj),
                            };
                            if better {
                                best = Some((j as usize, depth));
                            }
                        }
                    }
                }
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_overlaps_across_cells_and_ignores_touching() {
        let mut g = SphereGrid::new(2.0);
        g.insert(PlacedSphere { center: DVec3::new(0.99, 0.0, 0.0), radius: 1.0 });
        // Centre distance 1.5 < 2: overlap 0.5, across the cell boundary at x = 2... and 1.
        let q = PlacedSphere { center: DVec3::new(2.49, 0.0, 0.0), radius: 1.0 };
        let (i, d) = g.deepest_overlap(&q, 0.0).unwrap();
        assert_eq!(i, 0);
        // 2 - 1.5 with decimal inputs: a few ulps of 1.
        assert!((d - 0.5).abs() < 1e-12);
        // Exactly touching spheres do not overlap beyond a zero tolerance.
        let t = PlacedSphere { center: DVec3::new(2.99, 0.0, 0.0), radius: 1.0 };
        assert!(g.deepest_overlap(&t, 1e-12).is_none());
    }
}
