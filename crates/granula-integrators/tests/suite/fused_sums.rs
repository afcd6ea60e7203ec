//! The sums over the bodies that the world's checks read, added up inside velocity Verlet's
//! half steps ([`Integrator::predict_summing`], [`Integrator::correct_summing`]), against
//! the same sums made by one pass over the bodies ([`BodySums::start_of`],
//! [`BodySums::end_of`]), on a set of several chunks (Verlet's tasks are 2048 bodies) with
//! walls, fixed and locked bodies, external loads and a unique fastest sphere; and on one
//! thread against two.

use granula_core::{
    AccelerationField, BodySet, BodySums, DQuat, DVec3, Dofs, Integrator, Material, MaterialTable, PlaneBuilder,
    SphereBuilder,
};
use granula_integrators::{Gear, VelocityVerlet};

const GRAVITY: DVec3 = DVec3::new(0.3, 0.0, -9.81);
const DT: f64 = 1e-4;

/// 5000 spheres of varied size, mass, velocity and spin, with a plane, every 97th sphere
/// fixed, every 89th locked in x, loads on every 50th, and sphere 3777 much the fastest
/// relative to its radius.
fn bodies() -> BodySet {
    let mut t = MaterialTable::new();
    t.add(Material::default()).unwrap();
    let mut b = BodySet::default();
    b.insert(&PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().unwrap(), &t, false).unwrap();
    for k in 0..5000 {
        let x = k as f64;
        let r = 1e-3 * (1.0 + (k % 7) as f64 * 0.1);
        let speed = if k == 3777 { 40.0 } else { 0.1 + (k % 13) as f64 * 0.05 };
        let mut s = SphereBuilder::new(r, DVec3::new(x * 3e-3, (k % 17) as f64 * 3e-3, 1.0 + (k % 5) as f64))
            .velocity(DVec3::new(speed, -0.2 * (x * 0.1).sin(), 0.1))
            .angular_velocity(DVec3::new((x * 0.3).cos(), 2.0, -1.0))
            .orientation(DQuat::from_rotation_z(0.01 * x))
            .mass(1e-5 * (1.0 + (k % 3) as f64));
        if k % 97 == 0 {
            s = s.fixed();
        }
        if k % 89 == 0 {
            s = s.lock(Dofs::TX);
        }
        if k % 50 == 0 {
            s = s.external_force(DVec3::new(1e-4, 0.0, 2e-4)).external_torque(DVec3::new(0.0, 1e-9, 0.0));
        }
        b.insert(&s.build().unwrap(), &t, false).unwrap();
    }
    b
}

/// Contact-like loads from each body's own state.
fn loads(b: &BodySet) -> (Vec<DVec3>, Vec<DVec3>) {
    let force = b.position.iter().map(|x| DVec3::new(-1e-3 * x.x, 2e-4, -1e-4 * x.y)).collect();
    let torque = b.angular_velocity.iter().map(|w| -1e-9 * *w).collect();
    (force, torque)
}

/// One step of `integrator` adding up the sums in its half steps, and the sums of one
/// pass before and after it: (fused start, pass start, fused end, pass end).
fn step_both_ways(integrator: &mut impl Integrator, b: &mut BodySet) -> [BodySums; 4] {
    let pass_start = BodySums::start_of(b, GRAVITY, DT);
    let (force, torque) = loads(b);
    let field = AccelerationField { gravity: GRAVITY, force: &force, torque: &torque };
    let mut fused_start = BodySums::EMPTY;
    integrator.predict_summing(b, &field, 0.0, DT, Some(&mut fused_start));
    let (force, torque) = loads(b);
    let field = AccelerationField { gravity: GRAVITY, force: &force, torque: &torque };
    let mut fused_end = BodySums::EMPTY;
    integrator.correct_summing(b, &field, 0.0, DT, true, &mut fused_end);
    [fused_start, pass_start, fused_end, BodySums::end_of(b, GRAVITY, true)]
}

/// `a` and `b` agree to 1e-12 relative: the same terms summed in another order (the
/// chunks' partial sums merged, against one running sum), whose round-off is of order
/// n ε ≈ 5000 × 1.1e-16 ≈ 6e-13 relative at worst for sums of one sign.
fn close(a: f64, b: f64, what: &str) {
    assert!((a - b).abs() <= 1e-12 * a.abs().max(b.abs()), "{what}: {a} against {b}");
}

#[test]
fn verlet_sums_equal_one_pass_over_the_bodies() {
    let mut b = bodies();
    let mut verlet = VelocityVerlet::new();
    for _ in 0..3 {
        let [fused_start, pass_start, fused_end, pass_end] = step_both_ways(&mut verlet, &mut b);
        for (fused, pass, when) in [(fused_start, pass_start, "start"), (fused_end, pass_end, "end")] {
            close(fused.kinetic(), pass.kinetic(), when);
            close(fused.rotation(), pass.rotation(), when);
            close(fused.potential(), pass.potential(), when);
            close(fused.loads(), pass.loads(), when);
            close(fused.state(), pass.state(), when);
        }
        assert!(pass_start.loads() > 0.0 && pass_end.loads() == 0.0);
        // The fastest sphere relative to its radius is the same one, with the same value.
        let (fastest, ratio) = fused_end.travel(DT);
        assert_eq!(fused_end.travel(DT), pass_end.travel(DT));
        assert_eq!(b.handle[fastest], b.handle[3778], "sphere 3777 (after the plane)");
        assert!(ratio > 1.0, "{ratio}: (40 m/s × 1e-4 s / 1.4 mm)² ≈ 8");
    }
}

#[test]
fn verlet_sums_are_the_same_bits_on_one_thread_and_on_two() {
    let run = || {
        let mut b = bodies();
        let mut verlet = VelocityVerlet::new();
        (0..3).map(|_| step_both_ways(&mut verlet, &mut b)[..1].to_vec()).collect::<Vec<_>>()
    };
    let one = granula_core::parallel::sequential(run);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    assert_eq!(pool.install(run), one);
}

#[test]
fn the_default_sums_of_other_integrators_are_one_pass() {
    // Gear keeps the trait's default: a pass before its predictor and after its corrector.
    let mut b = bodies();
    let [fused_start, pass_start, fused_end, pass_end] = step_both_ways(&mut Gear::default(), &mut b);
    assert_eq!((fused_start, fused_end), (pass_start, pass_end));
}
