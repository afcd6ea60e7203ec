//! Contact dynamics (`granula_nscd`) on polygons of the core's planar world, with the point
//! contacts of `granula_polygons::register_all` (004 §2.3.3.2): statics (bodies at rest on
//! a floor, a column of squares), Coulomb's law on an incline and on a side wall, Newton's
//! restitution, a push across a periodic boundary, a settled box of 200 polygons, an
//! honest report of a capped step, and bit-identical restarts and thread counts.

use glam::DVec2;
use granula_broadphase::{BruteForce, LinkedCells};
use granula_core::narrowphase::Narrowphase;
use granula_core::{
    Axis, Broadphase, ContactStatus, DVec3, Material, PlaneBuilder, Solver, SphereBuilder, StepWarning, World,
    WorldBuilder,
};
use granula_nscd::{
    Criterion, ImpactLaw, NonConvergence, NscdConfig, NscdSolver, NscdState, Restitution, SignoriniCoulomb, SweepOrder,
};
use granula_polygons::{register_all, shapes, ConvexPolygon, PolygonBuilder};
use std::sync::Arc;

const G: f64 = 9.81;
const DT: f64 = 1e-3;

/// A planar world whose narrowphase has the polygons' point contacts, with gravity `g` in
/// the plane and one material of friction `mu` and density 1000 kg/m³ (kg/m² per unit
/// thickness, 002 eq. 1a).
fn planar(g: DVec2, mu: f64) -> WorldBuilder {
    let mut narrowphase = Narrowphase::new();
    register_all(&mut narrowphase).unwrap();
    let material = Material { friction: mu, density: 1000.0, ..Material::named("grain") };
    World::builder().planar(true).gravity(g.extend(0.0)).material(material).narrowphase(narrowphase)
}

fn square(side: f64) -> Arc<ConvexPolygon> {
    Arc::new(shapes::rectangle(side, side).unwrap())
}

/// The local criterion (000 eq. 35) at ε = 1e-12 with a cutoff of 1e-14 N, forward sweeps
/// without momentum (the extrapolation keeps disturbing the largest single change, which
/// this criterion measures): the converged impulses of these small problems are exact to
/// about 1e-12 relative.
fn tight() -> NscdConfig {
    NscdConfig {
        criterion: Criterion::LocalRelative { epsilon: 1e-12, cutoff: 1e-14, max_iterations: 100_000 },
        momentum: false,
        ..Default::default()
    }
}

/// Σ of the last step's impulses on body `on` from body `from` (dense indices), over Δt (N).
fn force<B: Broadphase>(s: &NscdSolver<B>, from: u32, on: u32) -> DVec3 {
    let p: DVec3 = s
        .impulses()
        .map(|(i, j, p)| {
            if (i, j) == (from, on) {
                p
            } else if (i, j) == (on, from) {
                -p
            } else {
                DVec3::ZERO
            }
        })
        .sum();
    p / DT
}

/// A step that must converge.
fn step<B: Broadphase>(w: &mut World, s: &mut NscdSolver<B>) {
    let r = w.step(s, DT).unwrap();
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
}

#[test]
fn disc_and_square_rest_on_the_floor_without_drift() {
    // Square of side 0.1 m and disc of radius 0.05 m, touching the floor (body 0).
    let mut w = planar(DVec2::new(0.0, -G), 0.5).build().unwrap();
    w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Y).build().unwrap()).unwrap();
    w.insert(PolygonBuilder::new(square(0.1), DVec2::new(0.0, 0.05)).build().unwrap()).unwrap();
    w.insert(SphereBuilder::new(0.05, DVec3::new(0.5, 0.05, 0.0)).build().unwrap()).unwrap();
    let start = w.bodies.position.clone();
    let mut s = NscdSolver::new(BruteForce, tight()).unwrap();
    let mut worst: f64 = 0.0;
    for _ in 0..1000 {
        step(&mut w, &mut s);
        for body in 1..3u32 {
            // The floor carries the weight: at convergence the impulses cancel m g Δt to the
            // criterion's 1e-12; 1e-9 relative allows for the round-off of the sums.
            let weight = w.bodies.mass[body as usize] * G;
            let f = force(&s, 0, body);
            worst = worst.max((f.y / weight - 1.0).abs());
            assert!((f.y - weight).abs() < 1e-9 * weight && f.x.abs() < 1e-9 * weight, "body {body}: {f}");
        }
    }
    // The square is held at both corners of its face: two contact points.
    assert_eq!(s.impulses().filter(|c| c.1 == 1).count(), 2);
    for (k, &from) in start.iter().enumerate().skip(1) {
        let drift = (w.bodies.position[k] - from).length();
        let turn = w.bodies.orientation[k].to_scaled_axis().length();
        println!("body {k}: drift {drift:.3e} m, θ = {turn:.3e}; worst floor force error {worst:.3e}");
        assert!(drift < 1e-9, "body {k} drifted by {drift} m in 1000 steps");
        assert!(turn < 1e-12, "body {k} rocked: θ = {turn}");
    }
}

/// A column of `n` squares of side 0.1 m on the floor (body 0), each touching the next.
fn column(n: usize) -> World {
    let mut w = planar(DVec2::new(0.0, -G), 0.5).build().unwrap();
    w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Y).build().unwrap()).unwrap();
    for k in 0..n {
        let at = DVec2::new(0.0, 0.05 + 0.1 * k as f64);
        w.insert(PolygonBuilder::new(square(0.1), at).build().unwrap()).unwrap();
    }
    w
}

#[test]
fn each_contact_of_a_column_carries_the_weight_above() {
    let n = 8;
    let mut w = column(n);
    let mut s = NscdSolver::new(BruteForce, tight()).unwrap();
    for _ in 0..200 {
        step(&mut w, &mut s);
    }
    let weight = w.bodies.mass[1] * G;
    // Body k + 1 is square k; the contact below square k carries the n − k squares above
    // it and itself (statics; two corners with one normal each and the y and θ balances
    // of every square: a determinate system). Bound: the criterion's 1e-12 on each
    // impulse, 1e-9 relative for the round-off of sums along the column.
    let mut worst: f64 = 0.0;
    for k in 0..n {
        let f = force(&s, k as u32, k as u32 + 1);
        let expected = (n - k) as f64 * weight;
        worst = worst.max((f.y / expected - 1.0).abs());
        assert!((f.y - expected).abs() < 1e-9 * n as f64 * weight, "below square {k}: {f} against {expected}");
        assert!(f.x.abs() < 1e-9 * n as f64 * weight, "below square {k}: friction {f}");
    }
    let top = w.bodies.position[n].y;
    println!("column: worst relative force error {worst:.3e}, top at {top:.15} m");
    assert!((top - (0.05 + 0.1 * (n - 1) as f64)).abs() < 1e-9, "the column settled by {top}");
}

#[test]
fn a_too_low_cap_is_reported() {
    // Eight squares from rest, no warm start to lean on: three sweeps cannot reach 1e-12.
    let capped = |on_cap| {
        let criterion = Criterion::LocalRelative { epsilon: 1e-12, cutoff: 1e-14, max_iterations: 3 };
        NscdSolver::new(BruteForce, NscdConfig { criterion, on_cap, ..tight() }).unwrap()
    };
    let r = column(8).step(&mut capped(NonConvergence::Warn), DT).unwrap();
    let [StepWarning::IterationCapReached { iterations, residual }] = r.warnings[..] else {
        panic!("expected the cap's warning: {:?}", r.warnings)
    };
    assert!(iterations == 3 && r.iterations == 3 && residual > 1e-12, "{r:?}");
    // Asked to stop, the step fails with the same figures.
    let e = column(8).step(&mut capped(NonConvergence::Error), DT).unwrap_err();
    assert!(e.to_string().contains("3 sweeps") && e.to_string().contains("tolerance 1.0e-12"), "{e}");
    // Given room, the same step converges and says so.
    let mut s = NscdSolver::new(BruteForce, tight()).unwrap();
    let r = column(8).step(&mut s, DT).unwrap();
    assert!(r.warnings.is_empty() && r.iterations > 3 && r.residual <= 1e-12, "{r:?}");
    println!("column of 8 from rest: {} sweeps, residual {:.2e}", r.iterations, r.residual);
}

/// A square of side 0.1 m on a floor under gravity tilted by α (the incline's frame):
/// (x velocity after `steps` steps from rest, rotation).
fn incline(alpha: f64, mu: f64, steps: usize) -> (f64, f64) {
    let mut w = planar(G * DVec2::new(alpha.sin(), -alpha.cos()), mu).build().unwrap();
    w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Y).build().unwrap()).unwrap();
    w.insert(PolygonBuilder::new(square(0.1), DVec2::new(0.0, 0.05)).build().unwrap()).unwrap();
    let config = NscdConfig {
        criterion: Criterion::LocalRelative { epsilon: 1e-13, cutoff: 1e-15, max_iterations: 100_000 },
        ..tight()
    };
    let mut s = NscdSolver::new(BruteForce, config).unwrap();
    for _ in 0..steps {
        step(&mut w, &mut s);
    }
    (w.bodies.velocity[1].x, w.bodies.orientation[1].to_scaled_axis().z)
}

#[test]
fn a_block_slides_down_an_incline_iff_tan_alpha_exceeds_mu() {
    let (mu, steps) = (0.4, 500);
    let t = steps as f64 * DT;
    for alpha in [0.45f64, 0.6] {
        // tan 0.45 = 0.483 > 0.4: slides with a = g (sin α − μ cos α); implicit Euler is
        // exact for a constant acceleration (v = a t), the impulses to the criterion's
        // 1e-13: bound 1e-9 relative.
        let (v, turn) = incline(alpha, mu, steps);
        let a = G * (alpha.sin() - mu * alpha.cos());
        println!("α = {alpha}: v = {v:.15}, a t = {:.15}, θ = {turn:.2e}", a * t);
        assert!((v - a * t).abs() < 1e-9 * a * t, "α = {alpha}: v = {v}, expected {}", a * t);
        assert!(turn.abs() < 1e-12, "the sliding block tipped: {turn}");
    }
    for alpha in [0.3f64, 0.38] {
        // tan 0.38 = 0.399 < 0.4: sticks; the velocity stays at the criterion's level
        // (1e-13 of g Δt per step over 500 steps: 5e-13 m/s; bound 1e-10).
        let (v, _) = incline(alpha, mu, steps);
        println!("α = {alpha}: v = {v:.2e}");
        assert!(v.abs() < 1e-10, "α = {alpha}: a sticking block moves at {v}");
    }
}

#[test]
fn a_block_pressed_on_a_side_wall_slides_down_at_g_minus_mu_f_over_m() {
    // A square (m = 10 kg) pressed with F = 100 N against a wall with normal +x, μ = 0.05:
    // the wall's normal force is F, friction μF = 5 N < m g, so a = g − μ F/m downwards.
    // The two contacts have their normal along x, whose default tangent frame leaves the
    // plane: the solver must turn it into the plane for friction to act.
    let (mu, f, steps) = (0.05, 100.0, 200);
    let mut w = planar(DVec2::new(0.0, -G), mu).build().unwrap();
    w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::X).build().unwrap()).unwrap();
    let body = PolygonBuilder::new(square(0.1), DVec2::new(0.05, 1.0)).external_force(DVec2::new(-f, 0.0));
    w.insert(body.build().unwrap()).unwrap();
    let mut s = NscdSolver::new(BruteForce, tight()).unwrap();
    s.publish_contacts(true);
    for _ in 0..steps {
        step(&mut w, &mut s);
    }
    let records = s.contacts().unwrap();
    assert_eq!(records.len(), 2);
    for c in records {
        assert!(c.tangent.z == 0.0 && c.status == ContactStatus::Sliding, "{c:?}");
    }
    let m = w.bodies.mass[1];
    let a = G - mu * f / m;
    let v = -w.bodies.velocity[1].y;
    // Implicit Euler is exact for a constant acceleration; one closed-form local solve per
    // contact and a converged pair: 1e-9 relative.
    println!("side wall: v = {v:.15}, a t = {:.15}", a * steps as f64 * DT);
    assert!((v / (a * steps as f64 * DT) - 1.0).abs() < 1e-9, "v = {v}");
    assert!(w.bodies.orientation[1].to_scaled_axis().length() < 1e-12);
}

/// Newton's law U_n⁺ = −e U_n⁻ (004 §2.2.2.2) with one coefficient e for every pair.
fn newton(e: f64) -> NscdSolver<BruteForce> {
    let law = SignoriniCoulomb { restitution: Restitution::Constant(ImpactLaw::Newton, e) };
    NscdSolver::with_law(BruteForce, law, tight()).unwrap()
}

/// A disc of radius 0.05 m or a square of side 0.1 m (`square`) resting on its face,
/// centred at height `y` above the floor (body 0), falling at `v` m/s.
fn on_floor(is_square: bool, y: f64, v: f64, g: f64) -> World {
    let mut w = planar(DVec2::new(0.0, -g), 0.3).build().unwrap();
    w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Y).build().unwrap()).unwrap();
    let body = if is_square {
        PolygonBuilder::new(square(0.1), DVec2::new(0.0, y)).velocity(DVec2::new(0.0, -v)).build().unwrap()
    } else {
        SphereBuilder::new(0.05, DVec3::new(0.0, y, 0.0)).velocity(DVec3::new(0.0, -v, 0.0)).build().unwrap()
    };
    w.insert(body).unwrap();
    w
}

#[test]
fn newton_restitution_reverses_the_normal_velocity() {
    for is_square in [false, true] {
        for e in [0.0, 0.5, 0.9] {
            // Touching the floor at 1 m/s, no gravity: one step gives U_n⁺ = −e U_n⁻. A disc
            // has one contact, solved exactly (round-off, 1e-14); a square lands on two
            // corners, solved together by the sweeps to 1e-12 (bound 1e-10), and does not
            // turn (by symmetry).
            let mut w = on_floor(is_square, 0.05, 1.0, 0.0);
            step(&mut w, &mut newton(e));
            let (v, spin) = (w.bodies.velocity[1].y, w.bodies.angular_velocity[1].z);
            let bound = if is_square { 1e-10 } else { 1e-14 };
            assert!((v - e).abs() < bound && spin.abs() < bound, "square {is_square}, e = {e}: v {v}, ω {spin}");
        }
    }
}

#[test]
fn a_dropped_body_bounces_by_e_squared() {
    // Dropped from 0.5 m with e = 0.8 under gravity: at each impact step v⁺ = −e v⁻ (v⁻ the
    // velocity at the start of that step: the shock takes the whole step's loads), and the
    // apex heights fall by e² per bounce, up to the impact happening within one step of
    // Δt = 1e-4 s before contact (at most 2 Δt |v| ≈ 6e-4 m of 0.5 m): bound 2 %.
    let (e, dt) = (0.8, 1e-4);
    for is_square in [false, true] {
        let mut w = on_floor(is_square, 0.55, 0.0, G);
        let mut s = newton(e);
        let (mut impacts, mut apexes, mut last_v) = (0, Vec::new(), 0.0);
        for _ in 0..25_000 {
            w.step(&mut s, dt).unwrap();
            let v = w.bodies.velocity[1].y;
            if last_v < 0.0 && v > 0.0 {
                // One contact (disc) or two converged ones (square): 1e-12 m/s.
                assert!((v + e * last_v).abs() < 1e-12, "impact {impacts}: {v} against {}", -e * last_v);
                impacts += 1;
            }
            if last_v > 0.0 && v <= 0.0 {
                apexes.push(w.bodies.position[1].y - 0.05);
            }
            last_v = v;
        }
        println!("square {is_square}: {impacts} impacts, apexes {apexes:?}");
        assert!(impacts >= 3 && apexes.len() >= 3, "{impacts} impacts, apexes {apexes:?}");
        let mut previous = 0.5;
        for a in apexes.iter().take(3) {
            assert!((a / previous - e * e).abs() < 0.02, "apex {a} after {previous}: ratio {}", a / previous);
            previous = *a;
        }
        assert!(w.bodies.orientation[1].to_scaled_axis().length() < 1e-9, "the square turned");
    }
}

#[test]
fn a_push_across_the_periodic_boundary_shares_the_momentum() {
    // Four touching discs (r = 0.05 m) or squares (side 0.1 m) on a ring of period 0.4 m
    // along x (no gravity, inelastic, μ = 0): body 3 (at x = 0.35) pushes body 0 (at 0.05,
    // its image at 0.45) across the boundary at 1 m/s. Perfectly inelastic: the chain
    // moves as one at 1/4 m/s, momentum conserved.
    for is_square in [false, true] {
        let mut narrowphase = Narrowphase::new();
        register_all(&mut narrowphase).unwrap();
        let mut w = World::builder()
            .planar(true)
            .gravity(DVec3::ZERO)
            .material(Material { friction: 0.0, density: 1000.0, ..Material::named("grain") })
            .narrowphase(narrowphase)
            .periodic(Axis::X, 0.0, 0.4)
            .build()
            .unwrap();
        for k in 0..4 {
            let (x, v) = (DVec2::new(0.05 + 0.1 * k as f64, 0.0), if k == 3 { 1.0 } else { 0.0 });
            let body = if is_square {
                PolygonBuilder::new(square(0.1), x).velocity(DVec2::new(v, 0.0)).build().unwrap()
            } else {
                SphereBuilder::new(0.05, x.extend(0.0)).velocity(DVec3::new(v, 0.0, 0.0)).build().unwrap()
            };
            w.insert(body).unwrap();
        }
        let p0 = w.momentum();
        let config = NscdConfig {
            criterion: Criterion::LocalRelative { epsilon: 1e-13, cutoff: 1e-15, max_iterations: 100_000 },
            ..tight()
        };
        let mut s = NscdSolver::new(BruteForce, config).unwrap();
        step(&mut w, &mut s);
        let across = force(&s, 3, 0);
        assert!(across.x > 0.0, "no push across the boundary: {across}");
        // Each body at 0.25 m/s to the criterion's 1e-13 on the impulses: bound 1e-10 m/s.
        for k in 0..4 {
            let v = w.bodies.velocity[k];
            assert!((v.x - 0.25).abs() < 1e-10 && v.y.abs() < 1e-10, "square {is_square}, body {k}: {v}");
        }
        // Momentum: every impulse acts on two bodies with opposite signs (round-off).
        assert!((w.momentum() - p0).length() < 1e-13 * w.bodies.mass[0], "{} vs {p0}", w.momentum());
    }
}

/// The box of 0.3 m between a floor (body 0) and two side walls (bodies 1 and 2), μ = 0.3,
/// with `count` random convex polygons (5 to 7 vertices, radius 1 cm, elongation 1.2) on a
/// loose lattice, each turned by 0.7 k rad.
fn polygon_box(count: u64) -> World {
    let width = 0.3;
    let mut w = planar(DVec2::new(0.0, -G), 0.3).build().unwrap();
    w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Y).build().unwrap()).unwrap();
    w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::X).build().unwrap()).unwrap();
    w.insert(PlaneBuilder::new(DVec3::new(width, 0.0, 0.0), -DVec3::X).build().unwrap()).unwrap();
    for k in 0..count {
        let (row, col) = (k / 13, k % 13);
        let p = shapes::random_convex(5 + (k % 3) as usize, 0.01, 1.2, k).unwrap();
        let x = 0.012 + 0.022 * col as f64 + 0.005 * (row % 2) as f64;
        let at = DVec2::new(x, 0.012 + 0.024 * row as f64);
        w.insert(PolygonBuilder::new(Arc::new(p), at).angle(0.7 * k as f64).build().unwrap()).unwrap();
    }
    w
}

/// The box's solver: 000 eq. 36 (the global mean change of the forces) at ε = 1e-6 with a
/// cap of 2000 sweeps, otherwise the defaults (forward sweep with momentum).
fn box_config() -> NscdConfig {
    NscdConfig { criterion: Criterion::GlobalMean { epsilon: 1e-6, max_iterations: 2000 }, ..Default::default() }
}

#[test]
fn a_box_of_polygons_settles_and_the_walls_carry_the_weight() {
    // 117 polygons (9 rows of 13): the lattice collapses between 0.1 and 0.25 s and is at
    // rest by 0.3 s (E_k 5e-12 M g r, the walls' vertical forces within 1e-5 of the
    // weight), carried by the floor and by friction on both side walls (7.3 N of 334 N, on
    // 87 N of normal force); 0.5 s leaves 0.2 s at rest. Measured at 0.5 s: E_k 3e-13
    // M g r, floor + side walls 1.1e-6 off the weight, 10 capped steps.
    let (count, steps, r) = (117u32, 500, 0.01);
    let mut w = polygon_box(u64::from(count));
    let mut s = NscdSolver::new(LinkedCells::new(), box_config()).unwrap();
    let weight: f64 = w.bodies.mass.iter().filter(|m| m.is_finite()).sum::<f64>() * G;
    let (mut capped, mut sweeps, mut overlaps) = (0, 0u64, Vec::new());
    let started = std::time::Instant::now();
    for _ in 0..steps {
        let report = w.step(&mut s, DT).unwrap();
        capped += usize::from(!report.warnings.is_empty());
        sweeps += u64::from(report.iterations);
        overlaps.push(report.max_overlap);
    }
    let (initial, last) = (overlaps[0], overlaps[steps - 1]);
    let grown = overlaps[1..].iter().fold(0.0f64, |a, &b| a.max(b));
    let ek = w.kinetic_energy();
    let on_walls: Vec<DVec3> = (0..3u32).map(|wall| (3..3 + count).map(|b| force(&s, wall, b)).sum()).collect();
    let (floor_y, sides_y) = (on_walls[0].y, on_walls[1].y + on_walls[2].y);
    let sides_x = on_walls[1].x.abs() + on_walls[2].x.abs();
    println!(
        "box: {steps} steps in {:.2} s of wall time, {sweeps} sweeps, {capped} capped steps; E_k = {ek:.3e} J, \
         floor {floor_y:.6} N, side walls {sides_y:.6} N (normal {sides_x:.4} N), weight {weight:.6} N, \
         overlaps: initial {initial:.3e} m, largest after {grown:.3e} m, last {last:.3e} m",
        started.elapsed().as_secs_f64()
    );
    // Settled: E_k below 1e-6 of the potential energy scale M g × 1 cm.
    assert!(ek < 1e-6 * weight * r, "E_k = {ek}");
    // Vertical balance of the settled packing: floor + side walls' friction = weight, to
    // the criterion's 1e-6 on the mean force (relative 1e-4 allows for the residual motion
    // and for the capped steps' error, if any).
    assert!((floor_y + sides_y - weight).abs() < 1e-4 * weight, "{floor_y} + {sides_y} vs {weight}");
    // The floor carries the weight less what friction on the side walls holds up, which
    // is at most μ times their normal force.
    assert!(floor_y <= weight * (1.0 + 1e-4) && sides_y.abs() <= 0.3 * sides_x + 1e-9 * weight);
    // The lattice starts with overlaps (elongated polygons 2.4 cm long 2.2 cm apart), which
    // are not pushed apart (g_pos, 000 eq. 33): no later step may exceed the initial one,
    // and overlaps made during the run (through the linearised gap of turning bodies and
    // capped steps) stay below 5 % of r in the settled packing.
    assert!(grown <= initial, "an overlap grew from {initial} to {grown}");
    assert!(last < 0.05 * r, "overlap {last}");
}

/// `steps` steps of the 40-polygon box from its start, with a random sweep, warm start and
/// a fixed number of sweeps, so that each step depends on the carried impulses and on the
/// random stream.
fn restart_scene() -> (World, NscdSolver<LinkedCells>) {
    let config = NscdConfig {
        sweep: SweepOrder::Random,
        criterion: Criterion::Fixed { iterations: 12 },
        seed: 7,
        ..Default::default()
    };
    (polygon_box(40), NscdSolver::new(LinkedCells::new(), config).unwrap())
}

/// Whether two worlds' bodies are bit-identical.
fn same_bits(a: &World, b: &World) -> bool {
    let (x, y) = (&a.bodies, &b.bodies);
    x.position == y.position
        && x.velocity == y.velocity
        && x.orientation == y.orientation
        && x.angular_velocity == y.angular_velocity
}

/// Runs `before` steps, saves world and solver (through bincode, as a checkpoint file
/// does), edits the solver's state, resumes in a fresh world and solver for `after` steps.
fn resumed(before: usize, after: usize, edit: impl Fn(&mut NscdState<()>)) -> World {
    let (mut w, mut s) = restart_scene();
    for _ in 0..before {
        w.step(&mut s, DT).unwrap();
    }
    let mut state: NscdState<()> = bincode::deserialize(&bincode::serialize(&s.save_state()).unwrap()).unwrap();
    // Meaningful only with loaded contacts and a used random stream.
    assert!(state.carried.iter().filter(|c| c.impulse != DVec3::ZERO).count() > 40);
    assert!(state.rng_word_pos > 0);
    edit(&mut state);
    let (mut again, mut s2) = restart_scene();
    again.restore_state(&w.save_state()).unwrap();
    s2.restore_state(&state, &again).unwrap();
    for _ in 0..after {
        again.step(&mut s2, DT).unwrap();
    }
    again
}

#[test]
fn a_checkpointed_polygon_run_resumes_bit_identically() {
    // 437 steps straight against 311 + 126 resumed (an arbitrary step, the polygons falling
    // and colliding).
    let (before, after) = (311, 126);
    let (mut straight, mut s) = restart_scene();
    for _ in 0..before + after {
        straight.step(&mut s, DT).unwrap();
    }
    assert!(same_bits(&straight, &resumed(before, after, |_| {})));
    // Without the carried impulses, or with the random stream restarted, the run differs:
    // the comparison sees the solver's state.
    assert!(!same_bits(
        &straight,
        &resumed(before, after, |st| st.carried.iter_mut().for_each(|c| *c = Default::default()))
    ));
    assert!(!same_bits(&straight, &resumed(before, after, |st| st.rng_word_pos = 0)));
}

#[test]
fn one_and_two_threads_give_the_same_bits() {
    // The solver sweeps on one thread; the linked-cell broadphase finds its pairs in
    // parallel on the rayon pool, in runs of 2048 bodies. 100 steps of a box of 2100
    // polygons (two runs; falling and colliding, some 20 sweeps a step by the end) on pools
    // of 1 and 2 threads end bit-identical.
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let mut w = polygon_box(2100);
            let mut s = NscdSolver::new(LinkedCells::new(), box_config()).unwrap();
            let mut sweeps = 0;
            for _ in 0..100 {
                sweeps += w.step(&mut s, DT).unwrap().iterations;
            }
            (w, sweeps, s.impulses().filter(|c| c.2 != DVec3::ZERO).count())
        })
    };
    let ((one, sweeps, loaded), (two, _, _)) = (run(1), run(2));
    println!("2100 polygons, 100 steps: {sweeps} sweeps, {loaded} loaded contacts at the end");
    assert!(one.bodies.velocity.iter().any(|v| v.length() > 1e-3), "the packing is still moving");
    // The comparison sees the contacts: measured 7526 sweeps over the run and 146 contacts
    // with an impulse in the last step (bounds a factor 3 and more below).
    assert!(sweeps > 1000 && loaded > 50, "{sweeps} sweeps, {loaded} loaded contacts");
    assert!(same_bits(&one, &two));
}

#[test]
fn a_square_landing_on_a_corner_turns_about_it_with_its_polar_moment() {
    // A square (side a = 0.1 m, m = 10 kg, I_z = m a²/6 from its outline, 002 eq. 1b) turned
    // by 0.3 rad falls at 1 m/s, no gravity, its lowest corner touching the floor;
    // inelastic (e = 0) and μ = 1, so the corner sticks. The impulse acts at the corner, so
    // the angular momentum about it is conserved: m (−r) × v = (I_z + m |r|²) ω, with r
    // the corner from the centre, and the centre then moves as −ω ẑ × r.
    let mut w = planar(DVec2::ZERO, 1.0).build().unwrap();
    w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Y).build().unwrap()).unwrap();
    let (h, phi) = (0.05, 0.3f64);
    let r = DVec2::from_angle(phi).rotate(DVec2::new(-h, -h));
    let body = PolygonBuilder::new(square(0.1), DVec2::new(0.0, -r.y)).angle(phi).velocity(DVec2::new(0.0, -1.0));
    w.insert(body.build().unwrap()).unwrap();
    let mut s = newton(0.0);
    s.publish_contacts(true);
    step(&mut w, &mut s);
    let records = s.contacts().unwrap();
    assert!(records.len() == 1 && records[0].status == ContactStatus::Sticking, "{records:?}");
    let (m, i_z) = (10.0, 10.0 * 0.01 / 6.0);
    assert!((w.bodies.mass[1] / m - 1.0).abs() < 1e-14 && (w.bodies.inertia[1].z / i_z - 1.0).abs() < 1e-14);
    let omega = m * (-r).perp_dot(DVec2::new(0.0, -1.0)) / (i_z + m * r.length_squared());
    let v = -omega * DVec2::new(-r.y, r.x);
    let (got_w, got_v) = (w.bodies.angular_velocity[1].z, w.bodies.velocity[1].truncate());
    println!("corner landing: ω = {got_w:.15} against {omega:.15} rad/s, v = {got_v} against {v}");
    // One contact, its 2×2 local problem solved in closed form (004 §2.3.3.4): round-off.
    assert!((got_w / omega - 1.0).abs() < 1e-12 && (got_v - v).length() < 1e-12, "ω {got_w}, v {got_v}");
}
