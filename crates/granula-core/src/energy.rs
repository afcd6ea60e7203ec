//! The energy ledger: work dissipated per contact mechanism and energy stored in contacts.
//!
//! Both solver families fill the same ledger, so that
//! kinetic + potential + stored elastic + dissipated = initial + work of external forces
//! can be checked for any simulation.

use serde::{Deserialize, Serialize};
use std::ops::{Add, AddAssign};

/// Energy dissipated (J) by each contact mechanism.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Dissipation {
    /// Normal damping (MD) or inelastic normal shocks (NSCD).
    pub normal: f64,
    /// Sliding friction and tangential damping.
    pub sliding: f64,
    /// Rolling resistance.
    pub rolling: f64,
    /// Twisting (torsion) resistance.
    pub twisting: f64,
    /// Cohesion (work of breaking bonds, E_C per broken contact in NSCD).
    pub cohesion: f64,
    /// Body-level (non-viscous, local) damping.
    pub body_damping: f64,
}

impl Dissipation {
    /// Sum over mechanisms.
    #[inline]
    pub fn total(&self) -> f64 {
        self.normal + self.sliding + self.rolling + self.twisting + self.cohesion + self.body_damping
    }
}

impl Add for Dissipation {
    type Output = Dissipation;
    #[inline]
    fn add(self, o: Dissipation) -> Dissipation {
        Dissipation {
            normal: self.normal + o.normal,
            sliding: self.sliding + o.sliding,
            rolling: self.rolling + o.rolling,
            twisting: self.twisting + o.twisting,
            cohesion: self.cohesion + o.cohesion,
            body_damping: self.body_damping + o.body_damping,
        }
    }
}

impl AddAssign for Dissipation {
    #[inline]
    fn add_assign(&mut self, o: Dissipation) {
        *self = *self + o;
    }
}

/// Cumulative energy accounts of a world.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EnergyLedger {
    /// Total dissipated since the start, per mechanism.
    pub dissipated: Dissipation,
    /// Elastic energy stored in contacts now (springs, overlaps).
    pub stored_elastic: f64,
    /// Work done on dynamic bodies by external forces other than gravity, and by kinematic
    /// bodies through contacts, since the start.
    pub external_work: f64,
}
