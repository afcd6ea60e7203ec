//! A host contact generator that reports two points for one pair of bodies (a rod's two
//! ends on a floor): the MD solver gives each point its own history, keyed by feature.

use granula_core::narrowphase::{ContactGenerator, DegenerateGeometry, Narrowphase, PosedShape, ShapeKind};
use granula_core::{
    Aabb, BodyHandle, ContactForce, ContactGeometry, ContactKey, ContactKinematics, ContactLaw, CustomShape, DQuat,
    DVec3, MassProperties, PlaneBuilder, RigidBodyBuilder, Shape, Solver, World,
};
use granula_integrators::VelocityVerlet;
use granula_md::{MdConfig, MdSolver};
use std::sync::Arc;

/// A host shape: a rod along the body's x axis, touching planes at its two ends.
#[derive(Debug)]
struct Rod {
    half_length: f64,
}

impl CustomShape for Rod {
    fn name(&self) -> &'static str {
        "rod"
    }
    fn aabb(&self, position: DVec3, orientation: DQuat) -> Aabb {
        Aabb::around(position, (orientation * DVec3::X * self.half_length).abs() + DVec3::splat(1e-3))
    }
    fn mass_properties(&self, _density: f64) -> Option<MassProperties> {
        Some(MassProperties { mass: 1.0, inertia: DVec3::ONE })
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// Plane (body 1) against rod (body 2): each end within the margin is a contact point,
/// feature 0 for the −x end, 1 for the +x end.
struct PlaneRod;

impl ContactGenerator for PlaneRod {
    fn max_contacts(&self) -> u16 {
        2
    }
    fn generate(
        &self,
        plane: PosedShape<'_>,
        rod: PosedShape<'_>,
        margin: f64,
        out: &mut Vec<ContactGeometry>,
    ) -> Result<(), DegenerateGeometry> {
        let (Shape::Plane { normal }, Some(r)) = (plane.shape, rod.custom::<Rod>()) else { return Ok(()) };
        let n = plane.orientation * *normal;
        let a = rod.orientation * DVec3::X * r.half_length;
        for (feature, end) in [rod.position - a, rod.position + a].into_iter().enumerate() {
            let gap = (end - plane.position).dot(n);
            if gap <= margin {
                let point = end - n * (0.5 * gap);
                out.push(ContactGeometry {
                    point,
                    normal: n,
                    gap,
                    branch1: point - plane.position,
                    branch2: point - rod.position,
                    effective_radius: 1e-2,
                    feature: feature as u32,
                });
            }
        }
        Ok(())
    }
}

/// A world with the rod–plane generator registered, a floor z = 0 and a rod of half length
/// 0.1 m along x at height `z` spinning at `spin` about z.
fn rod_world(gravity: DVec3, z: f64, spin: f64) -> (World, BodyHandle, BodyHandle) {
    let mut narrowphase = Narrowphase::new();
    narrowphase.register(ShapeKind::Plane, ShapeKind::Custom("rod"), PlaneRod).unwrap();
    let mut w = World::builder().gravity(gravity).energy_guard(None).narrowphase(narrowphase).build().unwrap();
    let floor = w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().unwrap()).unwrap();
    let rod = RigidBodyBuilder::new(Shape::Custom(Arc::new(Rod { half_length: 0.1 })), DVec3::new(0.0, 0.0, z))
        .angular_velocity(DVec3::Z * spin)
        .build()
        .unwrap();
    let rod = w.insert(rod).unwrap();
    (w, floor, rod)
}

/// A linear normal spring whose history is the tangential displacement of the contact
/// points, ∫ 𝒱_t dt (no tangential force): it tells the two ends' histories apart.
#[derive(Clone, Copy, Debug)]
struct Tracer;

impl ContactLaw for Tracer {
    type History = DVec3;
    type Pair = ();

    fn name(&self) -> String {
        "tracer".into()
    }

    fn force(&self, k: &ContactKinematics<'_>, slip: &mut DVec3) -> ContactForce {
        if k.overlap <= 0.0 {
            *slip = DVec3::ZERO;
            return ContactForce::default();
        }
        let v = k.relative_velocity;
        *slip += (v - v.dot(k.normal) * k.normal) * k.dt;
        ContactForce { force: 1e4 * k.overlap * k.normal, ..Default::default() }
    }
}

#[test]
fn two_points_of_one_pair_carry_two_histories() {
    // Ends at ∓0.1 x, spinning at 1 rad/s about z: they move at ∓0.1 m/s along y.
    let (mut w, floor, rod) = rod_world(DVec3::ZERO, -1e-3, 1.0);
    let mut solver =
        MdSolver::new(Tracer, VelocityVerlet::new(), granula_broadphase::BruteForce, MdConfig::default()).unwrap();
    solver.publish_contacts(true);
    let dt = 1e-4;
    w.step(&mut solver, dt).unwrap();
    let key = |feature| ContactKey { body1: floor, body2: rod, feature };
    assert_eq!(solver.candidate_pairs(), 1, "one candidate for the pair");
    let points: Vec<(ContactKey, DVec3)> = solver.contact_histories().map(|(k, h)| (k, *h)).collect();
    assert_eq!(points.iter().map(|p| p.0).collect::<Vec<_>>(), [key(0), key(1)], "one history per point");
    let (s0, s1) = (points[0].1, points[1].1);
    // One step of 𝒱_t Δt: the ends slide in opposite directions by 0.1 m/s × 1e-4 s.
    assert!((s0.y + 1e-5).abs() < 1e-9 && (s1.y - 1e-5).abs() < 1e-9, "{s0} {s1}");
    let forces: Vec<(ContactKey, DVec3)> =
        solver.contacts().iter().filter(|c| c.force != DVec3::ZERO).map(|c| (c.key, c.force)).collect();
    assert_eq!(forces.iter().map(|(k, _)| k.feature).collect::<Vec<_>>(), [0, 1]);
    assert!(forces.iter().all(|(_, f)| f.z > 0.0), "both ends pushed up: {forces:?}");
}

#[test]
fn a_checkpoint_carries_the_histories_of_both_features() {
    let (mut w, _, _) = rod_world(DVec3::ZERO, -1e-3, 1.0);
    let solver =
        || MdSolver::new(Tracer, VelocityVerlet::new(), granula_broadphase::BruteForce, MdConfig::default()).unwrap();
    let mut a = solver();
    for _ in 0..3 {
        w.step(&mut a, 1e-4).unwrap();
    }
    let state = a.save_state();
    let mut b = solver();
    b.restore_state(&state, &w).unwrap();
    assert_eq!(state.points.len(), 2, "both points saved");
    let histories = |s: &MdSolver<Tracer, VelocityVerlet, granula_broadphase::BruteForce>| {
        s.contact_histories().map(|(k, h)| (k, *h)).collect::<Vec<_>>()
    };
    assert_eq!(histories(&b), histories(&a));
    // And the next steps agree bit for bit.
    // A second world in the same state (the same steps from the same start).
    let (mut w2, _, _) = rod_world(DVec3::ZERO, -1e-3, 1.0);
    let mut c = solver();
    for _ in 0..3 {
        w2.step(&mut c, 1e-4).unwrap();
    }
    assert_eq!(w2.bodies.position, w.bodies.position);
    w.step(&mut a, 1e-4).unwrap();
    w2.step(&mut b, 1e-4).unwrap();
    assert_eq!(histories(&b), histories(&a));
    assert_eq!(w2.bodies.position, w.bodies.position);
}
