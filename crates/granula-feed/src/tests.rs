//! Behaviour of feeds and outlets on small worlds.

use crate::{Feed, FeedConfig, FeedRate, Outlet, OutletConfig, OutletRegion, Region, SizeDistribution};
use glam::DVec3;
use granula_core::{Clock, CylinderBuilder, MaterialId, PlaneBuilder, Shape, SphereBuilder, World};

fn config(region: Region, rate: FeedRate) -> FeedConfig {
    FeedConfig {
        name: "test".into(),
        region,
        size: SizeDistribution::Uniform { min: 0.004, max: 0.006 },
        material: MaterialId(0),
        rate,
        velocity: DVec3::new(0.0, 0.0, -1.0),
        start: 0.0,
        end: f64::INFINITY,
        every: 10,
        attempts: 200,
        seed: 7,
        particle: crate::Particle::Sphere,
    }
}

fn unit_box() -> Region {
    Region::Box { min: DVec3::ZERO, max: DVec3::splat(0.1) }
}

/// The deepest overlap among the world's spheres, and of any sphere with the walls.
fn deepest_overlap(world: &World) -> f64 {
    let b = &world.bodies;
    let mut deepest = f64::NEG_INFINITY;
    for i in 0..b.len() {
        let Shape::Sphere { radius: ri } = b.shape[i] else { continue };
        for j in 0..b.len() {
            let d = match &b.shape[j] {
                Shape::Sphere { radius } if j > i => ri + radius - (b.position[i] - b.position[j]).length(),
                Shape::Plane { normal } => ri - (b.position[i] - b.position[j]).dot(b.orientation[j] * *normal),
                Shape::Cylinder(c) => {
                    let rel = b.position[i] - b.position[j];
                    let radial = (rel - c.axis * rel.dot(c.axis)).length();
                    radial + ri - c.radius
                }
                _ => continue,
            };
            deepest = deepest.max(d);
        }
    }
    deepest
}

#[test]
fn a_mass_rate_inserts_what_is_due_within_one_sphere_per_batch() {
    let mut world = World::builder().build().unwrap();
    let mut feed = Feed::new(config(unit_box(), FeedRate::Mass(0.05))).unwrap();
    let density = world.materials.get(MaterialId(0)).unwrap().density;
    let m_max = granula_core::MassProperties::solid_sphere(density, 0.006).mass;
    for k in 1..=20u64 {
        world.set_clock(Clock::at(0.01 * k as f64, 10 * k)).unwrap();
        let batch = feed.feed(&mut world).unwrap();
        assert_eq!(batch.not_placed, 0, "a roomy box places every sphere");
        let short = feed.due(world.time()) - feed.counts().inserted_mass;
        // Short of the amount due by less than the waiting sphere's mass (at most m_max),
        // never over it by more than the slack of 1e-9 relative.
        assert!(short > -1e-9 * feed.due(world.time()) && short < m_max, "batch {k}: short by {short} kg");
    }
    let masses: f64 = (0..world.bodies.len()).map(|i| world.bodies.mass[i]).sum();
    // The same masses summed in another order: a few ulps of 0.01 kg.
    assert!((masses - feed.counts().inserted_mass).abs() < 1e-15);
}

#[test]
fn no_inserted_sphere_overlaps_spheres_planes_or_cylinders() {
    let mut world = World::builder().build().unwrap();
    // A floor through the region, a drum wall around it, a large ball in it.
    world.insert(PlaneBuilder::new(DVec3::new(0.0, 0.0, 0.03), DVec3::Z).build().unwrap()).unwrap();
    let drum = CylinderBuilder::new(DVec3::new(0.05, 0.05, 0.0), DVec3::Z, 0.05).inside().build().unwrap();
    world.insert(drum).unwrap();
    world.insert(SphereBuilder::new(0.02, DVec3::new(0.05, 0.05, 0.06)).build().unwrap()).unwrap();
    let mut feed = Feed::new(config(unit_box(), FeedRate::Count(3000.0))).unwrap();
    world.set_clock(Clock::at(0.1, 10)).unwrap();
    let batch = feed.feed(&mut world).unwrap();
    assert!(batch.inserted.len() > 50, "{} inserted", batch.inserted.len());
    // Touching is allowed, overlapping is not: the deepest "overlap" is at most round-off
    // of the centre distances (1e-15 m at these sizes).
    let d = deepest_overlap(&world);
    assert!(d <= 1e-15, "overlap of {d} m");
    // The floor, the drum and the ball exclude every centre below z = 0.03 + r, outside
    // the drum's radius minus r, and inside the ball.
    for &(h, d) in &batch.inserted {
        let r = d.radius;
        let x = world.bodies.position[world.bodies.index(h).unwrap()];
        assert!(x.z >= 0.03 + r && (x.truncate() - glam::DVec2::splat(0.05)).length() <= 0.05 - r);
    }
}

#[test]
fn a_region_too_small_reports_what_it_could_not_place() {
    let mut world = World::builder().build().unwrap();
    // A 2 cm cube holds a handful of spheres of 4-6 mm: 100 are due at once.
    let small = Region::Box { min: DVec3::ZERO, max: DVec3::splat(0.02) };
    let mut feed = Feed::new(FeedConfig { attempts: 50, ..config(small, FeedRate::Count(1000.0)) }).unwrap();
    world.set_clock(Clock::at(0.1, 10)).unwrap();
    let batch = feed.feed(&mut world).unwrap();
    let c = feed.counts();
    assert!(c.not_placed > 80 && c.inserted >= 1, "{c:?}");
    assert_eq!(c.inserted + c.not_placed, 100);
    assert_eq!(batch.not_placed, c.not_placed);
    assert!(c.not_placed_mass > 0.0);
    // A region smaller than the largest sphere is refused, naming the feed.
    let tiny = Region::Box { min: DVec3::ZERO, max: DVec3::splat(0.01) };
    let e = Feed::new(config(tiny, FeedRate::Count(1.0))).unwrap_err().to_string();
    assert!(e.contains("feed `test`") && e.contains("largest radius"), "{e}");
}

#[test]
fn an_outlet_removes_exactly_the_dynamic_bodies_below_its_floor_and_counts_their_mass() {
    let mut world = World::builder().build().unwrap();
    world.insert(PlaneBuilder::new(DVec3::new(0.0, 0.0, -1.0), DVec3::Z).build().unwrap()).unwrap();
    let fixed = SphereBuilder::new(0.01, DVec3::new(0.0, 0.0, -0.5)).fixed().build().unwrap();
    world.insert(fixed).unwrap();
    let mut below_mass = 0.0;
    let mut below = Vec::new();
    for k in 0..20 {
        let z = -0.095 + 0.01 * k as f64;
        let h = world.insert(SphereBuilder::new(0.004, DVec3::new(0.0, 0.0, z)).build().unwrap()).unwrap();
        if z < 0.0 {
            below_mass += world.bodies.mass[world.bodies.index(h).unwrap()];
            below.push(h);
        }
    }
    let total: f64 =
        (0..world.bodies.len()).filter(|&i| world.bodies.mass[i].is_finite()).map(|i| world.bodies.mass[i]).sum();
    let region = OutletRegion::Below { point: DVec3::ZERO, normal: DVec3::Z };
    let mut outlet = Outlet::new(OutletConfig { name: "bin".into(), region, every: 1 }).unwrap();
    let gone = outlet.remove(&mut world).unwrap();
    assert_eq!(gone, below, "the dynamic spheres below z = 0, in handle order; the wall and the fixed ball stay");
    assert_eq!(outlet.counts().removed, 10);
    assert_eq!(outlet.counts().removed_mass, below_mass);
    // Mass balance: what is left plus what was removed is what there was (sums in another
    // order: 1e-15 kg).
    let left: f64 =
        (0..world.bodies.len()).filter(|&i| world.bodies.mass[i].is_finite()).map(|i| world.bodies.mass[i]).sum();
    assert!((left + outlet.counts().removed_mass - total).abs() < 1e-15);
}

#[test]
fn a_restored_feed_continues_with_the_same_spheres() {
    let run = |split: Option<u64>| {
        let mut world = World::builder().build().unwrap();
        let mut feed = Feed::new(config(unit_box(), FeedRate::Mass(0.05))).unwrap();
        let mut radii = Vec::new();
        for k in 1..=6u64 {
            world.set_clock(Clock::at(0.01 * k as f64, 10 * k)).unwrap();
            if split == Some(k) {
                let saved = feed.save_state();
                feed = Feed::new(config(unit_box(), FeedRate::Mass(0.05))).unwrap();
                feed.restore_state(&saved).unwrap();
            }
            radii.extend(feed.feed(&mut world).unwrap().inserted.iter().map(|x| x.1.radius));
        }
        let b = &world.bodies;
        (radii, b.position.clone(), feed.save_state())
    };
    let whole = run(None);
    assert_eq!(run(Some(3)), whole);
    assert_eq!(run(Some(6)), whole);
}
