//! Bodies in cell order: the MD solver stores its bodies in the raster order of their
//! cells, so that the two bodies of a candidate pair are close in memory and the pair pass
//! reads its bodies' columns from the caches
//! ([`MdConfig::reorder_every`](crate::MdConfig::reorder_every)).

use crate::solver::MdSolver;
use granula_core::{BodySet, Broadphase, ContactLaw, Integrator, Permutation};

/// Bits of a cell coordinate per axis in a raster key (3 × 21 = 63 bits).
const CELL_BITS: u32 = 21;

/// The order of `bodies` in raster order through cubic cells one largest sphere diameter
/// wide over the spheres' bounding box (coarser if 2²¹ cells per axis do not cover it):
/// spheres by increasing raster index (z, y, x) of their centre's cell, as a packing
/// written layer by layer, ties by their current dense index;
/// the other bodies (walls, meshes, polyhedra: few and large) after them, in their current
/// order. A function of positions, radii and the current order only, so the same on any
/// thread count.
pub(crate) fn cell_order(bodies: &BodySet) -> Permutation {
    let spheres = || bodies.radius.iter().zip(&bodies.position).filter(|(r, _)| r.is_finite());
    let mut lo = granula_core::DVec3::splat(f64::INFINITY);
    let mut hi = -lo;
    let mut r_max: f64 = 0.0;
    for (r, x) in spheres() {
        lo = lo.min(*x);
        hi = hi.max(*x);
        r_max = r_max.max(*r);
    }
    let cells = ((1u64 << CELL_BITS) - 1) as f64;
    let span = (hi - lo).max_element();
    let mut cell = 2.0 * r_max;
    if !(cell > 0.0) || span / cell > cells {
        cell = span / cells;
    }
    let inv_cell = if cell > 0.0 && cell.is_finite() { 1.0 / cell } else { 0.0 };
    let mut keyed: Vec<(u64, u32)> = (0..bodies.len())
        .map(|i| {
            let key = if bodies.radius[i].is_finite() {
                // Non-negative and at most `cells` by construction of `lo` and `cell`; the
                // float-to-int cast saturates anyway.
                let c = ((bodies.position[i] - lo) * inv_cell).floor();
                let (x, y, z) = (c.x as u64, c.y as u64, c.z as u64);
                (z << (2 * CELL_BITS)) | (y << CELL_BITS) | x
            } else {
                u64::MAX
            };
            (key, i as u32)
        })
        .collect();
    keyed.sort_unstable();
    // Every index once: the permutation is valid by construction.
    Permutation::from_sources(keyed.into_iter().map(|(_, i)| i).collect()).expect("a permutation of the bodies")
}

impl<L: ContactLaw, I: Integrator, B: Broadphase> MdSolver<L, I, B> {
    /// Reorders of the bodies done by this solver ([`MdConfig::reorder_every`](crate::MdConfig::reorder_every)).
    pub fn reorders(&self) -> u64 {
        self.reorders
    }

    /// At the start of a step: whether the policy of `MdConfig::reorder_every` asks for a
    /// reorder now (at the first step, then once `K` rebuilds of the list have followed the
    /// rebuild that came with the last reorder). Never with foreign bodies (a distributed
    /// run numbers its bodies by position in its exchange).
    fn reorder_due(&self, bodies: &BodySet) -> bool {
        let Some(k) = self.config().reorder_every else { return false };
        if bodies.len() < 2 || self.foreign.iter().any(|f| *f) {
            return false;
        }
        match self.last_reorder {
            None => true,
            Some(at) => self.verlet.rebuilds() >= at + 1 + u64::from(k),
        }
    }

    /// Puts the bodies in cell order when due ([`MdSolver::reorder_due`]), with every
    /// per-body column of the solver and the integrator's memory
    /// ([`Integrator::permute_bodies`]); the candidate list is rebuilt in this step (contact
    /// histories carried by key: handles and feature). A solver primed for the bodies stays
    /// primed (no fresh force evaluation), so every body keeps its state and the forces
    /// change only by the order in which they are summed.
    pub(crate) fn reorder_if_due(&mut self, bodies: &mut BodySet) {
        if !self.reorder_due(bodies) {
            return;
        }
        self.last_reorder = Some(self.verlet.rebuilds());
        let permutation = cell_order(bodies);
        if permutation.is_identity() {
            return;
        }
        let primed = self.primed_version == Some(bodies.structure_version()) && self.primed_handles == bodies.handle;
        // The lengths match: the permutation was made for these bodies.
        if bodies.permute(&permutation).is_err() {
            return;
        }
        self.integrator.permute_bodies(&permutation, bodies);
        for marks in [&mut self.passive, &mut self.foreign] {
            // Shorter mark columns leave the last bodies unmarked: complete them first.
            if !marks.is_empty() {
                marks.resize(bodies.len(), false);
                permutation.apply(marks);
            }
        }
        permutation.apply(&mut self.prev_orientation);
        permutation.apply(&mut self.rotation);
        permutation.apply(&mut self.reference_position);
        self.verlet.invalidate();
        self.reorders += 1;
        if primed {
            self.primed_version = Some(bodies.structure_version());
            self.primed_handles.clone_from(&bodies.handle);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spheres on a line of cells in reverse order, a wall first: the spheres come out by
    /// cell, the wall last.
    #[test]
    fn spheres_come_in_cell_order_and_walls_last() {
        use granula_core::{DVec3, Material, MaterialTable, PlaneBuilder, SphereBuilder};
        let mut materials = MaterialTable::new();
        materials.add(Material::default()).unwrap();
        let mut b = BodySet::default();
        b.insert(&PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().unwrap(), &materials, false).unwrap();
        for k in 0..4 {
            let x = DVec3::new(0.1 * (3 - k) as f64, 0.0, 0.0);
            b.insert(&SphereBuilder::new(0.01, x).build().unwrap(), &materials, false).unwrap();
        }
        assert_eq!(cell_order(&b).sources(), [4, 3, 2, 1, 0]);
    }
}
