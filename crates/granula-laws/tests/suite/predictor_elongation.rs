//! The predictor-based elongation (002 eqs. 14-15): exact translational increment from
//! positions against Cundall's 𝒱_t Δt, Coulomb cap, conformance kit, frame and swap
//! invariants, rigid rotation of a pair.

use glam::{DQuat, DVec3};
use granula_core::{ContactKinematics, ContactLaw, Material, PairMaterial};
use granula_laws::conformance::{check_law, ConformanceSetup};
use granula_laws::PredictorState;
use granula_laws::*;
use granula_laws::{NormalState, TangentialModel};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn material() -> PairMaterial {
    let m = Material { dynamic_friction: Some(0.4), ..Material::default() };
    PairMaterial::mix(&m, &m)
}

const MODES: [RotationalIncrement; 3] = [
    RotationalIncrement::TranslationOnly,
    RotationalIncrement::VelocityResidual,
    RotationalIncrement::FromOrientations,
];

/// Stiff, undamped, never-sliding settings so that ξ is the accumulated increment.
fn elastic(rotation: RotationalIncrement) -> PredictorElongation {
    let f = Friction::new(1e6, 1e6).unwrap();
    PredictorElongation::new(TangentialStiffness::Fixed(1e3), TangentialDamping::None, f, rotation).unwrap()
}

fn cundall() -> CundallStrack {
    let f = Friction::new(1e6, 1e6).unwrap();
    CundallStrack::new(TangentialStiffness::Fixed(1e3), TangentialDamping::None, f).unwrap()
}

const LOAD: NormalState = NormalState { load: 1.0, stiffness: 1e4, damping: 0.0, elastic: 1.0 };

/// A sphere of radius `a` on a plane z = 0 (body 1, its reference point at the origin),
/// overlap δ fixed, centre at (x, 0, a − δ), sliding with velocity ẋ along x, no rotation:
/// the kinematics the core builds (branch1 = contact point − plane point).
fn on_plane(mat: &PairMaterial, x: f64, x_dot: f64, dt: f64) -> ContactKinematics<'_> {
    let (a, delta) = (1e-3, 1e-6);
    let n = DVec3::Z;
    ContactKinematics {
        normal: n,
        overlap: delta,
        relative_velocity: DVec3::new(x_dot, 0.0, 0.0),
        relative_angular_velocity: DVec3::ZERO,
        branch1: DVec3::new(x, 0.0, -0.5 * delta),
        branch2: -n * (a - 0.5 * delta),
        effective_radius: a,
        effective_mass: 1e-5,
        material: mat,
        pair: &(),
        dt,
        rotation1: DVec3::ZERO,
        rotation2: DVec3::ZERO,
        overlap_volume: 0.0,
    }
}

/// Errors |ξ_x(t_i) − (x(t_i) − x(0))| at every evaluation t_i = iΔt, i = 0..=steps, for
/// x(t) = A sin(ωt) (A = 0.1 mm, one period = 1 ms), with the predictor law in `mode` and
/// with Cundall's spring.
fn sine_errors(mode: RotationalIncrement, steps: usize) -> (Vec<f64>, Vec<f64>) {
    let mat = material();
    let (amp, omega) = (1e-4, 2.0 * std::f64::consts::PI / 1e-3);
    let dt = 0.25e-3 / steps as f64; // a quarter period in `steps` steps
    let (p, c) = (elastic(mode), cundall());
    let (mut hp, mut hc) = (PredictorState::default(), Default::default());
    let (mut ep, mut ec) = (Vec::new(), Vec::new());
    for i in 0..=steps {
        let t = i as f64 * dt;
        let k = on_plane(&mat, amp * (omega * t).sin(), amp * omega * (omega * t).cos(), dt);
        p.tangential(&k, &LOAD, &mut hp);
        c.tangential(&k, &LOAD, &mut hc);
        let exact = amp * (omega * t).sin();
        // The spring sits where it is stretched: f = −k ξ, ξ along +x for a +x motion.
        ep.push((hp.xi.x - exact).abs());
        ec.push((hc.xi.x - exact).abs());
    }
    (ep, ec)
}

#[test]
fn translation_from_positions_is_exact_at_every_step_unlike_cundall() {
    let amp = 1e-4;
    let mut cundall_end = Vec::new();
    for steps in [25, 50, 100, 200] {
        let (ep, ec) = sine_errors(RotationalIncrement::TranslationOnly, steps);
        // eq. 14: the increments telescope to x(t_i) − x(0); what is left is the round-off
        // of ≤ 200 additions of numbers ≤ A (≈ 200 × 1.1e-16 A = 2.2e-14 A): 1e-13 A.
        let worst = ep.iter().cloned().fold(0.0, f64::max);
        assert!(worst <= 1e-13 * amp, "{steps} steps: predictor error {worst:e}");
        cundall_end.push(*ec.last().unwrap());
    }
    // Cundall's ξ + 𝒱_t Δt (002 eq. 7) is a Riemann sum of ẋ: at t = T/4 its error is
    // ≈ ½ Δt (ẋ(0) + ẋ(T/4)) = ½ Δt A ω, first order; halving Δt halves it (0.45-0.55
    // leaves room for the O(Δt²) term, ωΔt/12 ≤ 2 % here).
    for w in cundall_end.windows(2) {
        let ratio = w[1] / w[0];
        assert!((0.45..0.55).contains(&ratio), "Cundall errors {cundall_end:?}");
    }
    let omega = 2.0 * std::f64::consts::PI / 1e-3;
    let dt = 0.25e-3 / 200.0;
    let expected = 0.5 * dt * amp * omega;
    // 5 %: the O(Δt²) remainder (ωΔt ≈ 8e-3).
    assert!((cundall_end[3] / expected - 1.0).abs() < 0.05, "{} vs {expected}", cundall_end[3]);
}

#[test]
fn constant_velocity_is_exact_in_both_modes_and_the_residual_mode_is_second_order() {
    let mat = material();
    for mode in MODES {
        let law = elastic(mode);
        for dt in [1e-6, 3e-6, 1e-5] {
            let v = 0.02;
            let mut h = PredictorState::default();
            for i in 0..=100 {
                let t = i as f64 * dt;
                law.tangential(&on_plane(&mat, 1e-4 + v * t, v, dt), &LOAD, &mut h);
                // Round-off of ≤ 100 increments of ≤ 2e-7 m on positions of ~1e-4 m:
                // ~100 × 1e-4 × 1.1e-16 ≈ 1e-18 m; 1e-16 m relative to ξ ≤ 2e-5 m.
                assert!((h.xi.x - v * t).abs() <= 1e-16 + 1e-12 * v * t, "{mode:?} dt {dt}: {}", h.xi.x - v * t);
            }
        }
    }
    // With a general motion the residual mode errs by (Ṙ − Ṙ_est)Δt = O(Δt³) per step:
    // second order overall; halving Δt divides the error at T/4 by ≈ 4 (3-5: the
    // first-order fallback at the second evaluation adds ½ẍΔt², zero at t = 0 here).
    let ends: Vec<f64> = [50, 100, 200]
        .iter()
        .map(|&s| *sine_errors(RotationalIncrement::VelocityResidual, s).0.last().unwrap())
        .collect();
    for w in ends.windows(2) {
        assert!((3.0..5.0).contains(&(w[0] / w[1])), "residual-mode errors {ends:?}");
    }
}

fn unit(rng: &mut ChaCha8Rng) -> DVec3 {
    DVec3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0)).normalize()
}

/// A random but smooth sequence of contact kinematics (overlap, normal and velocities drift).
fn sequence(seed: u64, mat: &PairMaterial, steps: usize) -> Vec<ContactKinematics<'_>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut n = unit(&mut rng);
    let (r1, r2) = (1e-3, 1.3e-3);
    let mut out = Vec::with_capacity(steps);
    for i in 0..steps {
        n = (n + 0.02 * unit(&mut rng)).normalize();
        let overlap = 2e-6 * (1.0 + (i as f64 * 0.05).sin()) + 1e-8;
        out.push(ContactKinematics {
            normal: n,
            overlap,
            relative_velocity: 0.05 * unit(&mut rng),
            relative_angular_velocity: 50.0 * unit(&mut rng),
            branch1: n * (r1 - 0.5 * overlap),
            branch2: -n * (r2 - 0.5 * overlap),
            effective_radius: r1 * r2 / (r1 + r2),
            effective_mass: 5e-6,
            material: mat,
            pair: &(),
            dt: 1e-6,
            rotation1: 50e-6 * unit(&mut rng),
            rotation2: 50e-6 * unit(&mut rng),
            overlap_volume: 0.0,
        });
    }
    out
}

type HertzPredictor = Composed<Hertz, HertzViscous, PredictorElongation>;

fn hertz_predictor(mode: RotationalIncrement) -> HertzPredictor {
    Composed::new(Hertz::from_material(), HertzViscous::from_material(), PredictorElongation::from_material(mode))
}

#[test]
fn tangential_force_never_exceeds_coulomb() {
    let mat = material();
    for mode in MODES {
        let law = hertz_predictor(mode);
        let mut slid = false;
        for seed in 0..20 {
            let mut h = Default::default();
            for k in &sequence(seed, &mat, 300) {
                let f = law.force(k, &mut h);
                let fn_ = f.force.dot(k.normal);
                let ft = (f.force - fn_ * k.normal).length();
                // |f_t| ≤ μ_s f_n; 1e-12 relative for the round-off of the rescale.
                assert!(ft <= mat.friction * fn_ * (1.0 + 1e-12) + 1e-300, "{mode:?} seed {seed}: {ft} > μ {fn_}");
                slid |= ft >= 0.99 * mat.dynamic_friction * fn_;
            }
        }
        assert!(slid, "{mode:?}: the sequences must reach the Coulomb limit for the test to bite");
    }
}

#[test]
fn conformance_kit_passes() {
    let m = Material { rolling_friction: 0.0, torsion_friction: 0.0, ..Material::default() };
    let setup = ConformanceSetup { material: PairMaterial::mix(&m, &m), ..Default::default() };
    for mode in [RotationalIncrement::VelocityResidual, RotationalIncrement::FromOrientations] {
        let law = hertz_predictor(mode);
        let r = check_law(&law, &setup).unwrap();
        println!("{mode:?}: {r}");
        assert!(r.passed(), "{mode:?}: {r}");
        assert_eq!(r.law, "hertz+hertz_viscous+predictor_elongation");
        let law = linear_predictor(1e3, 1.0 / 3.0, mode).unwrap();
        let r = check_law(&law, &setup).unwrap();
        println!("{mode:?}: {r}");
        assert!(r.passed(), "{mode:?}: {r}");
    }
}

#[test]
fn history_reversal_is_an_involution_and_rotation_a_group_action() {
    let mat = material();
    for mode in MODES {
        let law = hertz_predictor(mode);
        let mut h = Default::default();
        for k in &sequence(7, &mat, 100) {
            law.force(k, &mut h);
        }
        assert_ne!(h, Default::default(), "the sequence must leave some state");
        assert_eq!(h.reversed().reversed(), h);
        let q = DQuat::from_axis_angle(DVec3::new(1.0, 2.0, -0.5).normalize(), 0.7);
        let back = h.rotated(q).rotated(q.inverse()).tangential;
        let t = h.tangential;
        // Two rotations of a vector: round-off of a few 1e-16 relative.
        assert!((back.xi - t.xi).length() <= 1e-15 * t.xi.length());
        assert!((back.separation - t.separation).length() <= 1e-15 * t.separation.length());
        assert!((back.earlier - t.earlier).length() <= 1e-15 * t.earlier.length());
    }
}

/// The same step seen in a rotated frame, or with the bodies swapped, gives the rotated,
/// respectively opposite, force and the same stored energy.
#[test]
fn single_step_objectivity_and_swap_symmetry() {
    let mat = material();
    let q = DQuat::from_axis_angle(DVec3::new(-0.3, 0.8, 0.2).normalize(), 2.1);
    for mode in MODES {
        let law = hertz_predictor(mode);
        for seed in 0..5 {
            let ks = sequence(100 + seed, &mat, 200);
            let mut h = Default::default();
            for k in &ks[..199] {
                law.force(k, &mut h);
            }
            let k = ks[199];
            let (mut h0, mut hr, mut hs) = (h, h.rotated(q), h.reversed());
            let f0 = law.force(&k, &mut h0);
            let kr = k.rotated(q);
            let fr = law.force(&kr, &mut hr);
            let ks_ = k.swapped();
            let fs = law.force(&ks_, &mut hs);
            let scale = f0.force.length();
            // Round-off of a few dozen operations (the increment is a difference of
            // ~1e-3 m vectors, ~1e-9 m apart: 1e-16 × 1e-3 / 1e-9 ≈ 1e-10 relative on the
            // increment, a small part of ξ): 1e-10 relative on the force.
            assert!((q * f0.force - fr.force).length() <= 1e-10 * scale, "{mode:?}: rotated frame");
            assert!((f0.force + fs.force).length() <= 1e-10 * scale, "{mode:?}: swap, the force on the other body");
            assert!((f0.stored - fr.stored).abs() <= 1e-10 * f0.stored);
            assert!((f0.stored - fs.stored).abs() <= 1e-10 * f0.stored);
            let xi = h0.tangential.xi;
            assert!((hr.tangential.xi - q * xi).length() <= 1e-10 * xi.length());
            assert!((hs.reversed().tangential.xi - xi).length() <= 1e-10 * xi.length());
        }
    }
}

/// Two spheres glued in contact turning rigidly about the z axis through sphere 1's centre:
/// 𝒱 = 0, yet R = x₂ − x₁ turns. The residual mode books (𝒱 − Ṙ_est)Δt + ΔR ≈ 0; the
/// translation-only mode counts the turn of R as slip, |ξ| ≈ |R| θ (its documented limit);
/// the orientation mode, given the bodies' rotations θ₁ = θ₂ = ωΔt ẑ, books nothing.
#[test]
fn rigid_rotation_of_a_pair_stretches_only_the_translation_only_spring() {
    let mat = material();
    let (r1, r2, delta) = (1e-3, 1e-3, 1e-6);
    let dist = r1 + r2 - delta;
    let (omega, dt, steps) = (100.0, 1e-5, 100); // θ = 0.1 rad in total
    for mode in MODES {
        let law = elastic(mode);
        let mut h = PredictorState::default();
        for i in 0..=steps {
            let th = omega * dt * i as f64;
            let n = DVec3::new(th.cos(), th.sin(), 0.0);
            let turn = if i == 0 { DVec3::ZERO } else { DVec3::Z * (omega * dt) };
            let k = ContactKinematics {
                normal: n,
                overlap: delta,
                relative_velocity: DVec3::ZERO,
                relative_angular_velocity: DVec3::ZERO,
                branch1: n * (r1 - 0.5 * delta),
                branch2: -n * (r2 - 0.5 * delta),
                effective_radius: 0.5e-3,
                effective_mass: 1e-5,
                material: &mat,
                pair: &(),
                dt,
                rotation1: turn,
                rotation2: turn,
                overlap_volume: 0.0,
            };
            law.tangential(&k, &LOAD, &mut h);
        }
        let theta = omega * dt * steps as f64;
        match mode {
            // Per step the residual is (Ṙ − Ṙ_est)Δt ≈ ⅓|R|ω³Δt³ ≈ 7e-13 m, and 100 steps
            // (plus the first-order fallback, ½|R|ω²Δt² = 1e-9 m): 2e-9 m against |R|θ = 2e-4 m.
            RotationalIncrement::VelocityResidual => assert!(h.xi.length() < 2e-9, "{}", h.xi.length()),
            // |ξ| = |R|θ up to the chord/arc difference (θ²/24 ≈ 4e-4 relative): 1e-3.
            RotationalIncrement::TranslationOnly => {
                assert!((h.xi.length() / (dist * theta) - 1.0).abs() < 1e-3, "{}", h.xi.length())
            }
            // Round-off only: per step a few ulps of |R| = 2e-3 m (the normal, the turn N
            // and the rotation vectors each carry ~1e-16 relative), 100 steps: 1e-16 m
            // is 1e-12 of the translation-only stretch.
            RotationalIncrement::FromOrientations => assert!(h.xi.length() < 1e-16, "{}", h.xi.length()),
        }
    }
}

#[test]
fn names_and_bad_settings() {
    assert_eq!(PredictorElongation::from_material(RotationalIncrement::TranslationOnly).name(), "predictor_elongation");
    let f = Friction::from_material();
    let bad =
        PredictorElongation::new(TangentialStiffness::Fixed(-1.0), TangentialDamping::None, f, Default::default());
    assert!(bad.is_err(), "a negative stiffness is rejected, not a panic");
    // Only the orientation mode asks the solver for rotation increments.
    assert!(hertz_predictor(RotationalIncrement::FromOrientations).uses_rotations());
    assert!(!hertz_predictor(RotationalIncrement::VelocityResidual).uses_rotations());
    assert!(!hertz_predictor(RotationalIncrement::TranslationOnly).uses_rotations());
    assert!(!hertz_mindlin().uses_rotations());
}
