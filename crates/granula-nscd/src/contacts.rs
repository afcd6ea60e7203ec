//! The contact list of one step in flat arrays: a compact "hot" record per contact holding
//! exactly what a Gauss-Seidel update reads and writes, and a parallel "cold" record with
//! what the set-up and the report need.
//!
//! The hot records are an array of small structs rather than one array per field: a
//! random sweep visits contacts in random order and touches every field of the visited
//! contact, so one contiguous record costs a few cache lines where separate columns would
//! cost one line per field.

use granula_core::{ContactKey, DMat3, DVec3};
use nalgebra::Matrix6;

/// What one contact update reads and writes. Aligned to a cache line so that a record
/// of the Signorini-Coulomb law spans exactly three lines.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub struct HotContact<P> {
    /// Dense index of body 1.
    pub body1: u32,
    /// Dense index of body 2.
    pub body2: u32,
    /// Unit normal n, from body 1 to body 2.
    pub n: DVec3,
    /// First tangent t; the second is s = n × t.
    pub t: DVec3,
    /// Branch vector l₁.
    pub l1: DVec3,
    /// Branch vector l₂.
    pub l2: DVec3,
    /// Diagonal of W_αα (000 eq. 19).
    pub w_diag: DVec3,
    /// Current impulse (n, t, s components, N s).
    pub p: DVec3,
    /// Index into the full-block list when W_αα is not diagonal, else `u32::MAX`.
    pub coupled: u32,
    /// The law's constants.
    pub params: P,
}

impl<P> HotContact<P> {
    /// The second tangent s = n × t.
    #[inline(always)]
    pub fn s(&self) -> DVec3 {
        self.n.cross(self.t)
    }

    /// World vector of local components `p`.
    #[inline(always)]
    pub fn to_world(&self, p: DVec3) -> DVec3 {
        self.n * p.x + self.t * p.y + self.s() * p.z
    }

    /// Local components of world vector `v`.
    #[inline(always)]
    pub fn to_local(&self, v: DVec3) -> DVec3 {
        DVec3::new(v.dot(self.n), v.dot(self.t), v.dot(self.s()))
    }
}

/// The angular part of a contact for laws with rolling and torsion friction.
#[derive(Clone, Copy, Debug)]
pub struct Couple {
    /// Couple impulse (n, t, s components, N m s) acting on body 2; body 1 gets the opposite.
    pub q: DVec3,
    /// The 6×6 Delassus block W6 of force and couple, local frame (n, t, s) twice.
    pub w6: Matrix6<f64>,
    /// Relative angular velocity with no contact impulse, local frame.
    pub omega_free: DVec3,
}

/// What the set-up and the report need besides the hot record.
#[derive(Clone, Copy, Debug)]
pub struct ColdContact {
    /// The persistent key.
    pub key: ContactKey,
    /// Index in the contact store (warm start and law state).
    pub store_index: u32,
    /// Gap at the intermediate configuration (m).
    pub gap: f64,
    /// Contact point at the intermediate configuration (m).
    pub point: DVec3,
    /// Local relative velocity with no contact impulse at all, H* v_free.
    pub u_free: DVec3,
    /// Smaller radius of the pair (for the overlap ratio).
    pub min_radius: f64,
}

/// All contacts of a step. Buffers are reused from step to step.
#[derive(Clone, Debug)]
pub struct ContactList<P> {
    /// Hot records in sweep-list order.
    pub hot: Vec<HotContact<P>>,
    /// Cold records, aligned with `hot`.
    pub cold: Vec<ColdContact>,
    /// Full W_αα blocks of the coupled contacts.
    pub coupled: Vec<DMat3>,
    /// Angular parts, aligned with `hot` (empty unless the law has couples).
    pub couples: Vec<Couple>,
    hot_tmp: Vec<HotContact<P>>,
    cold_tmp: Vec<ColdContact>,
    couple_tmp: Vec<Couple>,
}

impl<P> Default for ContactList<P> {
    fn default() -> Self {
        ContactList {
            hot: Vec::new(),
            cold: Vec::new(),
            coupled: Vec::new(),
            couples: Vec::new(),
            hot_tmp: Vec::new(),
            cold_tmp: Vec::new(),
            couple_tmp: Vec::new(),
        }
    }
}

impl<P: Copy> ContactList<P> {
    /// Reorders hot and cold records so that position k holds the record
    /// `sorted[k].1` (allocation-free once warm).
    pub fn permute(&mut self, sorted: &[(u64, u32)]) {
        self.hot_tmp.clear();
        self.cold_tmp.clear();
        self.couple_tmp.clear();
        for &(_, k) in sorted {
            self.hot_tmp.push(self.hot[k as usize]);
            self.cold_tmp.push(self.cold[k as usize]);
            if !self.couples.is_empty() {
                self.couple_tmp.push(self.couples[k as usize]);
            }
        }
        std::mem::swap(&mut self.hot, &mut self.hot_tmp);
        std::mem::swap(&mut self.cold, &mut self.cold_tmp);
        if !self.couples.is_empty() {
            std::mem::swap(&mut self.couples, &mut self.couple_tmp);
        }
    }
}

impl<P> ContactList<P> {
    /// Empties the list, keeping capacity.
    pub fn clear(&mut self) {
        self.hot.clear();
        self.cold.clear();
        self.coupled.clear();
        self.couples.clear();
    }

    /// Number of contacts.
    pub fn len(&self) -> usize {
        self.hot.len()
    }
}

/// Interleaves the low 21 bits of three integers (Morton / Z-order key).
pub fn morton3(x: u64, y: u64, z: u64) -> u64 {
    fn spread(mut v: u64) -> u64 {
        v &= 0x1f_ffff;
        v = (v | v << 32) & 0x1f00000000ffff;
        v = (v | v << 16) & 0x1f0000ff0000ff;
        v = (v | v << 8) & 0x100f00f00f00f00f;
        v = (v | v << 4) & 0x10c30c30c30c30c3;
        v = (v | v << 2) & 0x1249249249249249;
        v
    }
    spread(x) | spread(y) << 1 | spread(z) << 2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn morton_interleaves_bits() {
        assert_eq!(morton3(1, 0, 0), 1);
        assert_eq!(morton3(0, 1, 0), 2);
        assert_eq!(morton3(0, 0, 1), 4);
        assert_eq!(morton3(3, 0, 0), 0b1001);
    }
}
