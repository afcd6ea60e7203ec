//! N12: cohesion (001 §1.8, Fig. 1.9b).

use granula_broadphase::BruteForce;
use granula_core::{DVec3, Material, PlaneBuilder, SphereBuilder, World};
use granula_nscd::{CohesiveSignoriniCoulomb, Criterion, NscdConfig, NscdSolver};

const F_C: f64 = 0.5;
const D_C: f64 = 1e-4;

/// A sphere of mass m resting on a floor (bonded at contact), pulled up by `pull`, no gravity.
fn bonded(pull: f64) -> World {
    let material = Material { cohesion_force: F_C, cohesion_range: D_C, friction: 0.3, ..Material::named("sticky") };
    let mut w = World::builder().gravity(DVec3::ZERO).material(material).build().unwrap();
    w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().unwrap()).unwrap();
    w.insert(
        SphereBuilder::new(0.01, DVec3::new(0.0, 0.0, 0.01))
            .mass(0.01)
            .external_force(DVec3::Z * pull)
            .build()
            .unwrap(),
    )
    .unwrap();
    w
}

fn solver() -> NscdSolver<BruteForce, CohesiveSignoriniCoulomb> {
    let cfg = NscdConfig {
        criterion: Criterion::LocalRelative { epsilon: 1e-12, cutoff: 1e-15, max_iterations: 100 },
        ..Default::default()
    };
    NscdSolver::with_law(BruteForce, CohesiveSignoriniCoulomb, cfg).unwrap()
}

#[test]
fn n12_pull_below_the_cohesion_force_holds() {
    let mut w = bonded(0.9 * F_C);
    let mut s = solver();
    for _ in 0..200 {
        w.step(&mut s, 1e-4).unwrap();
    }
    // Held: no motion beyond round-off.
    assert!(w.bodies.velocity[1].length() < 1e-14);
    assert!((w.bodies.position[1].z - 0.01).abs() < 1e-15);
}

#[test]
fn n12_pull_above_the_cohesion_force_separates_with_the_work_minus_e_c() {
    let pull = 2.0 * F_C;
    let mut w = bonded(pull);
    let mut s = solver();
    let z0 = w.bodies.position[1].z;
    let mut cohesion_ledger = 0.0;
    for _ in 0..400 {
        cohesion_ledger += w.step(&mut s, 1e-5).unwrap().dissipated.cohesion;
    }
    let dz = w.bodies.position[1].z - z0;
    assert!(dz > 3.0 * D_C, "separated beyond d_C: dz = {dz}");
    let ke = w.kinetic_energy();
    let work = pull * dz;
    let e_c = F_C * D_C;
    // The tension acts in whole steps while the gap at the start of the step is ≤ d_C, so
    // the work of breaking exceeds E_C by at most F_C × (one step of motion at the end),
    // here v Δt ≈ 1.4e-6 m against d_C = 1e-4 m: 2 % of E_C.
    let v = w.bodies.velocity[1].z;
    let slack = F_C * v * 1e-5;
    // Implicit Euler itself loses ½ m (a Δt)² per step against the work of a constant
    // force (v⁺ = v + aΔt, x⁺ = x + v⁺Δt), at most with a = pull/m over the 400 steps.
    let euler = 400.0 * 0.5 * 0.01 * (pull / 0.01 * 1e-5f64).powi(2);
    assert!(
        ke <= work - e_c + 1e-15 && ke >= work - e_c - slack - euler,
        "ke {ke}, work − E_C {}, slack {slack} + {euler}",
        work - e_c
    );
    // The ledger holds the cohesive work, E_C to the same slack.
    assert!(cohesion_ledger >= e_c - 1e-15 && cohesion_ledger <= e_c + slack, "{cohesion_ledger} vs {e_c}");
}
