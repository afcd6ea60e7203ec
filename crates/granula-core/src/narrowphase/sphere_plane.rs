//! Infinite plane against sphere.

use crate::contact::ContactGeometry;
use crate::math::DVec3;

/// Contact of the plane through `p0` with unit world normal `n` (body 1) and a sphere
/// (body 2): signed distance d = (x − p₀)·n, gap g = d − r, normal n, contact point
/// x − (r + g/2) n, R* = r. A sphere whose centre is past the plane (d < 0) is reported
/// with its (large) overlap, so that a solver can flag it.
pub fn sphere_plane(p0: DVec3, n: DVec3, x: DVec3, r: f64, margin: f64) -> Option<ContactGeometry> {
    let d = (x - p0).dot(n);
    let gap = d - r;
    if gap > margin {
        return None;
    }
    let point = x - n * (r + 0.5 * gap);
    Some(ContactGeometry {
        point,
        normal: n,
        gap,
        branch1: point - p0,
        branch2: point - x,
        effective_radius: r,
        feature: 0,
        overlap_volume: 0.0,
        twist_arm: 0.0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resting_sphere_on_a_floor() {
        let g = sphere_plane(DVec3::ZERO, DVec3::Z, DVec3::new(3.0, -2.0, 0.5), 0.5, 0.0).unwrap();
        assert_eq!(g.gap, 0.0);
        assert_eq!(g.normal, DVec3::Z);
        assert_eq!(g.point, DVec3::new(3.0, -2.0, 0.0));
        assert_eq!(g.branch2, DVec3::new(0.0, 0.0, -0.5));
        assert_eq!(g.branch1, DVec3::new(3.0, -2.0, 0.0));
        assert_eq!(g.effective_radius, 0.5);
    }

    #[test]
    fn sphere_past_the_wall_reports_its_full_overlap() {
        // Centre 0.25 behind the plane: overlap = r + 0.25.
        let g = sphere_plane(DVec3::ZERO, DVec3::X, DVec3::new(-0.25, 0.0, 0.0), 0.5, 0.0).unwrap();
        assert_eq!(g.gap, -0.75);
        assert_eq!(g.normal, DVec3::X);
        assert_eq!(g.point, DVec3::new(-0.375, 0.0, 0.0), "middle of the overlap region [-0.75, 0]");
    }

    #[test]
    fn tilted_plane_distance() {
        let n = DVec3::new(1.0, 1.0, 0.0).normalize();
        let x = n * 2.0;
        let g = sphere_plane(DVec3::ZERO, n, x, 1.0, 0.0);
        assert!(g.is_none(), "gap 1 > margin 0");
        let g = sphere_plane(DVec3::ZERO, n, x, 1.0, 1.0).unwrap();
        // 2 - 1 = 1 up to the rounding of normalising (1,1,0): ~1 ulp.
        assert!((g.gap - 1.0).abs() < 1e-15);
    }
}
