//! A planar MD run saved at an arbitrary step and restored into a simulation built afresh
//! from the same description continues with the same bits as the uninterrupted run.

use granula_planar::prelude::*;
use granula_polygons::shapes;
use std::sync::Arc;

/// 40 random polygons and 8 discs falling onto a floor in a box periodic along x, with a
/// row of prescribed particles sliding along the floor; μ = 0.5 with the predictor
/// elongation (002 §4), so the contacts carry histories that the restart must keep.
fn build() -> Simulation {
    let law = ContactLaw::builder(1e5)
        .restitution(0.5, 0.05)
        .tangential_ratio(1.0 / 3.0)
        .friction(0.5)
        .tangential(Tangential::Predictor)
        .build()
        .unwrap();
    let mut b = Simulation::builder(law)
        .domain(Domain::periodic_x(0.0, 0.2))
        .dt(2e-5)
        .gravity(DVec2::new(0.0, -9.81))
        .wall(HalfPlane::new(DVec2::ZERO, DVec2::Y));
    for k in 0..8 {
        b = b.body(
            BodyBuilder::disc(0.01).position(DVec2::new(0.025 * k as f64, 0.005)).prescribed(DVec2::new(0.05, 0.0)),
        );
    }
    for k in 0..48u64 {
        let p = DVec2::new(0.012 + 0.04 * (k % 5) as f64 + 0.004 * (k / 5 % 2) as f64, 0.03 + 0.021 * (k / 5) as f64);
        let body = if k % 6 == 5 {
            BodyBuilder::disc(0.008)
        } else {
            BodyBuilder::polygon(Arc::new(shapes::random_convex(5 + (k % 4) as usize, 0.009, 1.3, k).unwrap()))
        };
        b = b.body(
            body.position(p)
                .angle(0.37 * k as f64)
                .velocity(DVec2::new(0.1 * ((k % 3) as f64 - 1.0), 0.0))
                .density(1000.0),
        );
    }
    b.build().unwrap()
}

fn same_bits(a: &Simulation, b: &Simulation) {
    let (x, y) = (&a.bodies, &b.bodies);
    for i in 0..x.len() {
        assert_eq!(x.position[i].to_array().map(f64::to_bits), y.position[i].to_array().map(f64::to_bits), "body {i}");
        assert_eq!(x.velocity[i].to_array().map(f64::to_bits), y.velocity[i].to_array().map(f64::to_bits), "body {i}");
        assert_eq!(x.angle[i].to_bits(), y.angle[i].to_bits(), "body {i}");
        assert_eq!(x.angular_velocity[i].to_bits(), y.angular_velocity[i].to_bits(), "body {i}");
    }
    assert_eq!(a.contacts(), b.contacts());
    assert_eq!((a.time().to_bits(), a.steps()), (b.time().to_bits(), b.steps()));
}

#[test]
fn a_restored_run_continues_bit_for_bit() {
    let total = 4000;
    let mut whole = build();
    whole.run(total).unwrap();
    assert!(whole.contacts().len() > 10, "the pile is in contact: {}", whole.contacts().len());
    assert!(whole.contacts().iter().any(|c| c.state.xi != 0.0), "histories carried");
    // Interrupted at step 0 (before the Gear start-up), at an arbitrary step, and twice.
    for stops in [vec![0], vec![1733], vec![911, 2950]] {
        let mut run = build();
        let mut done = 0;
        for stop in stops {
            run.run(stop - done).unwrap();
            let saved = run.save_state();
            run = build();
            run.restore_state(&saved).unwrap();
            done = stop;
        }
        run.run(total - done).unwrap();
        same_bits(&whole, &run);
    }
}

#[test]
fn a_state_of_another_scene_is_refused() {
    let mut a = build();
    a.run(10).unwrap();
    let saved = a.save_state();
    let law = ContactLaw::builder(1e5).build().unwrap();
    let mut other = Simulation::builder(law).body(BodyBuilder::disc(0.01).position(DVec2::ZERO)).build().unwrap();
    let e = other.restore_state(&saved).unwrap_err();
    assert!(matches!(e, PlanarError::BadState { field: "bodies", .. }), "{e}");
    let e = a.restore_state(&saved[..saved.len() - 3]).unwrap_err();
    assert!(matches!(e, PlanarError::BadState { .. }), "{e}");
    let e = a.restore_state(b"not a state at all").unwrap_err();
    assert!(matches!(e, PlanarError::BadState { field: "header", .. }), "{e}");
}
