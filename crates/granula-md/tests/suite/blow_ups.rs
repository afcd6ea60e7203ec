//! Blow-ups and tunnelling stop the run with an error that says what happened: a sphere
//! faster than its radius per step, a sphere that crossed a wall, a one-step explosion of
//! the energy, and a law without an energy ledger.

use granula_broadphase::BruteForce;
use granula_core::{ContactForce, ContactKinematics, ContactLaw, CoreError, DVec3, PlaneBuilder, SphereBuilder, World};
use granula_integrators::VelocityVerlet;
use granula_md::{MdConfig, MdSolver};

/// A repulsive linear spring, F = k δ for δ > 0, storing ½ k δ² (conservative).
#[derive(Clone, Copy, Debug)]
struct Spring {
    k: f64,
    /// Whether the law books its stored energy.
    ledger: bool,
}

impl ContactLaw for Spring {
    type History = ();
    type Pair = ();
    fn name(&self) -> String {
        "test_spring".into()
    }
    fn uses_rotations(&self) -> bool {
        false
    }
    fn keeps_ledger(&self) -> bool {
        self.ledger
    }
    fn force(&self, c: &ContactKinematics<'_>, _: &mut ()) -> ContactForce {
        let d = c.overlap.max(0.0);
        ContactForce {
            force: c.normal * (self.k * d),
            stored: if self.ledger { 0.5 * self.k * d * d } else { 0.0 },
            ..Default::default()
        }
    }
}

fn solver(law: Spring) -> MdSolver<Spring, VelocityVerlet, BruteForce> {
    MdSolver::new(law, VelocityVerlet::new(), BruteForce, MdConfig::default()).unwrap()
}

/// A sphere of 1 mm diameter 2 mm above the floor z = 0 (a plane normal to an axis, whose
/// box used to be a zero-thickness slab), falling at 1000 m/s.
fn bullet(max_travel_ratio: f64) -> World {
    let mut w = World::builder().gravity(DVec3::ZERO).max_travel_ratio(max_travel_ratio).build().unwrap();
    w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().unwrap()).unwrap();
    w.insert(
        SphereBuilder::new(5e-4, DVec3::new(0.0, 0.0, 2e-3)).velocity(DVec3::new(0.0, 0.0, -1000.0)).build().unwrap(),
    )
    .unwrap();
    w
}

#[test]
fn a_sphere_through_a_plane_is_an_error() {
    let dt = 1e-5;
    // Default: 1 cm per step is 20 radii, stopped at the first step.
    let mut w = bullet(1.0);
    let mut s = solver(Spring { k: 1e3, ledger: true });
    let err = w.step(&mut s, dt).unwrap_err();
    // The spring, acting once the sphere is past the plane, slows it a little by the end
    // of the step: still over 19 radii.
    assert!(matches!(err, CoreError::ExcessiveTravel { step: 1, distance, .. } if distance > 19.0 * 5e-4), "{err}");
    assert!(err.to_string().contains("in one step"), "{err}");
    // Without the travel limit, the sphere ends 8 mm behind the plane: the plane's box, the
    // half-space behind it, still holds it, and the narrowphase reports the deep overlap.
    let mut w = bullet(f64::INFINITY);
    let mut s = solver(Spring { k: 1e3, ledger: true });
    let err = w.step(&mut s, dt).unwrap_err();
    match err {
        CoreError::ExcessiveOverlap { overlap, step: 1, .. } => {
            // r + 8 mm, up to the rounding of 2e-3 − 1e-2.
            assert!((overlap - 8.5e-3).abs() < 1e-15, "{overlap}");
        }
        other => panic!("expected ExcessiveOverlap, got {other}"),
    }
}

#[test]
fn a_sphere_through_a_sphere_is_an_error() {
    // Two 1 mm spheres 3 mm apart closing at 2000 m/s: with Δt = 1e-5 they would swap
    // sides in one step without ever overlapping at a step's end.
    let mut w = World::builder().gravity(DVec3::ZERO).build().unwrap();
    let r = 5e-4;
    w.insert(SphereBuilder::new(r, DVec3::ZERO).velocity(DVec3::new(1000.0, 0.0, 0.0)).build().unwrap()).unwrap();
    w.insert(
        SphereBuilder::new(r, DVec3::new(3e-3, 0.0, 0.0)).velocity(DVec3::new(-1000.0, 0.0, 0.0)).build().unwrap(),
    )
    .unwrap();
    let mut s = solver(Spring { k: 1e3, ledger: true });
    let err = w.step(&mut s, 1e-5).unwrap_err();
    assert!(matches!(err, CoreError::ExcessiveTravel { step: 1, radius, .. } if radius == r), "{err}");
}

/// Two spheres of radius 1 mm and mass 1e-5 kg closing at `v` m/s from a gap of
/// 1.5 v Δt, under the spring at ω Δt = `omega_dt` (ω² = k/m*, m* = m/2).
fn pair(omega_dt: f64, v: f64, law_ledger: bool) -> (World, MdSolver<Spring, VelocityVerlet, BruteForce>, f64) {
    let (r, m, k): (f64, f64, f64) = (1e-3, 1e-5, 1e6);
    let dt = omega_dt / (k / (0.5 * m)).sqrt();
    let mut w = World::builder().gravity(DVec3::ZERO).build().unwrap();
    w.insert(SphereBuilder::new(r, DVec3::ZERO).mass(m).velocity(DVec3::new(0.5 * v, 0.0, 0.0)).build().unwrap())
        .unwrap();
    let x = 2.0 * r + 1.5 * v * dt;
    w.insert(
        SphereBuilder::new(r, DVec3::new(x, 0.0, 0.0))
            .mass(m)
            .velocity(DVec3::new(-0.5 * v, 0.0, 0.0))
            .build()
            .unwrap(),
    )
    .unwrap();
    (w, solver(Spring { k, ledger: law_ledger }), dt)
}

#[test]
fn a_one_step_explosion_stops_at_once() {
    // ω Δt = 100: the step after the contact closes multiplies the energy in play by about
    // (ω Δt)²/4; the spheres then fly apart at constant speed (~0.7 mm per step, under the
    // 1 mm radius), so the interval check would see one strike and let the run finish.
    let (mut w, mut s, dt) = pair(100.0, 1e-4, true);
    let err = (0..500).try_for_each(|_| w.step(&mut s, dt).map(|_| ())).unwrap_err();
    match &err {
        CoreError::EnergyRunaway { interval: 1, ratio, step, .. } => {
            assert!(*step <= 4, "at the explosion, step {step}");
            assert!(*ratio > 1e3, "{ratio}");
        }
        other => panic!("expected a one-step EnergyRunaway, got {other}"),
    }
    assert!(err.to_string().contains("contact law 'test_spring'"), "{err}");
    // At ω Δt = 0.2 (stable) the same collision runs through.
    let (mut w, mut s, dt) = pair(0.2, 1e-4, true);
    for _ in 0..500 {
        w.step(&mut s, dt).expect("a stable collision");
    }
}

/// A sphere of 1 g set down on a floor under gravity, its spring `k` at ω Δt = 0.01: it
/// sinks to twice the equilibrium overlap and rises back, 314 steps each way, for 3000
/// steps (the guard checks every 100 steps).
fn set_down<L: ContactLaw>(law: L, k: f64) -> Result<World, CoreError> {
    let mut w = World::builder().build().unwrap();
    w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().unwrap()).unwrap();
    let m = 1e-3;
    w.insert(SphereBuilder::new(5e-3, DVec3::new(0.0, 0.0, 5e-3)).mass(m).build().unwrap()).unwrap();
    let dt = 0.01 / (k / m).sqrt();
    let mut s = MdSolver::new(law, VelocityVerlet::new(), BruteForce, MdConfig::default()).unwrap();
    for _ in 0..3000 {
        w.step(&mut s, dt)?;
    }
    Ok(w)
}

/// The spring of [`Spring`] claiming a ledger it leaves empty (the default
/// `keeps_ledger`), as a first user law that fills only the force does.
struct ForceOnly(Spring);

impl ContactLaw for ForceOnly {
    type History = ();
    type Pair = ();
    fn name(&self) -> String {
        "force_only".into()
    }
    fn force(&self, c: &ContactKinematics<'_>, h: &mut ()) -> ContactForce {
        self.0.force(c, h)
    }
}

#[test]
fn a_law_without_a_ledger_runs_when_it_says_so_and_is_named_when_it_does_not() {
    let k = 1e3;
    // Declared: the guard stays off and the run goes on (the ledger misses the spring's
    // energy, which the law does not book).
    set_down(Spring { k, ledger: false }, k).expect("a law that keeps no ledger is not guarded");
    // The same force claiming a ledger: while the sphere rises, the spring's energy comes
    // back as kinetic and potential energy that nothing booked, for three intervals in a
    // row. The error names the law and says how to fix it.
    let err = set_down(ForceOnly(Spring { k, ledger: false }), k).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, CoreError::EnergyRunaway { interval: 100, .. }), "{text}");
    for needed in ["contact law 'force_only'", "ContactForce::stored", "keeps_ledger", "energy_guard = None"] {
        assert!(text.contains(needed), "missing {needed:?} in: {text}");
    }
    // The numbers are for people: no run of 20 digits.
    assert!(!text.contains("0000000000"), "{text}");
    // And the law that books its spring runs.
    set_down(Spring { k, ledger: true }, k).expect("a law with its ledger is stable at ω Δt = 0.01");
}
