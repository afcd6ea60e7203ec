//! Spheres on a simple cubic lattice.

use super::PlacedSphere;
use glam::DVec3;

/// Centres `origin + spacing (i, j, k)` for i < nx, j < ny, k < nz, in x-fastest order.
pub fn lattice(origin: DVec3, counts: [u32; 3], spacing: f64, radius: f64) -> Vec<PlacedSphere> {
    // Reserved only when the count fits in memory's address range; a scene's counts were
    // limited before (`scene::limits`).
    let n = counts.iter().try_fold(1usize, |a, &c| a.checked_mul(c as usize)).unwrap_or(0);
    let mut out = Vec::with_capacity(n.min(1 << 24));
    for k in 0..counts[2] {
        for j in 0..counts[1] {
            for i in 0..counts[0] {
                let center = origin + spacing * DVec3::new(i as f64, j as f64, k as f64);
                out.push(PlacedSphere { center, radius });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lattice_has_the_requested_count_and_extent() {
        let s = lattice(DVec3::ONE, [3, 2, 4], 0.5, 0.2);
        assert_eq!(s.len(), 24);
        assert_eq!(s[0].center, DVec3::ONE);
        assert_eq!(s[23].center, DVec3::new(2.0, 1.5, 2.5));
    }
}
