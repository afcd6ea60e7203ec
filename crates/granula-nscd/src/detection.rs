//! Detection of closed and incipient contacts at the intermediate configuration q_m
//! (004 §2.3.3.1-2.3.3.3): broadphase on boxes inflated by the detection margin, then the
//! world's narrowphase (built-in pairs and host generators; a pair may give several points,
//! one contact each, told apart by their feature).

use granula_core::narrowphase::{can_touch, Narrowphase};
use granula_core::{Aabb, BodySet, Broadphase, ContactGeometry, CoreError, MotionKind};

/// Reusable buffers of the detection stage.
#[derive(Clone, Debug, Default)]
pub struct Detection {
    boxes: Vec<Aabb>,
    skip: Vec<bool>,
    pairs: Vec<(u32, u32)>,
    points: Vec<ContactGeometry>,
    /// Detected contacts: dense indices (body 1, body 2) and geometry, normal from 1 to 2.
    pub found: Vec<(u32, u32, ContactGeometry)>,
}

impl Detection {
    /// Finds every contact point of the bodies whose gap is at most `margin` (m), through
    /// `narrowphase`.
    pub fn run<B: Broadphase>(
        &mut self,
        bodies: &BodySet,
        narrowphase: &Narrowphase,
        broadphase: &mut B,
        margin: f64,
    ) -> Result<(), CoreError> {
        let n = bodies.len();
        self.boxes.clear();
        self.skip.clear();
        for i in 0..n {
            self.boxes.push(bodies.aabb(i).inflated(0.5 * margin));
            self.skip.push(bodies.motion[i] != MotionKind::Dynamic);
        }
        broadphase.find_pairs(&self.boxes, &self.skip, &mut self.pairs);
        self.found.clear();
        for &(i, j) in &self.pairs {
            let (iu, ju) = (i as usize, j as usize);
            if !can_touch(&bodies.shape[iu], &bodies.shape[ju]) {
                continue;
            }
            self.points.clear();
            narrowphase.collide(bodies, iu, ju, margin, &mut self.points)?;
            self.found.extend(self.points.iter().map(|&g| (i, j, g)));
        }
        Ok(())
    }
}
