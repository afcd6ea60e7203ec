//! Merging duplicate vertices: exact duplicates always, and vertices closer than a
//! tolerance when one is given.

use granula_core::math::DVec3;
use std::collections::HashMap;

/// For each vertex, the index of the vertex it is merged into (itself when it is kept).
///
/// Exact duplicates (equal coordinates, −0 and +0 being equal) are merged into the first of
/// them. With `tolerance` > 0, a vertex is merged into the first kept vertex (lowest
/// index) within `tolerance` of it, found on a hash grid of cells of edge `tolerance` (the
/// 27 cells around it): each vertex is compared with kept vertices only, so a chain of
/// vertices each within the tolerance of the next is not collapsed into one point beyond
/// it. The result depends on the vertex order only, not on hashing.
pub(crate) fn weld(vertices: &[DVec3], tolerance: f64) -> Vec<u32> {
    let mut into = Vec::with_capacity(vertices.len());
    if tolerance > 0.0 {
        let cell = |v: DVec3| (v / tolerance).floor().as_i64vec3().to_array();
        let mut grid: HashMap<[i64; 3], Vec<u32>> = HashMap::with_capacity(vertices.len());
        for (i, &v) in vertices.iter().enumerate() {
            let c = cell(v);
            let mut found: Option<u32> = None;
            for dx in -1..=1 {
                for dy in -1..=1 {
                    for dz in -1..=1 {
                        let Some(kept) = grid.get(&[c[0] + dx, c[1] + dy, c[2] + dz]) else { continue };
                        for &k in kept {
                            if (vertices[k as usize] - v).length() <= tolerance && found.is_none_or(|f| k < f) {
                                found = Some(k);
                            }
                        }
                    }
                }
            }
            match found {
                Some(k) => into.push(k),
                None => {
                    grid.entry(c).or_default().push(i as u32);
                    into.push(i as u32);
                }
            }
        }
    } else {
        let mut seen: HashMap<[u64; 3], u32> = HashMap::with_capacity(vertices.len());
        for (i, v) in vertices.iter().enumerate() {
            let key = v.to_array().map(|x| (x + 0.0).to_bits());
            into.push(*seen.entry(key).or_insert(i as u32));
        }
    }
    into
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_and_tolerant_merging() {
        let v = [DVec3::ZERO, DVec3::new(-0.0, 0.0, 0.0), DVec3::X, DVec3::new(1.0 + 1e-9, 0.0, 0.0)];
        assert_eq!(weld(&v, 0.0), vec![0, 0, 2, 3]);
        assert_eq!(weld(&v, 1e-8), vec![0, 0, 2, 2]);
        // A chain 0 - 0.6 - 1.2 with tolerance 1: the middle joins 0, the last is 1.2 from
        // the kept vertex 0 and stays.
        let chain = [DVec3::ZERO, DVec3::X * 0.6, DVec3::X * 1.2];
        assert_eq!(weld(&chain, 1.0), vec![0, 0, 2]);
    }
}
