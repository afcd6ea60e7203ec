//! The outputs that read contacts (the contact count, the stored elastic energy and the
//! coordination of `series.csv`, the stress files, `contacts.vtp` and the contact lists),
//! made global: each rank keeps the contacts of the pairs it owns, and rank 0 gathers them
//! in global ids.
//!
//! **Which rank counts a contact.** A pair is owned by the owner of its first dynamic body
//! (body 1 when it is dynamic, else body 2; body 1 has the smaller global id): the rule the
//! contact histories already travel by. That rank holds both bodies (its ghost layer covers
//! every partner of its owned bodies) and computes the pair from the same operands as one
//! process, so every contact is counted exactly once, with one process's values. The
//! contacts are captured right after the step, before a redistribution renumbers the
//! rank's bodies.
//!
//! **Order.** Rank 0 sorts the gathered contacts by key (body 1, body 2, feature in global
//! ids) and sums the stored energies in that order: the figures do not depend on the rank
//! count. One process sums in its candidate-list order, so they may differ from its figures
//! in the last bits.

use super::{DistributedRun, SHARED};
use crate::communicator::Communicator;
use crate::error::DistributedError;
use crate::record::{decode, encode};
use granula_core::{BodyHandle, ContactKey, ContactRecord, ContactStatus, ContactStatusCounts, DVec3, StepReport};
use serde::{Deserialize, Serialize};

/// A published contact in global ids, as it travels to rank 0.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct ContactWire {
    body1: u32,
    body2: u32,
    feature: u32,
    point: DVec3,
    normal: DVec3,
    tangent: DVec3,
    gap: f64,
    branch1: DVec3,
    branch2: DVec3,
    relative_velocity: DVec3,
    force: DVec3,
    couple: DVec3,
    status: ContactStatus,
}

impl ContactWire {
    /// The record in global ids: its dense indices are the global ids, as in a world built
    /// from the scene.
    fn record(&self) -> ContactRecord {
        ContactRecord {
            key: ContactKey { body1: BodyHandle(self.body1), body2: BodyHandle(self.body2), feature: self.feature },
            body1: self.body1,
            body2: self.body2,
            point: self.point,
            normal: self.normal,
            tangent: self.tangent,
            gap: self.gap,
            branch1: self.branch1,
            branch2: self.branch2,
            relative_velocity: self.relative_velocity,
            force: self.force,
            couple: self.couple,
            status: self.status,
        }
    }
}

/// What one rank captured of a step whose contacts are written: the contacts of the pairs
/// it owns, their stored elastic energies by key, and the largest overlap it saw.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(super) struct ContactCapture {
    /// The solver publishes its contacts for the coming steps.
    publishing: bool,
    /// The step the capture belongs to (`None`: nothing captured).
    step: Option<u64>,
    contacts: Vec<ContactWire>,
    /// (body 1, body 2, feature, stored elastic energy in J) of the owned pairs.
    stored: Vec<(u32, u32, u32, f64)>,
    max_overlap: f64,
}

/// The contacts of every rank at rank 0 after a step, see [`DistributedRun::gather_contacts`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GatheredContacts {
    /// The step they belong to.
    pub step: u64,
    /// Every contact the solvers published for the step, once, sorted by key; body indices
    /// and handles are global ids (the dense indices of a world built from the scene).
    pub contacts: Vec<ContactRecord>,
    /// The step report of the whole run: the contact count and status counts of
    /// `contacts`, the largest overlap over the ranks; the other fields are rank 0's.
    pub report: StepReport,
    /// Elastic energy stored in all contacts (J), summed in key order.
    pub stored_elastic: f64,
}

impl<C: Communicator> DistributedRun<C> {
    /// Whether the solvers publish their contacts for the coming steps (turn it on before a
    /// step whose contacts are written, as `granula_run::Run` does; it costs one record per
    /// contact and a copy of the owned ones after each step).
    pub fn publish_contacts(&mut self, on: bool) {
        self.contact_outputs.publishing = on;
        self.solver.publish_contacts(on);
    }

    /// Keeps the contacts this rank owns from the step just taken, in global ids, while the
    /// local numbering is still the step's (called by [`DistributedRun::step`] before any
    /// redistribution).
    pub(super) fn capture_contacts(&mut self) -> Result<(), DistributedError> {
        if !self.contact_outputs.publishing {
            return Ok(());
        }
        let rank = self.comm.rank();
        let me = rank as u32;
        // The pair's owner: the owner of its first dynamic body.
        let owned = |owner: &[u32], i: usize, j: usize| {
            let first = if owner[i] != SHARED { i } else { j };
            owner[first] == me
        };
        let histories =
            self.distributed().export_histories().map_err(|source| DistributedError::Core { rank, source })?;
        let b = &self.world.bodies;
        let (gid, owner) = (&self.gid, &self.owner);
        let capture = &mut self.contact_outputs;
        capture.contacts.clear();
        capture.stored.clear();
        for c in self.solver.contacts().unwrap_or(&[]) {
            let (i, j) = (c.body1 as usize, c.body2 as usize);
            if i >= gid.len() || j >= gid.len() || !owned(owner, i, j) {
                continue;
            }
            capture.contacts.push(ContactWire {
                body1: gid[i],
                body2: gid[j],
                feature: c.key.feature,
                point: c.point,
                normal: c.normal,
                tangent: c.tangent,
                gap: c.gap,
                branch1: c.branch1,
                branch2: c.branch2,
                relative_velocity: c.relative_velocity,
                force: c.force,
                couple: c.couple,
                status: c.status,
            });
        }
        for h in histories {
            let (Ok(i), Ok(j)) = (b.index(h.key.body1), b.index(h.key.body2)) else {
                continue;
            };
            if h.stored != 0.0 && owned(owner, i, j) {
                capture.stored.push((gid[i], gid[j], h.key.feature, h.stored));
            }
        }
        capture.max_overlap = self.last_report.max_overlap;
        capture.step = Some(self.world.step_count());
        Ok(())
    }

    /// The contacts of the last step of every rank at rank 0, `None` on the other ranks
    /// (collective). Empty (a report of no contact) when the step was taken without
    /// [`DistributedRun::publish_contacts`], as one process's list is; a rank whose capture
    /// belongs to another step is an error naming it.
    pub fn gather_contacts(&mut self) -> Result<Option<GatheredContacts>, DistributedError> {
        let rank = self.comm.rank();
        let step = self.world.step_count();
        let publishing = self.contact_outputs.publishing;
        let part = if self.contact_outputs.step == Some(step) {
            std::mem::take(&mut self.contact_outputs)
        } else {
            ContactCapture::default()
        };
        self.contact_outputs.publishing = publishing;
        let Some(parts) = self.comm.gather_to_root(encode(&part)) else {
            return Ok(None);
        };
        let mut contacts = Vec::new();
        let mut stored = Vec::new();
        let mut max_overlap: f64 = 0.0;
        for (from, bytes) in parts.iter().enumerate() {
            let p: ContactCapture = decode(bytes, rank, from)?;
            if p.step.is_some_and(|s| s != step) {
                return Err(DistributedError::Message {
                    rank,
                    from,
                    reason: format!("contacts of step {:?}, expected step {step}", p.step),
                });
            }
            contacts.extend(p.contacts);
            stored.extend(p.stored);
            max_overlap = max_overlap.max(p.max_overlap);
        }
        contacts.sort_by_key(|c| (c.body1, c.body2, c.feature));
        stored.sort_by_key(|s| (s.0, s.1, s.2));
        let stored_elastic = stored.iter().fold(0.0, |sum, s| sum + s.3);
        let mut status = ContactStatusCounts::default();
        for c in &contacts {
            status.count(c.status);
        }
        let report = StepReport {
            contacts: contacts.len(),
            status,
            max_overlap,
            iterations: self.last_report.iterations,
            residual: self.last_report.residual,
            ..StepReport::default()
        };
        let contacts = contacts.iter().map(ContactWire::record).collect();
        Ok(Some(GatheredContacts { step, contacts, report, stored_elastic }))
    }
}
