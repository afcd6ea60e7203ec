//! Normal force proportional to the overlap volume, F_n = k_V V: the 3D form of the
//! overlap-area law of 002 eq. 5 (F = E A / l_c for discs), the law of YADE's Polyhedra.
//! For polyhedra the contact generator computes V (the volume of the intersection
//! polyhedron, `ContactGeometry::overlap_volume`), so the force does not depend on how
//! finely the faces are meshed. Where the generator gives no volume (spheres and walls),
//! V is the volume of the spherical cap cut by the overlap.

use crate::error::{positive, LawError};
use crate::submodel::{NormalElastic, NormalModel};
use granula_core::{ContactKinematics, PairMaterial};
use std::f64::consts::PI;

/// Volume of the cap of height δ cut from a sphere of radius R: V = π δ² (3R − δ)/3.
/// Exact for a sphere pressed δ into a plane (R* = R). For two spheres, with
/// R* = R₁R₂/(R₁ + R₂), it is the lens volume π R* δ² to leading order only (a contact
/// carries R*, not R₁ and R₂): for equal spheres of radius R = 2R* the lens is
/// π δ² (6R − δ)/12 and the cap of radius R* is π δ² (6R − 4δ)/12, smaller by δ/(4R*)
/// relative (2.5e-3 at δ = 1 % of R*).
#[inline]
pub fn spherical_cap_volume(r: f64, delta: f64) -> f64 {
    PI * delta * delta * (3.0 * r - delta) / 3.0
}

/// Kernel for a contact with a computed overlap volume V at the equivalent depth δ = V/A
/// (A the projected contact area): F = k_V V, tangent stiffness k_V V/δ = k_V A, stored
/// energy ½ k_V V δ. Force exact; stiffness and energy exact while A does not change with
/// the depth (flat faces pressed together, a prismatic overlap), approximate otherwise.
#[inline]
pub fn volumetric_force(k_v: f64, volume: f64, delta: f64) -> NormalElastic {
    NormalElastic { force: k_v * volume, stiffness: k_v * volume / delta, stored: 0.5 * k_v * volume * delta }
}

/// Kernel for a contact without a computed volume, the cap of [`spherical_cap_volume`]:
/// F = k_V π δ² (3R − δ)/3, tangent stiffness k_V π δ (2R − δ), stored energy
/// k_V π (R δ³/3 − δ⁴/12) = ∫₀^δ F dδ (all exact for that cap).
#[inline]
pub fn cap_volumetric_force(k_v: f64, r: f64, delta: f64) -> NormalElastic {
    NormalElastic {
        force: k_v * spherical_cap_volume(r, delta),
        stiffness: k_v * PI * delta * (2.0 * r - delta),
        stored: k_v * PI * delta * delta * delta * (r / 3.0 - delta / 12.0),
    }
}

/// Where k_V comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum VolumeStiffness {
    /// k_V (N/m³), the same for every pair.
    Given(f64),
    /// k_V = E*/R* from the pair's effective Young modulus and the contact's effective
    /// radius: the volumetric counterpart of 002 eq. 5's E/l_c with l_c = R*.
    FromModulus,
}

/// Elastic normal force F_n = k_V V (YADE's Polyhedra law; the 3D overlap-area law of
/// 002 eq. 5), V the contact's overlap volume or, where the contact carries none, the
/// spherical cap of depth δ and radius R* ([`spherical_cap_volume`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VolumetricSpring {
    stiffness: VolumeStiffness,
}

impl VolumetricSpring {
    /// k_V > 0 (N/m³).
    pub fn new(stiffness: f64) -> Result<Self, LawError> {
        Ok(VolumetricSpring {
            stiffness: VolumeStiffness::Given(positive("volumetric_spring", "stiffness", stiffness)?),
        })
    }

    /// k_V = E*/R* per contact ([`VolumeStiffness::FromModulus`]).
    pub fn from_material() -> Self {
        VolumetricSpring { stiffness: VolumeStiffness::FromModulus }
    }

    /// Where k_V comes from.
    pub fn stiffness(&self) -> VolumeStiffness {
        self.stiffness
    }

    /// k_V (N/m³) for a pair material and effective radius.
    #[inline]
    pub fn volume_stiffness(&self, material: &PairMaterial, r_eff: f64) -> f64 {
        match self.stiffness {
            VolumeStiffness::Given(k) => k,
            VolumeStiffness::FromModulus => material.effective_young / r_eff,
        }
    }
}

impl NormalModel for VolumetricSpring {
    fn name(&self) -> &'static str {
        "volumetric_spring"
    }
    #[inline]
    fn elastic(&self, k: &ContactKinematics<'_>) -> NormalElastic {
        let k_v = self.volume_stiffness(k.material, k.effective_radius);
        if k.overlap_volume > 0.0 {
            volumetric_force(k_v, k.overlap_volume, k.overlap)
        } else {
            cap_volumetric_force(k_v, k.effective_radius, k.overlap)
        }
    }
    /// The head-on contact time of two spheres: F ≈ π k_V R* δ² to leading order, the
    /// power law with n = 2 ([`super::power_law_contact_time`]). A flat polyhedron face
    /// (F = k_V A δ, linear) has t_c = π √(m*/(k_V A)) instead.
    fn contact_time(&self, material: &PairMaterial, m_eff: f64, r_eff: f64, v: f64) -> f64 {
        let k_v = self.volume_stiffness(material, r_eff);
        super::power_law_contact_time(PI * k_v * r_eff, 2.0, m_eff, v)
    }
    fn check_pair(&self, material: &PairMaterial, r_eff: f64, m_eff: f64) -> Result<(), LawError> {
        if self.stiffness == VolumeStiffness::FromModulus {
            let bad = |field, value| LawError::UnsupportedPair {
                model: "volumetric_spring",
                field,
                value,
                reason: "k_V = E*/R* needs a positive effective Young modulus and radius",
            };
            if !(material.effective_young.is_finite() && material.effective_young > 0.0) {
                return Err(bad("effective_young", material.effective_young));
            }
            if !(r_eff.is_finite() && r_eff > 0.0) {
                return Err(bad("effective_radius", r_eff));
            }
        }
        super::require_finite_mass("volumetric_spring", m_eff)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cap_kernel_is_consistent() {
        let (k, r, d) = (1e9, 0.01, 1e-4);
        let f = cap_volumetric_force(k, r, d);
        // π δ² (3R − δ)/3 with δ = 1e-4, R = 1e-2: π·1e-8·0.0299/3 = 3.1311e-10 m³.
        assert!((f.force / k - PI * 1e-8 * 0.0299 / 3.0).abs() < 1e-22);
        // Stiffness and stored energy are the derivative and integral of the force:
        // central differences, error O(h²) ≈ 1e-8 relative at h = 1e-4 δ.
        let h = 1e-8;
        let df = (cap_volumetric_force(k, r, d + h).force - cap_volumetric_force(k, r, d - h).force) / (2.0 * h);
        assert!((df / f.stiffness - 1.0).abs() < 1e-6);
        let de = (cap_volumetric_force(k, r, d + h).stored - cap_volumetric_force(k, r, d - h).stored) / (2.0 * h);
        assert!((de / f.force - 1.0).abs() < 1e-6);
        // A prismatic overlap V = A δ: F = k A δ, stiffness k A, stored ½ k A δ².
        let g = volumetric_force(k, 2e-3 * d, d);
        assert!((g.force - k * 2e-3 * d).abs() < 1e-12 * g.force);
        assert!((g.stiffness - k * 2e-3).abs() < 1e-12 * g.stiffness);
        assert!((g.stored - 0.5 * k * 2e-3 * d * d).abs() < 1e-12 * g.stored);
    }

    #[test]
    fn bad_stiffness_is_named() {
        assert!(matches!(
            VolumetricSpring::new(0.0),
            Err(LawError::InvalidParameter { model: "volumetric_spring", param: "stiffness", .. })
        ));
        assert!(VolumetricSpring::new(f64::NAN).is_err());
    }
}
