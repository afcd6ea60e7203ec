//! Plain benchmark of the MD solver on polyhedra: settling of random convex polyhedra on a
//! floor, the scenario of `benches/yade/polyhedra_settle.py` (YADE's Polyhedra), printing
//! ns per particle-step and per contact point, contact counts and the final kinetic energy.
//!
//! Usage: `cargo bench --bench polyhedra_bench -- [--volumetric] [--shapes FILE]
//! [steps] [N ...]` (default 200 timed steps, N = 1000 and 8000). `MD_BENCH_THREADS=1,2`
//! (default) selects the thread counts, as for `md_bench`; `MD_BENCH_HOT=off` lets the other
//! threads sleep between the step's loops (`MdConfig::hot_workers`). `--shapes FILE` takes the bodies'
//! shapes from a file written by `benches/yade/polyhedra_shapes.py` (YADE's own random
//! polyhedra, same seeds and lattice order as `polyhedra_settle.py`): lines "body x y z",
//! each body the convex hull of its points (m, about its centre of mass, world axes).
//!
//! Scenario (the same as the YADE script): n = round(N^⅓) bodies per edge of a cubic
//! lattice, centres 0.88 mm apart and 1 mm above a floor plane; each body a random convex
//! polyhedron of its own seed (`shapes::random_convex`, 12 points: about 20 triangular
//! faces) stretched along each axis to fill a 0.9 mm box, axis-aligned; ρ = 2500 kg/m³,
//! E = 1e8 Pa, ν = 0.3, μ = tan 0.5 (YADE's friction angle 0.5 rad), e = 0.5;
//! local damping 0.3 (YADE's `NewtonIntegrator(damping=0.3)`),
//! gravity 9.81 m/s², Δt = 1e-6 s, skin 0.1 mm (YADE's `verletDist`), velocity Verlet,
//! sweep and prune. 200 steps let the bodies fall into contact, then `steps` steps are
//! timed. As in YADE, lattice neighbours start overlapping by up to 0.02 mm (the insertion
//! check is told to accept them), so the packing is in contact from the first step.
//!
//! Contact law: by default Hertz-Mindlin with history at every contact point (vertex and
//! edge contacts, `register_all`). `--volumetric` runs YADE's law instead: one contact per
//! pair from the overlap volume (`register_all_volumetric`), F_n = k_V V with
//! `VolumetricSpring`, a linear tangential spring with Coulomb friction, no contact
//! damping, and YADE's stiffnesses for these materials (`Ip2_PolyhedraMat_PolyhedraMat_
//! PolyhedraPhys`: 1/k_n = 1/Y₁ + 1/Y₂, 1/k_s = 1/(Y₁P₁) + 1/(Y₂P₂) with Y = young and P =
//! poisson), k_V = 5e7 N/m³ and k_t = 1.5e7 N/m (read back from YADE's interactions).

use granula::broadphase::SweepAndPrune;
use granula::core::ContactLaw;
use granula::core::{DVec3, Material, Narrowphase, PlaneBuilder, Solver, World};
use granula::integrators::VelocityVerlet;
use granula::laws::hertz_mindlin;
use granula::laws::LocalDamping;
use granula::laws::{
    Composed, CundallStrack, Friction, NoDamping, TangentialDamping, TangentialStiffness, VolumetricSpring,
};
use granula::md::{MdConfig, MdSolver};
use granula::polyhedra::{register_all, register_all_volumetric, shapes, BodyFrame, Polyhedron, PolyhedronBuilder};
use std::sync::Arc;
use std::time::Instant;

/// Time step (s), lattice unit (m) and settling steps before the timing, as in the YADE script.
const DT: f64 = 1e-6;
const SIZE: f64 = 1e-3;
const SETTLE_STEPS: usize = 200;

/// YADE's contact stiffnesses for two bodies of young = 1e8, poisson = 0.3: k_n = Y/2
/// (N/m³, on the overlap volume) and k_s = Y P/2 (N/m).
const YADE_KN: f64 = 0.5e8;
const YADE_KS: f64 = 0.5 * 0.3e8;

/// CPU time of the whole process (user + system, s) from `/proc/self/stat`, or NaN where
/// that file does not exist.
fn process_cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else { return f64::NAN };
    // Fields after the command name (in parentheses): utime and stime are the 12th and
    // 13th of them, in clock ticks (100 per second on Linux).
    let Some(rest) = stat.rsplit(')').next() else { return f64::NAN };
    let f: Vec<&str> = rest.split_whitespace().collect();
    let tick = |k: usize| f.get(k).and_then(|v| v.parse::<f64>().ok()).unwrap_or(f64::NAN);
    (tick(11) + tick(12)) / 100.0
}

/// SplitMix64 step: a seeded stream for the shapes' seeds.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The lattice of `per_edge³` random polyhedra on a floor; returns the world and the mean
/// number of faces.
/// Shapes read from a `--shapes` file: the points of each body, in body order.
fn read_shapes(path: &str) -> Result<Vec<Vec<DVec3>>, Box<dyn std::error::Error>> {
    let mut bodies: Vec<Vec<DVec3>> = Vec::new();
    for (n, line) in std::fs::read_to_string(path)?.lines().enumerate() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let bad = || format!("{path}:{}: expected \"body x y z\", got {line:?}", n + 1);
        if f.len() != 4 {
            return Err(bad().into());
        }
        let body: usize = f[0].parse().map_err(|_| bad())?;
        let xyz: Vec<f64> = f[1..].iter().map(|v| v.parse::<f64>()).collect::<Result<_, _>>().map_err(|_| bad())?;
        if body > bodies.len() {
            return Err(format!("{path}:{}: body {body} after body {}", n + 1, bodies.len().saturating_sub(1)).into());
        }
        if body == bodies.len() {
            bodies.push(Vec::new());
        }
        bodies[body].push(DVec3::new(xyz[0], xyz[1], xyz[2]));
    }
    Ok(bodies)
}

fn settling_world(
    per_edge: usize,
    volumetric: bool,
    given: Option<&[Vec<DVec3>]>,
) -> Result<(World, f64), Box<dyn std::error::Error>> {
    let material = Material {
        name: "grain".into(),
        density: 2500.0,
        young_modulus: 1e8,
        poisson_ratio: 0.3,
        friction: 0.5f64.tan(),
        restitution: 0.5,
        ..Material::default()
    };
    let mut narrowphase = Narrowphase::new();
    if volumetric {
        register_all_volumetric(&mut narrowphase)?;
    } else {
        register_all(&mut narrowphase)?;
    }
    let mut world =
        World::builder().gravity(DVec3::new(0.0, 0.0, -9.81)).material(material).narrowphase(narrowphase).build()?;
    world.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build()?)?;
    let mut state = 1u64;
    let mut faces = 0usize;
    let spacing = 0.88 * SIZE;
    for i in 0..per_edge {
        for j in 0..per_edge {
            for k in 0..per_edge {
                let site = DVec3::new(i as f64 + 0.5, j as f64 + 0.5, k as f64 + 0.5) * spacing + DVec3::Z * SIZE;
                let index = (i * per_edge + j) * per_edge + k;
                let (poly, place) = match given {
                    // YADE's body: the hull of its points, centre of mass at the site.
                    Some(points) => {
                        let p = points.get(index).ok_or_else(|| format!("the shapes file has no body {index}"))?;
                        let hull = shapes::convex_hull_of(p)?;
                        Polyhedron::from_mesh(
                            hull.vertices().to_vec(),
                            hull.faces().to_vec(),
                            BodyFrame::PrincipalAxes,
                        )?
                    }
                    // As YADE's `polyhedra_utils.polyhedra(size=(0.9, 0.9, 0.9) mm)`: a random
                    // hull stretched along each axis to a 0.9 mm box, axis-aligned, so that
                    // lattice neighbours 0.88 mm apart start just overlapping.
                    None => {
                        let hull = shapes::random_convex(12, 1.0, next(&mut state))?;
                        let b = hull.local_aabb();
                        let stretch = DVec3::splat(0.9 * SIZE) / (b.max - b.min);
                        let stretched: Vec<DVec3> = hull.vertices().iter().map(|&v| v * stretch).collect();
                        let (p, mut place) =
                            Polyhedron::from_mesh(stretched, hull.faces().to_vec(), BodyFrame::PrincipalAxes)?;
                        // The stretched hull's centre of mass at the site, as before.
                        place.offset = DVec3::ZERO;
                        (p, place)
                    }
                };
                faces += poly.faces().len();
                let centre = site + place.offset;
                let body = PolyhedronBuilder::new(Arc::new(poly), centre).orientation(place.rotation).build()?;
                world.insert(body)?;
            }
        }
    }
    // The overlaps of the lattice are the scenario's (YADE starts from them too).
    world.accept_overlaps();
    Ok((world, faces as f64 / (per_edge * per_edge * per_edge) as f64))
}

/// What one timed run measured.
struct Figures {
    wall_ns: f64,
    cpu_ns: f64,
    ns_per_point: f64,
    kinetic: f64,
    pairs: usize,
    points: usize,
    faces: f64,
}

/// Runs the settling with the chosen contacts and law.
fn run(
    n: usize,
    threads: usize,
    steps: usize,
    volumetric: bool,
    given: Option<&[Vec<DVec3>]>,
) -> Result<Figures, Box<dyn std::error::Error>> {
    if volumetric {
        let law = Composed::new(
            VolumetricSpring::new(YADE_KN)?,
            NoDamping,
            CundallStrack::new(
                TangentialStiffness::Fixed(YADE_KS),
                TangentialDamping::None,
                Friction::from_material(),
            )?,
        );
        run_with(law, n, threads, steps, true, given)
    } else {
        run_with(hertz_mindlin(), n, threads, steps, false, given)
    }
}

fn run_with<L: ContactLaw>(
    law: L,
    n: usize,
    threads: usize,
    steps: usize,
    volumetric: bool,
    given: Option<&[Vec<DVec3>]>,
) -> Result<Figures, Box<dyn std::error::Error>> {
    let per_edge = (n as f64).cbrt().round() as usize;
    let (mut world, faces) = settling_world(per_edge, volumetric, given)?;
    let bodies = per_edge.pow(3);
    let config = MdConfig {
        skin: 1e-4,
        threads: Some(threads),
        // A polyhedron pair costs some hundred times a sphere pair: hand even short steps
        // to the threads.
        parallel_min_pairs: 0,
        local_damping: Some(LocalDamping::new(0.3)?),
        hot_workers: std::env::var("MD_BENCH_HOT").as_deref() != Ok("off"),
        ..Default::default()
    };
    let mut solver = MdSolver::new(law, VelocityVerlet::new(), SweepAndPrune::new(), config)?;
    for _ in 0..SETTLE_STEPS {
        world.step(&mut solver, DT)?;
    }
    let start = Instant::now();
    let cpu0 = process_cpu_seconds();
    let mut points_sum = 0usize;
    for _ in 0..steps {
        points_sum += world.step(&mut solver, DT)?.contacts;
    }
    let wall = start.elapsed().as_secs_f64();
    let per = 1e9 / (steps as f64 * bodies as f64);
    let cpu_ns = (process_cpu_seconds() - cpu0) * per;
    // Contact points and the pairs carrying them at the end, from the published contacts.
    solver.publish_contacts(true);
    world.step(&mut solver, DT)?;
    let records = solver.contacts().expect("published");
    let points = records.len();
    let mut pairs: Vec<_> = records.iter().map(|c| (c.key.body1, c.key.body2)).collect();
    pairs.sort_unstable();
    pairs.dedup();
    Ok(Figures {
        wall_ns: wall * per,
        cpu_ns,
        ns_per_point: wall * 1e9 / points_sum.max(1) as f64,
        kinetic: world.kinetic_energy(),
        pairs: pairs.len(),
        points,
        faces,
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut volumetric = false;
    let mut shapes_file = None;
    let mut args: Vec<usize> = Vec::new();
    let mut all = std::env::args().skip(1);
    while let Some(a) = all.next() {
        match a.as_str() {
            "--volumetric" => volumetric = true,
            // `cargo bench` appends it.
            "--bench" => {}
            "--shapes" => shapes_file = Some(all.next().ok_or("--shapes needs a file")?),
            _ => args.push(a.parse()?),
        }
    }
    let given = shapes_file.as_deref().map(read_shapes).transpose()?;
    let steps = args.first().copied().unwrap_or(200);
    let sizes = if args.len() > 1 { args[1..].to_vec() } else { vec![1000, 8000] };
    let thread_counts: Vec<usize> = match std::env::var("MD_BENCH_THREADS") {
        Ok(v) => v.split(',').map(str::parse).collect::<Result<_, _>>()?,
        Err(_) => vec![1, 2],
    };
    println!("contacts: {}", if volumetric { "overlap volume (YADE's law)" } else { "points (Hertz-Mindlin)" });
    println!("shapes: {}", shapes_file.as_deref().unwrap_or("granula's random hulls (12 points)"));
    println!(
        "{:>6} {:>7} {:>6} {:>10} {:>10} {:>9} {:>10} {:>13} {:>6} {:>7} {:>8}",
        "N", "threads", "faces", "wall ns", "CPU ns", "speed-up", "ns/point", "E_k (J)", "pairs", "points", "pts/body"
    );
    println!("(ns per particle-step, and wall ns per contact point-step; speed-up from wall time against 1 thread;");
    println!(" pairs and points in contact at the end, and points per body)");
    for &n in &sizes {
        let mut single = f64::NAN;
        for &threads in &thread_counts {
            let f = run(n, threads, steps, volumetric, given.as_deref())?;
            if threads == 1 {
                single = f.wall_ns;
            }
            let bodies = ((n as f64).cbrt().round() as usize).pow(3);
            println!(
                "{bodies:>6} {threads:>7} {:>6.1} {:>10.0} {:>10.0} {:>9.2} {:>10.0} {:>13.6e} {:>6} {:>7} {:>8.3}",
                f.faces,
                f.wall_ns,
                f.cpu_ns,
                single / f.wall_ns,
                f.ns_per_point,
                f.kinetic,
                f.pairs,
                f.points,
                f.points as f64 / bodies as f64
            );
        }
    }
    Ok(())
}
