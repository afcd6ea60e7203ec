//! Body selections of the outputs: trajectories by name, by body-number range, by
//! generator and by region; the bodies and pairs of the contact history. Validated with the
//! scene, resolved to handle numbers when the outputs open.

use super::bodies::BodyPlan;
use super::check::Check;
use super::source::KeyPath;
use super::spec::SceneSpec;
use super::Scene;
use crate::error::Result;
use crate::output::{body_label, ContactFilter};
use glam::DVec3;

/// The `origin` prefix (`"lattices[i]"` or `"packings[i]"`) of the generator `g`: a
/// generator's name or that key path itself; `None` if no generator matches.
fn generator_origin(spec: &SceneSpec, g: &str) -> Option<String> {
    let named = |kind: &str, names: Vec<Option<&String>>| {
        names.iter().position(|n| n.map(String::as_str) == Some(g)).map(|i| format!("{kind}[{i}]"))
    };
    let lattices: Vec<_> = spec.lattices.iter().map(|l| l.name.as_ref()).collect();
    let packings: Vec<_> = spec.packings.iter().map(|p| p.name.as_ref()).collect();
    if let Some(o) = named("lattices", lattices).or_else(|| named("packings", packings)) {
        return Some(o);
    }
    let (kind, rest) = g.split_once('[')?;
    let i: usize = rest.strip_suffix(']')?.parse().ok()?;
    match kind {
        "lattices" if i < spec.lattices.len() => Some(g.to_string()),
        "packings" if i < spec.packings.len() => Some(g.to_string()),
        _ => None,
    }
}

/// Whether body plan `p` comes from the generator whose key path is `origin`.
fn from_generator(p: &BodyPlan, origin: &str) -> bool {
    p.origin.strip_prefix(origin).is_some_and(|rest| rest.starts_with(" ("))
}

/// Validates the generator names and the selections of `[output.trajectories]` and
/// `[output.contact_history]` against the bodies.
pub fn validate(c: &Check, spec: &SceneSpec, plans: &[BodyPlan]) -> Result<()> {
    let root = KeyPath::root();
    let mut generator_names: Vec<&str> = Vec::new();
    let generators = spec
        .lattices
        .iter()
        .enumerate()
        .map(|(i, l)| (root.key("lattices").index(i), &l.name))
        .chain(spec.packings.iter().enumerate().map(|(i, p)| (root.key("packings").index(i), &p.name)));
    for (path, name) in generators {
        if let Some(n) = name {
            if generator_names.contains(&n.as_str()) {
                return Err(c.invalid(&path.key("name"), n, "is already the name of another generator"));
            }
            generator_names.push(n);
        }
    }
    let out = root.key("output");
    let named = |path: &KeyPath, n: &String| -> Result<()> {
        if plans.iter().any(|p| p.name.as_deref() == Some(n.as_str())) {
            Ok(())
        } else {
            Err(c.invalid(path, n, "no body has this name"))
        }
    };
    if let Some(t) = &spec.output.trajectories {
        let tp = out.key("trajectories");
        for (i, r) in t.indices.iter().enumerate() {
            let ip = tp.key("indices").index(i);
            if r[0] > r[1] {
                return Err(c.invalid(&ip, r, "must be [first, last] with first <= last"));
            }
            if r[1] as usize >= plans.len() {
                return Err(c.invalid(&ip, r, format!("the scene has bodies 0 to {}", plans.len().saturating_sub(1))));
            }
        }
        for (i, g) in t.generators.iter().enumerate() {
            if generator_origin(spec, g).is_none() {
                return Err(c.invalid(
                    &tp.key("generators").index(i),
                    g,
                    format!(
                        "no generator has this name or key; the scene has {} lattices and {} packings \
                         (named {generator_names:?}), e.g. \"lattices[0]\"",
                        spec.lattices.len(),
                        spec.packings.len()
                    ),
                ));
            }
        }
        for (i, r) in t.regions.iter().enumerate() {
            let rp = tp.key("regions").index(i);
            let lo = c.vector(&rp.key("min"), r.min)?;
            let hi = c.vector(&rp.key("max"), r.max)?;
            if !hi.cmpgt(lo).all() {
                return Err(c.invalid(&rp.key("max"), r.max, format!("must be > min = {:?} componentwise", r.min)));
            }
        }
    }
    if let Some(h) = &spec.output.contact_history {
        let hp = out.key("contact_history");
        if h.every == 0 {
            return Err(c.invalid(&hp.key("every"), 0, "must be >= 1 (steps)"));
        }
        for (i, n) in h.bodies.iter().enumerate() {
            named(&hp.key("bodies").index(i), n)?;
        }
        for (i, pair) in h.pairs.iter().enumerate() {
            for (k, n) in pair.iter().enumerate() {
                named(&hp.key("pairs").index(i).index(k), n)?;
            }
        }
    }
    Ok(())
}

impl Scene {
    /// The bodies `[output.trajectories]` follows, as (label, handle number) in handle
    /// order: the union of the named bodies, the number ranges, the generators' spheres and
    /// the bodies whose initial centre lies in a region. The label is the body's name, or
    /// `#n` for a body without one. Empty without trajectories.
    pub fn trajectory_bodies(&self) -> Vec<(String, u32)> {
        let Some(t) = &self.spec.output.trajectories else { return Vec::new() };
        let origins: Vec<String> = t.generators.iter().filter_map(|g| generator_origin(&self.spec, g)).collect();
        let names: Vec<Option<String>> = self.bodies.iter().map(|p| p.name.clone()).collect();
        // A set, so that following many named bodies stays linear in the body count.
        let wanted: std::collections::HashSet<&str> = t.bodies.iter().map(String::as_str).collect();
        self.bodies
            .iter()
            .enumerate()
            .filter(|(i, p)| {
                let h = *i as u32;
                let x = p.body.state.position;
                p.name.as_deref().is_some_and(|n| wanted.contains(n))
                    || t.indices.iter().any(|r| (r[0]..=r[1]).contains(&h))
                    || origins.iter().any(|o| from_generator(p, o))
                    || t.regions
                        .iter()
                        .any(|r| x.cmpge(DVec3::from_array(r.min)).all() && x.cmple(DVec3::from_array(r.max)).all())
            })
            .map(|(i, _)| (body_label(&names, i as u32), i as u32))
            .collect()
    }

    /// The contacts `[output.contact_history]` follows, by handle number; `None` without
    /// the output.
    pub fn contact_filter(&self) -> Option<ContactFilter> {
        let h = self.spec.output.contact_history.as_ref()?;
        let id = |n: &String| self.body_named(n).map(|i| i as u32);
        Some(ContactFilter {
            bodies: h.bodies.iter().filter_map(id).collect(),
            pairs: h.pairs.iter().filter_map(|[a, b]| Some((id(a)?, id(b)?))).collect(),
        })
    }
}

/// The `young_modulus` and `poisson_ratio` of a `[[pairs]]` entry at `path`: both or
/// neither; with both, the pair's E*, G* and ν are those of two bodies of these values.
pub fn pair_elastic_override(
    c: &Check,
    path: &KeyPath,
    s: &super::spec::PairSpec,
    m: &mut granula_core::PairMaterial,
) -> Result<()> {
    match (s.young_modulus, s.poisson_ratio) {
        (None, None) => Ok(()),
        (Some(e), Some(nu)) => {
            let e = c.positive(&path.key("young_modulus"), e)?;
            if !(nu > -1.0 && nu < 0.5) {
                return Err(c.invalid(&path.key("poisson_ratio"), nu, "must be in (-1, 0.5)"));
            }
            m.effective_young = e / (2.0 * (1.0 - nu * nu));
            m.effective_shear = e / (4.0 * (2.0 - nu) * (1.0 + nu));
            m.poisson_ratio = nu;
            Ok(())
        }
        (Some(e), None) => Err(c.invalid(&path.key("young_modulus"), e, "give `poisson_ratio` with it")),
        (None, Some(nu)) => Err(c.invalid(&path.key("poisson_ratio"), nu, "give `young_modulus` with it")),
    }
}

/// Rigid materials: their own elastic keys would be ignored (an error), and they are for
/// walls only (a sphere of a rigid material is an error naming it).
pub fn rigid_materials(c: &Check, spec: &SceneSpec, plans: &[BodyPlan]) -> Result<()> {
    for (i, m) in spec.materials.iter().enumerate().filter(|(_, m)| m.rigid) {
        let p = KeyPath::root().key("materials").index(i);
        for (key, v) in [("young_modulus", m.young_modulus), ("poisson_ratio", m.poisson_ratio)] {
            if let Some(v) = v {
                return Err(c.invalid(&p.key(key), v, "is not used: a rigid material takes the other side's values"));
            }
        }
        if let Some(b) =
            plans.iter().find(|b| b.body.material.0 as usize == i && b.body.shape.sphere_radius().is_some())
        {
            return Err(c.invalid(
                &p.key("rigid"),
                true,
                format!("{} is a sphere of this material: `rigid` is for walls (planes, cylinders)", b.origin),
            ));
        }
    }
    Ok(())
}
