//! The roles of bodies in the pair search that a distributed run assigns: passive bodies
//! (no pair among themselves), foreign bodies (another process's), and the kinematic power
//! booked by this process.

use super::MdSolver;
use granula_core::{Broadphase, ContactLaw, Integrator};

impl<L: ContactLaw, I: Integrator, B: Broadphase> MdSolver<L, I, B> {
    /// Marks bodies passive, by dense index (`passive[i]`; bodies beyond the slice are not
    /// passive, an empty slice clears every mark): from the next rebuild of the candidate
    /// list on, a pair whose two bodies are each passive or non-dynamic is left out of the
    /// list, so that no force is computed for it. The forces such pairs would put on
    /// passive bodies are then missing: for bodies whose loads are overwritten after every
    /// step anyway, as the ghost copies of a distributed run are by their owners' loads.
    /// Every pair with an active dynamic body is computed as before, with the same
    /// operands. A change of the marks rebuilds the list at the next step (the skin
    /// layer compares its skip flags); the cost is paid at rebuilds, not per step.
    pub fn set_passive_bodies(&mut self, passive: &[bool]) {
        self.passive.clear();
        self.passive.extend_from_slice(passive);
    }

    /// The passive marks by dense index ([`MdSolver::set_passive_bodies`]).
    pub fn passive_bodies(&self) -> &[bool] {
        &self.passive
    }

    /// Marks the bodies another process owns, by dense index (`foreign[i]`; bodies beyond
    /// the slice are not foreign, an empty slice clears every mark), for a run split over
    /// processes whose step reports are summed: from the next step on, this solver books
    ///
    /// - the dissipated and stored energy of a pair only when the pair's first dynamic body
    ///   (body 1 if it is dynamic, else body 2; body 1 is the lower dense index) is not
    ///   foreign, so that a pair computed by two processes, each with its own copy of the
    ///   other's body, is booked by one of them;
    /// - the local damping's dissipation and the external loads' work of its own bodies only;
    /// - under [`LoadOrder::Partner`](crate::LoadOrder::Partner), the loads on a
    ///   non-dynamic body (a wall, a prescribed body) from its own bodies only, so that the
    ///   kinematic bodies' work and loads summed over the processes count each pair once.
    ///
    /// The motion is not affected: every force on every dynamic body is computed as before.
    /// The distributed runs of `granula-mpi` mark their ghost copies. A change of the marks
    /// rebuilds the candidate list at the next step.
    pub fn set_foreign_bodies(&mut self, foreign: &[bool]) {
        if self.foreign != foreign {
            self.foreign.clear();
            self.foreign.extend_from_slice(foreign);
            self.verlet.invalidate();
        }
    }

    /// The foreign marks by dense index ([`MdSolver::set_foreign_bodies`]).
    pub fn foreign_bodies(&self) -> &[bool] {
        &self.foreign
    }

    /// Power of the kinematic bodies through contacts at the end of the last step (W),
    /// P = −Σ_k (F_k·v_k + T_k·ω_k): the first end of the trapezoid by which the next step
    /// books their work. With foreign marks, this process's part of the run's power.
    pub fn kinematic_power(&self) -> f64 {
        self.kinematic_power
    }

    /// Sets [`MdSolver::kinematic_power`], for a run that splits the power over processes
    /// differently after a restart (the sum over the processes is what must carry on).
    pub fn set_kinematic_power(&mut self, power: f64) {
        self.kinematic_power = power;
    }
}
