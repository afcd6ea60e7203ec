//! The outline checks and the exact mass properties of polygons.

use glam::DVec2;
use granula_polygons::{shapes, ConvexPolygon, PolygonError};

fn v(x: f64, y: f64) -> DVec2 {
    DVec2::new(x, y)
}

#[test]
fn bad_outlines_are_named_errors() {
    let two = [v(0.0, 0.0), v(1.0, 0.0)];
    assert_eq!(ConvexPolygon::from_vertices(&two).unwrap_err(), PolygonError::TooFewVertices { count: 2 });
    let nan = [v(0.0, 0.0), v(1.0, 0.0), v(f64::NAN, 1.0)];
    assert_eq!(ConvexPolygon::from_vertices(&nan).unwrap_err(), PolygonError::NonFiniteVertex { vertex: 2 });
    let duplicate = [v(0.0, 0.0), v(1.0, 0.0), v(1.0, 0.0), v(0.0, 1.0)];
    assert_eq!(ConvexPolygon::from_vertices(&duplicate).unwrap_err(), PolygonError::DuplicateVertex { vertex: 2 });
    // An arrowhead: the reflex vertex is index 2.
    let arrow = [v(0.0, 0.0), v(2.0, 1.0), v(1.0, 1.0), v(2.0, 2.0)];
    match ConvexPolygon::from_vertices(&arrow).unwrap_err() {
        PolygonError::NotConvex { vertex, .. } => assert!(vertex == 1 || vertex == 2 || vertex == 3),
        other => panic!("expected NotConvex, got {other:?}"),
    }
    // A vertex on a straight edge (index 1) is not strictly convex.
    let straight = [v(0.0, 0.0), v(0.5, 0.0), v(1.0, 0.0), v(0.0, 1.0)];
    match ConvexPolygon::from_vertices(&straight).unwrap_err() {
        PolygonError::NotConvex { vertex, .. } => assert_eq!(vertex, 1),
        other => panic!("expected NotConvex, got {other:?}"),
    }
    // All collinear: no area, every vertex fails; the first is named.
    let flat = [v(0.0, 0.0), v(1.0, 0.0), v(2.0, 0.0)];
    assert!(matches!(ConvexPolygon::from_vertices(&flat).unwrap_err(), PolygonError::NotConvex { vertex: 0, .. }));
    // A pentagram turns left at every vertex but winds twice.
    let star: Vec<DVec2> = (0..5)
        .map(|k| {
            let a = std::f64::consts::TAU * (2 * k) as f64 / 5.0;
            v(a.cos(), a.sin())
        })
        .collect();
    assert_eq!(ConvexPolygon::from_vertices(&star).unwrap_err(), PolygonError::SelfIntersecting { turns: 2 });
    assert!(matches!(shapes::regular(2, 1.0), Err(PolygonError::TooFewVertices { count: 2 })));
    assert!(matches!(shapes::rectangle(-1.0, 1.0), Err(PolygonError::BadParameter { name: "width", .. })));
    assert!(matches!(
        shapes::random_convex(6, 1.0, 0.5, 1),
        Err(PolygonError::BadParameter { name: "elongation", .. })
    ));
}

#[test]
fn clockwise_input_is_reversed_and_centred() {
    let clockwise = [v(1.0, 1.0), v(3.0, 1.0), v(3.0, 0.0), v(1.0, 0.0)];
    let (p, centroid) = ConvexPolygon::from_vertices(&clockwise).unwrap();
    // A 2 × 1 rectangle centred at (2, 0.5); exact in binary.
    assert_eq!(centroid, v(2.0, 0.5));
    assert_eq!(p.area(), 2.0);
    let vs = p.vertices();
    for i in 0..vs.len() {
        let (a, b, c) = (vs[i], vs[(i + 1) % vs.len()], vs[(i + 2) % vs.len()]);
        assert!((b - a).perp_dot(c - b) > 0.0, "not counter-clockwise at {i}");
    }
}

#[test]
fn mass_properties_are_exact() {
    // Rectangle a × b: J = A (a² + b²)/12. Round-off only: 1e-15 relative.
    let r = shapes::rectangle(2.0, 0.5).unwrap();
    assert!((r.area() - 1.0).abs() < 1e-15);
    assert!((r.polar_second_moment() - (4.0 + 0.25) / 12.0).abs() < 1e-15);
    assert!((r.moment_of_inertia(3.0) - 3.0 * 4.25 / 12.0).abs() < 1e-14);
    // Right triangle with legs 3 and 6 at the origin: centroid (1, 2), area 9,
    // J about the centroid = A (a² + b²)/18 for a right triangle with legs a, b.
    let (t, centroid) = ConvexPolygon::from_vertices(&[v(0.0, 0.0), v(3.0, 0.0), v(0.0, 6.0)]).unwrap();
    assert!((centroid - v(1.0, 2.0)).length() < 1e-15);
    assert!((t.area() - 9.0).abs() < 1e-14);
    assert!((t.polar_second_moment() - 9.0 * 45.0 / 18.0).abs() < 1e-13);
    // Regular n-gon of circumradius R: A = n R² sin(2π/n)/2, J = A R² (2 + cos(2π/n))/6.
    for n in [3, 5, 6, 12, 64] {
        let p = shapes::regular(n, 0.7).unwrap();
        let phi = std::f64::consts::TAU / n as f64;
        let area = 0.5 * n as f64 * 0.49 * phi.sin();
        assert!((p.area() - area).abs() < 1e-14 * area, "n = {n}");
        let j = area * 0.49 * (2.0 + phi.cos()) / 6.0;
        assert!((p.polar_second_moment() - j).abs() < 1e-13 * j, "n = {n}");
        assert!((p.circumradius() - 0.7).abs() < 1e-15);
    }
    // A disc's limit: J → A R²/2 as n grows (error O(1/n²): 2e-4 at n = 256).
    let fine = shapes::regular(256, 1.0).unwrap();
    assert!((fine.polar_second_moment() / (fine.area() * 0.5) - 1.0).abs() < 2e-4);
    assert!((fine.equivalent_radius() - 1.0).abs() < 1e-4);
}

#[test]
fn random_polygons_are_convex_reproducible_and_centred() {
    for seed in 0..200 {
        let p = shapes::random_convex(3 + (seed as usize % 10), 0.01, 1.0 + (seed % 3) as f64 * 0.5, seed).unwrap();
        let q = shapes::random_convex(3 + (seed as usize % 10), 0.01, 1.0 + (seed % 3) as f64 * 0.5, seed).unwrap();
        assert_eq!(p, q, "seed {seed} not reproducible");
        // Rebuilding from its own outline passes the checks and leaves the centroid at
        // the origin (to round-off of coordinates of size 0.01).
        let (again, centroid) = ConvexPolygon::from_vertices(p.vertices()).unwrap();
        assert!(centroid.length() < 1e-17, "seed {seed}: centroid {centroid}");
        assert!((again.area() - p.area()).abs() < 1e-15 * p.area().max(1e-4));
        assert!(p.contains(DVec2::ZERO));
    }
}
