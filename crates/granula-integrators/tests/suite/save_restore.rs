//! Checkpoints of integrator memory: a fresh integrator restored from a saved state continues
//! bit-identically, and one that is not restored does not.

use crate::common::LentLoads;
use granula_core::{BodySet, DVec3, Integrator, IntegratorState, Material, MaterialTable, SphereBuilder};
use granula_integrators::{Gear, SymplecticEuler, VelocityVerlet};

const GRAVITY: DVec3 = DVec3::new(0.0, 0.0, -9.81);
const DT: f64 = 1e-3;

/// Two spheres on nonlinear, velocity-dependent springs (so that accelerations at the
/// half-step velocities differ from those at the end of the step) with spin.
fn bodies() -> BodySet {
    let mut t = MaterialTable::new();
    t.add(Material::default()).unwrap();
    let mut b = BodySet::default();
    for (x, v) in [(DVec3::X, DVec3::new(0.3, -0.2, 0.1)), (DVec3::new(-0.5, 0.2, 0.1), DVec3::new(0.0, 0.4, -0.3))] {
        let s = SphereBuilder::new(0.1, x).velocity(v).angular_velocity(v * 3.0).mass(1.0).build().unwrap();
        b.insert(&s, &t, false).unwrap();
    }
    b
}

fn loads(b: &mut BodySet) {
    for i in 0..b.len() {
        let x = b.position[i];
        b.force[i] = -x * (1.0 + x.length_squared()) - b.velocity[i] * 0.3;
        b.torque[i] = -b.angular_velocity[i] * 1e-3;
    }
}

fn steps(integ: &mut dyn Integrator, b: &mut BodySet, from: usize, n: usize) {
    for s in from..from + n {
        let t = s as f64 * DT;
        integ.predict_lent(b, GRAVITY, t, DT);
        loads(b);
        integ.correct_lent(b, GRAVITY, t, DT);
    }
}

/// Runs 30 + 20 steps straight, and 30 steps, save, a fresh integrator (`fresh`) with the
/// state restored (or not), loads re-evaluated, 20 steps; returns whether the end states are bit-identical.
fn resumes_exactly(make: impl Fn() -> Box<dyn Integrator>, restore: bool) -> bool {
    let mut straight = bodies();
    loads(&mut straight);
    let mut a = make();
    steps(a.as_mut(), &mut straight, 0, 50);

    let mut resumed = bodies();
    loads(&mut resumed);
    let mut b = make();
    steps(b.as_mut(), &mut resumed, 0, 30);
    // The state goes through a copy only, as a checkpoint's bincode round trip is bit-exact.
    let saved: IntegratorState = b.save_state();
    let mut c = make();
    if restore {
        c.restore_state(&saved, &resumed).unwrap();
    }
    // A restarted solver re-evaluates the loads at the restored (end-of-step) state before
    // its first step, as granula-md's MdSolver does.
    loads(&mut resumed);
    steps(c.as_mut(), &mut resumed, 30, 20);
    straight.position == resumed.position
        && straight.velocity == resumed.velocity
        && straight.orientation == resumed.orientation
        && straight.angular_velocity == resumed.angular_velocity
}

#[test]
fn gear_resumes_bit_identically_only_with_its_state() {
    for values in [4, 5, 6] {
        let make = || -> Box<dyn Integrator> {
            Box::new(match values {
                4 => Gear::four(),
                5 => Gear::five(),
                _ => Gear::six(),
            })
        };
        assert!(resumes_exactly(make, true));
        // Without the higher derivatives the restart is a new start-up: it must differ.
        assert!(!resumes_exactly(make, false));
    }
}

#[test]
fn verlet_resumes_bit_identically_only_with_its_state() {
    let make = || Box::new(VelocityVerlet::new()) as Box<dyn Integrator>;
    assert!(resumes_exactly(make, true));
    // The loads depend on velocity: accelerations recomputed from the end-of-step loads
    // differ from the stored ones, evaluated at the half-step velocities.
    assert!(!resumes_exactly(make, false));
}

#[test]
fn symplectic_euler_keeps_nothing() {
    let s = SymplecticEuler::new();
    assert_eq!(s.save_state(), IntegratorState::default());
    assert!(resumes_exactly(|| Box::new(SymplecticEuler::new()), true));
}

#[test]
fn a_foreign_state_is_rejected() {
    let mut b = bodies();
    loads(&mut b);
    let mut g = Gear::six();
    steps(&mut g, &mut b, 0, 3);
    let saved = g.save_state();
    assert_eq!(saved.values_per_body(), 24);
    assert!(Gear::four().restore_state(&saved, &b).is_err());
    assert!(VelocityVerlet::new().restore_state(&saved, &b).is_err());
    assert!(SymplecticEuler::new().restore_state(&saved, &b).is_err());
    let mut short = saved.clone();
    short.per_body.pop();
    assert!(Gear::six().restore_state(&short, &b).is_err());
}
