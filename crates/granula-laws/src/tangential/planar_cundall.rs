//! Cundall's spring as 002 writes it for the planar world (002 eqs. 6-7), with the
//! tangential viscous force of 002 eq. 2 beside it.

use super::settings::{Friction, SpringSettings, TangentialDamping, TangentialStiffness};
use super::spring::{capped_spring_from, SpringState};
use crate::error::LawError;
use crate::submodel::{NormalState, ResistanceOut, TangentialModel};
use glam::DVec3;
use granula_core::{ContactKinematics, PairMaterial};

/// Cundall's tangential spring of 002 §2: F_t^e = −k_t ξ (002 eq. 6) with
/// ξ(t+Δt) = ξ(t) + v_t^c Δt (002 eq. 7) while |F_t^e| < μ F_n^e, and ξ held at its extreme
/// value μ F_n^e / k_t (sliding) once the trial spring passes the limit; beside it the
/// tangential part of the viscous force −m_r ν_t v_t^c (002 eq. 2).
///
/// It differs from [`CundallStrack`](super::CundallStrack) in two places, both as 002
/// writes them:
/// - the Coulomb limit is on the *elastic* forces, |k_t ξ| ≤ μ F_n^e with F_n^e the
///   elastic normal force ([`NormalState::elastic`]), not the total normal load;
/// - the viscous force −γ_t v_t is added after the limit, so it is not capped.
///
/// The spring's history is the one of the 3D models ([`SpringState`]): the stored ξ is
/// turned into the current tangent plane with its length kept ([`SpringState::in_plane`]),
/// which in the plane is 002's scalar ξ along the tangent t̂_c that turns with the contact.
/// The step itself is [`capped_spring`](super::capped_spring) without a dashpot.
///
/// Energy: `stored` = ½ k_t |ξ|²; `dissipated` is the spring's balance (the work of the
/// Coulomb slip and the first-order increment's ½ k_t |v_t Δt|² while sticking, see
/// [`SpringStep::dissipated`](super::SpringStep)) plus the dashpot's γ_t |v_t|² Δt.
///
/// With the overlap-area law, whose tangent stiffness k_n L / l_c follows the chord, give
/// 002's constant k_t as [`TangentialStiffness::Fixed`]; 002's ν_t/ν_n = k_t/k_n is
/// [`TangentialDamping::Ratio`] on the normal coefficient m_r ν_n. [`planar_friction_law`](crate::planar_friction_law)
/// sets both.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlanarCundall {
    /// k_t.
    pub stiffness: TangentialStiffness,
    /// γ_t of the viscous force outside the limit.
    pub damping: TangentialDamping,
    /// μ_s (the limit of the sticking spring) and μ_d (the spring's value while sliding);
    /// 002 has one μ for both.
    pub friction: Friction,
}

impl PlanarCundall {
    /// A validated model.
    pub fn new(
        stiffness: TangentialStiffness,
        damping: TangentialDamping,
        friction: Friction,
    ) -> Result<Self, LawError> {
        let s = SpringSettings { stiffness, damping, friction }.checked("planar_cundall")?;
        Ok(PlanarCundall { stiffness: s.stiffness, damping: s.damping, friction: s.friction })
    }
}

impl TangentialModel for PlanarCundall {
    type History = SpringState;
    fn name(&self) -> &'static str {
        "planar_cundall"
    }
    #[inline]
    fn tangential(&self, k: &ContactKinematics<'_>, normal: &NormalState, h: &mut SpringState) -> ResistanceOut {
        let settings = SpringSettings { stiffness: self.stiffness, damping: self.damping, friction: self.friction };
        planar_spring_step(&settings, k, normal, h, |vt| vt * k.dt)
    }
    fn check_pair(&self, material: &PairMaterial) -> Result<(), LawError> {
        SpringSettings { stiffness: self.stiffness, damping: self.damping, friction: self.friction }
            .check_pair("planar_cundall", material)
    }
}

/// One step of 002's planar spring with the elongation increment given by `increment`
/// (called with the tangential relative velocity v_t): the stored ξ is turned into the
/// current tangent plane, advanced by the increment, held at μ F_n^e / k_t when it passes
/// the limit (002 eqs. 6-7, the limit on the elastic normal force), and the uncapped
/// dashpot −γ_t v_t (002 eq. 2) is added. Shared by [`PlanarCundall`] (increment v_t Δt,
/// 002 eq. 7) and [`PlanarPredictor`](super::PlanarPredictor) (the increment from
/// positions, 002 eqs. 14-15), so that the two differ only in the increment.
#[inline]
pub(super) fn planar_spring_step(
    settings: &SpringSettings,
    k: &ContactKinematics<'_>,
    normal: &NormalState,
    h: &mut SpringState,
    increment: impl FnOnce(DVec3) -> DVec3,
) -> ResistanceOut {
    let n = k.normal;
    let vt = k.relative_velocity - k.relative_velocity.dot(n) * n;
    let kt = settings.stiffness.value(k.material, normal);
    let gt = settings.damping.value(normal, kt);
    let (ms, md) = settings.friction.coefficients(k.material);
    let load = normal.elastic.max(0.0);
    let (xi, before) = h.in_plane_with_energy(n, kt);
    let s = capped_spring_from(xi, before, increment(vt), vt, k.dt, kt, 0.0, ms * load, md * load);
    *h = SpringState { xi: s.xi, stiffness: kt };
    let viscous = -gt * vt;
    ResistanceOut {
        value: s.force + viscous,
        stored: s.stored,
        dissipated: s.dissipated - viscous.dot(vt) * k.dt,
        sliding: s.sliding,
    }
}
