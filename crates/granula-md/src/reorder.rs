//! Bodies in cell order: the MD solver stores its bodies along a curve through their cells
//! (the raster order of the cells, or the Morton space-filling curve), so that the two
//! bodies of a candidate pair are close in memory and the pair pass reads its bodies'
//! columns from the caches ([`MdConfig::reorder_every`](crate::MdConfig::reorder_every),
//! [`MdConfig::reorder_curve`](crate::MdConfig::reorder_curve)).

use crate::config::CellOrder;
use crate::solver::MdSolver;
use granula_core::{BodySet, Broadphase, ContactLaw, Integrator, Permutation};

/// Bits of a cell coordinate per axis in a Morton key (3 × 21 = 63 bits).
const MORTON_BITS: u32 = 21;

/// Spreads the low 21 bits of `v` to every third bit (bit k goes to bit 3k).
#[inline]
fn spread_bits(v: u64) -> u64 {
    let mut x = v & 0x1f_ffff;
    x = (x | (x << 32)) & 0x001f_0000_0000_ffff;
    x = (x | (x << 16)) & 0x001f_0000_ff00_00ff;
    x = (x | (x << 8)) & 0x100f_00f0_0f00_f00f;
    x = (x | (x << 4)) & 0x10c3_0c30_c30c_30c3;
    x = (x | (x << 2)) & 0x1249_2492_4924_9249;
    x
}

/// The Morton key of the cell `(i, j, k)`: the bits of the three coordinates interleaved,
/// x lowest. Cells with close keys are close in space (the curve visits each octant of a
/// cube before the next).
#[inline]
pub(crate) fn morton_key(i: u64, j: u64, k: u64) -> u64 {
    spread_bits(i) | (spread_bits(j) << 1) | (spread_bits(k) << 2)
}

/// The order of `bodies` along `curve` through cubic cells one largest sphere diameter
/// wide over the spheres' bounding box (coarser if 2²¹ cells per axis do not cover it):
/// spheres by increasing key of their centre's cell (the Morton key, or the raster index
/// (z, y, x) of the cell), ties by their current dense index;
/// the other bodies (walls, meshes, polyhedra: few and large) after them, in their current
/// order. A function of positions, radii and the current order only, so the same on any
/// thread count.
pub(crate) fn cell_order(bodies: &BodySet, curve: CellOrder) -> Permutation {
    let spheres = || bodies.radius.iter().zip(&bodies.position).filter(|(r, _)| r.is_finite());
    let mut lo = granula_core::DVec3::splat(f64::INFINITY);
    let mut hi = -lo;
    let mut r_max: f64 = 0.0;
    for (r, x) in spheres() {
        lo = lo.min(*x);
        hi = hi.max(*x);
        r_max = r_max.max(*r);
    }
    let cells = ((1u64 << MORTON_BITS) - 1) as f64;
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
                match curve {
                    CellOrder::Raster => (z << (2 * MORTON_BITS)) | (y << MORTON_BITS) | x,
                    CellOrder::Morton => morton_key(x, y, z),
                }
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

    /// Puts the bodies in the order of `MdConfig::reorder_curve` when due ([`MdSolver::reorder_due`]), with every
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
        let permutation = cell_order(bodies, self.config().reorder_curve);
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

    /// The key interleaves the bits: x in bits 0, 3, 6…, y in 1, 4…, z in 2, 5….
    #[test]
    fn morton_keys_interleave_the_coordinates() {
        assert_eq!(morton_key(1, 0, 0), 0b001);
        assert_eq!(morton_key(0, 1, 0), 0b010);
        assert_eq!(morton_key(0, 0, 1), 0b100);
        assert_eq!(morton_key(3, 0, 0), 0b001_001);
        assert_eq!(morton_key(2, 3, 1), 0b011_110);
        let top = (1 << MORTON_BITS) - 1;
        assert_eq!(morton_key(top, top, top), (1u64 << 63) - 1);
        // The eight cells of a 2 × 2 × 2 block come before any cell outside it.
        let mut block: Vec<u64> = (0..8).map(|c| morton_key(c & 1, (c >> 1) & 1, c >> 2)).collect();
        block.sort_unstable();
        assert_eq!(block, (0..8).collect::<Vec<u64>>());
        assert!(morton_key(2, 0, 0) > 7);
    }

    /// Spheres on a line of cells in reverse order, a wall first: the spheres come out by
    /// cell along either curve (on one axis both keys grow with the cell), the wall last.
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
        for curve in [CellOrder::Raster, CellOrder::Morton] {
            assert_eq!(cell_order(&b, curve).sources(), [4, 3, 2, 1, 0]);
        }
    }
}
