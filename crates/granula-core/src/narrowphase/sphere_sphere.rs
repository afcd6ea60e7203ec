//! Sphere against sphere.

use crate::contact::ContactGeometry;
use crate::math::DVec3;

/// Contact of sphere 1 (centre `x1`, radius `r1`) and sphere 2: normal n = (x₂ − x₁)/|x₂ − x₁|,
/// gap g = |x₂ − x₁| − r₁ − r₂, contact point x₁ + (r₁ + g/2) n, R* = r₁r₂/(r₁ + r₂).
///
/// Concentric spheres have no normal: `Err("concentric spheres")`.
pub fn sphere_sphere(
    x1: DVec3,
    r1: f64,
    x2: DVec3,
    r2: f64,
    margin: f64,
) -> Result<Option<ContactGeometry>, &'static str> {
    let d = x2 - x1;
    let dist2 = d.length_squared();
    let reach = r1 + r2 + margin;
    if dist2 > reach * reach {
        return Ok(None);
    }
    let dist = dist2.sqrt();
    if dist <= 1e-12 * (r1 + r2) {
        return Err("concentric spheres");
    }
    let n = d / dist;
    let gap = dist - r1 - r2;
    let point = x1 + n * (r1 + 0.5 * gap);
    Ok(Some(ContactGeometry {
        point,
        normal: n,
        gap,
        branch1: point - x1,
        branch2: point - x2,
        effective_radius: r1 * r2 / (r1 + r2),
        feature: 0,
        overlap_volume: 0.0,
        twist_arm: 0.0,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_pair_has_exact_geometry() {
        // Values chosen exactly representable: every quantity below is exact in f64.
        let g = sphere_sphere(DVec3::ZERO, 1.0, DVec3::new(1.5, 0.0, 0.0), 1.0, 0.0).unwrap().unwrap();
        assert_eq!(g.normal, DVec3::X);
        assert_eq!(g.gap, -0.5);
        assert_eq!(g.point, DVec3::new(0.75, 0.0, 0.0));
        assert_eq!(g.branch1, DVec3::new(0.75, 0.0, 0.0));
        assert_eq!(g.branch2, DVec3::new(-0.75, 0.0, 0.0));
        assert_eq!(g.effective_radius, 0.5);
    }

    #[test]
    fn exactly_touching_has_zero_gap() {
        let g = sphere_sphere(DVec3::ZERO, 0.5, DVec3::new(0.0, 0.0, 1.25), 0.75, 0.0).unwrap().unwrap();
        assert_eq!(g.gap, 0.0);
        assert_eq!(g.normal, DVec3::Z);
        assert_eq!(g.point, DVec3::new(0.0, 0.0, 0.5));
    }

    #[test]
    fn margin_reports_incipient_contacts_only_within_it() {
        let x2 = DVec3::new(0.0, 2.25, 0.0);
        assert!(sphere_sphere(DVec3::ZERO, 1.0, x2, 1.0, 0.0).unwrap().is_none());
        let g = sphere_sphere(DVec3::ZERO, 1.0, x2, 1.0, 0.25).unwrap().unwrap();
        assert_eq!(g.gap, 0.25);
        assert_eq!(g.point, DVec3::new(0.0, 1.125, 0.0));
        assert!(sphere_sphere(DVec3::ZERO, 1.0, x2, 1.0, 0.2).unwrap().is_none());
    }

    #[test]
    fn concentric_spheres_are_an_error() {
        assert_eq!(sphere_sphere(DVec3::ONE, 1.0, DVec3::ONE, 0.5, 0.0), Err("concentric spheres"));
    }
}
