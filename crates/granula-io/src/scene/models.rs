//! Validation of the MD model choices of `[solver]`: damping model, tension policy and the
//! tangential spring's stiffness ratio and dashpot, and the parameters each choice needs.
//! (A misspelt name is already a parse error naming the key and listing the valid names.)

use super::check::Check;
use super::source::KeyPath;
use super::spec::{choice_name, DampingKind, MdSpec, NormalKind, SolverSpec, TangentialDampingKind, TangentialKind};
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
    if let Some(name) = planar_spring(m.tangential) {
        return planar_cundall(c, &p, m, name);
    }
    if let Some((key, _)) = spring_keys.iter().find(|k| k.1).filter(|_| !spring) {
        return Err(c.invalid(
            &p.key(key),
            spring_value(m, key),
            "needs tangential = \"cundall_strack\", \"unbounded_cundall_strack\", \"brendel_dippel\", \"planar_cundall\" \
             or \"planar_predictor\"",
        ));
    }
    Ok(())
}

/// The scene name of a tangential spring of the planar world, `None` for the others.
fn planar_spring(t: TangentialKind) -> Option<&'static str> {
    match t {
        TangentialKind::PlanarCundall => Some("planar_cundall"),
        TangentialKind::PlanarPredictor => Some("planar_predictor"),
        _ => None,
    }
}

/// `tangential = "planar_cundall"` (002 eqs. 6-7) or `"planar_predictor"` (002 §4): k_t =
/// `tangential_stiffness_ratio` × `normal_stiffness`, both required; their dashpot is 002's
/// ν_t/ν_n = k_t/k_n, so `tangential_damping` is refused.
fn planar_cundall(c: &Check, p: &KeyPath, m: &MdSpec, name: &str) -> Result<()> {
    if m.tangential_damping != TangentialDampingKind::None {
        return Err(c.invalid(
            &p.key("tangential_damping"),
            choice_name(&m.tangential_damping),
            "is not used with the springs of the planar world, whose dashpot is 002's nu_t/nu_n = k_t/k_n",
        ));
    }
    if m.tangential_stiffness_ratio.is_none() {
        return Err(c.invalid(
            &p.key("tangential"),
            name,
            "needs `tangential_stiffness_ratio` (k_t/k_n of 002 eq. 6; 002 takes 1/3)",
        ));
    }
    if m.normal_stiffness.is_none() {
        return Err(c.invalid(&p.key("tangential"), name, "needs `normal_stiffness` (k_t = ratio x k_n)"));
    }
    Ok(())
}

/// The choices of the planar world (`normal = "area"`, `tangential = "planar_cundall"` or
/// `"planar_predictor"`) in a
/// scene that is not planar: an error naming the key.
pub fn planar_only(c: &Check, spec: &SolverSpec, planar: bool) -> Result<()> {
    let SolverSpec::Md(m) = spec else { return Ok(()) };
    let p = KeyPath::root().key("solver");
    if m.normal == NormalKind::Area {
        match m.normal_stiffness {
            Some(k) => {
                c.positive(&p.key("normal_stiffness"), k)?;
            }
            None => return Err(c.invalid(&p.key("normal"), "area", "needs `normal_stiffness` (N/m, 002 eq. 5)")),
        }
    }
    if m.normal == NormalKind::Area
        && !matches!(m.damping, DampingKind::ReducedMass | DampingKind::Fixed | DampingKind::HuntCrossley)
    {
        return Err(c.invalid(
            &p.key("damping"),
            choice_name(&m.damping),
            "normal = \"area\" takes damping = \"reduced_mass\" (002 eqs. 2-3), \"fixed\" or \"hunt_crossley\"",
        ));
    }
    if planar {
        return Ok(());
    }
    if m.normal == NormalKind::Area {
        return Err(c.invalid(&p.key("normal"), "area", PLANAR_ONLY));
    }
    if let Some(name) = planar_spring(m.tangential) {
        return Err(c.invalid(&p.key("tangential"), name, PLANAR_ONLY));
    }
    Ok(())
}

/// Why a choice of the planar world is refused in a 3D scene.
pub const PLANAR_ONLY: &str = "is a law of the planar world (002): set [simulation] planar = true, \
    or use normal = \"hooke\" / \"volumetric\" and tangential = \"cundall_strack\" in 3D";

fn spring_value(m: &MdSpec, key: &str) -> String {
    match key {
        "tangential_stiffness_ratio" => format!("{:?}", m.tangential_stiffness_ratio.unwrap_or_default()),
        _ => choice_name(&m.tangential_damping),
    }
}
