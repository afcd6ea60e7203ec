//! Random samples of the contact tests: a seeded uniform generator (SplitMix64), unit
//! directions and turns, and the thin random hulls of the MD bench.

use crate::polyhedron::{BodyFrame, Polyhedron};
use crate::shapes;
use granula_core::math::DVec3;

/// SplitMix64 in [0, 1).
pub(super) fn uniform(state: &mut u64) -> f64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
}

pub(super) fn direction(state: &mut u64) -> DVec3 {
    loop {
        let v = DVec3::new(uniform(state), uniform(state), uniform(state)) * 2.0 - 1.0;
        if (0.01..=1.0).contains(&v.length_squared()) {
            return v.normalize();
        }
    }
}

/// A random hull of 12 points (the MD bench's bodies) stretched along its axes by factors
/// in [0.3, 1].
pub(super) fn thin_hull(state: &mut u64) -> Polyhedron {
    let seed = (uniform(state) * 1e9) as u64;
    let hull = shapes::random_convex(12, 1.0, seed).unwrap();
    let stretch = DVec3::new(uniform(state), uniform(state), uniform(state)) * 0.7 + 0.3;
    let vertices = hull.vertices().iter().map(|&v| v * stretch).collect();
    Polyhedron::from_mesh(vertices, hull.faces().to_vec(), BodyFrame::PrincipalAxes).unwrap().0
}
