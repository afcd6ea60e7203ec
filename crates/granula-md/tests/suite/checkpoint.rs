//! Checkpoint and restart of the MD solver: n + m steps straight against n steps, save
//! (through bincode, as a checkpoint file does), a fresh world and solver restored from it,
//! m steps. Bit-identical with the histories, integrator memory, kinematic power, the
//! orientations of the last force evaluation, the candidate list and the skin state
//! restored (also over 5000 steps of a 180-sphere crowd whose force pass has several blocks,
//! on one and two threads); measurably different without the histories, and (for the
//! predictor elongation of 002 eq. 15) without those orientations. Inconsistent states are
//! refused.

use granula_broadphase::BruteForce;
use granula_core::{ContactLaw, DVec3, Integrator, Material, MaterialId, SphereBuilder, World};
use granula_integrators::{Gear, VelocityVerlet};
use granula_laws::{
    Composed, CundallStrack, Hertz, HertzViscous, PredictorElongation, RollingResistance, RotationalIncrement,
    TwistingResistance,
};
use granula_md::{MdConfig, MdSolver, MdState};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::common;

const R: f64 = 0.01;
/// Δt ≈ t_c/100 for the Hertz contact of the default material (E = 1e7 Pa) at 0.3 m/s.
const DT: f64 = 2e-5;
const N_BEFORE: usize = 150;
const M_AFTER: usize = 100;

/// 27 spheres in a box of planes, 0.4 mm apart, random velocities and spins, gravity: they
/// collide and slide on each other and the walls within the first steps.
fn scene() -> World {
    let material = Material { friction: 0.4, rolling_friction: 0.05, torsion_friction: 0.05, ..Material::default() };
    let mut w = World::builder().gravity(DVec3::new(0.0, 0.0, -9.81)).material(material).build().unwrap();
    let l = 2.04 * R * 3.0;
    w.insert_open_box(DVec3::ZERO, l, l, MaterialId(0)).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for i in 0..3 {
        for j in 0..3 {
            for k in 0..3 {
                let x = DVec3::new(
                    1.02 * R * (2 * i + 1) as f64,
                    1.02 * R * (2 * j + 1) as f64,
                    1.02 * R * (2 * k + 1) as f64,
                );
                let mut r = || {
                    DVec3::new(rng.random_range(-0.3..0.3), rng.random_range(-0.3..0.3), rng.random_range(-0.3..0.3))
                };
                let (v, omega) = (r(), r() * 30.0);
                w.insert(SphereBuilder::new(R, x).velocity(v).angular_velocity(omega).build().unwrap()).unwrap();
            }
        }
    }
    w
}

type Law = Composed<Hertz, HertzViscous, CundallStrack, RollingResistance, TwistingResistance>;
type History = <Law as granula_core::ContactLaw>::History;

fn law() -> Law {
    Composed::new(Hertz::from_material(), HertzViscous::from_material(), CundallStrack::from_material())
        .with_rolling(RollingResistance::from_material())
        .with_twisting(TwistingResistance::from_material())
}

fn solver<I: Integrator>(integrator: I) -> MdSolver<Law, I, BruteForce> {
    solver_of(law(), integrator)
}

fn solver_of<L: ContactLaw, I: Integrator>(law: L, integrator: I) -> MdSolver<L, I, BruteForce> {
    MdSolver::new(law, integrator, BruteForce, MdConfig { skin: 5e-4, ..Default::default() }).unwrap()
}

/// Hertz with the predictor elongation whose rotational part comes from the bodies'
/// orientations (002 eq. 15).
type PredictorLaw = Composed<Hertz, HertzViscous, PredictorElongation>;

fn predictor_law() -> PredictorLaw {
    Composed::new(
        Hertz::from_material(),
        HertzViscous::from_material(),
        PredictorElongation::from_material(RotationalIncrement::FromOrientations),
    )
}

fn same(a: &World, b: &World) -> bool {
    let (x, y) = (&a.bodies, &b.bodies);
    x.position == y.position
        && x.velocity == y.velocity
        && x.orientation == y.orientation
        && x.angular_velocity == y.angular_velocity
        && a.ledger == b.ledger
}

/// Straight run vs. restarted run; `edit` may spoil the state before it is restored.
fn restart_matches<I: Integrator>(make: impl Fn() -> I, edit: impl Fn(&mut MdState<History>)) -> bool {
    let loaded = |state: &MdState<History>| {
        assert!(state.histories.iter().filter(|h| h.tangential.xi != DVec3::ZERO).count() > 5);
        assert!(state.histories.iter().any(|h| h.rolling.xi != DVec3::ZERO && h.twisting.angle != 0.0));
    };
    restart_matches_with(law, make, loaded, edit)
}

/// [`restart_matches`] for any law; `loaded` checks that the saved state is worth testing.
fn restart_matches_with<L, I>(
    make_law: impl Fn() -> L,
    make: impl Fn() -> I,
    loaded: impl Fn(&MdState<L::History>),
    edit: impl Fn(&mut MdState<L::History>),
) -> bool
where
    L: ContactLaw,
    L::History: serde::Serialize + serde::de::DeserializeOwned,
    I: Integrator,
{
    let mut straight = scene();
    let mut s = solver_of(make_law(), make());
    for _ in 0..N_BEFORE + M_AFTER {
        straight.step(&mut s, DT).unwrap();
    }

    let mut first = scene();
    let mut s1 = solver_of(make_law(), make());
    for _ in 0..N_BEFORE {
        first.step(&mut s1, DT).unwrap();
    }
    let bytes = bincode::serialize(&s1.save_state()).unwrap();
    // The test is only meaningful with loaded tangential springs in the saved state.
    let mut state: MdState<L::History> = bincode::deserialize(&bytes).unwrap();
    loaded(&state);
    edit(&mut state);

    let mut resumed = scene();
    common::copy_world(&first, &mut resumed);
    let mut s2 = solver_of(make_law(), make());
    s2.restore_state(&state, &resumed).unwrap();
    for _ in 0..M_AFTER {
        resumed.step(&mut s2, DT).unwrap();
    }
    same(&straight, &resumed)
}

#[test]
fn hertz_mindlin_under_gear6_restarts_bit_identically() {
    assert!(restart_matches(Gear::six, |_| {}));
}

#[test]
fn hertz_mindlin_under_verlet_restarts_bit_identically() {
    assert!(restart_matches(VelocityVerlet::new, |_| {}));
}

#[test]
fn the_batched_hertz_mindlin_restarts_bit_identically() {
    // hertz_mindlin() runs through its batched (vector) form: the restart must not depend on
    // which contacts shared a batch.
    let law = granula_laws::hertz_mindlin;
    assert!(law().batches());
    let loaded = |state: &MdState<<granula_laws::HertzMindlin as ContactLaw>::History>| {
        assert!(state.histories.iter().filter(|h| h.tangential.xi != DVec3::ZERO).count() > 5);
    };
    assert!(restart_matches_with(law, VelocityVerlet::new, loaded, |_| {}));
    // And it can fail: without the springs the continued run differs.
    let dropped = |s: &mut MdState<<granula_laws::HertzMindlin as ContactLaw>::History>| {
        s.histories.iter_mut().for_each(|h| *h = Default::default())
    };
    assert!(!restart_matches_with(law, VelocityVerlet::new, loaded, dropped));
}

#[test]
fn restart_without_histories_or_integrator_memory_differs() {
    // The comparison can fail: dropping the tangential, rolling and twisting springs, or
    // Gear's higher derivatives, changes the continued run.
    assert!(!restart_matches(Gear::six, |s| s.histories.iter_mut().for_each(|h| *h = Default::default())));
    assert!(!restart_matches(Gear::six, |s| s.integrator.per_body.iter_mut().for_each(|v| *v = 0.0)));
}

#[test]
fn predictor_elongation_from_orientations_restarts_bit_identically() {
    let loaded = |s: &MdState<<PredictorLaw as ContactLaw>::History>| {
        assert!(s.histories.iter().filter(|h| h.tangential.xi != DVec3::ZERO).count() > 5);
    };
    assert!(restart_matches_with(predictor_law, Gear::six, loaded, |_| {}));
    // The comparison can fail: measuring the next rotations from the saved (end-of-step,
    // corrected) orientations instead of those of the last force evaluation (predicted)
    // changes the continued run.
    let mut end = scene();
    let mut s = solver_of(predictor_law(), Gear::six());
    for _ in 0..N_BEFORE {
        end.step(&mut s, DT).unwrap();
    }
    let corrected = end.bodies.orientation.clone();
    assert_ne!(s.save_state().orientations, corrected, "predicted and corrected orientations differ");
    assert!(!restart_matches_with(predictor_law, Gear::six, loaded, |st| st.orientations.clone_from(&corrected)));
}

#[test]
fn a_state_naming_missing_bodies_is_rejected() {
    let mut w = scene();
    let mut s = solver(Gear::six());
    for _ in 0..N_BEFORE {
        w.step(&mut s, DT).unwrap();
    }
    let mut state = s.save_state();
    state.keys[0].body2 = granula_core::BodyHandle(10_000);
    assert!(solver(Gear::six()).restore_state(&state, &w).is_err());
    let mut short = s.save_state();
    short.stored.pop();
    assert!(solver(Gear::six()).restore_state(&short, &w).is_err());
    let mut few = s.save_state();
    few.orientations.pop();
    assert!(solver(Gear::six()).restore_state(&few, &w).is_err(), "one orientation per body");
}

/// The shared crowd of 180 spheres (`common::crowd`).
fn crowd() -> World {
    common::crowd(R)
}

/// `n` steps, save through bincode, restore into a fresh world and solver, `m` steps, against
/// `n + m` steps straight; `config` for both solvers.
fn crowd_restart_matches<I: Integrator>(make: impl Fn() -> I, config: MdConfig, n: usize, m: usize) -> bool {
    let new = || MdSolver::new(law(), make(), granula_broadphase::SweepAndPrune::new(), config).unwrap();
    let mut straight = crowd();
    let mut s = new();
    for _ in 0..n + m {
        straight.step(&mut s, DT).unwrap();
    }
    let mut first = crowd();
    let mut s1 = new();
    for _ in 0..n {
        first.step(&mut s1, DT).unwrap();
    }
    assert!(s1.candidate_pairs() > 256, "several blocks of pairs: {}", s1.candidate_pairs());
    let state: MdState<History> = bincode::deserialize(&bincode::serialize(&s1.save_state()).unwrap()).unwrap();
    let mut resumed = crowd();
    common::copy_world(&first, &mut resumed);
    let mut s2 = new();
    s2.restore_state(&state, &resumed).unwrap();
    for _ in 0..m {
        resumed.step(&mut s2, DT).unwrap();
    }
    assert!(s.rebuilds() > 10, "the list was rebuilt many times: {}", s.rebuilds());
    let bits = |st: &MdState<History>| bincode::serialize(st).unwrap();
    // The bodies first, then the solver's state (histories, skin, counters).
    same(&straight, &resumed) && bits(&s.save_state()) == bits(&s2.save_state())
}

/// Stopped between two rebuilds of the candidate list, resumed, 5000 more steps: the same
/// bits as straight through, with the pairs' blocks run in parallel on two threads and in
/// place on one. It failed when the restored solver rebuilt its list at its first step.
#[test]
fn a_crowd_restarts_bit_identically_over_5000_steps_on_one_and_two_threads() {
    for threads in [1, 2] {
        let config = MdConfig { skin: 5e-4, threads: Some(threads), parallel_min_pairs: 0, ..Default::default() };
        assert!(crowd_restart_matches(VelocityVerlet::new, config, 1237, 5000), "{threads} thread(s), Verlet");
        assert!(crowd_restart_matches(Gear::five, config, 611, 5000), "{threads} thread(s), Gear-5");
    }
}

#[test]
fn an_inconsistent_candidate_list_or_skin_state_is_rejected() {
    let mut w = scene();
    let mut s = solver(Gear::six());
    for _ in 0..N_BEFORE {
        w.step(&mut s, DT).unwrap();
    }
    let state = s.save_state();
    assert!(state.primed && state.keys.len() > 2);
    let refused = |edit: &dyn Fn(&mut MdState<History>)| {
        let mut st = state.clone();
        edit(&mut st);
        solver(Gear::six()).restore_state(&st, &w).is_err()
    };
    assert!(!refused(&|_| {}));
    assert!(refused(&|st| st.keys.swap(0, 1)), "candidates out of order");
    assert!(refused(&|st| st.keys[1] = st.keys[0]), "a duplicate candidate");
    assert!(
        refused(&|st| {
            let k = &mut st.keys[0];
            (k.body1, k.body2) = (k.body2, k.body1);
        }),
        "body 1 with the larger handle"
    );
    assert!(refused(&|st| st.keys[0].feature = 3), "a feature on a sphere pair");
    assert!(refused(&|st| {
        st.reference_position.pop();
    }));
    assert!(refused(&|st| st.reference_position[3].x = f64::NAN));
    assert!(refused(&|st| st.broadphase.reference_skip.clear()));
    assert!(refused(&|st| st.broadphase.pairs.push((0, 40))));
    assert!(refused(&|st| st.broadphase.pairs.reverse()));
    assert!(refused(&|st| st.stored[0] = f64::INFINITY));
    assert!(refused(&|st| st.kinematic_power = f64::NAN));
}
