//! An eccentric frictional impact under contact dynamics, where Newton's, Poisson's and
//! Stronge's impact laws (004 §2.2.2.2) differ: a box in planar mode (motion in the x-y
//! plane, rotation about z) tilted by φ hits the plane y = 0 with its lowest edge, sliding.
//! Each law's post-impact velocities are computed in closed form below and compared with
//! granula's; Newton's law gains kinetic energy in this impact, Poisson's and Stronge's do
//! not.
//!
//! Derivation. Mass m, moment of inertia I about z, contact point at r = (r_x, r_y) from the
//! centre of mass (r_y < 0), plane normal n = +y, tangent t = +x. The contact velocity is
//! U = v + ω × r: U_t = v_x − ω r_y, U_n = v_y + ω r_x. An impulse (P_t, P_n) at the contact
//! changes v by P/m and ω by (r_x P_n − r_y P_t)/I, so U changes by W P with
//!   W = [[A, −C], [−C, B]] in (n, t),  A = 1/m + r_x²/I,  B = 1/m + r_y²/I,  C = r_x r_y/I
//! (004 §2.3.3.3, W = H* M⁻¹ H). The box comes in with U⁻ = (U_n⁻, U_t⁻), U_n⁻ = −V < 0,
//! U_t⁻ > 0, ω⁻ = 0.
//!
//! Newton's law in Moreau-Jean's scheme: U_n⁺ = −e U_n⁻ with Coulomb's law on the total
//! impulse and the final slip. Sticking, U⁺ = (eV, 0), needs P = W⁻¹ ((1 + e) V, −U_t⁻),
//!   P_n = (B (1 + e) V − C U_t⁻)/det,  P_t = (C (1 + e) V − A U_t⁻)/det,  det = AB − C²,
//! accepted when |P_t| ≤ μ P_n (checked for this configuration).
//!
//! Poisson's and Stronge's laws follow the shock along the normal impulse p (Routh's
//! process, Coulomb's law on each increment). While sliding with slip sign s the
//! tangential impulse is dP_t = −s μ dp, so dU_n/dp = A + s μ C and dU_t/dp = −(C + s μ B).
//! From U_t⁻ > 0 (s = +1) the slip stops at p* = U_t⁻/(C + μ B). Here C > μ B, so sticking
//! (dP_t/dp = C/B) would leave the cone: the slip reverses (s = −1), and dU_t/dp =
//! −(C − μ B) < 0 keeps it reversed. With k₁ = A + μ C, k₂ = A − μ C and
//! U_n* = U_n⁻ + k₁ p* < 0 (the reversal happens during compression; checked), the
//! compression ends at P_c = p* − U_n*/k₂ with work
//!   W_c = ∫₀^{P_c} U_n dp = U_n⁻ p* + k₁ p*²/2 + U_n* (P_c − p*)/2  (< 0).
//! The restitution phase is on the second piece, U_n = k₂ (p − P_c):
//!   Poisson: P_r = e P_c, U_n⁺ = e k₂ P_c;
//!   Stronge: k₂ P_r²/2 = −e² W_c, P_r = e √(−2 W_c/k₂), U_n⁺ = k₂ P_r.
//! Both: P_n = P_c + P_r, P_t = −μ p* + μ (P_n − p*), U_t⁺ = U_t⁻ − C P_n + B P_t.
//! The kinetic energy changes by ΔT = P·U⁻ + ½ Pᵀ W P.

use granula_broadphase::BruteForce;
use granula_core::{DQuat, DVec3, Material, Narrowphase, PlaneBuilder, World};
use granula_nscd::{ImpactLaw, NscdConfig, NscdSolver, Restitution, SignoriniCoulomb};
use granula_polyhedra::{register_all, shapes, PolyhedronBuilder};
use std::sync::Arc;

const HALF: DVec3 = DVec3::new(0.1, 0.02, 0.02);
const PHI: f64 = 0.8;
const MU: f64 = 0.3;
const E: f64 = 0.9;
const DENSITY: f64 = 2700.0;
const DT: f64 = 1e-4;
/// Incoming contact velocity: U_n⁻ = −V, U_t⁻ = UT (m/s), ω⁻ = 0.
const V: f64 = 1.0;
const UT: f64 = 0.7;

/// Mass, moment of inertia about z, and the lowest corner relative to the centre.
fn body_constants() -> (f64, f64, DVec3) {
    let m = DENSITY * 8.0 * HALF.x * HALF.y * HALF.z;
    let inertia = m * (HALF.x * HALF.x + HALF.y * HALF.y) / 3.0;
    let r = DQuat::from_rotation_z(PHI) * DVec3::new(-HALF.x, -HALF.y, 0.0);
    (m, inertia, r)
}

/// Post-impact (v, ω_z) of the box in closed form for `law` (module documentation).
fn closed_form(law: ImpactLaw) -> (DVec3, f64) {
    let (m, inertia, r) = body_constants();
    let a = 1.0 / m + r.x * r.x / inertia;
    let b = 1.0 / m + r.y * r.y / inertia;
    let c = r.x * r.y / inertia;
    let (pn, pt) = match law {
        ImpactLaw::Newton => {
            let det = a * b - c * c;
            let (pn, pt) = ((b * (1.0 + E) * V - c * UT) / det, (c * (1.0 + E) * V - a * UT) / det);
            assert!(pt.abs() <= MU * pn, "Newton's impulse sticks in this configuration");
            (pn, pt)
        }
        ImpactLaw::Poisson | ImpactLaw::Stronge => {
            assert!(c > MU * b, "the slip reverses rather than sticks");
            let p_star = UT / (c + MU * b);
            let (k1, k2) = (a + MU * c, a - MU * c);
            let un_star = -V + k1 * p_star;
            assert!(un_star < 0.0, "the slip reverses during compression");
            let pc = p_star - un_star / k2;
            let wc = -V * p_star + 0.5 * k1 * p_star * p_star + 0.5 * un_star * (pc - p_star);
            let pr = if law == ImpactLaw::Poisson { E * pc } else { E * (-2.0 * wc / k2).sqrt() };
            let pn = pc + pr;
            (pn, -MU * p_star + MU * (pn - p_star))
        }
    };
    let v = DVec3::new(UT, -V, 0.0) + DVec3::new(pt, pn, 0.0) / m;
    (v, (r.x * pn - r.y * pt) / inertia)
}

/// granula's post-impact (v, ω_z), the kinetic energies before and after.
fn simulate(law: ImpactLaw) -> (DVec3, f64, f64, f64) {
    let mut narrowphase = Narrowphase::new();
    register_all(&mut narrowphase).unwrap();
    let material = Material { density: DENSITY, friction: MU, restitution: E, ..Material::named("box") };
    let mut world =
        World::builder().gravity(DVec3::ZERO).planar(true).material(material).narrowphase(narrowphase).build().unwrap();
    world.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Y).build().unwrap()).unwrap();
    let (_, _, r) = body_constants();
    // The lowest edge starts on the plane (gap 0 to round-off), so that the contact point is
    // the corner itself; ω⁻ = 0, so the contact velocity is v⁻ = (U_t⁻, U_n⁻).
    let poly = Arc::new(shapes::cuboid(HALF).unwrap());
    let builder = PolyhedronBuilder::new(poly, DVec3::new(0.0, -r.y, 0.0))
        .orientation(DQuat::from_rotation_z(PHI))
        .velocity(DVec3::new(UT, -V, 0.0));
    let h = world.insert(builder.build().unwrap()).unwrap();
    let i = world.bodies.index(h).unwrap();
    let energy =
        |w: &World| 0.5 * w.bodies.mass[i] * w.bodies.velocity[i].length_squared() + w.bodies.rotational_energy(i);
    let before = energy(&world);
    let law = SignoriniCoulomb { restitution: Restitution::Pair(law) };
    let mut solver = NscdSolver::with_law(BruteForce, law, NscdConfig::fixed_random_sweeps(60)).unwrap();
    world.step(&mut solver, DT).unwrap();
    assert!(solver.impulses().any(|(_, _, p)| p != DVec3::ZERO), "the impact happens in the first step");
    // Two more steps: the box has left the plane and flies freely.
    for _ in 0..2 {
        world.step(&mut solver, DT).unwrap();
    }
    (world.bodies.velocity[i], world.bodies.angular_velocity[i].z, before, energy(&world))
}

#[test]
fn an_eccentric_frictional_impact_matches_each_laws_closed_form() {
    let mut outcomes = Vec::new();
    for law in [ImpactLaw::Newton, ImpactLaw::Poisson, ImpactLaw::Stronge] {
        let (v, w, before, after) = simulate(law);
        let (v_exact, w_exact) = closed_form(law);
        let (_, _, r) = body_constants();
        println!(
            "{law:?}: v = ({:.6}, {:.6}) m/s (closed form ({:.6}, {:.6})), ω = {w:.6} rad/s ({w_exact:.6}), \
             T after/before = {:.6}, |Δv| = {:.1e} m/s",
            v.x,
            v.y,
            v_exact.x,
            v_exact.y,
            after / before,
            (v - v_exact).length()
        );
        // Velocities of order 1 m/s: Newton's is one 2×2 solve, the others a process whose
        // pieces are linear and whose slip reversal is located to 1e-12 of an increment, so
        // both reach the closed form to round-off (measured below 1e-13); 1e-9 m/s leaves
        // room for the Gauss-Seidel over the two corners of the edge.
        assert!((v - v_exact).length() < 1e-9, "{law:?}: v = {v}, closed form {v_exact}");
        // ω r is a velocity: the same bound.
        assert!((w - w_exact).abs() * r.length() < 1e-9, "{law:?}: ω = {w}, closed form {w_exact}");
        outcomes.push((law, v.y + w * r.x, after - before));
    }
    // The laws differ here: rebound normal velocities eV = 0.9 m/s (Newton) and below.
    let un: Vec<f64> = outcomes.iter().map(|o| o.1).collect();
    assert!((un[0] - E * V).abs() < 1e-9 && (un[0] - un[1]).abs() > 0.1 && (un[1] - un[2]).abs() > 0.03, "{un:?}");
    // Newton's law gains kinetic energy in this frictional eccentric impact (the known
    // defect of the kinematic law); Poisson's and Stronge's dissipate. The gain is 6.7 % of
    // the incoming kinetic energy (Poisson keeps 81.9 %, Stronge 85.5 %); "> 0" and "< 0" are far from round-off.
    assert!(outcomes[0].2 > 0.0, "Newton: ΔT = {}", outcomes[0].2);
    assert!(outcomes[1].2 < 0.0 && outcomes[2].2 < 0.0, "{outcomes:?}");
}
