//! Validation of the MD model choices of `[solver]`: damping model, tension policy and the
//! tangential spring's stiffness ratio and dashpot, and the parameters each choice needs.
//! (A misspelt name is already a parse error naming the key and listing the valid names.)

use super::check::Check;
use super::source::KeyPath;
use super::spec::{choice_name, DampingKind, MdSpec, SolverSpec, TangentialDampingKind, TangentialKind};
use crate::error::Result;

/// Validates the model choices of an MD `[solver]`.
pub fn validate(c: &Check, spec: &SolverSpec) -> Result<()> {
    let SolverSpec::Md(m) = spec else { return Ok(()) };
    let p = KeyPath::root().key("solver");
    match (m.damping, m.damping_coefficient) {
        (DampingKind::Fixed, Some(g)) => {
            c.non_negative(&p.key("damping_coefficient"), g)?;
        }
        (DampingKind::Fixed, None) => {
            return Err(c.invalid(&p.key("damping"), "fixed", "needs `damping_coefficient` (N s/m)"))
        }
        (_, Some(g)) => {
            return Err(c.invalid(&p.key("damping_coefficient"), g, "is used only with damping = \"fixed\""));
        }
        _ => {}
    }
    match (m.tangential_damping, m.tangential_damping_ratio) {
        (TangentialDampingKind::Ratio, Some(r)) => {
            c.non_negative(&p.key("tangential_damping_ratio"), r)?;
        }
        (TangentialDampingKind::Ratio, None) => {
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
        ("tangential_damping", m.tangential_damping != TangentialDampingKind::None),
    ];
    let spring = matches!(
        m.tangential,
        TangentialKind::CundallStrack | TangentialKind::UnboundedCundallStrack | TangentialKind::BrendelDippel
    );
    if let Some((key, _)) = spring_keys.iter().find(|k| k.1).filter(|_| !spring) {
        return Err(c.invalid(
            &p.key(key),
            spring_value(m, key),
            "needs tangential = \"cundall_strack\", \"unbounded_cundall_strack\" or \"brendel_dippel\"",
        ));
    }
    Ok(())
}

fn spring_value(m: &MdSpec, key: &str) -> String {
    match key {
        "tangential_stiffness_ratio" => format!("{:?}", m.tangential_stiffness_ratio.unwrap_or_default()),
        _ => choice_name(&m.tangential_damping),
    }
}
