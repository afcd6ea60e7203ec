//! Plain bench of the contact-dynamics Gauss-Seidel sweep on the dense benchmark packings
//! (`benches/data/dense_{1000,8000,27000}.xyzr.gz`: μ = 0.5, gravity, Δt = 1e-4 s).
//!
//! For each packing and sweep order it times one step with N_I = 10 and one with
//! N_I = 110 fixed sweeps (000 eq. 37), from the same state, and prints
//! - contact updates per second of the sweep alone: contacts × 100 / (T₁₁₀ − T₁₀);
//! - contact updates per second of whole steps at N_I = 110 (detection included);
//! - the set-up cost of a step (free velocities, detection, W blocks, warm start).
//!
//! Times are the CPU time of the thread (so that other processes on a shared machine do
//! not count), best of three; the wall time is printed beside it.
//!
//! With `--vs-md`, it also times 0.1 s of the N = 1000 packing under gravity with each
//! solver, in the spirit of 001 §1.6: MD (Hertz-Mindlin, velocity Verlet, Δt = 5e-6 s, the
//! "dense" scenario of the MD bench) against CD (Δt = 1e-4 s, local criterion ε = 1e-4 with a
//! cap of 1000 sweeps), printing wall and CPU time, the largest overlap (the accuracy monitor
//! of both methods) and the final kinetic energy.
//!
//! With `--converge`, it instead solves the first (static) step of each packing from a cold
//! start with the local criterion (000 eq. 35) at ε = 1e-4 and 1e-6, for each sweep order
//! with and without momentum, and prints the sweeps and the wall time to tolerance and the
//! share of the weight the floor carries (`NSCD_BENCH_CAP` sets the cap, default 30000
//! sweeps).
//!
//! `--natural` makes `--converge` stop on Siconos' natural-map residual instead of the local
//! criterion (the comparison with Siconos uses it); `NSCD_BENCH_ONLY=NAME` runs the methods
//! whose name contains NAME (`=NAME`: the one named NAME); `NSCD_BENCH_EPS=E` one tolerance.
//!
//! With `--export DIR`, it solves the first step of each packing to the natural map 1e-6 and
//! writes its problem (W, q, μ and the solution) to `DIR/dense_N.raw` in the `fc3d_raw`
//! text format that `benches/siconos/nsgs_raw.py` reads.
//!
//! Run: `cargo bench --bench nscd_bench [--vs-md | --converge [--natural] |
//! --export DIR] [N ...]`.

#[path = "md_dense/mod.rs"]
mod md_dense_scene;

use flate2::read::GzDecoder;
use granula::broadphase::LinkedCells;
use granula::core::World;
use granula::nscd::{ContactProblem, Criterion, NscdConfig, NscdSolver, SweepOrder};
use granula_validation::scenes::dense_packing;
use std::io::BufReader;
use std::time::Instant;

fn load(n: usize) -> World {
    let path = format!("{}/benches/data/dense_{n}.xyzr.gz", env!("CARGO_MANIFEST_DIR"));
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    dense_packing(BufReader::new(GzDecoder::new(file)), 0.5).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// CPU time of this thread (s), from the scheduler's statistics (ns resolution; Linux).
fn cpu_time() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse::<f64>().ok().map(|ns| ns * 1e-9)
}

/// CPU time of the whole process (user + system, s; 10 ms ticks), from `/proc/self/stat`:
/// MD may run its loop on a worker thread.
fn process_cpu_time() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let f: Vec<&str> = stat.rsplit(')').next()?.split_whitespace().collect();
    Some((f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?) / 100.0)
}

/// A copy of a world's bodies, gravity and first material (the packings have one).
fn copy(w: &World) -> World {
    let mut c = World::builder().gravity(w.gravity).material(w.materials.materials()[0].clone()).build().unwrap();
    c.bodies = w.bodies.clone();
    // The packings come from MD and overlap by up to about 1 % of a radius (dense_27000):
    // accepted as `dense_packing` does.
    c.accept_overlaps();
    c
}

/// Best (CPU, wall) time of one step with `sweeps` fixed sweeps, and the contact count.
fn time_step(world: &World, order: SweepOrder, spatial: bool, sweeps: u32) -> (f64, f64, usize) {
    let (mut cpu, mut wall, mut contacts) = (f64::INFINITY, f64::INFINITY, 0);
    for _ in 0..3 {
        let mut w = copy(world);
        let config = NscdConfig {
            criterion: Criterion::Fixed { iterations: sweeps },
            sweep: order,
            momentum: false,
            spatial_sort: spatial,
            ..Default::default()
        };
        let mut solver = NscdSolver::new(LinkedCells::new(), config).unwrap();
        let c0 = cpu_time();
        let t0 = Instant::now();
        let report = w.step(&mut solver, 1e-4).unwrap();
        wall = wall.min(t0.elapsed().as_secs_f64());
        cpu = cpu.min(match (c0, cpu_time()) {
            (Some(a), Some(b)) => b - a,
            _ => t0.elapsed().as_secs_f64(),
        });
        contacts = report.contacts;
    }
    (cpu, wall, contacts)
}

/// 0.1 s of the N = 1000 packing with MD and with CD (001 §1.6).
fn cd_versus_md() {
    use granula::integrators::VelocityVerlet;
    use granula::laws::hertz_mindlin;
    use granula::md::{MdConfig, MdSolver};
    let span = 0.1;
    // MD.
    let mut world = md_dense_scene::dense_world(1000).expect("dense_1000 for MD");
    let config = MdConfig { skin: md_dense_scene::SKIN, threads: Some(1), ..Default::default() };
    let mut md = MdSolver::new(hertz_mindlin(), VelocityVerlet::new(), LinkedCells::new(), config).unwrap();
    let steps = (span / md_dense_scene::DT).round() as usize;
    let (c0, t0) = (process_cpu_time(), Instant::now());
    let mut overlap: f64 = 0.0;
    for _ in 0..steps {
        overlap = overlap.max(world.step(&mut md, md_dense_scene::DT).unwrap().max_overlap);
    }
    let (wall, cpu) = (t0.elapsed().as_secs_f64(), process_cpu_time().zip(c0).map(|(b, a)| b - a).unwrap_or(f64::NAN));
    println!(
        "MD: {steps} steps of 5e-6 s: wall {wall:.2} s, CPU {cpu:.2} s, max overlap {overlap:.3e} m, E_k {:.3e} J",
        world.kinetic_energy()
    );
    // CD.
    let mut world = load(1000);
    let config = NscdConfig {
        criterion: Criterion::LocalRelative { epsilon: 1e-4, cutoff: 1e-9, max_iterations: 1000 },
        sweep: SweepOrder::Random,
        momentum: false,
        ..Default::default()
    };
    let mut cd = NscdSolver::new(LinkedCells::new(), config).unwrap();
    let steps = (span / 1e-4).round() as usize;
    let (c0, t0) = (process_cpu_time(), Instant::now());
    let (mut overlap, mut sweeps, mut capped): (f64, u64, usize) = (0.0, 0, 0);
    for _ in 0..steps {
        let r = world.step(&mut cd, 1e-4).unwrap();
        overlap = overlap.max(r.max_overlap);
        sweeps += r.iterations as u64;
        capped += r.warnings.len();
    }
    let (wall, cpu) = (t0.elapsed().as_secs_f64(), process_cpu_time().zip(c0).map(|(b, a)| b - a).unwrap_or(f64::NAN));
    println!(
        "CD: {steps} steps of 1e-4 s: wall {wall:.2} s, CPU {cpu:.2} s, {:.0} sweeps/step, {capped} steps capped, max overlap {overlap:.3e} m, E_k {:.3e} J",
        sweeps as f64 / steps as f64,
        world.kinetic_energy()
    );
}

/// The methods compared by `--converge`: name, order and momentum.
const METHODS: &[(&str, SweepOrder, bool)] = &[
    ("forward + momentum (default)", SweepOrder::Forward, true),
    ("random + momentum", SweepOrder::Random, true),
    ("random", SweepOrder::Random, false),
    ("forward (pair order)", SweepOrder::Forward, false),
];

/// Sweeps and wall time to `criterion` on the first step of `world` from a cold start, the
/// residual reached, and the floor's share of the weight.
fn converge(world: &World, sweep: SweepOrder, momentum: bool, criterion: Criterion) -> Converged {
    let mut w = copy(world);
    let config = NscdConfig { criterion, sweep, momentum, ..Default::default() };
    let mut solver = NscdSolver::new(LinkedCells::new(), config).unwrap();
    let t0 = Instant::now();
    let c0 = process_cpu_time().unwrap_or(0.0);
    let report = w.step(&mut solver, 1e-4).unwrap();
    let wall = t0.elapsed().as_secs_f64();
    let cpu = process_cpu_time().unwrap_or(0.0) - c0;
    let b = &world.bodies;
    let mut weight = 0.0;
    for i in 0..b.len() {
        if b.inv_mass[i] > 0.0 {
            weight -= world.gravity.z / b.inv_mass[i];
        }
    }
    // Floor contacts: a sphere whose centre is within 1.5 radii of z = 0 touching a wall.
    let mut floor = 0.0;
    for (i, j, p) in solver.impulses() {
        let (i, j) = (i as usize, j as usize);
        let (wall_body, sphere, sign) = if b.inv_mass[i] == 0.0 { (i, j, 1.0) } else { (j, i, -1.0) };
        if b.inv_mass[wall_body] == 0.0 && b.position[sphere].z < 1.5 * b.radius[sphere] && sign * p.z > 0.0 {
            floor += sign * p.z;
        }
    }
    Converged {
        sweeps: report.iterations,
        wall,
        cpu,
        residual: report.residual,
        natural: solver.natural_map_residual().unwrap_or(f64::NAN),
        floor: floor / 1e-4 / weight,
    }
}

/// What `converge` measures.
struct Converged {
    /// Gauss-Seidel sweeps.
    sweeps: u32,
    /// Wall time of the step (s).
    wall: f64,
    /// CPU time of the process during the step (s, all threads).
    cpu: f64,
    /// The criterion's residual.
    residual: f64,
    /// Siconos' natural-map residual of the final impulses.
    natural: f64,
    /// The floor's share of the weight.
    floor: f64,
}

/// The sweep cap of `--export` (`NSCD_EXPORT_CAP`, default 20000): the problem (W, q, μ)
/// does not depend on it, only the stored solution does.
fn export_cap() -> u32 {
    std::env::var("NSCD_EXPORT_CAP").ok().and_then(|v| v.parse().ok()).unwrap_or(20000)
}

/// Solves the first step of `world` to the natural-map residual 1e-6 (forward sweep with
/// momentum, cap `export_cap()`) and writes its problem (W, q, μ, r, u) to `path` for Siconos.
fn export(world: &World, path: &str) {
    let mut w = copy(world);
    let config = NscdConfig {
        criterion: Criterion::NaturalMap { epsilon: 1e-6, max_iterations: export_cap() },
        sweep: SweepOrder::Forward,
        momentum: true,
        ..Default::default()
    };
    let mut solver = NscdSolver::new(LinkedCells::new(), config).unwrap();
    let report = w.step(&mut solver, 1e-4).unwrap();
    let problem = solver.contact_problem().expect("Signorini-Coulomb");
    let file = std::fs::File::create(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    write_fc3d_raw(&problem, &mut std::io::BufWriter::new(file)).unwrap_or_else(|e| panic!("{path}: {e}"));
    println!(
        "{path}: {} contacts, {} blocks, |W r + q - u| / max(|q|, |u|) = {:.1e}, granula's solution: natural map {:.2e} after {} sweeps",
        problem.q.len(),
        problem.blocks.len(),
        problem.consistency(),
        report.residual,
        report.iterations
    );
}

fn main() {
    if std::env::args().any(|a| a == "--vs-md") {
        cd_versus_md();
    }
    let sizes: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let sizes = if sizes.is_empty() { vec![1000, 8000, 27000] } else { sizes };
    let args: Vec<String> = std::env::args().collect();
    if let Some(k) = args.iter().position(|a| a == "--export") {
        let dir = args.get(k + 1).expect("--export DIR");
        for n in sizes {
            export(&load(n), &format!("{dir}/dense_{n}.raw"));
        }
        return;
    }
    if std::env::args().any(|a| a == "--converge") {
        let cap = std::env::var("NSCD_BENCH_CAP").ok().and_then(|v| v.parse().ok()).unwrap_or(30000);
        let test =
            if std::env::args().any(|a| a == "--natural") { "natural map" } else { "local criterion (000 eq. 35)" };
        println!("first step from rest, cold start, {test}, cap {cap}; one thread, wall time");
        let only = std::env::var("NSCD_BENCH_ONLY").ok();
        for n in sizes {
            let world = load(n);
            let natural = std::env::args().any(|a| a == "--natural");
            // `NSCD_BENCH_EPS=1e-4` runs one tolerance only.
            let tolerances: Vec<f64> = match std::env::var("NSCD_BENCH_EPS").ok().and_then(|v| v.parse().ok()) {
                Some(e) => vec![e],
                None => vec![1e-4, 1e-6],
            };
            for &eps in &tolerances {
                let criterion = if natural {
                    Criterion::NaturalMap { epsilon: eps, max_iterations: cap }
                } else {
                    Criterion::LocalRelative { epsilon: eps, cutoff: 1e-9, max_iterations: cap }
                };
                for &(name, order, momentum) in METHODS {
                    // `=NAME` selects one method by its exact name.
                    let skip = match only.as_deref() {
                        Some(o) if o.starts_with('=') => name != &o[1..],
                        Some(o) => !name.contains(o),
                        None => false,
                    };
                    if skip {
                        continue;
                    }
                    let r = converge(&world, order, momentum, criterion);
                    println!(
                        "N = {n:5}  eps {eps:.0e}  {name:28} sweeps {:6}  wall {:8.3} s  cpu {:8.3} s  residual {:.2e}  natural map {:.2e}  floor/weight {:.4}",
                        r.sweeps, r.wall, r.cpu, r.residual, r.natural, r.floor
                    );
                }
            }
        }
        return;
    }
    println!("one thread; CPU time of the thread (wall time in brackets)");
    for n in sizes {
        let world = load(n);
        for (name, order, spatial) in [
            ("random", SweepOrder::Random, false),
            ("forward, Morton-sorted", SweepOrder::Forward, true),
            ("forward, pair order", SweepOrder::Forward, false),
        ] {
            let (lo, lo_wall, c) = time_step(&world, order, spatial, 10);
            let (hi, hi_wall, _) = time_step(&world, order, spatial, 110);
            let sweep = (hi - lo) / 100.0;
            let sweep_wall = (hi_wall - lo_wall) / 100.0;
            println!(
                "N = {n:5}  {name:23} contacts {c:6}  sweep {:7.3} ms  {:6.2} M updates/s [{:6.2}]  whole step {:6.2} M/s [{:6.2}]  set-up {:6.1} ms",
                sweep * 1e3,
                c as f64 / sweep / 1e6,
                c as f64 / sweep_wall / 1e6,
                c as f64 * 110.0 / hi / 1e6,
                c as f64 * 110.0 / hi_wall / 1e6,
                (lo - 10.0 * sweep) * 1e3,
            );
        }
    }
}

/// Writes `p` in the plain triplet text format that `benches/siconos/nsgs_raw.py` hands to
/// Siconos' `fc3d` solvers: a header `fc3d_raw 1`, then `m nc nnz`, the nonzeros of W as
/// `row column value`, then q, μ, the impulses r and the velocities u, one number a line.
fn write_fc3d_raw(p: &ContactProblem, out: &mut impl std::io::Write) -> std::io::Result<()> {
    let nc = p.q.len();
    let nnz: usize = p.blocks.values().map(|w| w.to_cols_array().iter().filter(|v| **v != 0.0).count()).sum();
    writeln!(out, "fc3d_raw 1\n{} {} {}", 3 * nc, nc, nnz)?;
    for (&(beta, alpha), w) in &p.blocks {
        for (j, col) in w.to_cols_array_2d().iter().enumerate() {
            for (i, v) in col.iter().enumerate() {
                if *v != 0.0 {
                    writeln!(out, "{} {} {:e}", 3 * beta as usize + i, 3 * alpha as usize + j, v)?;
                }
            }
        }
    }
    for v in &p.q {
        writeln!(out, "{:e}\n{:e}\n{:e}", v.x, v.y, v.z)?;
    }
    for m in &p.mu {
        writeln!(out, "{m:e}")?;
    }
    for v in p.r.iter().chain(&p.u) {
        writeln!(out, "{:e}\n{:e}\n{:e}", v.x, v.y, v.z)?;
    }
    Ok(())
}
