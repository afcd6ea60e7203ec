//! The conformance report: each check's measured value, tolerance and verdict.

use std::fmt;

/// One check of the conformance kit.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckResult {
    /// What was checked, e.g. `"energy never increases (oblique, wall)"`.
    pub name: String,
    /// The measured value (its meaning is in the name).
    pub measured: f64,
    /// The largest acceptable value.
    pub tolerance: f64,
    /// `measured <= tolerance` (false for NaN).
    pub passed: bool,
}

impl CheckResult {
    /// A check that passes when `measured ≤ tolerance`.
    pub fn at_most(name: impl Into<String>, measured: f64, tolerance: f64) -> Self {
        CheckResult { name: name.into(), measured, tolerance, passed: measured <= tolerance }
    }
}

/// The outcome of [`check_law`](super::check_law).
#[derive(Clone, Debug, PartialEq)]
pub struct ConformanceReport {
    /// The law's name.
    pub law: String,
    /// The time step used (s).
    pub dt: f64,
    /// The head-on contact time measured with it (s).
    pub contact_time: f64,
    /// All checks, in the order run.
    pub checks: Vec<CheckResult>,
}

impl ConformanceReport {
    /// `true` when every check passed.
    pub fn passed(&self) -> bool {
        self.checks.iter().all(|c| c.passed)
    }

    /// The checks that failed.
    pub fn failures(&self) -> impl Iterator<Item = &CheckResult> {
        self.checks.iter().filter(|c| !c.passed)
    }

    /// The check of this name, if run.
    pub fn get(&self, name: &str) -> Option<&CheckResult> {
        self.checks.iter().find(|c| c.name == name)
    }
}

impl fmt::Display for ConformanceReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "conformance of {} (dt = {:.3e} s, t_c = {:.3e} s)", self.law, self.dt, self.contact_time)?;
        for c in &self.checks {
            writeln!(
                f,
                "  [{}] {:<55} measured {:>11.3e}  tolerance {:>9.1e}",
                if c.passed { "pass" } else { "FAIL" },
                c.name,
                c.measured,
                c.tolerance
            )?;
        }
        Ok(())
    }
}
