//! A bounding-volume hierarchy over the faces of one body, in its body frame.
//!
//! A binary tree of axis-aligned boxes, split at the median face centroid along the longest
//! axis, with up to [`LEAF_SIZE`] faces per leaf. Built once per shape (the body frame does
//! not change); queries transform the other body's points into this frame. Ray, segment and
//! box queries cost O(log F + hits) instead of O(F), nearest-face queries are branch and bound.

use granula_core::math::DVec3;
use granula_core::Aabb;

/// Faces per leaf at most.
pub const LEAF_SIZE: usize = 4;

#[derive(Clone, Debug)]
struct Node {
    aabb: Aabb,
    /// Leaf: first index into `order`; internal: index of the right child (the left child
    /// is the next node).
    index: u32,
    /// Number of faces for a leaf, 0 for an internal node.
    count: u32,
}

/// A bounding-volume hierarchy over triangles (see the module doc): nodes in depth-first
/// order and the face order its leaves index. Median splits keep its depth at
/// log₂(F / 4) + 1 (four faces per leaf), far below the 64 levels its traversal stack holds.
#[derive(Clone, Debug)]
pub struct Bvh {
    nodes: Vec<Node>,
    order: Vec<u32>,
}

impl Bvh {
    /// Builds the tree over triangles given by their vertex positions (none: an empty
    /// tree, which visits nothing).
    pub fn build(triangles: &[[DVec3; 3]]) -> Self {
        if triangles.is_empty() {
            return Bvh { nodes: Vec::new(), order: Vec::new() };
        }
        let mut order: Vec<u32> = (0..triangles.len() as u32).collect();
        let centroids: Vec<DVec3> = triangles.iter().map(|t| (t[0] + t[1] + t[2]) / 3.0).collect();
        let boxes: Vec<Aabb> =
            triangles.iter().map(|t| Aabb { min: t[0].min(t[1]).min(t[2]), max: t[0].max(t[1]).max(t[2]) }).collect();
        let mut nodes = Vec::with_capacity(2 * triangles.len() / LEAF_SIZE + 1);
        build_node(&mut nodes, &mut order, 0, &boxes, &centroids);
        Bvh { nodes, order }
    }

    /// The box of the whole mesh (an empty box, min = +∞ and max = −∞, for no triangle).
    pub fn root_aabb(&self) -> Aabb {
        self.nodes.first().map_or(Aabb { min: DVec3::INFINITY, max: DVec3::NEG_INFINITY }, |n| n.aabb)
    }

    /// Calls `face` for every face in a leaf whose box passes `accept`, visiting only
    /// subtrees whose boxes pass it. `face` returns `false` to stop the traversal early.
    pub fn visit(&self, mut accept: impl FnMut(&Aabb) -> bool, mut face: impl FnMut(u32) -> bool) {
        let mut stack = [0u32; 64];
        let mut top = usize::from(!self.nodes.is_empty());
        while top > 0 {
            top -= 1;
            let node = &self.nodes[stack[top] as usize];
            if !accept(&node.aabb) {
                continue;
            }
            if node.count > 0 {
                let start = node.index as usize;
                for &f in &self.order[start..start + node.count as usize] {
                    if !face(f) {
                        return;
                    }
                }
            } else {
                // The left child is stored right after its parent.
                let left = stack[top] + 1;
                stack[top] = node.index;
                stack[top + 1] = left;
                top += 2;
            }
        }
    }

    /// The face minimising `dist2(face)` (a squared distance from `p`), by branch and bound on
    /// the squared distance from `p` to the node boxes. Returns (face, squared distance),
    /// `(u32::MAX, ∞)` for an empty tree.
    pub fn nearest(&self, p: DVec3, mut dist2: impl FnMut(u32) -> f64) -> (u32, f64) {
        let mut best = (u32::MAX, f64::INFINITY);
        let mut stack = [0u32; 64];
        let mut top = usize::from(!self.nodes.is_empty());
        while top > 0 {
            top -= 1;
            let node = &self.nodes[stack[top] as usize];
            if box_dist2(&node.aabb, p) >= best.1 {
                continue;
            }
            if node.count > 0 {
                let start = node.index as usize;
                for &f in &self.order[start..start + node.count as usize] {
                    let d = dist2(f);
                    if d < best.1 {
                        best = (f, d);
                    }
                }
            } else {
                // Visit the nearer child first (pushed last).
                let (l, r) = (stack[top] + 1, node.index);
                let (dl, dr) = (box_dist2(&self.nodes[l as usize].aabb, p), box_dist2(&self.nodes[r as usize].aabb, p));
                let (near, far) = if dl <= dr { (l, r) } else { (r, l) };
                stack[top] = far;
                stack[top + 1] = near;
                top += 2;
            }
        }
        best
    }
}

fn build_node(nodes: &mut Vec<Node>, order: &mut [u32], offset: usize, boxes: &[Aabb], centroids: &[DVec3]) {
    let aabb = order.iter().fold(boxes[order[0] as usize], |b, &f| union(&b, &boxes[f as usize]));
    let me = nodes.len();
    nodes.push(Node { aabb, index: offset as u32, count: order.len() as u32 });
    if order.len() <= LEAF_SIZE {
        return;
    }
    let (lo, hi) = order.iter().fold((DVec3::INFINITY, DVec3::NEG_INFINITY), |(lo, hi), &f| {
        (lo.min(centroids[f as usize]), hi.max(centroids[f as usize]))
    });
    let ext = hi - lo;
    let axis = if ext.x >= ext.y && ext.x >= ext.z {
        0
    } else if ext.y >= ext.z {
        1
    } else {
        2
    };
    let mid = order.len() / 2;
    order.select_nth_unstable_by(mid, |&a, &b| {
        centroids[a as usize][axis].total_cmp(&centroids[b as usize][axis]).then(a.cmp(&b))
    });
    let (left, right) = order.split_at_mut(mid);
    build_node(nodes, left, offset, boxes, centroids);
    let right_index = nodes.len() as u32;
    build_node(nodes, right, offset + mid, boxes, centroids);
    nodes[me].index = right_index;
    nodes[me].count = 0;
}

fn union(a: &Aabb, b: &Aabb) -> Aabb {
    Aabb { min: a.min.min(b.min), max: a.max.max(b.max) }
}

/// Squared distance from `p` to the box (0 inside).
#[inline]
pub fn box_dist2(b: &Aabb, p: DVec3) -> f64 {
    let d = (b.min - p).max(p - b.max).max(DVec3::ZERO);
    d.length_squared()
}

/// `true` when the ray `o + t d`, t ∈ [0, t_max], meets the box (slab test; `inv_d` is the
/// component-wise inverse of `d`, infinite for zero components).
#[inline]
pub fn ray_hits_box(b: &Aabb, o: DVec3, inv_d: DVec3, t_max: f64) -> bool {
    let t1 = (b.min - o) * inv_d;
    let t2 = (b.max - o) * inv_d;
    let lo = t1.min(t2);
    let hi = t1.max(t2);
    // NaN (0 · ∞, origin on a slab boundary) must not reject: fold with f64::max/min, which
    // ignore NaN operands.
    let enter = lo.x.max(lo.y).max(lo.z).max(0.0);
    let exit = hi.x.min(hi.y).min(hi.z).min(t_max);
    enter <= exit
}

#[cfg(test)]
mod tests {
    use crate::inside::closest_on_triangle;
    use crate::shapes;
    use granula_core::math::DVec3;

    #[test]
    fn nearest_face_matches_brute_force_and_leaves_hold_every_face() {
        let p = shapes::icosphere(1.0, 3).unwrap();
        let mut seen = vec![0u32; p.faces().len()];
        p.bvh().visit(
            |_| true,
            |f| {
                seen[f as usize] += 1;
                true
            },
        );
        assert!(seen.iter().all(|&n| n == 1));
        for k in 0..200 {
            let t = k as f64 * 0.37;
            let x = DVec3::new(t.sin(), (1.3 * t).cos(), (0.7 * t).sin()) * (0.2 + 0.01 * k as f64);
            let d2 = |f: u32| (closest_on_triangle(x, p.triangle(f)) - x).length_squared();
            let (_, got) = p.bvh().nearest(x, d2);
            let want = (0..p.faces().len() as u32).map(d2).fold(f64::INFINITY, f64::min);
            assert_eq!(got, want);
        }
    }

    #[test]
    fn box_queries_visit_only_nearby_faces() {
        let p = shapes::icosphere(1.0, 3).unwrap();
        let probe = granula_core::Aabb::around(DVec3::new(1.0, 0.0, 0.0), DVec3::splat(0.1));
        let mut hits = 0;
        p.bvh().visit(
            |b| b.overlaps(&probe),
            |_| {
                hits += 1;
                true
            },
        );
        assert!(hits > 0 && hits < p.faces().len() / 10, "{hits}");
    }
}
