//! The step as one parallel region against the path of separate parallel loops: the same
//! bits (positions, orientations, velocities, spins, the energy ledger, the contacts of every
//! step, the solver's saved state with its contact histories) on one, two and three threads,
//! over a dense box with five walls, a kinematic piston and rebuilds of the candidate list
//! inside the run; with local damping; across a checkpoint restart in the middle of the run.
//! Gear has no range forms, keeps the other path and gives the same bits on 1 and 2 threads.

mod common;

use granula_broadphase::LinkedCells;
use granula_core::{DVec3, Integrator, Material, MaterialId, PlaneBuilder, Prescribed, Solver, SphereBuilder, World};
use granula_integrators::{Gear, VelocityVerlet};
use granula_laws::{hertz_mindlin, LocalDamping};
use granula_md::{MdConfig, MdSolver, MdState};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const R: f64 = 0.01;
/// About t_c/50 for the Hertz contact of E = 1e7 Pa at 0.3 m/s (t_c ≈ 2.6 ms).
const DT: f64 = 5e-5;
/// Steps of every run: enough for the spheres to settle into lasting contacts, cross
/// several rebuilds of the list (checked) and load the tangential springs.
const STEPS: usize = 300;
/// The step of the checkpoint in the restart test, between two rebuilds or not: any step.
const SAVED_AT: usize = 137;

type Law = granula_laws::HertzMindlin;
type History = <Law as granula_core::ContactLaw>::History;

/// 8³ spheres 0.2 mm apart with random velocities and spins, falling into an open box of
/// five planes, with a sixth plane moving in as a piston along x (a kinematic body, whose
/// power enters the ledger).
fn scene() -> World {
    let material = Material { young_modulus: 1e7, restitution: 0.5, friction: 0.5, ..Material::default() };
    let mut w = World::builder().gravity(DVec3::new(0.0, 0.0, -9.81)).material(material).build().unwrap();
    let n = 8;
    let l = 2.02 * R * n as f64;
    w.insert_open_box(DVec3::ZERO, l, l, MaterialId(0)).unwrap();
    let piston = PlaneBuilder::new(DVec3::new(l - 1e-4, 0.0, 0.0), -DVec3::X)
        .kinematic(Prescribed::Constant(DVec3::new(-0.05, 0.0, 0.0)), Prescribed::Constant(DVec3::ZERO))
        .build()
        .unwrap();
    w.insert(piston).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for i in 0..n {
        for j in 0..n {
            for k in 0..n {
                let x = DVec3::splat(1.01 * R) * DVec3::new((2 * i + 1) as f64, (2 * j + 1) as f64, (2 * k + 1) as f64);
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

fn config(threads: usize, damping: bool) -> MdConfig {
    MdConfig {
        // A small skin: the list is rebuilt a few times in the run.
        skin: 1e-4,
        threads: Some(threads),
        // Every step uses the threads, however short its list.
        parallel_min_pairs: 0,
        local_damping: damping.then(|| LocalDamping::new(0.1).unwrap()),
        ..Default::default()
    }
}

fn solver<I: Integrator>(integrator: I, threads: usize, damping: bool, region: bool) -> MdSolver<Law, I, LinkedCells> {
    let mut s = MdSolver::new(hertz_mindlin(), integrator, LinkedCells::new(), config(threads, damping)).unwrap();
    s.set_step_region(region);
    s
}

/// Everything a run leaves, as bits: the bodies' state, the ledger, the contacts and the
/// largest overlap of every step, and the solver's saved state (contact histories, stored
/// energies, integrator memory, skin layer).
fn bits<I: Integrator>(w: &World, s: &MdSolver<Law, I, LinkedCells>, reports: &[(usize, u64)]) -> Vec<u64> {
    let b = &w.bodies;
    let vectors = b.position.iter().chain(&b.velocity).chain(&b.angular_velocity);
    let mut out: Vec<u64> = vectors.flat_map(|v| v.to_array()).map(f64::to_bits).collect();
    out.extend(b.orientation.iter().flat_map(|q| q.to_array()).map(f64::to_bits));
    let l = &w.ledger;
    out.extend(
        [l.stored_elastic, l.dissipated.normal, l.dissipated.sliding, l.dissipated.body_damping, l.external_work]
            .map(f64::to_bits),
    );
    out.extend(reports.iter().flat_map(|&(contacts, overlap)| [contacts as u64, overlap]));
    let state: MdState<History> = s.save_state();
    out.extend(bincode::serialize(&state).unwrap().into_iter().map(u64::from));
    out
}

/// `steps` steps of `s` on `w`, with each step's contacts and largest overlap.
fn advance<I: Integrator>(w: &mut World, s: &mut MdSolver<Law, I, LinkedCells>, steps: usize) -> Vec<(usize, u64)> {
    (0..steps)
        .map(|_| {
            let r = w.step(s, DT).unwrap();
            (r.contacts, r.max_overlap.to_bits())
        })
        .collect()
}

/// The whole run of velocity Verlet on `threads` threads, in the region or not.
fn verlet_run(threads: usize, damping: bool, region: bool) -> (Vec<u64>, u64, usize) {
    let mut w = scene();
    let mut s = solver(VelocityVerlet::new(), threads, damping, region);
    assert_eq!(s.uses_step_region(), region);
    let reports = advance(&mut w, &mut s, STEPS);
    let contacts = reports.iter().map(|r| r.0).sum();
    (bits(&w, &s, &reports), s.rebuilds(), contacts)
}

fn same_bits_in_and_out_of_the_region(damping: bool) {
    let (reference, rebuilds, contacts) = verlet_run(1, damping, false);
    // The comparison must cover rebuilds inside the run (the first step builds the list)
    // and loaded contacts: about one per sphere on average once settled.
    assert!(rebuilds >= 3, "{rebuilds} rebuilds");
    assert!(contacts > 512 * STEPS / 2, "{contacts} contacts over {STEPS} steps");
    for threads in [1, 2, 3] {
        assert!(reference == verlet_run(threads, damping, true).0, "region on {threads} thread(s), damping {damping}");
    }
    assert!(reference == verlet_run(2, damping, false).0, "loops on 2 threads, damping {damping}");
}

#[test]
fn the_region_gives_the_bits_of_the_parallel_loops_on_one_two_and_three_threads() {
    same_bits_in_and_out_of_the_region(false);
}

#[test]
fn the_region_with_local_damping_gives_the_same_bits() {
    same_bits_in_and_out_of_the_region(true);
}

/// Copies the state of a run into a fresh world of the same scene (as a restart does).
fn resume_from(saved: &World) -> World {
    let mut w = scene();
    common::copy_world(saved, &mut w);
    w
}

#[test]
fn a_run_restarted_in_the_region_gives_the_bits_of_the_straight_run() {
    // Straight through on the loops, one thread: the reference.
    let mut straight = scene();
    let mut s = solver(VelocityVerlet::new(), 1, false, false);
    let reports = advance(&mut straight, &mut s, STEPS);
    let reference = bits(&straight, &s, &reports[SAVED_AT..]);
    for threads in [1, 2, 3] {
        // The first part in the region, saved through bincode, restored into a fresh world
        // and solver, which go on in the region.
        let mut first = scene();
        let mut s1 = solver(VelocityVerlet::new(), threads, false, true);
        advance(&mut first, &mut s1, SAVED_AT);
        let state: MdState<History> = bincode::deserialize(&bincode::serialize(&s1.save_state()).unwrap()).unwrap();
        let mut resumed = resume_from(&first);
        let mut s2 = solver(VelocityVerlet::new(), threads, false, true);
        s2.restore_state(&state, &resumed).unwrap();
        let reports = advance(&mut resumed, &mut s2, STEPS - SAVED_AT);
        assert!(reference == bits(&resumed, &s2, &reports), "restart in the region on {threads} thread(s)");
    }
}

#[test]
fn gear_and_published_contacts_keep_the_loops() {
    let mut w = scene();
    let mut gear = solver(Gear::five(), 2, false, true);
    // Gear has no range forms: the region is asked for but not taken.
    assert!(!gear.uses_step_region());
    let reports = advance(&mut w, &mut gear, STEPS);
    let two = bits(&w, &gear, &reports);
    let mut w = scene();
    let mut gear = solver(Gear::five(), 1, false, true);
    let reports = advance(&mut w, &mut gear, STEPS);
    assert!(two == bits(&w, &gear, &reports), "Gear-5 on 1 and 2 threads");
    // Publishing the contacts keeps the loops too (the region has no recording sinks).
    let mut verlet = solver(VelocityVerlet::new(), 2, false, true);
    assert!(verlet.uses_step_region());
    verlet.publish_contacts(true);
    assert!(!verlet.uses_step_region());
}
