//! Contact dynamics in 2D against statics, Coulomb's law on an incline, Newton's law of
//! restitution, a settled box, and an honest convergence report.

use granula_planar::prelude::*;
use granula_planar::{ContactDynamics, ImpulseContact};
use granula_polygons::shapes;
use std::sync::Arc;

const G: f64 = 9.81;

fn floor() -> HalfPlane {
    HalfPlane::new(DVec2::ZERO, DVec2::Y)
}

fn square(side: f64) -> Arc<ConvexPolygon> {
    Arc::new(shapes::rectangle(side, side).expect("a square"))
}

/// Σ of the normal impulses of the contacts selected, over h (N).
fn normal_force(sim: &ContactDynamics, select: impl Fn(&ImpulseContact) -> bool) -> f64 {
    sim.contacts().iter().filter(|c| select(c)).map(|c| c.impulse.y).sum::<f64>() / sim.dt()
}

#[test]
fn disc_and_square_rest_on_the_floor_without_drift() {
    // Square of side 0.1 m and disc of radius 0.05 m, 1000 kg/m², touching the floor.
    let sq = square(0.1);
    let mut sim = ContactDynamics::builder()
        .dt(1e-3)
        .gravity(DVec2::new(0.0, -G))
        .friction(0.5)
        .tolerance(1e-12)
        .wall(floor())
        .body(BodyBuilder::polygon(sq).position(DVec2::new(0.0, 0.05)).density(1000.0))
        .body(BodyBuilder::disc(0.05).position(DVec2::new(0.5, 0.05)).density(1000.0))
        .build()
        .unwrap();
    let start = sim.bodies.position.clone();
    for _ in 0..1000 {
        let r = sim.step().unwrap();
        assert!(r.converged, "{r:?}");
        for body in 0..2u32 {
            // The floor carries the weight: at convergence the impulses cancel gravity's
            // m g h to the tolerance 1e-12 of the sweep change (relative 1e-9 allows for
            // the round-off of sums of 1e-1 N s impulses).
            let w = sim.bodies.mass[body as usize] * G;
            let f = normal_force(&sim, |c| c.wall && c.j == body);
            assert!((f - w).abs() < 1e-9 * w, "body {body}: floor force {f} against the weight {w}");
        }
    }
    // The square is held at both corners of its face: two contact points.
    assert_eq!(sim.contacts().iter().filter(|c| c.j == 0).count(), 2);
    for (k, p) in start.iter().enumerate() {
        let drift = (sim.bodies.position[k] - *p).length();
        println!("body {k}: drift {drift:.3e} m, θ = {:.3e}", sim.bodies.angle[k]);
        assert!(drift < 1e-9, "body {k} drifted by {drift} m in 1000 steps");
        assert!(sim.bodies.angle[k].abs() < 1e-12, "body {k} rocked: θ = {}", sim.bodies.angle[k]);
    }
}

/// A column of `n` squares of side 0.1 m on the floor, each touching the next.
fn column(n: usize, tolerance: f64, cap: u32) -> ContactDynamics {
    let mut b = ContactDynamics::builder()
        .dt(1e-3)
        .gravity(DVec2::new(0.0, -G))
        .friction(0.5)
        .tolerance(tolerance)
        .max_sweeps(cap)
        .wall(floor());
    for k in 0..n {
        b = b.body(BodyBuilder::polygon(square(0.1)).position(DVec2::new(0.0, 0.05 + 0.1 * k as f64)).density(1000.0));
    }
    b.build().unwrap()
}

#[test]
fn each_contact_of_a_column_carries_the_weight_above() {
    let n = 8;
    let mut sim = column(n, 1e-12, 100_000);
    for _ in 0..200 {
        let r = sim.step().unwrap();
        assert!(r.converged && !r.cap_reached, "{r:?}");
    }
    let w = sim.bodies.mass[0] * G;
    // Floor: the whole column; between squares k and k + 1: the n − k − 1 above. Bound:
    // the sweep tolerance 1e-12 on the impulses, relative 1e-9 for the round-off.
    let floor_force = normal_force(&sim, |c| c.wall);
    assert!((floor_force - n as f64 * w).abs() < 1e-9 * n as f64 * w, "floor {floor_force}");
    for k in 0..n - 1 {
        let f = normal_force(&sim, |c| !c.wall && c.i as usize == k && c.j as usize == k + 1);
        let above = (n - k - 1) as f64 * w;
        assert!((f - above).abs() < 1e-9 * n as f64 * w, "contact {k}-{}: {f} against {above}", k + 1);
    }
    let top = sim.bodies.position[n - 1].y;
    assert!((top - (0.05 + 0.1 * (n - 1) as f64)).abs() < 1e-9, "the column settled by {top}");
}

#[test]
fn a_too_low_cap_is_reported() {
    // Eight squares from rest, no warm start to lean on: three sweeps cannot reach 1e-12.
    let mut sim = column(8, 1e-12, 3);
    let r = sim.step().unwrap();
    assert!(r.cap_reached && !r.converged && r.sweeps == 3 && r.residual > 1e-12, "{r:?}");
    // Given room, the same step converges and says so.
    let mut sim = column(8, 1e-12, 100_000);
    let r = sim.step().unwrap();
    assert!(r.converged && !r.cap_reached && r.residual <= 1e-12 && r.sweeps > 3, "{r:?}");
    println!("column of 8 from rest: {r:?}");
}

/// A square on a floor under gravity tilted by α (the incline's frame): (x velocity after
/// `steps` steps, rotation).
fn incline(alpha: f64, mu: f64, steps: usize) -> (f64, f64) {
    let g = DVec2::new(G * alpha.sin(), -G * alpha.cos());
    let mut sim = ContactDynamics::builder()
        .dt(1e-3)
        .gravity(g)
        .friction(mu)
        .tolerance(1e-13)
        .max_sweeps(100_000)
        .wall(floor())
        .body(BodyBuilder::polygon(square(0.1)).position(DVec2::new(0.0, 0.05)).density(1000.0))
        .build()
        .unwrap();
    for _ in 0..steps {
        assert!(sim.step().unwrap().converged);
    }
    (sim.bodies.velocity[0].x, sim.bodies.angle[0])
}

#[test]
fn a_block_slides_down_an_incline_iff_tan_alpha_exceeds_mu() {
    let mu = 0.4;
    let steps = 500;
    let t = steps as f64 * 1e-3;
    for alpha in [0.45f64, 0.6] {
        // tan 0.45 = 0.483 > 0.4: slides with a = g (sin α − μ cos α) (the impulses are
        // exact per step: the velocity is a t to the sweep tolerance; bound 1e-9 relative).
        let (v, turn) = incline(alpha, mu, steps);
        let a = G * (alpha.sin() - mu * alpha.cos());
        assert!((v - a * t).abs() < 1e-9 * a * t, "α = {alpha}: v = {v}, expected {}", a * t);
        assert!(turn.abs() < 1e-12, "the sliding block tipped: {turn}");
    }
    for alpha in [0.3f64, 0.38] {
        // tan 0.38 = 0.399 < 0.4: sticks (velocity at the sweep tolerance's level).
        let (v, _) = incline(alpha, mu, steps);
        assert!(v.abs() < 1e-10, "α = {alpha}: a sticking block moves at {v}");
    }
}

#[test]
fn newton_restitution_reverses_the_normal_velocity() {
    for e in [0.0, 0.5, 0.9] {
        // A disc touching the floor at 1 m/s, no gravity: one step gives U_n⁺ = −e U_n⁻
        // exactly (one contact, the local solve is exact).
        let mut sim = ContactDynamics::builder()
            .dt(1e-3)
            .restitution(e)
            .friction(0.3)
            .wall(floor())
            .body(BodyBuilder::disc(0.05).position(DVec2::new(0.0, 0.05)).velocity(DVec2::new(0.0, -1.0)))
            .build()
            .unwrap();
        sim.step().unwrap();
        assert!((sim.bodies.velocity[0].y - e).abs() < 1e-14, "e = {e}: {}", sim.bodies.velocity[0].y);
    }
    // Dropped from 0.5 m with e = 0.8: at each impact step v⁺ = −e v⁻ (v⁻ the velocity at
    // the start of that step), and the apex heights fall by e² per bounce (up to the
    // impact happening up to 2 h |v| before contact: bound 2 %).
    let e = 0.8;
    let h = 1e-4;
    let mut sim = ContactDynamics::builder()
        .dt(h)
        .gravity(DVec2::new(0.0, -G))
        .restitution(e)
        .wall(floor())
        .body(BodyBuilder::disc(0.05).position(DVec2::new(0.0, 0.55)))
        .build()
        .unwrap();
    let (mut impacts, mut apexes) = (0, Vec::new());
    let mut last_v = 0.0;
    for _ in 0..25_000 {
        sim.step().unwrap();
        let v = sim.bodies.velocity[0].y;
        if last_v < 0.0 && v > 0.0 {
            assert!((v + e * last_v).abs() < 1e-12, "impact {impacts}: {v} against {}", -e * last_v);
            impacts += 1;
        }
        if last_v > 0.0 && v <= 0.0 {
            apexes.push(sim.bodies.position[0].y - 0.05);
        }
        last_v = v;
    }
    assert!(impacts >= 3 && apexes.len() >= 3, "{impacts} impacts, apexes {apexes:?}");
    let mut previous = 0.5;
    for a in apexes.iter().take(3) {
        assert!((a / previous - e * e).abs() < 0.02, "apex {a} after {previous}: ratio {}", a / previous);
        previous = *a;
    }
}

#[test]
fn a_box_of_polygons_settles_and_the_walls_carry_the_weight() {
    // 200 random convex polygons (5 to 7 vertices, radius 1 cm) in a box 0.3 m wide,
    // dropped from a loose lattice; μ = 0.3 everywhere.
    let (width, r) = (0.3, 0.01);
    let mut b = ContactDynamics::builder()
        .dt(1e-3)
        .gravity(DVec2::new(0.0, -G))
        .friction(0.3)
        .tolerance(1e-6)
        .max_sweeps(2000)
        .wall(floor())
        .wall(HalfPlane::new(DVec2::ZERO, DVec2::X))
        .wall(HalfPlane::new(DVec2::new(width, 0.0), -DVec2::X));
    let mut k = 0u64;
    for row in 0..16 {
        for col in 0..13 {
            if k == 200 {
                break;
            }
            let p = shapes::random_convex(5 + (k % 3) as usize, r, 1.2, k).unwrap();
            let x = 0.012 + 0.022 * col as f64 + 0.005 * (row % 2) as f64;
            b = b.body(
                BodyBuilder::polygon(Arc::new(p))
                    .position(DVec2::new(x, 0.012 + 0.024 * row as f64))
                    .angle(0.7 * k as f64)
                    .density(1000.0),
            );
            k += 1;
        }
    }
    let mut sim = b.build().unwrap();
    let weight: f64 = sim.bodies.mass.iter().sum::<f64>() * G;
    let (mut capped, mut sweeps) = (0, 0u64);
    let started = std::time::Instant::now();
    for _ in 0..1500 {
        let r = sim.step().unwrap();
        capped += usize::from(r.cap_reached);
        sweeps += u64::from(r.sweeps);
    }
    // Printed for the documentation, not asserted.
    println!("box: 1500 steps in {:.2} s of wall time, {sweeps} sweeps", started.elapsed().as_secs_f64());
    let ek = sim.bodies.kinetic_energy();
    let floor_y = sim.wall_reaction(0).y;
    let sides_y = sim.wall_reaction(1).y + sim.wall_reaction(2).y;
    let sides_x = sim.wall_reaction(1).x.abs() + sim.wall_reaction(2).x.abs();
    let report = *sim.report();
    println!(
        "box: E_k = {ek:.3e} J, floor {floor_y:.6} N, side walls {sides_y:.6} N (normal {sides_x:.4} N), \
         weight {weight:.6} N, capped steps {capped}, last step {report:?}"
    );
    // Settled: E_k below 1e-6 of the potential energy scale M g × 1 cm.
    assert!(ek < 1e-6 * weight * r, "E_k = {ek}");
    // Vertical balance of the settled packing: floor + side walls' friction = weight, to
    // the sweep tolerance 1e-6 (relative 1e-4 allows for the residual motion and for the
    // capped steps' error, if any).
    assert!((floor_y + sides_y - weight).abs() < 1e-4 * weight, "{floor_y} + {sides_y} vs {weight}");
    // The floor carries the weight less what friction on the side walls holds up, which
    // is at most μ times their normal force.
    assert!(floor_y <= weight * (1.0 + 1e-4) && sides_y <= 0.3 * sides_x + 1e-9 * weight);
    // Overlaps are not pushed apart (g_pos, 000 eq. 33) and grow a little in capped steps
    // and through the linearised gap of turning bodies: measured 1.7e-4 m, bound 5 % of r.
    assert!(report.max_overlap < 0.05 * r, "overlap {}", report.max_overlap);
}

#[test]
fn a_push_across_the_periodic_boundary_shares_the_momentum() {
    // Four touching discs on a ring of period 0.4 m (no gravity, e = 0, μ = 0): disc 3
    // (at x = 0.35) pushes disc 0 (at 0.05, its image at 0.45) across the boundary at 1 m/s.
    // Perfectly inelastic: the chain moves as one at 1/4 m/s, momentum conserved.
    let mut b =
        ContactDynamics::builder().dt(1e-3).tolerance(1e-13).max_sweeps(100_000).domain(Domain::periodic_x(0.0, 0.4));
    for k in 0..4 {
        let v = if k == 3 { 1.0 } else { 0.0 };
        b = b.body(
            BodyBuilder::disc(0.05).position(DVec2::new(0.05 + 0.1 * k as f64, 0.0)).velocity(DVec2::new(v, 0.0)),
        );
    }
    let mut sim = b.build().unwrap();
    let p0 = sim.bodies.momentum();
    let r = sim.step().unwrap();
    assert!(r.converged, "{r:?}");
    assert!(sim.contacts().iter().any(|c| (c.i, c.j) == (0, 3) && c.impulse.y > 0.0), "no push across the boundary");
    // The chain of 4 equal discs: each at 0.25 m/s to the sweep tolerance (1e-13 on the
    // impulses; bound 1e-10 m/s).
    for k in 0..4 {
        assert!((sim.bodies.velocity[k].x - 0.25).abs() < 1e-10, "disc {k}: {}", sim.bodies.velocity[k].x);
    }
    assert!((sim.bodies.momentum() - p0).length() < 1e-14 * sim.bodies.mass[0]);
}
