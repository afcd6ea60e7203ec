//! Convex hull of a point cloud, by incremental insertion (Clarkson–Shor style, without the
//! conflict graph: each point is tested against every live face, O(n·F), ample for the
//! tens to hundreds of points of a particle shape).

use crate::error::{PolyError, Result};
use crate::mesh::{COPLANAR_COS, EXTENT_RANGE};
use granula_core::math::DVec3;
use std::collections::{HashMap, HashSet};

/// Triangulated convex hull of `points`: the hull's vertices (the extreme points of the
/// input, in input order) and its faces, counter-clockwise seen from outside. Points within
/// a relative distance of 1e-10 of a face's plane count as on it and are not added, so
/// coplanar points (the four corners of a box face) give coplanar triangles, not slivers.
/// Points are inserted farthest from the centroid first; a point that still ends up as a
/// hull vertex inside a flat face or on a straight edge (its faces span fewer than three
/// planes) is not extreme: it is dropped and the hull built again without it. A cloud whose
/// size (largest distance from the first point) is outside 1e-60 to 1e60
/// is refused ([`PolyError::BadExtent`]).
pub fn convex_hull(points: &[DVec3]) -> Result<(Vec<DVec3>, Vec<[u32; 3]>)> {
    if points.len() < 4 {
        return Err(PolyError::DegenerateHull { reason: "fewer than 4 points" });
    }
    if points.iter().any(|p| !p.is_finite()) {
        return Err(PolyError::DegenerateHull { reason: "a non-finite point" });
    }
    let scale = points.iter().map(|p| (*p - points[0]).length()).fold(0.0, f64::max);
    // Beyond this range the plane tests overflow or underflow (squares of cross products)
    // and the cloud would be called flat; a zero extent (all points equal) is left to the
    // collinearity test below.
    let (min, max) = EXTENT_RANGE;
    if scale > 0.0 && !(scale >= min && scale <= max) {
        return Err(PolyError::BadExtent { extent: scale, min, max });
    }
    let eps = 1e-10 * scale.max(f64::MIN_POSITIVE);
    let centroid = points.iter().copied().sum::<DVec3>() / points.len() as f64;
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by(|&i, &j| {
        let (di, dj) = ((points[i] - centroid).length_squared(), (points[j] - centroid).length_squared());
        dj.total_cmp(&di).then(i.cmp(&j))
    });
    loop {
        let faces = hull_of(points, &order, eps)?;
        let flat = non_extreme_vertices(points, &faces);
        if flat.is_empty() {
            return Ok(compact(points, &faces));
        }
        order.retain(|i| !flat.contains(i));
    }
}

/// The hull of the points `order` lists, inserted in that order.
fn hull_of(points: &[DVec3], order: &[usize], eps: f64) -> Result<Vec<[usize; 3]>> {
    let seed = initial_tetrahedron(points, order, eps)?;
    let mut faces: Vec<[usize; 3]> = Vec::new();
    let [a, b, c, d] = seed;
    // Orient the seed outward: d must lie below face (a, b, c).
    let below = plane_dist(points, [a, b, c], points[d]) < 0.0;
    let (b, c) = if below { (b, c) } else { (c, b) };
    faces.extend([[a, b, c], [a, d, b], [b, d, c], [c, d, a]]);
    for &i in order {
        if seed.contains(&i) {
            continue;
        }
        let p = points[i];
        let visible: Vec<bool> = faces.iter().map(|f| plane_dist(points, *f, p) > eps).collect();
        if !visible.iter().any(|&v| v) {
            continue;
        }
        let mut lit: HashSet<(usize, usize)> = HashSet::new();
        for (f, _) in faces.iter().zip(&visible).filter(|(_, &v)| v) {
            for k in 0..3 {
                lit.insert((f[k], f[(k + 1) % 3]));
            }
        }
        let mut next = Vec::with_capacity(faces.len() + 4);
        for (f, &v) in faces.iter().zip(&visible) {
            if !v {
                next.push(*f);
                continue;
            }
            // Horizon: a directed edge of a visible face whose twin is not visible.
            for k in 0..3 {
                let (u, w) = (f[k], f[(k + 1) % 3]);
                if !lit.contains(&(w, u)) {
                    next.push([u, w, i]);
                }
            }
        }
        faces = next;
    }
    Ok(faces)
}

/// Hull vertices whose incident faces span fewer than three distinct planes: inside a
/// flat face or on a straight edge of the hull.
fn non_extreme_vertices(points: &[DVec3], faces: &[[usize; 3]]) -> Vec<usize> {
    let mut planes: HashMap<usize, Vec<DVec3>> = HashMap::new();
    for f in faces {
        let [a, b, c] = f.map(|i| points[i]);
        let n = (b - a).cross(c - a).normalize();
        for &i in f {
            let list = planes.entry(i).or_default();
            if !list.iter().any(|m| m.dot(n) > COPLANAR_COS) {
                list.push(n);
            }
        }
    }
    let mut flat: Vec<usize> = planes.into_iter().filter(|(_, l)| l.len() < 3).map(|(i, _)| i).collect();
    flat.sort_unstable();
    flat
}

/// Four affinely independent points: the two farthest along an axis, the farthest from
/// their line, the farthest from their plane.
fn initial_tetrahedron(points: &[DVec3], order: &[usize], eps: f64) -> Result<[usize; 4]> {
    let far = |key: &dyn Fn(DVec3) -> f64| {
        order.iter().copied().max_by(|&i, &j| key(points[i]).total_cmp(&key(points[j])).then(j.cmp(&i))).unwrap_or(0)
    };
    let a = far(&|p| -p.x);
    let b = far(&|p| (p - points[a]).length_squared());
    let ab = (points[b] - points[a]).normalize_or_zero();
    let c = far(&|p| (p - points[a]).reject_from_normalized(ab).length_squared());
    let n = (points[b] - points[a]).cross(points[c] - points[a]);
    if n.length() <= eps * eps {
        return Err(PolyError::DegenerateHull { reason: "the points are collinear" });
    }
    let n = n.normalize();
    let d = far(&|p| (p - points[a]).dot(n).abs());
    if (points[d] - points[a]).dot(n).abs() <= eps {
        return Err(PolyError::DegenerateHull { reason: "the points are coplanar" });
    }
    Ok([a, b, c, d])
}

/// Signed distance of `p` to the plane of face `f` (positive outside).
fn plane_dist(points: &[DVec3], f: [usize; 3], p: DVec3) -> f64 {
    let [a, b, c] = f.map(|i| points[i]);
    let n = (b - a).cross(c - a).normalize();
    n.dot(p - a)
}

/// Keeps only the vertices the faces use, renumbered in input order.
fn compact(points: &[DVec3], faces: &[[usize; 3]]) -> (Vec<DVec3>, Vec<[u32; 3]>) {
    let mut map = vec![u32::MAX; points.len()];
    for f in faces {
        for &i in f {
            map[i] = 0;
        }
    }
    let mut vertices = Vec::new();
    for (i, m) in map.iter_mut().enumerate() {
        if *m == 0 {
            *m = vertices.len() as u32;
            vertices.push(points[i]);
        }
    }
    (vertices, faces.iter().map(|f| f.map(|i| map[i])).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::{check_and_build_edges, moments};

    #[test]
    fn hull_of_cube_corners_and_inner_points_is_the_cube() {
        let mut pts: Vec<DVec3> =
            (0..8).map(|i| DVec3::new((i & 1) as f64, ((i >> 1) & 1) as f64, ((i >> 2) & 1) as f64)).collect();
        pts.push(DVec3::splat(0.5));
        pts.push(DVec3::new(0.5, 0.5, 1.0)); // on a face: not a vertex
        let (v, f) = convex_hull(&pts).unwrap();
        assert_eq!(v.len(), 8);
        assert_eq!(f.len(), 12);
        check_and_build_edges(&v, &f).unwrap();
        assert!((moments(&v, &f).volume - 1.0).abs() < 1e-14);
    }

    #[test]
    fn flat_clouds_are_refused() {
        let pts = [DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::new(1.0, 1.0, 0.0)];
        assert!(matches!(convex_hull(&pts), Err(PolyError::DegenerateHull { .. })));
        assert!(convex_hull(&pts[..3]).is_err());
    }
}
