//! Random loose packings without overlaps, by random sequential addition.

use super::{PlacedSphere, SizeDistribution, SphereGrid};
use glam::DVec3;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A region the spheres must lie in entirely.
#[derive(Clone, Copy, Debug, PartialEq)]
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
    fn sample<R: Rng>(&self, r: f64, planar: bool, rng: &mut R) -> DVec3 {
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

/// Places `count` spheres with radii from `size` in `region` without overlaps: radii are
/// drawn first, sorted largest first, then each sphere tries up to `attempts` uniform
/// positions. Returns the spheres placed (fewer than `count` if it ran out of attempts) and
/// the number of attempts made. Seeded by `seed` (ChaCha8): the same inputs give the same
/// spheres.
pub fn random_packing(
    region: Region,
    count: usize,
    size: SizeDistribution,
    seed: u64,
    attempts: usize,
    planar: bool,
) -> (Vec<PlacedSphere>, usize) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut radii: Vec<f64> = (0..count).map(|_| size.sample(&mut rng)).collect();
    radii.sort_by(|a, b| b.total_cmp(a));
    let mut grid = SphereGrid::new(2.0 * size.max_radius());
    let mut tried = 0;
    for &r in &radii {
        let mut placed = false;
        for _ in 0..attempts {
            tried += 1;
            let s = PlacedSphere { center: region.sample(r, planar, &mut rng), radius: r };
            if grid.deepest_overlap(&s, 0.0).is_none() {
                grid.insert(s);
                placed = true;
                break;
            }
        }
        if !placed {
            break;
        }
    }
    (grid.spheres().to_vec(), tried)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packings_are_inside_without_overlap_and_reproducible() {
        let size = SizeDistribution::Uniform { min: 0.05, max: 0.1 };
        let cyl = Region::Cylinder { base: DVec3::ZERO, axis: DVec3::Z, radius: 1.0, height: 1.0 };
        let (a, _) = random_packing(cyl, 300, size, 3, 1000, false);
        assert_eq!(a.len(), 300);
        for (i, s) in a.iter().enumerate() {
            assert!(s.center.truncate().length() + s.radius <= 1.0 + 1e-12, "sphere {i} pokes out");
            assert!(s.center.z - s.radius >= -1e-12 && s.center.z + s.radius <= 1.0 + 1e-12);
            for t in &a[..i] {
                assert!((s.center - t.center).length() >= s.radius + t.radius, "overlap at {i}");
            }
        }
        let (b, _) = random_packing(cyl, 300, size, 3, 1000, false);
        assert_eq!(a, b, "same seed, same packing");
        let (c, _) = random_packing(cyl, 300, size, 4, 1000, false);
        assert_ne!(a, c, "another seed, another packing");
    }

    #[test]
    fn an_impossible_packing_stops_short() {
        let size = SizeDistribution::Uniform { min: 0.4, max: 0.5 };
        let b = Region::Box { min: DVec3::ZERO, max: DVec3::ONE };
        // A unit cube holds at most one sphere of radius > 0.25... well, 8 of radius 0.25.
        let (s, tried) = random_packing(b, 10, size, 1, 50, false);
        assert!(s.len() < 10);
        assert!(tried >= 50);
    }
}
