//! Cylindrical wall against sphere.

use crate::contact::ContactGeometry;
use crate::math::{DQuat, DVec3};
use crate::shape::CylinderWall;

/// Contact of a cylindrical wall (body 1, centre `c0`, orientation `q`) and a sphere
/// (body 2). With h = (x − c₀)·a along the axis a and the radial vector ρ = x − c₀ − h a:
/// - inside: gap g = R − |ρ| − r, normal −ρ/|ρ| (towards the axis);
/// - outside: gap g = |ρ| − R − r, normal ρ/|ρ|.
///
/// A finite cylinder (no caps) touches only spheres with |h| ≤ L/2. R* = r (the wall is
/// taken as locally flat). A sphere on the axis has no normal: it is out of reach of an
/// inside wall unless R − r ≤ margin, in which case this is `Err`; for an outside wall it is
/// always `Err` (the sphere is inside the obstacle).
pub fn sphere_cylinder(
    c0: DVec3,
    q: DQuat,
    wall: &CylinderWall,
    x: DVec3,
    r: f64,
    margin: f64,
) -> Result<Option<ContactGeometry>, &'static str> {
    let a = q * wall.axis;
    let rel = x - c0;
    let h = rel.dot(a);
    if let Some(half) = wall.half_length {
        if h.abs() > half {
            return Ok(None);
        }
    }
    let radial = rel - a * h;
    let rho = radial.length();
    let gap_of = |rho: f64| {
        if wall.inside {
            wall.radius - rho - r
        } else {
            rho - wall.radius - r
        }
    };
    if gap_of(rho) > margin {
        return Ok(None);
    }
    if rho <= 1e-12 * wall.radius {
        return Err("sphere centre on the cylinder axis");
    }
    let outward = radial / rho;
    let normal = if wall.inside { -outward } else { outward };
    let gap = gap_of(rho);
    let point = x - normal * (r + 0.5 * gap);
    Ok(Some(ContactGeometry {
        point,
        normal,
        gap,
        branch1: point - c0,
        branch2: point - x,
        effective_radius: r,
        feature: 0,
        overlap_volume: 0.0,
        twist_arm: 0.0,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wall(inside: bool, half_length: Option<f64>) -> CylinderWall {
        CylinderWall { radius: 2.0, axis: DVec3::Z, inside, half_length }
    }

    #[test]
    fn sphere_inside_a_drum_touching_the_wall() {
        let g = sphere_cylinder(DVec3::ZERO, DQuat::IDENTITY, &wall(true, None), DVec3::new(1.5, 0.0, 7.0), 0.5, 0.0)
            .unwrap()
            .unwrap();
        assert_eq!(g.gap, 0.0);
        assert_eq!(g.normal, -DVec3::X);
        assert_eq!(g.point, DVec3::new(2.0, 0.0, 7.0));
        assert_eq!(g.branch2, DVec3::new(0.5, 0.0, 0.0));
    }

    #[test]
    fn sphere_outside_an_obstacle_overlapping() {
        let g = sphere_cylinder(DVec3::ZERO, DQuat::IDENTITY, &wall(false, None), DVec3::new(0.0, 2.25, 0.0), 0.5, 0.0)
            .unwrap()
            .unwrap();
        assert_eq!(g.gap, -0.25);
        assert_eq!(g.normal, DVec3::Y);
        assert_eq!(g.point, DVec3::new(0.0, 1.875, 0.0), "middle of the overlap region [1.75, 2]");
    }

    #[test]
    fn sphere_on_the_axis() {
        // Far from an inside wall: no contact, a defined result.
        let none =
            sphere_cylinder(DVec3::ZERO, DQuat::IDENTITY, &wall(true, None), DVec3::new(0.0, 0.0, 3.0), 0.5, 0.1);
        assert_eq!(none, Ok(None));
        // Inside an outside-wall obstacle: undefined normal, an error.
        let err = sphere_cylinder(DVec3::ZERO, DQuat::IDENTITY, &wall(false, None), DVec3::ZERO, 0.5, 0.0);
        assert!(err.is_err());
    }

    #[test]
    fn finite_cylinder_has_no_caps() {
        let w = wall(true, Some(1.0));
        let x_in = DVec3::new(1.5, 0.0, 1.0);
        assert!(sphere_cylinder(DVec3::ZERO, DQuat::IDENTITY, &w, x_in, 0.5, 0.0).unwrap().is_some());
        let x_out = DVec3::new(1.5, 0.0, 1.0 + 1e-9);
        assert!(sphere_cylinder(DVec3::ZERO, DQuat::IDENTITY, &w, x_out, 0.5, 0.0).unwrap().is_none());
    }

    #[test]
    fn rotated_cylinder_uses_the_world_axis() {
        // Axis z rotated to x: the sphere at (5, 1.5, 0) touches the inside wall.
        let q = DQuat::from_rotation_y(std::f64::consts::FRAC_PI_2);
        let g =
            sphere_cylinder(DVec3::ZERO, q, &wall(true, None), DVec3::new(5.0, 1.5, 0.0), 0.5, 0.0).unwrap().unwrap();
        // The rotated axis carries ~1e-16 rounding in its components.
        assert!(g.gap.abs() < 1e-14);
        assert!((g.normal + DVec3::Y).length() < 1e-14);
    }
}
