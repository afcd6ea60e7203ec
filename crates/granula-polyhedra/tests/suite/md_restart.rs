//! Polyhedra under the MD solver: a cube resting on a floor and a cube dropped, turned and
//! tilted, onto it on an edge (plane–polyhedron pairs of several points each), and a
//! solver restored from a checkpoint mid-run continues bit for bit.

use granula_broadphase::BruteForce;
use granula_core::{DQuat, DVec3, Narrowphase, PlaneBuilder, World};
use granula_integrators::VelocityVerlet;
use granula_laws::prelude::*;
use granula_md::{MdConfig, MdSolver};
use granula_polyhedra::{register_all, shapes, PolyhedronBuilder};
use std::sync::Arc;

type Law = Composed<PowerLaw, HuntCrossley, BrendelDippel>;
type Solver = MdSolver<Law, VelocityVerlet, BruteForce>;

const DT: f64 = 2e-6;

fn world() -> World {
    let mut narrowphase = Narrowphase::new();
    register_all(&mut narrowphase).unwrap();
    let mut w = World::builder().narrowphase(narrowphase).build().unwrap();
    w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().unwrap()).unwrap();
    let cube = Arc::new(shapes::cube(0.1).unwrap());
    w.insert(PolyhedronBuilder::new(cube.clone(), DVec3::new(0.0, 0.0, 0.05 - 6e-7)).build().unwrap()).unwrap();
    // A second cube beside the first, turned and tilted, falling onto the floor on an edge.
    let turned = DQuat::from_rotation_z(0.4) * DQuat::from_rotation_x(0.3);
    let top = PolyhedronBuilder::new(cube, DVec3::new(0.3, 0.0, 0.063)).orientation(turned).velocity(-0.5 * DVec3::Z);
    w.insert(top.build().unwrap()).unwrap();
    w
}

fn solver() -> Solver {
    let law =
        Composed::new(PowerLaw::new(1e7, 1.0).unwrap(), HuntCrossley::from_material(), BrendelDippel::from_material());
    MdSolver::new(law, VelocityVerlet::new(), BruteForce, MdConfig { skin: 2e-3, ..Default::default() }).unwrap()
}

fn histories(s: &Solver) -> Vec<String> {
    s.contact_histories().map(|(k, h)| format!("{k:?} {h:?}")).collect()
}

#[test]
fn a_restored_solver_continues_a_polyhedra_run_bit_for_bit() {
    let (mut a, mut sa) = (world(), solver());
    let k = 2000;
    let mut most = 0;
    for _ in 0..k {
        a.step(&mut sa, DT).unwrap();
        most = most.max(sa.contact_histories().count());
    }
    // The resting cube stands on four corners, the falling one lands on an edge.
    assert!(most >= 6, "several points per pair: {most}");
    let state = sa.save_state();
    assert!(!state.points.is_empty());
    // The same world at the same step, by the same steps, and a fresh solver restored.
    let (mut b, mut tmp) = (world(), solver());
    for _ in 0..k {
        b.step(&mut tmp, DT).unwrap();
    }
    let mut sb = solver();
    sb.restore_state(&state, &b).unwrap();
    for _ in 0..k {
        a.step(&mut sa, DT).unwrap();
        b.step(&mut sb, DT).unwrap();
    }
    assert_eq!(histories(&sb), histories(&sa));
    assert_eq!(b.bodies.position, a.bodies.position);
    assert_eq!(b.bodies.velocity, a.bodies.velocity);
    assert_eq!(b.bodies.orientation, a.bodies.orientation);
    assert_eq!(b.bodies.angular_velocity, a.bodies.angular_velocity);
}
