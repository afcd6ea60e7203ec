//! Regions of space that generators and feeds place spheres in, and that outlets empty.

use glam::DVec3;
use granula_core::Aabb;
use rand::Rng;
use serde::{Deserialize, Serialize};

/// A region the spheres must lie in entirely.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Region {
    /// The box [min, max].
    Box {
        /// Lower corner (m).
        min: DVec3,
        /// Upper corner (m).
        max: DVec3,
    },
    /// A cylinder along `axis`: the bottom disc is centred at `base`, the top one at
    /// `base + height · axis`.
    Cylinder {
        /// Centre of the bottom disc (m).
        base: DVec3,
        /// Unit vector from the bottom disc to the top one ([`DVec3::Z`] for a vertical
        /// cylinder, [`DVec3::X`] for a drum along x).
        axis: DVec3,
        /// Radius (m).
        radius: f64,
        /// Height (m).
        height: f64,
    },
}

impl Region {
    /// `true` when a sphere of radius `r` fits in the region at all (in planar mode the z
    /// extent is ignored).
    pub fn fits(&self, r: f64, planar: bool) -> bool {
        match *self {
            Region::Box { min, max } => {
                let e = max - min;
                e.x >= 2.0 * r && e.y >= 2.0 * r && (planar || e.z >= 2.0 * r)
            }
            Region::Cylinder { radius, height, .. } => radius >= r && (planar || height >= 2.0 * r),
        }
    }

    /// Volume (m³); in planar mode the area (m²) of the x-y section.
    pub fn volume(&self, planar: bool) -> f64 {
        match *self {
            Region::Box { min, max } => {
                let e = max - min;
                if planar {
                    e.x * e.y
                } else {
                    e.x * e.y * e.z
                }
            }
            Region::Cylinder { radius, height, .. } => {
                let a = std::f64::consts::PI * radius * radius;
                if planar {
                    a
                } else {
                    a * height
                }
            }
        }
    }

    /// A uniformly random centre for a sphere of radius `r` lying entirely inside. In
    /// planar mode z is the box's min z (or the cylinder's base z).
    pub fn sample<R: Rng>(&self, r: f64, planar: bool, rng: &mut R) -> DVec3 {
        match *self {
            Region::Box { min, max } => {
                let lo = min + DVec3::splat(r);
                let hi = max - DVec3::splat(r);
                let u = DVec3::new(rng.random(), rng.random(), rng.random());
                let mut p = lo + (hi - lo) * u;
                if planar {
                    p.z = min.z;
                }
                p
            }
            Region::Cylinder { base, axis, radius, height } => {
                // Uniform in the disc of radius R - r: r' = (R - r) √u, by area.
                let rho = (radius - r) * rng.random::<f64>().sqrt();
                let phi = std::f64::consts::TAU * rng.random::<f64>();
                if planar {
                    return DVec3::new(base.x + rho * phi.cos(), base.y + rho * phi.sin(), base.z);
                }
                let t = (height - 2.0 * r) * rng.random::<f64>();
                if axis == DVec3::Z {
                    // The vertical cylinder in the order of operations it always had, so
                    // that its packings keep their bits.
                    return DVec3::new(base.x + rho * phi.cos(), base.y + rho * phi.sin(), base.z + r + t);
                }
                let (u, v) = axis.any_orthonormal_pair();
                base + u * (rho * phi.cos()) + v * (rho * phi.sin()) + axis * (r + t)
            }
        }
    }
}

impl Region {
    /// `true` when the point `p` lies in the closed region.
    pub fn contains(&self, p: DVec3) -> bool {
        match *self {
            Region::Box { min, max } => p.cmpge(min).all() && p.cmple(max).all(),
            Region::Cylinder { base, axis, radius, height } => {
                let d = p - base;
                let t = d.dot(axis);
                (0.0..=height).contains(&t) && (d - axis * t).length_squared() <= radius * radius
            }
        }
    }

    /// The axis-aligned box around the region: the box itself, or the box around the
    /// cylinder's two end discs (a disc of radius R normal to the unit axis a reaches
    /// R √(1 − a_k²) along axis k).
    pub fn aabb(&self) -> Aabb {
        match *self {
            Region::Box { min, max } => Aabb { min, max },
            Region::Cylinder { base, axis, radius, height } => {
                let reach = DVec3::ONE - axis * axis;
                let e = radius * DVec3::new(reach.x.max(0.0).sqrt(), reach.y.max(0.0).sqrt(), reach.z.max(0.0).sqrt());
                let top = base + axis * height;
                Aabb { min: base.min(top) - e, max: base.max(top) + e }
            }
        }
    }
}

/// Where an outlet removes bodies: a region, or the half-space behind a plane.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum OutletRegion {
    /// The closed box or cylinder.
    Inside(Region),
    /// The open half-space behind the plane through `point` with unit normal `normal`:
    /// the points p with (p − point) · normal < 0 (below a floor whose normal points up).
    Below {
        /// A point of the plane (m).
        point: DVec3,
        /// Unit normal, pointing out of the removed half-space.
        normal: DVec3,
    },
}

impl OutletRegion {
    /// `true` when a body whose centre is at `p` is removed.
    pub fn contains(&self, p: DVec3) -> bool {
        match *self {
            OutletRegion::Inside(r) => r.contains(p),
            OutletRegion::Below { point, normal } => (p - point).dot(normal) < 0.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tilted_cylinder_contains_its_axis_and_its_box_contains_it() {
        let axis = DVec3::new(1.0, 0.0, 1.0).normalize();
        let c = Region::Cylinder { base: DVec3::ONE, axis, radius: 0.5, height: 2.0 };
        assert!(c.contains(DVec3::ONE + axis));
        assert!(!c.contains(DVec3::ONE - 0.01 * axis));
        assert!(!c.contains(DVec3::ONE + axis + DVec3::Y * 0.51));
        let b = c.aabb();
        // Points on the rims of both end discs lie in the box (to round-off: 1e-12).
        let (u, v) = axis.any_orthonormal_pair();
        for k in 0..64 {
            let phi = k as f64 * std::f64::consts::TAU / 64.0;
            for end in [0.0, 2.0] {
                let p = DVec3::ONE + axis * end + 0.5 * (u * phi.cos() + v * phi.sin());
                assert!(p.cmpge(b.min - 1e-12).all() && p.cmple(b.max + 1e-12).all(), "{p} outside {b:?}");
            }
        }
    }

    #[test]
    fn below_a_floor_is_strictly_below() {
        let o = OutletRegion::Below { point: DVec3::ZERO, normal: DVec3::Z };
        assert!(o.contains(DVec3::new(5.0, -3.0, -1e-9)));
        assert!(!o.contains(DVec3::new(5.0, -3.0, 0.0)));
    }
}
