//! Costs of the I/O paths, per item: packing generation, VTK particle frames, Love-Weber
//! stress, scene parsing with validation (the checkpoint round trip is granula-run's).

// `criterion_group!` expands to an undocumented public function.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use glam::DVec3;
use granula_core::{BodyHandle, ContactKey, ContactStatus, SphereBuilder, World};
use granula_io::generate::{random_packing, Region, SizeDistribution};
use granula_io::output::{love_weber_stress, write_particles, ContactRecord};
use granula_io::Scene;
use std::time::Duration;

const N: usize = 8000;

fn world(n: usize) -> World {
    let size = SizeDistribution::Uniform { min: 0.00045, max: 0.00055 };
    let region = Region::Box { min: DVec3::ZERO, max: DVec3::new(0.02, 0.02, 0.04) };
    let (spheres, _) = random_packing(region, n, size, 1, 1000, false);
    let mut w = World::builder().build().unwrap();
    for s in spheres {
        w.insert(SphereBuilder::new(s.radius, s.center).velocity(DVec3::X).build().unwrap()).unwrap();
    }
    w
}

fn benches(c: &mut Criterion) {
    let mut g = c.benchmark_group("io");
    g.sample_size(10).measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1));
    g.throughput(Throughput::Elements(N as u64));
    let size = SizeDistribution::Uniform { min: 0.00045, max: 0.00055 };
    let region = Region::Box { min: DVec3::ZERO, max: DVec3::new(0.02, 0.02, 0.04) };
    g.bench_function(BenchmarkId::new("random_packing", N), |b| {
        b.iter(|| random_packing(region, N, size, 1, 1000, false))
    });
    let w = world(N);
    let dir = std::env::temp_dir().join(format!("granula-io-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("p.vtp");
    g.bench_function(BenchmarkId::new("write_particles_vtp", N), |b| b.iter(|| write_particles(&f, &w).unwrap()));
    // One contact per sphere with its successor (synthetic forces).
    let contacts: Vec<ContactRecord> = (0..N as u32 - 1)
        .map(|i| ContactRecord {
            body1: i,
            body2: i + 1,
            point: 0.5 * (w.bodies.position[i as usize] + w.bodies.position[i as usize + 1]),
            normal: DVec3::Z,
            gap: 0.0,
            branch1: 0.5 * (w.bodies.position[i as usize + 1] - w.bodies.position[i as usize]),
            branch2: 0.5 * (w.bodies.position[i as usize] - w.bodies.position[i as usize + 1]),
            force: DVec3::new(0.1, 0.2, 1.0),
            key: ContactKey { body1: BodyHandle(i), body2: BodyHandle(i + 1), feature: 0 },
            tangent: DVec3::X,
            relative_velocity: DVec3::ZERO,
            couple: DVec3::ZERO,
            status: ContactStatus::Sticking,
        })
        .collect();
    g.bench_function(BenchmarkId::new("love_weber_stress", N), |b| {
        b.iter(|| love_weber_stress(&w, &contacts, DVec3::ZERO, DVec3::new(0.02, 0.02, 0.04)))
    });
    let text = format!(
        "[simulation]\ndt = 1e-5\nsteps = 1\n[solver]\nkind = \"md\"\n[[packings]]\ncount = {N}\nseed = 1\n\
         region = {{ shape = \"box\", min = [0.0, 0.0, 0.0], max = [0.02, 0.02, 0.04] }}\n\
         size = {{ distribution = \"uniform\", min = 0.00045, max = 0.00055 }}\n"
    );
    g.bench_function(BenchmarkId::new("scene_parse_validate", N), |b| {
        b.iter(|| Scene::parse("b.toml", &text).unwrap())
    });
    g.finish();
    let _ = std::fs::remove_dir_all(dir);
}

criterion_group!(io, benches);
criterion_main!(io);
