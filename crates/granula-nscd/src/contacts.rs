//! The contact list of one step in flat arrays: a compact "hot" record per contact holding
//! exactly what a Gauss-Seidel update reads and writes, and a parallel "cold" record with
//! what the set-up and the report need.
//!
//! The hot records are an array of small structs rather than one array per field: a
//! random sweep visits contacts in random order and touches every field of the visited
//! contact, so one contiguous record costs a few cache lines where separate columns would
//! cost one line per field.

use crate::local::ImpactProcess;
use granula_core::{ContactKey, DMat3, DVec3};
use nalgebra::Matrix6;

/// The entry of [`ContactList::process_of`] of a contact without an impact process.
pub const NO_PROCESS: u32 = u32::MAX;

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
    /// The impact processes of the step (`NonSmoothLaw::impact`), one per contact that has
    /// one: Poisson's or Stronge's law on a contact of the impact set (004 §2.2.2.2).
    pub processes: Vec<ImpactProcess>,
    /// Per contact, aligned with `hot`, the index of its process in `processes` or
    /// [`NO_PROCESS`]; empty when the step has no process, so that the sweeps of such a
    /// step read the hot records only.
    pub process_of: Vec<u32>,
    hot_tmp: Vec<HotContact<P>>,
    cold_tmp: Vec<ColdContact>,
    couple_tmp: Vec<Couple>,
    process_tmp: Vec<u32>,
}

impl<P> Default for ContactList<P> {
    fn default() -> Self {
        ContactList {
            hot: Vec::new(),
            cold: Vec::new(),
            coupled: Vec::new(),
            couples: Vec::new(),
            processes: Vec::new(),
            process_of: Vec::new(),
            hot_tmp: Vec::new(),
            cold_tmp: Vec::new(),
            couple_tmp: Vec::new(),
            process_tmp: Vec::new(),
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
        self.process_tmp.clear();
        for &(_, k) in sorted {
            self.hot_tmp.push(self.hot[k as usize]);
            self.cold_tmp.push(self.cold[k as usize]);
            if !self.couples.is_empty() {
                self.couple_tmp.push(self.couples[k as usize]);
            }
            if !self.process_of.is_empty() {
                self.process_tmp.push(self.process_of[k as usize]);
            }
        }
        std::mem::swap(&mut self.hot, &mut self.hot_tmp);
        std::mem::swap(&mut self.cold, &mut self.cold_tmp);
        if !self.couples.is_empty() {
            std::mem::swap(&mut self.couples, &mut self.couple_tmp);
        }
        if !self.process_of.is_empty() {
            std::mem::swap(&mut self.process_of, &mut self.process_tmp);
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
        self.processes.clear();
        self.process_of.clear();
    }

    /// Number of contacts.
    pub fn len(&self) -> usize {
        self.hot.len()
    }

    /// Records the impact process of the contact about to be pushed at position
    /// `self.len()` (call before pushing its hot record). `process_of` stays empty until
    /// the first contact with a process, then is filled for every contact. Inlined: called
    /// once per contact and step, with `None` on the common path.
    #[inline]
    pub fn push_process(&mut self, process: Option<ImpactProcess>) {
        match process {
            Some(process) => {
                self.process_of.resize(self.hot.len(), NO_PROCESS);
                self.process_of.push(self.processes.len() as u32);
                self.processes.push(process);
            }
            None if !self.process_of.is_empty() => self.process_of.push(NO_PROCESS),
            None => {}
        }
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

    use crate::local::{ImpactLaw, ShockParams};
    use granula_core::BodyHandle;

    /// The sweeps read one record per contact: the Signorini-Coulomb law's must stay within
    /// three cache lines (the impact processes live in the side table).
    #[test]
    fn a_signorini_coulomb_record_spans_three_cache_lines() {
        assert_eq!(std::mem::size_of::<HotContact<ShockParams>>(), 3 * 64);
    }

    fn push(list: &mut ContactList<ShockParams>, body1: u32, process: Option<ImpactProcess>) {
        list.push_process(process);
        let v = DVec3::ZERO;
        list.hot.push(HotContact {
            body1,
            body2: 0,
            n: v,
            t: v,
            l1: v,
            l2: v,
            w_diag: v,
            p: v,
            coupled: u32::MAX,
            params: ShockParams::default(),
        });
        let key = ContactKey { body1: BodyHandle(body1), body2: BodyHandle(0), feature: 0 };
        list.cold.push(ColdContact { key, store_index: 0, gap: 0.0, point: v, u_free: v, min_radius: 1.0 });
    }

    #[test]
    fn the_process_table_is_empty_without_processes_and_follows_the_records_with_one() {
        let process = |e| Some(ImpactProcess { law: ImpactLaw::Poisson, e, smooth_shift: 0.0, joint: None });
        let mut list = ContactList::default();
        push(&mut list, 0, None);
        push(&mut list, 1, None);
        assert!(list.process_of.is_empty() && list.processes.is_empty());
        push(&mut list, 2, process(0.5));
        push(&mut list, 3, None);
        push(&mut list, 4, process(0.25));
        assert_eq!(list.process_of, [NO_PROCESS, NO_PROCESS, 0, NO_PROCESS, 1]);
        list.permute(&[(0, 4), (0, 0), (0, 2), (0, 3), (0, 1)]);
        let bodies: Vec<u32> = list.hot.iter().map(|c| c.body1).collect();
        assert_eq!(bodies, [4, 0, 2, 3, 1]);
        assert_eq!(list.process_of, [1, NO_PROCESS, 0, NO_PROCESS, NO_PROCESS]);
        assert_eq!(list.processes[1].e, 0.25);
        list.clear();
        push(&mut list, 0, None);
        assert!(list.process_of.is_empty() && list.processes.is_empty());
    }

    #[test]
    fn morton_interleaves_bits() {
        assert_eq!(morton3(1, 0, 0), 1);
        assert_eq!(morton3(0, 1, 0), 2);
        assert_eq!(morton3(0, 0, 1), 4);
        assert_eq!(morton3(3, 0, 0), 0b1001);
    }
}
