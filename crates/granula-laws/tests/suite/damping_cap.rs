//! The normal damping of a composed law is capped at γ_n Δt/m* = `MAX_DAMPING_STEP`, the
//! stability range of an explicit step (docs/contact-laws.md, "Damping cap"), and is
//! unchanged below it.

use granula_core::{ContactKinematics, ContactLaw, DVec3, Material, PairMaterial};
use granula_laws::{hertz_mindlin, MAX_DAMPING_STEP};

/// A head-on wall contact of a 1 mm glass bead (m* = 1e-5 kg), overlap 1 µm, closing at
/// 0.1 m/s, with restitution `e` and time step `dt`; returns (F_n, the force without
/// damping, the dissipated energy).
fn normal_force(e: f64, dt: f64) -> (f64, f64, f64) {
    let m = Material { restitution: e, young_modulus: 1e7, ..Material::default() };
    let mat = PairMaterial::mix(&m, &m);
    let k = |rate: f64| ContactKinematics {
        normal: DVec3::Z,
        overlap: 1e-6,
        relative_velocity: DVec3::new(0.0, 0.0, -rate),
        relative_angular_velocity: DVec3::ZERO,
        branch1: DVec3::ZERO,
        branch2: DVec3::new(0.0, 0.0, -1e-3),
        effective_radius: 1e-3,
        effective_mass: 1e-5,
        material: &mat,
        pair: &(),
        dt,
        rotation1: DVec3::ZERO,
        rotation2: DVec3::ZERO,
        overlap_volume: 0.0,
    };
    let law = hertz_mindlin();
    let damped = law.force(&k(0.1), &mut Default::default());
    let still = law.force(&k(0.0), &mut Default::default());
    (damped.force.z, still.force.z, damped.dissipated.normal)
}

#[test]
fn the_normal_damping_is_capped_at_a_quarter_of_the_reduced_mass_per_step() {
    let dt = 5e-6;
    // e = 1e-4: damping ratio 46 (α = 50), γ_n Δt/m* ≈ 2.7 without the cap (S_n = 347 N/m
    // here); with it the damping force is exactly 0.25 m*/Δt times the rate (1e-12: a few
    // roundings of products and quotients).
    let (f, elastic, dissipated) = normal_force(1e-4, dt);
    let cap = MAX_DAMPING_STEP * 1e-5 / dt * 0.1;
    assert!(((f - elastic) - cap).abs() <= 1e-12 * cap, "damping {} vs cap {cap}", f - elastic);
    // The ledger books the capped force: F_d · rate · Δt.
    assert!((dissipated - cap * 0.1 * dt).abs() <= 1e-12 * dissipated, "{dissipated}");
    // e = 0.5 at the same step: γ_n Δt/m* ≈ 0.014, far below the cap; the damping is the
    // calibrated one, 2 √(5/6) α √(m* S_n) with α = 0.2553 (0.5 clamped), so below the cap.
    let (f, elastic, _) = normal_force(0.5, dt);
    let damping = f - elastic;
    assert!(damping > 0.0 && damping < 0.1 * cap, "{damping} vs cap {cap}");
}
