//! Random loose packings without overlaps, by random sequential addition.

use super::{PlacedSphere, Region, SizeDistribution, SphereGrid};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

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
    use glam::DVec3;

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
