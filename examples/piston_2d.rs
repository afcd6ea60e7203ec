//! Spurious sound in a 2D random packing (000 §3.3.2, Fig. 8), planar mode.
//!
//! Discs with radii uniform in [r, 2r] and mass ∝ area, Coulomb friction μ = 0.05, no
//! gravity, a fixed base and two fixed side walls, and a mobile piston (a plane, dynamic,
//! translating vertically only) pushed down by a constant force F. The discs start on a
//! loose grid; the piston compresses them until the packing is at rest. Then F → F + ΔF
//! and the piston's height oscillates as a damped sine whose ω and τ are fitted (both free,
//! the continuum values of the 1D chain do not apply here): ω ∝ √N_I and τ ∝ 1/N_I as in
//! the chain (000 §3.3.2).
//!
//! Units: r = 1, disc density 1 (per unit thickness), Δt = 1.
//!
//! Run: `cargo run --release --example piston_2d [n_discs]` (default 1000).

use granula::broadphase::LinkedCells;
use granula::core::{DVec3, Dofs, Material, PlaneBuilder, SphereBuilder, World};
use granula::nscd::{NscdConfig, NscdSolver};
use granula_validation::fit::fit_damped_sine;
use granula_validation::scenes::chain_theory;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Settings of the piston experiment.
#[derive(Clone, Copy, Debug)]
pub struct Piston {
    /// Number of discs.
    pub discs: usize,
    /// Compression force F.
    pub force: f64,
    /// The jump ΔF.
    pub jump: f64,
    /// Steps of the preparation (compression and rest).
    pub prepare_steps: usize,
    /// Sweeps per step during the preparation.
    pub prepare_sweeps: u32,
    /// Steps at F with the measured N_I before the jump (warm start at that N_I).
    pub settle_steps: usize,
    /// Steps recorded after the jump.
    pub record_steps: usize,
    /// First recorded step used by the fit (after the transient).
    pub fit_from: usize,
}

impl Piston {
    /// The set-up of 000 §3.3.2 with `discs` discs; run lengths grow with the packing,
    /// whose relaxation time grows as its height squared (000 eq. 48).
    pub fn new(discs: usize) -> Self {
        Piston {
            discs,
            force: 0.02,
            jump: 0.02,
            prepare_steps: 3000 + 10 * discs,
            prepare_sweeps: 40,
            settle_steps: discs,
            record_steps: 2 * discs,
            fit_from: 10,
        }
    }

    /// Rows of the initial grid (about the packing's height in discs).
    pub fn rows(&self) -> usize {
        let cols = (self.discs as f64).sqrt().ceil() as usize;
        self.discs.div_ceil(cols)
    }
}

/// The loose initial state; returns the world and the piston's dense index.
pub fn build(p: &Piston, seed: u64) -> World {
    let material = Material { friction: 0.05, density: 1.0, ..Material::named("discs") };
    let mut w = World::builder().planar(true).gravity(DVec3::ZERO).material(material).build().unwrap();
    let cols = (p.discs as f64).sqrt().ceil() as usize;
    let rows = p.discs.div_ceil(cols);
    let pitch = 4.4;
    let width = cols as f64 * pitch;
    w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Y).build().unwrap()).unwrap();
    w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::X).build().unwrap()).unwrap();
    w.insert(PlaneBuilder::new(DVec3::new(width, 0.0, 0.0), -DVec3::X).build().unwrap()).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut mass = 0.0;
    for k in 0..p.discs {
        let (i, j) = (k % cols, k / cols);
        let r = 1.0 + rng.random::<f64>();
        let c = DVec3::new((i as f64 + 0.5) * pitch, (j as f64 + 0.5) * pitch, 0.0);
        w.insert(SphereBuilder::new(r, c).build().unwrap()).unwrap();
        mass += std::f64::consts::PI * r * r;
    }
    // The piston: as heavy as one row of discs, translating along y only.
    let piston_mass = mass / rows as f64;
    let piston = PlaneBuilder::new(DVec3::new(0.0, rows as f64 * pitch + 0.5, 0.0), -DVec3::Y)
        .dynamic()
        .mass(piston_mass)
        .lock(Dofs::TX | Dofs::TZ | Dofs::ROTATION)
        .external_force(DVec3::new(0.0, -p.force, 0.0))
        .build()
        .unwrap();
    w.insert(piston).unwrap();
    w
}

fn solver(n_i: u32) -> NscdSolver<LinkedCells> {
    NscdSolver::new(LinkedCells::new(), NscdConfig::fixed_random_sweeps(n_i)).unwrap()
}

/// Compresses the packing with F until rest.
pub fn prepare(p: &Piston, seed: u64) -> World {
    let mut w = build(p, seed);
    let mut s = solver(p.prepare_sweeps);
    for _ in 0..p.prepare_steps {
        w.step(&mut s, 1.0).unwrap();
    }
    w
}

/// Result of one measurement.
#[derive(Clone, Debug)]
pub struct PistonRun {
    /// Sweeps per step.
    pub n_i: u32,
    /// Fitted ω Δt.
    pub omega: f64,
    /// Fitted τ/Δt.
    pub tau: f64,
    /// Piston height after the jump, per step.
    pub y: Vec<f64>,
}

/// From a prepared packing: settle at F with N_I sweeps per step, jump to F + ΔF, record
/// the piston height, fit a damped sine after the transient.
pub fn measure(p: &Piston, prepared: &World, n_i: u32) -> PistonRun {
    let mut w = World::builder()
        .planar(true)
        .gravity(DVec3::ZERO)
        .material(prepared.materials.materials()[0].clone())
        .build()
        .unwrap();
    w.bodies = prepared.bodies.clone();
    let piston = w.bodies.len() - 1;
    let mut s = solver(n_i);
    for _ in 0..p.settle_steps {
        w.step(&mut s, 1.0).unwrap();
    }
    w.bodies.external_force[piston].y = -(p.force + p.jump);
    let mut y = Vec::with_capacity(p.record_steps);
    for _ in 0..p.record_steps {
        w.step(&mut s, 1.0).unwrap();
        y.push(w.bodies.position[piston].y);
    }
    let t: Vec<f64> = (0..y.len() - p.fit_from).map(|k| k as f64).collect();
    // First guesses: the 1D chain of the packing's height (000 eqs. 58, 60); the fit
    // searches ω in [0.3, 3] and τ in [0.1, 10] times these.
    let (omega0, tau0) = chain_theory(n_i, p.rows());
    let fit = fit_damped_sine(&t, &y[p.fit_from..], omega0, tau0);
    PistonRun { n_i, omega: fit.omega, tau: fit.tau, y }
}

fn main() {
    let discs = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1000);
    let p = Piston::new(discs);
    println!("Reproduces 000 Fig. 8 (§3.3.2): after F -> F + ΔF the piston rings with ω ∝ √N_I and τ ∝ 1/N_I");
    eprintln!("compressing {discs} discs until rest ...");
    let prepared = prepare(&p, 1);
    println!("{discs} discs, F = {}, ΔF = {}; fitted after the jump:", p.force, p.jump);
    let runs: Vec<PistonRun> = [20, 40, 80]
        .iter()
        .map(|&n_i| {
            eprintln!("load step with N_I = {n_i} ...");
            measure(&p, &prepared, n_i)
        })
        .collect();
    for r in &runs {
        println!(
            "N_I = {:3}: ω Δt = {:.4}  τ/Δt = {:8.2}   ω/√N_I = {:.4}  τ N_I = {:.0}",
            r.n_i,
            r.omega,
            r.tau,
            r.omega / (r.n_i as f64).sqrt(),
            r.tau * r.n_i as f64
        );
    }
    let (first, last) = (&runs[0], &runs[runs.len() - 1]);
    let n = (last.n_i / first.n_i) as f64;
    println!(
        "ω({})/ω({}) = {:.2} (expected √{n} = {:.2});  τ({})/τ({}) = {:.2} (expected {n})",
        last.n_i,
        first.n_i,
        last.omega / first.omega,
        n.sqrt(),
        first.n_i,
        last.n_i,
        first.tau / last.tau
    );
}
