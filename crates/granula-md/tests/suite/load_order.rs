//! The order of the per-body sums of pair loads (`MdConfig::load_order`): both orders give
//! the same bits on one and two threads; the partner order also gives the same bits with
//! another candidate list (a larger skin: more candidates without load, other blocks, other
//! rebuild steps), which the block order does not. That independence is what a run split
//! over processes relies on (each holds a subset of the candidates).

use granula_broadphase::LinkedCells;
use granula_core::{DVec3, Material, MaterialId, SphereBuilder, World};
use granula_integrators::VelocityVerlet;
use granula_md::{LoadOrder, MdConfig, MdSolver};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const R: f64 = 0.01;
/// About t_c/50 for the Hertz contact of E = 1e7 Pa at 0.3 m/s (t_c ≈ 2.6 ms).
const DT: f64 = 5e-5;
/// Spheres per side of the lattice.
const SIDE: usize = 8;

/// 8³ spheres on a cubic lattice of spacing 2R(1 − 10⁻³), numbered layer by layer (so the
/// block order uses its windows), each overlapping its neighbours by about 10⁻³ R and
/// moving at up to 0.1 m/s, in an open box of five planes under gravity: a dense packing
/// with about three contacts per sphere from the first step.
fn packing() -> World {
    let material = Material { young_modulus: 1e7, restitution: 0.5, friction: 0.5, ..Material::default() };
    let mut w = World::builder().gravity(DVec3::new(0.0, 0.0, -9.81)).material(material).build().unwrap();
    let spacing = 2.0 * R * (1.0 - 1e-3);
    let l = spacing * SIDE as f64 + 2e-3 * R;
    w.insert_open_box(DVec3::ZERO, l, l, MaterialId(0)).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for k in 0..SIDE {
        for j in 0..SIDE {
            for i in 0..SIDE {
                let x = (DVec3::new(i as f64, j as f64, k as f64) + 0.5) * spacing + DVec3::splat(1e-3 * R);
                let mut r = || DVec3::new(rng.random_range(-0.1..0.1), rng.random_range(-0.1..0.1), 0.0);
                w.insert(SphereBuilder::new(R, x).velocity(r()).build().unwrap()).unwrap();
            }
        }
    }
    w
}

/// The bodies' positions, velocities and spins as bits after `steps` steps, and the
/// contacts of the last step.
fn run(order: LoadOrder, threads: usize, skin: f64, steps: usize) -> (Vec<u64>, usize) {
    let mut w = packing();
    // `parallel_min_pairs: 0`: two threads share every step, however short.
    let cfg = MdConfig { skin, threads: Some(threads), parallel_min_pairs: 0, load_order: order, ..Default::default() };
    let mut s = MdSolver::new(granula_laws::hertz_mindlin(), VelocityVerlet::new(), LinkedCells::new(), cfg).unwrap();
    let mut contacts = 0;
    for _ in 0..steps {
        contacts = w.step(&mut s, DT).unwrap().contacts;
    }
    let b = &w.bodies;
    let vectors = b.position.iter().chain(&b.velocity).chain(&b.angular_velocity);
    (vectors.flat_map(|v| v.to_array()).map(f64::to_bits).collect(), contacts)
}

const STEPS: usize = 400;

#[test]
fn both_orders_give_the_same_bits_on_one_and_two_threads() {
    for order in [LoadOrder::Blocks, LoadOrder::Partner] {
        let (one, contacts) = run(order, 1, 2e-4, STEPS);
        // A dense packing: the sums have several terms (512 spheres, five walls).
        assert!(contacts > 1000, "{order:?}: {contacts} contacts at the end");
        assert_eq!(one, run(order, 2, 2e-4, STEPS).0, "{order:?} on 1 and 2 threads");
    }
}

#[test]
fn the_partner_order_does_not_depend_on_the_candidate_list() {
    // A skin five times larger: about twice as many candidates (most without load), cut
    // into other blocks and rebuilt at other steps. The pair loads are the same (computed
    // in the frame of body 1, the smaller handle, from the same operands); only the
    // grouping of their sums could differ.
    let (thin, _) = run(LoadOrder::Partner, 1, 2e-4, STEPS);
    let (thick, _) = run(LoadOrder::Partner, 2, 1e-3, STEPS);
    assert_eq!(thin, thick, "partner order with skins 0.2 mm and 1 mm");
    // The same comparison under the block order changes bits: the equality above is not
    // trivially true of this scene.
    let (thin, _) = run(LoadOrder::Blocks, 1, 2e-4, STEPS);
    let (thick, _) = run(LoadOrder::Blocks, 1, 1e-3, STEPS);
    let differing = thin.iter().zip(&thick).filter(|(a, b)| a != b).count();
    assert!(differing > 0, "the block order gave the same bits with both skins");
}

#[test]
fn switching_to_the_partner_order_before_the_first_step_equals_configuring_it() {
    // `MdSolver::set_load_order`, the path a distributed run takes on a solver composed
    // from a scene.
    let mut w = packing();
    let cfg = MdConfig { skin: 2e-4, threads: Some(1), ..Default::default() };
    let mut s = MdSolver::new(granula_laws::hertz_mindlin(), VelocityVerlet::new(), LinkedCells::new(), cfg).unwrap();
    s.set_load_order(LoadOrder::Partner);
    assert_eq!(s.config().load_order, LoadOrder::Partner);
    for _ in 0..STEPS {
        w.step(&mut s, DT).unwrap();
    }
    let b = &w.bodies;
    let vectors = b.position.iter().chain(&b.velocity).chain(&b.angular_velocity);
    let bits: Vec<u64> = vectors.flat_map(|v| v.to_array()).map(f64::to_bits).collect();
    assert_eq!(bits, run(LoadOrder::Partner, 1, 2e-4, STEPS).0);
}
