//! Criterion bench of the contact-dynamics step on the dense packings
//! (`benches/data/dense_{1000,8000,27000}.xyzr.gz`, μ = 0.5, gravity, Δt = 1e-4 s): one
//! step with N_I = 20 fixed sweeps, random sweep and Morton-sorted forward sweep.
//! Throughput is in contact updates (contacts × N_I). See also `benches/nscd_bench.rs`,
//! which separates the sweep from the set-up.

// `criterion_group!` expands to an undocumented public function.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, BatchSize, Criterion as Bench, Throughput};
use flate2::read::GzDecoder;
use granula::broadphase::LinkedCells;
use granula::core::World;
use granula::nscd::{Criterion, NscdConfig, NscdSolver, SweepOrder};
use granula_validation::scenes::dense_packing;
use std::io::BufReader;

const SWEEPS: u32 = 20;

fn load(n: usize) -> World {
    let path = format!("{}/benches/data/dense_{n}.xyzr.gz", env!("CARGO_MANIFEST_DIR"));
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    dense_packing(BufReader::new(GzDecoder::new(file)), 0.5).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn copy(w: &World) -> World {
    let mut c = World::builder().gravity(w.gravity).material(w.materials.materials()[0].clone()).build().unwrap();
    c.bodies = w.bodies.clone();
    c
}

fn solver(order: SweepOrder, spatial: bool) -> NscdSolver<LinkedCells> {
    let config = NscdConfig {
        criterion: Criterion::Fixed { iterations: SWEEPS },
        sweep: order,
        spatial_sort: spatial,
        ..Default::default()
    };
    NscdSolver::new(LinkedCells::new(), config).unwrap()
}

fn bench(c: &mut Bench) {
    let mut group = c.benchmark_group("nscd_sweep");
    group.sample_size(10);
    for n in [1000, 8000, 27000] {
        let world = load(n);
        let contacts = copy(&world).step(&mut solver(SweepOrder::Random, false), 1e-4).unwrap().contacts;
        group.throughput(Throughput::Elements(contacts as u64 * SWEEPS as u64));
        for (name, order, spatial) in
            [("random", SweepOrder::Random, false), ("forward_morton", SweepOrder::Forward, true)]
        {
            group.bench_function(format!("{name}/{n}"), |b| {
                b.iter_batched(
                    || (copy(&world), solver(order, spatial)),
                    |(mut w, mut s)| w.step(&mut s, 1e-4).unwrap().iterations,
                    BatchSize::LargeInput,
                )
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
