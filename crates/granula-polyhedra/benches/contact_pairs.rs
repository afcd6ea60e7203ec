//! Timing printout (not asserted): cost of the polyhedron–polyhedron contact generation,
//! general path (ray parity over the face hierarchy, 003 §4) against the convex fast path
//! (face planes), for random convex pairs of about 20 faces and for fine icospheres; and
//! the hierarchy against a brute-force ray cast over all faces.
//!
//! Run: `cargo bench -p granula-polyhedra --bench contact_pairs`.

use glam::{DQuat, DVec3};
use granula_polyhedra::classify;
use granula_polyhedra::contact::{plane_polyhedron, polyhedron_polyhedron_with, Method};
use granula_polyhedra::convex_overlap;
use granula_polyhedra::{shapes, Polyhedron, Pose};
use std::hint::black_box;
use std::time::Instant;

/// SplitMix64 in [0, 1), so the bench needs no generator crate.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }

    fn unit(&mut self) -> DVec3 {
        let z = 2.0 * self.next() - 1.0;
        let phi = 2.0 * std::f64::consts::PI * self.next();
        let s = (1.0 - z * z).sqrt();
        DVec3::new(s * phi.cos(), s * phi.sin(), z)
    }

    fn rotation(&mut self) -> DQuat {
        DQuat::from_axis_angle(self.unit(), 2.0 * std::f64::consts::PI * self.next())
    }
}

struct Case {
    a: Polyhedron,
    b: Polyhedron,
    pa: Pose,
    pb: Pose,
}

/// Pairs along random directions at random orientations, placed so that they overlap by
/// `overlap` times the smaller equivalent radius (negative: apart by that much): the
/// touching distance is found by stepping in from the sum of the bounding radii.
fn cases(make: impl Fn(u64) -> Polyhedron, n: usize, overlap: f64) -> Vec<Case> {
    let mut rng = Rng(42);
    let mut out = Vec::new();
    (0..n as u64)
        .map(|k| {
            let (a, b) = (make(2 * k), make(2 * k + 1));
            let pa = Pose::new(DVec3::ZERO, rng.rotation());
            let (u, qb) = (rng.unit(), rng.rotation());
            let r = a.equivalent_radius().min(b.equivalent_radius());
            let mut d = a.bounding_radius() + b.bounding_radius();
            loop {
                out.clear();
                let pb = Pose::new(u * d, qb);
                if polyhedron_polyhedron_with(Method::General, &a, &pa, &b, &pb, 0.0, &mut out) > 0 {
                    break;
                }
                d -= 1e-3 * r;
            }
            let pb = Pose::new(u * (d - overlap * r), qb);
            Case { a, b, pa, pb }
        })
        .collect()
}

/// ns per pair and contact points per pair, best of 5 rounds.
fn time_pairs(method: Method, cases: &[Case], rounds: usize) -> (f64, f64) {
    let mut out = Vec::with_capacity(64);
    let mut best = f64::INFINITY;
    let mut points = 0usize;
    for _ in 0..5 {
        points = 0;
        let t = Instant::now();
        for _ in 0..rounds {
            for c in cases {
                out.clear();
                points += polyhedron_polyhedron_with(method, &c.a, &c.pa, &c.b, &c.pb, 0.0, &mut out);
                black_box(&out);
            }
        }
        best = best.min(t.elapsed().as_secs_f64());
    }
    let n = (rounds * cases.len()) as f64;
    (best * 1e9 / n, points as f64 / n)
}

/// Ray parity over every face, no hierarchy: the cost the hierarchy saves. One fixed
/// direction (the bench's points are random, a hit on an edge has probability zero);
/// Möller-Trumbore for each face.
fn brute_force_inside(p: &Polyhedron, x: DVec3) -> bool {
    let d = DVec3::new(0.5477, 0.3162, 0.7746).normalize();
    let crossings = (0..p.faces().len() as u32)
        .filter(|&f| {
            let [a, b, c] = p.triangle(f);
            let (e1, e2) = (b - a, c - a);
            let h = d.cross(e2);
            let det = e1.dot(h);
            if det.abs() < 1e-300 {
                return false;
            }
            let s = (x - a) / det;
            let u = s.dot(h);
            let q = s.cross(e1);
            let v = d.dot(q);
            u >= 0.0 && v >= 0.0 && u + v <= 1.0 && e2.dot(q) > 0.0
        })
        .count();
    crossings % 2 == 1
}

/// CPU time of this process (user + system, s) from `/proc/self/stat`, NaN where that
/// file does not exist.
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else { return f64::NAN };
    let Some(rest) = stat.rsplit(')').next() else { return f64::NAN };
    let f: Vec<&str> = rest.split_whitespace().collect();
    let tick = |k: usize| f.get(k).and_then(|v| v.parse::<f64>().ok()).unwrap_or(f64::NAN);
    (tick(11) + tick(12)) / 100.0
}

/// Overlap volume of pairs like YADE's random polyhedra (hulls of 36 points, about 48
/// faces), at 2 % and 10 % of the radius: CPU ns per pair, median of five rounds.
fn overlap_volume_timings() {
    for overlap in [0.02, 0.1] {
        let set = cases(|k| shapes::random_convex(36, 0.01, k).unwrap(), 500, overlap);
        let faces = set.iter().map(|c| c.a.faces().len() as f64).sum::<f64>() / set.len() as f64;
        let mut rounds: Vec<f64> = (0..5)
            .map(|_| {
                let (cpu, mut volume) = (cpu_seconds(), 0.0);
                for _ in 0..100 {
                    for c in &set {
                        volume += convex_overlap(&c.a, &c.pa, &c.b, &c.pb).map_or(0.0, |o| o.volume);
                    }
                }
                black_box(volume);
                (cpu_seconds() - cpu) * 1e9 / (100 * set.len()) as f64
            })
            .collect();
        rounds.sort_by(f64::total_cmp);
        println!(
            "overlap volume, {faces:.1}-face hulls, overlap {:.0} % of r: {:.0} CPU ns per pair (rounds {:.0?})",
            overlap * 100.0,
            rounds[2],
            rounds
        );
    }
}

fn main() {
    // `cargo bench ... -- volume` times the overlap volume only.
    if std::env::args().any(|a| a == "volume") {
        overlap_volume_timings();
        return;
    }
    let small: Vec<(&str, Vec<Case>)> = vec![
        ("overlap 1 %", cases(|k| shapes::random_convex(12, 0.01, k).unwrap(), 1000, 0.01)),
        (
            "apart by 1 % (bounding spheres overlap)",
            cases(|k| shapes::random_convex(12, 0.01, k).unwrap(), 1000, -0.01),
        ),
    ];
    let faces: f64 = small[0].1.iter().map(|c| c.a.faces().len() as f64).sum::<f64>() / 1000.0;
    let blocks = cases(|_| shapes::l_block(0.01).unwrap(), 1000, 0.01);
    println!("L-block pairs (non-convex, {} faces), 1000 poses, overlap 1 %:", blocks[0].a.faces().len());
    let (ns, pts) = time_pairs(Method::General, &blocks, 10);
    println!("  General: {ns:8.0} ns per pair, {pts:.2} contact points per pair");

    // `cargo bench ... -- pairs` runs the small-pair timings only, `-- convex` only their
    // convex path (for a profiler).
    let convex_only = std::env::args().any(|a| a == "convex");
    let only_pairs = convex_only || std::env::args().any(|a| a == "pairs");
    for (what, set) in &small {
        println!("random convex pairs ({faces:.1} faces on average), 1000 poses, {what}:");
        let methods: &[Method] = if convex_only { &[Method::Convex] } else { &[Method::General, Method::Convex] };
        for &method in methods {
            let (ns, pts) = time_pairs(method, set, 10);
            println!("  {method:?}: {ns:8.0} ns per pair, {pts:.2} contact points per pair");
        }
    }
    let set = &small[0].1;
    let t = Instant::now();
    let mut volume = 0.0;
    for _ in 0..10 {
        for c in set {
            volume += convex_overlap(&c.a, &c.pa, &c.b, &c.pb).map_or(0.0, |o| o.volume);
        }
    }
    let ns = t.elapsed().as_secs_f64() * 1e9 / (10 * set.len()) as f64;
    println!("  overlap volume (convex_overlap) of the same pairs: {ns:8.0} ns per pair");
    black_box(volume);

    if only_pairs {
        return;
    }

    for sub in [2u32, 3] {
        let fine = cases(|_| shapes::icosphere(0.01, sub).unwrap(), 50, 0.01);
        println!("icosphere pairs ({} faces each), 50 poses, overlap 1 %:", fine[0].a.faces().len());
        for method in [Method::General, Method::Convex] {
            let (ns, pts) = time_pairs(method, &fine, 4);
            println!("  {method:?}: {ns:10.0} ns per pair, {pts:.1} contact points per pair");
        }
    }

    let mut rng = Rng(7);
    for sub in [1u32, 2, 3, 4] {
        let p = shapes::icosphere(1.0, sub).unwrap();
        let pts: Vec<DVec3> = (0..2000).map(|_| rng.unit() * (0.2 + 0.85 * rng.next())).collect();
        let t = Instant::now();
        let bvh_inside = pts.iter().filter(|x| classify(&p, **x) == granula_polyhedra::PointClass::Inside).count();
        let t_bvh = t.elapsed().as_secs_f64() * 1e9 / pts.len() as f64;
        let t = Instant::now();
        let brute_inside = pts.iter().filter(|x| brute_force_inside(&p, **x)).count();
        let t_brute = t.elapsed().as_secs_f64() * 1e9 / pts.len() as f64;
        println!(
            "point in icosphere of {:5} faces: hierarchy {t_bvh:7.0} ns, all faces {t_brute:8.0} ns per point ({bvh_inside} / {brute_inside} inside)",
            p.faces().len()
        );
    }

    let body = shapes::random_convex(12, 0.01, 1).unwrap();
    let pose = Pose::new(DVec3::new(0.0, 0.0, 0.006), DQuat::from_rotation_x(0.4));
    let mut out = Vec::new();
    let t = Instant::now();
    let reps = 200_000;
    for _ in 0..reps {
        out.clear();
        plane_polyhedron(DVec3::ZERO, DVec3::Z, &body, black_box(&pose), 0.0, &mut out);
    }
    let ns = t.elapsed().as_secs_f64() * 1e9 / reps as f64;
    println!("plane against a {}-vertex polyhedron: {ns:.0} ns ({} points)", body.vertices().len(), out.len());
}
