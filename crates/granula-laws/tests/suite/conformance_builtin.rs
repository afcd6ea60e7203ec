//! Every built-in law passes the conformance kit.

use granula_core::{ContactLaw, Material, PairMaterial};
use granula_laws::conformance::{check_law, ConformanceReport, ConformanceSetup};
use granula_laws::params::linear_clamped_collision;
use granula_laws::*;

fn material(restitution: f64) -> PairMaterial {
    let m = Material {
        restitution,
        rolling_friction: 2e-5,
        torsion_friction: 1e-5,
        cohesion_force: 0.0,
        cohesion_range: 0.0,
        ..Material::default()
    };
    PairMaterial::mix(&m, &m)
}

fn check<L: ContactLaw>(law: &L, setup: ConformanceSetup) -> ConformanceReport {
    let r = check_law(law, &setup).unwrap();
    println!("{r}");
    assert!(r.passed(), "{r}");
    r
}

/// Reduced mass of the kit's head-on sphere pair (radii r and 1.25 r, density 2500).
fn kit_reduced_mass(setup: &ConformanceSetup) -> f64 {
    let m = |r: f64| setup.density * 4.0 / 3.0 * std::f64::consts::PI * r * r * r;
    let (a, b) = (m(setup.radius), m(1.25 * setup.radius));
    a * b / (a + b)
}

#[test]
fn hertz_mindlin_with_rolling_and_twisting() {
    let law = hertz_mindlin()
        .with_rolling(RollingResistance::from_material())
        .with_twisting(TwistingResistance::from_material());
    let r = check(&law, ConformanceSetup { material: material(0.5), ..Default::default() });
    assert_eq!(r.law, "hertz+hertz_viscous+cundall_strack+rolling_resistance+twisting_resistance");
    // Clamped (the default policy): the calibrated damping claims and produces the
    // material's restitution. The force switches off inside a step, a first-order error of
    // about 0.1 Δt/t_c (tests/suite/hertz_tsuji_clamped.rs): 5e-4 at t_c/200, so 2e-3 is a 4× margin.
    let law = hertz_mindlin();
    assert_eq!(law.claimed_restitution(&material(0.5)), Some(0.5));
    let clamped = ConformanceSetup {
        material: material(0.5),
        claimed_restitution: law.claimed_restitution(&material(0.5)),
        restitution_tolerance: 2e-3,
        ..Default::default()
    };
    check(&law, clamped);
    // The plain Tsuji ratio under the clamp claims the reduced value 0.5503 and produces it.
    let plain = Composed::new(Hertz::from_material(), HertzViscous::from_material(), CundallStrack::from_material());
    let claimed = plain.claimed_restitution(&material(0.5)).unwrap();
    // The clamped linear dashpot's closed form at the same ratio (the same reduced
    // equation, see damping::hertz_tsuji_collision); 1e-9 is the integration's accuracy.
    let alpha = granula_laws::params::damping_ratio_from_restitution(0.5);
    assert!((claimed - linear_clamped_collision(1.0, 2.0 * alpha, 1.0).0).abs() < 1e-9, "{claimed}");
    check(&plain, ConformanceSetup { claimed_restitution: Some(claimed), ..clamped });
    // Unclamped, the plain ratio produces its target exactly (the reduced value is e to
    // 1e-9); 5e-3 covers the integrator at Δt = t_c/200 (smooth force, second order).
    let free = plain.with_tension(TensionPolicy::AllowDampingTension);
    let claimed = free.claimed_restitution(&material(0.5)).unwrap();
    assert!((claimed - 0.5).abs() < 1e-9, "{claimed}");
    check(&free, ConformanceSetup { claimed_restitution: Some(claimed), restitution_tolerance: 5e-3, ..clamped });
}

#[test]
fn hertz_with_the_integrated_dashpot_passes_and_claims_the_calibrated_restitution() {
    // The integrated dashpot (HertzViscousImpulse) with Cundall-Strack, clamped: it claims
    // the calibrated e = 0.5 and produces it within 2e-3 at the kit's t_c/200 (same
    // margin as the sampled form above; its own error there is O(Δt²), about 1e-4).
    let law = Composed::new(
        Hertz::from_material(),
        HertzViscousImpulse::calibrated_from_material(),
        CundallStrack::from_material(),
    );
    assert_eq!(law.claimed_restitution(&material(0.5)), Some(0.5));
    let r = check(
        &law,
        ConformanceSetup {
            material: material(0.5),
            claimed_restitution: Some(0.5),
            restitution_tolerance: 2e-3,
            ..Default::default()
        },
    );
    assert_eq!(r.law, "hertz+hertz_viscous_impulse+cundall_strack");
}

#[test]
fn linear_cundall_strack_claims_its_restitution() {
    let law = linear_cundall_strack(1e3, 1.0 / 3.0).unwrap();
    let mut setup = ConformanceSetup { material: material(0.5), ..Default::default() };
    // Clamped: the law claims the closed form of the clamped dashpot; check it against the
    // direct formula with the kit's reduced mass. 0.005 covers the first-order error of the
    // switch-off at Δt = t_c/200 (see head_on.rs).
    let m_r = kit_reduced_mass(&setup);
    let gamma = granula_laws::params::viscous_coefficient_from_restitution(0.5, m_r, 1e3, 1.0);
    let direct = linear_clamped_collision(1e3, gamma, m_r).0;
    setup.claimed_restitution = law.claimed_restitution(&setup.material);
    // Same closed form with scaled units: round-off only.
    assert!((setup.claimed_restitution.unwrap() - direct).abs() < 1e-12);
    setup.restitution_tolerance = 5e-3;
    check(&law, setup);
    // Unclamped: exactly e (002 eq. 8); 0.005 for the integrator at t_c/200.
    let law = law.with_tension(TensionPolicy::AllowDampingTension);
    setup.claimed_restitution = law.claimed_restitution(&setup.material);
    check(&law, setup);
}

#[test]
fn hunt_crossley_brendel_dippel_claims_e_close_to_one() {
    // 003: the energy loss ½ m δ̇₀² (1 − e²) holds "when e is close to one": at e = 0.95 the
    // produced value is within 0.02 (measured 0.9535 at Δt = t_c/200).
    let law = hunt_crossley_brendel_dippel(1e6, 1.5).unwrap();
    let setup = ConformanceSetup {
        material: material(0.95),
        claimed_restitution: Some(0.95),
        restitution_tolerance: 2e-2,
        ..Default::default()
    };
    check(&law, setup);
}

#[test]
fn linear_viscous_coulomb_and_hertz_lmgc_with_cohesion() {
    let law = linear_viscous_coulomb(1e3, 1e3).unwrap();
    check(&law, ConformanceSetup { material: material(0.5), ..Default::default() });
    let cohesive = Material { cohesion_force: 1e-3, cohesion_range: 1e-6, ..Material::default() };
    let law = Composed::new(HertzLmgc::from_material(), HertzViscous::from_material(), BrendelDippel::from_material())
        .with_cohesion(ConstantCohesion::from_material());
    check(&law, ConformanceSetup { material: PairMaterial::mix(&cohesive, &cohesive), ..Default::default() });
}

#[test]
fn hertz_mindlin_with_tangential_damping() {
    // The tangential dashpot only adds dissipation: the kit's energy, objectivity, swap and
    // wall checks hold, and the head-on restitution (no tangential motion) is unchanged,
    // with the same 2e-3 tolerance as plain Hertz-Mindlin.
    let law = hertz_mindlin_damped();
    let setup = ConformanceSetup {
        material: material(0.5),
        claimed_restitution: law.claimed_restitution(&material(0.5)),
        restitution_tolerance: 2e-3,
        ..Default::default()
    };
    check(&law, setup);
}

#[test]
fn the_unbounded_cundall_strack_spring_of_003_eq_4_passes() {
    // 003 eq. 4 with Hertz, the calibrated damping and the default kit: the impacts never
    // turn the slip back while the spring is stretched beyond the Coulomb radius, so the
    // energy checks hold as for the truncated spring; with and without its dashpot, and
    // with cohesion (the friction load R_n + F_C, 001 §1.8).
    let law =
        Composed::new(Hertz::from_material(), HertzViscous::from_material(), UnboundedCundallStrack::from_material());
    let r = check(&law, ConformanceSetup { material: material(0.5), ..Default::default() });
    assert_eq!(r.law, "hertz+hertz_viscous+unbounded_cundall_strack");
    let damped = UnboundedCundallStrack::new(
        TangentialStiffness::FromNormal,
        TangentialDamping::SameDampingRatio,
        Friction::from_material(),
    )
    .unwrap();
    check(
        &Composed::new(Hertz::from_material(), HertzViscous::from_material(), damped),
        ConformanceSetup { material: material(0.5), ..Default::default() },
    );
    let cohesive = Material { cohesion_force: 1e-3, cohesion_range: 1e-6, ..Material::default() };
    let law = Composed::new(LinearSpring::new(1e3).unwrap(), LinearViscous::from_material(), damped)
        .with_cohesion(ConstantCohesion::from_material());
    check(&law, ConformanceSetup { material: PairMaterial::mix(&cohesive, &cohesive), ..Default::default() });
}
