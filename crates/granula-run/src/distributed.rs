//! What a distributed run (crate `granula-mpi`) needs of the MD solver a scene composes,
//! behind an object-safe trait: contact histories as bytes (they travel between processes
//! with their bodies), the integrator's memory, and the solver re-seated on a rebuilt world.

use granula_core::{ContactKey, CoreError, IntegratorState, World};
use serde::Serialize;

/// One contact history with its key (bodies by handle) and stored elastic energy (J), the
/// law's history as bincode bytes.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct HistoryBytes {
    /// The pair (bodies by handle, body 1 of smaller handle) and the feature.
    pub key: ContactKey,
    /// The law's history, bincode.
    pub history: Vec<u8>,
    /// Elastic energy stored at the last step (J).
    pub stored: f64,
}

/// The MD solver of a scene as a distributed run drives it.
pub trait DistributedMd {
    /// Every contact history ([`granula_md::MdSolver::export_histories`]).
    fn export_histories(&self) -> Result<Vec<HistoryBytes>, CoreError>;
    /// Re-seats the solver on a rebuilt `world` with the histories of its pairs
    /// ([`granula_md::MdSolver::adopt_body_set`]).
    fn adopt(&mut self, world: &World, histories: &[HistoryBytes]) -> Result<(), CoreError>;
    /// The integrator's memory ([`Integrator::save_state`](granula_core::Integrator::save_state)).
    fn integrator_state(&self) -> IntegratorState;
    /// Restores the integrator's memory ([`Integrator::restore_state`](granula_core::Integrator::restore_state)) for `world`'s bodies.
    fn restore_integrator(&mut self, state: &IntegratorState, world: &World) -> Result<(), CoreError>;
    /// Appends the integrator's memory of `world`'s body `i` (dense index; the world the
    /// solver stepped last) to `out`, laid out as one body's entry of
    /// [`DistributedMd::integrator_state`]; `false`, with nothing appended, when the
    /// integrator cannot give one body's entry (then take the whole state).
    fn body_memory(&self, world: &World, i: usize, out: &mut Vec<f64>) -> bool;
    /// Overwrites the integrator's memory of `world`'s body `i` with `values` (the layout
    /// of [`DistributedMd::body_memory`]); `false`, with nothing written, when it cannot
    /// (then restore the whole state).
    fn set_body_memory(&mut self, world: &World, i: usize, values: &[f64]) -> bool;
    /// The largest range of the law over `world`'s material pairs and the Verlet skin (m).
    fn reach(&self, world: &World) -> (f64, f64);
    /// Marks bodies passive by dense index: pairs of two bodies each passive or non-dynamic
    /// are left out of the candidate list ([`granula_md::MdSolver::set_passive_bodies`]).
    fn set_passive(&mut self, passive: &[bool]);
    /// Marks the bodies another process owns, by dense index: their pairs' energies, damping
    /// and load work are booked by their owners, and walls gather loads from this
    /// process's bodies only ([`granula_md::MdSolver::set_foreign_bodies`]).
    fn set_foreign(&mut self, foreign: &[bool]);
    /// This process's part of the kinematic bodies' power at the end of the last step (W,
    /// [`granula_md::MdSolver::kinematic_power`]).
    fn kinematic_power(&self) -> f64;
    /// Sets it ([`granula_md::MdSolver::set_kinematic_power`]).
    fn set_kinematic_power(&mut self, power: f64);
    /// Whether the law books every energy it exchanges, so that the ledger closes
    /// ([`ContactLaw::keeps_ledger`](granula_core::ContactLaw::keeps_ledger)).
    fn keeps_ledger(&self) -> bool;
    /// Sums each body's pair loads in partner order (`true`,
    /// [`granula_md::LoadOrder::Partner`]: the same bits whatever subset of the pairs a
    /// process holds) or by blocks of the candidate list (`false`, the one-process default).
    fn set_partner_order(&mut self, on: bool);
}
