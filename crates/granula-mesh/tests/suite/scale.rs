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

/// Distance from `c` to triangle `abc` of the plane z = 0: from its projection to the
/// triangle in the plane (0 inside, else to the nearest edge) and its height.
fn distance_to_flat_triangle(c: DVec3, [a, b, v]: [DVec3; 3]) -> f64 {
    let p = c.truncate();
    let corners = [a.truncate(), b.truncate(), v.truncate()];
    let side = |k: usize| {
        let (u, w) = (corners[k], corners[(k + 1) % 3]);
        (w - u).perp_dot(p - u)
    };
    let s = [side(0), side(1), side(2)];
    let inside = s.iter().all(|&x| x >= 0.0) || s.iter().all(|&x| x <= 0.0);
    let lateral = if inside {
        0.0
    } else {
        (0..3)
            .map(|k| {
                let (u, w) = (corners[k], corners[(k + 1) % 3]);
                let t = ((p - u).dot(w - u) / (w - u).length_squared()).clamp(0.0, 1.0);
                (p - (u + (w - u) * t)).length()
            })
            .fold(f64::INFINITY, f64::min)
    };
    lateral.hypot(c.z)
}

#[test]
fn a_query_on_a_hundred_thousand_triangles_touches_only_the_near_ones() {
    // 224 x 224 cells of h = 1/224 m, two triangles each: 100 352 triangles. A sphere of
    // r = 1 cm (4.5 cells across) overlapping the floor by 0.1 mm, with a detection margin
    // of 2 mm, at 500 random places.
    let cells = 224;
    let floor = random_floor(0.5, cells, 1);
    assert_eq!(floor.triangles().len(), 100_352);
    let h = 1.0 / cells as f64;
    let (r, margin) = (0.01, 0.002);
    let reach = r + margin;
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let (mut near, mut out) = (Vec::new(), Vec::new());
    let (mut most, mut within_most) = (0, 0);
    for _ in 0..500 {
        let c = DVec3::new(rng.random_range(-0.45..0.45), rng.random_range(-0.45..0.45), r - 1e-4);
        near.clear();
        floor.triangles_near(c, reach, &mut near);
        // Every triangle within reach is among them (brute force over the 100 352).
        let mut within = 0;
        for t in 0..floor.triangles().len() as u32 {
            if distance_to_flat_triangle(c, floor.triangle(t)) <= reach {
                assert!(near.contains(&t), "triangle {t} missed at {c}");
                within += 1;
            }
        }
        most = most.max(near.len());
        within_most = within_most.max(within);
        out.clear();
        sphere_mesh(&floor, DVec3::ZERO, DQuat::IDENTITY, c, r, margin, &mut out);
        assert_eq!(out.len(), 1);
        let plane = sphere_plane(DVec3::ZERO, DVec3::Z, c, r, margin).unwrap();
        assert!((out[0].gap - plane.gap).abs() < 1e-17, "{:?} vs {plane:?}", out[0]);
    }
    // Within reach of the centre, the floor is the disc of radius ρ = √(reach² − z²) = 6.8 mm
    // (1.5 cells) around the foot. A leaf's box (four triangles, about two cells here) is
    // visited when it comes within ρ of the foot; allowing leaves 3 cells across, every
    // candidate lies within ρ + 3√2 h of it: at most 2 (2 (ρ/h + 3√2) + 1)² = 417
    // triangles (measured: 55, of which 32 within reach), against 100 352 for a search
    // without the hierarchy.
    let rho = (reach * reach - (r - 1e-4) * (r - 1e-4)).sqrt();
    let bound = 2.0 * (2.0 * (rho / h + 3.0 * 2f64.sqrt()) + 1.0).powi(2);
    assert!(most as f64 <= bound, "{most} triangles for one sphere (bound {bound})");
    println!("r = {r} + margin {margin} on 100 352 triangles: at most {most} candidates, {within_most} within reach");
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
