//! Blocks on blocks under NSCD: the block solve of a pair of two movable bodies
//! (`granula_nscd::pair_lock`). A cube resting on its face on a larger cube touches it at
//! four corners, 12 impulse components on the 6 degrees of freedom of their relative
//! motion, so the reactions are not unique, as for a cube on a plane. On an incline with μ
//! above tan α a stack must stay at rest; with the top pair's μ below tan α the top cube
//! must slide on the lower one at g (sin α − μ cos α) while the lower one stays put.

use granula_broadphase::BruteForce;
use granula_core::{DVec3, Material, MaterialId, Narrowphase, PlaneBuilder, World};
use granula_nscd::{Criterion, NscdConfig, NscdSolver};
use granula_polyhedra::{register_all, shapes, PolyhedronBuilder};
use std::sync::Arc;

const G: f64 = 9.81;
/// Slope angle (rad), as in `pair_lock_nscd.rs`.
const ALPHA: f64 = 25.0 * std::f64::consts::PI / 180.0;
const DENSITY: f64 = 2700.0;
const DT: f64 = 1e-4;

/// Gravity turned by α about y over the plane z = 0, and cubes of the given edges stacked
/// centred on one another, each with the given material (0: the first one, `rough`; 1:
/// `slick`); the plane is `rough`. Returns the world and the cubes' dense indices.
fn stack(mu_rough: f64, mu_slick: f64, cubes: &[(f64, u16)]) -> (World, Vec<usize>) {
    let mut narrowphase = Narrowphase::new();
    register_all(&mut narrowphase).unwrap();
    let gravity = G * DVec3::new(-ALPHA.sin(), 0.0, -ALPHA.cos());
    let rough = Material { density: DENSITY, friction: mu_rough, ..Material::named("rough") };
    let slick = Material { density: DENSITY, friction: mu_slick, ..Material::named("slick") };
    let mut world =
        World::builder().gravity(gravity).material(rough).material(slick).narrowphase(narrowphase).build().unwrap();
    world.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().unwrap()).unwrap();
    let mut base = 0.0;
    let mut indices = Vec::new();
    for &(edge, material) in cubes {
        let cube = Arc::new(shapes::cube(edge).unwrap());
        let at = DVec3::new(0.0, 0.0, base + 0.5 * edge);
        let body = PolyhedronBuilder::new(cube, at).material(MaterialId(material)).build().unwrap();
        let h = world.insert(body).unwrap();
        indices.push(world.bodies.index(h).unwrap());
        base += edge;
    }
    (world, indices)
}

/// The largest displacement of the cubes from where they started, over `steps` steps.
fn drift(world: &mut World, solver: &mut NscdSolver<BruteForce>, cubes: &[usize], steps: usize) -> f64 {
    let start: Vec<DVec3> = cubes.iter().map(|&i| world.bodies.position[i]).collect();
    let mut worst: f64 = 0.0;
    for _ in 0..steps {
        world.step(solver, DT).unwrap();
        for (&i, &x0) in cubes.iter().zip(&start) {
            worst = worst.max((world.bodies.position[i] - x0).length());
        }
    }
    worst
}

/// Three cubes (0.1, 0.07, 0.05 m) on the incline under the default sweeps (random order,
/// local criterion 1e-4): at μ = 1.001 tan α (a margin of 0.1 %) and 1.2 tan α every pair
/// locks (the plane's and the two cube-on-cube pairs), the stack does not move, and every
/// impulse lies in its Coulomb cone.
#[test]
fn a_stack_of_three_cubes_on_an_incline_stays_at_rest() {
    for margin in [1.001, 1.2] {
        let mu = margin * ALPHA.tan();
        let (mut world, cubes) = stack(mu, mu, &[(0.1, 0), (0.07, 0), (0.05, 0)]);
        let mut solver = NscdSolver::new(BruteForce, NscdConfig::default()).unwrap();
        let moved = drift(&mut world, &mut solver, &cubes, 2000);
        println!("three cubes, mu = {margin} tan(alpha): drift {moved:.3e} m over 0.2 s");
        let report = world.step(&mut solver, DT).unwrap();
        assert_eq!((report.contacts, report.pairs), (12, 3), "four corners per pair");
        assert!(solver.last_pair_locks() >= 3, "the three pairs lock");
        // Each lock holds its pair exactly, but the three pairs are coupled (the middle cube
        // is in two of them) and block Gauss-Seidel over the pairs converges to the local
        // criterion's 1e-4 of the impulses, a velocity of up to 1e-4 g Δt = 1e-7 m/s left
        // in a step. Measured 3e-11 m at μ = 1.001 tan α, almost all of it in the first ten
        // steps, and it scales with the criterion (3e-13 m at 1e-6, 3e-15 m at 1e-8), so it
        // is the sweeps' tolerance, not a creep: 1e-9 m leaves room and is four orders
        // below the 6e-5 m that the point sweeps let a stack of two creep in 0.03 s (the
        // next test).
        assert!(moved < 1e-9, "the stack moved {moved} m");
        for (b1, b2, p) in solver.impulses() {
            // The world impulse acts on body 2; every normal here is ±z, up on the upper body.
            let upper_is_second = world.bodies.position[b2 as usize].z > world.bodies.position[b1 as usize].z;
            let up = if upper_is_second { p } else { -p };
            let (pn, pt) = (up.z, (up.x * up.x + up.y * up.y).sqrt());
            assert!(pn >= 0.0, "Signorini: P_n = {pn}");
            // Coulomb's cone to round-off (the projection is exact to a few ulps).
            assert!(pt <= mu * pn * (1.0 + 1e-12), "Coulomb: |P_t| = {pt} > mu P_n = {}", mu * pn);
        }
    }
}

/// The point sweeps alone (`lock_pairs` off) let the same stack creep at μ = 1.2 tan α:
/// the loose default criterion stops them, often after a few sweeps, on a state in which the
/// top cube slides at about 2 mm/s. This is what the block solve of two movable bodies
/// fixes, and it shows that the drift bound of the test above can fail.
#[test]
fn without_the_block_solve_the_point_sweeps_let_a_cube_on_a_cube_creep() {
    let mu = 1.2 * ALPHA.tan();
    let (mut world, cubes) = stack(mu, mu, &[(0.1, 0), (0.06, 0)]);
    let config = NscdConfig { lock_pairs: false, ..Default::default() };
    let mut solver = NscdSolver::new(BruteForce, config).unwrap();
    let moved = drift(&mut world, &mut solver, &cubes, 300);
    println!("cube on a cube, point sweeps only: drift {moved:.3e} m over 0.03 s");
    // Measured 6.4e-5 m: the top cube creeps at about 2 mm/s from the first steps on
    // (2.0e-5 m after 0.01 s, 4.3e-4 m after 0.2 s). 5e-6 m is more than three orders above
    // the locked stack's 1e-9 bound and a factor 13 below the creep.
    assert!(moved > 5e-6, "the point sweeps held the stack ({moved} m): the test above proves less than it says");
}

/// The top cube of a two-cube stack on a slick material (μ = 0.9 tan α with the lower cube,
/// by the minimum rule of mixing) and the lower one on the rough plane (μ = 2): the top
/// pair is solved sliding on every step, the top cube slides at g (sin α − μ cos α) and
/// the lower cube, locked on the plane, does not move.
#[test]
fn a_cube_slides_on_a_cube_at_the_coulomb_rate() {
    let mu = 0.9 * ALPHA.tan();
    let (mut world, cubes) = stack(2.0, mu, &[(0.1, 0), (0.06, 1)]);
    let criterion = Criterion::LocalRelative { epsilon: 1e-8, cutoff: 1e-12, max_iterations: 1000 };
    let mut solver = NscdSolver::new(BruteForce, NscdConfig { criterion, ..Default::default() }).unwrap();
    let (lower, top) = (cubes[0], cubes[1]);
    let lower_start = world.bodies.position[lower];
    // As on the plane, the first steps start the four corners sliding from rest; the
    // acceleration is measured from 0.02 s to 0.06 s, before the top cube's corners
    // (3 cm from the lower cube's edge) reach it at about 0.075 s.
    let mut v_start = 0.0;
    for k in 1..=600 {
        world.step(&mut solver, DT).unwrap();
        if k > 1 {
            assert!(solver.last_pair_slides() >= 1, "step {k}: the top pair is solved sliding");
        }
        if k == 200 {
            v_start = world.bodies.velocity[top].x;
        }
    }
    let a = (world.bodies.velocity[top].x - v_start) / (400.0 * DT);
    let expected = -G * (ALPHA.sin() - mu * ALPHA.cos());
    let lower_moved = (world.bodies.position[lower] - lower_start).length();
    println!("cube on a cube, mu = 0.9 tan(alpha): a = {a:.6} m/s², expected {expected:.6}; lower cube moved {lower_moved:.3e} m");
    // Implicit Euler is exact for the constant acceleration and the block solve's tolerance
    // (1e-10 of the velocity scale) bounds the friction's error; 1e-5 of a as on the plane.
    assert!((a / expected - 1.0).abs() < 1e-5, "a = {a}, expected {expected}");
    // The lower cube is held by the rough plane (μ = 2, far above what the load needs):
    // locked, with what the sweeps leave at the criterion's 1e-8, at most 1e-8 g Δt ~ 1e-11
    // m/s, 1e-15 m a step, 6e-13 m over the run (measured 1.4e-16 m): 1e-12 m.
    assert!(lower_moved < 1e-12, "the lower cube moved {lower_moved} m");
}
