//! The overlap geometry of 002 Fig. 1 against hand-computed cases, Monte Carlo
//! estimates, and the symmetry under swapping the bodies.

use glam::DVec2;
use granula_polygons::{disc_disc, disc_polygon, half_plane_polygon, polygon_polygon};
use granula_polygons::{shapes, ConvexPolygon, Overlap2, OverlapScratch, Pose2};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn v(x: f64, y: f64) -> DVec2 {
    DVec2::new(x, y)
}

/// Area and centroid of the overlap by sampling a grid of `n` × `n` cell centres over the
/// box `lo..hi`, counting the points inside both bodies.
fn grid_estimate(lo: DVec2, hi: DVec2, n: usize, inside: impl Fn(DVec2) -> bool) -> (f64, DVec2) {
    let cell = (hi - lo) / n as f64;
    let (mut count, mut sum) = (0usize, DVec2::ZERO);
    for i in 0..n {
        for j in 0..n {
            let p = lo + cell * v(i as f64 + 0.5, j as f64 + 0.5);
            if inside(p) {
                count += 1;
                sum += p;
            }
        }
    }
    (count as f64 * cell.x * cell.y, sum / count.max(1) as f64)
}

fn inside_polygon(poly: &ConvexPolygon, pose: &Pose2, p: DVec2) -> bool {
    poly.contains(pose.to_body(p))
}

#[test]
fn squares_overlapping_by_a_corner() {
    let square = shapes::rectangle(1.0, 1.0).unwrap();
    let (a, b) = (Pose2::new(v(0.5, 0.5), 0.0), Pose2::new(v(1.0, 0.75), 0.0));
    let o = polygon_polygon(&square, &a, &square, &b, &mut OverlapScratch::default()).unwrap();
    // The 0.5 × 0.75 rectangle [0.5, 1] × [0.25, 1]; dyadic numbers, so exact.
    assert_eq!(o.area, 0.375);
    assert!((o.centroid - v(0.75, 0.625)).length() < 1e-15);
    let [p, q] = o.chord.unwrap();
    let ends = [v(1.0, 0.25), v(0.5, 1.0)];
    assert!(ends.iter().all(|e| (*e - p).length() < 1e-15 || (*e - q).length() < 1e-15));
    // Normal ⊥ chord, (0.75, 0.5)/|·|, towards b.
    assert!((o.normal - v(0.75, 0.5).normalize()).length() < 1e-15);
}

#[test]
fn squares_overlapping_by_an_edge_and_one_inside_the_other() {
    let big = shapes::rectangle(1.0, 1.0).unwrap();
    let bar = shapes::rectangle(1.0, 0.6).unwrap();
    // The bar's left side 0.01 inside the square's right side: a 0.01 × 0.6 strip,
    // outlines crossing at (1, 0.2) and (1, 0.8): normal +x.
    let (a, b) = (Pose2::new(v(0.5, 0.5), 0.0), Pose2::new(v(1.49, 0.5), 0.0));
    let o = polygon_polygon(&big, &a, &bar, &b, &mut OverlapScratch::default()).unwrap();
    // Round-off of 1.49 − 0.5 in binary: 1e-15 relative to the strip's width.
    assert!((o.area - 0.006).abs() < 1e-15);
    assert!((o.centroid - v(0.995, 0.5)).length() < 1e-14);
    assert!((o.normal - DVec2::X).length() < 1e-15);
    // A small square well inside: the overlap is the small square; no crossing, so the
    // normal is along the line of centres.
    let small = shapes::rectangle(0.2, 0.2).unwrap();
    let inner = Pose2::new(v(0.6, 0.4), 0.3);
    let o = polygon_polygon(&big, &a, &small, &inner, &mut OverlapScratch::default()).unwrap();
    assert!((o.area - 0.04).abs() < 1e-15);
    assert!((o.centroid - inner.position).length() < 1e-15);
    assert!(o.chord.is_none());
    assert!((o.normal - v(0.1, -0.1).normalize()).length() < 1e-15);
    // Apart: none.
    let far = Pose2::new(v(1.61, 0.5), 0.0);
    assert!(polygon_polygon(&big, &a, &bar, &far, &mut OverlapScratch::default()).is_none());
}

#[test]
fn a_turned_square_pressing_its_corner_into_a_face() {
    // A square turned 45° with its lowest corner 0.1 below the top face y = 0.5 of a
    // unit square: a right isosceles triangle of height h = 0.1, area h², centroid h/3
    // below the face, normal +y.
    let square = shapes::rectangle(1.0, 1.0).unwrap();
    let a = Pose2::new(DVec2::ZERO, 0.0);
    let half_diagonal = 0.5 * 2f64.sqrt();
    let b = Pose2::new(v(0.1, 0.5 - 0.1 + half_diagonal), std::f64::consts::FRAC_PI_4);
    let o = polygon_polygon(&square, &a, &square, &b, &mut OverlapScratch::default()).unwrap();
    // Trigonometric round-off of the turned vertices: 1e-14 relative.
    assert!((o.area - 0.01).abs() < 1e-15);
    assert!((o.centroid - v(0.1, 0.5 - 0.1 / 3.0)).length() < 1e-14);
    assert!((o.normal - DVec2::Y).length() < 1e-14);
}

#[test]
fn random_pairs_match_sampling_and_swap_symmetrically() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut scratch = OverlapScratch::default();
    let mut tested = 0;
    for seed in 0..60u64 {
        let a = shapes::random_convex(3 + (seed as usize % 8), 1.0, 1.3, seed).unwrap();
        let b = shapes::random_convex(4 + (seed as usize % 5), 0.8, 1.0, seed + 1000).unwrap();
        let pa = Pose2::new(DVec2::ZERO, rng.random::<f64>() * 6.3);
        let dir = rng.random::<f64>() * 6.3;
        let pb = Pose2::new(v(dir.cos(), dir.sin()) * rng.random_range(0.3..1.4), rng.random::<f64>() * 6.3);
        let Some(o) = polygon_polygon(&a, &pa, &b, &pb, &mut scratch) else { continue };
        let s = polygon_polygon(&b, &pb, &a, &pa, &mut scratch).expect("overlap not symmetric");
        // Swapping the bodies gives the same region (a different clipping order: round-off)
        // and the opposite normal.
        assert!((o.area - s.area).abs() < 1e-12, "seed {seed}");
        assert!((o.centroid - s.centroid).length() < 1e-12, "seed {seed}");
        assert!((o.normal + s.normal).length() < 1e-12, "seed {seed}");
        // The grid of 600² points over the box of both bodies: each boundary cell is
        // counted wrongly at most half, so the area error is below ~ perimeter × cell,
        // about 4 × 2.6/600 ≈ 2e-2 absolute at worst; the centroid error likewise about
        // 1e-2 of the size. Tolerances 2e-2 of the area (plus 1e-3) and 1.5e-2.
        let (lo, hi) = (v(-1.4, -1.4), v(2.8, 2.8));
        let lo = lo.min(pb.position - 1.1);
        let (area, centroid) = grid_estimate(lo, hi, 600, |p| inside_polygon(&a, &pa, p) && inside_polygon(&b, &pb, p));
        assert!((o.area - area).abs() < 2e-2 * o.area + 1e-3, "seed {seed}: {} vs {area}", o.area);
        if o.area > 0.02 {
            assert!((o.centroid - centroid).length() < 1.5e-2, "seed {seed}");
        }
        tested += 1;
    }
    assert!(tested > 20, "too few overlapping pairs: {tested}");
}

#[test]
fn a_wall_cuts_the_polygon_below_its_line() {
    let square = shapes::rectangle(0.2, 0.2).unwrap();
    // Floor y = 0, square centred 0.09 above it, turned 0: a 0.2 × 0.01 strip.
    let pose = Pose2::new(v(0.3, 0.09), 0.0);
    let o = half_plane_polygon(DVec2::ZERO, DVec2::Y, &square, &pose, &mut OverlapScratch::default()).unwrap();
    assert!((o.area - 0.002).abs() < 1e-15);
    assert!((o.centroid - v(0.3, -0.005)).length() < 1e-15);
    assert_eq!(o.normal, DVec2::Y);
    let [p, q] = o.chord.unwrap();
    assert!((p.y).abs() < 1e-17 && (q.y).abs() < 1e-17 && ((p - q).length() - 0.2).abs() < 1e-15);
    assert!(half_plane_polygon(
        DVec2::ZERO,
        DVec2::Y,
        &square,
        &Pose2::new(v(0.0, 0.2), 0.0),
        &mut OverlapScratch::default()
    )
    .is_none());
}

#[test]
fn disc_overlaps_are_exact() {
    let mut scratch = OverlapScratch::default();
    let square = shapes::rectangle(1.0, 1.0).unwrap();
    let pose = Pose2::new(DVec2::ZERO, 0.0);
    let r = 0.1;
    // Centre on the right side: half the disc, centroid 4r/(3π) inside, normal −x (from
    // the disc towards the square's centre).
    let o = disc_polygon(v(0.5, 0.1), r, &square, &pose, &mut scratch).unwrap();
    let half = 0.5 * std::f64::consts::PI * r * r;
    assert!((o.area - half).abs() < 1e-15);
    assert!((o.centroid - v(0.5 - 4.0 * r / (3.0 * std::f64::consts::PI), 0.1)).length() < 1e-15);
    assert!((o.normal + DVec2::X).length() < 1e-15);
    // Centre inside, away from the sides: the whole disc.
    let o = disc_polygon(v(0.1, -0.2), r, &square, &pose, &mut scratch).unwrap();
    assert!((o.area - 2.0 * half).abs() < 1e-15 && (o.centroid - v(0.1, -0.2)).length() < 1e-15);
    // Centre near a corner, random cases: against sampling (cell 2.2r/800: tolerance 1e-2
    // of the area, 1e-2 r for the centroid).
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let tri = shapes::random_convex(5, 0.3, 1.5, 11).unwrap();
    for _ in 0..20 {
        let tpose = Pose2::new(DVec2::ZERO, rng.random::<f64>() * 6.3);
        let c = v(rng.random_range(-0.5..0.5), rng.random_range(-0.4..0.4));
        let Some(o) = disc_polygon(c, r, &tri, &tpose, &mut scratch) else { continue };
        let (area, centroid) =
            grid_estimate(c - 1.1 * r, c + 1.1 * r, 800, |p| (p - c).length() <= r && inside_polygon(&tri, &tpose, p));
        assert!((o.area - area).abs() < 1e-2 * std::f64::consts::PI * r * r, "{} vs {area}", o.area);
        if o.area > 0.05 * r * r {
            assert!((o.centroid - centroid).length() < 1e-2 * r);
        }
    }
    // The lens of equal discs at distance d: 2r² acos(d/2r) − (d/2) √(4r² − d²).
    let d = 0.15;
    let o = disc_disc(DVec2::ZERO, r, v(d, 0.0), r).unwrap();
    let lens = 2.0 * r * r * (d / (2.0 * r)).acos() - 0.5 * d * (4.0 * r * r - d * d).sqrt();
    assert!((o.area - lens).abs() < 1e-16);
    assert!((o.centroid - v(0.5 * d, 0.0)).length() < 1e-16);
    assert_eq!(o.normal, DVec2::X);
    // Unequal discs: against the disc–polygon path with a 4096-gon (polygon area error
    // O(1/n²) ≈ 4e-7 relative).
    let fine = shapes::regular(4096, 0.06).unwrap();
    let o = disc_disc(DVec2::ZERO, r, v(0.13, 0.0), 0.06).unwrap();
    let p = disc_polygon(DVec2::ZERO, r, &fine, &Pose2::new(v(0.13, 0.0), 0.0), &mut scratch).unwrap();
    assert!((o.area - p.area).abs() < 2e-6 * o.area, "{} vs {}", o.area, p.area);
    assert!((o.centroid - p.centroid).length() < 1e-6 * r);
    // Apart (d = 0.3 > 2r): none.
    let apart: Option<Overlap2> = disc_disc(DVec2::ZERO, r, v(0.3, 0.0), r);
    assert!(apart.is_none());
}
