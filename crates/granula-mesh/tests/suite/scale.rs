//! A wall of 10^5 triangles costs what its triangles near a sphere cost: the hierarchy
//! hands the contact search a few dozen triangles, and the broadphase keeps the wall's box
//! out of its cell grid.

use crate::common::random_floor;
use granula_broadphase::LinkedCells;
use granula_core::narrowphase::sphere_plane;
use granula_core::{Aabb, Broadphase, CustomShape, DQuat, DVec3};
use granula_mesh::{sphere_mesh, MeshWall};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

#[test]
fn a_query_on_a_hundred_thousand_triangles_touches_only_the_near_ones() {
    // 224 x 224 cells of h = 1/224 m, two triangles each: 100 352 triangles.
    let cells = 224;
    let floor = random_floor(0.5, cells, 1);
    assert_eq!(floor.triangles().len(), 100_352);
    let h = 1.0 / cells as f64;
    let r = 0.01;
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let (mut near, mut out) = (Vec::new(), Vec::new());
    let mut most = 0;
    for _ in 0..500 {
        let c = DVec3::new(rng.random_range(-0.45..0.45), rng.random_range(-0.45..0.45), r - 1e-4);
        near.clear();
        floor.triangles_near(c, r, &mut near);
        // Every triangle the sphere overlaps is among them (its box overlaps the sphere's).
        let touching = (0..floor.triangles().len() as u32).filter(|&t| {
            let [a, b, v] = floor.triangle(t);
            let (lo, hi) = (a.min(b).min(v), a.max(b).max(v));
            lo.x <= c.x + r && c.x - r <= hi.x && lo.y <= c.y + r && c.y - r <= hi.y
        });
        for t in touching {
            assert!(near.contains(&t), "triangle {t} missed at {c}");
        }
        most = most.max(near.len());
        out.clear();
        sphere_mesh(&floor, DVec3::ZERO, DQuat::IDENTITY, c, r, 0.0, &mut out);
        assert_eq!(out.len(), 1);
        let plane = sphere_plane(DVec3::ZERO, DVec3::Z, c, r, 0.0).unwrap();
        assert!((out[0].gap - plane.gap).abs() < 1e-17, "{:?} vs {plane:?}", out[0]);
    }
    // The sphere's box (2r = 4.5 cells wide) meets at most 7 x 7 moved cells, 98 triangles;
    // a leaf of the hierarchy holds 4 triangles spanning at most 3 cells, so its box may
    // reach 3 cells further on each side: at most (2r/h + 1 + 2 x 3)² x 2 = 263 triangles
    // are handed over, against 100 352 for a search without the hierarchy.
    let bound = 2.0 * (2.0 * r / h + 7.0).powi(2);
    assert!(most as f64 <= bound, "{most} triangles for one sphere (bound {bound})");
    println!("a sphere of r = {r} on {} triangles: at most {most} candidates", floor.triangles().len());
}

#[test]
fn the_broadphase_keeps_a_mesh_wall_out_of_its_cell_grid() {
    // 2000 beads of 1 cm over a 1 m floor of 100 352 triangles: linked cells scan as many
    // cell entries with the wall as without it (the wall's box, 50 times a bead's, is in
    // the list of large boxes tested against every box, O(n), not in the grid), and the
    // wall pairs with every bead within its box.
    let floor = random_floor(0.5, 224, 1);
    let wall = MeshWall::new(floor);
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let r = 0.01;
    let mut boxes: Vec<Aabb> = (0..2000)
        .map(|_| {
            let c = DVec3::new(rng.random_range(-0.6..0.6), rng.random_range(-0.6..0.6), rng.random_range(0.0..0.2));
            Aabb::around(c, DVec3::splat(r))
        })
        .collect();
    let mut cells = LinkedCells::new();
    let mut pairs = Vec::new();
    cells.find_pairs(&boxes, &[], &mut pairs);
    let (scanned, bead_pairs) = (cells.last_scanned(), pairs.len());
    let wall_box = wall.aabb(DVec3::ZERO, DQuat::IDENTITY);
    boxes.push(wall_box);
    cells.find_pairs(&boxes, &[], &mut pairs);
    assert_eq!(cells.last_scanned(), scanned, "the grid did not see the wall");
    let with_wall = pairs.iter().filter(|(i, j)| *i == 2000 || *j == 2000).count();
    let expected = boxes[..2000].iter().filter(|b| b.overlaps(&wall_box)).count();
    assert_eq!(with_wall, expected);
    assert_eq!(pairs.len(), bead_pairs + expected);
}
