//! VALIDATION M6 (002 §3, Fig. 3) on a reduced cell: 64 polygons (8 × 8) between two rough
//! walls of 8 glued polygons each, periodic along x, walls at fixed height moving at
//! ±γ̇ H/2 with γ̇ = 1.25e-5 1/s; k_n = 400 N/m, ε_n = 0.9875, k_t/k_n = ν_t/ν_n = 1/3,
//! Gear with six values. The example `shear_cell` runs the full 256-polygon cell; the
//! reduced one keeps the test near 30 s in release. It is the same physics (a jammed
//! packing, ~4.4 contacts per particle, most of them sticking when μ = 0.5), with fewer
//! particles, hence a noisier E_k: the bounds below are set from its measured values.
//!
//! Protocol: the lattice relaxes for 100 t_c at Δt = 13/2500 t_c with the walls still,
//! then the walls move and the run forks into Δt = 13/2500 t_c and 13/500 t_c for another
//! 100 t_c, E_k sampled every 13/500 t_c. The measure is the cumulative difference
//! ΔE_k = Σ |E_k(13/2500) − E_k(13/500)| (002 Fig. 3e) relative to Σ E_k(13/2500).

use granula_planar::prelude::*;

const KN: f64 = 400.0;
const EPS: f64 = 0.9875;

/// Mean reduced mass of two of the cell's particles and t_c (002 eq. 10).
fn contact_scales(cell: &Cell) -> (f64, f64) {
    let b = &cell.sim.bodies;
    let m = cell.free.clone().map(|i| b.mass[i]).sum::<f64>() / cell.free.len() as f64;
    let mr = 0.5 * m;
    (mr, contact_time(KN, damping_from_restitution(EPS, KN, mr), mr))
}

fn law(mu: f64, mr: f64, rule: Tangential) -> ContactLaw {
    ContactLaw::builder(KN)
        .restitution(EPS, mr)
        .tangential_ratio(1.0 / 3.0)
        .friction(mu)
        .tangential(rule)
        .build()
        .unwrap()
}

/// The relative cumulative difference of E_k between the two runs forked after the
/// relaxation. With `perturb`, both runs use the fine step and the second starts with
/// one velocity changed by 1e-12 (relative): the control for chaotic divergence.
fn relative_difference(mu: f64, rule: Tangential, perturb: bool) -> f64 {
    let spec = ShearCell { columns: 8, rows: 8, ..ShearCell::default() };
    let probe = spec.build(law(0.0, 1.0, rule), 1.0).unwrap();
    let (mr, tc) = contact_scales(&probe);
    let fine = 13.0 / 2500.0 * tc;
    let mut cell = spec.build(law(mu, mr, rule), fine).unwrap();
    cell.relax((100.0 * tc / fine) as usize).unwrap();
    cell.start_shear().unwrap();
    let samples = (100.0 * tc / (5.0 * fine)) as usize;
    let mut runs = Vec::new();
    for second in [false, true] {
        let mut c = cell.clone();
        let factor = if second && !perturb { 5 } else { 1 };
        if second && perturb {
            let i = c.free.start;
            c.sim.bodies.velocity[i].x *= 1.0 + 1e-12;
        }
        c.sim.set_dt(fine * factor as f64).unwrap();
        let mut e = Vec::with_capacity(samples);
        for _ in 0..samples {
            c.sim.run(5 / factor).unwrap();
            e.push(c.kinetic_energy());
        }
        runs.push(e);
    }
    let diff: f64 = runs[0].iter().zip(&runs[1]).map(|(a, b)| (a - b).abs()).sum();
    diff / runs[0].iter().sum::<f64>()
}

#[test]
fn kinetic_energy_depends_on_the_time_step_with_friction_only() {
    let frictionless = relative_difference(0.0, Tangential::Cundall, false);
    let cundall = relative_difference(0.5, Tangential::Cundall, false);
    let predictor = relative_difference(0.5, Tangential::Predictor, false);
    let chaos = relative_difference(0.0, Tangential::Cundall, true);
    println!(
        "relative ΔE_k: μ = 0 {frictionless:.3e}, μ = 0.5 Cundall {cundall:.3e}, μ = 0.5 predictor \
         {predictor:.3e}; 1e-12 perturbation {chaos:.3e}; ratio {:.1}",
        cundall / frictionless
    );
    // Measured: μ = 0 2.8e-4 (E_k independent of Δt to a few 1e-4, 002 Fig. 3a/c);
    // μ = 0.5 with Cundall's spring 3.6e-2 (002 Fig. 3b/d), 130 times more (Fig. 3e);
    // with the predictor-based elongation 1.4e-5 (002 §4 removes the dependence). The
    // bounds leave a factor 3 to 4 to each measured value.
    assert!(frictionless < 1e-3, "μ = 0: {frictionless:e}");
    assert!(cundall > 1e-2, "μ = 0.5: {cundall:e}");
    assert!(cundall > 30.0 * frictionless, "ratio {}", cundall / frictionless);
    assert!(predictor < 1e-3, "predictor: {predictor:e}");
    // A 1e-12 perturbation stays below 1e-12 over the 100 t_c (measured 2.4e-13): the run
    // is not chaotic on this horizon, so the differences above are the time step's.
    assert!(chaos < 1e-9, "perturbation grew to {chaos:e}");
}

#[test]
fn the_polygon_cell_gives_the_same_bits_on_one_and_two_threads() {
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            // 576 bodies: the broadphase runs in parallel chunks too (from 512 bodies).
            let spec = ShearCell { columns: 24, rows: 22, ..ShearCell::default() };
            let mut cell = spec.build(law(0.5, 0.01, Tangential::Predictor), 1e-4).unwrap();
            cell.sim.set_parallel_threshold(0);
            cell.start_shear().unwrap();
            cell.sim.run(200).unwrap();
            cell
        })
    };
    let (one, two) = (run(1), run(2));
    assert!(!one.sim.contacts().is_empty());
    for i in 0..one.sim.bodies.len() {
        assert_eq!(one.sim.bodies.position[i], two.sim.bodies.position[i], "body {i}");
        assert_eq!(one.sim.bodies.angle[i].to_bits(), two.sim.bodies.angle[i].to_bits(), "body {i}");
    }
}
