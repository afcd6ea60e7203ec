//! The checks of [`World::step`] after the solver's step: a finite state, the travel and
//! overlap limits, finite energies, and the runaway-energy guard.

use super::World;
use crate::body_sums::{self, BodySums};
use crate::energy_guard::{self, EnergyGuard, GuardState, StepEnergies};
use crate::error::{CoreError, Result};
use crate::handle::BodyHandle;
use crate::shape::Shape;
use crate::solver::StepReport;

impl World {
    /// Before an insertion: a shape that exists only in the plane
    /// ([`CustomShape::planar_only`](crate::CustomShape::planar_only)) needs a planar world.
    pub(super) fn check_planar_only(&self, shape: &Shape) -> Result<()> {
        match shape {
            Shape::Custom(c) if c.planar_only() && !self.planar => Err(CoreError::invalid_body(
                crate::error::BodyRef::New,
                "shape",
                c.name(),
                "a planar world (`World::builder().planar(true)`): this shape is a flat outline of unit thickness",
            )),
            _ => Ok(()),
        }
    }

    /// After a step: every state is finite, no body travelled farther than the travel limit
    /// (unless the solver's detection covers the step's motion, `detects_along_the_step`)
    /// and no pair overlaps beyond the overlap limit.
    pub(super) fn check_state(
        &self,
        after: &BodySums,
        dt: f64,
        report: &StepReport,
        detects_along_the_step: bool,
    ) -> Result<()> {
        if !after.state().is_finite() {
            self.bodies.check_finite(self.step, self.time)?;
        }
        let (fastest, travel2) = after.travel(dt);
        if travel2 > self.max_travel_ratio * self.max_travel_ratio && !detects_along_the_step {
            let radius = self.bodies.radius[fastest];
            return Err(CoreError::ExcessiveTravel {
                body: self.bodies.handle[fastest],
                distance: travel2.sqrt() * radius,
                radius,
                limit: self.max_travel_ratio,
                step: self.step,
                time: self.time,
            });
        }
        if report.max_overlap_ratio > self.max_overlap_ratio {
            let (body1, body2) = report.max_overlap_pair.unwrap_or((BodyHandle(u32::MAX), BodyHandle(u32::MAX)));
            return Err(CoreError::ExcessiveOverlap {
                body1,
                body2,
                overlap: report.max_overlap,
                ratio: report.max_overlap_ratio,
                limit: self.max_overlap_ratio,
                step: self.step,
                time: self.time,
            });
        }
        Ok(())
    }

    /// The runaway-energy guard after a step whose ledger is booked: the one-step check
    /// when `step` holds its energies, then the interval check when one is due. `source`
    /// names what books the energies (called only for an error).
    pub(super) fn run_energy_guard(
        &mut self,
        guard: &EnergyGuard,
        step: Option<&StepEnergies>,
        source: &dyn Fn() -> String,
    ) -> Result<()> {
        let mut runaway = step.and_then(energy_guard::check_step);
        if runaway.is_none() && guard.due(self.step) {
            let now = GuardState::new(
                self.kinetic_energy(),
                self.potential_energy(),
                self.ledger.stored_elastic,
                self.ledger.dissipated.total(),
                self.ledger.external_work,
                self.bodies.structure_version(),
            );
            runaway = energy_guard::check(guard, &mut self.guard_state, now);
        }
        match runaway {
            Some(r) => Err(r.into_error(body_sums::most_kinetic(&self.bodies), self.step, self.time, source())),
            None => Ok(()),
        }
    }

    /// The energies of the report and of the bodies after a step are finite; the error
    /// names the account and, for a body energy, the body with the largest share.
    pub(super) fn check_energies(&self, after: &BodySums, report: &StepReport) -> Result<()> {
        let reported = [
            ("stored energy", report.stored_elastic),
            ("dissipated energy", report.dissipated.total()),
            ("external work", report.external_work),
        ];
        if let Some((account, value)) = reported.into_iter().find(|(_, v)| !v.is_finite()) {
            return Err(self.non_finite(account, value, None));
        }
        let bodies = [("kinetic energy", after.kinetic() + after.rotation()), ("potential energy", after.potential())];
        if let Some((account, value)) = bodies.into_iter().find(|(_, v)| !v.is_finite()) {
            let b = &self.bodies;
            let g = self.gravity;
            let share = |i: usize| {
                if account == "kinetic energy" {
                    b.mass[i] * (b.velocity[i].length_squared() + b.angular_velocity[i].length_squared())
                } else {
                    (b.mass[i] * g.dot(b.position[i])).abs()
                }
            };
            let body = (0..b.len())
                .filter(|&i| b.inv_mass[i] != 0.0)
                .map(|i| (i, share(i)))
                .fold(None, |best: Option<(usize, f64)>, (i, e)| match best {
                    Some((_, m)) if !(e > m) => best,
                    _ => Some((i, e)),
                })
                .map(|(i, _)| b.handle[i]);
            return Err(self.non_finite(account, value, body));
        }
        Ok(())
    }

    pub(super) fn non_finite(&self, account: &'static str, value: f64, body: Option<BodyHandle>) -> CoreError {
        CoreError::NonFiniteEnergy { account, value, body, step: self.step, time: self.time }
    }
}
