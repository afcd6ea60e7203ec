//! Stress of a periodic box: a compressed simple cubic lattice of 4 × 4 × 4 spheres in a
//! cube periodic along x, y and z, a quarter of whose bonds along each axis cross a
//! boundary. The Love-Weber stress (the virial of the contact forces, from the solver's
//! published contacts) against the analytic value F/a², and against an independent
//! measure: the force per area transmitted across internal planes and across the periodic
//! boundary itself. The periodic chute of `examples/scenes/` runs a few steps.

use granula_broadphase::LinkedCells;
use granula_core::{Axis, DVec3, MaterialId, Solver, SphereBuilder, World};
use granula_integrators::VelocityVerlet;
use granula_io::output::{loaded_contacts, love_weber_stress};
use granula_laws::hertz_mindlin;
use granula_md::{MdConfig, MdSolver};

const R: f64 = 0.01;
/// Relative compression of the lattice: spacing a = 2R(1 − ε).
const EPS: f64 = 1e-3;

#[test]
fn virial_pressure_of_a_periodic_lattice_equals_the_force_across_a_plane() {
    let a = 2.0 * R * (1.0 - EPS);
    let l = 4.0 * a;
    let mut w = World::builder()
        .gravity(DVec3::ZERO)
        .periodic(Axis::X, 0.0, l)
        .periodic(Axis::Y, 0.0, l)
        .periodic(Axis::Z, 0.0, l)
        .build()
        .unwrap();
    for i in 0..4 {
        for j in 0..4 {
            for k in 0..4 {
                let x = (DVec3::new(i as f64, j as f64, k as f64) + 0.5) * a;
                w.insert(SphereBuilder::new(R, x).build().unwrap()).unwrap();
            }
        }
    }
    let config = MdConfig { skin: 1e-4, threads: Some(1), ..Default::default() };
    let mut s = MdSolver::new(hertz_mindlin(), VelocityVerlet::new(), LinkedCells::new(), config).unwrap();
    s.publish_contacts(true);
    w.step(&mut s, 1e-6).unwrap();
    let mut contacts = Vec::new();
    loaded_contacts(&w, s.contacts().expect("published"), &mut contacts);
    // Six bonds per sphere, each shared by two: 3 × 64.
    assert_eq!(contacts.len(), 192);

    // Hertz (R* = R/2, δ = 2R − a = 2Rε): F = 4/3 E* √R* δ^{3/2}. Each sphere has one bond
    // of length a per axis, so σ_xx = N F a / V = 64 F a / (4a)³ = F / a².
    let e_star = w.materials.pair(MaterialId(0), MaterialId(0)).effective_young;
    let delta = 2.0 * R - a;
    let f = 4.0 / 3.0 * e_star * (0.5 * R).sqrt() * delta.powf(1.5);
    let expected = f / (a * a);
    let virial = love_weber_stress(&w, &contacts, DVec3::ZERO, DVec3::splat(l));
    // The overlaps come from lattice positions rounded to 1e-18 m against δ = 2e-5 m, and
    // the one step moved the balanced spheres by nothing measurable: the stress is F/a² to
    // about 1e-13; 1e-9 is a bound with margin. A bond across the boundary counted twice,
    // or with its unwrapped branch vector (3a long instead of a), would be off by 25 % or
    // more.
    for k in 0..3 {
        let sigma = virial.sigma.col(k)[k];
        assert!((sigma - expected).abs() < 1e-9 * expected, "σ_{k}{k} = {sigma} vs F/a² = {expected}");
        for m in (0..3).filter(|&m| m != k) {
            assert!(virial.sigma.col(k)[m].abs() < 1e-9 * expected);
        }
    }
    assert_eq!(virial.particles, 64);

    // The independent measure: across the plane x = p (and its images p + nL), the force
    // on the far side, per area L², summed over the bonds whose segment from body 1 to the
    // nearest image of body 2 (computed here from the positions) crosses it. At p = 0 the
    // bonds crossing are exactly those across the periodic boundary.
    let b = &w.bodies;
    for p in [0.0, 1.5 * a, 2.2 * a] {
        let mut traction = 0.0;
        let mut crossing = 0;
        for c in &contacts {
            let (x1, x2) = (b.position[c.body1 as usize], b.position[c.body2 as usize]);
            let d = x2.x - x1.x;
            let d = d - l * (d / l).round();
            let (lo, hi) = if d >= 0.0 { (x1.x, x1.x + d) } else { (x1.x + d, x1.x) };
            // Some image p + nL inside [lo, hi).
            let n = ((lo - p) / l).ceil();
            if p + n * l < hi {
                traction += c.force.x * d.signum();
                crossing += 1;
            }
        }
        assert_eq!(crossing, 16, "one bond per row of 4 along x at p = {p}");
        let plane = traction / (l * l);
        assert!(
            (plane - virial.sigma.x_axis.x).abs() < 1e-9 * expected,
            "across x = {p}: {plane} vs the virial's {}",
            virial.sigma.x_axis.x
        );
    }
}

/// The periodic chute of `examples/scenes/` runs: the beads fall onto the rough base and
/// start down the slope (a positive mean velocity along x, which gravity's x component
/// 4.15 m/s² gives from rest), and those near the faces interact with the images across
/// them without blowing up (the world's overlap and energy guards are on).
#[test]
fn the_periodic_chute_scene_runs() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/scenes/periodic_chute_md.toml");
    let scene = granula_run::load_scene(&path).unwrap();
    let dir = std::env::temp_dir().join(format!("granula-periodic-chute-{}", std::process::id()));
    let mut run = granula_run::Run::start(scene, &dir).unwrap();
    for _ in 0..4000 {
        run.step().unwrap();
    }
    let b = &run.world.bodies;
    let dynamic: Vec<usize> = (0..b.len()).filter(|&i| b.inv_mass[i] > 0.0).collect();
    let mean_vx = dynamic.iter().map(|&i| b.velocity[i].x).sum::<f64>() / dynamic.len() as f64;
    assert!(mean_vx > 0.0, "mean velocity down the slope {mean_vx}");
    assert!(run.world.periodic.period(Axis::X).is_some());
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn the_periodic_chute_runs_under_contact_dynamics() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/scenes/periodic_chute_nscd.toml");
    let scene = granula_run::load_scene(&path).unwrap();
    let dir = std::env::temp_dir().join(format!("granula-periodic-chute-nscd-{}", std::process::id()));
    let mut run = granula_run::Run::start(scene, &dir).unwrap();
    // 0.04 s: the packing falls onto the base and starts down the slope.
    for _ in 0..400 {
        run.step().unwrap();
    }
    let b = &run.world.bodies;
    let dynamic: Vec<usize> = (0..b.len()).filter(|&i| b.inv_mass[i] > 0.0).collect();
    let mean_vx = dynamic.iter().map(|&i| b.velocity[i].x).sum::<f64>() / dynamic.len() as f64;
    assert!(mean_vx > 0.0, "mean velocity down the slope {mean_vx}");
    // Rigid contacts: the deepest overlap of any two beads (through the periodic faces) is
    // what the θ-scheme lets contacts close within a step and the tolerance 1e-4 leaves,
    // far below 2 % of a diameter (4e-5 m) with Δt = 1e-4 s and speeds of a few 0.1 m/s.
    let mut deepest: f64 = 0.0;
    for (k, &i) in dynamic.iter().enumerate() {
        for j in (0..b.len()).filter(|&j| j != i && (b.inv_mass[j] == 0.0 || dynamic[..k].contains(&j))) {
            if !b.radius[j].is_finite() {
                continue; // the floor plane
            }
            let shift = run.world.periodic.minimum_image_shift(b.position[i], b.position[j]);
            let gap = (b.position[j] + shift - b.position[i]).length() - b.radius[i] - b.radius[j];
            deepest = deepest.max(-gap);
        }
    }
    assert!(deepest < 4e-5, "deepest overlap {deepest} m");
    // Some beads crossed a periodic face (positions are unwrapped).
    assert!(dynamic.iter().any(|&i| b.position[i].x >= 0.016 || b.position[i].y < 0.0 || b.position[i].y >= 0.016));
    let _ = std::fs::remove_dir_all(dir);
}
