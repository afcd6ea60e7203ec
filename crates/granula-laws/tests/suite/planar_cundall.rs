//! Cundall's spring as 002 writes it (002 eqs. 6-7, `PlanarCundall`) in the planar
//! friction law: the sticking force is k_t times the elongation ∫v_t dt, the sliding spring
//! sits at μ F_n^e with the dashpot outside the limit, the limit reads the elastic normal
//! force (not the damped load), the energy it books is the work of the slip; and the disc
//! pairs of the planar world get 002's lens with l_c = r₁ + r₂.

use glam::DVec3;
use granula_core::{ContactKinematics, ContactLaw, Material, PairMaterial};
use granula_laws::conformance::{check_law, ConformanceSetup};
use granula_laws::*;

/// 002's parameters in SI: k_n, ν_n, k_t/k_n, μ.
const KN: f64 = 1e5;
const NU: f64 = 40.0;
const RATIO: f64 = 1.0 / 3.0;
const MU: f64 = 0.5;

fn material() -> PairMaterial {
    PairMaterial::mix(&Material::default(), &Material::default())
}

/// A polygon contact as `granula_polygons` publishes it: normal +y, area A (the overlap
/// volume of a unit thickness), l_c/2 = 0.05 m, mean depth 1 mm, reduced mass 0.5 kg,
/// relative velocity `v` at the contact point.
fn contact(mat: &PairMaterial, v: DVec3, dt: f64) -> ContactKinematics<'_> {
    ContactKinematics {
        normal: DVec3::Y,
        overlap: 1e-3,
        relative_velocity: v,
        relative_angular_velocity: DVec3::ZERO,
        branch1: DVec3::new(0.0, 0.05, 0.0),
        branch2: DVec3::new(0.0, -0.05, 0.0),
        effective_radius: 0.05,
        effective_mass: 0.5,
        material: mat,
        pair: &(),
        dt,
        rotation1: DVec3::ZERO,
        rotation2: DVec3::ZERO,
        overlap_volume: 1e-4,
    }
}

#[test]
fn a_sticking_spring_follows_k_t_times_the_elongation_then_slides_at_mu_f_e() {
    let mat = material();
    let law = planar_friction_law(KN, NU, RATIO, MU).unwrap();
    // F_n^e = k_n A / l_c = 1e5 · 1e-4 / 0.1 = 100 N; the limit μ F_n^e = 50 N; k_t = k_n/3.
    let (fe, kt, gt) = (100.0, KN * RATIO, 0.5 * NU * RATIO);
    let (u, dt) = (0.21, 1e-4);
    let v = DVec3::new(u, 0.0, 0.0);
    let mut h = Default::default();
    let mut stuck = 0;
    for step in 1..=200 {
        let f = law.force(&contact(&mat, v, dt), &mut h);
        let xi = step as f64 * u * dt; // 002 eq. 7: ξ = Σ v_t Δt
        if kt * xi <= MU * fe {
            stuck += 1;
            // 002 eq. 6 plus the dashpot, −k_t ξ − m_r ν_t v_t: a sum of `step` equal
            // increments, exact to a few roundings (1e-12 relative).
            let expected = -kt * xi - gt * u;
            assert!((f.force.x / expected - 1.0).abs() < 1e-12, "step {step}: {} vs {expected}", f.force.x);
            assert_eq!(f.status, granula_core::ContactStatus::Sticking);
            assert!((f.stored - 0.5 * KN * 1e-4 / 0.1 * 1e-3 - 0.5 * kt * xi * xi).abs() < 1e-12 * f.stored);
        } else {
            // Sliding: the spring at its extreme value μ F_n^e / k_t, the dashpot outside
            // the limit (002 §2, the 2D engine): |f_t| = μ F_n^e + m_r ν_t |v_t|.
            assert!((f.force.x + MU * fe + gt * u).abs() < 1e-12 * MU * fe, "step {step}: {}", f.force.x);
            assert_eq!(f.status, granula_core::ContactStatus::Sliding);
            // Steady sliding stores nothing new: the step dissipates the whole work
            // (μ F_n^e + γ_t u) u Δt the bodies give the tangential force (1e-12: round-off
            // of the truncation ξ = μF/k_t).
            if step > stuck + 1 {
                let work = (MU * fe + gt * u) * u * dt;
                assert!((f.dissipated.sliding / work - 1.0).abs() < 1e-12, "{} vs {work}", f.dissipated.sliding);
            }
        }
    }
    // k_t ξ = 0.7 N per step of u Δt = 2.1e-5 m reaches μ F_n^e = 50 N after 71.4 steps.
    assert_eq!(stuck, 71);
}

#[test]
fn the_coulomb_limit_reads_the_elastic_normal_force() {
    let mat = material();
    // With a large damping rate, an approaching contact's load F_e + m_r ν v_n is well above
    // F_e: 002's limit μ F_n^e must ignore it.
    let law = planar_friction_law(KN, 1e3, RATIO, MU).unwrap();
    let dt = 1e-6;
    // Tangential 1 m/s, approaching at 0.1 m/s (body 2 moves towards body 1: −y).
    let v = DVec3::new(1.0, -0.1, 0.0);
    // Pre-stretch the spring beyond the limit: it slides at once.
    let spring = SpringState { xi: DVec3::new(1.0, 0.0, 0.0), stiffness: KN * RATIO };
    let mut h = granula_laws::ComposedHistory { tangential: spring, ..Default::default() };
    let f = law.force(&contact(&mat, v, dt), &mut h);
    let gt = 0.5 * 1e3 * RATIO;
    // Spring force −μ F_e = −50 N along x, dashpot −γ_t · 1 m/s; the normal force
    // 100 + 0.5 · 1e3 · 0.1 = 150 N would have given −75 N.
    assert!((f.force.x + 50.0 + gt).abs() < 1e-12, "{}", f.force.x);
    assert!((f.force.y - 150.0).abs() < 1e-12, "{}", f.force.y);
    assert!((h.tangential.xi.x - 50.0 / (KN * RATIO)).abs() < 1e-18);
}

#[test]
fn the_planar_friction_law_keeps_the_conformance_kits_energy_and_frame_checks() {
    let setup = ConformanceSetup { material: material(), ..Default::default() };
    let law = planar_friction_law(KN, NU, RATIO, MU).unwrap();
    let r = check_law(&law, &setup).unwrap();
    println!("{r}");
    assert_eq!(r.law, "area_spring+reduced_mass_viscous+planar_cundall");
    // Two of the kit's checks are 3D conventions that 002 does not follow, on purpose:
    // |f_t| ≤ μ (f_n + F_C) (002 puts the tangential dashpot outside the limit and reads
    // the elastic normal force), and a wall as the limit of a huge sphere (002's
    // l_c = r₁ + r₂ grows with the sphere where a wall has l_c = 2r). Everything else,
    // energy, ledger, momentum, objectivity and the swap of the bodies, must pass.
    for c in &r.checks {
        let exempt = c.name.starts_with("|f_t| <= mu") || c.name.starts_with("wall = limit");
        assert!(exempt || c.passed, "{}: {} > {}", c.name, c.measured, c.tolerance);
    }
    assert!(matches!(planar_friction_law(KN, NU, 0.0, MU), Err(LawError::InvalidParameter { .. })));
    assert!(matches!(planar_friction_law(KN, NU, RATIO, -1.0), Err(LawError::InvalidParameter { .. })));
}

#[test]
fn two_discs_get_the_lens_with_l_c_the_sum_of_radii() {
    // Discs of radii 0.02 and 0.05 m overlapping by 0.1 mm, as the core's sphere generator
    // publishes them: contact point in the middle of the overlap, R* = r₁r₂/(r₁ + r₂), no
    // area. 002 eq. 5 with l_c = r₁ + r₂ on the lens area.
    let mat = material();
    let (r1, r2, delta) = (0.02, 0.05, 1e-4);
    let n = DVec3::new(0.6, 0.8, 0.0);
    let k = ContactKinematics {
        normal: n,
        overlap: delta,
        relative_velocity: DVec3::ZERO,
        relative_angular_velocity: DVec3::ZERO,
        branch1: n * (r1 - 0.5 * delta),
        branch2: -n * (r2 - 0.5 * delta),
        effective_radius: r1 * r2 / (r1 + r2),
        effective_mass: 1.0,
        material: &mat,
        pair: &(),
        dt: 1e-6,
        rotation1: DVec3::ZERO,
        rotation2: DVec3::ZERO,
        overlap_volume: 0.0,
    };
    let f = planar_area_law(KN, 0.0).unwrap().force(&k, &mut Default::default());
    let expected = kernels::lens_area_force(KN, r1, r2, delta).force;
    // The radii come back from the branch vectors to round-off: 1e-12 relative.
    assert!((f.force.dot(n) / expected - 1.0).abs() < 1e-12, "{} vs {expected}", f.force.dot(n));
    // Lens area to leading order, (4/3)√(2R*) δ^{3/2} ... times k_n/(r₁ + r₂): the old
    // segment with l_c = 2R* would have been (r₁ + r₂)/(2R*) ≈ 3.5 times larger.
    let r_star = r1 * r2 / (r1 + r2);
    let leading = 4.0 / 3.0 * (2.0 * r_star).sqrt() * delta.powf(1.5) * KN / (r1 + r2);
    assert!((expected / leading - 1.0).abs() < 1e-2, "{expected} vs {leading}");
    // A disc on a plane (R* = r, branch1 elsewhere on the plane): the segment, l_c = 2r.
    let wall = ContactKinematics { branch1: DVec3::new(0.3, 0.0, 0.0), effective_radius: r2, ..k };
    let wall = ContactKinematics { branch2: -n * (r2 - 0.5 * delta), ..wall };
    let f = planar_area_law(KN, 0.0).unwrap().force(&wall, &mut Default::default());
    assert_eq!(f.force.dot(n), kernels::segment_area_force(KN, r2, delta).force);
}
