//! The rotational part of the predictor-based elongation (002 eq. 15) from the bodies'
//! rotations (`RotationalIncrement::FromOrientations`): discs spinning, rolling and sliding
//! round a fixed disc get eq. 15's slip exactly; a loaded glued pair turning rigidly keeps
//! its spring, turned with it; the velocity-residual mode converges to it as Δt → 0.

use glam::{DQuat, DVec3};
use granula_core::{ContactKinematics, Material, PairMaterial};
use granula_laws::PredictorState;
use granula_laws::*;
use granula_laws::{NormalState, TangentialModel};

fn material() -> PairMaterial {
    let m = Material { dynamic_friction: Some(0.4), ..Material::default() };
    PairMaterial::mix(&m, &m)
}

/// Stiff, undamped, never-sliding settings so that ξ is the accumulated increment.
fn elastic(rotation: RotationalIncrement) -> PredictorElongation {
    let f = Friction::new(1e6, 1e6).unwrap();
    PredictorElongation::new(TangentialStiffness::Fixed(1e3), TangentialDamping::None, f, rotation).unwrap()
}

const LOAD: NormalState = NormalState { load: 1.0, stiffness: 1e4, damping: 0.0, elastic: 1.0 };

/// Two discs of radius 1 mm at overlap 1 µm, normal at angle `alpha` in the xy plane, with
/// the given relative velocity and body rotations.
fn pair_at(mat: &PairMaterial, alpha: f64, velocity: DVec3, rotation: DVec3, dt: f64) -> ContactKinematics<'_> {
    let (r, delta) = (1e-3, 1e-6);
    let n = DVec3::new(alpha.cos(), alpha.sin(), 0.0);
    ContactKinematics {
        normal: n,
        overlap: delta,
        relative_velocity: velocity,
        relative_angular_velocity: DVec3::ZERO,
        branch1: n * (r - 0.5 * delta),
        branch2: -n * (r - 0.5 * delta),
        effective_radius: 0.5 * r,
        effective_mass: 1e-5,
        material: mat,
        pair: &(),
        dt,
        rotation1: rotation,
        rotation2: rotation,
        overlap_volume: 0.0,
    }
}

/// A glued pair whose spring was loaded (sheared along z, then along the in-plane tangent
/// by rotating body 2 alone) turns rigidly by 1 rad about z: the spring must turn with it,
/// unstretched.
#[test]
fn a_loaded_glued_pair_turning_rigidly_keeps_its_spring() {
    let mat = material();
    let law = elastic(RotationalIncrement::FromOrientations);
    let dt = 1e-5;
    let mut h = PredictorState::default();
    law.tangential(&pair_at(&mat, 0.0, DVec3::ZERO, DVec3::ZERO, dt), &LOAD, &mut h);
    // Load: body 2 turns by 1e-4 rad about y (slip along z) and 2e-4 about z (slip along y),
    // body 1 does not.
    let mut k = pair_at(&mat, 0.0, DVec3::ZERO, DVec3::ZERO, dt);
    k.rotation2 = DVec3::new(0.0, 1e-4, 2e-4);
    law.tangential(&k, &LOAD, &mut h);
    let loaded = h.xi;
    assert!(loaded.y.abs() > 1e-7 && loaded.z.abs() > 1e-8, "the spring must be loaded in both directions: {loaded}");
    let (omega, steps) = (1000.0, 100); // 1 rad in total
    for i in 1..=steps {
        let k = pair_at(&mat, omega * dt * i as f64, DVec3::ZERO, DVec3::Z * (omega * dt), dt);
        law.tangential(&k, &LOAD, &mut h);
    }
    let expected = DQuat::from_rotation_z(omega * dt * steps as f64) * loaded;
    // Round-off of 100 steps of a few operations on ~1e-7 m vectors: 1e-20 m per step.
    assert!((h.xi - expected).length() < 1e-18, "{} vs {expected}", h.xi);
}

/// Disc 2 (radius a₂) moves around the fixed disc 1 (radius a₁) in the xy plane at a
/// constant overlap: centre angle α = Ωt, spin ω₂ about z. 𝒱_t = (Ω d − ω₂ |l₂|) t with
/// d = |R| and t = ẑ × n, so the elongation after time T is (Ω d − ω₂|l₂|) T t: eqs. 14-15
/// by hand, d α (the centre's arc) minus the arc |l₂| θ₂ the spin rolls off. Returns ξ and
/// that value.
fn orbit(mode: RotationalIncrement, big_omega: f64, omega2: f64, dt: f64, steps: usize) -> (DVec3, DVec3) {
    let mat = material();
    let law = elastic(mode);
    let (a1, a2, delta) = (1e-3, 0.7e-3, 2e-6);
    let (l1, l2) = (a1 - 0.5 * delta, a2 - 0.5 * delta);
    let d = l1 + l2;
    let mut h = PredictorState::default();
    let mut n = DVec3::X;
    for i in 0..=steps {
        let alpha = big_omega * dt * i as f64;
        n = DVec3::new(alpha.cos(), alpha.sin(), 0.0);
        let t = DVec3::Z.cross(n);
        let k = ContactKinematics {
            normal: n,
            overlap: delta,
            relative_velocity: t * (big_omega * d - omega2 * l2),
            relative_angular_velocity: DVec3::Z * omega2,
            branch1: n * l1,
            branch2: -n * l2,
            effective_radius: a1 * a2 / (a1 + a2),
            effective_mass: 1e-5,
            material: &mat,
            pair: &(),
            dt,
            rotation1: DVec3::ZERO,
            rotation2: if i == 0 { DVec3::ZERO } else { DVec3::Z * (omega2 * dt) },
            overlap_volume: 0.0,
        };
        law.tangential(&k, &LOAD, &mut h);
    }
    let time = dt * steps as f64;
    (h.xi, DVec3::Z.cross(n) * ((big_omega * d - omega2 * l2) * time))
}

#[test]
fn rolling_and_spinning_discs_get_the_slip_of_eq_15_exactly() {
    let l2 = 0.7e-3 - 1e-6;
    let d = 1e-3 + 0.7e-3 - 2e-6;
    let (big_omega, dt, steps) = (200.0, 1e-5, 500); // α = 1 rad: large turns of the normal
    let cases = [
        ("spin about a fixed centre", 0.0, 300.0),
        ("pure rolling", big_omega, big_omega * d / l2),
        ("rolling with half the spin", big_omega, 0.5 * big_omega * d / l2),
        ("sliding round without spin", big_omega, 0.0),
    ];
    for (name, w_orbit, w_spin) in cases {
        let (xi, expected) = orbit(RotationalIncrement::FromOrientations, w_orbit, w_spin, dt, steps);
        // Round-off: each of the 500 increments is exact to a few ulps of |R| ≈ 1.7e-3 m
        // (≈ 1e-18 m), so 1e-15 m in total, against elongations of 1e-4..1e-3 m.
        assert!((xi - expected).length() < 1e-15, "{name}: {xi} vs {expected}");
        if name == "pure rolling" {
            assert!(xi.length() < 1e-15, "pure rolling must leave the spring unstretched: {xi}");
        }
    }
    // The translation-only increment sums chords of the centre's path instead of its arc:
    // sliding round by α = 1 rad it differs by far more than round-off (the test can fail).
    let (xi, expected) = orbit(RotationalIncrement::TranslationOnly, big_omega, 0.0, dt, steps);
    assert!((xi - expected).length() > 1e-9, "{xi} vs {expected}");
}

/// A general planar-plus-oblique motion: the normal swings as α = A sin(νt) in the xy
/// plane while disc 2 spins back and forth about a tilted axis u, b = B sin(μt) (θ₂ = Δb u
/// exactly, ω₂ = ḃ u). Returns ξ at the end.
fn swinging(mode: RotationalIncrement, dt: f64) -> DVec3 {
    let mat = material();
    let law = elastic(mode);
    let (a1, a2, delta) = (1e-3, 1e-3, 2e-6);
    let (l1, l2) = (a1 - 0.5 * delta, a2 - 0.5 * delta);
    let d = l1 + l2;
    let u = DVec3::new(0.3, -0.4, 1.0).normalize();
    let (amp, nu, big_b, mu) = (0.4, 700.0, 0.3, 1100.0);
    let end = 4e-3;
    let steps = (end / dt).round() as usize;
    let b = |t: f64| big_b * (mu * t).sin();
    let mut h = PredictorState::default();
    for i in 0..=steps {
        let time = dt * i as f64;
        let alpha = amp * (nu * time).sin();
        let alpha_dot = amp * nu * (nu * time).cos();
        let n = DVec3::new(alpha.cos(), alpha.sin(), 0.0);
        let omega2 = u * (big_b * mu * (mu * time).cos());
        let branch2 = -n * l2;
        let k = ContactKinematics {
            normal: n,
            overlap: delta,
            relative_velocity: DVec3::Z.cross(n) * (alpha_dot * d) + omega2.cross(branch2),
            relative_angular_velocity: omega2,
            branch1: n * l1,
            branch2,
            effective_radius: 0.5 * a1,
            effective_mass: 1e-5,
            material: &mat,
            pair: &(),
            dt,
            rotation1: DVec3::ZERO,
            rotation2: if i == 0 { DVec3::ZERO } else { u * (b(time) - b(time - dt)) },
            overlap_volume: 0.0,
        };
        law.tangential(&k, &LOAD, &mut h);
    }
    h.xi
}

/// The residual mode's rotational part (ω₂ᵖ×l₂)Δt is a rectangle rule for ∫ω₂×l₂ dt: with
/// a varying spin it is first order, and it converges to the orientation increment (whose
/// own Δt-dependence, from composing non-commuting turns, is second order and ~1e4 times
/// smaller here).
#[test]
fn velocity_residual_converges_to_the_orientation_increment() {
    let dts = [4e-6, 2e-6, 1e-6];
    let exact: Vec<DVec3> = dts.iter().map(|&dt| swinging(RotationalIncrement::FromOrientations, dt)).collect();
    let gaps: Vec<f64> = dts
        .iter()
        .zip(&exact)
        .map(|(&dt, e)| (swinging(RotationalIncrement::VelocityResidual, dt) - *e).length())
        .collect();
    let drift: Vec<f64> = exact.windows(2).map(|w| (w[0] - w[1]).length()).collect();
    let scale = exact[2].length();
    println!("|ξ_residual − ξ_orientations| = {gaps:?}, orientation mode Δt → Δt/2: {drift:?}, |ξ| = {scale}");
    assert!(scale > 1e-4, "the motion must stretch the spring: {scale}");
    // First order: halving Δt halves the gap (1.8..2.2 allows for the higher-order terms).
    for w in gaps.windows(2) {
        assert!((1.8..2.2).contains(&(w[0] / w[1])), "gaps {gaps:?}");
    }
    // The orientation mode barely depends on Δt: second order (ratio ≥ 3 for a nominal
    // 4), and below 1e-3 of the residual mode's gap at the same Δt.
    assert!(drift[0] / drift[1] > 3.0, "{drift:?}");
    assert!(drift[0] < 1e-3 * gaps[0], "{drift:?} vs {gaps:?}");
}
