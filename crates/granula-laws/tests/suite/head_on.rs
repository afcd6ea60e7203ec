//! M1 and M2 of VALIDATION.md: head-on collisions against the closed forms, with the conformance
//! kit's velocity-Verlet pair integrator.

use glam::DVec3;
use granula_core::{ContactLaw, Material, PairMaterial};
use granula_laws::conformance::pair::{First, IsolatedPair, Sphere};
use granula_laws::params::{hertz_contact_time, hertz_max_overlap, linear_clamped_collision, LinearCollision};
use granula_laws::*;

/// What a head-on collision produced.
struct Measured {
    restitution: f64,
    contact_time: f64,
    max_overlap: f64,
}

/// Two spheres of radius `r` and mass `m` touching at t = 0 and approaching at `v`; the
/// contact start and end are found by linear interpolation of the overlap between steps.
fn collide<L: ContactLaw<Pair = ()>>(law: &L, mat: PairMaterial, r: f64, m: f64, v: f64, dt: f64) -> Measured {
    let a = Sphere { position: DVec3::ZERO, velocity: DVec3::ZERO, angular_velocity: DVec3::ZERO, radius: r, mass: m };
    let b = Sphere { position: DVec3::X * 2.0 * r, velocity: -DVec3::X * v, ..a };
    let mut p: IsolatedPair<L> = IsolatedPair::new(First::Sphere(a), b, mat);
    let (mut t, mut prev, mut max_overlap) = (0.0, 0.0, 0.0f64);
    let mut end = None;
    for _ in 0..1_000_000 {
        p.step(law, dt);
        t += dt;
        let ov = p.last_overlap;
        max_overlap = max_overlap.max(ov);
        if prev > 0.0 && ov <= 0.0 {
            end = Some(t - dt + dt * prev / (prev - ov));
            break;
        }
        prev = ov;
    }
    let rel = match p.first {
        First::Sphere(s) => p.second.velocity - s.velocity,
        First::Wall { .. } => unreachable!(),
    };
    Measured { restitution: rel.x / v, contact_time: end.expect("the spheres separate"), max_overlap }
}

fn glass() -> PairMaterial {
    let m = Material { friction: 0.0, ..Material::default() };
    PairMaterial::mix(&m, &m)
}

#[test]
fn m1_linear_spring_dashpot_matches_the_damped_oscillator() {
    let (r, m, v) = (1e-3, 1e-5, 0.3);
    let m_r = 0.5 * m;
    for e in [0.3, 0.5, 0.9] {
        let c = LinearCollision::from_collision(1e-4, e, m_r).unwrap();
        let law = Composed::new(
            LinearSpring::new(c.stiffness).unwrap(),
            LinearViscous::new(DampingCoefficient::Fixed(c.damping)).unwrap(),
            NoFriction,
        )
        .with_tension(TensionPolicy::AllowDampingTension);
        let eta = c.damping / (2.0 * m_r);
        let omega = (c.stiffness / m_r - eta * eta).sqrt();
        let (e_theory, tc_theory) = ((-std::f64::consts::PI * eta / omega).exp(), std::f64::consts::PI / omega);
        let got = collide(&law, glass(), r, m, v, tc_theory / 50.0);
        // VALIDATION M1: within 0.5 % at Δt = t_c/50.
        assert!((got.restitution / e_theory - 1.0).abs() < 5e-3, "e {} vs {}", got.restitution, e_theory);
        assert!((got.contact_time / tc_theory - 1.0).abs() < 5e-3, "t_c {} vs {}", got.contact_time, tc_theory);
    }
}

#[test]
fn m1_clamped_dashpot_matches_its_closed_form() {
    // Default policy: no attraction. The bodies separate when k δ + γ δ̇ = 0, with the
    // restitution of params::linear_clamped_collision.
    let (r, m, v) = (1e-3, 1e-5, 0.3);
    let m_r = 0.5 * m;
    for e in [0.3, 0.5, 0.9] {
        let c = LinearCollision::from_collision(1e-4, e, m_r).unwrap();
        let law = Composed::new(
            LinearSpring::new(c.stiffness).unwrap(),
            LinearViscous::new(DampingCoefficient::Fixed(c.damping)).unwrap(),
            NoFriction,
        );
        let (e_clamped, _) = linear_clamped_collision(c.stiffness, c.damping, m_r);
        // The clamp switches the force off at a step boundary: the error is first order in
        // Δt (2 % at t_c/50 for e = 0.3, measured), so this check uses t_c/400 for 0.5 %.
        let got = collide(&law, glass(), r, m, v, 1e-4 / 400.0);
        assert!((got.restitution / e_clamped - 1.0).abs() < 5e-3, "e {} vs {}", got.restitution, e_clamped);
        assert!(e_clamped > e, "the clamp gives back energy the dashpot would have taken");
    }
}

#[test]
fn m2_hertz_contact_time_and_max_overlap() {
    let mat = glass();
    let r = 2e-3;
    let m = 2500.0 * 4.0 / 3.0 * std::f64::consts::PI * r * r * r;
    let (r_eff, m_eff) = (0.5 * r, 0.5 * m);
    let law = Composed::new(Hertz::from_material(), NoDamping, NoFriction);
    for v in [0.1, 1.0] {
        let tc = hertz_contact_time(mat.effective_young, r_eff, m_eff, v);
        let dmax = hertz_max_overlap(mat.effective_young, r_eff, m_eff, v);
        let got = collide(&law, mat, r, m, v, tc / 200.0);
        // VALIDATION M2: within 1 %.
        assert!((got.contact_time / tc - 1.0).abs() < 1e-2, "t_c {} vs {}", got.contact_time, tc);
        assert!((got.max_overlap / dmax - 1.0).abs() < 1e-2, "δ_max {} vs {}", got.max_overlap, dmax);
        // Elastic: e = 1 to the integrator's accuracy (O((Δt/t_c)²) ≈ 1e-4 here).
        assert!((got.restitution - 1.0).abs() < 1e-3);
        // The law's own contact time is the same formula.
        assert_eq!(law.contact_time(&mat, m_eff, r_eff, v), tc);
        assert!((law.recommended_dt(&mat, m_eff, r_eff, v) - tc / 5.0).abs() < 1e-15 * tc);
    }
}

#[test]
fn hertz_viscous_restitution_matches_its_target_when_unclamped() {
    let mat = glass();
    let r = 2e-3;
    let m = 2500.0 * 4.0 / 3.0 * std::f64::consts::PI * r * r * r;
    let law = Composed::new(Hertz::from_material(), HertzViscous::from_material(), NoFriction)
        .with_tension(TensionPolicy::AllowDampingTension);
    let tc = hertz_contact_time(mat.effective_young, 0.5 * r, 0.5 * m, 0.5);
    for v in [0.05, 0.5, 5.0] {
        let got = collide(&law, mat, r, m, v, tc / 400.0);
        // The Tsuji form gives a speed-independent e equal to the target (its reduced
        // equation has the linear dashpot's restitution, see damping::hertz_tsuji_collision);
        // 0.5 % covers the integrator (measured 0.4997 for 0.5).
        assert!((got.restitution - mat.restitution).abs() < 5e-3, "v = {v}: e = {}", got.restitution);
    }
}

#[test]
fn m1_dashpot_calibrated_to_the_clamp_gives_e() {
    // DampingCoefficient::FromRestitutionClamped: α from linear_clamped_damping_ratio, so the
    // clamped restitution is e, including e = 0.1 where the dashpot is over-damped (α > 1)
    // and the closed form of linear_clamped_collision does not apply.
    let (r, m, v) = (1e-3, 1e-5, 0.3);
    let k: f64 = 1e3;
    let tc = std::f64::consts::PI * (0.5 * m / k).sqrt();
    for e in [0.1, 0.5, 0.9] {
        let law = Composed::new(
            LinearSpring::new(k).unwrap(),
            LinearViscous::new(DampingCoefficient::FromRestitutionClamped(Some(e))).unwrap(),
            NoFriction,
        );
        let mat = glass();
        assert_eq!(law.claimed_restitution(&mat), Some(e));
        let err = |steps: f64| collide(&law, mat, r, m, v, tc / steps).restitution - e;
        let (coarse, fine) = (err(400.0), err(1600.0));
        // First order in Δt at the switch-off (see m1_clamped_dashpot_matches_its_closed_form),
        // largest for the over-damped e = 0.1 whose force ends early (measured 9.7e-4 at
        // t_c/400, 2.4e-4 at t_c/1600): 2e-3 is a 2× margin, and the error must shrink about
        // fourfold (3× asked) so that e is the limit.
        assert!(coarse.abs() < 2e-3, "e = {e}: {coarse}");
        assert!(fine.abs() < coarse.abs() / 3.0, "e = {e}: {coarse} -> {fine}");
    }
}
