//! Scenes shared by tests, examples and benches, with the analytic values they are checked
//! against.

use granula_core::{CoreError, DVec3, Dofs, Material, MaterialId, PlaneBuilder, SphereBuilder, World};

/// q = (4√e − 5)/2 ≈ 0.797, the diffusion constant factor of the random sweep
/// (000 eq. 46).
pub fn random_sweep_q() -> f64 {
    (4.0 * std::f64::consts::E.sqrt() - 5.0) / 2.0
}

/// The 1D chain of 000 §3.3.1 (Fig. 6): `n` equal spheres of diameter `d` and mass `m` on
/// the x axis, translation along x only, a fixed wall at x = 0 with a gap `wall_gap` to the
/// first sphere (d in 000), zero gaps between spheres, a constant force `force` (N, along −x) on the
/// rightmost sphere, no gravity, no friction. Returns the world and the dense index of
/// the rightmost sphere.
pub fn chain(n: usize, d: f64, m: f64, force: f64, wall_gap: f64) -> Result<(World, usize), CoreError> {
    let material = Material { friction: 0.0, ..Material::named("frictionless") };
    let mut world = World::builder().gravity(DVec3::ZERO).material(material).build()?;
    world.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::X).material(MaterialId(0)).build()?)?;
    let lock = Dofs::TY | Dofs::TZ | Dofs::ROTATION;
    for k in 0..n {
        let x = wall_gap + 0.5 * d + k as f64 * d;
        let mut s = SphereBuilder::new(0.5 * d, DVec3::new(x, 0.0, 0.0)).mass(m).lock(lock);
        if k == n - 1 {
            s = s.external_force(DVec3::new(-force, 0.0, 0.0));
        }
        world.insert(s.build()?)?;
    }
    let last = world.bodies.len() - 1;
    Ok((world, last))
}

/// The continuum model of the chain (000 §3.3, eqs. 51-63) for `n_i` sweeps per step and a
/// chain of `n` spheres against a fixed wall with a free end: the slowest mode has
/// λ = 4L, k = 2π/λ (L = n d), c = √(q N_I) d/Δt, D = q N_I d²/Δt, and
/// ω = k √(c² − D²k²/4) (eq. 58), τ = 2/(D k²) (eq. 60). Returns (ω Δt, τ/Δt).
pub fn chain_theory(n_i: u32, n: usize) -> (f64, f64) {
    let q = random_sweep_q();
    let k = 2.0 * std::f64::consts::PI / (4.0 * n as f64); // in units of 1/d
    let c2 = q * n_i as f64; // (d/Δt)²
    let dd = q * n_i as f64; // d²/Δt
    let omega = k * (c2 - dd * dd * k * k / 4.0).sqrt();
    let tau = 2.0 / (dd * k * k);
    (omega, tau)
}

/// The equivalent contact stiffness of a chain relaxed by N_I sweeps per step,
/// κ = q m N_I/Δt² (000 eq. 67).
pub fn equivalent_stiffness(m: f64, n_i: u32, dt: f64) -> f64 {
    random_sweep_q() * m * n_i as f64 / (dt * dt)
}

/// A vertical column of `n` touching spheres of radius `r` and mass `m` on a fixed floor
/// at z = 0, gravity −9.81 m/s² along z, friction `mu`.
pub fn column(n: usize, r: f64, m: f64, mu: f64) -> Result<World, CoreError> {
    let material = Material { friction: mu, ..Material::named("beads") };
    let mut world = World::builder().material(material).build()?;
    world.insert(PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build()?)?;
    for k in 0..n {
        world.insert(SphereBuilder::new(r, DVec3::new(0.0, 0.0, r + 2.0 * r * k as f64)).mass(m).build()?)?;
    }
    Ok(world)
}

/// Reads a benchmark packing (text: a first line `# L=... H=...`, then `x y z r` per
/// sphere, metres; box [0, L]² × [0, H] with walls at x = 0, x = L, y = 0, y = L, z = 0 and
/// an open top) into a world with gravity −9.81 m/s² along z, density 2500 kg/m³ and
/// friction `mu` for every contact. Errors name the line at fault.
pub fn dense_packing(text: impl std::io::BufRead, mu: f64) -> Result<World, String> {
    let material = Material { friction: mu, density: 2500.0, ..Material::named("beads") };
    let mut world = World::builder().material(material).build().map_err(|e| e.to_string())?;
    let mut lines = text.lines();
    let header = lines.next().ok_or("empty packing")?.map_err(|e| e.to_string())?;
    let field = |name: &str| -> Result<f64, String> {
        header
            .split_whitespace()
            .find_map(|w| w.strip_prefix(name))
            .ok_or(format!("header '{header}' lacks {name}"))?
            .parse::<f64>()
            .map_err(|e| format!("header '{header}': {name}: {e}"))
    };
    let l = field("L=")?;
    world.insert_open_box(DVec3::ZERO, l, l, MaterialId(0)).map_err(|e| e.to_string())?;
    for (k, line) in lines.enumerate() {
        let line = line.map_err(|e| e.to_string())?;
        if line.trim().is_empty() {
            continue;
        }
        let v: Vec<f64> = line
            .split_whitespace()
            .map(|w| w.parse::<f64>())
            .collect::<Result<_, _>>()
            .map_err(|e| format!("line {}: {e}", k + 2))?;
        if v.len() != 4 {
            return Err(format!("line {}: expected 'x y z r', got '{line}'", k + 2));
        }
        let body = SphereBuilder::new(v[3], DVec3::new(v[0], v[1], v[2]))
            .build()
            .map_err(|e| format!("line {}: {e}", k + 2))?;
        world.insert(body).map_err(|e| format!("line {}: {e}", k + 2))?;
    }
    Ok(world)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chain_theory_matches_the_issue_values() {
        // The values quoted for N_I = 10, 20, 40, 80 (four digits).
        for (n_i, w, t) in [(10, 0.0886, 254.1), (20, 0.1252, 127.1), (40, 0.1767, 63.5), (80, 0.2489, 31.8)] {
            let (omega, tau) = chain_theory(n_i, 50);
            assert!((omega - w).abs() < 6e-5, "N_I = {n_i}: ω Δt = {omega}");
            assert!((tau - t).abs() < 0.06, "N_I = {n_i}: τ/Δt = {tau}");
        }
    }
}
