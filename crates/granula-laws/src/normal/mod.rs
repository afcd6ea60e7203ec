//! Elastic normal force laws: linear spring, Hertz (two forms), the power law of
//! Kelvin-Voigt / Hunt-Crossley, the overlap-volume spring and the planar overlap-area
//! spring (002 eq. 5).

mod area;
mod hertz;
mod linear;
mod power_law;
mod volumetric;

pub use area::{area_spring_force, lens_area_force, segment_area_force, AreaSpring};
pub use hertz::{hertz_force, hertz_lmgc_stiffness, Hertz, HertzLmgc};
pub use linear::{linear_spring_force, LinearSpring};
pub use power_law::{power_law_contact_time, power_law_force, PowerLaw};
pub use volumetric::{
    cap_volume_energy_force, cap_volumetric_force, spherical_cap_volume, volume_energy_force, volumetric_force,
    VolumeEnergy, VolumeStiffness, VolumetricSpring,
};

use crate::error::LawError;

/// Every normal law needs a finite effective mass m* = (1/m₁ + 1/m₂)⁻¹: at least one of the
/// two bodies must be dynamic with a finite mass (two walls never make a contact).
fn require_finite_mass(model: &'static str, m_eff: f64) -> Result<(), LawError> {
    if m_eff.is_finite() && m_eff > 0.0 {
        Ok(())
    } else {
        Err(LawError::UnsupportedPair {
            model,
            field: "effective_mass",
            value: m_eff,
            reason: "a contact needs at least one dynamic body with finite mass",
        })
    }
}
