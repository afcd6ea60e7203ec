//! Bodies in space-filling-curve order (`MdConfig::reorder_every`): a crowd stored in a
//! random dense order, run with and without reorders. Only the order in which forces are
//! summed changes, so the physics agrees to round-off and the contact counts are equal; the
//! run with reorders gives the same bits on one and two threads, and a restart just before
//! or just after a reorder continues bit-identically.

use granula_broadphase::SweepAndPrune;
use granula_core::{BodyHandle, DVec3, Integrator, Permutation, Prescribed, SphereBuilder, World};
use granula_integrators::{Gear, VelocityVerlet};
use granula_laws::{Composed, CundallStrack, Hertz, HertzViscous, RollingResistance, TwistingResistance};
use granula_md::{MdConfig, MdSolver, MdState};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::common;

const R: f64 = 0.01;
/// Δt ≈ t_c/100 for the Hertz contact of the default material (E = 1e7 Pa) at 0.3 m/s.
const DT: f64 = 2e-5;

type Law = Composed<Hertz, HertzViscous, CundallStrack, RollingResistance, TwistingResistance>;
type History = <Law as granula_core::ContactLaw>::History;

fn law() -> Law {
    Composed::new(Hertz::from_material(), HertzViscous::from_material(), CundallStrack::from_material())
        .with_rolling(RollingResistance::from_material())
        .with_twisting(TwistingResistance::from_material())
}

/// 180 spheres in a lattice with random velocities and spins in a box of five planes, one
/// more sphere driven at constant velocity through them, every body stored in a random
/// dense order (handles in insertion order).
fn crowd() -> World {
    let mut w = common::crowd(R);
    let driven = SphereBuilder::new(0.5 * R, DVec3::new(0.5 * R, 6.0 * R, 12.0 * R))
        .kinematic(Prescribed::Constant(DVec3::new(0.5, 0.0, 0.0)), Prescribed::Constant(DVec3::ZERO))
        .build()
        .unwrap();
    w.insert(driven).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    let mut sources: Vec<u32> = (0..w.bodies.len() as u32).collect();
    for k in (1..sources.len()).rev() {
        sources.swap(k, rng.random_range(0..=k));
    }
    w.reorder_bodies(&Permutation::from_sources(sources).unwrap()).unwrap();
    w
}

fn solver<I: Integrator>(integrator: I, threads: usize, reorder_every: Option<u32>) -> MdSolver<Law, I, SweepAndPrune> {
    let config =
        MdConfig { skin: 5e-4, threads: Some(threads), parallel_min_pairs: 0, reorder_every, ..Default::default() };
    MdSolver::new(law(), integrator, SweepAndPrune::new(), config).unwrap()
}

/// Per handle: position, velocity, angular velocity of every body.
fn by_handle(w: &World) -> Vec<(BodyHandle, [DVec3; 3])> {
    let b = &w.bodies;
    let mut v: Vec<_> =
        (0..b.len()).map(|i| (b.handle[i], [b.position[i], b.velocity[i], b.angular_velocity[i]])).collect();
    v.sort_by_key(|e| e.0);
    v
}

/// `steps` steps with and without reorders every 2 rebuilds: the contact count of every
/// step is the same, and the largest difference of position (m) and of velocity (m/s) of
/// any body at the end is returned, with the reorders done.
fn reorder_against_none<I: Integrator>(make: impl Fn() -> I, steps: usize) -> (f64, f64, u64) {
    let (mut plain, mut sorted) = (crowd(), crowd());
    let (mut a, mut b) = (solver(make(), 1, None), solver(make(), 1, Some(2)));
    for s in 0..steps {
        let (ra, rb) = (plain.step(&mut a, DT).unwrap(), sorted.step(&mut b, DT).unwrap());
        assert_eq!(ra.contacts, rb.contacts, "contacts at step {s}");
        assert_eq!(ra.status, rb.status, "contact statuses at step {s}");
    }
    assert!(b.rebuilds() > 10, "the list was rebuilt often: {}", b.rebuilds());
    let (mut dx, mut dv) = (0.0_f64, 0.0_f64);
    for ((ha, [xa, va, _]), (hb, [xb, vb, _])) in by_handle(&plain).into_iter().zip(by_handle(&sorted)) {
        assert_eq!(ha, hb);
        dx = dx.max((xa - xb).abs().max_element());
        dv = dv.max((va - vb).abs().max_element());
    }
    // The bodies did move to another dense order, and the walls and the driven sphere with it.
    assert_ne!(plain.bodies.handle, sorted.bodies.handle);
    (dx, dv, b.reorders())
}

/// 600 steps (12 ms, about a contact time and a half at 0.3 m/s): the runs differ only by
/// the summation order of each body's forces, last-bit differences (one ulp of a force sum)
/// that the collisions amplify. Measured: at most 2.8e-17 m on positions (two ulps of a
/// coordinate of 0.1 m) and 7.9e-15 m/s on velocities after 9 reorders. Bound: 1e-11 R
/// (1e-13 m) and 1e-11 m/s, over a thousand times the measured spread (room for another
/// platform's rounding of the same operations) and still eleven orders below the radius
/// and the 0.3 m/s speeds: a reorder that lost a history or a body's integrator memory
/// would move bodies by micrometres within a few steps.
#[test]
fn reorders_change_the_physics_only_by_round_off() {
    for (name, (dx, dv, reorders)) in [
        ("velocity Verlet", reorder_against_none(VelocityVerlet::new, 600)),
        ("Gear-5", reorder_against_none(Gear::five, 600)),
    ] {
        eprintln!("{name}: max |dx| = {dx:e} m, max |dv| = {dv:e} m/s, {reorders} reorders");
        assert!(reorders >= 3, "{name}: {reorders} reorders");
        assert!(dx < 1e-11 * R, "{name}: position differs by {dx:e} m");
        assert!(dv < 1e-11, "{name}: velocity differs by {dv:e} m/s");
    }
}

/// The same bits on one and two threads, with reorders.
#[test]
fn reorders_give_the_same_bits_on_one_and_two_threads() {
    let run = |threads| {
        let mut w = crowd();
        let mut s = solver(VelocityVerlet::new(), threads, Some(2));
        for _ in 0..800 {
            w.step(&mut s, DT).unwrap();
        }
        assert!(s.reorders() >= 3, "{} reorders", s.reorders());
        let b = &w.bodies;
        (b.handle.clone(), b.position.clone(), b.velocity.clone(), b.angular_velocity.clone(), b.orientation.clone())
    };
    assert!(run(1) == run(2));
}

/// The dense columns of a state saved from a run with reorders copied into a world built
/// afresh: first brought to the saved dense order (`MdState::primed_handles`).
fn resume_world(from: &World, state: &MdState<History>) -> World {
    let mut w = crowd();
    w.reorder_bodies(&w.bodies.permutation_to(&state.primed_handles).unwrap()).unwrap();
    assert_eq!(w.bodies.handle, from.bodies.handle);
    common::copy_world(from, &mut w);
    w
}

/// Stopped after `n` steps, saved through bincode, resumed in a fresh world and solver for
/// `m` more steps: the same bits as `n + m` steps straight (bodies, dense order, solver
/// state).
fn restart_matches<I: Integrator>(make: impl Fn() -> I, n: usize, m: usize) -> bool {
    let mut straight = crowd();
    let mut s = solver(make(), 2, Some(2));
    for _ in 0..n + m {
        straight.step(&mut s, DT).unwrap();
    }
    let mut first = crowd();
    let mut s1 = solver(make(), 2, Some(2));
    for _ in 0..n {
        first.step(&mut s1, DT).unwrap();
    }
    let state: MdState<History> = bincode::deserialize(&bincode::serialize(&s1.save_state()).unwrap()).unwrap();
    let mut resumed = resume_world(&first, &state);
    let mut s2 = solver(make(), 2, Some(2));
    s2.restore_state(&state, &resumed).unwrap();
    for _ in 0..m {
        resumed.step(&mut s2, DT).unwrap();
    }
    let bits = |st: &MdState<History>| bincode::serialize(st).unwrap();
    let b = (&straight.bodies, &resumed.bodies);
    b.0.handle == b.1.handle
        && b.0.position == b.1.position
        && b.0.velocity == b.1.velocity
        && b.0.angular_velocity == b.1.angular_velocity
        && b.0.orientation == b.1.orientation
        && straight.ledger == resumed.ledger
        && s.reorders() == s2.reorders()
        && bits(&s.save_state()) == bits(&s2.save_state())
}

/// The steps after which the next step reorders (`before`) and the steps that reordered
/// (`after`), from a run with reorders.
fn reorder_steps<I: Integrator>(make: impl Fn() -> I, steps: usize) -> (Vec<usize>, Vec<usize>) {
    let mut w = crowd();
    let mut s = solver(make(), 1, Some(2));
    let (mut before, mut after) = (Vec::new(), Vec::new());
    for k in 0..steps {
        let done = s.reorders();
        w.step(&mut s, DT).unwrap();
        if s.reorders() > done && k > 0 {
            before.push(k);
            after.push(k + 1);
        }
    }
    (before, after)
}

/// Interrupted just before a reorder step and just after one, on two threads, for velocity
/// Verlet and Gear-5: the resumed runs continue with the same reorders at the same steps and
/// end with the same bits.
#[test]
fn a_restart_just_before_or_after_a_reorder_is_bit_identical() {
    let (before, after) = reorder_steps(VelocityVerlet::new, 600);
    assert!(before.len() >= 2, "reorders at {before:?}");
    assert!(
        restart_matches(VelocityVerlet::new, before[1], 300),
        "Verlet, cut before the reorder of step {}",
        after[1]
    );
    assert!(restart_matches(VelocityVerlet::new, after[1], 300), "Verlet, cut after the reorder of step {}", after[1]);
    let (before, after) = reorder_steps(Gear::five, 600);
    assert!(restart_matches(Gear::five, before[1], 300), "Gear-5, cut before the reorder of step {}", after[1]);
    assert!(restart_matches(Gear::five, after[1], 300), "Gear-5, cut after the reorder of step {}", after[1]);
}

/// A run with foreign bodies (a distributed run's ghosts) keeps its numbering; a zero
/// interval is refused by name.
#[test]
fn no_reorder_with_foreign_bodies_and_a_zero_interval_is_refused() {
    let mut w = crowd();
    let mut s = solver(VelocityVerlet::new(), 1, Some(1));
    let mut foreign = vec![false; w.bodies.len()];
    foreign[3] = true;
    s.set_foreign_bodies(&foreign);
    let order = w.bodies.handle.clone();
    for _ in 0..100 {
        w.step(&mut s, DT).unwrap();
    }
    assert_eq!(s.reorders(), 0);
    assert_eq!(w.bodies.handle, order);
    let config = MdConfig { reorder_every: Some(0), ..Default::default() };
    let e = MdSolver::new(law(), VelocityVerlet::new(), SweepAndPrune::new(), config).err().unwrap().to_string();
    assert!(e.contains("reorder_every"), "{e}");
}
