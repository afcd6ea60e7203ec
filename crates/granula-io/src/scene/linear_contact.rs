//! The linear contact of 002 §2 that `[solver] damping = "reduced_mass"` calibrates: one
//! damping rate ν for every pair (002 eqs. 2-3, F_v = −m* ν v_n), taken from the pairs'
//! restitution e, the stiffness k_n and a reference reduced mass m_r (002 eq. 8), and the
//! contact time t_c that `[simulation] dt_fraction` measures the time step in (002 eq. 10).

use super::check::Check;
use super::source::KeyPath;
use super::spec::{DampingKind, MdSpec, NormalKind, SceneSpec, SolverSpec, TensionKind};
use crate::error::Result;
use granula_core::{MotionKind, World};

/// The linear contact of a scene with `damping = "reduced_mass"`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinearContact {
    /// k_n (N/m), `[solver] normal_stiffness`.
    pub stiffness: f64,
    /// m_r (kg): `[solver] reduced_mass`, or half the mean mass of the dynamic bodies.
    pub reduced_mass: f64,
    /// The restitution e shared by every pair of materials.
    pub restitution: f64,
    /// ν (1/s) of 002 eq. 8 for e, k_n and m_r.
    pub damping_rate: f64,
    /// t_c (s) of 002 eq. 10 for k_n, ν and m_r.
    pub contact_time: f64,
}

/// The damping rate ν that gives restitution e to a linear contact of stiffness k (N/m)
/// and reduced mass m_r (kg) whose viscous force may pull (002 eq. 8):
/// ν = 2 α ω₀, ω₀ = √(k/m_r), α = −ln e / √(π² + ln² e).
pub fn damping_rate(e: f64, k: f64, m_r: f64) -> f64 {
    let l = e.ln();
    2.0 * (-l) * (k / m_r).sqrt() / (std::f64::consts::PI * std::f64::consts::PI + l * l).sqrt()
}

/// The duration of a linear contact of stiffness k (N/m), damping rate ν (1/s) and
/// reduced mass m_r (kg): t_c = π / √(k/m_r − ν²/4) (002 eq. 10, η = ν/2).
pub fn contact_time(k: f64, nu: f64, m_r: f64) -> f64 {
    let eta = 0.5 * nu;
    std::f64::consts::PI / (k / m_r - eta * eta).sqrt()
}

/// The [`LinearContact`] of a scene whose `[solver]` asks for `damping = "reduced_mass"`
/// (`None` for any other scene), from its world at time 0 (built by `world` only for such
/// a scene); errors name the `[solver]` key at fault.
pub fn validate(c: &Check, spec: &SceneSpec, world: impl FnOnce() -> Result<World>) -> Result<Option<LinearContact>> {
    let SolverSpec::Md(m) = &spec.solver else { return Ok(None) };
    if m.damping != DampingKind::ReducedMass {
        if let Some(r) = m.reduced_mass {
            let p = KeyPath::root().key("solver").key("reduced_mass");
            return Err(c.invalid(&p, r, "is used only with damping = \"reduced_mass\""));
        }
        return Ok(None);
    }
    let p = KeyPath::root().key("solver");
    let k = stiffness(c, &p, m)?;
    if m.tension != TensionKind::Allow {
        return Err(c.invalid(
            &p.key("tension"),
            "no_attraction",
            "damping = \"reduced_mass\" is calibrated for a force that may pull (002 eq. 8): set tension = \"allow\"",
        ));
    }
    let world = world()?;
    let restitution = shared_restitution(c, &p, &world)?;
    let reduced_mass = match m.reduced_mass {
        Some(r) => c.positive(&p.key("reduced_mass"), r)?,
        None => mean_reduced_mass(&world).ok_or_else(|| {
            c.invalid(&p.key("reduced_mass"), "none", "the scene has no dynamic body: give `reduced_mass` (kg)")
        })?,
    };
    let nu = damping_rate(restitution, k, reduced_mass);
    let contact_time = contact_time(k, nu, reduced_mass);
    Ok(Some(LinearContact { stiffness: k, reduced_mass, restitution, damping_rate: nu, contact_time }))
}

/// k_n of a linear spring (`"hooke"` or `"area"`).
fn stiffness(c: &Check, p: &KeyPath, m: &MdSpec) -> Result<f64> {
    if !matches!(m.normal, NormalKind::Hooke | NormalKind::Area) {
        return Err(c.invalid(
            &p.key("damping"),
            "reduced_mass",
            "calibrates a linear spring (002 eq. 8): needs normal = \"area\" or \"hooke\"",
        ));
    }
    let k = m.normal_stiffness.ok_or_else(|| c.invalid(&p.key("normal_stiffness"), "none", "needs k_n (N/m)"))?;
    c.positive(&p.key("normal_stiffness"), k)
}

/// The restitution of every pair of materials, which must be one value (ν is one rate).
fn shared_restitution(c: &Check, p: &KeyPath, world: &World) -> Result<f64> {
    let mut values = world.materials.pairs().iter().map(|q| q.restitution);
    let first = values.next().unwrap_or(1.0);
    match values.find(|e| e.to_bits() != first.to_bits()) {
        None => Ok(first),
        Some(other) => Err(c.invalid(
            &p.key("damping"),
            "reduced_mass",
            format!(
                "uses one damping rate for every pair, from one restitution: the pairs have {first} and {other}; \
                 give every material the same `restitution`"
            ),
        )),
    }
}

/// Half the mean mass of the dynamic bodies: the reduced mass of two bodies of the mean
/// mass. `None` without a dynamic body.
pub fn mean_reduced_mass(world: &World) -> Option<f64> {
    let b = &world.bodies;
    let masses: Vec<f64> = (0..b.len()).filter(|&i| b.motion[i] == MotionKind::Dynamic).map(|i| b.mass[i]).collect();
    (!masses.is_empty()).then(|| 0.5 * masses.iter().sum::<f64>() / masses.len() as f64)
}

/// Δt = `dt_fraction` × t_c (002 eq. 10), for `[simulation] dt_fraction`; an error naming
/// the key when the scene has no linear contact or t_c is not defined (overdamped).
pub fn dt_from_fraction(c: &Check, fraction: f64, contact: Option<&LinearContact>) -> Result<f64> {
    let p = KeyPath::root().key("simulation").key("dt_fraction");
    let f = c.positive(&p, fraction)?;
    let Some(lc) = contact else {
        return Err(c.invalid(
            &p,
            f,
            "needs the contact time of 002 eq. 10: MD with damping = \"reduced_mass\" (normal = \"area\" or \"hooke\"); \
             otherwise give `dt` (s)",
        ));
    };
    if !lc.contact_time.is_finite() {
        return Err(c.invalid(&p, f, "the contact is overdamped: t_c is not defined (002 eq. 10); give `dt` (s)"));
    }
    Ok(f * lc.contact_time)
}
