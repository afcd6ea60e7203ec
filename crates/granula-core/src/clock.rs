//! The world's clock: time computed from the step count, not summed step by step.
//!
//! Adding Δt to a running time at every step accumulates one rounding per step: after
//! 10⁶ steps of Δt = 10⁻⁴ s the sum is 100.00000000219612 s, and a loop
//! `while time < 1.0` with Δt = 10⁻⁴ takes 10 001 steps. The clock instead keeps the time
//! and step count of its *base* (the last moment Δt changed) and computes
//! t = t_base + (n − n_base) × Δt, one product and one sum, so the time after n steps of a
//! constant Δt from t = 0 is the correctly rounded n × Δt (exactly 100 s in the example).

use serde::{Deserialize, Serialize};

/// The clock of a [`World`](crate::World): the step count and the time computed from it.
///
/// Its fields are public for saving and restoring (checkpoints, with
/// [`World::clock`](crate::World::clock) and [`World::set_clock`](crate::World::set_clock));
/// a host reads the time and the step count from the world's fields
/// [`time`](crate::World#structfield.time) and [`step`](crate::World#structfield.step).
///
/// ```
/// use granula_core::Clock;
///
/// let mut clock = Clock::default();
/// for _ in 0..1_000_000 {
///     clock.advance(1e-4);
/// }
/// assert_eq!(clock.step, 1_000_000);
/// assert_eq!(clock.time(), 100.0); // exactly: 1e6 × fl(1e-4) rounds to 100
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Clock {
    /// Steps taken since the world was built.
    pub step: u64,
    /// Step count at the base (the last change of the time step).
    pub base_step: u64,
    /// Simulated time at the base (s).
    pub base_time: f64,
    /// The time step of every step since the base (s); 0 before the first step.
    pub dt: f64,
}

impl Clock {
    /// A clock at `time` and `step`, with no time step yet (the next step sets it).
    pub fn at(time: f64, step: u64) -> Self {
        Clock { step, base_step: step, base_time: time, dt: 0.0 }
    }

    /// The simulated time: `base_time + (step − base_step) × dt` (s).
    pub fn time(&self) -> f64 {
        // `step >= base_step` holds for every clock built by this type; a hand-built one
        // that breaks it reads as its base time rather than wrapping around.
        self.base_time + self.step.saturating_sub(self.base_step) as f64 * self.dt
    }

    /// Counts one step of `dt`; a `dt` different from the previous step's moves the base to
    /// the current time and step first (so earlier steps keep the time they had).
    pub fn advance(&mut self, dt: f64) {
        if dt != self.dt {
            *self = Clock { step: self.step, base_step: self.step, base_time: self.time(), dt };
        }
        self.step += 1;
    }

    /// The number of steps of `dt` that take the clock from its current time to `t_end`:
    /// `(t_end − time) / dt` rounded to the nearest integer (so a duration that is a whole
    /// number of steps up to round-off, such as 1 s of 10⁻⁴ s steps, gives that number
    /// exactly), and 0 when `t_end` is not later than half a step after the current time.
    /// `dt` must be finite and > 0 and `t_end` finite.
    pub fn steps_until(&self, t_end: f64, dt: f64) -> u64 {
        let n = ((t_end - self.time()) / dt).round();
        // The saturating float-to-integer cast maps negative values to 0.
        n as u64
    }
}
