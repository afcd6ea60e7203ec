//! The 6-D local problem of a contact with rolling and torsion friction (001 §1.7,
//! eqs. 1.38-1.42): generalized relative velocity (U, Ω) (local frame (n, t, s) for both
//! the velocity at the contact point and the relative angular velocity ω₂ − ω₁) against
//! generalized impulse (P, Q) (force and couple impulses on body 2, body 1 gets the
//! opposite), related by the 6×6 Delassus block W6 = H6ᵀ M⁻¹ H6 (the inverse of the 6×6
//! reduced mass of 001 §1.7): (U, Ω) = b + W6 (P, Q).

use crate::bodies::BodyMobility;
use granula_core::DVec3;
use nalgebra::{Matrix6, Vector6};

/// Relative change of the impulse (scaled by √W_kk, i.e. in velocity-energy units) under
/// which the local iteration stops: round-off level for f64.
pub const LOCAL_TOLERANCE: f64 = 1e-13;
/// Cap on the local iterations; the contraction factor of the block iteration is the
/// coupling ratio of the force and couple blocks (5/7 for a sphere on a plane), so a few
/// hundred passes reach round-off.
pub const LOCAL_MAX_ITERATIONS: usize = 400;

/// W6 in the frame `(n, t, s)` for body 1 (`m1`, branch `l1`) and body 2 (`m2`, `l2`):
/// column k is the generalized relative velocity a unit generalized impulse along k gives.
/// For one body of mobility (lin, A) and branch l, a force f gives Δu = lin∘f + (A (l×f))×l
/// and ΔΩ = A (l×f), a couple q gives Δu = (A q)×l and ΔΩ = A q; both bodies add up.
pub fn delassus_block6(frame: [DVec3; 3], m1: &BodyMobility, l1: DVec3, m2: &BodyMobility, l2: DVec3) -> Matrix6<f64> {
    let mut w = Matrix6::<f64>::zeros();
    for (m, l) in [(m1, l1), (m2, l2)] {
        for k in 0..6 {
            let e = frame[k % 3];
            let (du, dom) = if k < 3 {
                let dom = m.ang * l.cross(e);
                (m.lin * e + dom.cross(l), dom)
            } else {
                let dom = m.ang * e;
                (dom.cross(l), dom)
            };
            for j in 0..3 {
                w[(j, k)] += frame[j].dot(du);
                w[(j + 3, k)] += frame[j].dot(dom);
            }
        }
    }
    // Symmetrize and clean round-off (a locked degree of freedom stays exactly locked).
    let scale = (0..6).map(|k| w[(k, k)].abs()).fold(0.0, f64::max);
    let mut out = (w + w.transpose()) * 0.5;
    out.iter_mut().for_each(|x| {
        if x.abs() <= crate::delassus::DIAGONAL_TOLERANCE * scale {
            *x = 0.0;
        }
    });
    out
}

/// The bounds of the three laws of one contact.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Caps6 {
    /// Coulomb coefficient μ: |P_t| ≤ μ P_n (000 eq. 34).
    pub mu: f64,
    /// Smallest admissible normal velocity u_min (000 eqs. 25, 33).
    pub u_min: f64,
    /// Rolling length μ_r: |Q_r| ≤ μ_r P_n (001 eqs. 1.38-1.42).
    pub rolling: f64,
    /// Torsion length μ_n: |Q_n| ≤ μ_n P_n (001 eqs. 1.38-1.42).
    pub torsion: f64,
}

/// Largest eigenvalue of a symmetric 2×2 block.
fn lambda_max(a: f64, b: f64, c: f64) -> f64 {
    0.5 * (a + c) + (0.25 * (a - c) * (a - c) + b * b).sqrt()
}

/// Projection of `v` on the disc of radius `r ≥ 0`.
fn disc(v: [f64; 2], r: f64) -> [f64; 2] {
    let l2 = v[0] * v[0] + v[1] * v[1];
    if l2 > r * r {
        let k = r / l2.sqrt();
        [v[0] * k, v[1] * k]
    } else {
        v
    }
}

/// Solves the 6-D local problem (U, Ω) = b + W6 x, x = (P, Q), with all three laws at once
/// (000 eq. 34 and 001 eqs. 1.38-1.42, impulse form):
///
/// - Signorini: P_n ≥ 0, U_n ≥ u_min, P_n (U_n − u_min) = 0;
/// - Coulomb: |P_t| ≤ μ P_n, U_t = 0 inside, P_t = −μ P_n U_t/|U_t| on the bound;
/// - torsion: |Q_n| ≤ μ_n P_n, Ω_n = 0 inside, Q_n = −μ_n P_n sign Ω_n on the bound;
/// - rolling: |Q_r| ≤ μ_r P_n, Ω_r = 0 inside, Q_r = −μ_r P_n Ω_r/|Ω_r| on the bound.
///
/// First the all-sticking guess x = W6⁻¹ (u_target − b) (001 eq. 1.27 with the couple
/// rows, Cholesky on the mobile components) is accepted if it satisfies the bounds; else a
/// projected block Gauss-Seidel on the groups (n), (t, s), (torsion), (rolling pair),
/// each step x_g := proj_g(x_g − ρ_g U_g) with ρ_g = 1/λ_max(W6_gg) (a scalar step, so that
/// its fixed point is exactly the law of the group, the projection being Euclidean) and the
/// off-diagonal couplings kept exactly through U = b + W6 x, iterated from `start` until
/// the change is below [`LOCAL_TOLERANCE`]. Components without mobility (W_kk = 0) get no
/// impulse.
pub fn solve_local6(w: &Matrix6<f64>, b: &Vector6<f64>, caps: &Caps6, start: &Vector6<f64>) -> Vector6<f64> {
    let mobile: [bool; 6] = std::array::from_fn(|k| w[(k, k)] > 0.0);
    if !mobile[0] {
        return Vector6::zeros();
    }
    let mask = |x: Vector6<f64>| Vector6::from_fn(|k, _| if mobile[k] { x[k] } else { 0.0 });
    let cap_ok = |x: &Vector6<f64>| {
        let pn = x[0];
        let slack = 1e-12 * pn.abs();
        pn >= 0.0
            && (x[1] * x[1] + x[2] * x[2]).sqrt() <= caps.mu * pn + slack
            && x[3].abs() <= caps.torsion * pn + slack
            && (x[4] * x[4] + x[5] * x[5]).sqrt() <= caps.rolling * pn + slack
    };
    // All sticking: U = (u_min, 0, 0), Ω = 0 on the mobile components.
    let mut target = -b;
    target[0] += caps.u_min;
    // Locked components: identity rows and columns with a zero target (no allocation).
    let ws = Matrix6::from_fn(|j, k| match (mobile[j], mobile[k]) {
        (true, true) => w[(j, k)],
        _ if j == k => 1.0,
        _ => 0.0,
    });
    if let Some(chol) = ws.cholesky() {
        let x = chol.solve(&mask(target));
        if cap_ok(&x) {
            return x;
        }
    }
    let rho = [
        1.0 / w[(0, 0)],
        1.0 / lambda_max(w[(1, 1)], w[(1, 2)], w[(2, 2)]).max(f64::MIN_POSITIVE),
        1.0 / w[(3, 3)].max(f64::MIN_POSITIVE),
        1.0 / lambda_max(w[(4, 4)], w[(4, 5)], w[(5, 5)]).max(f64::MIN_POSITIVE),
    ];
    let scale: f64 = (0..6).map(|k| w[(k, k)]).sum::<f64>().max(f64::MIN_POSITIVE);
    let mut x = mask(*start);
    x[0] = x[0].max(0.0);
    for _ in 0..LOCAL_MAX_ITERATIONS {
        let old = x;
        let u = b + w * x;
        x[0] = (x[0] - rho[0] * (u[0] - caps.u_min)).max(0.0);
        let u = b + w * x;
        let pn = x[0];
        let t = disc([x[1] - rho[1] * u[1], x[2] - rho[1] * u[2]], caps.mu * pn);
        x[1] = t[0];
        x[2] = t[1];
        x = mask(x);
        let u = b + w * x;
        if mobile[3] {
            x[3] = (x[3] - rho[2] * u[3]).clamp(-caps.torsion * pn, caps.torsion * pn);
        }
        let u = b + w * x;
        let r = disc([x[4] - rho[3] * u[4], x[5] - rho[3] * u[5]], caps.rolling * pn);
        x[4] = r[0];
        x[5] = r[1];
        x = mask(x);
        let d = x - old;
        // Change in velocity units (W scales impulse to velocity), relative to the impulse.
        if (d.norm() <= LOCAL_TOLERANCE * x.norm()) || d.norm() * scale <= 1e-300 {
            break;
        }
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::local::signorini_coulomb::diagonal_shock_law;
    use granula_core::math::tangent_frame;
    use granula_core::DMat3;

    /// The couple alone of 001 eqs. 1.38-1.42 in impulse form for a diagonal angular block `w`
    /// at a given normal impulse `pn` (one half of an alternating force/couple scheme, the
    /// oracle of the coupled solve):
    /// torsion Q_n = −b_n/w_n clipped to |Q_n| ≤ μ_n P_n; rolling Q_r = −b_r/w_r (tangential)
    /// clipped to |Q_r| ≤ μ_r P_n along its direction.
    #[inline]
    fn rolling_torsion_couple(w: DVec3, b: DVec3, pn: f64, rolling: f64, torsion: f64) -> DVec3 {
        let pn = pn.max(0.0);
        let qn = if w.x > 0.0 { (-b.x / w.x).clamp(-torsion * pn, torsion * pn) } else { 0.0 };
        let qt = if w.y > 0.0 { -b.y / w.y } else { 0.0 };
        let qs = if w.z > 0.0 { -b.z / w.z } else { 0.0 };
        let lim = rolling * pn;
        let r2 = qt * qt + qs * qs;
        if r2 > lim * lim {
            let k = lim / r2.sqrt();
            DVec3::new(qn, qt * k, qs * k)
        } else {
            DVec3::new(qn, qt, qs)
        }
    }

    fn sphere(m: f64, r: f64) -> BodyMobility {
        let i = 0.4 * m * r * r;
        BodyMobility { lin: DVec3::splat(1.0 / m), ang: DMat3::from_diagonal(DVec3::splat(1.0 / i)) }
    }

    /// W6 of a sphere (m = 2 kg, r = 0.1 m) resting on a fixed plane (body 1), normal +z.
    fn sphere_on_plane() -> Matrix6<f64> {
        let n = DVec3::Z;
        let (t, s) = tangent_frame(n);
        delassus_block6([n, t, s], &BodyMobility::default(), DVec3::ZERO, &sphere(2.0, 0.1), -n * 0.1)
    }

    /// Asserts that Signorini, Coulomb, torsion and rolling hold at `x`; returns for each of
    /// the last three whether it is at its cap (moving) rather than sticking. Velocities
    /// count as zero below 1e-9 |b| (round-off of the local solve, which stops at 1e-13).
    fn check_laws(w: &Matrix6<f64>, b: &Vector6<f64>, c: &Caps6, x: &Vector6<f64>) -> [bool; 3] {
        let u = b + w * x;
        let vtol = 1e-9 * b.norm();
        let pn = x[0];
        assert!(pn > 0.0, "closed contact expected, P_n = {pn}");
        assert!((u[0] - c.u_min).abs() <= vtol, "Signorini: U_n = {} vs u_min = {}", u[0], c.u_min);
        let mut at_cap = [false; 3];
        for (g, (k, lim)) in [(1, c.mu * pn), (3, c.torsion * pn), (4, c.rolling * pn)].into_iter().enumerate() {
            let dim = if k == 3 { 1 } else { 2 };
            let p: Vec<f64> = (k..k + dim).map(|j| x[j]).collect();
            let v: Vec<f64> = (k..k + dim).map(|j| u[j]).collect();
            let (pl, vl) = (p.iter().map(|a| a * a).sum::<f64>().sqrt(), v.iter().map(|a| a * a).sum::<f64>().sqrt());
            // Impulse bound to round-off of the solve.
            assert!(pl <= lim * (1.0 + 1e-10) + 1e-15, "group {g}: |impulse| {pl} above its cap {lim}");
            if vl <= vtol {
                continue; // sticking: relative velocity zero
            }
            // Moving: the impulse is on the cap and opposite to the velocity.
            assert!((pl - lim).abs() <= 1e-9 * lim, "group {g}: moving (|v| = {vl}) but |impulse| {pl} ≠ cap {lim}");
            let cos: f64 = p.iter().zip(&v).map(|(a, b)| a * b).sum::<f64>() / (pl * vl);
            assert!((cos + 1.0).abs() <= 1e-9, "group {g}: impulse not opposite to the velocity, cos = {cos}");
            at_cap[g] = true;
        }
        at_cap
    }

    #[test]
    fn sphere_on_plane_block_has_the_rolling_coupling() {
        let w = sphere_on_plane();
        let (m, r) = (2.0, 0.1);
        let i = 0.4 * m * r * r;
        // 000 eqs. 16-19: 1/m_n = 1/m, 1/m_t = 1/m + r²/I; Ω from a couple: 1/I; tangential
        // velocity from a couple and Ω from a tangential force: r/I in magnitude. Round-off.
        assert!((w[(0, 0)] - 1.0 / m).abs() < 1e-12);
        assert!((w[(1, 1)] - (1.0 / m + r * r / i)).abs() < 1e-12);
        assert!((w[(3, 3)] - 1.0 / i).abs() < 1e-12);
        assert!((w[(1, 5)].abs() - r / i).abs() < 1e-12);
        assert!((w[(2, 4)].abs() - r / i).abs() < 1e-12);
        assert_eq!(w, w.transpose());
    }

    #[test]
    fn local_6d_solve_sticks_with_zero_relative_velocity() {
        let w = sphere_on_plane();
        let caps = Caps6 { mu: 0.5, u_min: 0.0, rolling: 0.02, torsion: 0.01 };
        // Approaching at 1 m/s with a slow slip and spin: all three laws stick.
        let b = Vector6::new(-1.0, 0.01, -0.02, 0.05, 0.1, -0.1);
        let x = solve_local6(&w, &b, &caps, &Vector6::zeros());
        assert_eq!(check_laws(&w, &b, &caps, &x), [false; 3]);
        let u = b + w * x;
        // Round-off of a 6×6 Cholesky solve on entries of order 1-1000.
        assert!(u.norm() < 1e-10, "sticking: (U, Ω) = {u:?}");
    }

    #[test]
    fn local_6d_solve_slides_rolls_and_twists_at_the_caps() {
        let w = sphere_on_plane();
        let caps = Caps6 { mu: 0.3, u_min: 0.0, rolling: 0.001, torsion: 0.0005 };
        // Fast slip, fast roll and fast spin: all three at their caps, opposite the motion.
        let b = Vector6::new(-0.5, 2.0, -1.0, 40.0, 30.0, -50.0);
        let x = solve_local6(&w, &b, &caps, &Vector6::zeros());
        assert_eq!(check_laws(&w, &b, &caps, &x), [true; 3]);
        // Fast roll without slip and a high μ: the force sticks, the couple rolls at its cap.
        let b = Vector6::new(-0.5, 0.0, 0.0, 0.0, 30.0, 0.0);
        let caps = Caps6 { mu: 0.9, ..caps };
        let x = solve_local6(&w, &b, &caps, &Vector6::zeros());
        assert_eq!(check_laws(&w, &b, &caps, &x), [false, false, true]);
    }

    #[test]
    fn local_6d_solve_holds_for_an_anisotropic_body_off_its_axis() {
        // A body with anisotropic inertia touched off its centre line against a free sphere:
        // every block of W6 is full. The laws hold whatever the regime.
        let n = DVec3::new(0.2, -0.3, 1.0).normalize();
        let (t, s) = tangent_frame(n);
        let aniso = BodyMobility { lin: DVec3::splat(0.5), ang: DMat3::from_diagonal(DVec3::new(10.0, 20.0, 40.0)) };
        let w = delassus_block6([n, t, s], &aniso, DVec3::new(0.05, 0.02, 0.1), &sphere(1.0, 0.1), -n * 0.1);
        let caps = Caps6 { mu: 0.4, u_min: 0.0, rolling: 0.005, torsion: 0.002 };
        let mut seen = [false; 3];
        for b in [
            Vector6::new(-1.0, 0.5, -0.2, 3.0, -20.0, 10.0),
            Vector6::new(-1.0, 0.01, 0.0, 0.0, 0.02, 0.01),
            Vector6::new(-0.2, 3.0, 1.0, 0.1, 0.1, 0.1),
        ] {
            let x = solve_local6(&w, &b, &caps, &Vector6::zeros());
            let cap = check_laws(&w, &b, &caps, &x);
            seen.iter_mut().zip(cap).for_each(|(a, c)| *a |= c);
        }
        assert_eq!(seen, [true; 3], "each law reached its cap in some case");
    }

    #[test]
    fn coupled_solve_equals_the_converged_alternating_scheme_for_a_sphere_on_a_plane() {
        let w = sphere_on_plane();
        let caps = Caps6 { mu: 0.3, u_min: 0.0, rolling: 0.001, torsion: 0.0005 };
        for b in [
            Vector6::new(-0.5, 2.0, -1.0, 40.0, 30.0, -50.0),
            Vector6::new(-0.5, 0.0, 0.0, 0.0, 30.0, 0.0),
            Vector6::new(-1.0, 0.01, -0.02, 0.05, 0.1, -0.1),
        ] {
            let x = solve_local6(&w, &b, &caps, &Vector6::zeros());
            // The former scheme: force with the diagonal force block at the current couple,
            // then couple with the diagonal angular block at the new force, repeated.
            let wf = DVec3::new(w[(0, 0)], w[(1, 1)], w[(2, 2)]);
            let wa = DVec3::new(w[(3, 3)], w[(4, 4)], w[(5, 5)]);
            let (mut p, mut q) = (Vector6::zeros(), Vector6::zeros());
            for _ in 0..2000 {
                let u = b + w * (p + q);
                let bf = DVec3::new(u[0], u[1], u[2]) - wf * DVec3::new(p[0], p[1], p[2]);
                let pf = diagonal_shock_law(wf, bf, caps.mu, caps.u_min);
                p = Vector6::new(pf.x, pf.y, pf.z, 0.0, 0.0, 0.0);
                let u = b + w * (p + q);
                let ba = DVec3::new(u[3], u[4], u[5]) - wa * DVec3::new(q[3], q[4], q[5]);
                let qa = rolling_torsion_couple(wa, ba, pf.x, caps.rolling, caps.torsion);
                q = Vector6::new(0.0, 0.0, 0.0, qa.x, qa.y, qa.z);
            }
            // Both fixed points are the unique solution; 1e-9 relative is well above the
            // round-off of either iteration and far below any regime difference.
            assert!((x - (p + q)).norm() <= 1e-9 * x.norm(), "coupled {x:?} vs alternating {:?}", p + q);
        }
    }
}
