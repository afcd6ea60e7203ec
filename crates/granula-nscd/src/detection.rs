//! Detection of closed and incipient contacts at the intermediate configuration q_m
//! (004 §2.3.3.1-2.3.3.3): broadphase on boxes inflated by the detection margin, then the
//! world's narrowphase (built-in pairs and host generators; a pair may give several points,
//! one contact each, told apart by their feature).
//!
//! In a periodic world the backend searches the wrapped boxes and their images
//! ([`PeriodicImages`]), and each pair is collided with body 2 at its image nearest to body
//! 1 (the minimum-image shift of the centres, [`PeriodicDomain::minimum_image_shift`]), so
//! the branch vectors, the Delassus blocks and the sweeps see the pair as if it were not cut
//! by the face. Positions stay unwrapped. Exact when every body, grown by the margin, is at
//! most half a period long along each periodic axis (checked: [`NscdError::PeriodTooShort`]).

use crate::error::NscdError;
use granula_broadphase::PeriodicImages;
use granula_core::narrowphase::{can_touch, Narrowphase};
use granula_core::{Aabb, BodySet, Broadphase, ContactGeometry, CoreError, MotionKind, PeriodicDomain};

/// Reusable buffers of the detection stage.
#[derive(Clone, Debug, Default)]
pub struct Detection {
    boxes: Vec<Aabb>,
    skip: Vec<bool>,
    pairs: Vec<(u32, u32)>,
    points: Vec<ContactGeometry>,
    images: PeriodicImages,
    /// Detected contacts: dense indices (body 1, body 2) and geometry, normal from 1 to 2.
    pub found: Vec<(u32, u32, ContactGeometry)>,
}

impl Detection {
    /// Finds every contact point of the bodies whose gap is at most `margin` (m), through
    /// `narrowphase`, across the faces of `periodic` (module documentation).
    pub fn run<B: Broadphase>(
        &mut self,
        bodies: &BodySet,
        narrowphase: &Narrowphase,
        broadphase: &mut B,
        periodic: &PeriodicDomain,
        margin: f64,
    ) -> Result<(), NscdError> {
        // The generators' per-step data for the current poses (the world boxes among them).
        narrowphase.prepare(bodies);
        let n = bodies.len();
        self.boxes.clear();
        self.skip.clear();
        for i in 0..n {
            self.boxes.push(narrowphase.aabb(bodies, i).inflated(0.5 * margin));
            self.skip.push(bodies.motion[i] != MotionKind::Dynamic);
        }
        let is_periodic = periodic.is_periodic();
        if is_periodic {
            check_periods(bodies, &self.boxes, periodic)?;
            if self.images.domain() != periodic {
                self.images = PeriodicImages::new(*periodic);
            }
            self.images.find_pairs(broadphase, &self.boxes, &self.skip, &mut self.pairs);
        } else {
            broadphase.find_pairs(&self.boxes, &self.skip, &mut self.pairs);
        }
        self.found.clear();
        for &(i, j) in &self.pairs {
            let (iu, ju) = (i as usize, j as usize);
            if !can_touch(&bodies.shape[iu], &bodies.shape[ju]) {
                continue;
            }
            self.points.clear();
            if is_periodic {
                let (xi, xj) = (bodies.position[iu], bodies.position[ju]);
                let image = xj + periodic.minimum_image_shift(xi, xj);
                narrowphase.collide_at(bodies, iu, ju, image, margin, &mut self.points).map_err(CoreError::from)?;
            } else {
                narrowphase.collide(bodies, iu, ju, margin, &mut self.points).map_err(CoreError::from)?;
            }
            self.found.extend(self.points.iter().map(|&g| (i, j, g)));
        }
        Ok(())
    }
}

/// Every bounded box (a body grown by half the margin on each side) at most half a period
/// long along each periodic axis: then two boxes overlap through one image at most, the
/// nearest one, which is the image [`Detection::run`] collides.
fn check_periods(bodies: &BodySet, boxes: &[Aabb], periodic: &PeriodicDomain) -> Result<(), NscdError> {
    if let Some(s) = periodic.shear() {
        return Err(NscdError::ShearNotSupported { flow: s.flow, gradient: s.gradient });
    }
    for (axis, p) in periodic.periodic_axes() {
        let k = axis.index();
        for (i, b) in boxes.iter().enumerate() {
            let extent = b.max[k] - b.min[k];
            if extent.is_finite() && 2.0 * extent > p.length() {
                return Err(NscdError::PeriodTooShort { axis, period: p.length(), body: bodies.handle[i], extent });
            }
        }
    }
    Ok(())
}
