//! When to rebuild the candidate list: the Verlet-skin criterion.

use granula_core::{BodySet, DQuat, DVec3};

/// Positions (and orientations of non-spherical bodies) at the last rebuild.
#[derive(Clone, Debug, Default)]
pub(crate) struct SkinTracker {
    position: Vec<DVec3>,
    orientation: Vec<DQuat>,
    version: Option<u64>,
}

impl SkinTracker {
    /// `true` when the list must be rebuilt: first use, a structural change, a body that moved
    /// more than half the skin since the last rebuild (two bodies closing in by half the skin
    /// each then still meet within the inflated boxes), or a non-spherical body that turned.
    pub fn needs_rebuild(&self, bodies: &BodySet, skin: f64) -> bool {
        if self.version != Some(bodies.structure_version()) || self.position.len() != bodies.len() {
            return true;
        }
        let limit2 = 0.25 * skin * skin;
        for i in 0..bodies.len() {
            if (bodies.position[i] - self.position[i]).length_squared() > limit2 {
                return true;
            }
            if !bodies.radius[i].is_finite() && bodies.orientation[i] != self.orientation[i] {
                return true;
            }
        }
        false
    }

    /// Records the state at a rebuild.
    pub fn record(&mut self, bodies: &BodySet) {
        self.position.clear();
        self.position.extend_from_slice(&bodies.position);
        self.orientation.clear();
        self.orientation.extend_from_slice(&bodies.orientation);
        self.version = Some(bodies.structure_version());
    }

    /// Forgets the last rebuild.
    pub fn invalidate(&mut self) {
        self.version = None;
    }
}
