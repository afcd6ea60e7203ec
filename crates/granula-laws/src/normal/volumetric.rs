//! Normal force proportional to the overlap volume, F_n = k_V V: the 3D form of the
//! overlap-area law of 002 eq. 5 (F = E A / l_c for discs), the law of YADE's Polyhedra.
//! For polyhedra the contact generator computes V (the volume of the intersection
//! polyhedron, `ContactGeometry::overlap_volume`), so the force does not depend on how
//! finely the faces are meshed. Where the generator gives no volume (spheres and walls),
//! V is the volume of the spherical cap cut by the overlap.
//!
//! [`VolumeEnergy`] is the conservative member: the energy U(V) = k_V V²/(2π R*²) of the
//! volume alone, whose force is a uniform pressure U′(V) on the contact surface, so that
//! an undamped system keeps its energy whatever the shapes (see its docs).

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
        check_volume_pair("volumetric_spring", self.stiffness, material, r_eff, m_eff)
    }
}

/// Kernel of [`VolumeEnergy`] for a contact of overlap volume V at the equivalent depth
/// δ = V/A (A the projected contact area), k = k_V/(π R*²): pressure p = U′(V) = k V,
/// force F = p A, stored energy U = ½ k V², tangent stiffness k A² (exact while A does
/// not change with the depth, a prismatic overlap, as [`volumetric_force`]'s).
#[inline]
pub fn volume_energy_force(k_v: f64, r_eff: f64, volume: f64, delta: f64) -> NormalElastic {
    let k = k_v / (PI * r_eff * r_eff);
    let area = volume / delta;
    NormalElastic { force: k * volume * area, stiffness: k * area * area, stored: 0.5 * k * volume * volume }
}

/// Kernel of [`VolumeEnergy`] without a computed volume: the spherical cap of depth δ and
/// radius R (volume V, base area A = π δ (2R − δ) = dV/dδ), k = k_V/(π R²): F = k V A,
/// stored ½ k V², stiffness k (A² + 2π (R − δ) V) (all exact for that cap); F ≈ 2π k_V δ³
/// to leading order.
#[inline]
pub fn cap_volume_energy_force(k_v: f64, r: f64, delta: f64) -> NormalElastic {
    let k = k_v / (PI * r * r);
    let (volume, area) = (spherical_cap_volume(r, delta), PI * delta * (2.0 * r - delta));
    NormalElastic {
        force: k * volume * area,
        stiffness: k * (area * area + 2.0 * PI * (r - delta) * volume),
        stored: 0.5 * k * volume * volume,
    }
}

/// The conservative overlap-volume law: the contact stores the energy
/// U(V) = k_V V² / (2π R*²) of its overlap volume V alone (R* constant for the pair), and
/// its force is the energy's gradient: a uniform pressure p = U′(V) = k_V V/(π R*²) on
/// the contact surface, F_n = p A along the surface's mean normal (A its projected area),
/// with the line of action and the twist of that pressure (the contact's point and
/// [`twist_arm`](granula_core::ContactGeometry::twist_arm), from
/// `granula_polyhedra`'s overlap-volume contacts). Energy functions of the volume were
/// introduced for arbitrary shapes by Feng (2021, "an energy-conserving contact theory");
/// this one is his family's quadratic member, so that the force rises from zero at first
/// touch (a face landing flat has no jump) and grows linearly with the depth on a prism
/// (F = k_V A² δ/(π R*²): [`VolumetricSpring`]'s k_V A δ where the contact area is
/// π R*²).
///
/// Why not [`VolumetricSpring`]: F = k_V V along the normal is k_V (V/A) times the
/// volume's gradient, and V/A is not a function of V, so that law does work of its own
/// when A changes (a corner, a tilted face); a single point force cannot carry the twist
/// either. This law's force and couple are −∂U/∂x and −∂U/∂θ to round-off (checked by
/// finite differences) and an undamped pile keeps its energy.
///
/// Where a contact carries no volume (spheres, cylinder walls), V and A are those of the
/// spherical cap of depth δ and radius R* ([`cap_volume_energy_force`], F ≈ 2π k_V δ³).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VolumeEnergy {
    stiffness: VolumeStiffness,
}

impl VolumeEnergy {
    /// k_V > 0 (N/m³).
    pub fn new(stiffness: f64) -> Result<Self, LawError> {
        Ok(VolumeEnergy { stiffness: VolumeStiffness::Given(positive("volume_energy", "stiffness", stiffness)?) })
    }

    /// k_V = E*/R* per contact ([`VolumeStiffness::FromModulus`]).
    pub fn from_material() -> Self {
        VolumeEnergy { stiffness: VolumeStiffness::FromModulus }
    }

    /// Where k_V comes from.
    pub fn stiffness(&self) -> VolumeStiffness {
        self.stiffness
    }
}

impl NormalModel for VolumeEnergy {
    fn name(&self) -> &'static str {
        "volume_energy"
    }
    #[inline]
    fn elastic(&self, k: &ContactKinematics<'_>) -> NormalElastic {
        let spring = VolumetricSpring { stiffness: self.stiffness };
        let k_v = spring.volume_stiffness(k.material, k.effective_radius);
        if k.overlap_volume > 0.0 {
            volume_energy_force(k_v, k.effective_radius, k.overlap_volume, k.overlap)
        } else {
            cap_volume_energy_force(k_v, k.effective_radius, k.overlap)
        }
    }
    /// The head-on contact time of two spheres: F ≈ 2π k_V δ³, the power law with n = 3
    /// ([`super::power_law_contact_time`]). A flat polyhedron face of area A
    /// (F = k_V A² δ/(π R*²), linear) has t_c = π √(m* π R*² /(k_V A²)) instead.
    fn contact_time(&self, material: &PairMaterial, m_eff: f64, r_eff: f64, v: f64) -> f64 {
        let k_v = VolumetricSpring { stiffness: self.stiffness }.volume_stiffness(material, r_eff);
        super::power_law_contact_time(2.0 * PI * k_v, 3.0, m_eff, v)
    }
    fn check_pair(&self, material: &PairMaterial, r_eff: f64, m_eff: f64) -> Result<(), LawError> {
        if !(r_eff.is_finite() && r_eff > 0.0) {
            return Err(LawError::UnsupportedPair {
                model: "volume_energy",
                field: "effective_radius",
                value: r_eff,
                reason: "U(V) = k_V V²/(2π R*²) needs a positive effective radius",
            });
        }
        check_volume_pair("volume_energy", self.stiffness, material, r_eff, m_eff)
    }
}

/// The pair checks of the overlap-volume laws (named `model`): k_V = E*/R* needs a
/// positive effective modulus and radius; the mass must be finite.
fn check_volume_pair(
    model: &'static str,
    stiffness: VolumeStiffness,
    material: &PairMaterial,
    r_eff: f64,
    m_eff: f64,
) -> Result<(), LawError> {
    if stiffness == VolumeStiffness::FromModulus {
        let bad = |field, value| LawError::UnsupportedPair {
            model,
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
    super::require_finite_mass(model, m_eff)
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
    fn volume_energy_kernels_are_the_gradient_of_their_energy() {
        // The cap: F = dU/dδ and stiffness = dF/dδ by central differences (error O(h²),
        // about 1e-8 relative at h = 1e-4 δ).
        let (k, r, d, h) = (1e9, 0.01, 1e-4, 1e-8);
        let e = |x| cap_volume_energy_force(k, r, x);
        let f = e(d);
        assert!(((e(d + h).stored - e(d - h).stored) / (2.0 * h) / f.force - 1.0).abs() < 1e-6);
        assert!(((e(d + h).force - e(d - h).force) / (2.0 * h) / f.stiffness - 1.0).abs() < 1e-6);
        // F = 2π k δ³ (1 − δ/(3R)) (1 − δ/(2R)) exactly (cap volume times base area over
        // π R²), so the leading order 2π k δ³ is high by about 5δ/(6R) = 8.3e-3 here.
        let exact = 2.0 * PI * k * d * d * d * (1.0 - d / (3.0 * r)) * (1.0 - d / (2.0 * r));
        assert!((f.force / exact - 1.0).abs() < 1e-14);
        // A prism V = A δ: F = k_V A² δ/(π R²), stored ½ k_V (A δ)²/(π R²), which is the
        // integral of F over δ at fixed A.
        let a = 2e-5;
        let g = volume_energy_force(k, r, a * d, d);
        let c = k / (PI * r * r);
        assert!((g.force / (c * a * a * d) - 1.0).abs() < 1e-14);
        assert!((g.stored / (0.5 * c * a * a * d * d) - 1.0).abs() < 1e-14);
        assert!((g.stiffness / (c * a * a) - 1.0).abs() < 1e-14);
        // The pressure U'(V) = k V is the same function of V for both kernels.
        let v = spherical_cap_volume(r, d);
        let area = PI * d * (2.0 * r - d);
        assert!((volume_energy_force(k, r, v, v / area).force / f.force - 1.0).abs() < 1e-14);
    }

    #[test]
    fn bad_stiffness_is_named() {
        assert!(matches!(
            VolumetricSpring::new(0.0),
            Err(LawError::InvalidParameter { model: "volumetric_spring", param: "stiffness", .. })
        ));
        assert!(VolumetricSpring::new(f64::NAN).is_err());
        assert!(matches!(
            VolumeEnergy::new(-1.0),
            Err(LawError::InvalidParameter { model: "volume_energy", param: "stiffness", .. })
        ));
    }
}
