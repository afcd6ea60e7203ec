//! A heap of spheres poured on a floor, with and without rolling friction (001 §1.7),
//! contact dynamics with the `RollingSignoriniCoulomb` law; prints the angle of the heap.
//!
//! Spheres of radius r = 1 mm (ρ = 2500 kg/m³, μ = 0.5) start in a loose column above the
//! centre of a floor and fall under gravity; after they come to rest the heap's angle is
//! the slope of the height of the highest sphere against the distance from the axis
//! (least squares over radial bins). Without rolling resistance spheres roll away and the
//! heap is flat; with μ_r = 0.2 r it stands, at an angle of the order of atan(μ_r / r) =
//! 11.3° (the steepest incline one sphere rests on by rolling friction alone), lower here
//! because the pour from a tall narrow column splashes. The example prints both angles
//! next to these expectations.
//!
//! Run: `cargo run --release --example sphere_heap [spheres]` (default 400).

use granula::broadphase::LinkedCells;
use granula::core::{DVec3, Material, MotionKind, PlaneBuilder, SphereBuilder, World};
use granula::nscd::{Criterion, NscdConfig, NscdSolver, RollingSignoriniCoulomb, SweepOrder};
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
        sweep: SweepOrder::Random,
        ..Default::default()
    };
    let mut s = NscdSolver::with_law(LinkedCells::new(), RollingSignoriniCoulomb::default(), config).unwrap();
    let mut shown = std::time::Instant::now();
    for k in 0..steps {
        w.step(&mut s, 1e-4).unwrap();
        if shown.elapsed().as_secs_f64() > 2.0 {
            eprintln!("  μ_r = {rolling:.1e} m: step {} of {steps} (t = {:.3} s)", k + 1, w.time());
            shown = std::time::Instant::now();
        }
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

/// The steepest incline on which one sphere of radius `r` rests by rolling friction alone
/// (degrees): the friction force m g sin θ up the slope turns the sphere with a torque
/// m g sin θ r, which the rolling couple, at most μ_r N = μ_r m g cos θ (001 eqs.
/// 1.38-1.42), must balance: tan θ ≤ μ_r / r (with μ ≥ tan θ so that it does not slide).
pub fn rolling_rest_angle(rolling: f64, r: f64) -> f64 {
    (rolling / r).atan().to_degrees()
}

fn main() {
    let n = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(400);
    println!("A heap with and without rolling friction (001 §1.7). Expected: without rolling friction no");
    println!("heap (0°: nothing stops a sphere rolling down a flank); with μ_r = 0.2 r a standing heap");
    println!(
        "whose angle is of the order of {:.1}°, the steepest plane one sphere rests on by rolling friction",
        rolling_rest_angle(0.2 * R, R)
    );
    println!("alone; the splash of this tall, narrow pour keeps the heap lower than that.");
    let mut angles = Vec::new();
    for rolling in [0.0, 0.2 * R] {
        eprintln!("pouring {n} spheres with μ_r = {rolling:.1e} m (0.8 s of simulated time) ...");
        let w = pour(n, rolling, 8000);
        let (angle, speed) = heap_angle(&w);
        println!("{n} spheres, rolling friction μ_r = {rolling:.1e} m: heap angle {angle:.1}°, largest speed {speed:.2e} m/s");
        angles.push(angle);
    }
    // "Flat" and "standing" are told apart at 1°: the fitted slope of a flat bed of spheres
    // is a fraction of a degree (the bins' top heights differ by less than a radius).
    let (flat, standing) = (angles[0] < 1.0, angles[1] >= 1.0);
    let verdict = |ok: bool| if ok { "as expected" } else { "NOT as expected" };
    println!("without rolling friction: {:.1}° (expected 0°): {}", angles[0], verdict(flat));
    println!(
        "with μ_r = 0.2 r: {:.1}° (expected a standing heap, above 1°, of the order of {:.1}°): {}",
        angles[1],
        rolling_rest_angle(0.2 * R, R),
        verdict(standing)
    );
}
