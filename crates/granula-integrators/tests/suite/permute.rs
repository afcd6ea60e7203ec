//! Reordering the bodies ([`BodySet::permute`] followed by [`Integrator::permute_bodies`])
//! between steps or between the two halves of a step: every body keeps the bits of the run
//! without the reorder, for every integrator. The loads of each body depend on its own state
//! only (no contacts), so nothing but the storage order differs between the two runs, and the
//! comparison is exact.

use crate::common::LentLoads;
use granula_core::{
    BodyHandle, BodySet, DQuat, DVec3, Integrator, Material, MaterialTable, Permutation, PlaneBuilder, SphereBuilder,
};
use granula_integrators::{ForceVelocity, Gear, SymplecticEuler, VelocityVerlet};

const GRAVITY: DVec3 = DVec3::new(0.0, 0.0, -9.81);
const DT: f64 = 1e-3;

/// A fixed plane among seven spheres of different sizes, velocities, spins and orientations.
fn bodies() -> BodySet {
    let mut t = MaterialTable::new();
    t.add(Material::default()).unwrap();
    let mut b = BodySet::default();
    for k in 0..7 {
        if k == 3 {
            b.insert(&PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().unwrap(), &t, false).unwrap();
        }
        let x = k as f64 + 1.0;
        let s = SphereBuilder::new(0.05 * x, DVec3::new(x, 0.2 * x, -0.1 * x))
            .velocity(DVec3::new(0.3, -0.1 * x, 0.05 * x))
            .angular_velocity(DVec3::new(x, -1.0, 0.5 * x))
            .orientation(DQuat::from_rotation_x(0.2 * x))
            .mass(0.5 * x)
            .build()
            .unwrap();
        b.insert(&s, &t, false).unwrap();
    }
    b
}

/// Nonlinear, velocity-dependent loads of each body from its own state only.
fn loads(b: &mut BodySet) {
    for i in 0..b.len() {
        let x = b.position[i];
        b.force[i] = -x * (1.0 + x.length_squared()) - b.velocity[i] * 0.3;
        b.torque[i] = -b.angular_velocity[i] * 1e-3;
    }
}

/// A scrambled order with the plane in the middle, applied to `b` and `integ`.
fn scramble(integ: &mut dyn Integrator, b: &mut BodySet, seed: u32) {
    let n = b.len() as u32;
    let mut sources: Vec<u32> = (0..n).collect();
    sources.sort_by_key(|&s| (s * (2 * seed + 3) + seed) % n);
    let p = Permutation::from_sources(sources).unwrap();
    assert!(!p.is_identity());
    b.permute(&p).unwrap();
    integ.permute_bodies(&p, b);
}

/// Per handle, the state of every body, and the integrator's memory, as bits.
fn by_handle(b: &BodySet, saved: &granula_core::IntegratorState) -> Vec<(BodyHandle, [u64; 13], Vec<u64>)> {
    let width = saved.values_per_body();
    let mut v: Vec<_> = (0..b.len())
        .map(|i| {
            let (x, v, w, q) = (b.position[i], b.velocity[i], b.angular_velocity[i], b.orientation[i]);
            let bits = [x.x, x.y, x.z, v.x, v.y, v.z, w.x, w.y, w.z, q.x, q.y, q.z, q.w].map(f64::to_bits);
            let k = saved.handles.iter().position(|h| *h == b.handle[i]);
            let memory = k.map(|k| saved.per_body[k * width..(k + 1) * width].iter().map(|m| m.to_bits()).collect());
            (b.handle[i], bits, memory.unwrap_or_default())
        })
        .collect();
    v.sort_by_key(|e| e.0);
    v
}

/// 40 steps straight against the same steps with the bodies reordered after step 15, in
/// the middle of step 25 (between predict and correct) and after step 32.
fn reorder_keeps_bits(make: impl Fn() -> Box<dyn Integrator>) {
    let mut straight = bodies();
    loads(&mut straight);
    let mut a = make();
    let mut reordered = bodies();
    loads(&mut reordered);
    let mut b = make();
    for s in 0..40 {
        let t = s as f64 * DT;
        a.predict_lent(&mut straight, GRAVITY, t, DT);
        loads(&mut straight);
        b.predict_lent(&mut reordered, GRAVITY, t, DT);
        if s == 25 {
            scramble(b.as_mut(), &mut reordered, 2);
            // The offsets of velocity Verlet's step moved with their bodies.
            if let (Some(o), Some(o2)) = (a.force_velocity_offsets(), b.force_velocity_offsets()) {
                for (k, h) in reordered.handle.iter().enumerate() {
                    let i = straight.index(*h).unwrap();
                    assert_eq!((o2.linear(k), o2.angular(k)), (o.linear(i), o.angular(i)), "offset of body {h:?}");
                }
            }
        }
        loads(&mut reordered);
        a.correct_lent(&mut straight, GRAVITY, t, DT);
        b.correct_lent(&mut reordered, GRAVITY, t, DT);
        if s == 15 || s == 32 {
            scramble(b.as_mut(), &mut reordered, s as u32);
        }
    }
    let name = a.name();
    assert_eq!(by_handle(&straight, &a.save_state()), by_handle(&reordered, &b.save_state()), "{name}");
}

#[test]
fn every_integrator_keeps_each_bodys_bits_across_reorders() {
    reorder_keeps_bits(|| Box::new(Gear::four()));
    reorder_keeps_bits(|| Box::new(Gear::five()));
    reorder_keeps_bits(|| Box::new(Gear::six()));
    reorder_keeps_bits(|| Box::new(VelocityVerlet::new()));
    reorder_keeps_bits(|| Box::new(VelocityVerlet::with_force_velocity(ForceVelocity::HalfStep)));
    reorder_keeps_bits(|| Box::new(SymplecticEuler::new()));
}

/// Velocity Verlet's memory follows the reorder itself (no remapping by handle at the next
/// step): right after it, each body's entry is in step with the reordered set and holds its
/// own accelerations.
#[test]
fn verlet_memory_is_in_step_right_after_a_reorder() {
    let mut b = bodies();
    loads(&mut b);
    let mut v = VelocityVerlet::new();
    for s in 0..5 {
        v.predict_lent(&mut b, GRAVITY, s as f64 * DT, DT);
        loads(&mut b);
        v.correct_lent(&mut b, GRAVITY, s as f64 * DT, DT);
    }
    let before: Vec<(BodyHandle, [f64; 6])> =
        (0..b.len()).map(|i| (b.handle[i], v.body_memory(&b, i).unwrap())).collect();
    scramble(&mut v, &mut b, 4);
    for (h, memory) in before {
        let i = b.index(h).unwrap();
        assert_eq!(v.body_memory(&b, i), Some(memory), "body {h:?}");
    }
}
