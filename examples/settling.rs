//! Settling: spheres poured into a box come to rest under gravity with Hertz-Mindlin
//! contacts (with tangential history); prints the packing fraction and the coordination
//! number at rest.
//!
//! Run: `cargo run --release --example settling -- [n_side]` (n_side³ spheres, default 10).
//! Set-up: spheres of diameter 1 mm, ρ = 2500 kg/m³, E = 1e7 Pa, ν = 0.3, e = 0.5, μ = 0.5
//! (the "dense" benchmark material), on a cubic lattice of spacing 1.2 d with random
//! velocities up to 0.1 m/s (seeded), in a square box of side 1.2 d n_side with a floor;
//! velocity Verlet at Δt = 5e-6 s, linked cells with a 0.1 mm skin. "At rest": kinetic energy
//! per sphere below 1e-12 J (a speed of about 3e-5 m/s).

use granula::broadphase::LinkedCells;
use granula::core::{DVec3, Material, MaterialId, MotionKind, SphereBuilder, World};
use granula::integrators::VelocityVerlet;
use granula::laws::hertz_mindlin;
use granula::md::{MdConfig, MdSolver};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const D: f64 = 1e-3;
const DT: f64 = 5e-6;

/// What the settled bed looks like.
#[derive(Debug)]
pub struct Settled {
    /// Number of spheres.
    pub n: usize,
    /// Simulated time until rest (s).
    pub time: f64,
    /// Solid fraction of the bed: sphere volume over box section × bed height (top of the
    /// highest sphere).
    pub packing_fraction: f64,
    /// Mean number of sphere-sphere contacts per sphere.
    pub coordination: f64,
    /// Contacts with walls.
    pub wall_contacts: usize,
}

/// Pours n_side³ spheres and runs until rest (or `max_time` seconds).
pub fn settle(n_side: usize, seed: u64, max_time: f64) -> Result<Settled, Box<dyn std::error::Error>> {
    let material = Material {
        name: "glass".into(),
        density: 2500.0,
        friction: 0.5,
        restitution: 0.5,
        young_modulus: 1e7,
        poisson_ratio: 0.3,
        ..Material::default()
    };
    let mut w = World::builder().gravity(DVec3::new(0.0, 0.0, -9.81)).material(material).build()?;
    let spacing = 1.2 * D;
    let l = spacing * n_side as f64;
    w.insert_open_box(DVec3::ZERO, l, l, MaterialId(0))?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for i in 0..n_side {
        for j in 0..n_side {
            for k in 0..n_side {
                let x = DVec3::new(i as f64 + 0.5, j as f64 + 0.5, k as f64 + 0.5) * spacing;
                let v =
                    DVec3::new(rng.random_range(-0.1..0.1), rng.random_range(-0.1..0.1), rng.random_range(-0.1..0.1));
                w.insert(SphereBuilder::new(0.5 * D, x).velocity(v).build()?)?;
            }
        }
    }
    let config = MdConfig { skin: 1e-4, ..Default::default() };
    let mut solver = MdSolver::new(hertz_mindlin(), VelocityVerlet::new(), LinkedCells::new(), config)?;
    let n = n_side.pow(3);
    let mut wall_contacts = 0;
    let mut shown = std::time::Instant::now();
    // A whole number of steps (the clock is exact, so no float loop is needed).
    for _ in 0..(max_time / DT).round() as u64 {
        w.step(&mut solver, DT)?;
        // Check for rest every 1000 steps, after the first 0.02 s of fall.
        if w.step_count() % 1000 == 0 && w.time() > 0.02 && w.kinetic_energy() < 1e-12 * n as f64 {
            break;
        }
        if shown.elapsed().as_secs_f64() > 2.0 {
            eprintln!("t = {:.3} s, kinetic energy per sphere {:.2e} J", w.time(), w.kinetic_energy() / n as f64);
            shown = std::time::Instant::now();
        }
    }
    let b = &w.bodies;
    let spheres: Vec<usize> = (0..b.len()).filter(|&i| b.motion[i] == MotionKind::Dynamic).collect();
    let mut sphere_contacts = 0;
    for (a, &i) in spheres.iter().enumerate() {
        for &j in &spheres[a + 1..] {
            if (b.position[i] - b.position[j]).length() < b.radius[i] + b.radius[j] {
                sphere_contacts += 1;
            }
        }
        let x = b.position[i];
        let r = b.radius[i];
        for gap in [x.z, x.x, l - x.x, x.y, l - x.y] {
            if gap < r {
                wall_contacts += 1;
            }
        }
    }
    let top = spheres.iter().map(|&i| b.position[i].z + b.radius[i]).fold(0.0, f64::max);
    let volume: f64 = spheres.iter().map(|&i| 4.0 / 3.0 * std::f64::consts::PI * b.radius[i].powi(3)).sum();
    Ok(Settled {
        n,
        time: w.time(),
        packing_fraction: volume / (l * l * top),
        coordination: 2.0 * sphere_contacts as f64 / n as f64,
        wall_contacts,
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n_side = std::env::args().nth(1).map(|a| a.parse()).transpose()?.unwrap_or(10);
    let s = settle(n_side, 42, 2.0)?;
    println!("{} spheres at rest after {:.3} s", s.n, s.time);
    println!(
        "packing fraction (whole bed, walls included): {:.3}; expected below the bulk range of a frictional \
         random packing, 0.555 (random loose, Onoda & Liniger 1990) to 0.64 (random close, Scott & Kilgour \
         1969), because walls and the rough top leave room",
        s.packing_fraction
    );
    println!(
        "coordination number (sphere-sphere): {:.2}; expected between 4 (isostatic, frictional) and 6 \
         (frictionless), less the rattlers and the neighbours missing at the walls",
        s.coordination
    );
    println!("sphere-wall contacts: {}", s.wall_contacts);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_bed_settles_to_a_random_packing() {
        let s = settle(5, 1, 1.0).unwrap();
        println!("{s:?}");
        assert!(s.time < 1.0, "did not come to rest in 1 s");
        // A frictional random packing lies between random loose (~0.55) and random close
        // (0.64) packing in the bulk; in a 6 d box the walls and the rough top lower the
        // whole-bed value, hence the wide lower bound.
        assert!((0.40..0.66).contains(&s.packing_fraction), "packing fraction {}", s.packing_fraction);
        // Frictional spheres at rest: isostatic Z = 4 to frictionless 6, minus rattlers and
        // the missing neighbours at walls: 2.5..6.5.
        assert!((2.5..6.5).contains(&s.coordination), "coordination {}", s.coordination);
    }
}
