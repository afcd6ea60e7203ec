//! Foreign bodies (`MdSolver::set_foreign_bodies`): two solvers on copies of one world, each
//! marking as foreign the bodies the other "owns", book between them every pair, every
//! body's damping and load work and every wall load once: their reports and wall loads add
//! up to those of an unmarked run, step by step, and the motion is the unmarked run's to
//! the bit. This is how the processes of a distributed run close one global ledger.

use granula_broadphase::LinkedCells;
use granula_core::{DVec3, Material, MaterialId, PlaneBuilder, Prescribed, SphereBuilder, StepReport, World};
use granula_integrators::VelocityVerlet;
use granula_laws::{hertz_mindlin, HertzMindlin, LocalDamping};
use granula_md::{LoadOrder, MdConfig, MdSolver};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

type Md = MdSolver<HertzMindlin, VelocityVerlet, LinkedCells>;

const R: f64 = 0.01;
/// About t_c/50 for the Hertz contact of E = 1e7 Pa at 0.3 m/s (t_c ≈ 2.6 ms).
const DT: f64 = 5e-5;
const SIDE: usize = 4;

fn solver() -> Md {
    let config = MdConfig {
        skin: 1e-3,
        threads: Some(1),
        local_damping: Some(LocalDamping::new(0.2).unwrap()),
        load_order: LoadOrder::Partner,
        ..Default::default()
    };
    MdSolver::new(hertz_mindlin(), VelocityVerlet::new(), LinkedCells::new(), config).unwrap()
}

/// 4³ spheres on a lattice of spacing 2R(1 − 10⁻³) (each overlapping its neighbours, moving
/// at up to 0.1 m/s) in an open box of five planes under gravity, a piston plane moving
/// into the box at 5 cm/s, and a constant external force and torque on every fifth sphere:
/// every term of the ledger is in play (normal and sliding dissipation, stored energy,
/// local damping, the work of a kinematic body and of external loads).
fn packing() -> World {
    let material = Material { young_modulus: 1e7, restitution: 0.5, friction: 0.5, ..Material::default() };
    let mut w = World::builder().gravity(DVec3::new(0.0, 0.0, -9.81)).material(material).build().unwrap();
    let spacing = 2.0 * R * (1.0 - 1e-3);
    let l = spacing * SIDE as f64 + 2e-3 * R;
    w.insert_open_box(DVec3::ZERO, l, l, MaterialId(0)).unwrap();
    let piston = PlaneBuilder::new(DVec3::new(0.0, 0.0, l + 1e-3 * R), -DVec3::Z)
        .kinematic(Prescribed::Constant(DVec3::new(0.0, 0.0, -0.05)), Prescribed::Constant(DVec3::ZERO))
        .build()
        .unwrap();
    w.insert(piston).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for k in 0..SIDE {
        for j in 0..SIDE {
            for i in 0..SIDE {
                let x = (DVec3::new(i as f64, j as f64, k as f64) + 0.5) * spacing + DVec3::splat(1e-3 * R);
                let mut r = || DVec3::new(rng.random_range(-0.1..0.1), rng.random_range(-0.1..0.1), 0.0);
                let mut b = SphereBuilder::new(R, x).velocity(r());
                if (i + j + k) % 5 == 0 {
                    b = b.external_force(DVec3::new(1e-3, 0.0, 2e-3)).external_torque(DVec3::new(0.0, 1e-6, 0.0));
                }
                w.insert(b.build().unwrap()).unwrap();
            }
        }
    }
    w.accept_overlaps();
    w
}

/// The ledger terms of a report: normal, sliding and damping dissipation, stored energy,
/// external work.
fn terms(r: &StepReport) -> [f64; 5] {
    [r.dissipated.normal, r.dissipated.sliding, r.dissipated.body_damping, r.stored_elastic, r.external_work]
}

#[test]
fn two_complementary_markings_book_every_term_once() {
    let (mut full, mut a, mut b) = (packing(), packing(), packing());
    let (mut s_full, mut s_a, mut s_b) = (solver(), solver(), solver());
    let n = full.bodies.len();
    let dynamic: Vec<bool> = (0..n).map(|i| full.bodies.inv_mass[i] != 0.0).collect();
    // Process A owns the even dynamic bodies, B the odd ones; walls belong to both.
    let foreign_a: Vec<bool> = (0..n).map(|i| dynamic[i] && i % 2 == 1).collect();
    let foreign_b: Vec<bool> = (0..n).map(|i| dynamic[i] && i % 2 == 0).collect();
    s_a.set_foreign_bodies(&foreign_a);
    s_b.set_foreign_bodies(&foreign_b);
    assert_eq!(s_a.foreign_bodies(), &foreign_a[..]);
    let walls: Vec<usize> = (0..n).filter(|&i| !dynamic[i]).collect();
    let mut totals = [[0.0; 5]; 3];
    let mut shared_pairs_seen = false;
    for step in 0..600 {
        let rf = full.step(&mut s_full, DT).unwrap();
        let ra = a.step(&mut s_a, DT).unwrap();
        let rb = b.step(&mut s_b, DT).unwrap();
        // The marks change no force on a dynamic body: the same bits everywhere.
        for i in 0..n {
            assert_eq!(a.bodies.position[i], full.bodies.position[i], "A, body {i}, step {step}");
            assert_eq!(b.bodies.position[i], full.bodies.position[i], "B, body {i}, step {step}");
            assert_eq!(a.bodies.angular_velocity[i], full.bodies.angular_velocity[i], "A, body {i}, step {step}");
        }
        let (tf, ta, tb) = (terms(&rf), terms(&ra), terms(&rb));
        for k in 0..5 {
            // Each term is a sum over pairs or bodies, split between A and B: the split sum
            // differs from the whole one by the rounding of a few hundred additions, below
            // 1e-12 of the largest term (64 bodies, about 300 pairs, ε = 1.1e-16 each).
            let scale = tf.iter().fold(0.0f64, |m, t| m.max(t.abs())).max(1e-30);
            assert!(
                (ta[k] + tb[k] - tf[k]).abs() <= 1e-12 * scale,
                "term {k} at step {step}: {} + {} against {}",
                ta[k],
                tb[k],
                tf[k]
            );
            totals[0][k] += tf[k];
            totals[1][k] += ta[k];
            totals[2][k] += tb[k];
        }
        // A pair of an A body and a B body is computed by both and booked by one: the
        // halves are each below the whole whenever such pairs dissipate.
        shared_pairs_seen |= ta[0] > 0.0 && tb[0] > 0.0 && ta[0] < tf[0] && tb[0] < tf[0];
        // The wall loads (partner order): A's plus B's is the whole run's.
        for &w in &walls {
            let (fa, fb, ff) = (a.bodies.force[w], b.bodies.force[w], full.bodies.force[w]);
            assert!(
                (fa + fb - ff).length() <= 1e-12 * ff.length().max(1e-30),
                "wall {w}, step {step}: {fa} + {fb} against {ff}"
            );
        }
    }
    assert!(shared_pairs_seen, "no step split the normal dissipation between A and B");
    // Every term was in play over the run.
    for (k, t) in totals[0].iter().enumerate() {
        assert!(t.abs() > 0.0, "term {k} never booked");
    }
}

#[test]
fn clearing_the_marks_books_everything_again() {
    let (mut full, mut marked) = (packing(), packing());
    let (mut s_full, mut s_marked) = (solver(), solver());
    let n = full.bodies.len();
    let everything: Vec<bool> = (0..n).map(|i| full.bodies.inv_mass[i] != 0.0).collect();
    s_marked.set_foreign_bodies(&everything);
    let rf = full.step(&mut s_full, DT).unwrap();
    let rm = marked.step(&mut s_marked, DT).unwrap();
    // Every dynamic body foreign: nothing of the pairs or bodies is booked, and the walls
    // carry no load from this process (so the piston does no work here either).
    assert!(terms(&rf).iter().all(|t| *t != 0.0), "{:?}", terms(&rf));
    assert_eq!(terms(&rm), [0.0; 5]);
    s_marked.set_foreign_bodies(&[]);
    assert!(s_marked.foreign_bodies().is_empty());
    // The piston's work is a trapezoid over the step, whose first end was booked under
    // the marks (no load): one step later both runs book the same terms again.
    for _ in 0..2 {
        let rf = full.step(&mut s_full, DT).unwrap();
        let rm = marked.step(&mut s_marked, DT).unwrap();
        assert_eq!(terms(&rm)[..4], terms(&rf)[..4]);
    }
    let rf = full.step(&mut s_full, DT).unwrap();
    let rm = marked.step(&mut s_marked, DT).unwrap();
    assert_eq!(terms(&rm), terms(&rf));
}
