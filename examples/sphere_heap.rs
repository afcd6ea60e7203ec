//! A heap of spheres poured on a floor, with and without rolling friction (001 §1.7),
//! contact dynamics with the `RollingSignoriniCoulomb` law; prints the angle of the heap.
//!
//! Spheres of radius r = 1 mm (ρ = 2500 kg/m³, μ = 0.5) start in a loose column above the
//! centre of a floor and fall under gravity; after they come to rest the heap's angle is
//! the slope of the height of the highest sphere against the distance from the axis
//! (least squares over radial bins). Without rolling resistance spheres roll away and the
//! heap is flat; with μ_r = 0.2 r it stands.
//!
//! Run: `cargo run --release --example sphere_heap [spheres]` (default 400).

use granula::broadphase::LinkedCells;
use granula::core::{DVec3, Material, MotionKind, PlaneBuilder, SphereBuilder, World};
use granula::nscd::{Criterion, NscdConfig, NscdSolver, RollingSignoriniCoulomb};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Sphere radius (m).
pub const R: f64 = 1e-3;

/// The poured column: `n` spheres in layers of 3×3 with jitter, above a floor.
pub fn build(n: usize, rolling: f64, seed: u64) -> World {
    let material = Material { friction: 0.5, rolling_friction: rolling, ..Material::named("beads") };
    let mut w = World::builder().material(material).build().unwrap();
    w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().unwrap()).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for k in 0..n {
        let (layer, cell) = (k / 9, k % 9);
        let jitter = DVec3::new(rng.random::<f64>() - 0.5, rng.random::<f64>() - 0.5, 0.0) * 0.2 * R;
        let c = DVec3::new(
            ((cell % 3) as f64 - 1.0) * 2.2 * R,
            ((cell / 3) as f64 - 1.0) * 2.2 * R,
            R * (1.1 + 2.2 * layer as f64),
        );
        w.insert(SphereBuilder::new(R, c + jitter).build().unwrap()).unwrap();
    }
    w
}

/// Pours and settles for `steps` steps of 1e-4 s; returns the world.
pub fn pour(n: usize, rolling: f64, steps: usize) -> World {
    let mut w = build(n, rolling, 3);
    let config = NscdConfig {
        criterion: Criterion::LocalRelative { epsilon: 1e-3, cutoff: 1e-9, max_iterations: 200 },
        ..Default::default()
    };
    let mut s = NscdSolver::with_law(LinkedCells::new(), RollingSignoriniCoulomb::default(), config).unwrap();
    for _ in 0..steps {
        w.step(&mut s, 1e-4).unwrap();
    }
    w
}

/// Angle of the heap (degrees): least-squares slope of the top height against the radial
/// distance, over bins of width 2r from the axis out to the first empty bin, and the
/// largest speed of a sphere (to check that the heap is at rest).
pub fn heap_angle(w: &World) -> (f64, f64) {
    let b = &w.bodies;
    let mut top = [0.0f64; 64];
    let mut speed: f64 = 0.0;
    for i in 0..b.len() {
        if b.motion[i] != MotionKind::Dynamic {
            continue;
        }
        speed = speed.max(b.velocity[i].length());
        let rho = (b.position[i].x.powi(2) + b.position[i].y.powi(2)).sqrt();
        let k = ((rho / (2.0 * R)) as usize).min(63);
        top[k] = top[k].max(b.position[i].z + R);
    }
    // The heap: bins from the axis up to the first empty one (spheres that rolled away
    // lie beyond it).
    let extent = top.iter().position(|&h| h == 0.0).unwrap_or(64);
    let pts: Vec<(f64, f64)> = (0..extent).map(|k| ((k as f64 + 0.5) * 2.0 * R, top[k])).collect();
    if pts.len() < 2 {
        return (0.0, speed);
    }
    let n = pts.len() as f64;
    let (mx, my) = (pts.iter().map(|p| p.0).sum::<f64>() / n, pts.iter().map(|p| p.1).sum::<f64>() / n);
    let cov: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let var: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let slope = if var > 0.0 { -cov / var } else { 0.0 };
    (slope.atan().to_degrees(), speed)
}

fn main() {
    let n = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(400);
    for rolling in [0.0, 0.2 * R] {
        let w = pour(n, rolling, 8000);
        let (angle, speed) = heap_angle(&w);
        println!("{n} spheres, rolling friction μ_r = {rolling:.1e} m: heap angle {angle:.1}°, largest speed {speed:.2e} m/s");
    }
}
