//! The pair memory of the polyhedron pair (temporal coherence,
//! `ContactGenerator::generate_remembering`): bodies wandering through contact and apart
//! for hundreds of steps give, at every step and for every pair, the same points bit for
//! bit with a memory kept from step to step as without one, also when the memories are
//! overwritten with random words and for
//! non-convex bodies, when the memories of two pairs are swapped, and when a pair's
//! memory is left untouched for a few steps; at a positive margin the memory is not used.

use granula_core::narrowphase::{Narrowphase, PairMemory};
use granula_core::Shape;
use granula_core::{ContactGeometry, DQuat, DVec3, World};
use granula_polyhedra::contact::convex_volume_contact_at;
use granula_polyhedra::{
    register_all, register_all_volumetric, shapes, BodyFrame, Polyhedron, PolyhedronBuilder, PolyhedronShape, Pose,
    VolumePoint,
};
use std::sync::Arc;

/// SplitMix64 in [0, 1).
fn uniform(state: &mut u64) -> f64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
}

fn centred(state: &mut u64) -> DVec3 {
    DVec3::new(uniform(state), uniform(state), uniform(state)) - 0.5
}

/// Two rows of bodies 1.9 apart (1.5 when `volumetric`) (random hulls of radius 1, every fifth an L-block of about
/// the same size unless `volumetric`, whose contacts need convex bodies): neighbours of a
/// row and across the rows are near contact, some overlapping, some apart by less than
/// their size. `volumetric`: the overlap-volume generators.
fn world(n: usize, state: &mut u64, volumetric: bool) -> World {
    let mut narrowphase = Narrowphase::new();
    if volumetric {
        register_all_volumetric(&mut narrowphase).unwrap();
    } else {
        register_all(&mut narrowphase).unwrap();
    }
    let mut w = World::builder().narrowphase(narrowphase).build().unwrap();
    let spacing = if volumetric { 1.5 } else { 1.9 };
    for k in 0..n {
        let poly = if k % 5 == 4 && !volumetric {
            let (v, f) = shapes::l_block_mesh(1.1);
            Polyhedron::from_mesh(v, f, BodyFrame::PrincipalAxes).unwrap().0
        } else {
            let hull = shapes::random_convex(12, 1.0, k as u64 + 11).unwrap();
            Polyhedron::from_mesh(hull.vertices().to_vec(), hull.faces().to_vec(), BodyFrame::PrincipalAxes).unwrap().0
        };
        let at = DVec3::new(spacing * (k / 2) as f64, 0.0, spacing * (k % 2) as f64) + 0.3 * centred(state);
        let q = DQuat::from_scaled_axis(4.0 * centred(state));
        w.insert(PolyhedronBuilder::new(Arc::new(poly), at).orientation(q).build().unwrap()).unwrap();
    }
    w.accept_overlaps();
    w
}

/// The polyhedron of body `i`.
fn polyhedron(b: &granula_core::BodySet, i: usize) -> &Polyhedron {
    let Shape::Custom(c) = &b.shape[i] else { panic!("not a custom shape") };
    c.as_any().downcast_ref::<PolyhedronShape>().unwrap().polyhedron()
}

/// A random walk of every body (steps of 0.01 and 0.01 rad, pulled back toward its home
/// site so that pairs keep meeting and parting), then the narrowphase's preparation.
fn wander(w: &mut World, home: &[DVec3], state: &mut u64) {
    let b = &mut w.bodies;
    for ((x, q), h) in b.position.iter_mut().zip(b.orientation.iter_mut()).zip(home) {
        *x += 0.02 * centred(state) + 0.02 * (*h - *x);
        *q = (DQuat::from_scaled_axis(0.02 * centred(state)) * *q).normalize();
    }
    w.narrowphase().prepare(&w.bodies);
}

/// Words a memory may hold that prove nothing or the wrong thing: random bits, and random
/// bits under the pair's own tag and the current epoch (a forged certificate that says the
/// pair is far apart is not a thing a memory can hold by accident: the tag is a hash of
/// the pair, so it is left out).
fn garbage(state: &mut u64) -> [u64; 3] {
    let mut bits = || (uniform(state) * (1u64 << 53) as f64) as u64 ^ ((uniform(state) * 2048.0) as u64) << 53;
    [bits(), bits(), bits()]
}

/// Runs `steps` steps of wandering over all pairs at `margin`, comparing the points with a
/// memory per pair against those without, bitwise (`Debug` prints every f64 to its last
/// bit); `spoil`: each step, a tenth of the memories get garbage or another pair's words,
/// and one pair in twenty skips the step. Returns the number of (pair, step) calls with
/// points and the number of memories holding something at the end.
fn run(margin: f64, steps: usize, spoil: bool, seed: u64) -> (usize, usize) {
    run_with(margin, steps, spoil, seed, false)
}

/// [`run`] with the overlap-volume generators when `volumetric`, whose contacts are also
/// compared with the plain `convex_volume_contact` of the shapes.
fn run_with(margin: f64, steps: usize, spoil: bool, seed: u64, volumetric: bool) -> (usize, usize) {
    let mut state = seed;
    let mut w = world(20, &mut state, volumetric);
    let home = w.bodies.position.clone();
    let n = w.bodies.len();
    let memories: Vec<PairMemory> = (0..n * n).map(|_| PairMemory::new()).collect();
    let (mut with, mut without) = (Vec::<ContactGeometry>::new(), Vec::new());
    let mut touching = 0;
    for step in 0..steps {
        wander(&mut w, &home, &mut state);
        let b = &w.bodies;
        for i in 0..n {
            for j in i + 1..n {
                let memory = &memories[i * n + j];
                if spoil {
                    match (uniform(&mut state) * 20.0) as u32 {
                        0 | 1 => memory.store(garbage(&mut state)),
                        // Another pair's memory (a certificate, a contact mark or nothing).
                        2 => memory.store(memories[(i * n + j + 1 + step) % (n * n)].load()),
                        // Not called this step: the memory is two epochs old next time.
                        3 => continue,
                        _ => {}
                    }
                }
                with.clear();
                without.clear();
                w.narrowphase().collide_remembering(b, i, j, b.position[j], margin, memory, &mut with).unwrap();
                w.narrowphase().collide(b, i, j, margin, &mut without).unwrap();
                assert_eq!(format!("{with:?}"), format!("{without:?}"), "pair {i}-{j} at step {step}");
                if volumetric {
                    let pose = |k: usize| Pose::new(b.position[k], b.orientation[k]);
                    let (pi, pj) = (polyhedron(b, i), polyhedron(b, j));
                    // `register_all_volumetric`'s contacts act at the centroid.
                    let plain = convex_volume_contact_at(pi, &pose(i), pj, &pose(j), VolumePoint::Centroid);
                    assert_eq!(format!("{with:?}"), format!("{:?}", Vec::from_iter(plain)), "pair {i}-{j}");
                }
                touching += usize::from(!with.is_empty());
            }
        }
    }
    let kept = memories.iter().filter(|m| m.load() != [0; 3]).count();
    (touching, kept)
}

#[test]
fn remembered_directions_change_no_point() {
    let (touching, kept) = run(0.0, 300, false, 1);
    // The walk must bring pairs into contact (else the comparison says little) and leave
    // pairs apart that the search proved so (else the memory was never used): both happen
    // for this seed; the counts are not tuned, only required to be non-zero.
    assert!(touching > 100, "pair-steps with points: {touching}");
    assert!(kept > 0, "memories holding a direction: {kept}");
}

#[test]
fn garbage_in_the_memory_changes_no_point() {
    let (touching, _) = run(0.0, 200, true, 2);
    assert!(touching > 100, "pair-steps with points: {touching}");
}

#[test]
fn a_positive_margin_leaves_the_memory_alone() {
    // The convex vertex test's lower bound at a positive margin is not excluded by a
    // separation along another direction: the memory is not used there, so none is written.
    let (touching, kept) = run(0.05, 100, false, 3);
    assert!(touching > 50, "pair-steps with points: {touching}");
    assert_eq!(kept, 0);
}

#[test]
fn overlap_volumes_are_the_same_with_the_memory() {
    // The overlap-volume generator screens pairs the same way: the same contacts with a
    // kept memory, with spoilt memories, and as the plain volume contact of the shapes.
    let (touching, kept) = run_with(0.0, 200, false, 4, true);
    assert!(touching > 100 && kept > 0, "pair-steps with contacts: {touching}, memories kept: {kept}");
    let (touching, _) = run_with(0.0, 150, true, 5, true);
    assert!(touching > 100, "pair-steps with contacts: {touching}");
}
