//! The macroscopic (Love-Weber) stress tensor of a region and its packing fraction.

use crate::scene::polygon_of;
use glam::{DMat3, DVec3};
use granula_core::{Contact, MotionKind, World};

/// Stress and packing fraction of a box (its spheres, and the polygons of a planar world).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RegionStress {
    /// σ (Pa), compression positive; in planar mode a force per length (N/m).
    pub sigma: DMat3,
    /// Volume (area in planar mode) of spheres whose centre is in the box, over the box's.
    pub packing_fraction: f64,
    /// Spheres counted.
    pub particles: usize,
}

impl RegionStress {
    /// Mean pressure p = tr σ / 3 (or / 2 in planar mode).
    pub fn pressure(&self, planar: bool) -> f64 {
        let tr = self.sigma.x_axis.x + self.sigma.y_axis.y + self.sigma.z_axis.z;
        tr / if planar { 2.0 } else { 3.0 }
    }
}

/// The Love-Weber stress σ = (1/V) Σ_c f^c ⊗ l^c of the dynamic spheres whose centres lie in
/// the box [min, max], with f^c the force on body 2 and l^c = x₂ − x₁ the branch vector
/// between the centres (compression positive), from the contacts a solver published
/// ([`Contact`]): forces and branch vectors of the configuration where the step computed
/// the force.
///
/// Written per particle so that contacts with walls and with spheres outside the box count
/// by their half inside: σ_ij = −(1/V) Σ_p Σ_{c∋p} f^{c→p}_i (x_c − x_p)_j, with x_c − x_p
/// the contact's branch vector of particle p (l₁ or l₂), which for two spheres both inside
/// gives back f_i l_j. Which spheres are inside is decided by their current centres. The packing fraction counts the
/// volume of each sphere whose centre is inside (an approximation at the box's faces of the
/// order of the surface-to-volume ratio times the radius). In planar mode V is the box's
/// x-y area and volumes are disc areas.
///
/// In a periodic world ([`World::periodic`]) a sphere's centre is taken wrapped into the
/// periodic range, and the branch vectors are the minimum-image ones the solver computed
/// the force with: over the whole periodic box, each bond (across a boundary too) counts
/// once, as f ⊗ (x₂' − x₁) with x₂' the image of body 2 nearest to body 1.
pub fn love_weber_stress<C: Contact>(world: &World, contacts: &[C], min: DVec3, max: DVec3) -> RegionStress {
    let b = &world.bodies;
    let planar = world.planar;
    // In a periodic world, positions are unwrapped: a sphere is in the box by its position
    // wrapped into the periodic range (the identity without periodic axes), under
    // Lees-Edwards shear by the rule of the sliding faces.
    let periodic = world.periodic.is_periodic();
    let inside = |i: usize| {
        let x = if periodic {
            world.periodic.wrap_state(b.position[i], DVec3::ZERO, world.time()).0
        } else {
            b.position[i]
        };
        b.motion[i] == MotionKind::Dynamic
            && (b.shape[i].sphere_radius().is_some() || polygon_of(&b.shape[i]).is_some())
            && x.cmpge(min).all()
            && x.cmple(max).all()
    };
    let e = max - min;
    let volume = if planar { e.x * e.y } else { e.x * e.y * e.z };
    let mut sum = DMat3::ZERO;
    for c in contacts {
        // Force on body 1 is −f at arm l₁, on body 2 is +f at arm l₂.
        let ((i, j), (l1, l2), f) = (c.bodies(), c.branches(), c.force());
        for (i, f, arm) in [(i as usize, -f, l1), (j as usize, f, l2)] {
            if inside(i) {
                // Column j of the outer product f ⊗ arm is f arm_j.
                sum -= DMat3::from_cols(f * arm.x, f * arm.y, f * arm.z);
            }
        }
    }
    let mut solid = 0.0;
    let mut particles = 0;
    for i in (0..b.len()).filter(|&i| inside(i)) {
        let r = b.radius[i];
        solid += match polygon_of(&b.shape[i]) {
            Some(p) => p.polygon().area(),
            None if planar => std::f64::consts::PI * r * r,
            None => 4.0 / 3.0 * std::f64::consts::PI * r.powi(3),
        };
        particles += 1;
    }
    RegionStress { sigma: sum * (1.0 / volume), packing_fraction: solid / volume, particles }
}

#[cfg(test)]
mod tests {
    use super::*;
    use granula_core::{BodyHandle, ContactKey, ContactRecord, ContactStatus, PlaneBuilder, SphereBuilder};

    /// A record whose fields the stress does not read.
    fn record() -> ContactRecord {
        ContactRecord {
            key: ContactKey { body1: BodyHandle(0), body2: BodyHandle(0), feature: 0 },
            body1: 0,
            body2: 0,
            point: DVec3::ZERO,
            normal: DVec3::Z,
            tangent: DVec3::X,
            gap: 0.0,
            branch1: DVec3::ZERO,
            branch2: DVec3::ZERO,
            relative_velocity: DVec3::ZERO,
            force: DVec3::ZERO,
            couple: DVec3::ZERO,
            status: ContactStatus::Sticking,
        }
    }

    #[test]
    fn two_pressed_spheres_and_a_sphere_on_a_floor() {
        let mut w = World::builder().build().unwrap();
        let r = 0.5;
        w.insert(SphereBuilder::new(r, DVec3::new(1.0, 1.0, 1.0)).build().unwrap()).unwrap();
        w.insert(SphereBuilder::new(r, DVec3::new(2.0, 1.0, 1.0)).build().unwrap()).unwrap();
        w.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().unwrap()).unwrap();
        w.insert(SphereBuilder::new(r, DVec3::new(5.0, 1.0, 0.5)).build().unwrap()).unwrap();
        let f = 10.0;
        // Body 0 pushes body 1 along +x with f: compression along x.
        let pair = ContactRecord {
            body1: 0,
            body2: 1,
            point: DVec3::new(1.5, 1.0, 1.0),
            normal: DVec3::X,
            gap: 0.0,
            branch1: DVec3::new(0.5, 0.0, 0.0),
            branch2: DVec3::new(-0.5, 0.0, 0.0),
            force: DVec3::new(f, 0.0, 0.0),
            ..record()
        };
        let s = love_weber_stress(&w, &[pair], DVec3::ZERO, DVec3::new(3.0, 2.0, 2.0));
        let v = 12.0;
        // σ_xx = f l / V with l = 1 m, to the rounding of one division and one product;
        // the other components are exact zeros.
        assert!((s.sigma.x_axis.x - f * 1.0 / v).abs() < 1e-15);
        assert_eq!(s.sigma.y_axis.y, 0.0);
        assert_eq!(s.sigma.x_axis.y, 0.0);
        assert_eq!(s.particles, 2);
        // Two spheres of radius 0.5 in 12 m³.
        assert!((s.packing_fraction - 2.0 * 4.0 / 3.0 * std::f64::consts::PI * 0.125 / v).abs() < 1e-15);
        // A sphere of weight m g on the floor: σ_zz = m g r / V.
        let wall = ContactRecord {
            body1: 2,
            body2: 3,
            point: DVec3::new(5.0, 1.0, 0.0),
            normal: DVec3::Z,
            gap: 0.0,
            branch1: DVec3::new(5.0, 1.0, 0.0),
            branch2: DVec3::new(0.0, 0.0, -0.5),
            force: DVec3::new(0.0, 0.0, 3.0),
            ..record()
        };
        let s = love_weber_stress(&w, &[wall], DVec3::new(4.0, 0.0, 0.0), DVec3::new(6.0, 2.0, 1.0));
        // 3 N × 0.5 m / 4 m³ in binary fractions: exact.
        assert_eq!(s.sigma.z_axis.z, 3.0 * 0.5 / 4.0);
        assert!(s.pressure(false) > 0.0, "compression is positive");
    }
}
