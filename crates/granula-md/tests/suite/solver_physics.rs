//! Physics of the MD solver with a small test law: conservation laws, the energy ledger,
//! planar mode, determinism across thread counts, walls, kinematic bodies, the incline.

use crate::common::{ledger_total, mechanical, HertzElastic, SpringDashpot};
use granula_broadphase::BruteForce;
use granula_core::{
    DVec3, Dofs, Material, MaterialId, PlaneBuilder, Prescribed, Solver, SphereBuilder, StepWarning, World,
};
use granula_integrators::{Gear, SymplecticEuler, VelocityVerlet};
use granula_md::{MdConfig, MdSolver};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const R: f64 = 0.01;
const M: f64 = 0.01;
const KN: f64 = 1e4;

fn world(gravity: DVec3, friction: f64) -> World {
    World::builder().gravity(gravity).material(Material { friction, ..Material::default() }).build().unwrap()
}

fn sphere(w: &mut World, x: DVec3, v: DVec3, omega: DVec3) -> granula_core::BodyHandle {
    w.insert(SphereBuilder::new(R, x).mass(M).velocity(v).angular_velocity(omega).build().unwrap()).unwrap()
}

#[test]
fn pair_collision_conserves_momentum_to_round_off() {
    // Oblique, frictional, spinning collision without gravity: contact forces are equal and
    // opposite and act at one point, so linear and angular momentum are conserved up to the
    // rounding of each update.
    let mut w = world(DVec3::ZERO, 0.5);
    sphere(&mut w, DVec3::ZERO, DVec3::new(1.0, 0.2, 0.0), DVec3::new(0.0, 0.0, 30.0));
    sphere(&mut w, DVec3::new(0.03, 0.008, 0.002), DVec3::new(-0.5, 0.0, 0.1), DVec3::new(5.0, -3.0, 0.0));
    let law = SpringDashpot::with_restitution(KN, 0.6, M / 2.0);
    let dt = law.contact_time(M / 2.0) / 100.0;
    let mut s = MdSolver::new(law, Gear::six(), BruteForce, MdConfig { skin: 1e-3, ..Default::default() }).unwrap();
    let (p0, l0) = (w.momentum(), w.angular_momentum());
    let mut touched = false;
    for _ in 0..3000 {
        let r = w.step(&mut s, dt).unwrap();
        touched |= r.contacts > 0;
    }
    assert!(touched, "the spheres must collide");
    let (p1, l1) = (w.momentum(), w.angular_momentum());
    // |p| ~ 1e-2 kg m/s; 3000 steps of a few roundings of 1e-16 relative each.
    assert!((p1 - p0).length() < 1e-14 * p0.length().max(1e-2), "Δp = {}", p1 - p0);
    // Angular momentum: the torques cancel exactly about any point, but Gear's corrector
    // updates x and v separately and is not a variational scheme, so x × m v is kept only to
    // its truncation error (measured 5e-12 relative at Δt = t_c/100): 1e-10 relative.
    assert!((l1 - l0).length() < 1e-10 * l0.length(), "ΔL = {} of {}", l1 - l0, l0.length());
}

/// A small box of spheres falling on a floor between four side walls.
fn box_scene(n_side: usize, friction: f64, seed: u64) -> World {
    let mut w = world(DVec3::new(0.0, 0.0, -9.81), friction);
    let l = 2.2 * R * n_side as f64;
    w.insert_open_box(DVec3::ZERO, l, l, MaterialId(0)).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for i in 0..n_side {
        for j in 0..n_side {
            for k in 0..n_side {
                let x = DVec3::new(
                    1.1 * R * (2 * i + 1) as f64,
                    1.1 * R * (2 * j + 1) as f64,
                    1.1 * R * (2 * k + 1) as f64,
                );
                let v =
                    DVec3::new(rng.random_range(-0.3..0.3), rng.random_range(-0.3..0.3), rng.random_range(-0.3..0.3));
                let omega = DVec3::new(rng.random_range(-5.0..5.0), 0.0, rng.random_range(-5.0..5.0));
                sphere(&mut w, x, v, omega);
            }
        }
    }
    w
}

#[test]
fn mechanical_energy_never_increases_with_damping_and_the_ledger_closes() {
    let mut w = box_scene(3, 0.4, 7);
    let law = SpringDashpot { gamma_t: 0.2, ..SpringDashpot::with_restitution(KN, 0.5, M / 2.0) };
    let dt = law.contact_time(M / 2.0) / 200.0;
    let mut s = MdSolver::new(law, Gear::six(), BruteForce, MdConfig { skin: 2e-3, ..Default::default() }).unwrap();
    let e0 = ledger_total(&w);
    let scale = mechanical(&w) - w.potential_energy() + M * 9.81 * 0.1;
    let mut e_prev = mechanical(&w);
    let mut worst_rise: f64 = 0.0;
    let mut worst_ledger: f64 = 0.0;
    for _ in 0..20_000 {
        w.step(&mut s, dt).unwrap();
        let e = mechanical(&w);
        worst_rise = worst_rise.max(e - e_prev);
        e_prev = e;
        worst_ledger = worst_ledger.max((ledger_total(&w) - e0).abs());
    }
    assert!(w.ledger.dissipated.normal > 0.0 && w.ledger.dissipated.sliding > 0.0);
    println!("worst per-step rise {worst_rise:e}, worst ledger error {worst_ledger:e}, scale {scale:e}");
    // Per step, the 6-value Gear scheme at Δt = t_c/200 moves energy by its truncation error
    // only (≪ 1e-9 of the energy scale); a rise beyond that would be created energy.
    assert!(worst_rise < 1e-9 * scale, "energy rose by {worst_rise} in one step");
    // Ledger: trapezoidal contact work against the integrator's energy error, and contacts
    // that open with a little stored energy: 1e-4 of the energy scale over 20 000 steps.
    assert!(worst_ledger < 1e-4 * scale, "ledger off by {worst_ledger}");
}

#[test]
fn disc_collision_in_planar_mode_stays_in_the_plane() {
    let mut w = World::builder().gravity(DVec3::new(0.0, -9.81, 0.0)).planar(true).build().unwrap();
    w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Y).build().unwrap()).unwrap();
    let a = sphere(&mut w, DVec3::new(0.0, 0.02, 0.5), DVec3::new(1.0, 0.0, 0.0), DVec3::new(0.0, 0.0, 10.0));
    let b = sphere(&mut w, DVec3::new(0.05, 0.025, 0.5), DVec3::new(-1.0, 0.3, 0.0), DVec3::new(0.0, 0.0, -20.0));
    let law = SpringDashpot::with_restitution(KN, 0.5, M / 2.0);
    let dt = law.contact_time(M / 2.0) / 50.0;
    let mut s =
        MdSolver::new(law, VelocityVerlet::new(), BruteForce, MdConfig { skin: 1e-3, ..Default::default() }).unwrap();
    let mut contacts = 0;
    for _ in 0..5000 {
        contacts += w.step(&mut s, dt).unwrap().contacts;
    }
    assert!(contacts > 0);
    for h in [a, b] {
        let i = w.bodies.index(h).unwrap();
        // Locked dofs are never written: exact equalities.
        assert_eq!(w.bodies.position[i].z, 0.5);
        assert_eq!(w.bodies.velocity[i].z, 0.0);
        assert_eq!((w.bodies.angular_velocity[i].x, w.bodies.angular_velocity[i].y), (0.0, 0.0));
    }
}

fn run_threads<I: granula_core::Integrator>(threads: usize, integrator: I) -> Vec<DVec3> {
    let mut w = box_scene(14, 0.5, 3);
    let law = SpringDashpot::with_restitution(KN, 0.5, M / 2.0);
    let dt = law.contact_time(M / 2.0) / 50.0;
    // parallel_min_pairs = 0: the threads are used however small the system.
    let cfg = MdConfig { skin: 1e-3, threads: Some(threads), parallel_min_pairs: 0, ..Default::default() };
    let mut s = MdSolver::new(law, integrator, BruteForce, cfg).unwrap();
    for _ in 0..60 {
        w.step(&mut s, dt).unwrap();
    }
    let mut out = w.bodies.position.clone();
    out.extend_from_slice(&w.bodies.angular_velocity);
    out
}

#[test]
fn one_and_two_threads_give_bit_identical_results() {
    // 14³ = 2744 spheres: more than one chunk of pairs and of bodies, so the parallel paths
    // of the force pass, the gather and the (parallel) Verlet updates are used.
    assert_eq!(run_threads(1, Gear::six()), run_threads(2, Gear::six()));
    assert_eq!(run_threads(1, VelocityVerlet::new()), run_threads(2, VelocityVerlet::new()));
}

#[test]
fn elastic_spheres_in_a_closed_box_keep_their_energy_m4() {
    // VALIDATION M4: no damping, no friction, velocity Verlet at Δt = t_c/50, 1e5 steps.
    let mut w = world(DVec3::ZERO, 0.0);
    let l = 0.1;
    for (p, n) in [
        (DVec3::ZERO, DVec3::X),
        (DVec3::ZERO, DVec3::Y),
        (DVec3::ZERO, DVec3::Z),
        (DVec3::splat(l), -DVec3::X),
        (DVec3::splat(l), -DVec3::Y),
        (DVec3::splat(l), -DVec3::Z),
    ] {
        w.insert(PlaneBuilder::new(p, n).build().unwrap()).unwrap();
    }
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for i in 0..8 {
        let x = DVec3::new(
            0.025 + 0.05 * (i & 1) as f64,
            0.025 + 0.05 * ((i >> 1) & 1) as f64,
            0.025 + 0.05 * (i >> 2) as f64,
        );
        let v = DVec3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
        sphere(&mut w, x, v, DVec3::ZERO);
    }
    // Hertz (smooth at contact onset, unlike a linear spring whose kink costs velocity
    // Verlet an O((ω Δt)²) energy error per collision); Δt = t_c/50 for the fastest
    // sphere-sphere impact possible here (relative speed ≤ 2√3 m/s).
    let law = HertzElastic { e_star: 1e7 };
    let dt = law.contact_time(M / 2.0, R / 2.0, 2.0 * 3f64.sqrt()) / 50.0;
    let mut s =
        MdSolver::new(law, VelocityVerlet::new(), BruteForce, MdConfig { skin: 2e-3, ..Default::default() }).unwrap();
    let e0 = mechanical(&w);
    let mut contacts = 0;
    let mut worst: f64 = 0.0;
    for _ in 0..100_000 {
        let r = w.step(&mut s, dt).unwrap();
        contacts += r.contacts;
        // Drift is measured between collisions: during a contact velocity Verlet's energy
        // oscillates by O((ω Δt)²) around its shadow value, which is not drift.
        if r.contacts == 0 {
            worst = worst.max((mechanical(&w) - e0).abs());
        }
    }
    println!("contacts·steps {contacts}, worst relative drift {:e}", worst / e0);
    assert!(contacts > 1000, "collisions must happen");
    assert!(worst < 1e-4 * e0, "relative energy drift {}", worst / e0);
}

#[test]
fn kinematic_piston_work_enters_the_ledger() {
    // A wall moving at constant speed pushes a sphere resting on a frictionless floor: the
    // sphere's energy comes from the piston's work, which the report accounts for.
    let mut w = world(DVec3::new(0.0, 0.0, -9.81), 0.0);
    w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().unwrap()).unwrap();
    let piston = PlaneBuilder::new(DVec3::new(-0.02, 0.0, 0.0), DVec3::X)
        .kinematic(Prescribed::Constant(DVec3::new(0.2, 0.0, 0.0)), Prescribed::Constant(DVec3::ZERO))
        .build()
        .unwrap();
    w.insert(piston).unwrap();
    sphere(&mut w, DVec3::new(0.0, 0.0, R - M * 9.81 / KN), DVec3::ZERO, DVec3::ZERO);
    let law = SpringDashpot::with_restitution(KN, 0.7, M);
    let dt = law.contact_time(M) / 200.0;
    let mut s = MdSolver::new(law, Gear::six(), BruteForce, MdConfig { skin: 1e-3, ..Default::default() }).unwrap();
    let e0 = ledger_total(&w);
    for _ in 0..20_000 {
        w.step(&mut s, dt).unwrap();
    }
    let ke = w.kinetic_energy();
    assert!(w.ledger.external_work > 0.0 && ke > 0.0);
    // Trapezoidal power of the piston and of the contact, Δt = t_c/200: 1e-4 of the work.
    let err = (ledger_total(&w) - e0).abs();
    assert!(err < 1e-4 * w.ledger.external_work, "ledger error {err} vs work {}", w.ledger.external_work);
}

/// Acceleration along the slope of a sphere on a plane tilted by `alpha` (gravity tilted
/// instead), measured from the velocity after `t` seconds of motion from rest.
fn incline_acceleration(alpha: f64, mu: f64, lock_rotation: bool) -> (f64, f64) {
    let g = 9.81;
    let mut w = world(DVec3::new(g * alpha.sin(), 0.0, -g * alpha.cos()), mu);
    w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().unwrap()).unwrap();
    let kn = 1e6;
    let z0 = R - M * g * alpha.cos() / kn;
    let mut b = SphereBuilder::new(R, DVec3::new(0.0, 0.0, z0)).mass(M);
    if lock_rotation {
        b = b.lock(Dofs::ROTATION);
    }
    let h = w.insert(b.build().unwrap()).unwrap();
    let law = SpringDashpot { kt: 2.0 / 7.0 * kn, gamma_t: 0.0, ..SpringDashpot::with_restitution(kn, 0.3, M) };
    let dt = law.contact_time(M) / 50.0;
    let mut s = MdSolver::new(law, Gear::six(), BruteForce, MdConfig { skin: 1e-3, ..Default::default() }).unwrap();
    let steps = (0.2 / dt) as usize;
    for _ in 0..steps {
        w.step(&mut s, dt).unwrap();
    }
    let i = w.bodies.index(h).unwrap();
    let t = steps as f64 * dt;
    (w.bodies.velocity[i].x / t, w.bodies.angular_velocity[i].y * R)
}

#[test]
fn sphere_rolls_without_slip_or_slides_on_an_incline() {
    let g = 9.81;
    let alpha = 20f64.to_radians();
    // Large μ (> 2/7 tan α): rolling without slip, a = (5/7) g sin α, v = ω R.
    let (a, wr) = incline_acceleration(alpha, 0.5, false);
    let expected = 5.0 / 7.0 * g * alpha.sin();
    // The tangential spring oscillates about the rolling state with an amplitude set by the
    // start from rest; averaged over 0.2 s it perturbs a by well under 0.5 %.
    assert!((a - expected).abs() < 5e-3 * expected, "rolling a = {a}, expected {expected}");
    assert!((wr - a * 0.2).abs() < 5e-3 * a * 0.2, "no slip: ω R = {wr}");
    // Small μ: sliding, a = g (sin α − μ cos α).
    let mu = 0.05;
    let (a, _) = incline_acceleration(alpha, mu, false);
    let expected = g * (alpha.sin() - mu * alpha.cos());
    // Sliding from the first steps on: only the first spring loading differs, < 0.5 %.
    assert!((a - expected).abs() < 5e-3 * expected, "sliding a = {a}, expected {expected}");
}

#[test]
fn sphere_at_rest_on_a_slope_stays_with_brendel_dippel_friction() {
    // μ = 0.5 > tan 20° = 0.364, rotation locked (a free sphere would roll): after the
    // tangential spring has taken its static load the sphere must not creep. A second,
    // far-away sphere in free flight forces broadphase rebuilds, so the test also checks
    // that the spring's history survives them.
    let g = 9.81;
    let alpha = 20f64.to_radians();
    let mut w = world(DVec3::new(g * alpha.sin(), 0.0, -g * alpha.cos()), 0.5);
    w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().unwrap()).unwrap();
    let kn = 1e5;
    let h = w
        .insert(
            SphereBuilder::new(R, DVec3::new(0.0, 0.0, R - M * g * alpha.cos() / kn))
                .mass(M)
                .lock(Dofs::ROTATION)
                .build()
                .unwrap(),
        )
        .unwrap();
    sphere(&mut w, DVec3::new(0.0, 1.0, 100.0), DVec3::new(0.0, 3.0, 0.0), DVec3::ZERO);
    let law = SpringDashpot {
        gamma_t: 2.0 * (M * kn * 2.0 / 7.0).sqrt(),
        kt: 2.0 / 7.0 * kn,
        ..SpringDashpot::with_restitution(kn, 0.3, M)
    };
    let dt = law.contact_time(M) / 50.0;
    let mut s = MdSolver::new(law, Gear::six(), BruteForce, MdConfig { skin: 1e-4, ..Default::default() }).unwrap();
    for _ in 0..10_000 {
        w.step(&mut s, dt).unwrap();
    }
    let i = w.bodies.index(h).unwrap();
    let x_settled = w.bodies.position[i];
    let rebuilds_before = s.rebuilds();
    for _ in 0..100_000 {
        w.step(&mut s, dt).unwrap();
    }
    let drift = (w.bodies.position[i] - x_settled).length();
    println!("drift {drift:e} m, rebuilds {}", s.rebuilds() - rebuilds_before);
    assert!(s.rebuilds() - rebuilds_before > 100, "the flying sphere must trigger rebuilds");
    assert!(drift < 1e-6 * R, "crept by {drift} m");
}

#[test]
fn time_step_above_the_recommended_bound_is_reported() {
    let mut w = world(DVec3::ZERO, 0.5);
    sphere(&mut w, DVec3::ZERO, DVec3::ZERO, DVec3::ZERO);
    let law = SpringDashpot::with_restitution(KN, 0.5, M / 2.0);
    let cfg = MdConfig { max_time_step: Some(1e-4), ..Default::default() };
    let mut s = MdSolver::new(law, SymplecticEuler, BruteForce, cfg).unwrap();
    let r = w.step(&mut s, 2e-4).unwrap();
    assert_eq!(r.warnings, vec![StepWarning::TimeStepTooLarge { dt: 2e-4, recommended: 1e-4 }]);
    assert!(w.step(&mut s, 1e-4).unwrap().warnings.is_empty());
}

#[test]
fn local_damping_dissipates_and_the_ledger_books_it() {
    // An elastic sphere bouncing on an elastic floor loses energy only through the body-level
    // non-viscous damping (004 §2.3.2.4); the ledger books it under `body_damping`.
    let mut w = world(DVec3::new(0.0, 0.0, -9.81), 0.0);
    w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().unwrap()).unwrap();
    sphere(&mut w, DVec3::new(0.0, 0.0, 0.02), DVec3::ZERO, DVec3::ZERO);
    let law = SpringDashpot { kn: KN, gamma_n: 0.0, kt: 0.0, gamma_t: 0.0 };
    let dt = law.contact_time(M) / 400.0;
    let cfg = MdConfig {
        skin: 1e-3,
        local_damping: Some(granula_laws::LocalDamping::new(0.3).unwrap()),
        ..Default::default()
    };
    let mut s = MdSolver::new(law, Gear::six(), BruteForce, cfg).unwrap();
    let e0 = ledger_total(&w);
    let start = mechanical(&w);
    for _ in 0..40_000 {
        w.step(&mut s, dt).unwrap();
    }
    let d = w.ledger.dissipated;
    assert!(d.body_damping > 0.1 * start.abs().max(M * 9.81 * 0.01), "damping dissipated {}", d.body_damping);
    // The elastic contact books only the trapezoid-rule residue of its work (O(Δt²)).
    assert!((d.normal + d.sliding).abs() < 1e-3 * d.body_damping, "contact booked {}", d.normal + d.sliding);
    // The damping force jumps when v changes sign; its work is booked with the rectangle
    // rule at the evaluated velocity: 1e-3 of the dissipated energy.
    let err = (ledger_total(&w) - e0).abs();
    assert!(err < 1e-3 * d.body_damping, "ledger error {err} vs damping {}", d.body_damping);
}

#[test]
fn recorded_contact_forces_are_the_forces_the_step_applied() {
    // Velocity Verlet evaluates the forces at the end-of-step positions, so with an elastic,
    // history-free law each recorded force must be the law's force at the final positions.
    let run = |record: bool| {
        let mut w = box_scene(5, 0.0, 7);
        let law = HertzElastic { e_star: 1e7 };
        let mut s = MdSolver::new(law, VelocityVerlet::new(), BruteForce, MdConfig::default()).unwrap();
        let mut contacts = 0;
        for _ in 0..3000 {
            contacts = w.step(&mut s, 1e-5).unwrap().contacts;
        }
        s.publish_contacts(record);
        let last = w.step(&mut s, 1e-5).unwrap();
        let forces: Vec<_> = s
            .contacts()
            .unwrap_or_default()
            .iter()
            .filter(|c| c.force != DVec3::ZERO)
            .map(|c| (c.key, c.force))
            .collect();
        (w, contacts.max(last.contacts), forces)
    };
    let (w, contacts, forces) = run(true);
    assert!(contacts > 10, "the spheres must be in contact ({contacts})");
    let b = &w.bodies;
    let mut sphere_pairs = 0;
    for (key, f) in &forces {
        let (i, j) = (b.index(key.body1).unwrap(), b.index(key.body2).unwrap());
        let (Some(r1), Some(r2)) = (b.shape[i].sphere_radius(), b.shape[j].sphere_radius()) else { continue };
        sphere_pairs += 1;
        let d = b.position[j] - b.position[i];
        let overlap = r1 + r2 - d.length();
        let r_eff = r1 * r2 / (r1 + r2);
        let expected = d.normalize() * (4.0 / 3.0 * 1e7 * r_eff.sqrt() * overlap * overlap.sqrt());
        // The same formulas in a different order differ by round-off only. The overlap is a
        // difference of numbers of size 2r: its rounding, a few ε·2r, times the contact
        // stiffness dF/dδ = 2 E √(R* δ), bounds the absolute error of a nearly open contact;
        // the rest (normal, products) is a few ε relative, covered by 1e-12.
        let stiffness = 2.0 * 1e7 * (r_eff * overlap).sqrt();
        let tolerance = 1e-12 * expected.length() + stiffness * 8.0 * f64::EPSILON * (r1 + r2);
        assert!((*f - expected).length() <= tolerance, "{f} vs {expected}");
    }
    // Every overlapping sphere pair is in the record, and nothing else is.
    let overlapping = (0..b.len())
        .flat_map(|i| (i + 1..b.len()).map(move |j| (i, j)))
        .filter(|&(i, j)| match (b.shape[i].sphere_radius(), b.shape[j].sphere_radius()) {
            (Some(r1), Some(r2)) => (b.position[j] - b.position[i]).length() < r1 + r2,
            _ => false,
        })
        .count();
    assert!(overlapping > 0);
    assert_eq!(sphere_pairs, overlapping);
    // Recording changes nothing in the motion, and without it the record is empty.
    let (w_off, _, off) = run(false);
    assert!(off.is_empty(), "a step that does not publish has no records");
    assert_eq!(w.bodies.position, w_off.bodies.position);
}

/// A two-sided linear spring: F = k δ along the normal for overlaps and gaps alike (within
/// its range), storing ½ k δ². Conservative, so only the integrator can change the energy.
#[derive(Clone, Copy, Debug)]
struct Bond {
    k: f64,
}

impl granula_core::ContactLaw for Bond {
    type History = ();
    type Pair = ();
    fn name(&self) -> String {
        "test_bond".into()
    }
    fn range(&self, _: &granula_core::PairMaterial) -> f64 {
        1e-3
    }
    fn force(&self, k: &granula_core::ContactKinematics<'_>, _: &mut ()) -> granula_core::ContactForce {
        granula_core::ContactForce {
            force: k.normal * (self.k * k.overlap),
            stored: 0.5 * self.k * k.overlap * k.overlap,
            ..Default::default()
        }
    }
}

/// Two bonded spheres stretched by 1e-9 m and released, stepped with ω Δt = `omega_dt`
/// (velocity Verlet is stable below 2), the guard checking every 5 steps.
fn bonded_pair(omega_dt: f64, steps: usize) -> Result<World, granula_core::CoreError> {
    let mut w = World::builder()
        .gravity(DVec3::ZERO)
        .energy_guard(Some(granula_core::EnergyGuard { every: 5, max_gain: 0.5 }))
        .build()
        .unwrap();
    sphere(&mut w, DVec3::ZERO, DVec3::ZERO, DVec3::ZERO);
    sphere(&mut w, DVec3::new(2.0 * R + 1e-9, 0.0, 0.0), DVec3::ZERO, DVec3::ZERO);
    let law = Bond { k: KN };
    let dt = omega_dt / (KN / (M / 2.0)).sqrt();
    let mut s = MdSolver::new(law, VelocityVerlet::new(), BruteForce, MdConfig::default()).unwrap();
    for _ in 0..steps {
        w.step(&mut s, dt)?;
    }
    Ok(w)
}

#[test]
fn an_unstable_time_step_stops_on_runaway_energy_before_any_overlap_limit() {
    // ω Δt = 2.05: the Verlet map has an eigenvalue of −1.56, so the stretch grows by 1.56
    // per step and the energy by 87 per interval of 5 steps: the second and third checks
    // (steps 10 and 15) are strikes, long before the overlap (from 1e-9 m) could reach the
    // 0.5 r = 5 mm limit (about 34 steps).
    let err = bonded_pair(2.05, 100).expect_err("the run must stop");
    match err {
        granula_core::CoreError::EnergyRunaway { step, ratio, limit, interval, body, kinetic, .. } => {
            assert_eq!(step, 15, "third check: baseline, strike, strike");
            assert!(ratio > limit && ratio <= 1.0 + 1e-9, "the gain is at most the energy in play: {ratio}");
            assert_eq!(interval, 5);
            assert!(body.0 <= 1 && kinetic > 0.0, "one of the two spheres, moving");
        }
        e => panic!("expected EnergyRunaway, got {e}"),
    }
    // The message says where and when.
    let text = bonded_pair(2.05, 100).unwrap_err().to_string();
    assert!(text.contains("energy runaway at step 15") && text.contains("fastest body"), "{text}");
}

#[test]
fn a_stable_run_and_a_kick_by_hand_do_not_trip_the_energy_guard() {
    // ω Δt = 0.1: the shadow energy of velocity Verlet oscillates with a relative amplitude
    // of (ω Δt)²/8 ≈ 1e-3 of the energy in play, far below the 0.5 limit.
    let mut w = bonded_pair(0.1, 2000).expect("a stable run is not stopped");
    // A kick between steps is one jump of the balance: one strike at most, never two.
    let law = Bond { k: KN };
    let dt = 0.1 / (KN / (M / 2.0)).sqrt();
    let mut s = MdSolver::new(law, VelocityVerlet::new(), BruteForce, MdConfig::default()).unwrap();
    w.bodies.velocity[0] = DVec3::new(0.0, 1e-3, 0.0);
    for _ in 0..2000 {
        w.step(&mut s, dt).expect("a single kick is not a runaway");
    }
}
