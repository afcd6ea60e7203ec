//! The contact law of 002 §2 in the plane: the elastic normal force on the overlap area
//! (002 eq. 5), viscous damping with the reduced mass (002 eqs. 2-3) and a tangential
//! spring, either Cundall's (002 eqs. 6-7) or the predictor-based elongation (002 §4).

use crate::error::{non_negative, positive, Result};
use glam::DVec2;
use granula_polygons::law::normal_force;
use granula_polygons::Overlap2;

/// How the tangential elongation ξ is advanced from one force evaluation to the next.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Tangential {
    /// Cundall's spring, ξ(t + Δt) = ξ(t) + v_t Δt (002 eq. 7): first order in Δt.
    #[default]
    Cundall,
    /// The predictor-based elongation of 002 §4 (the polygon form of 002 eqs. 14-15): the
    /// increment is the tangential relative displacement of the two bodies' material points
    /// at the contact between two force evaluations, from the overlap centroid (the contact
    /// point) and the branch vectors at both evaluations and each body's turn in between —
    /// all positions of the predictor step, so ξ carries the predictor's error, not
    /// Cundall's (Δt)². See [`ContactState`] for the formula.
    Predictor,
}

/// The parameters of the contact law (002 §2), checked by [`ContactLawBuilder::build`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactLaw {
    /// Normal stiffness k_n (N/m) of F_n = k_n A / l_c (002 eq. 5).
    pub normal_stiffness: f64,
    /// Normal damping rate ν_n (1/s) of F_v = −m_r ν v_c (002 eq. 2).
    pub normal_damping: f64,
    /// Tangential stiffness k_t (N/m) of F_t = −k_t ξ (002 eq. 6).
    pub tangential_stiffness: f64,
    /// Tangential damping rate ν_t (1/s).
    pub tangential_damping: f64,
    /// Coulomb friction coefficient μ: |k_t ξ| ≤ μ F_n.
    pub friction: f64,
    /// The tangential spring's update rule.
    pub tangential: Tangential,
}

/// Builder of a [`ContactLaw`]: k_n first, then the optional parts.
#[derive(Clone, Copy, Debug)]
pub struct ContactLawBuilder {
    law: ContactLaw,
    restitution: Option<(f64, f64)>,
    ratio: f64,
}

impl ContactLaw {
    /// A builder with normal stiffness k_n (N/m); no damping, k_t/k_n = 0, μ = 0 and
    /// Cundall's spring until set.
    pub fn builder(normal_stiffness: f64) -> ContactLawBuilder {
        ContactLawBuilder {
            law: ContactLaw {
                normal_stiffness,
                normal_damping: 0.0,
                tangential_stiffness: 0.0,
                tangential_damping: 0.0,
                friction: 0.0,
                tangential: Tangential::Cundall,
            },
            restitution: None,
            ratio: 0.0,
        }
    }
}

impl ContactLawBuilder {
    /// Normal damping rate ν_n (1/s) directly.
    pub fn normal_damping(mut self, rate: f64) -> Self {
        self.law.normal_damping = rate;
        self.restitution = None;
        self
    }

    /// Normal damping from the restitution coefficient ε_n of a contact of reduced mass
    /// `reduced_mass` (002 eq. 8, see [`damping_from_restitution`]).
    pub fn restitution(mut self, restitution: f64, reduced_mass: f64) -> Self {
        self.restitution = Some((restitution, reduced_mass));
        self
    }

    /// k_t/k_n, and ν_t/ν_n equal to it as in 002 §2 ("we always take ν_t/ν_n = k_t/k_n").
    pub fn tangential_ratio(mut self, ratio: f64) -> Self {
        self.ratio = ratio;
        self
    }

    /// Friction coefficient μ.
    pub fn friction(mut self, mu: f64) -> Self {
        self.law.friction = mu;
        self
    }

    /// The tangential update rule.
    pub fn tangential(mut self, rule: Tangential) -> Self {
        self.law.tangential = rule;
        self
    }

    /// The checked law: k_n > 0, ε_n in (0, 1], reduced mass > 0, ν_n, k_t/k_n and μ ≥ 0,
    /// all finite.
    pub fn build(self) -> Result<ContactLaw> {
        let mut law = self.law;
        positive("normal_stiffness", law.normal_stiffness)?;
        if let Some((e, m)) = self.restitution {
            if !(e.is_finite() && e > 0.0 && e <= 1.0) {
                return Err(crate::PlanarError::BadParameter {
                    name: "restitution",
                    value: e,
                    expected: "a number in (0, 1]",
                });
            }
            positive("reduced_mass", m)?;
            law.normal_damping = damping_from_restitution(e, law.normal_stiffness, m);
        }
        non_negative("normal_damping", law.normal_damping)?;
        non_negative("tangential_ratio", self.ratio)?;
        non_negative("friction", law.friction)?;
        law.tangential_stiffness = self.ratio * law.normal_stiffness;
        law.tangential_damping = self.ratio * law.normal_damping;
        Ok(law)
    }
}

/// The damping rate ν (1/s) of F_v = −m_r ν v (002 eq. 2) that gives restitution ε to a
/// linear contact of stiffness k and reduced mass m_r (002 eq. 8). The equation of the
/// contact is m_r δ̈ = −k δ − m_r ν δ̇, so η = ν/2, ω₀ = √(k/m_r) and ε = exp(−πη/ω) with
/// ω = √(ω₀² − η²); hence η = −ln ε ω₀ / √(π² + ln² ε). (002 eq. 8 writes η = ν_n/(2m_r),
/// that is with the damping coefficient m_r ν of eq. 2 in place of ν.)
pub fn damping_from_restitution(restitution: f64, stiffness: f64, reduced_mass: f64) -> f64 {
    let l = restitution.ln();
    let omega0 = (stiffness / reduced_mass).sqrt();
    2.0 * (-l) * omega0 / (std::f64::consts::PI.powi(2) + l * l).sqrt()
}

/// The contact duration t_c = π/√(ω₀² − η²) (002 eq. 10) of a contact of stiffness k,
/// damping rate ν (η = ν/2) and reduced mass m_r.
pub fn contact_time(stiffness: f64, damping: f64, reduced_mass: f64) -> f64 {
    let eta = 0.5 * damping;
    std::f64::consts::PI / (stiffness / reduced_mass - eta * eta).sqrt()
}

/// The history of a contact between two force evaluations.
///
/// The elongation ξ is a scalar along the tangent t = (−n_y, n_x) of the current normal,
/// so it turns with the contact frame. [`Tangential::Predictor`] stores the branch vectors
/// lᵢ⁰, lⱼ⁰ (from each centre to the overlap centroid) and the angles θᵢ⁰, θⱼ⁰ at the last
/// evaluation. At the next one (branches lᵢ, lⱼ, angles θᵢ, θⱼ, both of the predictor step)
/// the material point of body k that sat at the old contact point has moved, relative to
/// the new contact point, by s_k = l_k − R(θ_k − θ_k⁰) l_k⁰ (the branch vector now, minus the
/// old one turned with the body: 002 §4's "rotation from the branch vectors"); the
/// contact point itself moved by Δr_c (002 §4's "translation from the overlap centroid"),
/// which is common to both bodies and cancels in the relative displacement
///
/// Δξ = (sⱼ − sᵢ) · t = [Δr_c − sᵢ − (Δr_c − sⱼ)] · t,
///
/// the displacement of i's material point relative to j's. For discs with locked
/// rotations it is −ΔR·t (002 eq. 14 with weight 1, as `granula-laws`' 3D law, whose
/// documentation gives the reasons for not applying the printed aᵢ/(aᵢ + aⱼ)); for a disc
/// turning about a fixed centre it is the arc of 002 eq. 15 (chord of the turn, exact);
/// for a rigid motion of the pair it is zero. The increment depends on positions only,
/// so the spring is free of the (Δt)² error of 002 eq. 7.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ContactState {
    /// Elongation ξ along the tangent (m).
    pub xi: f64,
    /// Branch of body i at the last evaluation (m).
    pub branch_i: DVec2,
    /// Branch of body j at the last evaluation (m).
    pub branch_j: DVec2,
    /// Angle of body i at the last evaluation (rad).
    pub angle_i: f64,
    /// Angle of body j at the last evaluation (rad).
    pub angle_j: f64,
    /// Whether the contact has been evaluated before.
    pub evaluated: bool,
    /// Whether the spring was at the Coulomb limit at the last evaluation.
    pub sliding: bool,
}

/// What the law needs of a pair besides the overlap, in body i's frame (x_i at the
/// origin).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PairKinematics {
    pub reduced_mass: f64,
    pub length: f64,
    pub separation: DVec2,
    pub velocity_i: DVec2,
    pub velocity_j: DVec2,
    pub spin_i: f64,
    pub spin_j: f64,
    pub angle_i: f64,
    pub angle_j: f64,
}

/// The result of one contact: the force on body i (the force on j is its opposite), the
/// torques about each centre, and the parts for output.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PairForce {
    /// Total force on body i (N).
    pub force_i: DVec2,
    /// Torque on body i about its centre (N m).
    pub torque_i: f64,
    /// Torque on body j about its centre (N m).
    pub torque_j: f64,
    /// Elastic normal force k_n A / l_c (N, ≥ 0).
    pub normal: f64,
    /// Elastic tangential force −k_t ξ along t (N).
    pub tangential: f64,
}

#[inline]
fn perp(v: DVec2) -> DVec2 {
    DVec2::new(-v.y, v.x)
}

#[inline]
fn rotate(v: DVec2, angle: f64) -> DVec2 {
    let (s, c) = angle.sin_cos();
    DVec2::new(c * v.x - s * v.y, s * v.x + c * v.y)
}

impl ContactLaw {
    /// The force of one contact (002 eqs. 2-7) and the history's update. `o` is the
    /// overlap in body i's frame, `k` the pair's kinematics, `dt` the time since the last
    /// evaluation.
    #[inline]
    pub(crate) fn evaluate(&self, o: &Overlap2, k: &PairKinematics, h: &mut ContactState, dt: f64) -> PairForce {
        let n = o.normal;
        let t = perp(n);
        let li = o.centroid;
        let lj = o.centroid - k.separation;
        // 002 eq. 3: velocity of i's material point relative to j's at the contact.
        let vc = k.velocity_i + perp(li) * k.spin_i - k.velocity_j - perp(lj) * k.spin_j;
        let (vn, vt) = (vc.dot(n), vc.dot(t));
        let fn_e = normal_force(self.normal_stiffness, o.area, k.length);
        let mut xi = h.xi;
        match self.tangential {
            Tangential::Cundall => xi += vt * dt,
            Tangential::Predictor => {
                if h.evaluated {
                    let si = li - rotate(h.branch_i, k.angle_i - h.angle_i);
                    let sj = lj - rotate(h.branch_j, k.angle_j - h.angle_j);
                    xi += (sj - si).dot(t);
                }
            }
        }
        let kt = self.tangential_stiffness;
        let cap = self.friction * fn_e;
        let mut sliding = false;
        if kt * xi.abs() > cap {
            xi = if kt > 0.0 { xi.signum() * cap / kt } else { 0.0 };
            sliding = true;
        }
        let ft_e = -kt * xi;
        // 002 eq. 2 with ν_n along n and ν_t = (k_t/k_n) ν_n along t.
        let fv = -(n * (self.normal_damping * vn) + t * (self.tangential_damping * vt)) * k.reduced_mass;
        let force_i = -n * fn_e + t * ft_e + fv;
        *h = ContactState {
            xi,
            branch_i: li,
            branch_j: lj,
            angle_i: k.angle_i,
            angle_j: k.angle_j,
            evaluated: true,
            sliding,
        };
        PairForce {
            force_i,
            torque_i: granula_polygons::cross(li, force_i),
            torque_j: -granula_polygons::cross(lj, force_i),
            normal: fn_e,
            tangential: ft_e,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use granula_polygons::{shapes, OverlapScratch, Pose2};

    fn kin(separation: DVec2, angle_i: f64, angle_j: f64, velocity_j: DVec2) -> PairKinematics {
        PairKinematics {
            reduced_mass: 1.0,
            length: 2.0,
            separation,
            velocity_i: DVec2::ZERO,
            velocity_j,
            spin_i: 0.0,
            spin_j: 0.0,
            angle_i,
            angle_j,
        }
    }

    #[test]
    fn predictor_elongation_is_unchanged_by_a_rigid_turn_of_the_pair_and_follows_a_slide() {
        let law = ContactLaw::builder(1.0)
            .tangential_ratio(1.0)
            .friction(1e9)
            .tangential(Tangential::Predictor)
            .build()
            .unwrap();
        let (a, b) = (shapes::random_convex(6, 1.0, 1.0, 3).unwrap(), shapes::random_convex(7, 1.0, 1.0, 4).unwrap());
        let mut s = OverlapScratch::default();
        let eval = |sep: DVec2, ti: f64, tj: f64, h: &mut ContactState, s: &mut OverlapScratch| {
            let o = granula_polygons::polygon_polygon(&a, &Pose2::new(DVec2::ZERO, ti), &b, &Pose2::new(sep, tj), s)
                .unwrap();
            law.evaluate(&o, &kin(sep, ti, tj, DVec2::ZERO), h, 1e-3);
            o
        };
        let sep = DVec2::new(1.5, 0.4);
        let mut h = ContactState::default();
        eval(sep, 0.2, -0.3, &mut h, &mut s);
        // A tangential slide of j by 1e-3 first, so that ξ is not zero.
        let o = eval(sep, 0.2, -0.3, &mut h, &mut s);
        let t = DVec2::new(-o.normal.y, o.normal.x);
        let slid = sep + t * 1e-3;
        eval(slid, 0.2, -0.3, &mut h, &mut s);
        // ξ is i's displacement relative to j along t: j moved by +1e-3 t, so ξ ≈ −1e-3
        // (exactly, up to the turn of the normal during the slide, O(1e-3) relative).
        assert!((h.xi + 1e-3).abs() < 2e-5, "ξ = {}", h.xi);
        let xi = h.xi;
        // The whole pair turned by 0.1 rad about i's centre: a rigid motion, Δξ = 0 to
        // round-off (s_k = l_k − R l_k⁰ vanishes for both bodies).
        let phi = 0.1f64;
        let (sn, cs) = phi.sin_cos();
        let turned = DVec2::new(cs * slid.x - sn * slid.y, sn * slid.x + cs * slid.y);
        eval(turned, 0.2 + phi, -0.3 + phi, &mut h, &mut s);
        assert!((h.xi - xi).abs() < 1e-15, "ξ changed from {xi} to {}", h.xi);
        // Cundall's spring with zero velocities does not move either; with the slide made
        // as a velocity it integrates v_t Δt.
        let cundall = ContactLaw { tangential: Tangential::Cundall, ..law };
        let mut hc = ContactState::default();
        let o =
            granula_polygons::polygon_polygon(&a, &Pose2::new(DVec2::ZERO, 0.2), &b, &Pose2::new(sep, -0.3), &mut s)
                .unwrap();
        cundall.evaluate(&o, &kin(sep, 0.2, -0.3, t), &mut hc, 1e-3);
        assert!((hc.xi + 1e-3).abs() < 1e-15, "Cundall ξ = {}", hc.xi);
    }
}
