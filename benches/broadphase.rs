//! G2: cost of one broadphase update, N = 10³, 10⁴, 10⁵, monodisperse and polydisperse
//! (radius ratio 1:4), for each backend (brute force up to 10⁴ only), plus the cost of a
//! skin-layer update that does not rebuild.
//!
//! Scene: spheres with centres uniform in a cube, solid fraction 0.5 counting overlaps
//! (about 8 box neighbours per sphere, as in a dense packing), and the five walls of the
//! "dense" benchmark box (floor and four sides: unbounded boxes). One update = the boxes
//! after every sphere moved by up to 0.1 % of its radius per axis: one step of the "dense"
//! scenario (Δt = 5 µs, r = 0.5 mm) at 0.1 m/s, a brisk dense flow. Two such
//! configurations alternate, so the incremental sweep and prune really re-sorts at each
//! call (linked cells do not depend on the motion). Run: `cargo bench --bench broadphase`.
//!
//! `sweep_and_prune_threads` times the same backend between two configurations 10 % of a
//! radius apart (the motion between two rebuilds under a skin of a fifth of the radius:
//! many swaps per body), on the calling thread (`parallel::sequential`) and on a pool of two
//! threads, where the three axes are sorted side by side.

use criterion::{BenchmarkId, Criterion, Throughput};
use granula::broadphase::{BruteForce, LinkedCells, SweepAndPrune, VerletPairs};
use granula::core::{parallel, Aabb, Broadphase, DQuat, DVec3, Shape};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::time::Duration;

/// Two nearly identical configurations of `n` spheres (radius ratio `ratio`) and 5 walls.
fn scene(n: usize, ratio: f64, seed: u64) -> (Vec<Aabb>, Vec<Aabb>, Vec<bool>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let r0 = 5e-4;
    let radii: Vec<f64> = (0..n).map(|_| r0 * rng.random_range(1.0..=ratio)).collect();
    let volume: f64 = radii.iter().map(|r| 4.0 / 3.0 * std::f64::consts::PI * r * r * r).sum();
    let side = (volume / 0.5).cbrt();
    let mut a = Vec::with_capacity(n + 5);
    let mut b = Vec::with_capacity(n + 5);
    for &r in &radii {
        let c = DVec3::new(rng.random_range(0.0..side), rng.random_range(0.0..side), rng.random_range(0.0..side));
        let d = DVec3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
        a.push(Aabb::around(c, DVec3::splat(r)));
        b.push(Aabb::around(c + 1e-3 * r * d, DVec3::splat(r)));
    }
    let walls = [
        (DVec3::ZERO, DVec3::Z),
        (DVec3::ZERO, DVec3::X),
        (DVec3::ZERO, DVec3::Y),
        (DVec3::splat(side), -DVec3::X),
        (DVec3::splat(side), -DVec3::Y),
    ];
    for (p, normal) in walls {
        let w = Shape::Plane { normal }.aabb(p, DQuat::IDENTITY);
        a.push(w);
        b.push(w);
    }
    let mut skip = vec![false; n];
    skip.extend([true; 5]);
    (a, b, skip)
}

fn bench_backend<B: Broadphase>(c: &mut Criterion, group: &str, mut backend: B, sizes: &[usize], ratio: f64) {
    let mut g = c.benchmark_group(group);
    g.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    for &n in sizes {
        let (a, b, skip) = scene(n, ratio, 42);
        let mut pairs = Vec::new();
        let mut flip = false;
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |bench, _| {
            bench.iter(|| {
                flip = !flip;
                backend.find_pairs(if flip { &a } else { &b }, &skip, &mut pairs);
                pairs.len()
            })
        });
    }
    g.finish();
}

fn bench_threads(c: &mut Criterion, sizes: &[usize]) {
    let mut g = c.benchmark_group("sweep_and_prune_threads/mono");
    g.sample_size(20).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().expect("a pool of two threads");
    for &n in sizes {
        let (a, _, skip) = scene(n, 1.0, 42);
        // The second configuration: every sphere moved by up to 10 % of its radius per axis.
        let mut rng = ChaCha8Rng::seed_from_u64(43);
        let b: Vec<Aabb> = a
            .iter()
            .zip(&skip)
            .map(|(bx, &wall)| {
                if wall {
                    return *bx;
                }
                let r = 0.5 * (bx.max.x - bx.min.x);
                let d = 0.1
                    * r
                    * DVec3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
                Aabb { min: bx.min + d, max: bx.max + d }
            })
            .collect();
        g.throughput(Throughput::Elements(n as u64));
        for (label, threads) in [("1 thread", 1), ("2 threads", 2)] {
            let mut sap = SweepAndPrune::new();
            let mut pairs = Vec::new();
            let mut flip = false;
            g.bench_with_input(BenchmarkId::new(label, n), &n, |bench, _| {
                bench.iter(|| {
                    flip = !flip;
                    let boxes = if flip { &a } else { &b };
                    if threads == 1 {
                        parallel::sequential(|| sap.find_pairs(boxes, &skip, &mut pairs));
                    } else {
                        pool.install(|| sap.find_pairs(boxes, &skip, &mut pairs));
                    }
                    pairs.len()
                })
            });
        }
    }
    g.finish();
}

fn bench_skin_check(c: &mut Criterion, sizes: &[usize]) {
    let mut g = c.benchmark_group("verlet_no_rebuild/mono");
    g.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    for &n in sizes {
        let (a, b, skip) = scene(n, 1.0, 42);
        // Skin of 10 % of the radius: the 0.1 % jitter never triggers a rebuild.
        let mut list = VerletPairs::new(SweepAndPrune::new(), 5e-5).unwrap();
        list.update_boxes(&a, &skip);
        let mut flip = false;
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |bench, _| {
            bench.iter(|| {
                flip = !flip;
                list.update_boxes(if flip { &a } else { &b }, &skip)
            })
        });
        assert_eq!(list.rebuilds(), 1, "the skin check rebuilt");
    }
    g.finish();
}

fn broadphase(c: &mut Criterion) {
    let all = [1_000, 10_000, 100_000];
    for (label, ratio) in [("mono", 1.0), ("poly4", 4.0)] {
        bench_backend(c, &format!("brute_force/{label}"), BruteForce, &all[..2], ratio);
        bench_backend(c, &format!("sweep_and_prune/{label}"), SweepAndPrune::new(), &all, ratio);
        bench_backend(c, &format!("linked_cells/{label}"), LinkedCells::new(), &all, ratio);
    }
    bench_skin_check(c, &all);
    bench_threads(c, &all[..2]);
}

/// Runs the benchmarks (written out instead of `criterion_main!`, whose generated function
/// has no doc comment).
fn main() {
    let mut c = Criterion::default().configure_from_args();
    broadphase(&mut c);
    c.final_summary();
}
