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

/// Centres of a triangular lattice of `counts[0]` columns and `counts[1]` rows in the
/// plane of `origin` (z constant): row j, column i at
/// origin + spacing (i + (j mod 2)/2, j √3/2), rows in order from `origin` up y.
pub fn triangular_lattice(origin: DVec3, counts: [u32; 2], spacing: f64, radius: f64) -> Vec<PlacedSphere> {
    let n = (counts[0] as usize).checked_mul(counts[1] as usize).unwrap_or(0);
    let mut out = Vec::with_capacity(n.min(1 << 24));
    let row = spacing * 3f64.sqrt() / 2.0;
    for j in 0..counts[1] {
        for i in 0..counts[0] {
            let x = (i as f64 + 0.5 * (j % 2) as f64) * spacing;
            out.push(PlacedSphere { center: origin + DVec3::new(x, j as f64 * row, 0.0), radius });
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

    #[test]
    fn triangular_rows_are_shifted_by_half_a_spacing() {
        let s = triangular_lattice(DVec3::ZERO, [3, 2], 2.0, 0.5);
        assert_eq!(s.len(), 6);
        // Row 1 starts half a spacing along x and √3/2 spacing up y: every neighbour at 2.
        assert_eq!(s[3].center, DVec3::new(1.0, 3f64.sqrt(), 0.0));
        assert!(((s[3].center - s[0].center).length() - 2.0).abs() < 1e-15);
    }
}
