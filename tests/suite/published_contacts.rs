//! The contacts a solver publishes are the contacts its step used: the Love-Weber stress
//! from the published contacts equals the one accumulated independently from the forces
//! the step applied, under Gear, velocity Verlet and NSCD; a user law's status (cohesive
//! here) is published and counted as the law decided it.

use granula::io::output::{love_weber_stress, write_contact_list};
use granula::laws::hertz_mindlin;
use granula::prelude::*;
use std::sync::Mutex;

/// What one law call saw and returned: branch vectors and the force on body 2.
type Call = (DVec3, DVec3, DVec3);

/// A law that forwards to `inner` and records every call, in call order.
#[derive(Debug)]
struct Recorder<L> {
    inner: L,
    calls: Mutex<Vec<Call>>,
}

impl<L: ContactLaw> ContactLaw for Recorder<L> {
    type History = L::History;
    type Pair = L::Pair;
    fn name(&self) -> String {
        self.inner.name()
    }
    fn range(&self, material: &PairMaterial) -> f64 {
        self.inner.range(material)
    }
    fn uses_rotations(&self) -> bool {
        self.inner.uses_rotations()
    }
    fn keeps_ledger(&self) -> bool {
        self.inner.keeps_ledger()
    }
    fn force(&self, k: &ContactKinematics<'_, L::Pair>, h: &mut L::History) -> ContactForce {
        let f = self.inner.force(k, h);
        self.calls.lock().unwrap().push((k.branch1, k.branch2, f.force));
        f
    }
}

/// 27 glass beads of radius 5 mm on a 3 × 3 × 3 lattice around the origin, 0.5 % closer
/// than touching, with random velocities, no gravity: every neighbour pair is a contact.
fn cluster() -> World {
    let mut world = World::builder().gravity(DVec3::ZERO).build().unwrap();
    let r = 0.005;
    let pitch = 2.0 * r * 0.995;
    let mut k = 0u32;
    for x in -1..=1 {
        for y in -1..=1 {
            for z in -1..=1 {
                k += 1;
                // A deterministic spread of velocities (a few cm/s) so that tangential
                // springs load and some contacts slide.
                let v = DVec3::new((k * 7 % 11) as f64, (k * 5 % 13) as f64, (k * 3 % 7) as f64) * 0.01 - 0.05;
                let position = DVec3::new(x as f64, y as f64, z as f64) * pitch;
                world.insert(SphereBuilder::new(r, position).velocity(v).build().unwrap()).unwrap();
            }
        }
    }
    world
}

/// The box holding the whole cluster (and far beyond it).
const LO: DVec3 = DVec3::splat(-1.0);
const HI: DVec3 = DVec3::splat(1.0);

/// σ V = −Σ_c (−f ⊗ l₁ + f ⊗ l₂) from the recorded calls (every body is inside the box),
/// and Σ_c |f| (|l₁| + |l₂|), the scale of its round-off.
fn stress_of_calls(calls: &[Call]) -> (DMat3, f64) {
    let mut s = DMat3::ZERO;
    let mut scale = 0.0;
    for &(l1, l2, f) in calls {
        s += DMat3::from_cols(f * l1.x, f * l1.y, f * l1.z);
        s -= DMat3::from_cols(f * l2.x, f * l2.y, f * l2.z);
        scale += f.length() * (l1.length() + l2.length());
    }
    (s, scale)
}

fn assert_close(a: DMat3, b: DMat3, tolerance: f64, what: &str) {
    let d = (a - b).to_cols_array().iter().fold(0.0f64, |m, x| m.max(x.abs()));
    assert!(d <= tolerance, "{what}: stresses differ by {d:e} (tolerance {tolerance:e})\n{a}\n{b}");
}

/// Runs 10 steps of the cluster under `integrator`, publishes the contacts of step 11 and
/// compares their stress with the stress of the law calls of that step.
fn md_case<I: Integrator>(integrator: I, what: &str) {
    let mut world = cluster();
    let law = Recorder { inner: hertz_mindlin(), calls: Mutex::new(Vec::new()) };
    // One thread: the calls are recorded in candidate order, the order of the published list.
    let config = MdConfig { skin: 1e-3, threads: Some(1), ..Default::default() };
    let mut solver = MdSolver::new(law, integrator, BruteForce, config).unwrap();
    let dt = 1e-6;
    for _ in 0..10 {
        world.step(&mut solver, dt).unwrap();
    }
    solver.law.calls.lock().unwrap().clear();
    assert!(solver.contacts().is_none(), "{what}: nothing published before it is asked for");
    solver.publish_contacts(true);
    assert!(solver.contacts().is_none(), "{what}: publishing starts with the next step");
    let report = world.step(&mut solver, dt).unwrap();
    let calls = std::mem::take(&mut *solver.law.calls.lock().unwrap());
    let published = solver.contacts().expect("published");
    // Every law call of the step is one published contact, and the other way round.
    assert_eq!(published.len(), calls.len(), "{what}");
    assert_eq!(report.contacts, published.len(), "{what}");
    // Spheres touch at one point per pair.
    assert_eq!(report.pairs, report.contacts, "{what}");
    assert!(published.len() >= 54, "{what}: the lattice's 54 neighbour pairs touch ({})", published.len());
    let volume = 8.0;
    let (expected, scale) = stress_of_calls(&calls);
    let sigma = love_weber_stress(&world, published, LO, HI).sigma * volume;
    // The same products f_i l_j summed over the same contacts, possibly in another order
    // and with the volume's division and product in between: a few ulps of the sum of
    // their magnitudes, bounded by 1e-14 Σ|f|(|l₁| + |l₂|) (about 50 ε).
    assert_close(sigma, expected, 1e-14 * scale, what);
    assert!(scale > 0.0, "{what}: the contacts carry forces");
    // And the published records are the calls, field for field.
    for (c, &(l1, l2, f)) in published.iter().zip(&calls) {
        assert_eq!((c.branch1, c.branch2, c.force), (l1, l2, f), "{what}");
    }
    // Turned off, the next step publishes nothing, and says so.
    solver.publish_contacts(false);
    world.step(&mut solver, dt).unwrap();
    assert!(solver.contacts().is_none(), "{what}: the step after publishing was turned off");
}

#[test]
fn md_stress_from_published_contacts_equals_the_applied_forces_under_gear() {
    md_case(Gear::six(), "gear");
}

#[test]
fn md_stress_from_published_contacts_equals_the_applied_forces_under_verlet() {
    md_case(VelocityVerlet::new(), "verlet");
}

#[test]
fn nscd_stress_from_published_contacts_equals_the_applied_forces() {
    let mut world = cluster();
    // Every bead moving towards the centre (10 cm/s per cm), so that every lattice pair
    // approaches and the first step pushes them all.
    for (v, x) in world.bodies.velocity.iter_mut().zip(&world.bodies.position) {
        *v = -10.0 * *x;
    }
    let mut solver = NscdSolver::new(BruteForce, NscdConfig::default()).unwrap();
    let dt = 1e-4;
    // The detection configuration of the next step, q_m = q + (1 − θ) Δt v, computed as
    // the solver does (the same expression, hence the same bits).
    let h = (1.0 - solver.config().theta) * dt;
    let detection: Vec<DVec3> =
        world.bodies.position.iter().zip(&world.bodies.velocity).map(|(x, v)| *x + *v * h).collect();
    solver.publish_contacts(true);
    world.step(&mut solver, dt).unwrap();
    let published = Solver::contacts(&solver).expect("published");
    assert!(published.iter().filter(|c| c.force != DVec3::ZERO).count() >= 54, "the lattice's pairs push");
    // Independently: the per-body contact forces F_p the step applied (the solver leaves
    // them in the body set) at the detection positions x_p. For contacts between bodies all
    // inside the box, Σ_p Σ_c f^{c→p} ⊗ (x_c − x_p) = −Σ_p F_p ⊗ x_p (each contact point
    // enters with +f and −f), so σ V = Σ_p F_p ⊗ x_p.
    let b = &world.bodies;
    let mut expected = DMat3::ZERO;
    let mut scale = 0.0;
    for (f, x) in b.force.iter().zip(&detection) {
        expected += DMat3::from_cols(*f * x.x, *f * x.y, *f * x.z);
        scale += f.length() * x.length();
    }
    let sigma = love_weber_stress(&world, published, LO, HI).sigma * 8.0;
    // The published branch vectors are l = x_c − x_p as the narrowphase rounded them; the
    // per-body form cancels x_c exactly. The difference is the rounding of l (half an ulp
    // of |x| per component) times f, summed: 1e-14 Σ|F_p||x_p| bounds it (about 50 ε for a
    // few contacts per body).
    assert_close(sigma, expected, 1e-14 * scale, "nscd");
    assert!(scale > 0.0);
}

/// A user law: a linear spring that pushes when the surfaces overlap, and a constant
/// attraction F_a within the range 1 mm, which holds the pair in tension when it wins.
#[derive(Debug)]
struct Sticky;

impl ContactLaw for Sticky {
    type History = ();
    type Pair = ();
    fn name(&self) -> String {
        "sticky".into()
    }
    fn range(&self, _: &PairMaterial) -> f64 {
        1e-3
    }
    fn keeps_ledger(&self) -> bool {
        false
    }
    fn force(&self, k: &ContactKinematics<'_>, _: &mut ()) -> ContactForce {
        let normal = 1e4 * k.overlap.max(0.0) - 0.1;
        let status = if normal < 0.0 { ContactStatus::Cohesive } else { ContactStatus::Sticking };
        ContactForce { force: normal * k.normal, status, ..Default::default() }
    }
}

#[test]
fn a_user_laws_cohesive_status_is_published_and_counted() {
    let mut world = World::builder().gravity(DVec3::ZERO).build().unwrap();
    // Two beads 0.5 mm apart: within the law's range, not touching.
    world.insert(SphereBuilder::new(0.005, DVec3::ZERO).build().unwrap()).unwrap();
    world.insert(SphereBuilder::new(0.005, DVec3::new(0.0105, 0.0, 0.0)).build().unwrap()).unwrap();
    let config = MdConfig { skin: 1e-3, ..Default::default() };
    let mut solver = MdSolver::new(Sticky, VelocityVerlet::new(), BruteForce, config).unwrap();
    solver.publish_contacts(true);
    let report = world.step(&mut solver, 1e-6).unwrap();
    assert_eq!(report.status.cohesive, 1);
    assert_eq!((report.status.open, report.status.sticking, report.status.sliding), (0, 0, 0));
    let c = &solver.contacts().expect("published")[0];
    assert_eq!(c.status(), ContactStatus::Cohesive);
    assert!(c.normal_force().dot(c.normal()) < 0.0, "held in tension");
    // The contact list says so.
    let path = std::env::temp_dir().join(format!("granula-cohesive-{}.csv", std::process::id()));
    write_contact_list(&path, &world, solver.contacts().expect("published")).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert!(text.lines().next().unwrap().ends_with(",status"));
    assert!(text.lines().nth(1).unwrap().ends_with(",cohesive"), "{text}");
}
