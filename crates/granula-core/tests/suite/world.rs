//! World-level behaviour through the public API only: insertion, removal, planar mode,
//! measurements, the step wrapper's guards and observers.

use approx::assert_relative_eq;
use granula_core::prelude::*;
use granula_core::{BodyRef, MotionKind};
use std::f64::consts::PI;
use std::sync::{Arc, Mutex};

fn world() -> World {
    World::builder().gravity(DVec3::new(0.0, 0.0, -10.0)).build().unwrap()
}

#[test]
fn sphere_mass_comes_from_the_material_density() {
    let mut w = world();
    let h = w.insert(SphereBuilder::new(0.1, DVec3::ZERO).build().unwrap()).unwrap();
    let i = w.bodies.index(h).unwrap();
    // Default material: ρ = 2500; m = ρ 4/3 π r³, exact up to round-off.
    assert_relative_eq!(w.bodies.mass[i], 2500.0 * 4.0 / 3.0 * PI * 1e-3, max_relative = 1e-14);
    assert_relative_eq!(w.bodies.inv_mass[i] * w.bodies.mass[i], 1.0, max_relative = 1e-15);
}

#[test]
fn planar_mode_makes_discs_and_locks_dofs() {
    let mut w = World::builder().planar(true).build().unwrap();
    let h = w
        .insert(
            SphereBuilder::new(0.5, DVec3::ZERO)
                .velocity(DVec3::new(1.0, 2.0, 3.0))
                .angular_velocity(DVec3::ONE)
                .build()
                .unwrap(),
        )
        .unwrap();
    let i = w.bodies.index(h).unwrap();
    // Disc of unit thickness: m = ρ π r², I_z = ½ m r².
    let m = 2500.0 * PI * 0.25;
    assert_relative_eq!(w.bodies.mass[i], m, max_relative = 1e-14);
    assert_relative_eq!(w.bodies.inertia[i].z, 0.5 * m * 0.25, max_relative = 1e-14);
    // The out-of-plane components are removed at insertion, exactly.
    assert_eq!(w.bodies.velocity[i], DVec3::new(1.0, 2.0, 0.0));
    assert_eq!(w.bodies.angular_velocity[i], DVec3::new(0.0, 0.0, 1.0));
}

#[test]
fn walls_have_infinite_mass_and_dynamic_walls_need_one() {
    let mut w = world();
    let h = w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().unwrap()).unwrap();
    let i = w.bodies.index(h).unwrap();
    assert!(w.bodies.mass[i].is_infinite());
    assert_eq!(w.bodies.inv_mass[i], 0.0);
    assert_eq!(w.bodies.motion[i], MotionKind::Fixed);
    let err = w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).dynamic().build().unwrap()).unwrap_err();
    assert!(matches!(err, CoreError::InvalidBody { field: "mass", .. }));
    // A piston: a dynamic plane with a finite mass and no rotation.
    let p = w.insert(PlaneBuilder::new(DVec3::ONE, -DVec3::Z).dynamic().mass(3.0).build().unwrap()).unwrap();
    let ip = w.bodies.index(p).unwrap();
    assert_eq!(w.bodies.inv_mass[ip], 1.0 / 3.0);
    assert_eq!(w.bodies.inv_inertia[ip], DVec3::ZERO);
}

#[test]
fn unknown_material_and_stale_handles_are_errors() {
    let mut w = world();
    let err = w.insert(SphereBuilder::new(0.1, DVec3::ZERO).material(MaterialId(3)).build().unwrap()).unwrap_err();
    assert!(matches!(err, CoreError::UnknownMaterial { body: BodyRef::New, .. }), "{err}");
    let a = w.insert(SphereBuilder::new(0.1, DVec3::ZERO).build().unwrap()).unwrap();
    let b = w.insert(SphereBuilder::new(0.2, DVec3::X).build().unwrap()).unwrap();
    w.remove(a).unwrap();
    assert!(matches!(w.bodies.index(a), Err(CoreError::NoSuchBody { handle }) if handle == a));
    assert!(matches!(w.remove(a), Err(CoreError::NoSuchBody { .. })));
    // The surviving body moved to dense index 0 and kept its data.
    let ib = w.bodies.index(b).unwrap();
    assert_eq!(ib, 0);
    assert_eq!(w.bodies.radius[ib], 0.2);
    assert_eq!(w.bodies.position[ib], DVec3::X);
    // Handles are never reused.
    let c = w.insert(SphereBuilder::new(0.1, DVec3::Y).build().unwrap()).unwrap();
    assert_ne!(c, a);
}

#[test]
fn energies_and_momenta_of_a_known_state() {
    let mut w = world();
    let h = w
        .insert(
            SphereBuilder::new(1.0, DVec3::new(0.0, 0.0, 2.0))
                .mass(2.0)
                .velocity(DVec3::new(3.0, 0.0, 0.0))
                .angular_velocity(DVec3::new(0.0, 0.0, 5.0))
                .build()
                .unwrap(),
        )
        .unwrap();
    w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().unwrap()).unwrap();
    let _ = h;
    // ½ m v² = 9; ½ I ω² with I = 0.4 m r² = 0.8: 10; m g h = 2*10*2 = 40; all exact in f64.
    assert_relative_eq!(w.kinetic_energy_translational(), 9.0, max_relative = 1e-15);
    assert_relative_eq!(w.kinetic_energy_rotational(), 10.0, max_relative = 1e-15);
    assert_relative_eq!(w.potential_energy(), 40.0, max_relative = 1e-15);
    assert_eq!(w.momentum(), DVec3::new(6.0, 0.0, 0.0));
    // L = x × m v + I ω = (0,0,2) × (6,0,0) + (0,0,4) = (0,12,0) + (0,0,4).
    let l = w.angular_momentum();
    assert!((l - DVec3::new(0.0, 12.0, 4.0)).length() < 1e-14);
}

/// A solver that applies a prescribed change to the bodies, to exercise the step wrapper.
struct Scripted(Box<dyn FnMut(&mut StepContext<'_>) -> StepReport>);

#[derive(Debug, thiserror::Error)]
#[error("scripted failure")]
struct ScriptedError;

impl Solver for Scripted {
    type Error = ScriptedError;
    fn name(&self) -> &'static str {
        "scripted"
    }
    fn step(&mut self, mut ctx: StepContext<'_>) -> Result<StepReport, ScriptedError> {
        Ok((self.0)(&mut ctx))
    }
}

#[test]
fn step_rejects_bad_time_steps() {
    let mut w = world();
    let mut s = Scripted(Box::new(|_| StepReport::default()));
    for dt in [0.0, -1e-3, f64::NAN, f64::INFINITY] {
        assert!(matches!(w.step(&mut s, dt), Err(CoreError::InvalidTimeStep { .. })), "dt = {dt}");
    }
    assert_eq!(w.step_count(), 0, "a rejected step does not advance the clock");
}

#[test]
fn step_stops_on_non_finite_state_naming_body_and_step() {
    let mut w = world();
    w.insert(SphereBuilder::new(0.1, DVec3::ZERO).build().unwrap()).unwrap();
    let h = w.insert(SphereBuilder::new(0.1, DVec3::X).build().unwrap()).unwrap();
    let mut s = Scripted(Box::new(move |w: &mut StepContext| {
        if w.step == 2 {
            let i = w.bodies.index(h).unwrap();
            w.bodies.velocity[i].y = f64::NAN;
        }
        StepReport::default()
    }));
    w.step(&mut s, 1e-3).unwrap();
    w.step(&mut s, 1e-3).unwrap();
    let err = w.step(&mut s, 1e-3).unwrap_err();
    assert!(matches!(err, CoreError::NonFiniteState { body, field: "velocity", step: 3, .. } if body == h), "{err}");
}

#[test]
fn step_stops_on_excessive_overlap_and_calls_observers_otherwise() {
    let mut w = world();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    w.add_observer(move |w: &World, r: &StepReport| log.lock().unwrap().push((w.step_count(), r.contacts)));
    let mut ratio = 0.1;
    let mut s = Scripted(Box::new(move |_| {
        ratio += 0.25;
        StepReport {
            contacts: 7,
            max_overlap: ratio * 1e-3,
            max_overlap_ratio: ratio,
            max_overlap_pair: Some((BodyHandle(4), BodyHandle(9))),
            ..Default::default()
        }
    }));
    w.step(&mut s, 1e-3).unwrap(); // ratio 0.35 < 0.5
    let err = w.step(&mut s, 1e-3).unwrap_err(); // ratio 0.6 > 0.5
    assert!(
        matches!(err, CoreError::ExcessiveOverlap { body1: BodyHandle(4), body2: BodyHandle(9), step: 2, .. }),
        "{err}"
    );
    assert_eq!(*seen.lock().unwrap(), vec![(1, 7)], "observers run after successful steps only");
}

#[test]
fn kinematic_bodies_follow_their_drive() {
    let mut w = world();
    let omega = 2.0;
    let h = w
        .insert(
            CylinderBuilder::new(DVec3::ZERO, DVec3::Z, 1.0)
                .kinematic(
                    Prescribed::Function(Arc::new(|t| DVec3::new(t, 0.0, 0.0))),
                    Prescribed::Constant(DVec3::new(0.0, 0.0, omega)),
                )
                .build()
                .unwrap(),
        )
        .unwrap();
    let i = w.bodies.index(h).unwrap();
    let dt = 0.01;
    let mut t = 0.0;
    for _ in 0..100 {
        w.bodies.advance_kinematic(t, dt);
        t += dt;
    }
    // Midpoint rule is exact for a velocity linear in time: x(1) = ∫ t dt = 0.5 (round-off only).
    assert_relative_eq!(w.bodies.position[i].x, 0.5, max_relative = 1e-12);
    // v(t) = t at t = Σ 0.01 (accumulated clock: ~1e-15 rounding).
    assert_relative_eq!(w.bodies.velocity[i].x, 1.0, max_relative = 1e-13);
    // Orientation after 1 s at ω = 2 rad/s: angle 2 about z (exponential map, round-off).
    let (axis, angle) = w.bodies.orientation[i].to_axis_angle();
    assert_relative_eq!(angle, 2.0, max_relative = 1e-12);
    assert!((axis - DVec3::Z).length() < 1e-12);
}

#[test]
fn gyroscopic_term_of_a_torque_free_asymmetric_body() {
    // ω along a non-principal direction of a body with distinct moments: I α = −ω × I ω.
    let mut w = World::builder().gravity(DVec3::ZERO).build().unwrap();
    let props = MassProperties { mass: 1.0, inertia: DVec3::new(1.0, 2.0, 3.0) };
    let h = w
        .insert(
            RigidBodyBuilder::new(Shape::Sphere { radius: 1.0 }, DVec3::ZERO)
                .mass_properties(props)
                .angular_velocity(DVec3::new(1.0, 1.0, 0.0))
                .build()
                .unwrap(),
        )
        .unwrap();
    let i = w.bodies.index(h).unwrap();
    let alpha = w.bodies.angular_acceleration(i, DVec3::ZERO, w.bodies.angular_velocity[i]);
    // ω × Iω = (1,1,0) × (1,2,0) = (0,0,1) → α = −(0,0,1)/3.
    assert!((alpha - DVec3::new(0.0, 0.0, -1.0 / 3.0)).length() < 1e-15);
}

#[test]
fn open_box_has_five_inward_walls_and_rejects_bad_sizes() {
    let mut w = world();
    let walls = w.insert_open_box(DVec3::new(1.0, 2.0, 3.0), 0.5, 0.25, MaterialId(0)).unwrap();
    let normal = |h: BodyHandle| match w.bodies.shape[w.bodies.index(h).unwrap()] {
        Shape::Plane { normal } => normal,
        _ => panic!("not a plane"),
    };
    let expected = [DVec3::Z, DVec3::X, DVec3::Y, -DVec3::X, -DVec3::Y];
    for (h, n) in walls.iter().zip(expected) {
        assert_eq!(normal(*h), n);
    }
    // The far walls sit at corner + size, exactly (sums of representable values).
    assert_eq!(w.bodies.position[w.bodies.index(walls[3]).unwrap()].x, 1.5);
    assert_eq!(w.bodies.position[w.bodies.index(walls[4]).unwrap()].y, 2.25);
    for bad in [0.0, -1.0, f64::NAN] {
        let err = w.insert_open_box(DVec3::ZERO, bad, 1.0, MaterialId(0)).unwrap_err();
        assert!(matches!(err, CoreError::InvalidWorld { field: "box length x", .. }), "{err}");
    }
    let err = w.insert_open_box(DVec3::ZERO, 1.0, 1.0, MaterialId(9)).unwrap_err();
    assert!(matches!(err, CoreError::UnknownMaterial { .. }), "{err}");
}

/// A scripted solver that declares its reports close the ledger.
struct Closing(Scripted);

impl Solver for Closing {
    type Error = ScriptedError;
    fn name(&self) -> &'static str {
        "closing"
    }
    fn step(&mut self, ctx: StepContext<'_>) -> Result<StepReport, ScriptedError> {
        self.0.step(ctx)
    }
    fn closes_energy_balance(&self) -> bool {
        true
    }
}

/// A world with one moving sphere and a guard checking every `every` steps (no travel
/// limit: the scripted solvers below double the speed without moving the sphere).
fn guarded(every: u64) -> (World, BodyHandle) {
    let mut w = World::builder()
        .gravity(DVec3::ZERO)
        .max_travel_ratio(f64::INFINITY)
        .energy_guard(Some(EnergyGuard { every, max_gain: 0.5 }))
        .build()
        .unwrap();
    let h = w.insert(SphereBuilder::new(0.1, DVec3::ZERO).velocity(DVec3::X).build().unwrap()).unwrap();
    (w, h)
}

#[test]
fn energy_guard_stops_a_growing_balance_only_for_solvers_that_close_it() {
    // Each step doubles the speed: the kinetic energy grows fourfold per step with nothing
    // in the ledger to pay for it, so every check after the first is a strike.
    let doubling = || {
        Scripted(Box::new(|w: &mut StepContext| {
            w.bodies.velocity[0] *= 2.0;
            StepReport::default()
        }))
    };
    let (mut w, h) = guarded(2);
    let mut s = Closing(doubling());
    let mut result = Ok(StepReport::default());
    for _ in 0..10 {
        result = w.step(&mut s, 1e-3);
        if result.is_err() {
            break;
        }
    }
    // Checks at steps 2 (baseline), 4 and 6 (strikes): stopped at step 6, naming the sphere.
    let err = result.unwrap_err();
    assert!(matches!(err, CoreError::EnergyRunaway { body, step: 6, interval: 2, .. } if body == h), "{err}");
    // The same solver without the declaration is not guarded (its ledger may not close).
    let (mut w, _) = guarded(2);
    let mut s = doubling();
    for _ in 0..10 {
        w.step(&mut s, 1e-3).expect("no guard for solvers that do not close the ledger");
    }
    // Energy paid for by external work in the report is not a runaway.
    let (mut w, _) = guarded(2);
    let mut s = Closing(Scripted(Box::new(|w: &mut StepContext| {
        let m = w.bodies.mass[0];
        let before = 0.5 * m * w.bodies.velocity[0].length_squared();
        w.bodies.velocity[0] *= 2.0;
        StepReport { external_work: 3.0 * before, ..Default::default() }
    })));
    for _ in 0..10 {
        w.step(&mut s, 1e-3).expect("work done on the system balances the gain");
    }
}

#[test]
fn energy_guard_settings_are_validated() {
    for (guard, field) in [
        (EnergyGuard { every: 0, max_gain: 0.5 }, "energy_guard.every"),
        (EnergyGuard { every: 10, max_gain: 0.0 }, "energy_guard.max_gain"),
        (EnergyGuard { every: 10, max_gain: f64::NAN }, "energy_guard.max_gain"),
    ] {
        let err = World::builder().energy_guard(Some(guard)).build().unwrap_err();
        assert!(matches!(err, CoreError::InvalidWorld { field: f, .. } if f == field), "{err}");
    }
    assert!(World::builder().energy_guard(None).build().unwrap().energy_guard.is_none());
}

#[test]
fn a_one_step_explosion_stops_at_once_even_when_the_bodies_then_fly_freely() {
    // At step 5 the solver multiplies the speed by 1e5 (the energy by 1e10) once, then the
    // sphere flies at constant speed: the interval check sees one strike and never a second.
    let (mut w, h) = guarded_every_step(100);
    let mut n = 0;
    let mut s = Closing(Scripted(Box::new(move |w: &mut StepContext| {
        n += 1;
        if n == 5 {
            w.bodies.velocity[0] *= 1e5;
        }
        StepReport::default()
    })));
    let err = (0..1000).try_for_each(|_| w.step(&mut s, 1e-3).map(|_| ())).unwrap_err();
    match &err {
        CoreError::EnergyRunaway { step, interval, ratio, limit, body, .. } => {
            assert_eq!((*step, *interval), (5, 1), "stopped in the step of the explosion");
            // Gain 1e10 − 1 times the kinetic energy in play: far above the 1e3 limit.
            assert!(*ratio > 1e9 && *limit == EnergyGuard::MAX_STEP_GAIN, "{ratio}");
            assert_eq!(*body, h);
        }
        other => panic!("expected EnergyRunaway, got {other}"),
    }
    let text = err.to_string();
    // Numbers for people, and what to do: the source of the ledger and how to turn it off.
    assert!(text.contains("1.000e10 times the energy in play"), "{text}");
    assert!(text.contains("solver 'closing'") && text.contains("keeps_ledger") && text.contains("None"), "{text}");

    // A kick by hand between steps of the same size is not an explosion of a step.
    let (mut w, _) = guarded_every_step(100);
    let mut s = Closing(Scripted(Box::new(|_: &mut StepContext| StepReport::default())));
    for k in 0..300 {
        if k == 150 {
            w.bodies.velocity[0] *= 1e5;
        }
        w.step(&mut s, 1e-3).expect("a kick between steps is the user's, not the step's");
    }
}

/// The world of [`guarded`] with the one-step check after every step.
fn guarded_every_step(every: u64) -> (World, BodyHandle) {
    let (mut w, h) = guarded(every);
    w.energy_reads = EnergyReads::EveryStep;
    (w, h)
}

/// The step at which a run that multiplies the speed by 1e5 once, in its step `explode`
/// (counted from 1), stops under `reads`, with a guard every 10 steps; `request` asks for
/// the energies of that step by hand (`World::read_energies_next_step`).
fn explosion_stop(reads: EnergyReads, explode: u32, request: bool) -> Option<(u64, u64)> {
    let (mut w, _) = guarded(10);
    w.energy_reads = reads;
    let mut n = 0;
    let mut s = Closing(Scripted(Box::new(move |w: &mut StepContext| {
        n += 1;
        if n == explode {
            w.bodies.velocity[0] *= 1e5;
        }
        StepReport::default()
    })));
    for k in 1..=100 {
        if request && k == explode {
            w.read_energies_next_step();
        }
        if let Err(err) = w.step(&mut s, 1e-3) {
            match err {
                CoreError::EnergyRunaway { step, interval, .. } => return Some((step, interval)),
                other => panic!("expected EnergyRunaway, got {other}"),
            }
        }
    }
    None
}

#[test]
fn when_read_runs_the_one_step_check_only_on_reading_steps() {
    // Every step: caught in the step of the explosion.
    assert_eq!(explosion_stop(EnergyReads::EveryStep, 5, false), Some((5, 1)));
    // Only where read: step 5 is no reading step (the guard checks at 10, 20, ...). The
    // interval check at 10 sets its baseline (the first check), at 20 it sees a constant
    // balance: the free flight after a single explosion is never caught by it, and with no
    // other limit on (the scripted solver does not move the sphere) the run goes on. This
    // is the documented price of `WhenRead`.
    assert_eq!(explosion_stop(EnergyReads::WhenRead, 5, false), None);
    // The reading steps: those that end on 10 and 20 (indices 9 and 19), no other.
    let (mut w, _) = guarded(10);
    w.energy_reads = EnergyReads::WhenRead;
    let reads: Vec<bool> = (0..21)
        .map(|_| {
            let r = w.next_step_reads_energies();
            let mut s = Closing(Scripted(Box::new(|_: &mut StepContext| StepReport::default())));
            w.step(&mut s, 1e-3).unwrap();
            r
        })
        .collect();
    let expected: Vec<bool> = (1..=21).map(|k| k % 10 == 0).collect();
    assert_eq!(reads, expected);
    // An explosion in a reading step is caught at once, as under `EveryStep`.
    assert_eq!(explosion_stop(EnergyReads::WhenRead, 10, false), Some((10, 1)));
    // So is one in a step whose energies were asked for by hand.
    assert_eq!(explosion_stop(EnergyReads::WhenRead, 5, true), Some((5, 1)));
    // `EveryStep` (the default) reads on every step, whatever the guard's interval.
    let (w, _) = guarded(10);
    assert_eq!(w.energy_reads, EnergyReads::EveryStep);
    assert!(w.next_step_reads_energies());
}

#[test]
fn when_read_leaves_the_ledger_and_the_state_of_every_step_unchanged() {
    // A scripted step that changes the state and reports energies: the ledger and the
    // state after each step are the same, bit for bit, under both settings.
    let run = |reads: EnergyReads| {
        let (mut w, _) = guarded(3);
        w.energy_reads = reads;
        let mut s = Closing(Scripted(Box::new(|w: &mut StepContext| {
            w.bodies.velocity[0] *= 0.99;
            w.bodies.position[0].x += 1e-3;
            StepReport {
                stored_elastic: 1e-4 * w.step as f64,
                dissipated: granula_core::Dissipation { normal: 1e-5, ..Default::default() },
                external_work: 2e-6,
                ..Default::default()
            }
        })));
        (0..12)
            .map(|_| {
                w.step(&mut s, 1e-3).unwrap();
                (w.ledger, w.bodies.position[0], w.bodies.velocity[0], w.kinetic_energy())
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(run(EnergyReads::EveryStep), run(EnergyReads::WhenRead));
}

#[test]
fn non_finite_energies_stop_the_run_naming_the_account_and_body() {
    // A finite state whose kinetic energy overflows: ½ m v² with v = 1e160 m/s, caught in
    // its step when every step measures the energies (under `WhenRead` at the next reading
    // step).
    let mut w = World::builder()
        .gravity(DVec3::ZERO)
        .max_travel_ratio(f64::INFINITY)
        .energy_reads(EnergyReads::EveryStep)
        .build()
        .unwrap();
    w.insert(SphereBuilder::new(0.1, DVec3::ZERO).build().unwrap()).unwrap();
    let h = w.insert(SphereBuilder::new(0.1, DVec3::X).build().unwrap()).unwrap();
    let mut s = Scripted(Box::new(|w: &mut StepContext| {
        w.bodies.velocity[1] = DVec3::new(1e160, 0.0, 0.0);
        StepReport::default()
    }));
    let err = w.step(&mut s, 1e-3).unwrap_err();
    assert!(
        matches!(err, CoreError::NonFiniteEnergy { account: "kinetic energy", body: Some(b), step: 1, .. } if b == h),
        "{err}"
    );
    // An infinite energy in the report (with the guard off: every solver is checked).
    let mut w = World::builder().energy_guard(None).build().unwrap();
    let mut s =
        Scripted(Box::new(|_: &mut StepContext| StepReport { stored_elastic: f64::INFINITY, ..Default::default() }));
    let err = w.step(&mut s, 1e-3).unwrap_err();
    assert!(matches!(err, CoreError::NonFiniteEnergy { account: "stored energy", body: None, .. }), "{err}");
    let mut s = Scripted(Box::new(|_: &mut StepContext| StepReport { external_work: f64::NAN, ..Default::default() }));
    let err = w.step(&mut s, 1e-3).unwrap_err();
    assert!(matches!(err, CoreError::NonFiniteEnergy { account: "external work", .. }), "{err}");
    // The potential energy of a huge mass far from the origin.
    let mut w = World::builder().energy_reads(EnergyReads::EveryStep).build().unwrap();
    let h = w.insert(SphereBuilder::new(0.1, DVec3::new(0.0, 0.0, 1e10)).mass(1e300).build().unwrap()).unwrap();
    let err = w.step(&mut Scripted(Box::new(|_: &mut StepContext| StepReport::default())), 1e-3).unwrap_err();
    assert!(
        matches!(err, CoreError::NonFiniteEnergy { account: "potential energy", body: Some(b), .. } if b == h),
        "{err}"
    );
}

#[test]
fn a_non_finite_balance_at_a_check_is_an_immediate_stop() {
    // A report whose dissipation is the largest finite number twice: the ledger overflows
    // to infinity at the second step (the interval check would never count a NaN).
    let mut w = World::builder().gravity(DVec3::ZERO).build().unwrap();
    w.insert(SphereBuilder::new(0.1, DVec3::ZERO).build().unwrap()).unwrap();
    let mut s = Closing(Scripted(Box::new(|_: &mut StepContext| {
        let mut r = StepReport::default();
        r.dissipated.normal = f64::MAX;
        r
    })));
    w.step(&mut s, 1e-3).expect("finite");
    let err = w.step(&mut s, 1e-3).unwrap_err();
    assert!(matches!(err, CoreError::NonFiniteEnergy { account: "dissipated energy", step: 2, .. }), "{err}");
}

#[test]
fn a_sphere_moving_more_than_its_radius_in_a_step_is_an_error() {
    // 1 mm radius at 1000 m/s with Δt = 1e-5: 1 cm per step, ten radii.
    let mut w = World::builder().gravity(DVec3::ZERO).build().unwrap();
    let h = w
        .insert(SphereBuilder::new(1e-3, DVec3::ZERO).velocity(DVec3::new(1000.0, 0.0, 0.0)).build().unwrap())
        .unwrap();
    let mut s = Scripted(Box::new(|_: &mut StepContext| StepReport::default()));
    let err = w.step(&mut s, 1e-5).unwrap_err();
    match err {
        CoreError::ExcessiveTravel { body, distance, radius, limit, step, .. } => {
            assert_eq!((body, step, limit, radius), (h, 1, 1.0, 1e-3));
            // 1000 · 1e-5 up to the rounding of a product and a square root.
            assert!((distance - 1e-2).abs() < 1e-15, "{distance}");
        }
        other => panic!("expected ExcessiveTravel, got {other}"),
    }
    // Half a radius per step passes, as does any speed with the check off.
    let mut w = World::builder().gravity(DVec3::ZERO).build().unwrap();
    w.insert(SphereBuilder::new(1e-3, DVec3::ZERO).velocity(DVec3::new(50.0, 0.0, 0.0)).build().unwrap()).unwrap();
    w.step(&mut s, 1e-5).unwrap();
    let mut w = World::builder().gravity(DVec3::ZERO).max_travel_ratio(f64::INFINITY).build().unwrap();
    w.insert(SphereBuilder::new(1e-3, DVec3::ZERO).velocity(DVec3::new(1000.0, 0.0, 0.0)).build().unwrap()).unwrap();
    w.step(&mut s, 1e-5).unwrap();
    for bad in [0.0, -1.0, f64::NAN] {
        let err = World::builder().max_travel_ratio(bad).build().unwrap_err();
        assert!(matches!(err, CoreError::InvalidWorld { field: "max_travel_ratio", .. }), "{err}");
    }
}

#[test]
fn a_mass_that_underflows_is_rejected_at_insertion() {
    let mut w = world();
    // The material's density (2500) times (1e-200)³ underflows to zero.
    let err = w.insert(SphereBuilder::new(1e-200, DVec3::ZERO).build().unwrap()).unwrap_err();
    assert!(matches!(err, CoreError::InvalidBody { field: "mass", .. }), "{err}");
    assert!(err.to_string().contains("underflows"), "{err}");
    // In planar mode too (a disc: ρ π r²).
    let mut w = World::builder().planar(true).build().unwrap();
    let err = w.insert(SphereBuilder::new(1e-170, DVec3::ZERO).build().unwrap()).unwrap_err();
    assert!(matches!(err, CoreError::InvalidBody { field: "mass", .. }), "{err}");
    // As a wall it is fine.
    w.insert(SphereBuilder::new(1e-200, DVec3::ZERO).fixed().build().unwrap()).unwrap();
}

#[test]
fn the_energy_guard_memory_carries_its_strikes_across_a_restore() {
    // The doubling solver of the test above with checks every 2 steps: baseline at step 2,
    // strikes at 4 and 6, so the run stops at step 6. A world resumed after step 5 with the
    // guard's memory stops at step 6 too; without it, the resumed guard takes a new
    // baseline at step 6 and would stop only at step 10.
    let doubling = || {
        Closing(Scripted(Box::new(|w: &mut StepContext| {
            w.bodies.velocity[0] *= 2.0;
            StepReport::default()
        })))
    };
    let (mut a, _) = guarded(2);
    let mut s = doubling();
    for _ in 0..5 {
        a.step(&mut s, 1e-3).unwrap();
    }
    let memory = a.guard_memory();
    assert!(memory.last_check.is_some_and(|c| c.strikes == 1) && memory.one_step_armed, "{memory:?}");
    let resumed = |restore: bool| {
        let (mut b, _) = guarded(2);
        b.bodies.velocity[0] = a.bodies.velocity[0];
        b.set_clock(a.clock()).unwrap();
        if restore {
            b.restore_guard_memory(memory).unwrap();
            assert_eq!(b.guard_memory(), memory, "the memory reads back as saved");
        }
        let mut s = doubling();
        (0..5).find_map(|_| b.step(&mut s, 1e-3).err())
    };
    let err = resumed(true).expect("the restored guard stops the run");
    assert!(matches!(err, CoreError::EnergyRunaway { step: 6, .. }), "{err}");
    let err = resumed(false).expect("a fresh guard stops later");
    assert!(matches!(err, CoreError::EnergyRunaway { step: 10, .. }), "{err}");
    // Saved accounts that no run writes are refused, naming the field.
    let mut bad = memory;
    bad.last_check.as_mut().unwrap().kinetic = f64::NAN;
    let err = guarded(2).0.restore_guard_memory(bad).unwrap_err();
    assert!(err.to_string().contains("guard kinetic energy"), "{err}");
}
