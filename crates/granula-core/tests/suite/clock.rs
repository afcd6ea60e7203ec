//! The world's clock: time computed from the step count, `run_for` / `run_until`, changes of
//! the time step, and saving and restoring the clock.

use granula_core::prelude::*;
use granula_core::Clock;

/// A solver that moves nothing (the clock does not depend on the solver).
struct Idle;

impl Solver for Idle {
    type Error = CoreError;
    fn name(&self) -> &'static str {
        "idle"
    }
    fn step(&mut self, _ctx: StepContext<'_>) -> Result<StepReport, CoreError> {
        Ok(StepReport::default())
    }
}

fn world() -> World {
    World::builder().build().unwrap()
}

/// A solver whose report carries the number of the step it took (in `iterations`).
struct Numbering;

impl Solver for Numbering {
    type Error = CoreError;
    fn name(&self) -> &'static str {
        "numbering"
    }
    fn step(&mut self, ctx: StepContext<'_>) -> Result<StepReport, CoreError> {
        Ok(StepReport { iterations: ctx.step as u32, ..Default::default() })
    }
}

#[test]
fn a_run_returns_the_report_of_its_last_step() {
    let mut w = world();
    let run = w.run_for(&mut Numbering, 0.01, 1e-3).unwrap();
    // Ten steps numbered 0 to 9: the last report is step 9's.
    assert_eq!(run.steps, 10);
    assert_eq!(run.last.map(|r| r.iterations), Some(9));
    // No step due: no report.
    assert_eq!(w.run_until(&mut Numbering, 0.01, 1e-3).unwrap(), RunReport { steps: 0, last: None });
}

#[test]
fn a_million_steps_of_1e_4_end_at_exactly_100_s() {
    let mut w = world();
    for _ in 0..1_000_000 {
        w.step(&mut Idle, 1e-4).unwrap();
    }
    assert_eq!(w.step_count(), 1_000_000);
    // Exact equality on purpose: 1e6 × fl(1e-4) rounds to 100 (a running sum gives
    // 100.00000000219612).
    assert_eq!(w.time(), 100.0);
}

#[test]
fn every_time_is_the_rounded_product_of_step_and_dt() {
    let mut w = world();
    for n in 1..=2500u64 {
        w.step(&mut Idle, 1e-4).unwrap();
        // Bit-exact: one product from t = 0 with a constant step (25 steps give 0.0025,
        // where a running sum gives 0.0024999999999999823).
        assert_eq!(w.time().to_bits(), (n as f64 * 1e-4).to_bits(), "step {n}");
    }
}

#[test]
fn run_until_one_second_takes_exactly_ten_thousand_steps() {
    let mut w = world();
    let taken = w.run_until(&mut Idle, 1.0, 1e-4).unwrap().steps;
    assert_eq!(taken, 10_000);
    assert_eq!((w.step_count(), w.time()), (10_000, 1.0));
    // Already there: no further step.
    assert_eq!(w.run_until(&mut Idle, 1.0, 1e-4).unwrap().steps, 0);
    // A target in the past takes no step either.
    assert_eq!(w.run_until(&mut Idle, 0.5, 1e-4).unwrap().steps, 0);
    assert_eq!(w.step_count(), 10_000);
}

#[test]
fn run_until_rounds_to_the_nearest_step() {
    let mut w = world();
    // 0.00104 s is 10.4 steps of 1e-4: 10 steps; 0.00106 is 10.6 from 0: 11 steps.
    assert_eq!(w.run_until(&mut Idle, 0.00104, 1e-4).unwrap().steps, 10);
    let mut w = world();
    assert_eq!(w.run_until(&mut Idle, 0.00106, 1e-4).unwrap().steps, 11);
}

#[test]
fn run_for_takes_the_duration_over_dt_steps() {
    let mut w = world();
    assert_eq!(w.run_for(&mut Idle, 0.25, 1e-4).unwrap().steps, 2_500);
    assert_eq!(w.run_for(&mut Idle, 0.75, 1e-4).unwrap().steps, 7_500);
    assert_eq!((w.step_count(), w.time()), (10_000, 1.0));
    assert_eq!(w.run_for(&mut Idle, 0.0, 1e-4).unwrap().steps, 0);
}

#[test]
fn run_for_and_run_until_reject_bad_arguments() {
    let mut w = world();
    assert!(matches!(w.run_for(&mut Idle, 1.0, 0.0), Err(CoreError::InvalidTimeStep { .. })));
    assert!(matches!(w.run_until(&mut Idle, 1.0, f64::NAN), Err(CoreError::InvalidTimeStep { .. })));
    for d in [-1.0, f64::NAN, f64::INFINITY] {
        let err = w.run_for(&mut Idle, d, 1e-4).unwrap_err();
        assert!(err.to_string().contains("run duration"), "{err}");
    }
    let err = w.run_until(&mut Idle, f64::INFINITY, 1e-4).unwrap_err();
    assert!(err.to_string().contains("run end time"), "{err}");
    assert_eq!(w.step_count(), 0);
}

#[test]
fn a_change_of_time_step_keeps_the_earlier_time() {
    let mut w = world();
    w.run_for(&mut Idle, 1.0, 1e-4).unwrap();
    w.run_for(&mut Idle, 1.0, 1e-3).unwrap();
    assert_eq!(w.step_count(), 11_000);
    // Base at t = 1 (exact), then 1000 × fl(1e-3) = 1 (exact after rounding): 2 s exactly.
    assert_eq!(w.time(), 2.0);
    let c = w.clock();
    assert_eq!((c.base_step, c.base_time, c.dt), (10_000, 1.0, 1e-3));
}

#[test]
fn a_restored_clock_continues_bit_identically() {
    // Straight run with a time step that makes a running sum drift.
    let dt = 0.1;
    let mut straight = world();
    straight.run_for(&mut Idle, 3.0, dt).unwrap();
    let saved = straight.clock();
    straight.run_for(&mut Idle, 4.0, dt).unwrap();

    let mut resumed = world();
    resumed.set_clock(saved).unwrap();
    assert_eq!((resumed.step_count(), resumed.time()), (30, saved.time()));
    resumed.run_for(&mut Idle, 4.0, dt).unwrap();
    assert_eq!(resumed.step_count(), straight.step_count());
    assert_eq!(resumed.time().to_bits(), straight.time().to_bits());
    assert_eq!(resumed.clock(), straight.clock());
}

#[test]
fn a_clock_set_at_a_time_and_step_becomes_the_base() {
    let mut w = world();
    w.set_clock(Clock::at(5.0, 7)).unwrap();
    assert_eq!(w.clock().time(), 5.0);
    w.run_for(&mut Idle, 1.0, 0.5).unwrap();
    assert_eq!((w.step_count(), w.time()), (9, 6.0));
}

#[test]
fn set_clock_names_the_bad_field() {
    let mut w = world();
    let bad = [
        (Clock { base_time: f64::NAN, ..Clock::default() }, "clock base time"),
        (Clock { dt: -1.0, ..Clock::default() }, "clock time step"),
        (Clock { step: 1, base_step: 2, ..Clock::default() }, "clock base step"),
    ];
    for (clock, field) in bad {
        let err = w.set_clock(clock).unwrap_err();
        assert!(err.to_string().contains(field), "{err}");
    }
}

#[test]
fn a_failed_solver_step_does_not_advance_the_clock() {
    struct Failing;
    impl Solver for Failing {
        type Error = CoreError;
        fn name(&self) -> &'static str {
            "failing"
        }
        fn step(&mut self, ctx: StepContext<'_>) -> Result<StepReport, CoreError> {
            Err(CoreError::InvalidTimeStep { dt: ctx.dt })
        }
    }
    let mut w = world();
    w.run_for(&mut Idle, 0.3, 0.1).unwrap();
    assert!(w.run_for(&mut Failing, 0.3, 0.1).is_err());
    assert_eq!((w.step_count(), w.time()), (3, 3.0 * 0.1));
}
