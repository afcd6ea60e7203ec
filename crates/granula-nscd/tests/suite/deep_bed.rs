//! A deep bed at rest puts its whole weight on the floor: the global force balance of
//! contact dynamics (000 eqs. 42-50).

use granula_broadphase::LinkedCells;
use granula_core::{DVec3, Material, MaterialId, MotionKind, PlaneBuilder, SphereBuilder, World};
use granula_nscd::{NscdConfig, NscdSolver};

const G: f64 = 9.81;
/// Layers of the bed: 3 × 3 and 2 × 2 spheres in turn, 208 spheres.
const LAYERS: usize = 32;
/// Radius (m).
const R: f64 = 0.005;
/// Spacing within a layer, 2.2 r: the spheres of a layer do not touch each other.
const SPACING: f64 = 2.2 * R;

/// Height of a layer's centres above the one below when its spheres sit in the hollows
/// of the layer below: the four supporting centres are s/√2 away horizontally and 2r in
/// all.
fn layer_rise() -> f64 {
    (4.0 * R * R - SPACING * SPACING / 2.0).sqrt()
}

/// `LAYERS` layers in turn of 3 × 3 spheres (r = 5 mm, μ = 0.5) and of 2 × 2 spheres in
/// their hollows, in a box of side 3 s with frictionless side walls, each layer 0.05 r
/// above its resting height: a generated packing that is not at rest. It falls onto itself
/// and comes to rest in place. The floor is body 0. Returns the world, the weight and the
/// depth of the bed at rest in diameters.
fn deep_bed() -> (World, f64, f64) {
    let beads = Material { friction: 0.5, ..Material::named("beads") };
    let smooth = Material { friction: 0.0, ..Material::named("smooth") };
    let mut w = World::builder().gravity(DVec3::new(0.0, 0.0, -G)).material(beads).material(smooth).build().unwrap();
    let side = 3.0 * SPACING;
    w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().unwrap()).unwrap();
    for (p, n) in [
        (DVec3::ZERO, DVec3::X),
        (DVec3::ZERO, DVec3::Y),
        (DVec3::new(side, 0.0, 0.0), -DVec3::X),
        (DVec3::new(0.0, side, 0.0), -DVec3::Y),
    ] {
        w.insert(PlaneBuilder::new(p, n).material(MaterialId(1)).build().unwrap()).unwrap();
    }
    let mut weight = 0.0;
    for k in 0..LAYERS {
        let z = R + k as f64 * (layer_rise() + 0.05 * R) + 0.05 * R;
        let (n, offset) = if k % 2 == 0 { (3, 0.5) } else { (2, 1.0) };
        for j in 0..n {
            for i in 0..n {
                let x = DVec3::new((i as f64 + offset) * SPACING, (j as f64 + offset) * SPACING, z);
                let h = w.insert(SphereBuilder::new(R, x).build().unwrap()).unwrap();
                weight += w.bodies.mass[w.bodies.index(h).unwrap()] * G;
            }
        }
    }
    let depth = (2.0 * R + (LAYERS - 1) as f64 * layer_rise()) / (2.0 * R);
    (w, weight, depth)
}

/// Upward force of the floor on the bed over the last step: its contacts' impulses / Δt.
fn floor_force(s: &NscdSolver<LinkedCells>, dt: f64) -> f64 {
    s.impulses().filter(|&(i, j, _)| i == 0 || j == 0).map(|(i, _, p)| if i == 0 { p.z } else { -p.z }).sum::<f64>()
        / dt
}

fn momentum_z(w: &World) -> f64 {
    let b = &w.bodies;
    (0..b.len()).filter(|&i| b.motion[i] == MotionKind::Dynamic).map(|i| b.mass[i] * b.velocity[i].z).sum()
}

#[test]
fn a_deep_bed_at_rest_puts_its_whole_weight_on_the_floor() {
    let (mut w, weight, depth) = deep_bed();
    let dt = 1e-3;
    // The sweep budget of a bed 20.5 diameters deep (000 eq. 48): 19 640 sweeps at 1e-4.
    // The bed falls and settles with the budget of ε = 1e-3 (the balance below holds at
    // every step, converged or not) and is solved to 1e-4 from step 150 on, 50 steps before
    // the checks at rest start. Settled at 1e-4 throughout, the bed took 3.6 times the
    // sweeps (199 000 against 56 000, most of them in its collapse).
    let config = NscdConfig::for_depth(depth, 1e-4).unwrap();
    let mut s = NscdSolver::new(LinkedCells::new(), NscdConfig::for_depth(depth, 1e-3).unwrap()).unwrap();
    let (steps, tight_from, at_rest_from) = (300, 150, 200);
    let (mut worst_settling, mut worst_at_rest, mut mean_at_rest) = (0.0f64, 0.0f64, 0.0);
    for step in 0..steps {
        if step == tight_from {
            s.set_config(config.clone()).unwrap();
        }
        let before = momentum_z(&w);
        let r = w.step(&mut s, dt).unwrap();
        let floor = floor_force(&s, dt);
        // Where the momentum goes: the floor carries the weight plus the rate of change of
        // the bed's vertical momentum, at every step, converged or not (v = v_free + M⁻¹ H P
        // holds after every contact update). 1e-9 of the weight: round-off of sums over
        // 208 bodies and a few hundred contacts, far below any physical term.
        let rate = (momentum_z(&w) - before) / dt;
        assert!(
            (floor - (weight + rate)).abs() < 1e-9 * weight,
            "step {step}: floor {floor}, W + dP/dt {}",
            weight + rate
        );
        // The step report's balance is the same sum: the floor receives −floor, the load is
        // −W (the side walls are frictionless, so they take nothing vertically). 1e-12:
        // the same sums in another order.
        assert!((r.support_force.z + floor).abs() < 1e-12 * weight, "step {step}: {:?}", r.support_force);
        assert!((r.applied_load - DVec3::new(0.0, 0.0, -weight)).length() < 1e-12 * weight, "{:?}", r.applied_load);
        let off = floor / weight - 1.0;
        if step < at_rest_from {
            worst_settling = worst_settling.max(off.abs());
        } else {
            worst_at_rest = worst_at_rest.max(off.abs().max(r.support_imbalance().unwrap()));
            mean_at_rest += off / (steps - at_rest_from) as f64;
        }
    }
    eprintln!(
        "floor/W − 1: settling up to {worst_settling:.2e}; at rest up to {worst_at_rest:.2e} a step, {mean_at_rest:.2e} over the last {} steps",
        steps - at_rest_from
    );
    // At rest, every step within 0.1 % of the weight, the accuracy asked of the balance;
    // the step's impulses are solved to ε = 1e-4 and leave a residual motion of this bed 20
    // deep: measured up to 2.5e-4 of the weight (8.6e-4, about ε L/d / 2.4, with the bed
    // settled at 1e-4 throughout, and 9.9e-4 then under the default cap of 1000 sweeps), so
    // the bound is met with a small margin.
    assert!(worst_at_rest < 1e-3, "at rest the floor is off the weight by {worst_at_rest:.2e} in a step");
    // Averaged over the 100 steps the momentum changes cancel: the mean is W − ΔP/(100 Δt),
    // measured 1.1e-5 of the weight (4.1e-5 settled at 1e-4 throughout); the bound is the
    // tolerance ε = 1e-4 of the steps.
    assert!(mean_at_rest.abs() < 1e-4, "mean over the steps at rest {mean_at_rest:.2e}");
    // While the bed settles a step's floor force is not its weight: the impacts stop
    // its fall at several times g (by the identity tested above; floor/W − 1 measured up
    // to 3.98).
    assert!(worst_settling > 1.0, "{worst_settling}");
}
