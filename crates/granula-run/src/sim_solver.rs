//! The solver of a scene behind one object-safe trait, so the driver is written once for
//! both families. The per-contact work stays inside the concrete, generic solvers; the
//! solver a scene names is composed in [`crate::compose`].

use crate::adapters::{AnyBroadphase, AnyIntegrator};
use crate::distributed::{DistributedMd, HistoryBytes};
use granula_core::{
    ContactKey, ContactLaw, ContactRecord, CoreError, Integrator, IntegratorState, Solver, StepReport, World,
};
use granula_io::{IoError, Result};
use granula_md::{LoadOrder, MdSolver, MdState, TransferredHistory};
use granula_nscd::{NonSmoothLaw, NscdSolver, NscdState};
use serde::de::DeserializeOwned;
use serde::Serialize;

/// What the run driver needs of a solver.
pub trait SimSolver {
    /// A description, e.g. `md(hertz+hertz_viscous+cundall_strack, velocity_verlet, sweep_and_prune)`.
    fn describe(&self) -> String;
    /// One step through [`World::step`].
    fn step(&mut self, world: &mut World, dt: f64) -> Result<StepReport, CoreError>;
    /// Whether the next steps must publish what [`SimSolver::contacts`] reads (the driver
    /// turns it on before a step whose contacts are written):
    /// [`Solver::publish_contacts`](granula_core::Solver::publish_contacts).
    fn publish_contacts(&mut self, on: bool);
    /// The contacts the solver published for its last step
    /// ([`Solver::contacts`](granula_core::Solver::contacts)); `None` unless
    /// [`SimSolver::publish_contacts`] was on for that step.
    fn contacts(&self) -> Option<&[ContactRecord]>;
    /// The solver's own state (contact histories or warm-start impulses, integrator memory,
    /// random stream…) as bincode bytes, for a checkpoint taken after a step. Plain data
    /// always serialises; should it not, the error says which solver's state failed.
    fn save_state(&self) -> Result<Vec<u8>>;
    /// Restores [`SimSolver::save_state`]'s bytes into a fresh solver built from the same
    /// scene, for the world restored from the same checkpoint; the error says what is wrong.
    fn restore_state(&mut self, bytes: &[u8], world: &World) -> std::result::Result<(), String>;
    /// `true` when a fresh solver with [`SimSolver::restore_state`] continues a restored
    /// world bit-identically. Every built-in solver does (tested for each family).
    fn restarts_exactly(&self) -> bool {
        true
    }
    /// The MD solver's hooks for a distributed run ([`crate::DistributedMd`]); `None` for
    /// the other solvers.
    fn distributed(&mut self) -> Option<&mut dyn DistributedMd> {
        None
    }
}

/// The MD solver of a scene.
pub struct MdRun<L: ContactLaw> {
    /// The solver.
    pub solver: MdSolver<L, AnyIntegrator, AnyBroadphase>,
}

impl<L: ContactLaw> SimSolver for MdRun<L>
where
    L::History: Serialize + DeserializeOwned,
{
    fn describe(&self) -> String {
        let s = &self.solver;
        format!("md({}, {})", s.law.name(), granula_core::Integrator::name(&s.integrator))
    }

    fn step(&mut self, world: &mut World, dt: f64) -> Result<StepReport, CoreError> {
        world.step(&mut self.solver, dt)
    }

    fn publish_contacts(&mut self, on: bool) {
        Solver::publish_contacts(&mut self.solver, on);
    }

    fn contacts(&self) -> Option<&[ContactRecord]> {
        Solver::contacts(&self.solver)
    }

    /// Contact histories and stored energies by key, the integrator's memory and the
    /// kinematic power ([`MdState`](granula_md::MdState)).
    fn save_state(&self) -> Result<Vec<u8>> {
        bincode::serialize(&self.solver.save_state()).map_err(|e| state_error("MD", e))
    }

    fn restore_state(&mut self, bytes: &[u8], world: &World) -> std::result::Result<(), String> {
        let state: MdState<L::History> =
            bincode::deserialize(bytes).map_err(|e| format!("MD solver state unreadable: {e}"))?;
        self.solver.restore_state(&state, world).map_err(|e| format!("MD solver state rejected: {e}"))
    }

    fn distributed(&mut self) -> Option<&mut dyn DistributedMd> {
        Some(self)
    }
}

impl<L> SimSolver for NscdSolver<AnyBroadphase, L>
where
    L: NonSmoothLaw,
    L::State: Serialize + DeserializeOwned,
{
    fn describe(&self) -> String {
        let c = self.config();
        format!("nscd({}, theta = {}, {:?}, {:?})", self.law().name(), c.theta, c.criterion, c.sweep)
    }

    fn step(&mut self, world: &mut World, dt: f64) -> Result<StepReport, CoreError> {
        world.step(self, dt)
    }

    fn publish_contacts(&mut self, on: bool) {
        Solver::publish_contacts(self, on);
    }

    /// Mean forces over the step (impulses divided by Δt) at the detection configuration.
    fn contacts(&self) -> Option<&[ContactRecord]> {
        Solver::contacts(self)
    }

    /// Carried impulses and law states (e.g. the cohesive bonds) by key, and the random
    /// stream of the sweep ([`NscdState`](granula_nscd::NscdState)).
    fn save_state(&self) -> Result<Vec<u8>> {
        bincode::serialize(&NscdSolver::save_state(self)).map_err(|e| state_error("NSCD", e))
    }

    fn restore_state(&mut self, bytes: &[u8], world: &World) -> std::result::Result<(), String> {
        let state: NscdState<L::State> =
            bincode::deserialize(bytes).map_err(|e| format!("NSCD solver state unreadable: {e}"))?;
        NscdSolver::restore_state(self, &state, world).map_err(|e| format!("NSCD solver state rejected: {e}"))
    }
}

/// A solver state that bincode could not write (plain data always serialises; a failure
/// is reported, never replaced by empty bytes).
fn state_error(family: &str, e: bincode::Error) -> IoError {
    IoError::Solver(format!("the {family} solver state could not be serialised for a checkpoint: {e}"))
}

/// A history whose bytes do not decode or encode.
fn unreadable(key: ContactKey, e: bincode::Error) -> CoreError {
    CoreError::InvalidWorld {
        field: "transferred contact history",
        value: format!("{key:?}: {e}"),
        expected: "bincode of the law's history",
    }
}

impl<L: ContactLaw> DistributedMd for MdRun<L>
where
    L::History: Serialize + DeserializeOwned,
{
    fn export_histories(&self) -> Result<Vec<HistoryBytes>, CoreError> {
        self.solver
            .export_histories()
            .into_iter()
            .map(|h| {
                let history = bincode::serialize(&h.history).map_err(|e| unreadable(h.key, e))?;
                Ok(HistoryBytes { key: h.key, history, stored: h.stored })
            })
            .collect()
    }

    fn adopt(&mut self, world: &World, histories: &[HistoryBytes]) -> Result<(), CoreError> {
        let decoded = histories
            .iter()
            .map(|h| {
                let history = bincode::deserialize(&h.history).map_err(|e| unreadable(h.key, e))?;
                Ok(TransferredHistory { key: h.key, history, stored: h.stored })
            })
            .collect::<Result<Vec<_>, CoreError>>()?;
        self.solver.adopt_body_set(world, decoded).map_err(|e| CoreError::InvalidWorld {
            field: "MD solver re-seated on a rebuilt world",
            value: e.to_string(),
            expected: "consistent histories",
        })
    }

    fn integrator_state(&self) -> IntegratorState {
        self.solver.integrator.save_state()
    }

    fn restore_integrator(&mut self, state: &IntegratorState, world: &World) -> Result<(), CoreError> {
        self.solver.integrator.restore_state(state, &world.bodies)
    }

    /// One body's entry for velocity Verlet; Gear's memory goes through the whole state.
    fn body_memory(&self, world: &World, i: usize, out: &mut Vec<f64>) -> bool {
        match &self.solver.integrator {
            AnyIntegrator::Verlet(v) => v.body_memory(&world.bodies, i).map(|m| out.extend_from_slice(&m)).is_some(),
            AnyIntegrator::Gear(_) => false,
        }
    }

    fn set_body_memory(&mut self, world: &World, i: usize, values: &[f64]) -> bool {
        match &mut self.solver.integrator {
            AnyIntegrator::Verlet(v) => v.set_body_memory(&world.bodies, i, values),
            AnyIntegrator::Gear(_) => false,
        }
    }

    fn reach(&self, world: &World) -> (f64, f64) {
        let m = &world.materials;
        let id = |k: usize| granula_core::MaterialId(k as u16);
        let mut range: f64 = 0.0;
        for a in 0..m.len() {
            for b in 0..m.len() {
                range = range.max(self.solver.law.range(m.pair(id(a), id(b))));
            }
        }
        (range, self.solver.config().skin)
    }

    fn set_passive(&mut self, passive: &[bool]) {
        self.solver.set_passive_bodies(passive);
    }

    fn set_partner_order(&mut self, on: bool) {
        self.solver.set_load_order(if on { LoadOrder::Partner } else { LoadOrder::Blocks });
    }

    fn set_foreign(&mut self, foreign: &[bool]) {
        self.solver.set_foreign_bodies(foreign);
    }

    fn kinematic_power(&self) -> f64 {
        self.solver.kinematic_power()
    }

    fn set_kinematic_power(&mut self, power: f64) {
        self.solver.set_kinematic_power(power);
    }

    fn keeps_ledger(&self) -> bool {
        self.solver.law.keeps_ledger()
    }
}
