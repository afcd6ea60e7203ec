//! The initial-overlap check: no two spheres, and no sphere and wall, may overlap.

use super::bodies::BodyPlan;
use crate::error::{IoError, Location, Result};
use crate::generate::{PlacedSphere, SphereGrid};
use granula_core::Shape;

/// Overlap allowed before an error, as a fraction of the sphere's radius. Positions written
/// in decimal and lattice spacings multiplied out carry rounding of ~1e-16 relative; 1e-9
/// lets bodies written as exactly touching (to nine digits) pass, and catches any real
/// overlap.
pub const OVERLAP_TOLERANCE: f64 = 1e-9;

/// Fails with [`IoError::InitialOverlap`] on the first overlapping pair (in body order).
pub fn check_overlaps(file: &str, text: &str, plans: &[BodyPlan]) -> Result<()> {
    let spheres: Vec<(usize, PlacedSphere)> = plans
        .iter()
        .enumerate()
        .filter_map(|(i, p)| {
            p.body.shape.sphere_radius().map(|r| (i, PlacedSphere { center: p.body.state.position, radius: r }))
        })
        .collect();
    let r_max = spheres.iter().map(|s| s.1.radius).fold(0.0, f64::max);
    let report = |i: usize, other: &str, overlap: f64| {
        let origin = &plans[i].origin;
        // The key path is the origin without a generated-sphere suffix.
        let key_path = origin.split(' ').next().unwrap_or(origin);
        let line = super::source::line_of(text, &parse_path(key_path));
        IoError::InitialOverlap {
            at: Location { file: file.to_string(), key: origin.clone(), line },
            other: other.to_string(),
            overlap,
        }
    };
    if r_max > 0.0 {
        let mut grid = SphereGrid::new(2.0 * r_max);
        for &(i, s) in &spheres {
            if let Some((j, depth)) = grid.deepest_overlap(&s, OVERLAP_TOLERANCE * s.radius) {
                let other = spheres[j].0;
                return Err(report(i, &plans[other].origin, depth));
            }
            grid.insert(s);
        }
    }
    for wall in plans {
        let x_w = wall.body.state.position;
        let q = wall.body.state.orientation;
        for &(i, s) in &spheres {
            let depth = match &wall.body.shape {
                Shape::Plane { normal } => s.radius - (s.center - x_w).dot((q * *normal).normalize()),
                Shape::Cylinder(c) => {
                    let a = (q * c.axis).normalize();
                    let d = s.center - x_w;
                    let along = d.dot(a);
                    if c.half_length.is_some_and(|h| along.abs() > h) {
                        continue;
                    }
                    let rho = (d - along * a).length();
                    if c.inside {
                        rho + s.radius - c.radius
                    } else {
                        c.radius + s.radius - rho
                    }
                }
                _ => continue,
            };
            if depth > OVERLAP_TOLERANCE * s.radius {
                return Err(report(i, &wall.origin, depth));
            }
        }
    }
    Ok(())
}

/// Parses `name[3]` style origins back into a key path (only the forms this crate writes).
fn parse_path(s: &str) -> super::source::KeyPath {
    use super::source::{KeyPath, Seg};
    let mut p = KeyPath::root();
    if let Some((name, rest)) = s.split_once('[') {
        let key: &'static str = match name {
            "spheres" => "spheres",
            "planes" => "planes",
            "cylinders" => "cylinders",
            "lattices" => "lattices",
            "packings" => "packings",
            _ => return p,
        };
        p.0.push(Seg::Key(key));
        if let Ok(i) = rest.trim_end_matches(']').parse() {
            p.0.push(Seg::Index(i));
        }
    }
    p
}
