//! The predictor-based elongation of 002 §4 in the planar friction law
//! (`PlanarPredictor`, `planar_predictor_law`): the increment of ξ is the displacement of
//! body 2's material point relative to body 1's from the branch vectors and the turns of
//! the bodies (002 eqs. 14-15, polygon form), with the Coulomb limit and the dashpot of
//! 002's Cundall spring; and the law passes the conformance kit as the Cundall law does.

use glam::{DQuat, DVec3};
use granula_core::{ContactKinematics, ContactLaw, ContactStatus, Material, PairMaterial};
use granula_laws::conformance::{check_law, ConformanceSetup};
use granula_laws::*;

/// 002's parameters in SI: k_n, ν_n, k_t/k_n, μ (those of `planar_cundall.rs`).
const KN: f64 = 1e5;
const NU: f64 = 40.0;
const RATIO: f64 = 1.0 / 3.0;
const MU: f64 = 0.5;

fn material() -> PairMaterial {
    PairMaterial::mix(&Material::default(), &Material::default())
}

/// A polygon contact in the plane z = 0 with normal `n`, branches `l1`, `l2`, the bodies'
/// turns `th1`, `th2` (rad, about z) since the last evaluation, relative velocity `v`, and
/// the overlap of `planar_cundall.rs` (F_n^e = k_n A / l_c = 100 N with A = 1e-4 m²,
/// l_c = 0.1 m), reduced mass 0.5 kg.
#[allow(clippy::too_many_arguments)]
fn contact<'a>(
    mat: &'a PairMaterial,
    n: DVec3,
    l1: DVec3,
    l2: DVec3,
    th1: f64,
    th2: f64,
    v: DVec3,
    dt: f64,
) -> ContactKinematics<'a> {
    ContactKinematics {
        normal: n,
        overlap: 1e-3,
        relative_velocity: v,
        relative_angular_velocity: DVec3::ZERO,
        branch1: l1,
        branch2: l2,
        effective_radius: 0.05,
        effective_mass: 0.5,
        material: mat,
        pair: &(),
        dt,
        rotation1: DVec3::Z * th1,
        rotation2: DVec3::Z * th2,
        overlap_volume: 1e-4,
    }
}

/// The tangent t = ẑ × n of the plane.
fn tangent(n: DVec3) -> DVec3 {
    DVec3::Z.cross(n)
}

#[test]
fn a_slide_stretches_the_spring_by_the_displacement_and_a_rigid_turn_does_not() {
    let mat = material();
    let law = planar_predictor_law(KN, 0.0, RATIO, 1e9).unwrap();
    let kt = KN * RATIO;
    // A polygon contact: the contact point (overlap centroid) off the line of centres.
    let n = DVec3::new(0.6, 0.8, 0.0);
    let t = tangent(n);
    let (l1, l2) = (DVec3::new(0.04, 0.05, 0.0), DVec3::new(-0.03, -0.02, 0.0));
    let mut h = Default::default();
    // First evaluation: no increment (no previous position), whatever the velocity says.
    let f = law.force(&contact(&mat, n, l1, l2, 0.0, 0.0, t * 5.0, 1e-4), &mut h);
    assert_eq!(f.force.dot(t), 0.0, "the first evaluation starts the spring at zero");
    // Body 2 slides by s along t with the normal unchanged: its branch shortens by s t (the
    // contact point stays, 002 §4's centroid), so ξ = s exactly (to round-off, 1e-15 m).
    // The velocity given is zero: the increment comes from the positions alone.
    let s = 2e-5;
    let f = law.force(&contact(&mat, n, l1, l2 - t * s, 0.0, 0.0, DVec3::ZERO, 1e-4), &mut h);
    let xi = h.tangential.spring.xi;
    assert!((xi.dot(t) - s).abs() < 1e-15 && xi.dot(n).abs() < 1e-18, "ξ = {xi}");
    assert!((f.force.dot(t) + kt * s).abs() < 1e-12 * kt * s, "f_t = {} vs −k_t s", f.force.dot(t));
    // Stored energy ½ k_t s² beside the normal spring's ½ F_n^e δ (1e-12 relative).
    let normal_energy = 0.5 * KN * 1e-4 / 0.1 * 1e-3;
    assert!((f.stored - normal_energy - 0.5 * kt * s * s).abs() < 1e-12 * f.stored);
    // The whole pair turns rigidly by φ about z (normal, branches, bodies): Δξ = 0, and ξ
    // keeps its length along the turned tangent. Round-off: the increment is a difference
    // of branch vectors of 0.05 m (a few ulps, 1e-17 m each); 1e-16 m allows ten of them.
    let phi = 0.3f64;
    let q = DQuat::from_rotation_z(phi);
    let f = law.force(&contact(&mat, q * n, q * l1, q * (l2 - t * s), phi, phi, DVec3::ZERO, 1e-4), &mut h);
    let xi = h.tangential.spring.xi;
    assert!((xi - q * t * s).length() < 1e-16, "ξ = {xi} vs {}", q * t * s);
    assert!((f.force.dot(q * t) + kt * s).abs() < 1e-16 * kt);
}

#[test]
fn a_disc_turning_about_its_fixed_centre_gets_the_chord_of_002_eq_15() {
    let mat = material();
    let law = planar_predictor_law(KN, 0.0, RATIO, 1e9).unwrap();
    // Disc 2 of radius a against a fixed body 1 (normal +y), turning by θ each evaluation
    // about its fixed centre: the contact point and both branches stay, body 2's material
    // point moves by −(R(θ) − 1) l₂, whose tangential part is a sin θ along +x (l₂ = −a ŷ,
    // a turn about +z carries the bottom of the disc towards +x). 002 eq. 15 writes the arc
    // θ a; the chord's projection differs by a θ³/6 per evaluation.
    let a = 0.05;
    let n = DVec3::Y;
    let (l1, l2) = (DVec3::new(0.0, 0.1, 0.0), -a * n);
    let theta = 1e-3;
    let mut h = Default::default();
    law.force(&contact(&mat, n, l1, l2, 0.0, 0.0, DVec3::ZERO, 1e-4), &mut h);
    for step in 1..=10 {
        law.force(&contact(&mat, n, l1, l2, 0.0, theta, DVec3::ZERO, 1e-4), &mut h);
        let xi = h.tangential.spring.xi.x;
        let chord = step as f64 * a * theta.sin();
        // Ten sums of equal increments: round-off of 1e-15 relative; and the arc within
        // 10 · a θ³/6 (8e-11 m) of it.
        assert!((xi - chord).abs() < 1e-15 * chord, "step {step}: ξ = {xi} vs {chord}");
        let arc = step as f64 * a * theta;
        assert!((xi - arc).abs() <= step as f64 * a * theta.powi(3) / 6.0 * 1.001, "{xi} vs arc {arc}");
    }
}

#[test]
fn limit_and_dashpot_are_those_of_the_planar_cundall_spring() {
    let mat = material();
    // A large damping rate: the load F_e + m_r ν v_n is well above F_e; the limit reads F_e.
    let (cundall, predictor) =
        (planar_friction_law(KN, 1e3, RATIO, MU).unwrap(), planar_predictor_law(KN, 1e3, RATIO, MU).unwrap());
    let n = DVec3::Y;
    let (l1, l2) = (DVec3::new(0.0, 0.05, 0.0), DVec3::new(0.0, -0.05, 0.0));
    let v = DVec3::new(1.0, -0.1, 0.0);
    let dt = 1e-6;
    // Both springs pre-stretched beyond the limit: they slide at once, the spring at
    // μ F_n^e / k_t = 50 N / k_t, the dashpot −γ_t v_t outside the limit (002 §2).
    let xi = SpringState { xi: DVec3::new(1.0, 0.0, 0.0), stiffness: KN * RATIO };
    let mut hc = ComposedHistory { tangential: xi, ..Default::default() };
    let spring = PlanarPredictorState { spring: xi, branch1: l1, branch2: l2, evaluated: true };
    let mut hp = ComposedHistory { tangential: spring, ..Default::default() };
    let k = contact(&mat, n, l1, l2 - DVec3::X * (v.x * dt), 0.0, 0.0, v, dt);
    let (fc, fp) = (cundall.force(&k, &mut hc), predictor.force(&k, &mut hp));
    let gt = 0.5 * 1e3 * RATIO;
    for f in [&fc, &fp] {
        assert!((f.force.x + 50.0 + gt).abs() < 1e-12, "{}", f.force.x);
        assert_eq!(f.status, ContactStatus::Sliding);
    }
    assert_eq!(hp.tangential.spring, hc.tangential);
    // Sticking: with the displacement matching v Δt the two increments agree to round-off
    // (the predictor's from two branch vectors of 5e-2 m: 1e-17 m on an increment of 1e-8
    // m), so the forces agree to 1e-9 relative.
    let v = DVec3::new(0.01, 0.0, 0.0);
    let (mut hc, mut hp) = (ComposedHistory::default(), ComposedHistory::default());
    let mut l2_now = l2;
    for _ in 0..20 {
        let k = contact(&mat, n, l1, l2_now, 0.0, 0.0, v, dt);
        let (fc, fp) = (cundall.force(&k, &mut hc), predictor.force(&k, &mut hp));
        l2_now -= v * dt;
        // The first evaluation: Cundall's spring takes v Δt, the predictor's none.
        let offset = -KN * RATIO * v.x * dt;
        assert!((fc.force.x - offset - fp.force.x).abs() < 1e-9 * fc.force.x.abs(), "{} {}", fc.force.x, fp.force.x);
        assert_eq!(fp.status, ContactStatus::Sticking);
    }
}

#[test]
fn the_planar_predictor_law_keeps_the_conformance_kits_energy_and_frame_checks() {
    let setup = ConformanceSetup { material: material(), ..Default::default() };
    let law = planar_predictor_law(KN, NU, RATIO, MU).unwrap();
    assert!(law.uses_rotations(), "002 eq. 15 needs the bodies' turns");
    let r = check_law(&law, &setup).unwrap();
    println!("{r}");
    assert_eq!(r.law, "area_spring+reduced_mass_viscous+planar_predictor");
    // The two exemptions of the Cundall law (`planar_cundall.rs`): 002's dashpot outside
    // the limit on the elastic force, and l_c = r₁ + r₂ that grows with a huge sphere.
    for c in &r.checks {
        let exempt = c.name.starts_with("|f_t| <= mu") || c.name.starts_with("wall = limit");
        assert!(exempt || c.passed, "{}: {} > {}", c.name, c.measured, c.tolerance);
    }
    assert!(matches!(planar_predictor_law(KN, NU, 0.0, MU), Err(LawError::InvalidParameter { .. })));
    assert!(matches!(planar_predictor_law(KN, NU, RATIO, -1.0), Err(LawError::InvalidParameter { .. })));
    assert!(matches!(planar_predictor_law(-KN, NU, RATIO, MU), Err(LawError::InvalidParameter { .. })));
}

#[test]
fn the_history_seen_from_the_other_body_or_turned_gives_the_same_increment() {
    // Body labels swapped: ξ, the normal and the relative motion change sign, the branches
    // trade places; the increment (hence ξ) is the opposite (exact: the same products).
    let mat = material();
    let law = planar_predictor_law(KN, 0.0, RATIO, 1e9).unwrap();
    let n = DVec3::new(0.6, 0.8, 0.0);
    let (l1, l2) = (DVec3::new(0.04, 0.05, 0.0), DVec3::new(-0.03, -0.02, 0.0));
    let mut h = ComposedHistory::default();
    law.force(&contact(&mat, n, l1, l2, 0.0, 0.0, DVec3::ZERO, 1e-4), &mut h);
    let mut hs = h.reversed();
    let (m1, m2) = (l1 + DVec3::new(1e-5, -2e-6, 0.0), l2 + DVec3::new(-3e-6, 4e-6, 0.0));
    let f = law.force(&contact(&mat, n, m1, m2, 2e-3, -1e-3, DVec3::ZERO, 1e-4), &mut h);
    let fs = law.force(&contact(&mat, -n, m2, m1, -1e-3, 2e-3, DVec3::ZERO, 1e-4), &mut hs);
    assert!((f.force + fs.force).length() < 1e-12 * f.force.length(), "{} vs {}", f.force, fs.force);
    assert!(h.tangential.spring.xi.length() > 0.0);
    assert!((h.tangential.spring.xi + hs.tangential.spring.xi).length() < 1e-15 * h.tangential.spring.xi.length());
}
