//! Cost of a checkpoint round trip (bytes out and back) for a scene of 8000 spheres.

// `criterion_group!` expands to an undocumented public function.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use granula_io::Scene;
use granula_run::{Checkpoint, Run};
use std::time::Duration;

const N: usize = 8000;

fn benches(c: &mut Criterion) {
    let mut g = c.benchmark_group("run");
    g.sample_size(10).measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1));
    g.throughput(Throughput::Elements(N as u64));
    let text = format!(
        "[simulation]\ndt = 1e-5\nsteps = 1\n[solver]\nkind = \"md\"\n[[packings]]\ncount = {N}\nseed = 1\n\
         region = {{ shape = \"box\", min = [0.0, 0.0, 0.0], max = [0.02, 0.02, 0.04] }}\n\
         size = {{ distribution = \"uniform\", min = 0.00045, max = 0.00055 }}\n"
    );
    let dir = std::env::temp_dir().join(format!("granula-run-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let run = Run::start(Scene::parse("b.toml", &text).unwrap(), &dir.join("run")).unwrap();
    let ckpt = run.checkpoint().unwrap();
    let f = dir.join("checkpoint.bin");
    g.bench_function(BenchmarkId::new("checkpoint_round_trip", N), |b| {
        b.iter(|| Checkpoint::from_bytes(&ckpt.to_bytes(), &f).unwrap())
    });
    g.finish();
    let _ = std::fs::remove_dir_all(dir);
}

criterion_group!(run, benches);
criterion_main!(run);
