//! Running a world for a span of time: whole numbers of steps, computed from the clock.

use super::World;
use crate::error::{CoreError, Result};
use crate::solver::{Solver, StepReport};

/// What [`World::run_for`] and [`World::run_until`] did: the steps taken and the report of
/// the last one (`None` when no step was due).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunReport {
    /// Steps taken.
    pub steps: u64,
    /// The last step's report: its contacts, sweeps and residual (contact dynamics),
    /// overlap, warnings and energies.
    pub last: Option<StepReport>,
}

impl World {
    /// Takes `round(duration / dt)` steps of `dt` (rounded to the nearest integer, so a
    /// duration that is a whole number of steps up to round-off, such as 1 s of 10⁻⁴ s,
    /// takes exactly that number) and returns how many it took with the last step's
    /// report. Stops at the first failing step with its error. `duration` must be finite
    /// and ≥ 0.
    ///
    /// ```
    /// # use granula_core::prelude::*;
    /// # struct Idle;
    /// # impl Solver for Idle {
    /// #     type Error = CoreError;
    /// #     fn name(&self) -> &'static str { "idle" }
    /// #     fn step(&mut self, _: StepContext<'_>) -> Result<StepReport, CoreError> { Ok(StepReport::default()) }
    /// # }
    /// # fn main() -> Result<(), CoreError> {
    /// let mut world = World::builder().build()?;
    /// let mut solver = Idle; // any Solver: MdSolver, NscdSolver, ...
    /// assert_eq!(world.run_for(&mut solver, 0.5, 1e-4)?.steps, 5_000);
    /// assert_eq!(world.time(), 0.5);
    /// # Ok(())
    /// # }
    /// ```
    pub fn run_for<S: Solver>(&mut self, solver: &mut S, duration: f64, dt: f64) -> Result<RunReport> {
        if !(dt.is_finite() && dt > 0.0) {
            return Err(CoreError::InvalidTimeStep { dt });
        }
        if !(duration.is_finite() && duration >= 0.0) {
            return Err(CoreError::InvalidWorld {
                field: "run duration",
                value: format!("{duration}"),
                expected: "finite and >= 0",
            });
        }
        // The saturating cast is exact for any step count a run can take (< 2^53).
        self.run_steps(solver, (duration / dt).round() as u64, dt)
    }

    /// Steps with `dt` until the time reaches `t_end`: takes `round((t_end − time) / dt)`
    /// steps ([`Clock::steps_until`](crate::Clock::steps_until); none when `t_end` is not at least half a step ahead)
    /// and returns how many it took with the last step's report. From t = 0,
    /// `run_until(solver, 1.0, 1e-4)` takes exactly 10 000 steps and ends at t = 1 exactly; from a later time the end time is
    /// `t_end` up to the rounding of one sum. Stops at the first failing step with its
    /// error. `t_end` must be finite.
    ///
    /// ```
    /// # use granula_core::prelude::*;
    /// # struct Idle;
    /// # impl Solver for Idle {
    /// #     type Error = CoreError;
    /// #     fn name(&self) -> &'static str { "idle" }
    /// #     fn step(&mut self, _: StepContext<'_>) -> Result<StepReport, CoreError> { Ok(StepReport::default()) }
    /// # }
    /// # fn main() -> Result<(), CoreError> {
    /// let mut world = World::builder().build()?;
    /// let mut solver = Idle; // any Solver: MdSolver, NscdSolver, ...
    /// assert_eq!(world.run_until(&mut solver, 1.0, 1e-4)?.steps, 10_000);
    /// assert_eq!((world.step_count(), world.time()), (10_000, 1.0));
    /// # Ok(())
    /// # }
    /// ```
    pub fn run_until<S: Solver>(&mut self, solver: &mut S, t_end: f64, dt: f64) -> Result<RunReport> {
        if !(dt.is_finite() && dt > 0.0) {
            return Err(CoreError::InvalidTimeStep { dt });
        }
        if !t_end.is_finite() {
            return Err(CoreError::InvalidWorld {
                field: "run end time",
                value: format!("{t_end}"),
                expected: "finite",
            });
        }
        let n = self.clock().steps_until(t_end, dt);
        self.run_steps(solver, n, dt)
    }

    fn run_steps<S: Solver>(&mut self, solver: &mut S, n: u64, dt: f64) -> Result<RunReport> {
        let mut last = None;
        for _ in 0..n {
            last = Some(self.step(solver, dt)?);
        }
        Ok(RunReport { steps: n, last })
    }
}
