//! Criterion bench of one MD step on the "dense" packings (N = 1000, 8000, 27000) with 1 and
//! 2 threads: Hertz-Mindlin with history, velocity Verlet, linked cells, Δt = 5e-6 s, skin
//! 0.1 mm. Throughput is reported in particle-steps. The plain `md_bench` benchmark prints
//! ns per particle-step with CPU times as well.
// `criterion_group!` expands to an undocumented public function.
#![allow(missing_docs)]

mod md_dense;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use granula::broadphase::LinkedCells;
use granula::integrators::VelocityVerlet;
use granula::laws::hertz_mindlin;
use granula::md::{MdConfig, MdSolver};
use md_dense::{dense_world, DT, SKIN};

fn md_step(c: &mut Criterion) {
    let mut group = c.benchmark_group("md_step");
    group.sample_size(10);
    for n in [1000, 8000, 27000] {
        for threads in [1, 2] {
            let mut world = dense_world(n).expect("packing");
            let config = MdConfig { skin: SKIN, threads: Some(threads), ..Default::default() };
            let mut solver =
                MdSolver::new(hertz_mindlin(), VelocityVerlet::new(), LinkedCells::new(), config).expect("solver");
            world.step(&mut solver, DT).expect("warm-up step");
            group.throughput(Throughput::Elements(n as u64));
            group.bench_function(format!("dense_{n}/threads_{threads}"), |b| {
                b.iter(|| world.step(&mut solver, DT).expect("step"))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, md_step);
criterion_main!(benches);
