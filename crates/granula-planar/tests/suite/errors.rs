//! Bad input gives named errors, never a panic.

use granula_planar::prelude::*;
use granula_polygons::PolygonError;

fn law() -> ContactLaw {
    ContactLaw::builder(1e3).build().unwrap()
}

#[test]
fn a_non_convex_polygon_is_refused_with_the_body_and_the_vertex() {
    // An arrow head: vertex 2 is reflex.
    let arrow = [DVec2::new(0.0, 0.0), DVec2::new(2.0, 1.0), DVec2::new(0.5, 1.0), DVec2::new(0.0, 2.0)];
    let err = Simulation::builder(law())
        .body(BodyBuilder::disc(0.5).position(DVec2::new(5.0, 0.0)))
        .body(BodyBuilder::polygon_from_vertices(&arrow))
        .build()
        .unwrap_err();
    match err {
        PlanarError::BadPolygon { body: 1, source: PolygonError::NotConvex { vertex, .. } } => assert_eq!(vertex, 2),
        e => panic!("unexpected {e:?}"),
    }
}

#[test]
fn a_period_below_two_diameters_is_refused_naming_the_axis() {
    let err = Simulation::builder(law())
        .domain(Domain::periodic(DVec2::ZERO, DVec2::new(10.0, 3.9)))
        .body(BodyBuilder::disc(1.0).position(DVec2::ONE))
        .build()
        .unwrap_err();
    assert_eq!(err, PlanarError::PeriodTooShort { axis: "y", length: 3.9, minimum: 4.0 });
    assert!(err.to_string().contains("along y"));
}

#[test]
fn shear_on_a_non_periodic_axis_is_refused() {
    let err = Simulation::builder(law())
        .domain(Domain::periodic_x(0.0, 10.0).with_shear(1.0))
        .body(BodyBuilder::disc(1.0).position(DVec2::ONE))
        .build()
        .unwrap_err();
    assert_eq!(err, PlanarError::ShearOnNonPeriodicAxis { axis: "y" });
}

#[test]
fn bad_parameters_and_bodies_are_named() {
    assert!(matches!(
        ContactLaw::builder(-1.0).build(),
        Err(PlanarError::BadParameter { name: "normal_stiffness", .. })
    ));
    assert!(matches!(
        ContactLaw::builder(1.0).restitution(1.5, 1.0).build(),
        Err(PlanarError::BadParameter { name: "restitution", .. })
    ));
    let err = Simulation::builder(law()).body(BodyBuilder::disc(f64::NAN).position(DVec2::ZERO)).build().unwrap_err();
    assert!(matches!(err, PlanarError::BadBody { body: 0, field: "radius", .. }), "{err:?}");
    let err = Simulation::builder(law()).body(BodyBuilder::disc(1.0)).build().unwrap_err();
    assert!(matches!(err, PlanarError::BadBody { body: 0, field: "position", .. }), "{err:?}");
    let err = Simulation::builder(law()).dt(0.0).build().unwrap_err();
    assert!(matches!(err, PlanarError::BadParameter { name: "dt", .. }));
}

#[test]
fn a_body_far_away_on_an_open_axis_does_not_blow_up_the_cell_grid() {
    // Periodic along x, open along y, one disc 1e9 m up: the grid stays small (the step
    // takes no time and memory worth noticing) and the two near discs still collide.
    let mut sim = Simulation::builder(law())
        .domain(Domain::periodic_x(0.0, 10.0))
        .dt(1e-3)
        .body(BodyBuilder::disc(0.5).position(DVec2::new(1.0, 0.0)))
        .body(BodyBuilder::disc(0.5).position(DVec2::new(1.9, 0.0)))
        .body(BodyBuilder::disc(0.5).position(DVec2::new(1.0, 1e9)))
        .build()
        .unwrap();
    sim.step().unwrap();
    assert_eq!(sim.contacts().len(), 1);
}
