//! Validation of the MD model choices of `[solver]`: damping model, tension policy and the
//! tangential spring's stiffness ratio and dashpot. A misspelt name is an error naming the
//! key and listing the valid names.

use super::check::Check;
use super::source::KeyPath;
use super::spec::{MdSpec, SolverSpec};
use crate::error::Result;

/// Normal damping models accepted by `[solver] damping`.
pub const DAMPING_MODELS: &[&str] = &["calibrated", "tsuji", "liggghts", "hunt_crossley", "fixed"];
/// Tension policies accepted by `[solver] tension`.
pub const TENSION_POLICIES: &[&str] = &["no_attraction", "allow"];
/// Tangential dashpots accepted by `[solver] tangential_damping`.
pub const TANGENTIAL_DAMPINGS: &[&str] = &["none", "same_damping_ratio", "ratio"];

/// Validates the model choices of an MD `[solver]`.
pub fn validate(c: &Check, spec: &SolverSpec) -> Result<()> {
    let SolverSpec::Md(m) = spec else { return Ok(()) };
    let p = KeyPath::root().key("solver");
    c.choice(&p.key("damping"), &m.damping, DAMPING_MODELS)?;
    match (m.damping.as_str(), m.damping_coefficient) {
        ("fixed", Some(g)) => {
            c.non_negative(&p.key("damping_coefficient"), g)?;
        }
        ("fixed", None) => return Err(c.invalid(&p.key("damping"), "fixed", "needs `damping_coefficient` (N s/m)")),
        (_, Some(g)) => {
            return Err(c.invalid(&p.key("damping_coefficient"), g, "is used only with damping = \"fixed\""));
        }
        _ => {}
    }
    c.choice(&p.key("tension"), &m.tension, TENSION_POLICIES)?;
    c.choice(&p.key("tangential_damping"), &m.tangential_damping, TANGENTIAL_DAMPINGS)?;
    match (m.tangential_damping.as_str(), m.tangential_damping_ratio) {
        ("ratio", Some(r)) => {
            c.non_negative(&p.key("tangential_damping_ratio"), r)?;
        }
        ("ratio", None) => {
            return Err(c.invalid(&p.key("tangential_damping"), "ratio", "needs `tangential_damping_ratio`"));
        }
        (_, Some(r)) => {
            return Err(c.invalid(
                &p.key("tangential_damping_ratio"),
                r,
                "is used only with tangential_damping = \"ratio\"",
            ));
        }
        _ => {}
    }
    if let Some(r) = m.tangential_stiffness_ratio {
        c.positive(&p.key("tangential_stiffness_ratio"), r)?;
    }
    let spring_keys = [
        ("tangential_stiffness_ratio", m.tangential_stiffness_ratio.is_some()),
        ("tangential_damping", m.tangential_damping != "none"),
    ];
    if let Some((key, _)) = spring_keys.iter().find(|k| k.1).filter(|_| m.tangential != "cundall_strack") {
        return Err(c.invalid(&p.key(key), spring_value(m, key), "needs tangential = \"cundall_strack\""));
    }
    Ok(())
}

fn spring_value(m: &MdSpec, key: &str) -> String {
    match key {
        "tangential_stiffness_ratio" => format!("{:?}", m.tangential_stiffness_ratio.unwrap_or_default()),
        _ => m.tangential_damping.clone(),
    }
}
