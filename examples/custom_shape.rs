//! A shape written here, outside the library: a capsule (a segment swept by a sphere),
//! with its contacts against spheres and planes added through the narrowphase plug-in
//! (`granula::core::narrowphase::ContactGenerator`), run in the MD solver.
//!
//! A capsule falls flat on a floor among a few spheres, one of which lands on it and rolls
//! off (the capsule, knocked sideways, rolls on slowly: nothing resists rolling on a plane).
//! Lying on the floor, the capsule touches it at both ends: two contact points of one pair
//! of bodies, features 0 and 1, each with its own tangential history, whose normal forces
//! carry the capsule's weight. The contacts are read from the solver's contact
//! output (`MdSolver::contact_forces`), keyed by bodies and feature.
//!
//! Run: `cargo run --release --example custom_shape`. `cargo test --example custom_shape`
//! runs it with its checks.

use granula::core::narrowphase::{ContactGenerator, DegenerateGeometry, Narrowphase, PosedShape, ShapeKind};
use granula::core::{
    Aabb, ContactGeometry, ContactKey, CustomShape, DQuat, DVec3, MassProperties, PlaneBuilder, RigidBodyBuilder,
    Shape, SphereBuilder, World,
};
use granula::laws::hertz_mindlin_damped;
use granula::prelude::{BruteForce, MdConfig, MdSolver, Solver, VelocityVerlet};
use std::f64::consts::PI;
use std::sync::Arc;

/// A capsule: the points within `radius` of the segment from −`half_length` to
/// +`half_length` along the body's x axis.
#[derive(Clone, Copy, Debug)]
pub struct Capsule {
    /// Radius of the swept sphere (m).
    pub radius: f64,
    /// Half the length of the segment (m).
    pub half_length: f64,
}

impl Capsule {
    /// The segment's ends in the world frame for a body at `pose`: end 0 at −x, end 1 at +x.
    fn ends(&self, pose: &PosedShape<'_>) -> [DVec3; 2] {
        let a = pose.orientation * DVec3::X * self.half_length;
        [pose.position - a, pose.position + a]
    }

    /// The point of the segment closest to `p` (world frame).
    fn closest(&self, pose: &PosedShape<'_>, p: DVec3) -> DVec3 {
        let a = pose.orientation * DVec3::X;
        let t = (p - pose.position).dot(a).clamp(-self.half_length, self.half_length);
        pose.position + a * t
    }
}

impl CustomShape for Capsule {
    fn name(&self) -> &'static str {
        "capsule"
    }

    fn aabb(&self, position: DVec3, orientation: DQuat) -> Aabb {
        let a = (orientation * DVec3::X * self.half_length).abs();
        Aabb::around(position, a + DVec3::splat(self.radius))
    }

    /// A cylinder of length L = 2h and two hemispherical caps (a sphere of mass m_s):
    /// about the axis I = (m_c/2 + 2m_s/5) r², across it
    /// I = m_c (L²/12 + r²/4) + m_s (2r²/5 + L²/4 + 3Lr/8).
    fn mass_properties(&self, density: f64) -> Option<MassProperties> {
        let (r, l) = (self.radius, 2.0 * self.half_length);
        let m_c = density * PI * r * r * l;
        let m_s = density * 4.0 / 3.0 * PI * r * r * r;
        let axial = (0.5 * m_c + 0.4 * m_s) * r * r;
        let across = m_c * (l * l / 12.0 + r * r / 4.0) + m_s * (0.4 * r * r + l * l / 4.0 + 3.0 * l * r / 8.0);
        Some(MassProperties { mass: m_c + m_s, inertia: DVec3::new(axial, across, across) })
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// Capsule (body 1) against sphere (body 2): the sphere against the closest point of the
/// segment, as two spheres touch. One point, feature 0.
pub struct CapsuleSphere;

impl ContactGenerator for CapsuleSphere {
    fn generate(
        &self,
        a: PosedShape<'_>,
        b: PosedShape<'_>,
        margin: f64,
        out: &mut Vec<ContactGeometry>,
    ) -> Result<(), DegenerateGeometry> {
        let (Some(capsule), Some(rs)) = (a.custom::<Capsule>(), b.shape.sphere_radius()) else { return Ok(()) };
        let c = capsule.closest(&a, b.position);
        let d = b.position - c;
        let dist = d.length();
        let gap = dist - capsule.radius - rs;
        if gap > margin {
            return Ok(());
        }
        if dist <= 1e-12 * (capsule.radius + rs) {
            return Err(DegenerateGeometry { reason: "sphere centre on the capsule's segment" });
        }
        let normal = d / dist;
        let point = c + normal * (capsule.radius + 0.5 * gap);
        out.push(ContactGeometry {
            point,
            normal,
            gap,
            branch1: point - a.position,
            branch2: point - b.position,
            effective_radius: capsule.radius * rs / (capsule.radius + rs),
            feature: 0,
            overlap_volume: 0.0,
            twist_arm: 0.0,
        });
        Ok(())
    }
}

/// Plane (body 1) against capsule (body 2): each end cap against the plane, end 0 as
/// feature 0 and end 1 as feature 1. A capsule lying flat touches at both ends (and along
/// the segment between them, where the two end points carry the load as a line would).
pub struct PlaneCapsule;

impl ContactGenerator for PlaneCapsule {
    fn max_contacts(&self) -> u16 {
        2
    }

    fn generate(
        &self,
        a: PosedShape<'_>,
        b: PosedShape<'_>,
        margin: f64,
        out: &mut Vec<ContactGeometry>,
    ) -> Result<(), DegenerateGeometry> {
        let (Shape::Plane { normal }, Some(capsule)) = (a.shape, b.custom::<Capsule>()) else { return Ok(()) };
        let n = a.orientation * *normal;
        for (feature, end) in capsule.ends(&b).into_iter().enumerate() {
            let gap = (end - a.position).dot(n) - capsule.radius;
            if gap > margin {
                continue;
            }
            let point = end - n * (capsule.radius + 0.5 * gap);
            out.push(ContactGeometry {
                point,
                normal: n,
                gap,
                branch1: point - a.position,
                branch2: point - b.position,
                effective_radius: capsule.radius,
                feature: feature as u32,
                overlap_volume: 0.0,
                twist_arm: 0.0,
            });
        }
        Ok(())
    }
}

/// What the run measured.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The capsule's contacts with the floor at the end: (feature, force on the capsule).
    pub floor_contacts: Vec<(u32, DVec3)>,
    /// Sum of the vertical forces of every contact on the capsule at the end (N).
    pub vertical_load: f64,
    /// The capsule's weight m g (N).
    pub weight: f64,
    /// Steps in which a sphere touched the capsule.
    pub sphere_steps: usize,
    /// The capsule's height at the end and its radius (m).
    pub height: (f64, f64),
    /// The capsule's speed at the end (m/s).
    pub speed: f64,
}

/// Drops the scene and runs `steps` MD steps of 20 µs.
pub fn run(steps: usize) -> Outcome {
    let mut narrowphase = Narrowphase::new();
    narrowphase.register(ShapeKind::Custom("capsule"), ShapeKind::Sphere, CapsuleSphere).expect("a new pair");
    narrowphase.register(ShapeKind::Plane, ShapeKind::Custom("capsule"), PlaneCapsule).expect("a new pair");
    let mut world = World::builder().narrowphase(narrowphase).build().expect("valid world");
    let floor = world.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().expect("plane")).expect("insert");
    let shape = Capsule { radius: 0.01, half_length: 0.03 };
    let capsule =
        RigidBodyBuilder::new(Shape::Custom(Arc::new(shape)), DVec3::new(0.0, 0.0, 0.012)).build().expect("capsule");
    let capsule = world.insert(capsule).expect("insert");
    // Three spheres beside the capsule, and one that lands on it off its axis and rolls off.
    for x in [DVec3::new(-0.02, 0.04, 0.015), DVec3::new(0.02, -0.04, 0.02), DVec3::new(0.06, 0.0, 0.011)] {
        world.insert(SphereBuilder::new(0.008, x).build().expect("sphere")).expect("insert");
    }
    world.insert(SphereBuilder::new(0.008, DVec3::new(0.01, 0.004, 0.04)).build().expect("sphere")).expect("insert");

    let config = MdConfig { skin: 2e-3, ..Default::default() };
    let mut solver = MdSolver::new(hertz_mindlin_damped(), VelocityVerlet::new(), BruteForce, config).expect("solver");
    solver.publish_contacts(true);
    let dt = 2e-5;
    let mut sphere_steps = 0;
    let touches = |k: &ContactKey| (k.body1 == capsule) != (k.body2 == capsule);
    for _ in 0..steps {
        world.step(&mut solver, dt).expect("step");
        let on_capsule = solver
            .contacts()
            .expect("published")
            .iter()
            .filter(|c| c.force != DVec3::ZERO)
            .map(|c| (c.key, c.force))
            .filter(|(k, _)| touches(k));
        if on_capsule.filter(|(k, _)| k.body1 != floor && k.body2 != floor).count() > 0 {
            sphere_steps += 1;
        }
    }
    // Force on the capsule: the output gives the force on body 2 (the larger handle).
    let on_capsule = |k: &ContactKey, f: DVec3| if k.body2 == capsule { f } else { -f };
    let mut floor_contacts = Vec::new();
    let mut vertical_load = 0.0;
    for (k, f) in solver
        .contacts()
        .expect("published")
        .iter()
        .filter(|c| c.force != DVec3::ZERO)
        .map(|c| (c.key, c.force))
        .filter(|(k, _)| touches(k))
    {
        let f = on_capsule(&k, f);
        vertical_load += f.z;
        if k.body1 == floor {
            floor_contacts.push((k.feature, f));
        }
    }
    let i = world.bodies.index(capsule).expect("capsule");
    Outcome {
        floor_contacts,
        vertical_load,
        weight: world.bodies.mass[i] * 9.81,
        sphere_steps,
        height: (world.bodies.position[i].z, shape.radius),
        speed: world.bodies.velocity[i].length(),
    }
}

fn main() {
    let o = run(25_000);
    println!("capsule (r = 1 cm, segment 6 cm) on a floor among 4 spheres, MD solver, 0.5 s:");
    println!("steps with a sphere on the capsule: {}", o.sphere_steps);
    for (feature, f) in &o.floor_contacts {
        println!("  floor contact, feature {feature}: force on the capsule ({:.6e}, {:.6e}, {:.6e}) N", f.x, f.y, f.z);
    }
    println!(
        "vertical load {:.9e} N, weight {:.9e} N (ratio {:.3e} from 1); centre at {:.6} m (radius {} m)",
        o.vertical_load,
        o.weight,
        o.vertical_load / o.weight - 1.0,
        o.height.0,
        o.height.1
    );
    println!("capsule speed {:.3e} m/s", o.speed);
}

#[cfg(test)]
mod tests {
    #[test]
    fn capsule_rests_on_both_ends_and_carries_its_weight() {
        let o = super::run(25_000);
        assert!(o.sphere_steps > 0, "the dropped sphere touched the capsule");
        let mut features: Vec<u32> = o.floor_contacts.iter().map(|c| c.0).collect();
        features.sort_unstable();
        assert_eq!(features, [0, 1], "two floor contacts, one per end: {:?}", o.floor_contacts);
        // Vertical balance: after 0.5 s the bounce has decayed (restitution 0.5, damped
        // Hertz-Mindlin) and the capsule rolls at constant height, so the contacts' vertical
        // forces sum to m g up to m times its residual vertical acceleration (measured: equal
        // to round-off); 1e-6 of the weight leaves room for other platforms' rounding.
        assert!((o.vertical_load / o.weight - 1.0).abs() < 1e-6, "{} vs {}", o.vertical_load, o.weight);
        // The capsule lies level with its centre of mass midway between its ends, so each
        // end carries half of it (measured: equal to 1e-7); 1 % is the check.
        for (feature, f) in &o.floor_contacts {
            assert!((f.z / (0.5 * o.weight) - 1.0).abs() < 1e-2, "end {feature}: {f:?}");
        }
        // Resting on its ends: centre one radius up, less the Hertz overlap (0.05 mm).
        assert!((o.height.0 - o.height.1).abs() < 1e-4, "{:?}", o.height);
    }
}
