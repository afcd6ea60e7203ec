//! The rotation increments the MD solver hands to the law (002 eq. 15): for freely spinning
//! bodies (no torque) every integrator turns the orientation by ω Δt per step, so each
//! evaluation must see θ = ω Δt, from the first step on.

use granula_broadphase::BruteForce;
use granula_core::{ContactForce, ContactKinematics, ContactLaw, DVec3, Integrator, SphereBuilder, World};
use granula_integrators::{Gear, VelocityVerlet};
use granula_md::{MdConfig, MdSolver};

/// A law without force that records the rotations it was given.
struct Spy;

impl ContactLaw for Spy {
    type History = [DVec3; 2];
    type Pair = ();
    fn name(&self) -> String {
        "spy".into()
    }
    fn force(&self, k: &ContactKinematics<'_>, h: &mut [DVec3; 2]) -> ContactForce {
        *h = [k.rotation1, k.rotation2];
        ContactForce::default()
    }
}

fn seen_rotations<I: Integrator>(integrator: I, steps: usize, dt: f64) -> ([DVec3; 2], [DVec3; 2]) {
    let (r, w1, w2) = (1e-3, DVec3::new(30.0, -50.0, 20.0), DVec3::new(-70.0, 10.0, 45.0));
    let mut w = World::builder().build().unwrap();
    w.insert(SphereBuilder::new(r, DVec3::ZERO).angular_velocity(w1).build().unwrap()).unwrap();
    w.insert(SphereBuilder::new(r, DVec3::new(1.99 * r, 0.0, 0.0)).angular_velocity(w2).build().unwrap()).unwrap();
    // Placed in contact on purpose, 1 % of r deep: at the insertion check's tolerance.
    w.accept_overlaps();
    let mut s = MdSolver::new(Spy, integrator, BruteForce, MdConfig { skin: 1e-4, ..Default::default() }).unwrap();
    for _ in 0..steps {
        w.step(&mut s, dt).unwrap();
    }
    let seen = s.histories().states()[0];
    (seen, [w1 * dt, w2 * dt])
}

#[test]
fn the_law_sees_omega_dt_under_gear_and_verlet() {
    let dt = 1e-5;
    for steps in [1, 40] {
        for (name, (seen, expected)) in [
            ("gear", seen_rotations(Gear::six(), steps, dt)),
            ("verlet", seen_rotations(VelocityVerlet::new(), steps, dt)),
        ] {
            for k in 0..2 {
                // |θ| ≈ 9e-4 rad: the exponential map, the quaternion product and the
                // logarithm each cost a few ulps of 1 in the quaternion, i.e. ~1e-16 rad
                // absolute; 40 steps of renormalisation do not change that.
                assert!(
                    (seen[k] - expected[k]).length() < 1e-15,
                    "{name}, {steps} steps, body {k}: {seen:?} vs {expected:?}"
                );
            }
        }
    }
}
