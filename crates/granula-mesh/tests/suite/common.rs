//! Meshes and worlds shared by the tests.

use granula_core::{DVec3, Narrowphase, World};
use granula_mesh::{register_all, MeshOptions, TriangleMesh};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The flat square [−half, half]² in z = 0 as `cells` × `cells` quadrilaterals whose inner
/// corners are moved at random by up to 0.2 of a cell along x and y (so vertices are met
/// by 4 to 8 triangles and edges run in every direction), each split along a random
/// diagonal, with random orientations (some triangles face down). The moves keep every
/// quadrilateral convex (a corner moves at most 0.28 of a cell, less than half the 0.71 of
/// a cell from a corner to the diagonal of its neighbours), so the triangles tile the
/// square exactly.
pub fn random_floor(half: f64, cells: usize, seed: u64) -> TriangleMesh {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let h = 2.0 * half / cells as f64;
    let n = cells + 1;
    let mut vertices = Vec::with_capacity(n * n);
    for j in 0..n {
        for i in 0..n {
            let inner = |k: usize| k > 0 && k < cells;
            let (dx, dy) = if inner(i) && inner(j) {
                (rng.random_range(-0.2..0.2) * h, rng.random_range(-0.2..0.2) * h)
            } else {
                (0.0, 0.0)
            };
            vertices.push(DVec3::new(-half + i as f64 * h + dx, -half + j as f64 * h + dy, 0.0));
        }
    }
    let mut triangles = Vec::with_capacity(2 * cells * cells);
    for j in 0..cells {
        for i in 0..cells {
            let at = |di: usize, dj: usize| ((j + dj) * n + i + di) as u32;
            let (a, b, c, d) = (at(0, 0), at(1, 0), at(1, 1), at(0, 1));
            let pair = if rng.random_bool(0.5) { [[a, b, c], [a, c, d]] } else { [[a, b, d], [b, c, d]] };
            for t in pair {
                triangles.push(if rng.random_bool(0.5) { t } else { [t[0], t[2], t[1]] });
            }
        }
    }
    TriangleMesh::new(vertices, triangles, &MeshOptions::default()).unwrap()
}

/// A fold along the y axis: the half-planes x ≤ 0 and x ≥ 0 (|x| ≤ 1, |y| ≤ 1) each turned
/// by `slope` (rad) about the y axis, z = |x| tan(slope) (a valley, concave seen from above,
/// for slope > 0; a ridge, convex, for slope < 0), each side split into `cells` × `cells`
/// triangles pairs so that the fold and the faces have inner edges and vertices.
pub fn fold(slope: f64, cells: usize, options: &MeshOptions) -> TriangleMesh {
    let n = cells + 1;
    let mut vertices = Vec::new();
    let mut triangles = Vec::new();
    for side in [-1.0, 1.0] {
        let base = vertices.len() as u32;
        for j in 0..n {
            for i in 0..n {
                let x = side * i as f64 / cells as f64;
                let y = -1.0 + 2.0 * j as f64 / cells as f64;
                vertices.push(DVec3::new(x, y, x.abs() * slope.tan()));
            }
        }
        for j in 0..cells {
            for i in 0..cells {
                let at = |di: usize, dj: usize| base + ((j + dj) * n + i + di) as u32;
                triangles.push([at(0, 0), at(1, 0), at(1, 1)]);
                triangles.push([at(0, 0), at(1, 1), at(0, 1)]);
            }
        }
    }
    // The two sides' vertices on x = 0 coincide exactly and are merged.
    TriangleMesh::new(vertices, triangles, options).unwrap()
}

/// A world with the mesh walls' generators, gravity `g` and the given material.
pub fn world(gravity: DVec3, material: granula_core::Material) -> World {
    let mut narrowphase = Narrowphase::new();
    register_all(&mut narrowphase).unwrap();
    World::builder().gravity(gravity).material(material).narrowphase(narrowphase).build().unwrap()
}
