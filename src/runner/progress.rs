//! The progress bar: simulated time, steps per second and contacts.

use granula_run::Progress;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// An indicatif bar over the steps of a run (hidden when quiet).
pub struct Bar(ProgressBar, std::cell::Cell<bool>);

impl Bar {
    /// A bar of `steps` steps, `done` of them already taken.
    pub fn new(steps: u64, done: u64, quiet: bool) -> Self {
        let bar = ProgressBar::new(steps);
        if quiet {
            bar.set_draw_target(ProgressDrawTarget::hidden());
        }
        let style = ProgressStyle::with_template("{bar:30} {pos}/{len} steps {msg} [{elapsed} < {eta}]")
            .unwrap_or_else(|_| ProgressStyle::default_bar());
        bar.set_style(style);
        bar.set_position(done);
        Bar(bar, std::cell::Cell::new(false))
    }

    /// Shows a progress report.
    /// The run's first step warning is printed once, above the bar (even when quiet).
    pub fn update(&self, p: &Progress) {
        if !self.1.get() {
            if let Some(line) = p.warnings.first_line() {
                self.1.set(true);
                self.0.suspend(|| eprintln!("{line}"));
            }
        }
        self.0.set_position(p.step);
        self.0.set_message(format!(
            "| t = {:.5} s | {:.0} steps/s | {} contacts",
            p.time, p.steps_per_second, p.contacts
        ));
    }

    /// Leaves the bar at its final state.
    pub fn finish(&self) {
        self.0.finish();
    }
}
