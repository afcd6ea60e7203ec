//! The batched (vector) path of the force pass against the scalar path: the same law run
//! through its batched form and, wrapped so that it offers none, through `ContactLaw::force`
//! per contact, gives the same bits (positions, velocities, spins, the energy ledger and the
//! step reports), on one, two and three threads; the sphere-wall contacts join the batch on
//! the batched path and take the lean wall path on the scalar one. The world measuring
//! energies only where they are read (`EnergyReads::WhenRead`) gives the same bits too.

use granula_broadphase::LinkedCells;
use granula_core::SphereBuilder;
use granula_core::{
    ContactForce, ContactKinematics, ContactLaw, DVec3, EnergyReads, Material, MaterialId, PairMaterial, World,
};
use granula_integrators::VelocityVerlet;
use granula_md::{MdConfig, MdSolver};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const R: f64 = 0.01;
/// About t_c/50 for the Hertz contact of E = 1e7 Pa at 0.3 m/s (t_c ≈ 2.6 ms).
const DT: f64 = 5e-5;

/// `L` without its batched form: the solver calls `force` per contact.
#[derive(Debug)]
struct ScalarOnly<L>(L);

impl<L: ContactLaw> ContactLaw for ScalarOnly<L> {
    type History = L::History;
    type Pair = L::Pair;
    fn name(&self) -> String {
        self.0.name()
    }
    fn range(&self, material: &PairMaterial) -> f64 {
        self.0.range(material)
    }
    fn uses_rotations(&self) -> bool {
        self.0.uses_rotations()
    }
    fn keeps_ledger(&self) -> bool {
        self.0.keeps_ledger()
    }
    fn force(&self, k: &ContactKinematics<'_, L::Pair>, history: &mut L::History) -> ContactForce {
        self.0.force(k, history)
    }
}

/// 10³ spheres, 0.2 mm apart, random velocities and spins, falling into an open box of
/// five planes: sliding and sticking contacts, between spheres and with the walls.
fn scene() -> World {
    let material = Material { young_modulus: 1e7, restitution: 0.5, friction: 0.5, ..Material::default() };
    let mut w = World::builder().gravity(DVec3::new(0.0, 0.0, -9.81)).material(material).build().unwrap();
    let n = 10;
    let l = 2.02 * R * n as f64;
    w.insert_open_box(DVec3::ZERO, l, l, MaterialId(0)).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for i in 0..n {
        for j in 0..n {
            for k in 0..n {
                let x = DVec3::new(1.01 * R, 1.01 * R, 1.01 * R)
                    * DVec3::new((2 * i + 1) as f64, (2 * j + 1) as f64, (2 * k + 1) as f64);
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

/// The state after `steps` steps, as bits, with the sum of the step reports' contacts.
fn run<L: ContactLaw>(law: L, threads: usize, steps: usize) -> (Vec<u64>, usize) {
    run_reading(law, threads, steps, EnergyReads::EveryStep)
}

/// [`run`] with the world's energies measured as `reads` says.
fn run_reading<L: ContactLaw>(law: L, threads: usize, steps: usize, reads: EnergyReads) -> (Vec<u64>, usize) {
    let mut w = scene();
    w.energy_reads = reads;
    let cfg = MdConfig { skin: 2e-4, threads: Some(threads), parallel_min_pairs: 0, ..Default::default() };
    let mut s = MdSolver::new(law, VelocityVerlet::new(), LinkedCells::new(), cfg).unwrap();
    let mut contacts = 0;
    for _ in 0..steps {
        contacts += w.step(&mut s, DT).unwrap().contacts;
    }
    let b = &w.bodies;
    let vectors = b.position.iter().chain(&b.velocity).chain(&b.angular_velocity);
    let mut bits: Vec<u64> = vectors.flat_map(|v| v.to_array()).map(f64::to_bits).collect();
    let l = &w.ledger;
    bits.extend([l.stored_elastic, l.dissipated.normal, l.dissipated.sliding, l.external_work].map(f64::to_bits));
    (bits, contacts)
}

fn same_on_both_paths<L: ContactLaw + Clone>(law: L) {
    assert!(law.batches());
    let steps = 300;
    let (batched, contacts) = run(law.clone(), 1, steps);
    // The scene must load the contacts for the comparison to mean anything: about 2 per
    // sphere on average over the run once settled.
    assert!(contacts > 1000 * steps / 2, "{contacts} contacts over {steps} steps");
    assert_eq!(batched, run(ScalarOnly(law.clone()), 1, steps).0, "batched against scalar");
    assert_eq!(batched, run(law.clone(), 2, steps).0, "batched on 1 and 2 threads");
    assert_eq!(batched, run(law, 3, steps).0, "batched on 1 and 3 threads");
}

#[test]
fn hertz_mindlin_gives_the_same_bits_batched_and_scalar() {
    same_on_both_paths(granula_laws::hertz_mindlin());
}

#[test]
fn hertz_mindlin_damped_gives_the_same_bits_batched_and_scalar() {
    same_on_both_paths(granula_laws::hertz_mindlin_damped());
}

#[test]
fn linear_cundall_strack_gives_the_same_bits_batched_and_scalar() {
    same_on_both_paths(granula_laws::linear_cundall_strack(1e3, 1.0 / 3.0).unwrap());
}

#[test]
fn energies_read_only_where_read_give_the_same_bits() {
    // `EnergyReads::WhenRead` skips the guard's pass before the step and the energy sums
    // after it on 99 steps in 100 (the default guard checks every 100 steps): the state and
    // the ledger must not change by a bit, on 1 and 2 threads. 300 steps cross three
    // interval checks, so the reading steps are in the run too.
    let law = granula_laws::hertz_mindlin();
    let every = run(law, 1, 300);
    assert_eq!(every, run_reading(law, 1, 300, EnergyReads::WhenRead), "1 thread");
    assert_eq!(every, run_reading(law, 2, 300, EnergyReads::WhenRead), "2 threads");
}
