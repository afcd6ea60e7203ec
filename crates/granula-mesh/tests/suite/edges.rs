//! A sphere on a convex edge (a ridge), in a concave fold (a valley) and in a gentle fold
//! inside one smooth region: the contacts against the exact distance to the two
//! half-planes, and a bead at rest in a V-groove against the equilibrium of its two
//! contact forces.

use crate::common::{fold, world};
use granula_broadphase::BruteForce;
use granula_core::{DQuat, DVec3, Material, SphereBuilder};
use granula_integrators::VelocityVerlet;
use granula_laws::{Composed, DampingCoefficient, LinearSpring, LinearViscous, NoFriction};
use granula_md::{MdConfig, MdSolver};
use granula_mesh::{sphere_mesh, MeshOptions, MeshWallBuilder};

/// The half-plane of side `s` (−1: x ≤ 0, +1: x ≥ 0) of the fold z = |x| tan(slope): its
/// point nearest to `c` (y kept), by projecting (c.x, c.z) on its direction (s cos, sin)
/// and clamping at the fold line.
fn nearest_on_side(c: DVec3, slope: f64, s: f64) -> DVec3 {
    let u = (c.x * s * slope.cos() + c.z * slope.sin()).max(0.0);
    DVec3::new(s * u * slope.cos(), c.y, u * slope.sin())
}

/// Top two bits of a feature key: 0 a smooth region, 1 a face, 2 an edge, 3 a vertex.
fn kind(key: u32) -> u32 {
    key >> 30
}

#[test]
fn a_sphere_over_a_ridge_has_one_contact_at_the_nearest_point() {
    // The ridge z = -|x| tan 30°, each side 4 x 4 cells of two triangles (inner edges and
    // vertices on the faces and along the ridge). A sphere of radius 0.1 centred 0.05
    // above the ridge line's height, swept across it at y = 0.13 (not over a vertex row).
    let slope = -30f64.to_radians();
    let ridge = fold(slope, 4, &MeshOptions::default());
    assert_eq!(ridge.region_count(), 2, "two faces meeting at 60° apart");
    let r = 0.1;
    let mut out = Vec::new();
    let (mut on_faces, mut on_ridge) = (0, 0);
    // At y = 0.13, and at y = 0 and 0.5, rows of vertices where the faces' diagonals end
    // (the nearest point is then at a vertex of the ridge, shared by six triangles).
    for k in 0..=1802 {
        let y = [0.13, 0.0, 0.5][k / 601];
        let c = DVec3::new(-0.3 + 0.001 * (k % 601) as f64, y, 0.05);
        let q = [nearest_on_side(c, slope, -1.0), nearest_on_side(c, slope, 1.0)];
        let d = [(c - q[0]).length(), (c - q[1]).length()];
        let near = if d[0] <= d[1] { 0 } else { 1 };
        out.clear();
        sphere_mesh(&ridge, DVec3::ZERO, DQuat::IDENTITY, c, r, 0.0, &mut out);
        if d[near] > r {
            assert!(out.is_empty(), "x = {}: {out:?}", c.x);
            continue;
        }
        assert_eq!(out.len(), 1, "x = {}: one contact on a convex surface, {out:?}", c.x);
        let g = out[0];
        // Coordinates of order 0.1-1: round-off of the projections, a few 1e-17; 1e-14.
        assert!((g.gap - (d[near] - r)).abs() < 1e-14, "x = {}: gap {} vs {}", c.x, g.gap, d[near] - r);
        let n = (c - q[near]) / d[near];
        assert!((g.normal - n).length() < 1e-14, "x = {}: normal {} vs {n}", c.x, g.normal);
        if q[near].x == 0.0 {
            // Nearest to the ridge line: an edge (or, over a vertex row, a vertex) contact
            // with the ridge's own key.
            assert_eq!(kind(g.feature), if y == 0.13 { 2 } else { 3 }, "x = {}, y = {y}", c.x);
            on_ridge += 1;
        } else {
            // Over a face: the key of its side, whichever triangle of it.
            assert_eq!(g.feature, if c.x < 0.0 { 0 } else { 1 }, "x = {}", c.x);
            on_faces += 1;
        }
    }
    // The centre is in the ridge's Voronoi wedge for |x| < 0.05 tan 30° = 0.029: ~57 spots
    // per row.
    assert!(on_ridge > 120 && on_faces > 300, "{on_ridge} on the ridge, {on_faces} on faces");
}

#[test]
fn a_sphere_in_a_valley_touches_both_sides_and_a_gentle_fold_once() {
    let r = 0.1;
    let mut out = Vec::new();
    // A 90° V (slopes of 45°): two contacts, one per side, each at the exact distance.
    let slope = 45f64.to_radians();
    let valley = fold(slope, 4, &MeshOptions::default());
    // Centres 0.12 above the fold: each side (0.12 ± x) cos 45° < r away.
    for x in [0.0, 0.01, -0.01, 0.015] {
        let c = DVec3::new(x, 0.13, 0.12);
        out.clear();
        sphere_mesh(&valley, DVec3::ZERO, DQuat::IDENTITY, c, r, 0.0, &mut out);
        assert_eq!(out.len(), 2, "x = {x}: {out:?}");
        out.sort_by_key(|g| g.feature);
        for (s, g) in [-1.0, 1.0].iter().zip(&out) {
            let q = nearest_on_side(c, slope, *s);
            assert!((g.gap - ((c - q).length() - r)).abs() < 1e-14, "x = {x}: {g:?}");
            assert!((g.normal - DVec3::new(-s * slope.sin(), 0.0, slope.cos())).length() < 1e-14, "{g:?}");
        }
        assert_eq!((out[0].feature, out[1].feature), (0, 1), "the two sides' region keys");
    }
    // A fold of 3° (below the 15° smooth angle): one smooth region, one contact patch, the
    // nearer side's; with a smooth angle of 1° the fold is sharp and both sides touch.
    let slope = 3f64.to_radians();
    let gentle = fold(slope, 4, &MeshOptions::default());
    assert_eq!(gentle.region_count(), 1);
    let sharp = fold(slope, 4, &MeshOptions { smooth_angle: 1f64.to_radians(), ..Default::default() });
    assert_eq!(sharp.region_count(), 2);
    // Centres within 0.099 tan 3° = 0.0052 of the fold, so that the centre projects onto
    // both sides' faces (each side a local minimum, 0.099 cos 3° + |x| sin 3° < r away).
    for x in [0.0, 0.002, -0.004, 0.005] {
        let c = DVec3::new(x, 0.13, 0.099);
        let d = [-1.0, 1.0].map(|s| (c - nearest_on_side(c, slope, s)).length());
        out.clear();
        sphere_mesh(&gentle, DVec3::ZERO, DQuat::IDENTITY, c, r, 0.0, &mut out);
        assert_eq!(out.len(), 1, "x = {x}: {out:?}");
        assert!((out[0].gap - (d[0].min(d[1]) - r)).abs() < 1e-14, "x = {x}: {out:?} vs {d:?}");
        assert_eq!(out[0].feature, 0, "the region's key on both sides of the fold");
        out.clear();
        sphere_mesh(&sharp, DVec3::ZERO, DQuat::IDENTITY, c, r, 0.0, &mut out);
        assert_eq!(out.len(), 2, "x = {x}: {out:?}");
    }
}

#[test]
fn a_bead_settles_in_a_v_groove_where_its_two_contact_forces_balance_its_weight() {
    // A 90° groove z = |x| (slopes of 45°) placed with its fold along y, a bead of 1 cm
    // (2500 kg/m³) on linear springs k = 1e4 N/m with damping (e = 0.2), frictionless.
    // At rest each side pushes k δ along its normal (∓ sin 45°, 0, cos 45°): 2 k δ cos 45°
    // = m g, δ = m g / (√2 k), and the centre is (r − δ) / cos 45° above the fold.
    let slope = 45f64.to_radians();
    let groove = fold(slope, 6, &MeshOptions::default());
    let material = Material { restitution: 0.2, friction: 0.0, ..Material::default() };
    let g = 9.81;
    let mut w = world(DVec3::new(0.0, 0.0, -g), material);
    w.insert(MeshWallBuilder::new(groove, DVec3::ZERO).build().unwrap()).unwrap();
    let r = 0.01;
    let h = w.insert(SphereBuilder::new(r, DVec3::new(0.004, 0.1, 0.02)).build().unwrap()).unwrap();
    let k = 1e4;
    let law = Composed::new(
        LinearSpring::new(k).unwrap(),
        LinearViscous::new(DampingCoefficient::FromRestitution(None)).unwrap(),
        NoFriction,
    );
    let config = MdConfig { skin: 1e-3, threads: Some(1), ..Default::default() };
    let mut solver = MdSolver::new(law, VelocityVerlet::new(), BruteForce, config).unwrap();
    let mut report = None;
    // t_c = π √(m/k) ≈ 3 ms; 0.5 s is some 150 contact times, many damping times.
    for _ in 0..50_000 {
        report = Some(w.step(&mut solver, 1e-5).unwrap());
    }
    let i = w.bodies.index(h).unwrap();
    let m = w.bodies.mass[i];
    let delta = m * g / (2f64.sqrt() * k);
    let want = (r - delta) / slope.cos();
    let x = w.bodies.position[i];
    assert_eq!(report.unwrap().contacts, 2, "one contact per side");
    // Damping ratio 0.46 at ω = √(k/m) ≈ 980 rad/s: after 0.5 s the motion has decayed by
    // e^-220, so the bead is at its equilibrium to round-off (1e-18 m at z ≈ 0.014 m); 1e-12 m
    // is 1e-7 of the 7.3e-6 m overlap, far below any error the rule could make (a ghost
    // contact or a missing side would move it by δ or more).
    assert!((x.z - want).abs() < 1e-12, "z = {} vs {want}", x.z);
    assert!(x.x.abs() < 1e-12, "centred over the fold: x = {}", x.x);
}

/// The closed cube [0, 1]³ as 12 triangles, each face split along a diagonal.
fn cube() -> granula_mesh::TriangleMesh {
    let v: Vec<DVec3> =
        (0..8).map(|i| DVec3::new((i & 1) as f64, ((i >> 1) & 1) as f64, ((i >> 2) & 1) as f64)).collect();
    let quads = [[0, 1, 3, 2], [4, 6, 7, 5], [0, 4, 5, 1], [2, 3, 7, 6], [0, 2, 6, 4], [1, 5, 7, 3]];
    let triangles = quads.iter().flat_map(|q| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]]).collect();
    granula_mesh::TriangleMesh::new(v, triangles, &MeshOptions::default()).unwrap()
}

#[test]
fn a_sphere_at_a_corner_of_a_closed_box_touches_the_corner_outside_and_three_faces_inside() {
    let cube = cube();
    assert_eq!((cube.region_count(), cube.edge_count()), (6, 18));
    let r = 0.1;
    let mut out = Vec::new();
    // Outside, past the corner (1, 1, 1) along (1, 2, 3): one vertex contact.
    let dir = DVec3::new(1.0, 2.0, 3.0).normalize();
    let c = DVec3::ONE + dir * 0.09;
    sphere_mesh(&cube, DVec3::ZERO, DQuat::IDENTITY, c, r, 0.0, &mut out);
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(kind(out[0].feature), 3);
    // The centre's coordinates, near 1, are rounded to an ulp (2.2e-16) of the 0.09 offset
    // from the corner: 2.5e-15 of the normal's direction; 1e-14.
    assert!((out[0].normal - dir).length() < 1e-14 && (out[0].gap + 0.01).abs() < 1e-15, "{:?}", out[0]);
    // Outside, over the edge x = y = 1: one edge contact, normal (1, 1, 0)/√2.
    out.clear();
    let c = DVec3::new(1.05, 1.05, 0.4);
    sphere_mesh(&cube, DVec3::ZERO, DQuat::IDENTITY, c, r, 0.0, &mut out);
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(kind(out[0].feature), 2);
    assert!((out[0].gap - (0.05 * 2f64.sqrt() - r)).abs() < 1e-15, "{:?}", out[0]);
    // Inside, in the corner (0, 0, 0) (a concave corner): the three faces, each at its
    // distance, normals into the box.
    out.clear();
    let c = DVec3::new(0.06, 0.07, 0.08);
    sphere_mesh(&cube, DVec3::ZERO, DQuat::IDENTITY, c, r, 0.0, &mut out);
    out.sort_by(|a, b| a.gap.total_cmp(&b.gap));
    assert_eq!(out.len(), 3, "{out:?}");
    for (g, (n, d)) in out.iter().zip([(DVec3::X, 0.06), (DVec3::Y, 0.07), (DVec3::Z, 0.08)]) {
        assert_eq!(kind(g.feature), 0, "a face's region");
        assert!((g.normal - n).length() < 1e-15 && (g.gap - (d - r)).abs() < 1e-15, "{g:?}");
    }
}
