//! The run's account of step warnings: every [`StepWarning`] a step raises is counted here,
//! so that a run that did not meet its tolerance cannot end with a bare "done".

use granula_core::{StepReport, StepWarning};
use granula_io::scene::spec::{CriterionKind, SolverSpec};
use granula_io::scene::Scene;
use serde::{Deserialize, Serialize};

/// A step's warning, with when it happened.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct WarnedStep {
    /// The step count after the step (as `World::step`).
    pub step: u64,
    /// The simulated time after the step (s).
    pub time: f64,
    /// The iterative solver's sweeps in that step.
    pub iterations: u32,
    /// Its criterion value when it stopped.
    pub residual: f64,
}

/// Counts of the warnings of a run's steps and their worst cases. Plain data (`Copy`), so
/// it travels in [`Progress`](super::Progress) reports; saved in checkpoints, so a resumed
/// run's summary counts the steps before the interruption too.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WarningSummary {
    /// The tolerance the iterative solver was asked for (`None` for solvers without one or
    /// a fixed number of sweeps).
    pub tolerance: Option<f64>,
    /// Steps recorded.
    pub steps: u64,
    /// Steps that stopped at the iteration cap before meeting the tolerance.
    pub capped_steps: u64,
    /// The first such step.
    pub first_capped: Option<WarnedStep>,
    /// The such step with the largest residual.
    pub worst_capped: Option<WarnedStep>,
    /// Steps whose Δt exceeded the contact law's recommended step.
    pub time_step_warnings: u64,
    /// The first Δt warning: (Δt, recommended Δt, step).
    pub first_time_step: Option<(f64, f64, u64)>,
}

impl WarningSummary {
    /// An empty summary for a solver asked for `tolerance`.
    pub fn new(tolerance: Option<f64>) -> Self {
        WarningSummary { tolerance, ..Default::default() }
    }

    /// An empty summary for a scene's solver: the NSCD tolerance unless the scene asks for
    /// a fixed number of sweeps.
    pub fn for_scene(scene: &Scene) -> Self {
        let tolerance = match &scene.spec.solver {
            SolverSpec::Nscd(n) if n.criterion != CriterionKind::FixedIterations => Some(n.tolerance),
            _ => None,
        };
        WarningSummary::new(tolerance)
    }

    /// Records the warnings of one step, `step` and `time` the world's clock after it.
    /// Returns `true` when this step brought the run's first warning.
    pub fn record(&mut self, report: &StepReport, step: u64, time: f64) -> bool {
        let before = self.warned();
        self.steps += 1;
        for w in &report.warnings {
            match *w {
                StepWarning::IterationCapReached { iterations, residual } => {
                    self.capped_steps += 1;
                    let here = WarnedStep { step, time, iterations, residual };
                    self.first_capped.get_or_insert(here);
                    // A NaN residual is the worst of all.
                    if self.worst_capped.is_none_or(|w| !(residual <= w.residual)) {
                        self.worst_capped = Some(here);
                    }
                }
                StepWarning::TimeStepTooLarge { dt, recommended } => {
                    self.time_step_warnings += 1;
                    self.first_time_step.get_or_insert((dt, recommended, step));
                }
            }
        }
        before == 0 && self.warned() > 0
    }

    /// Steps with at least one warning of either kind (counted per kind).
    pub fn warned(&self) -> u64 {
        self.capped_steps + self.time_step_warnings
    }

    /// The one line to show when the first warning of a run happens (`None` before).
    pub fn first_line(&self) -> Option<String> {
        if let Some(w) = self.first_capped {
            return Some(format!(
                "warning: step {} (t = {:.6} s): the contact solver stopped at its cap of {} sweeps with residual {:.2e}{}; further such steps are counted and summarised at the end",
                w.step,
                w.time,
                w.iterations,
                w.residual,
                self.tolerance.map(|t| format!(" > tolerance {t:.1e}")).unwrap_or_default()
            ));
        }
        self.first_time_step.map(|(dt, rec, step)| {
            format!(
                "warning: step {step}: dt = {dt:.3e} s exceeds the contact law's recommended step {rec:.3e} s; further such steps are counted and summarised at the end"
            )
        })
    }

    /// The end-of-run summary, one line each: what went wrong, or, for a solver with a
    /// tolerance, that every step met it.
    pub fn lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(w) = self.worst_capped {
            let tol = self.tolerance.map(|t| format!(", {:.0} times the tolerance {t:.1e} asked for", w.residual / t));
            out.push(format!(
                "warning: {} of {} steps stopped at the iteration cap before meeting the tolerance; worst residual {:.2e} at step {} (t = {:.6} s){}",
                self.capped_steps,
                self.steps,
                w.residual,
                w.step,
                w.time,
                tol.unwrap_or_default()
            ));
            out.push(
                "         the contact forces of those steps are not converged: raise max_iterations (see `granula check`), or set on_cap = \"extend\" or \"error\"".into(),
            );
        } else if let Some(t) = self.tolerance {
            if self.steps > 0 {
                out.push(format!("convergence: all {} steps met the tolerance {t:.1e}", self.steps));
            }
        }
        if let Some((dt, rec, step)) = self.first_time_step {
            out.push(format!(
                "warning: {} of {} steps used dt = {dt:.3e} s above the contact law's recommended {rec:.3e} s (first at step {step})",
                self.time_step_warnings, self.steps
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn capped(iterations: u32, residual: f64) -> StepReport {
        StepReport { warnings: vec![StepWarning::IterationCapReached { iterations, residual }], ..Default::default() }
    }

    #[test]
    fn counts_the_capped_steps_and_keeps_the_first_and_the_worst() {
        let mut s = WarningSummary::new(Some(1e-4));
        assert!(!s.record(&StepReport::default(), 1, 0.1));
        assert!(s.record(&capped(5, 0.01), 2, 0.2), "the first warning is announced");
        assert!(!s.record(&capped(5, 0.4), 3, 0.3), "only once");
        assert!(!s.record(&capped(5, 0.2), 4, 0.4));
        assert_eq!((s.steps, s.capped_steps), (4, 3));
        assert_eq!(s.first_capped.map(|w| w.step), Some(2));
        assert_eq!(s.worst_capped.map(|w| (w.step, w.residual)), Some((3, 0.4)));
        assert!(s.first_line().is_some_and(|l| l.contains("step 2") && l.contains("1.0e-4")));
        let text = s.lines().join("\n");
        assert!(text.contains("3 of 4 steps") && text.contains("4.00e-1") && text.contains("step 3"), "{text}");
    }

    #[test]
    fn a_clean_run_says_it_met_the_tolerance() {
        let mut s = WarningSummary::new(Some(1e-4));
        s.record(&StepReport::default(), 1, 0.1);
        assert_eq!(s.first_line(), None);
        assert_eq!(s.lines(), vec!["convergence: all 1 steps met the tolerance 1.0e-4".to_string()]);
    }

    #[test]
    fn time_step_warnings_are_counted() {
        let mut s = WarningSummary::new(None);
        let r = StepReport {
            warnings: vec![StepWarning::TimeStepTooLarge { dt: 2e-4, recommended: 1e-4 }],
            ..Default::default()
        };
        assert!(s.record(&r, 1, 2e-4));
        assert!(s.first_line().is_some_and(|l| l.contains("recommended")));
        assert!(s.lines()[0].contains("1 of 1 steps"));
    }
}
