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
    let (alpha, s, c) = half_angle(r, delta.max(0.0));
    let scale = k_n / (2.0 * r);
    NormalElastic {
        force: scale * r * r * (alpha - s * c),
        stiffness: scale * 2.0 * r * s,
        stored: scale * r * r * r * (s - alpha * c - s * s * s / 3.0),
    }
}

/// The half-angle α of the circular segment cut from a disc of radius r at depth h ≤ 2r,
/// with sin α and cos α: from σ = sin(α/2) = √(h/2r), α = 2 asin σ, sin α = 2σ√(1 − σ²) and
/// cos α = 1 − 2σ² (one inverse sine and no cosine, and no cancellation for a shallow cut,
/// where acos(1 − h/r) loses half the digits).
#[inline]
fn half_angle(r: f64, h: f64) -> (f64, f64, f64) {
    let sigma = (0.5 * h / r).sqrt().min(1.0);
    let sigma2 = sigma * sigma;
    (2.0 * sigma.asin(), 2.0 * sigma * (1.0 - sigma2).sqrt(), 1.0 - 2.0 * sigma2)
}

/// The area r²(α − sin α cos α) and half chord r sin α of the circular segment cut from a
/// disc of radius r at depth h ≤ 2r ([`half_angle`]).
#[inline]
fn segment(r: f64, h: f64) -> (f64, f64) {
    let (alpha, s, c) = half_angle(r, h);
    (r * r * (alpha - s * c), r * s)
}

/// The area of the lens of two discs of radii r₁, r₂ overlapping by δ (centre distance
/// d = r₁ + r₂ − δ) and its chord length: two segments of depths δ₁ = δ(2r₂ − δ)/(2d) and
/// δ₂ = δ(2r₁ − δ)/(2d) (δ₁ + δ₂ = δ, both from the chord at x = (d² + r₁² − r₂²)/(2d)
/// from centre 1, written without cancellation).
#[inline]
fn lens(r1: f64, r2: f64, delta: f64) -> (f64, f64) {
    let d = r1 + r2 - delta;
    let (a1, h) = segment(r1, delta * (2.0 * r2 - delta) / (2.0 * d));
    let (a2, _) = segment(r2, delta * (2.0 * r1 - delta) / (2.0 * d));
    (a1 + a2, 2.0 * h)
}

/// Gauss-Legendre nodes u and weights w on [0, 1], eight points (exact for polynomials of
/// degree 15).
const GAUSS8: [(f64, f64); 8] = [
    (1.985_507_175_123_191_2e-2, 5.061_426_814_518_853e-2),
    (1.016_667_612_931_866_4e-1, 1.111_905_172_266_872_1e-1),
    (2.372_337_950_418_355e-1, 1.568_533_229_389_434_4e-1),
    (4.082_826_787_521_751e-1, 1.813_418_916_891_808_3e-1),
    (5.917_173_212_478_248e-1, 1.813_418_916_891_808_3e-1),
    (7.627_662_049_581_645e-1, 1.568_533_229_389_434_4e-1),
    (8.983_332_387_068_134e-1, 1.111_905_172_266_872_1e-1),
    (9.801_449_282_487_681e-1, 5.061_426_814_518_853e-2),
];

/// ∫₀^δ A(δ') dδ' for the lens of two discs of radii r₁, r₂ (R = r₁ + r₂), as the
/// repeated integral of its chord, ∫₀^δ (δ − x) L(x) dx (dA/dδ = L), with the chord from
/// the triangle of sides r₁, r₂ and d = R − x (Heron):
/// L(x) = √(x (2R − x)(2r₁ − x)(2r₂ − x)) / (R − x). With x = δu² the integral is
/// 2δ^{5/2} ∫₀¹ u²(1 − u²) G(δu²)/(R − δu²) du, G(x) = √((2R − x)(2r₁ − x)(2r₂ − x)),
/// a polynomial times a function analytic in u² as far as x = 2 min(r₁, r₂): eight-point
/// Gauss-Legendre gives it to 1e-14 relative for δ ≤ min(r)/4, 2e-12 at min(r)/2 and 1e-9
/// at δ = min(r), with one square root and one division per node and no cancellation
/// (the integral has no elementary form for unequal discs: it is elliptic).
#[inline]
fn lens_area_integral(r1: f64, r2: f64, delta: f64) -> f64 {
    let big = r1 + r2;
    let sum: f64 = GAUSS8
        .iter()
        .map(|&(u, w)| {
            let u2 = u * u;
            let x = delta * u2;
            // Clamped: beyond x = 2 min(r) the small disc lies inside the other.
            let g2 = ((2.0 * big - x) * (2.0 * r1 - x) * (2.0 * r2 - x)).max(0.0);
            w * u2 * (1.0 - u2) * g2.sqrt() / (big - x)
        })
        .sum();
    2.0 * delta * delta * delta.sqrt() * sum
}

/// Kernel of 002 eq. 5 for two discs of radii r₁, r₂ overlapping by δ, with 002's
/// l_c = r₁ + r₂: the lens area A (two circular segments), F = k_n A / l_c, tangent
/// stiffness dF/dδ = k_n L / l_c with L the chord (dA/dδ = L, exact), stored energy
/// (k_n/l_c) ∫₀^δ A dδ' as the repeated integral of the chord, ∫₀^δ (δ − x) L(x) dx, by
/// eight-point Gauss-Legendre in u = √(x/δ) (1e-14 relative for δ ≤ min(r)/4, 2e-12 at
/// min(r)/2; no elementary form for unequal discs); tests: the closed form of equal discs,
/// (D² − d²)^{3/2}/3 − d A with D = 2r, a fine quadrature of the lens area, and central
/// differences of the force.
#[inline]
pub fn lens_area_force(k_n: f64, r1: f64, r2: f64, delta: f64) -> NormalElastic {
    let scale = k_n / (r1 + r2);
    let (area, chord) = lens(r1, r2, delta);
    NormalElastic { force: scale * area, stiffness: scale * chord, stored: scale * lens_area_integral(r1, r2, delta) }
}

/// The radii of the two discs of a built-in sphere pair of the planar world, from the
/// contact the core's sphere generator makes (contact point in the middle of the overlap,
/// so |l_k| = r_k − δ/2, and R* = r₁r₂/(r₁ + r₂)); `None` when the branch vectors do not
/// give back R* (a plane, whose R* is the disc's radius, or a cylinder), to 1e-9 relative
/// (round-off of the contact point is ~1e-16).
#[inline]
fn disc_pair_radii(k: &ContactKinematics<'_>) -> Option<(f64, f64)> {
    let half = 0.5 * k.overlap;
    let (r1, r2) = (k.branch1.length() + half, k.branch2.length() + half);
    let r_star = r1 * r2 / (r1 + r2);
    ((r_star - k.effective_radius).abs() <= 1e-9 * k.effective_radius).then_some((r1, r2))
}

/// Elastic normal force of 002 eq. 5, F_n = k_n A / l_c, on the overlap area A of a
/// planar contact (the overlap volume of a unit thickness), with l_c twice the contact's
/// effective radius (the generators of `granula_polygons` publish l_c/2 there).
///
/// The built-in disc pairs of the planar world (spheres, whose generator publishes no
/// area) get 002's values from their radii:
/// - two discs: the lens of the two circles, l_c = r₁ + r₂ ([`lens_area_force`]); the
///   radii are read from the contact (|l_k| + δ/2 with the contact point in the middle of
///   the overlap, checked against R*);
/// - a disc on a plane (R* = r): the circular segment at depth δ, l_c = 2r
///   ([`segment_area_force`]), 002's value for a wall;
/// - anything else without an area (a disc against a cylinder): the segment of R*.
///
/// For discs 002 puts the contact point at the overlap's centroid; the core's sphere
/// generator takes the middle of the overlap on the line of centres, so the lever arm of a
/// tangential force differs by a fraction of δ.
///
/// With the viscous term of 002 eqs. 2-3 ([`ReducedMassViscous`](crate::ReducedMassViscous))
/// it is 002's normal law, see [`planar_area_law`](crate::planar_area_law),
/// [`planar_friction_law`](crate::planar_friction_law) and
/// [`planar_predictor_law`](crate::planar_predictor_law).
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
        } else if let Some((r1, r2)) = disc_pair_radii(k) {
            lens_area_force(self.stiffness, r1, r2, k.overlap)
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
    fn lens_kernel_is_consistent() {
        let k = 1e5;
        // Equal discs: ∫₀^δ A dδ' = (D² − d²)^{3/2}/3 − d A(d), D = 2r (by parts, with
        // dA/dd = −L and L d = √(D² − d²) d); at δ = 0.05 r the cancellation leaves ~1e-13.
        let (r, delta) = (0.01, 5e-4);
        let f = lens_area_force(k, r, r, delta);
        let d: f64 = 2.0 * r - delta;
        let (area, _) = lens(r, r, delta);
        let exact = ((4.0 * r * r - d * d).powf(1.5) / 3.0 - d * area) * k / (2.0 * r);
        assert!((f.stored / exact - 1.0).abs() < 1e-10, "{} vs {exact}", f.stored);
        // The lens of equal discs is two segments at depth δ/2 (each with l_c = 2r).
        let seg = segment_area_force(k, r, 0.5 * delta);
        assert!((f.force - 2.0 * seg.force).abs() < 1e-13 * f.force, "{} vs {}", f.force, seg.force);
        // Unequal discs: stiffness and energy against central differences of the force
        // (error O(h²) ≈ 1e-8 relative at h = 1e-4 δ).
        let (r1, r2, delta) = (0.01, 0.03, 2e-4);
        let f = lens_area_force(k, r1, r2, delta);
        let h = 1e-8;
        let at = |x: f64| lens_area_force(k, r1, r2, x);
        let df = (at(delta + h).force - at(delta - h).force) / (2.0 * h);
        assert!((df / f.stiffness - 1.0).abs() < 1e-6, "{df} vs {}", f.stiffness);
        let de = (at(delta + h).stored - at(delta - h).stored) / (2.0 * h);
        assert!((de / f.force - 1.0).abs() < 1e-6, "{de} vs {}", f.force);
        // A much larger disc 2 makes the lens the segment of disc 1 with depth → δ.
        let wide = lens_area_force(k, r1, 1e6, delta);
        let seg = segment_area_force(k, r1, delta);
        let l_ratio = 2.0 * r1 / (r1 + 1e6);
        assert!((wide.force / (seg.force * l_ratio) - 1.0).abs() < 1e-6);
    }

    /// ∫₀^δ A dδ' by composite Simpson in u = √(δ'/δ) (integrand A(δu²) 2δu, smooth):
    /// 4000 panels, error ~1e-15 relative.
    fn lens_integral_reference(r1: f64, r2: f64, delta: f64) -> f64 {
        let n = 4000;
        let h = 1.0 / n as f64;
        let f = |u: f64| lens(r1, r2, delta * u * u).0 * 2.0 * delta * u;
        let inner: f64 = (1..n).map(|k| if k % 2 == 1 { 4.0 } else { 2.0 } * f(k as f64 * h)).sum();
        (f(0.0) + inner + f(1.0)) * h / 3.0
    }

    #[test]
    fn lens_energy_matches_a_fine_quadrature() {
        // Radius ratios 1, 1/2 and 1/5, depths from 1e-3 to 1/2 of the smaller radius:
        // 3e-12 relative covers the eight-point rule's error there (at most 1.4e-12, at
        // δ = r₂/2 with r₂ = r₁/2) and the reference's round-off. Shallower lenses are left
        // out: the reference's segment areas r²(α − sin α cos α) lose digits to cancellation
        // (~1e-11 relative at δ = 1e-6 r), the chord integral does not.
        for (r1, r2) in [(0.01, 0.01), (0.01, 0.005), (0.01, 0.002)] {
            for frac in [1e-3, 1e-2, 0.1, 0.25, 0.5] {
                let delta = frac * f64::min(r1, r2);
                let got = lens_area_integral(r1, r2, delta);
                let want = lens_integral_reference(r1, r2, delta);
                assert!((got / want - 1.0).abs() < 3e-12, "r {r1} {r2} δ {delta}: {got} vs {want}");
            }
        }
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
