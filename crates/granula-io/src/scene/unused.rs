//! Material and pair properties the scene's solver would ignore. Every property a scene
//! sets is either used by the contact law its `[solver]` composes or refused here with an
//! error naming the key and saying how to use it: rolling and torsion friction need a
//! rolling law, cohesion a cohesive one, and contact dynamics has no dynamic friction.
//! (Restitution under contact dynamics without an impact law is refused by
//! `validate::unused_restitution`.)

use super::check::Check;
use super::choices::{CohesionRuleKind, DampingKind, TangentialKind};
use super::source::KeyPath;
use super::spec::{ImpactKind, MaterialSpec, NscdLawKind, PairSpec, SceneSpec, SolverSpec};
use crate::error::Result;

/// A contact property that a law may or may not use.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Property {
    Rolling,
    Torsion,
    Cohesion,
    DynamicFriction,
    Friction,
    Restitution,
}

/// The optional properties, with their key and how to read them from a material and a
/// pair.
type Row = (&'static str, Property, fn(&MaterialSpec) -> Option<f64>, fn(&PairSpec) -> Option<f64>);

const PROPERTIES: [Row; 7] = [
    ("rolling_friction", Property::Rolling, |m| m.rolling_friction, |p| p.rolling_friction),
    ("torsion_friction", Property::Torsion, |m| m.torsion_friction, |p| p.torsion_friction),
    ("cohesion_force", Property::Cohesion, |m| m.cohesion_force, |p| p.cohesion_force),
    ("cohesion_range", Property::Cohesion, |m| m.cohesion_range, |p| p.cohesion_range),
    ("dynamic_friction", Property::DynamicFriction, |m| m.dynamic_friction, |p| p.dynamic_friction),
    ("friction", Property::Friction, |m| m.friction, |p| p.friction),
    ("restitution", Property::Restitution, |m| m.restitution, |p| p.restitution),
];

/// `None` when the solver's law uses `property`, else why not and how to turn it on.
fn unused_because(solver: &SolverSpec, property: Property) -> Option<&'static str> {
    match solver {
        SolverSpec::Md(m) => {
            let (rolling, twisting, cohesion) = m.resistance_models();
            match property {
                Property::Rolling if !rolling => Some(
                    "is not used: the MD law has no rolling resistance; set [solver] rolling = true \
                     (or resistances = true) to apply it, or remove the key",
                ),
                Property::Torsion if !twisting => Some(
                    "is not used: the MD law has no twisting resistance; set [solver] twisting = true \
                     (or resistances = true) to apply it, or remove the key",
                ),
                Property::Cohesion if !cohesion => Some(
                    "is not used: the MD law has no cohesion; set [solver] cohesion = true \
                     (or resistances = true) to apply it, or remove the key",
                ),
                Property::Friction | Property::DynamicFriction if m.tangential == TangentialKind::None => Some(
                    "is not used: the MD law has no tangential force ([solver] tangential = \"none\"); \
                     choose a tangential model or remove the key",
                ),
                Property::Restitution if m.damping == DampingKind::Fixed => Some(
                    "is not used: [solver] damping = \"fixed\" takes its coefficient from \
                     damping_coefficient; choose a damping calibrated from restitution or remove the key",
                ),
                _ => None,
            }
        }
        SolverSpec::Nscd(n) => match (property, n.law) {
            (Property::Rolling | Property::Torsion, NscdLawKind::Rolling) => None,
            (Property::Rolling | Property::Torsion, NscdLawKind::SignoriniCoulomb | NscdLawKind::Cohesive) => Some(
                "is not used: the contact-dynamics law has no rolling or torsion friction; set \
                 [solver] law = \"rolling\" to apply it, or remove the key",
            ),
            (Property::Cohesion, NscdLawKind::Cohesive) => None,
            (Property::Cohesion, NscdLawKind::SignoriniCoulomb | NscdLawKind::Rolling) => Some(
                "is not used: the contact-dynamics law has no cohesion; set [solver] law = \"cohesive\" \
                 to apply it, or remove the key",
            ),
            // Restitution without an impact law: `validate::unused_restitution`.
            (Property::Friction | Property::Restitution, _) => None,
            (Property::DynamicFriction, _) => {
                Some("is not used: contact dynamics has one friction coefficient, `friction`; remove the key")
            }
        },
    }
}

/// Refuses the first material or pair property (set to a non-zero value) that the scene's
/// solver would ignore, naming its key. A zero is what every law assumes without the
/// property and is accepted.
pub fn unused_properties(c: &Check, spec: &SceneSpec) -> Result<()> {
    let root = KeyPath::root();
    for (key, property, of_material, of_pair) in PROPERTIES {
        let Some(why) = unused_because(&spec.solver, property) else { continue };
        let set = |v: Option<f64>| v.filter(|&x| x != 0.0);
        let materials =
            spec.materials.iter().enumerate().map(|(i, m)| (root.key("materials").index(i), set(of_material(m))));
        let pairs = spec.pairs.iter().enumerate().map(|(i, p)| (root.key("pairs").index(i), set(of_pair(p))));
        if let Some((path, Some(v))) = materials.chain(pairs).find(|(_, v)| v.is_some()) {
            return Err(c.invalid(&path.key(key), v, why));
        }
    }
    Ok(())
}

/// The cohesive law of contact dynamics has no impact law: any `impact` but `"none"` with
/// it is refused, naming `[solver] impact`; the rolling law applies Newton's only (its 6-D
/// local solve has no impulse process), so `"poisson"` and `"stronge"` with it are refused
/// too.
pub fn cohesive_impact(c: &Check, spec: &SolverSpec) -> Result<()> {
    let key = KeyPath::root().key("solver").key("impact");
    match spec {
        SolverSpec::Nscd(n) if n.law == NscdLawKind::Cohesive && n.impact != ImpactKind::None => Err(c.invalid(
            &key,
            n.impact.name(),
            "is not available with law = \"cohesive\" (the cohesive law is perfectly inelastic): \
             use impact = \"none\"",
        )),
        SolverSpec::Nscd(n)
            if n.law == NscdLawKind::Rolling && matches!(n.impact, ImpactKind::Poisson | ImpactKind::Stronge) =>
        {
            Err(c.invalid(
                &key,
                n.impact.name(),
                "is not available with law = \"rolling\" (its local solve applies Newton's law only): \
                 use impact = \"newton\" or \"none\"",
            ))
        }
        SolverSpec::Nscd(n) if n.law != NscdLawKind::Cohesive && n.cohesion_rule.is_some() => Err(c.invalid(
            &KeyPath::root().key("solver").key("cohesion_rule"),
            match n.cohesion_rule.unwrap_or_default() {
                CohesionRuleKind::Rectangle => "rectangle",
                CohesionRuleKind::FullPull => "full_pull",
            },
            "is only used with law = \"cohesive\"",
        )),
        _ => Ok(()),
    }
}

/// Notes on properties the solver does not use but that are kept accepted because they are
/// harmless and common in scenes shared between MD and contact dynamics: the elastic
/// constants (`young_modulus`, `poisson_ratio`, `rigid`) of a material or pair under
/// contact dynamics, whose contacts are rigid. One line per key, naming it with its line.
pub fn notes(c: &Check, spec: &SceneSpec) -> Vec<String> {
    let SolverSpec::Nscd(_) = &spec.solver else { return Vec::new() };
    let root = KeyPath::root();
    let mut out = Vec::new();
    let mut note = |path: KeyPath| {
        out.push(format!("note: {}: not used: contact dynamics treats every contact as rigid", c.at(&path)));
    };
    for (i, m) in spec.materials.iter().enumerate() {
        let p = root.key("materials").index(i);
        let set = [("young_modulus", m.young_modulus.is_some()), ("poisson_ratio", m.poisson_ratio.is_some())];
        for (key, _) in set.into_iter().chain([("rigid", m.rigid)]).filter(|k| k.1) {
            note(p.key(key));
        }
    }
    for (i, m) in spec.pairs.iter().enumerate() {
        let p = root.key("pairs").index(i);
        let set = [("young_modulus", m.young_modulus.is_some()), ("poisson_ratio", m.poisson_ratio.is_some())];
        for (key, _) in set.into_iter().filter(|k| k.1) {
            note(p.key(key));
        }
    }
    out
}
