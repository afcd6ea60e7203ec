//! Validation of `[[feeds]]` and `[[outlets]]` into the settings of `granula-feed`: every
//! error names the key and its line.
//!
//! Refused with the key named: contact dynamics (the NSCD solver's insertions are not
//! validated), planar scenes (feeds place spheres in 3D), periodic scenes (the overlap
//! test does not look across the periods). A feed whose region cannot hold one batch is
//! refused: random sequential addition of equal spheres jams at a packing fraction of
//! about 0.38 (Torquato, Uche and Stillinger, Phys. Rev. E 74, 061308, 2006), so a batch
//! whose spheres, at the smallest radius, fill more than [`RSA_JAMMING_FRACTION`] of the
//! region cannot be placed whatever the seed.

use super::check::Check;
use super::feed_spec::{FeedSpec, OutletRegionSpec, OutletSpec};
use super::limits::MAX_BODIES;
use super::shape_maker::{MadeShape, ShapeMaker};
use super::source::KeyPath;
use super::spec::{RegionSpec, SceneSpec};
use crate::error::Result;
use glam::{DQuat, DVec3};
use granula_core::{Material, Shape};
use granula_feed::{FeedConfig, FeedRate, OutletConfig, OutletRegion, Particle, ParticleMaker};
use std::collections::HashSet;
use std::sync::Arc;

/// The random convex polyhedra of a feed (`polyhedra = { points }`), made by the scene's
/// shape maker as a packing's: hull points within the drawn radius, turned by a uniformly
/// random rotation from the particle's seed.
#[derive(Debug)]
struct FedPolyhedra {
    maker: Arc<dyn ShapeMaker>,
    points: u32,
}

impl ParticleMaker for FedPolyhedra {
    fn make(&self, radius: f64, seed: u64) -> std::result::Result<(Shape, DQuat), String> {
        let MadeShape { shape, rotation, .. } = self.maker.random_convex(self.points, radius, seed)?;
        Ok((Shape::Custom(shape), (super::bodies::seeded_rotation(seed) * rotation).normalize()))
    }
}

/// What a scene's feeds need besides their own keys: materials in id order, the time step
/// (s), the shape maker (for polyhedra) and whether the scene has mesh walls.
pub struct FeedContext<'a> {
    /// Materials in id order.
    pub materials: &'a [Material],
    /// The time step (s).
    pub dt: f64,
    /// Steps of the run.
    pub steps: u64,
    /// The scene's shape maker, if any.
    pub shapes: Option<&'a Arc<dyn ShapeMaker>>,
}

/// The packing fraction at which random sequential addition of equal spheres jams
/// (0.384, Torquato, Uche and Stillinger 2006), rounded down: the most of a feed's region
/// one batch may ask to fill.
pub const RSA_JAMMING_FRACTION: f64 = 0.38;

/// Refuses feeds and outlets in the scenes they do not support, naming the first entry.
fn refuse(c: &Check, spec: &SceneSpec, path: &KeyPath, name: &str) -> Result<()> {
    let s = &spec.simulation;
    let why = if s.planar {
        "is not available in planar scenes (spheres are inserted in 3D)"
    } else if !s.periodic.is_empty() {
        "is not available in periodic scenes (the overlap test does not look across the periods)"
    } else {
        return Ok(());
    };
    Err(c.invalid(path, name, why))
}

/// A name of letters, digits, `_` or `-`, unique within its table.
fn name<'a>(c: &Check, path: &KeyPath, n: &'a str, seen: &mut HashSet<&'a str>) -> Result<()> {
    if n.is_empty() || !n.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_' || ch == '-') {
        return Err(c.invalid(&path.key("name"), n, "must be non-empty letters, digits, '_' or '-'"));
    }
    if !seen.insert(n) {
        return Err(c.invalid(&path.key("name"), n, "is already the name of another entry of this table"));
    }
    Ok(())
}

/// Validates `[[feeds]]` in the context `x` of the scene.
pub fn feeds(c: &Check, spec: &SceneSpec, x: &FeedContext) -> Result<Vec<FeedConfig>> {
    let root = KeyPath::root().key("feeds");
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(spec.feeds.len());
    for (k, f) in spec.feeds.iter().enumerate() {
        let p = root.index(k);
        refuse(c, spec, &p, &f.name)?;
        name(c, &p, &f.name, &mut seen)?;
        let mut config = feed(c, &p, k, f, x.materials, x.dt)?;
        config.particle = particle(c, &p, f, x)?;
        total(c, &p, &config, &x.materials[config.material.0 as usize], x.dt * x.steps as f64)?;
        out.push(config);
    }
    Ok(out)
}

/// One feed: region, sizes, rate, times, velocity, material, then the batch's room.
fn feed(c: &Check, p: &KeyPath, k: usize, f: &FeedSpec, materials: &[Material], dt: f64) -> Result<FeedConfig> {
    let region = super::bodies::region(c, &p.key("region"), &f.region)?;
    let size = super::bodies::size(c, &p.key("size"), &f.size)?;
    if !region.fits(size.max_radius(), false) {
        return Err(c.invalid(&p.key("region"), size.max_radius(), "the region is smaller than the largest sphere"));
    }
    let rate = match (f.count_rate, f.mass_rate) {
        (Some(n), None) => FeedRate::Count(c.positive(&p.key("count_rate"), n)?),
        (None, Some(m)) => FeedRate::Mass(c.positive(&p.key("mass_rate"), m)?),
        (Some(_), Some(m)) => {
            return Err(c.invalid(&p.key("mass_rate"), m, "give `count_rate` or `mass_rate`, not both"))
        }
        (None, None) => return Err(c.invalid(p, &f.name, "give `count_rate` (1/s) or `mass_rate` (kg/s)")),
    };
    let start = c.non_negative(&p.key("start"), f.start)?;
    let end = match f.end {
        Some(e) if e.is_finite() && e > start => e,
        Some(e) => return Err(c.invalid(&p.key("end"), e, format!("must be finite and > start = {start}"))),
        None => f64::INFINITY,
    };
    if f.every == 0 {
        return Err(c.invalid(&p.key("every"), f.every, "must be >= 1 (steps)"));
    }
    if f.attempts_per_sphere == 0 || f.attempts_per_sphere > 1_000_000 {
        return Err(c.invalid(&p.key("attempts_per_sphere"), f.attempts_per_sphere, "must be in [1, 1000000]"));
    }
    let velocity = c.vector(&p.key("velocity"), f.velocity)?;
    // The world stops a run whose sphere moves more than its radius in a step.
    if velocity.length() * dt > size.min_radius() {
        return Err(c.invalid(
            &p.key("velocity"),
            f.velocity,
            format!("moves a sphere {:e} m per step of {dt} s, more than the smallest radius", velocity.length() * dt),
        ));
    }
    let material = c.material(&p.key("material"), f.material.as_ref())?;
    let m = &materials[material.0 as usize];
    if m.rigid {
        return Err(c.invalid(&p.key("material"), &m.name, "is rigid: a rigid material is for walls only"));
    }
    let config = FeedConfig {
        name: f.name.clone(),
        region,
        size,
        material,
        rate,
        velocity,
        start,
        end,
        every: f.every,
        attempts: f.attempts_per_sphere,
        seed: f.seed.unwrap_or(k as u64),
        particle: Particle::Sphere,
    };
    room(c, p, &config, m.density, dt)?;
    Ok(config)
}

/// The particles of a feed: spheres, or polyhedra from the scene's shape maker (refused
/// without one).
fn particle(c: &Check, p: &KeyPath, f: &FeedSpec, x: &FeedContext) -> Result<Particle> {
    let Some(poly) = &f.polyhedra else { return Ok(Particle::Sphere) };
    let key = p.key("polyhedra");
    let Some(maker) = x.shapes else {
        return Err(c.invalid(&key, poly.points, super::bodies::NO_MAKER));
    };
    // One shape made now, so that a bad point count is named before the run.
    maker.random_convex(poly.points, 1.0, 0).map_err(|problem| c.invalid(&key, poly.points, problem))?;
    Ok(Particle::Custom(Arc::new(FedPolyhedra { maker: maker.clone(), points: poly.points })))
}

/// Refuses a feed that could insert more than [`MAX_BODIES`] bodies over a run of
/// `duration` seconds (at the smallest radius for a mass rate), naming its rate key.
fn total(c: &Check, p: &KeyPath, f: &FeedConfig, m: &Material, duration: f64) -> Result<()> {
    let active = (f.end.min(duration) - f.start).max(0.0);
    let smallest = 4.0 / 3.0 * std::f64::consts::PI * f.size.min_radius().powi(3) * m.density;
    let (key, count) = match f.rate {
        FeedRate::Count(n) => ("count_rate", n * active),
        FeedRate::Mass(q) => ("mass_rate", q * active / smallest),
    };
    if !(count <= MAX_BODIES as f64) {
        let value = match f.rate {
            FeedRate::Count(v) | FeedRate::Mass(v) => v,
        };
        return Err(c.invalid(
            &p.key(key),
            value,
            format!("could insert up to {count:e} bodies over the run's {active} s; at most {MAX_BODIES} are allowed"),
        ));
    }
    Ok(())
}

/// Refuses a feed whose batch cannot fit in its region (see the module documentation).
fn room(c: &Check, p: &KeyPath, f: &FeedConfig, density: f64, dt: f64) -> Result<()> {
    let period = f.every as f64 * dt;
    let r = f.size.min_radius();
    let (volume, what) = match f.rate {
        FeedRate::Count(n) => {
            let count = (n * period).ceil();
            (count * 4.0 / 3.0 * std::f64::consts::PI * r.powi(3), format!("{count} spheres of radius >= {r} m"))
        }
        FeedRate::Mass(m) => (m * period / density, format!("{:e} kg of spheres", m * period)),
    };
    let room = RSA_JAMMING_FRACTION * f.region.volume(false);
    if volume > room {
        return Err(c.invalid(
            &p.key("region"),
            &f.name,
            format!(
                "cannot hold one batch: every {} steps it must place {what}, {volume:e} m³, more than \
                 {RSA_JAMMING_FRACTION} of its {:e} m³ that random placement can fill; enlarge the region, \
                 lower `every` or the rate",
                f.every,
                f.region.volume(false)
            ),
        ));
    }
    Ok(())
}

/// Validates `[[outlets]]`.
pub fn outlets(c: &Check, spec: &SceneSpec) -> Result<Vec<OutletConfig>> {
    let root = KeyPath::root().key("outlets");
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(spec.outlets.len());
    for (k, o) in spec.outlets.iter().enumerate() {
        let p = root.index(k);
        refuse(c, spec, &p, &o.name)?;
        name(c, &p, &o.name, &mut seen)?;
        if o.every == 0 {
            return Err(c.invalid(&p.key("every"), o.every, "must be >= 1 (steps)"));
        }
        out.push(OutletConfig { name: o.name.clone(), region: outlet_region(c, &p.key("region"), o)?, every: o.every });
    }
    Ok(out)
}

/// The region of an outlet: a box or cylinder as a packing's, or a half-space.
fn outlet_region(c: &Check, p: &KeyPath, o: &OutletSpec) -> Result<OutletRegion> {
    let inside = |r: RegionSpec| Ok(OutletRegion::Inside(super::bodies::region(c, p, &r)?));
    match o.region {
        OutletRegionSpec::Box { min, max } => inside(RegionSpec::Box { min, max }),
        OutletRegionSpec::Cylinder { base, axis, radius, height } => {
            inside(RegionSpec::Cylinder { base, axis, radius, height })
        }
        OutletRegionSpec::Below { point, normal } => {
            let point = c.vector(&p.key("point"), point)?;
            // Scaled before it is normalised, so that a huge direction (whose length
            // overflows) still gives its unit vector.
            let d: DVec3 = c.direction(&p.key("normal"), normal)?;
            let Some(n) = granula_core::normalize_scaled(d) else {
                return Err(c.invalid(&p.key("normal"), normal, "must be a non-zero finite direction"));
            };
            Ok(OutletRegion::Below { point, normal: n })
        }
    }
}
