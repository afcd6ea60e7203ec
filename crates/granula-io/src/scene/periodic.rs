//! `periodic` in `[simulation]`: the periodic axes of a 3D scene, e.g.
//! `periodic = { x = [0.0, 0.1], y = [0.0, 0.05] }` (see `docs/scene-format.md`).
//!
//! Checked here, each error naming the key: the axis names (`x`, `y`, `z`), finite bounds
//! with `lo < hi`, a period of at least two diameters of the largest particle plus the MD
//! skin on each side (none under contact dynamics, whose solver checks its own detection
//! margin every step) (so that a
//! pair meets one image only, as the solver requires), and every bounded body's centre
//! inside `[lo, hi)` of every periodic axis (the box a user means; bodies then leave it
//! freely, their positions are stored unwrapped).

use super::bodies::BodyPlan;
use super::check::Check;
use super::source::KeyPath;
use super::spec::{SceneSpec, SolverSpec};
use crate::error::Result;
use granula_core::{Axis, PeriodicDomain};

/// The periodic domain of a parsed scene, unchecked (see [`validate`]); bad bounds give a
/// core error, which [`validate`] has ruled out for a validated scene.
pub fn domain(spec: &SceneSpec) -> std::result::Result<PeriodicDomain, granula_core::PeriodicError> {
    let mut d = PeriodicDomain::default();
    for (name, [lo, hi]) in &spec.simulation.periodic {
        if let Some(axis) = Axis::from_name(name) {
            d = d.with_axis(axis, *lo, *hi)?;
        }
    }
    if let Some(rate) = spec.simulation.shear_rate {
        d = d.with_shear(Axis::X, Axis::Y, rate)?;
    }
    Ok(d)
}

/// `simulation.shear_rate`: Lees-Edwards needs x and y periodic (flow x, gradient y) and
/// the MD solver; contact dynamics refuses a sheared domain (its error, at the key).
fn shear(c: &Check, spec: &SceneSpec) -> Result<()> {
    let Some(rate) = spec.simulation.shear_rate else { return Ok(()) };
    let key = KeyPath::root().key("simulation").key("shear_rate");
    if let SolverSpec::Nscd(_) = spec.solver {
        return Err(c.invalid(
            &key,
            rate,
            "Lees-Edwards shear (flow x, gradient y) is not supported by contact dynamics: use [solver] kind = \"md\"",
        ));
    }
    for axis in ["x", "y"] {
        if !spec.simulation.periodic.contains_key(axis) {
            return Err(c.invalid(
                &key,
                rate,
                format!("Lees-Edwards shear (flow x, gradient y) needs a periodic {axis} axis in simulation.periodic"),
            ));
        }
    }
    Ok(())
}

/// Validates `simulation.periodic` against the solver and the bodies; `r_max` is the
/// largest particle radius.
pub fn validate(c: &Check, spec: &SceneSpec, plans: &[BodyPlan], r_max: Option<f64>) -> Result<()> {
    shear(c, spec)?;
    let periodic = &spec.simulation.periodic;
    if periodic.is_empty() {
        return Ok(());
    }
    let p = KeyPath::root().key("simulation").key("periodic");
    // The MD candidate list is kept over the skin; contact dynamics detects afresh every
    // step (its margin grows with the speeds and is checked by the solver).
    let skin = match &spec.solver {
        SolverSpec::Md(m) => m.skin,
        SolverSpec::Nscd(_) => 0.0,
    };
    for (name, [lo, hi]) in periodic {
        let Some(axis) = Axis::from_name(name) else {
            return Err(c.invalid(&p, name, "unknown axis: the periodic axes are x, y and z"));
        };
        let key = p.key(axis.name());
        if !(lo.is_finite() && hi.is_finite() && lo < hi) {
            return Err(c.invalid(&key, [lo, hi], "must be [lo, hi], finite, with lo < hi"));
        }
        let period = hi - lo;
        if let Some(r) = r_max {
            // Two diameters of the largest particle, each grown by the skin.
            let needed = 2.0 * (2.0 * r + skin);
            if period < needed {
                return Err(c.invalid(
                    &key,
                    [lo, hi],
                    format!(
                        "period {period} m is shorter than two particle diameters plus the skin: \
                         2 × (2 × {r} + {skin}) = {needed} m (largest radius {r} m, skin {skin} m)"
                    ),
                ));
            }
        }
        let k = axis.index();
        for plan in plans {
            let aabb = plan.body.shape.aabb(plan.body.state.position, plan.body.state.orientation);
            if !(aabb.max[k] - aabb.min[k]).is_finite() {
                continue; // a wall spanning the axis
            }
            let x = plan.body.state.position[k];
            if !(x >= *lo && x < *hi) {
                let body = plan.name.clone().unwrap_or_else(|| plan.origin.clone());
                return Err(c.invalid(
                    &key,
                    [lo, hi],
                    format!(
                        "body {body} ({}) is outside the periodic range along {axis}: its centre is at {x} m, \
                         not in [{lo}, {hi})",
                        plan.origin
                    ),
                ));
            }
        }
    }
    Ok(())
}
