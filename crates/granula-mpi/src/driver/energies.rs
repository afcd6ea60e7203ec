//! The energies of the whole run, summed over the ranks, and the runaway-energy guard on
//! them.
//!
//! Each rank's world holds its owned bodies, ghost copies of its neighbours' bodies and
//! every wall. Its solver marks the ghosts foreign (`granula_md::MdSolver::set_foreign_bodies`),
//! so its reports book the energies of the pairs whose first dynamic body it owns, the
//! damping and load work of its owned bodies, and the work of the walls through its owned
//! bodies' contacts only: each rank's world ledger is its part of the run's ledger, and
//! the run's is the sum over the ranks. The kinetic and potential energies are summed over
//! the owned bodies in the same way. The parts are summed at rank 0 in rank order, so every
//! rank gets the same figures; a different rank count adds them in another grouping, which
//! changes their last bits (not the motion, which is the same on any rank count).

use super::{DistributedRun, SHARED};
use crate::communicator::Communicator;
use crate::error::DistributedError;
use crate::record::{decode, encode};
use granula_core::{BodyHandle, Dissipation, EnergyLedger, GuardAccounts, MotionKind};

/// The energies of the whole run at the end of the last step (J).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RunEnergies {
    /// Kinetic energy of every dynamic body, translation and rotation.
    pub kinetic: f64,
    /// Potential energy of gravity of every dynamic body, −m g·x.
    pub potential: f64,
    /// The run's ledger: dissipation and external work since the start, stored energy now.
    pub ledger: EnergyLedger,
    /// The dynamic body with the most kinetic energy of translation (global id) and that
    /// energy; `u32::MAX` without a dynamic body.
    pub fastest: (u32, f64),
}

impl RunEnergies {
    /// The energy balance kinetic + potential + stored + dissipated − external work, which
    /// stays constant up to the integrator's error (J).
    pub fn balance(&self) -> f64 {
        let l = &self.ledger;
        self.kinetic + self.potential + l.stored_elastic + l.dissipated.total() - l.external_work
    }

    /// The accounts of the runaway-energy guard.
    fn accounts(&self) -> GuardAccounts {
        let l = &self.ledger;
        GuardAccounts {
            kinetic: self.kinetic,
            potential: self.potential,
            stored: l.stored_elastic,
            dissipated: l.dissipated.total(),
            work: l.external_work,
            strikes: 0,
        }
    }

    /// As numbers, for a message.
    fn to_array(self) -> [f64; 12] {
        let d = self.ledger.dissipated;
        [
            self.kinetic,
            self.potential,
            d.normal,
            d.sliding,
            d.rolling,
            d.twisting,
            d.cohesion,
            d.body_damping,
            self.ledger.stored_elastic,
            self.ledger.external_work,
            self.fastest.1,
            f64::from(self.fastest.0),
        ]
    }

    fn from_array(a: [f64; 12]) -> Self {
        let dissipated = Dissipation {
            normal: a[2],
            sliding: a[3],
            rolling: a[4],
            twisting: a[5],
            cohesion: a[6],
            body_damping: a[7],
        };
        RunEnergies {
            kinetic: a[0],
            potential: a[1],
            ledger: EnergyLedger { dissipated, stored_elastic: a[8], external_work: a[9] },
            fastest: (a[11] as u32, a[10]),
        }
    }

    /// Adds another rank's part; the fastest body is the faster of the two (the earlier
    /// rank's on a tie).
    fn add(&mut self, o: &RunEnergies) {
        self.kinetic += o.kinetic;
        self.potential += o.potential;
        self.ledger.dissipated += o.ledger.dissipated;
        self.ledger.stored_elastic += o.ledger.stored_elastic;
        self.ledger.external_work += o.ledger.external_work;
        if o.fastest.1 > self.fastest.1 {
            self.fastest = o.fastest;
        }
    }
}

impl<C: Communicator> DistributedRun<C> {
    /// This rank's part of [`DistributedRun::energies`].
    fn energy_part(&self) -> RunEnergies {
        let me = self.comm.rank() as u32;
        let b = &self.world.bodies;
        let g = self.world.gravity;
        let mut part =
            RunEnergies { ledger: self.world.ledger, fastest: (u32::MAX, f64::NEG_INFINITY), ..RunEnergies::default() };
        for i in (0..b.len()).filter(|&i| self.owner[i] == me && b.motion[i] == MotionKind::Dynamic) {
            let translation = 0.5 * b.mass[i] * b.velocity[i].length_squared();
            part.kinetic += translation + b.rotational_energy(i);
            part.potential -= b.mass[i] * g.dot(b.position[i]);
            if translation > part.fastest.1 {
                part.fastest = (self.gid[i], translation);
            }
        }
        part
    }

    /// The energies of the whole run at the end of the last step, the same on every rank
    /// (collective: two messages, a gather and a broadcast). The ledger is exact to
    /// round-off: each pair, body and wall contact is booked by one rank (module
    /// documentation of `energies`).
    pub fn energies(&self) -> Result<RunEnergies, DistributedError> {
        let rank = self.comm.rank();
        let total = match self.comm.gather_to_root(encode(&self.energy_part().to_array())) {
            Some(parts) => {
                let mut total: Option<RunEnergies> = None;
                for (from, bytes) in parts.iter().enumerate() {
                    let part = RunEnergies::from_array(decode(bytes, rank, from)?);
                    match &mut total {
                        Some(t) => t.add(&part),
                        None => total = Some(part),
                    }
                }
                encode(&total.unwrap_or_default().to_array())
            }
            None => Vec::new(),
        };
        let bytes = self.comm.broadcast(total);
        Ok(RunEnergies::from_array(decode(&bytes, rank, 0)?))
    }

    /// The runaway-energy guard of the scene's world on the run's energies, at the steps
    /// where its interval check is due (collective on those steps): two intervals in a row
    /// whose energy balance grew by more than the guard's share of the energy in play stop
    /// the run with [`granula_core::CoreError::EnergyRunaway`], naming the fastest body by
    /// its global id. The one-step check of one process is not run: it needs the bodies'
    /// energies before every step. Off when the scene turns the guard off or its law does
    /// not book every energy.
    pub(super) fn check_energy_guard(&mut self) -> Result<(), DistributedError> {
        let Some(guard) = self.template.energy_guard else {
            return Ok(());
        };
        let step = self.world.step_count();
        if !guard.due(step) || !self.solver.distributed().is_some_and(|s| s.keeps_ledger()) {
            return Ok(());
        }
        let energies = self.energies()?;
        match guard.check_accounts(&mut self.guard_accounts, energies.accounts()) {
            None => Ok(()),
            Some(runaway) => {
                let (gid, kinetic) = energies.fastest;
                let source = format!("the MD solver's reports summed over {} ranks", self.comm.size());
                let error = runaway.into_error((BodyHandle(gid), kinetic), step, self.world.time(), source);
                Err(DistributedError::Core { rank: self.comm.rank(), source: error })
            }
        }
    }

    /// The foreign marks of this rank's world (its ghosts: dynamic bodies owned elsewhere),
    /// by dense index.
    pub(super) fn foreign_marks(&self) -> Vec<bool> {
        let me = self.comm.rank() as u32;
        self.owner.iter().map(|&o| o != me && o != SHARED).collect()
    }
}
