//! The energy ledger with granula-md's Hertz-Mindlin law in the MD solver: spheres falling in
//! a box and colliding with each other and the walls. kinetic + potential + stored +
//! dissipated must stay equal to its initial value, and with damping on the mechanical energy
//! must never rise.

use granula::broadphase::LinkedCells;
use granula::core::{DVec3, Material, MaterialId, SphereBuilder, World};
use granula::gear::Gear;
use granula::md::hertz_mindlin;
use granula::smooth::{MdConfig, MdSolver};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn box_of_spheres() -> World {
    let mut w = World::builder().gravity(DVec3::new(0.0, 0.0, -9.81)).material(Material::default()).build().unwrap();
    let (r, l) = (5e-4, 4e-3);
    w.insert_open_box(DVec3::ZERO, l, l, MaterialId(0)).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for i in 0..3 {
        for j in 0..3 {
            for k in 0..3 {
                let x = DVec3::new(1.2e-3 * (i as f64 + 0.8), 1.2e-3 * (j as f64 + 0.8), 1.2e-3 * (k as f64 + 0.8));
                let v =
                    DVec3::new(rng.random_range(-0.2..0.2), rng.random_range(-0.2..0.2), rng.random_range(-0.2..0.2));
                w.insert(SphereBuilder::new(r, x).velocity(v).build().unwrap()).unwrap();
            }
        }
    }
    w
}

fn total(w: &World) -> f64 {
    w.kinetic_energy() + w.potential_energy() + w.ledger.stored_elastic + w.ledger.dissipated.total()
        - w.ledger.external_work
}

#[test]
fn hertz_mindlin_ledger_balances_and_energy_never_rises() {
    let mut w = box_of_spheres();
    // Hertz contact time at 0.3 m/s for these spheres is ~1.3e-4 s; Δt = 1e-6 s ≈ t_c/130.
    let mut s = MdSolver::new(hertz_mindlin(), Gear::six(), LinkedCells::new(), MdConfig::default()).unwrap();
    let dt = 1e-6;
    let e0 = total(&w);
    let scale = w.kinetic_energy() + 27.0 * w.bodies.mass[5] * 9.81 * 4e-3;
    let mech = |w: &World| w.kinetic_energy() + w.potential_energy() + w.ledger.stored_elastic;
    let mut prev = mech(&w);
    let (mut worst_rise, mut worst_ledger): (f64, f64) = (0.0, 0.0);
    for _ in 0..30_000 {
        w.step(&mut s, dt).unwrap();
        let m = mech(&w);
        worst_rise = worst_rise.max(m - prev);
        prev = m;
        worst_ledger = worst_ledger.max((total(&w) - e0).abs());
    }
    let d = w.ledger.dissipated;
    println!("dissipated {d:?}, worst rise {worst_rise:e}, worst ledger {worst_ledger:e}, scale {scale:e}");
    assert!(d.normal > 0.0 && d.sliding > 0.0, "collisions and sliding happened");
    // Per step the 6-value Gear scheme at Δt ≈ t_c/130 changes energy by its truncation
    // error only; 1e-9 of the energy scale per step would already be created energy.
    assert!(worst_rise < 1e-9 * scale, "mechanical energy rose by {worst_rise} in one step");
    // The law books damping and sliding with its own quadrature and the solver books what a
    // contact still stores when it opens: 1e-3 of the energy scale over 30 000 steps.
    assert!(worst_ledger < 1e-3 * scale, "ledger off by {worst_ledger} (scale {scale})");
}
