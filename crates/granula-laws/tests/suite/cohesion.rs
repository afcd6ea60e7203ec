//! Constant-force cohesion (001 §1.8): separating a bonded pair costs E_C = F_C d_C.

use glam::DVec3;
use granula_core::{Material, PairMaterial};
use granula_laws::conformance::pair::{First, IsolatedPair, Sphere};
use granula_laws::*;

const R: f64 = 1e-3;
const M: f64 = 1e-5;
const F_C: f64 = 1e-3;
const D_C: f64 = 2e-6;

/// Two touching spheres pulled apart at relative speed `v`; returns (largest gap, final
/// relative speed).
fn pull_apart(v: f64) -> (f64, f64) {
    let m = Material { cohesion_force: F_C, cohesion_range: D_C, friction: 0.0, ..Material::default() };
    let law = Composed::new(LinearSpring::new(1e3).unwrap(), NoDamping, NoFriction)
        .with_cohesion(ConstantCohesion::from_material());
    let a = Sphere { position: DVec3::ZERO, velocity: DVec3::ZERO, angular_velocity: DVec3::ZERO, radius: R, mass: M };
    let b = Sphere { position: DVec3::X * 2.0 * R, velocity: DVec3::X * v, ..a };
    let mut p: IsolatedPair<_> = IsolatedPair::new(First::Sphere(a), b, PairMaterial::mix(&m, &m));
    // Δt: 1/1000 of the range at speed v, and 1/100 of the spring period √(m*/k).
    let dt = (1e-3 * D_C / v).min(0.01 * (0.5 * M / 1e3f64).sqrt());
    let mut max_gap = f64::NEG_INFINITY;
    for _ in 0..2_000_000 {
        p.step(&law, dt);
        max_gap = max_gap.max(-p.last_overlap);
        if -p.last_overlap > 3.0 * D_C {
            break;
        }
    }
    let rel = match p.first {
        First::Sphere(s) => p.second.velocity - s.velocity,
        First::Wall { .. } => unreachable!(),
    };
    (max_gap, rel.length())
}

#[test]
fn a_pull_above_the_binding_energy_separates_with_the_rest() {
    let m_r = 0.5 * M;
    let e_c = F_C * D_C;
    // ½ m* v² = 2 E_C: the pair separates with ½ m* v'² = E_C, v' = v/√2.
    let v = (4.0 * e_c / m_r).sqrt();
    let (gap, v_after) = pull_apart(v);
    assert!(gap > D_C, "separated");
    // The force drops from F_C to 0 within one step at the range edge: an energy error of
    // order F_C v Δt = E_C/1000; 0.5 % on the speed.
    assert!((v_after / (v / 2f64.sqrt()) - 1.0).abs() < 5e-3, "{v_after} vs {}", v / 2f64.sqrt());
}

#[test]
fn a_pull_below_the_binding_energy_holds() {
    let m_r = 0.5 * M;
    let e_c = F_C * D_C;
    // ½ m* v² = E_C / 2: the attraction stops the pair at g = d_C / 2 and pulls it back.
    let v = (e_c / m_r).sqrt();
    let (gap, _) = pull_apart(v);
    // Largest gap d_C/2 (constant deceleration F_C/m*), to the step size (1e-3 d_C).
    assert!((gap / (0.5 * D_C) - 1.0).abs() < 5e-3, "max gap {gap}");
}
