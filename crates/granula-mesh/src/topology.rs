//! The connectivity of a triangle mesh: its edges, which triangles meet at each edge and at
//! each vertex, and its smooth regions, which give contacts their feature keys.

use granula_core::math::DVec3;
use std::collections::HashMap;

/// Compressed lists: the items of entry `i` are `items[start[i]..start[i + 1]]`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Lists {
    start: Vec<u32>,
    items: Vec<u32>,
}

impl Lists {
    /// The lists of `count` entries from (entry, item) pairs, items in ascending order.
    fn from_pairs(count: usize, pairs: impl Iterator<Item = (u32, u32)> + Clone) -> Self {
        let mut start = vec![0u32; count + 1];
        for (e, _) in pairs.clone() {
            start[e as usize + 1] += 1;
        }
        for i in 0..count {
            start[i + 1] += start[i];
        }
        let mut cursor = start.clone();
        let mut items = vec![0u32; start[count] as usize];
        for (e, item) in pairs {
            items[cursor[e as usize] as usize] = item;
            cursor[e as usize] += 1;
        }
        for i in 0..count {
            items[start[i] as usize..start[i + 1] as usize].sort_unstable();
        }
        Lists { start, items }
    }

    /// The items of entry `i`.
    #[inline]
    pub fn of(&self, i: u32) -> &[u32] {
        &self.items[self.start[i as usize] as usize..self.start[i as usize + 1] as usize]
    }
}

/// Kinds of feature keys, in the two top bits of a key; the other 30 bits hold the id.
pub(crate) const KEY_REGION: u32 = 0;
pub(crate) const KEY_FACE: u32 = 1 << 30;
pub(crate) const KEY_EDGE: u32 = 2 << 30;
pub(crate) const KEY_VERTEX: u32 = 3 << 30;

/// Edges, incidences and smooth regions of a mesh.
#[derive(Clone, Debug)]
pub(crate) struct Topology {
    /// The three edges of each triangle: edge k joins corners k and k + 1 (mod 3).
    pub triangle_edges: Vec<[u32; 3]>,
    /// Triangles at each edge.
    pub edge_triangles: Lists,
    /// Triangles at each vertex.
    pub vertex_triangles: Lists,
    /// Smooth region of each triangle.
    pub region: Vec<u32>,
    /// Number of smooth regions.
    pub regions: usize,
    /// Feature key of a contact at each edge: its region's key when every triangle at the
    /// edge is in one region, its own edge key otherwise.
    pub edge_key: Vec<u32>,
    /// Feature key of a contact at each vertex, likewise.
    pub vertex_key: Vec<u32>,
    /// Number of edges.
    pub edges: usize,
}

impl Topology {
    /// The topology of `triangles` over `vertex_count` vertices, with unit `normals`. Two
    /// triangles are in one smooth region when a chain of triangles joins them, each
    /// sharing an edge with the next that no other triangle shares, at which their normals
    /// make an angle of at most `smooth_angle` (rad). The normals are compared as the
    /// triangles' orientations agree: if both run through the shared edge in the same
    /// direction, one of them is flipped first, so a mesh whose triangles are not
    /// consistently oriented (common in exported open surfaces) has the same regions.
    pub fn new(vertex_count: usize, triangles: &[[u32; 3]], normals: &[DVec3], smooth_angle: f64) -> Self {
        let mut ids: HashMap<(u32, u32), u32> = HashMap::with_capacity(triangles.len() * 3 / 2 + 1);
        let mut triangle_edges = Vec::with_capacity(triangles.len());
        for t in triangles {
            let mut e = [0u32; 3];
            for k in 0..3 {
                let (a, b) = (t[k], t[(k + 1) % 3]);
                let next = ids.len() as u32;
                e[k] = *ids.entry((a.min(b), a.max(b))).or_insert(next);
            }
            triangle_edges.push(e);
        }
        let edges = ids.len();
        let edge_pairs = triangle_edges.iter().enumerate().flat_map(|(t, e)| e.iter().map(move |&e| (e, t as u32)));
        let edge_triangles = Lists::from_pairs(edges, edge_pairs);
        let vertex_pairs = triangles.iter().enumerate().flat_map(|(t, v)| v.iter().map(move |&v| (v, t as u32)));
        let vertex_triangles = Lists::from_pairs(vertex_count, vertex_pairs);

        // Union-find over the triangles across smooth manifold edges.
        let mut parent: Vec<u32> = (0..triangles.len() as u32).collect();
        fn root(parent: &mut [u32], mut i: u32) -> u32 {
            while parent[i as usize] != i {
                parent[i as usize] = parent[parent[i as usize] as usize];
                i = parent[i as usize];
            }
            i
        }
        let cos_smooth = smooth_angle.cos();
        for (t, e3) in triangle_edges.iter().enumerate() {
            for (k, &e) in e3.iter().enumerate() {
                let [t1, t2] = edge_triangles.of(e) else { continue };
                let other = if *t1 == t as u32 { *t2 } else { *t1 };
                if other < t as u32 {
                    continue;
                }
                // The direction of the edge in each triangle: same direction, inconsistent
                // orientations.
                let (a, b) = (triangles[t][k], triangles[t][(k + 1) % 3]);
                let o = triangles[other as usize];
                let same = (0..3).any(|j| o[j] == a && o[(j + 1) % 3] == b);
                let n2 = if same { -normals[other as usize] } else { normals[other as usize] };
                if normals[t].dot(n2) >= cos_smooth {
                    let (r1, r2) = (root(&mut parent, t as u32), root(&mut parent, other));
                    // The smaller index is the root, so the labels follow the triangle order.
                    parent[r1.max(r2) as usize] = r1.min(r2);
                }
            }
        }
        let mut label = vec![u32::MAX; triangles.len()];
        let mut region = Vec::with_capacity(triangles.len());
        let mut regions = 0u32;
        for t in 0..triangles.len() as u32 {
            let r = root(&mut parent, t) as usize;
            if label[r] == u32::MAX {
                label[r] = regions;
                regions += 1;
            }
            region.push(label[r]);
        }
        let key_of = |list: &[u32], own: u32| {
            let first = list.first().map(|&t| region[t as usize]);
            match first {
                Some(r) if list.iter().all(|&t| region[t as usize] == r) => KEY_REGION | r,
                _ => own,
            }
        };
        let edge_key = (0..edges as u32).map(|e| key_of(edge_triangles.of(e), KEY_EDGE | e)).collect();
        let vertex_key = (0..vertex_count as u32).map(|v| key_of(vertex_triangles.of(v), KEY_VERTEX | v)).collect();
        Topology {
            triangle_edges,
            edge_triangles,
            vertex_triangles,
            region,
            regions: regions as usize,
            edge_key,
            vertex_key,
            edges,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A unit square of two triangles in z = 0 and a third triangle folded up along x = 1
    /// by 90°.
    fn folded() -> (Vec<DVec3>, Vec<[u32; 3]>) {
        let v = vec![
            DVec3::new(0.0, 0.0, 0.0),
            DVec3::new(1.0, 0.0, 0.0),
            DVec3::new(1.0, 1.0, 0.0),
            DVec3::new(0.0, 1.0, 0.0),
            DVec3::new(1.0, 0.5, 1.0),
        ];
        // The second triangle is oriented the other way on purpose.
        (v, vec![[0, 1, 2], [0, 3, 2], [1, 4, 2]])
    }

    fn normals(v: &[DVec3], t: &[[u32; 3]]) -> Vec<DVec3> {
        t.iter()
            .map(|t| (v[t[1] as usize] - v[t[0] as usize]).cross(v[t[2] as usize] - v[t[0] as usize]).normalize())
            .collect()
    }

    #[test]
    fn regions_follow_smooth_edges_whatever_the_orientation() {
        let (v, t) = folded();
        let topo = Topology::new(v.len(), &t, &normals(&v, &t), 15f64.to_radians());
        assert_eq!(topo.region, vec![0, 0, 1]);
        assert_eq!(topo.edges, 7);
        // The diagonal 0-2 is inside region 0; the fold 1-2 is sharp.
        let diagonal = topo.triangle_edges[0][2];
        assert_eq!(topo.edge_triangles.of(diagonal), &[0, 1]);
        assert_eq!(topo.edge_key[diagonal as usize], KEY_REGION);
        let fold = topo.triangle_edges[0][1];
        assert_eq!(topo.edge_triangles.of(fold), &[0, 2]);
        assert_eq!(topo.edge_key[fold as usize], KEY_EDGE | fold);
        assert_eq!(topo.vertex_key[0], KEY_REGION);
        assert_eq!(topo.vertex_key[2], KEY_VERTEX | 2);
        assert_eq!(topo.vertex_key[4], KEY_REGION | 1);
        // With a smooth angle above 90° the fold is smooth too.
        let all = Topology::new(v.len(), &t, &normals(&v, &t), 100f64.to_radians());
        assert_eq!(all.region, vec![0, 0, 0]);
    }
}
