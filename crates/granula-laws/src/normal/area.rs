//! The overlap-area law of 002 eq. 5 for the planar world, F_n = k_n A / l_c: the normal
//! force of two polygons (or a polygon and a disc or a wall) proportional to the area A of
//! their overlap region over the characteristic length l_c = rᵢ + rⱼ, r = √(A_body/π).
//!
//! The contact generators of `granula_polygons` publish A as the overlap volume of a unit
//! thickness, l_c/2 as the effective radius, and the mean depth h = A/L across the chord
//! (length L) as the overlap (see `granula_polygons::area_contact`).

use crate::error::{positive, LawError};
use crate::submodel::{NormalElastic, NormalModel};
use granula_core::{ContactKinematics, PairMaterial};

/// The thickness (m) of the planar world's bodies: a contact's overlap volume is its
/// overlap area times this.
const UNIT_THICKNESS: f64 = 1.0;

/// Kernel of 002 eq. 5 for an overlap of area A (m²) and mean depth h = A/L across its
/// chord (m): F = k_n A / l_c, tangent stiffness dF/dh = F/h = k_n L / l_c, stored energy
/// ½ F h. Force exact; stiffness and energy exact while the chord length L does not change
/// with the depth (flat faces pressed together), as for [`volumetric_force`](super::volumetric_force)
/// in 3D.
#[inline]
pub fn area_spring_force(k_n: f64, area: f64, l_c: f64, depth: f64) -> NormalElastic {
    let force = k_n * area / l_c;
    NormalElastic { force, stiffness: force / depth, stored: 0.5 * force * depth }
}

/// Kernel of 002 eq. 5 for a contact without a computed area: the circular segment cut
/// from a disc of radius R by a line at depth δ (a disc on a wall, l_c = 2R), with
/// cos α = 1 − δ/R: A = R²(α − sin α cos α), F = k_n A / (2R), tangent stiffness
/// k_n L / (2R) with the chord L = 2R sin α, stored energy
/// ∫₀^δ F dδ = k_n R² (sin α − α cos α − sin³α/3) / 2 (all exact for the segment).
#[inline]
pub fn segment_area_force(k_n: f64, r: f64, delta: f64) -> NormalElastic {
    let alpha = (1.0 - delta / r).clamp(-1.0, 1.0).acos();
    let (s, c) = alpha.sin_cos();
    let scale = k_n / (2.0 * r);
    NormalElastic {
        force: scale * r * r * (alpha - s * c),
        stiffness: scale * 2.0 * r * s,
        stored: scale * r * r * r * (s - alpha * c - s * s * s / 3.0),
    }
}

/// Elastic normal force of 002 eq. 5, F_n = k_n A / l_c, on the overlap area A of a
/// planar contact (the overlap volume of a unit thickness), with l_c twice the contact's
/// effective radius (the generators of `granula_polygons` publish l_c/2 there). A contact
/// without an area (the built-in disc pairs) uses the circular segment of a disc of the
/// effective radius R at depth δ with l_c = 2R ([`segment_area_force`]): 002's value for a
/// disc on a wall; for two discs it is the lens to leading order in δ, with R the pair's
/// R* = r₁r₂/(r₁ + r₂) where 002 takes l_c = r₁ + r₂ (≥ 4R*), so the force is larger than
/// 002's by (r₁ + r₂)/(2R*) ≥ 2: use polygons, or the 2D engine, for 002's disc pairs.
///
/// With the viscous term of 002 eqs. 2-3 ([`ReducedMassViscous`](crate::ReducedMassViscous))
/// it is the normal law of the 2D engine (`granula_planar::ContactLaw`), see
/// [`planar_area_law`](crate::planar_area_law).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AreaSpring {
    stiffness: f64,
}

impl AreaSpring {
    /// k_n > 0 (N/m) of 002 eq. 5.
    pub fn new(stiffness: f64) -> Result<Self, LawError> {
        Ok(AreaSpring { stiffness: positive("area_spring", "stiffness", stiffness)? })
    }

    /// The stiffness k_n (N/m).
    pub fn stiffness(&self) -> f64 {
        self.stiffness
    }
}

impl NormalModel for AreaSpring {
    fn name(&self) -> &'static str {
        "area_spring"
    }
    #[inline]
    fn elastic(&self, k: &ContactKinematics<'_>) -> NormalElastic {
        if k.overlap_volume > 0.0 {
            let area = k.overlap_volume / UNIT_THICKNESS;
            area_spring_force(self.stiffness, area, 2.0 * k.effective_radius, k.overlap)
        } else {
            segment_area_force(self.stiffness, k.effective_radius, k.overlap)
        }
    }
    /// The half period π √(m*/k_n) (002 eq. 10 with η = 0) of flat faces whose chord is
    /// l_c long (tangent stiffness k_n L / l_c = k_n); a chord L gives √(l_c/L) times it.
    fn contact_time(&self, _: &PairMaterial, m_eff: f64, _: f64, _: f64) -> f64 {
        std::f64::consts::PI * (m_eff / self.stiffness).sqrt()
    }
    fn check_pair(&self, _: &PairMaterial, _: f64, m_eff: f64) -> Result<(), LawError> {
        super::require_finite_mass("area_spring", m_eff)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segment_kernel_is_consistent() {
        let (k, r, d) = (1e5, 0.01, 1e-4);
        let f = segment_area_force(k, r, d);
        // Stiffness and stored energy are the derivative and integral of the force:
        // central differences, error O(h²) ≈ 1e-8 relative at h = 1e-4 δ.
        let h = 1e-8;
        let df = (segment_area_force(k, r, d + h).force - segment_area_force(k, r, d - h).force) / (2.0 * h);
        assert!((df / f.stiffness - 1.0).abs() < 1e-6, "{df} vs {}", f.stiffness);
        let de = (segment_area_force(k, r, d + h).stored - segment_area_force(k, r, d - h).stored) / (2.0 * h);
        assert!((de / f.force - 1.0).abs() < 1e-6, "{de} vs {}", f.force);
        // Half the disc under the line: A = πR²/2, F = k π R / 4.
        let half = segment_area_force(k, r, r);
        assert!((half.force - k * std::f64::consts::PI * r / 4.0).abs() < 1e-12 * half.force);
    }

    #[test]
    fn area_kernel_is_eq_5() {
        // A 0.1 m chord pressed 1 mm: A = 1e-4 m², l_c = 0.2 m: F = k A / l_c = 50 N,
        // stiffness k L / l_c = 5e4 N/m, energy ½ F h = 0.025 J.
        let f = area_spring_force(1e5, 1e-4, 0.2, 1e-3);
        assert!((f.force - 50.0).abs() < 1e-12);
        assert!((f.stiffness - 5e4).abs() < 1e-8);
        assert!((f.stored - 0.025).abs() < 1e-15);
        assert!(matches!(AreaSpring::new(-1.0), Err(LawError::InvalidParameter { param: "stiffness", .. })));
    }
}
