//! Validation of the non-body parts of a scene: clock, solver, materials, outputs.

use super::check::Check;
use super::limits::{MAX_ITERATIONS, MAX_MATERIALS, MAX_SKIN_RADII, MAX_STEPS, MAX_THREADS};
use super::source::KeyPath;
use super::spec::{
    choice_name, DampingKind, ImpactKind, MaterialSpec, MdSpec, NormalKind, OutputSpec, PairSpec,
    PolyhedronContactKind, SceneSpec, SolverSpec, StressSpec, TangentialKind,
};
use crate::error::Result;
use granula_core::{Material, PairMaterial};
use std::collections::HashSet;

/// Validates `[simulation]`: exactly one of `dt` and `dt_fraction`, gravity, guards,
/// shear. Returns the time step when `dt` gives it (`None`: `dt_fraction`, resolved once
/// the bodies are built).
pub fn simulation(c: &Check, spec: &SceneSpec) -> Result<Option<f64>> {
    let p = KeyPath::root().key("simulation");
    let s = &spec.simulation;
    c.vector(&p.key("gravity"), s.gravity)?;
    c.positive(&p.key("max_overlap_ratio"), s.max_overlap_ratio)?;
    c.positive(&p.key("energy_guard_max_gain"), s.energy_guard_max_gain)?;
    if let Some(rate) = s.shear_rate {
        if !rate.is_finite() {
            return Err(c.invalid(&p.key("shear_rate"), rate, "must be finite"));
        }
    }
    match (s.dt, s.dt_fraction) {
        (Some(dt), None) => Ok(Some(c.positive(&p.key("dt"), dt)?)),
        (None, Some(f)) => {
            c.positive(&p.key("dt_fraction"), f)?;
            Ok(None)
        }
        (Some(_), Some(f)) => Err(c.invalid(&p.key("dt_fraction"), f, "give `dt` or `dt_fraction`, not both")),
        (None, None) => Err(c.invalid(&p, "", "give the time step `dt` (s) or `dt_fraction` (of the contact time)")),
    }
}

/// The number of steps of `[simulation]` with the time step `dt`; `dt_key` names the key
/// that set it (`dt` or `dt_fraction`) in the error of a run too long.
pub fn steps(c: &Check, spec: &SceneSpec, dt: f64, dt_key: &'static str) -> Result<u64> {
    let p = KeyPath::root().key("simulation");
    let s = &spec.simulation;
    match (s.end_time, s.steps) {
        (Some(t), None) => {
            let t = c.positive(&p.key("end_time"), t)?;
            // The smallest n with n dt >= t, forgiving a relative 1e-9 of rounding in t/dt.
            let n = ((t / dt) * (1.0 - 1e-9)).ceil().max(1.0);
            if !(n <= MAX_STEPS as f64) {
                return Err(c.invalid(
                    &p.key(dt_key),
                    dt,
                    format!("end_time = {t} s takes {n:e} steps of this dt; at most {MAX_STEPS} steps are allowed: raise `dt` or lower `end_time`"),
                ));
            }
            Ok(n as u64)
        }
        (None, Some(n)) if n > MAX_STEPS => {
            Err(c.invalid(&p.key("steps"), n, format!("at most {MAX_STEPS} steps are allowed")))
        }
        (None, Some(n)) if n >= 1 => Ok(n),
        (None, Some(n)) => Err(c.invalid(&p.key("steps"), n, "must be >= 1")),
        (Some(_), Some(n)) => Err(c.invalid(&p.key("steps"), n, "give `end_time` or `steps`, not both")),
        (None, None) => Err(c.invalid(&p, "", "give `end_time` (s) or `steps`")),
    }
}

/// The volumetric keys of an MD `[solver]`: `volume_stiffness` > 0 and only with an
/// overlap-volume law (`normal = "volume_energy"` or `"volumetric"`), which takes the
/// damping `"hunt_crossley"` or `"fixed"` (the viscous calibrations assume a Hertz or
/// linear spring); `polyhedron_contacts = "volume"` only with such a law (the other laws
/// would read the mean depth V/A of the overlap as a point's depth).
fn volumetric(c: &Check, p: &KeyPath, m: &MdSpec) -> Result<()> {
    let is_volumetric = matches!(m.normal, NormalKind::Volumetric | NormalKind::VolumeEnergy);
    let law = choice_name(&m.normal);
    if let Some(k) = m.volume_stiffness {
        if !is_volumetric {
            return Err(c.invalid(
                &p.key("volume_stiffness"),
                k,
                "is used only with normal = \"volume_energy\" or \"volumetric\"",
            ));
        }
        c.positive(&p.key("volume_stiffness"), k)?;
    }
    if is_volumetric && !matches!(m.damping, DampingKind::HuntCrossley | DampingKind::Fixed) {
        return Err(c.invalid(
            &p.key("damping"),
            choice_name(&m.damping),
            format!(
                "normal = \"{law}\" takes damping = \"hunt_crossley\" or \"fixed\" (damping_coefficient = 0 for none)"
            ),
        ));
    }
    if m.polyhedron_contacts == Some(PolyhedronContactKind::Volume) && !is_volumetric {
        return Err(c.invalid(
            &p.key("polyhedron_contacts"),
            "volume",
            "overlap-volume contacts need normal = \"volume_energy\" or \"volumetric\"",
        ));
    }
    Ok(())
}

/// Validates `[solver]`.
pub fn solver(c: &Check, spec: &SolverSpec) -> Result<()> {
    let p = KeyPath::root().key("solver");
    match spec {
        SolverSpec::Md(m) => {
            if m.normal == NormalKind::Hooke {
                match m.normal_stiffness {
                    Some(k) => {
                        c.positive(&p.key("normal_stiffness"), k)?;
                    }
                    None => return Err(c.invalid(&p.key("normal"), "hooke", "needs `normal_stiffness` (N/m)")),
                }
            }
            volumetric(c, &p, m)?;
            c.positive(&p.key("tangential_viscosity"), m.tangential_viscosity)?;
            let flags = [
                ("resistances", m.resistances),
                ("rolling", m.rolling),
                ("twisting", m.twisting),
                ("cohesion", m.cohesion),
            ];
            if let Some((key, _)) = flags.iter().find(|f| f.1).filter(|_| m.tangential != TangentialKind::CundallStrack)
            {
                return Err(c.invalid(&p.key(key), true, "needs tangential = \"cundall_strack\""));
            }
            // The law's own range (004 §2.3.2.4): α = 1 would cancel every resultant force.
            if !(0.0..1.0).contains(&m.local_damping) {
                return Err(c.invalid(&p.key("local_damping"), m.local_damping, "must be in [0, 1)"));
            }
            if let Some(t) = m.threads.filter(|&t| t == 0 || t > MAX_THREADS) {
                return Err(c.invalid(&p.key("threads"), t, format!("must be in [1, {MAX_THREADS}]")));
            }
            c.non_negative(&p.key("skin"), m.skin)?;
        }
        SolverSpec::Nscd(n) => {
            if !(0.5..=1.0).contains(&n.theta) {
                return Err(c.invalid(&p.key("theta"), n.theta, "must be in [0.5, 1]"));
            }
            c.positive(&p.key("tolerance"), n.tolerance)?;
            if n.max_iterations == 0 || n.max_iterations > MAX_ITERATIONS {
                return Err(c.invalid(
                    &p.key("max_iterations"),
                    n.max_iterations,
                    format!("must be in [1, {MAX_ITERATIONS}]"),
                ));
            }
            c.non_negative(&p.key("margin"), n.margin)?;
            c.positive(&p.key("cutoff"), n.cutoff)?;
            if let Some(h) = n.hard_cap {
                if h < n.max_iterations || h > MAX_ITERATIONS {
                    return Err(c.invalid(
                        &p.key("hard_cap"),
                        h,
                        format!("must be >= max_iterations and <= {MAX_ITERATIONS}"),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Contact dynamics without an impact law (`impact = "none"`) is perfectly inelastic: a
/// `restitution` set on a material or a pair would be silently ignored, so it is an error
/// naming the first such key.
pub fn unused_restitution(c: &Check, spec: &SceneSpec) -> Result<()> {
    let SolverSpec::Nscd(n) = &spec.solver else { return Ok(()) };
    if n.impact != ImpactKind::None {
        return Ok(());
    }
    let root = KeyPath::root();
    let set = spec
        .materials
        .iter()
        .enumerate()
        .find_map(|(i, m)| m.restitution.map(|e| (root.key("materials").index(i), e)))
        .or_else(|| {
            spec.pairs.iter().enumerate().find_map(|(i, m)| m.restitution.map(|e| (root.key("pairs").index(i), e)))
        });
    match set {
        Some((p, e)) => Err(c.invalid(
            &p.key("restitution"),
            e,
            "is not used: contact dynamics with [solver] impact = \"none\" is perfectly inelastic; \
             set impact = \"newton\" to apply it, or remove the key",
        )),
        None => Ok(()),
    }
}

/// Checks the MD skin or the NSCD detection margin against the scene's largest sphere
/// radius `r_max` (at most [`MAX_SKIN_RADII`] of it); a scene without spheres has no pairs
/// and any finite value passes.
pub fn skin(c: &Check, spec: &SolverSpec, r_max: Option<f64>) -> Result<()> {
    let Some(r) = r_max else { return Ok(()) };
    let p = KeyPath::root().key("solver");
    let (key, v) = match spec {
        SolverSpec::Md(m) => ("skin", m.skin),
        SolverSpec::Nscd(n) => ("margin", n.margin),
    };
    let limit = MAX_SKIN_RADII * r;
    if v > limit {
        return Err(c.invalid(
            &p.key(key),
            v,
            format!("must be <= {MAX_SKIN_RADII} x the largest sphere radius = {limit:e} m (a wider one makes the pair search all pairs)"),
        ));
    }
    Ok(())
}

/// Builds and validates the materials; names must be unique.
pub fn materials(c: &Check, specs: &[MaterialSpec]) -> Result<Vec<Material>> {
    if specs.len() > MAX_MATERIALS {
        let p = KeyPath::root().key("materials").index(MAX_MATERIALS);
        return Err(c.invalid(
            &p,
            specs.len(),
            format!(
                "the scene defines {} materials; at most {MAX_MATERIALS} are allowed (the pair table holds n² entries)",
                specs.len()
            ),
        ));
    }
    let mut out: Vec<Material> = Vec::with_capacity(specs.len());
    let mut seen: HashSet<&str> = HashSet::with_capacity(specs.len());
    for (i, s) in specs.iter().enumerate() {
        let p = KeyPath::root().key("materials").index(i);
        if !seen.insert(s.name.as_str()) {
            return Err(c.invalid(&p.key("name"), &s.name, "is already used by another material"));
        }
        let d = Material::default();
        let m = Material {
            name: s.name.clone(),
            density: s.density.unwrap_or(d.density),
            friction: s.friction.unwrap_or(d.friction),
            dynamic_friction: s.dynamic_friction,
            rolling_friction: s.rolling_friction.unwrap_or(d.rolling_friction),
            torsion_friction: s.torsion_friction.unwrap_or(d.torsion_friction),
            restitution: s.restitution.unwrap_or(d.restitution),
            young_modulus: s.young_modulus.unwrap_or(d.young_modulus),
            poisson_ratio: s.poisson_ratio.unwrap_or(d.poisson_ratio),
            cohesion_force: s.cohesion_force.unwrap_or(d.cohesion_force),
            cohesion_range: s.cohesion_range.unwrap_or(d.cohesion_range),
            rigid: s.rigid,
            // Scenes compose only the built-in laws, which read no user property.
            properties: Default::default(),
        };
        m.validate().map_err(|e| c.core(&p, e))?;
        out.push(m);
    }
    Ok(out)
}

/// Resolves and validates the pair overrides against the materials.
pub fn pairs(c: &Check, mats: &[Material], specs: &[PairSpec]) -> Result<Vec<(u16, u16, PairMaterial)>> {
    let mut out = Vec::with_capacity(specs.len());
    for (i, s) in specs.iter().enumerate() {
        let p = KeyPath::root().key("pairs").index(i);
        let a = c.material(&p.key("materials").index(0), Some(&s.materials[0]))?;
        let b = c.material(&p.key("materials").index(1), Some(&s.materials[1]))?;
        let mut m = PairMaterial::mix(&mats[a.0 as usize], &mats[b.0 as usize]);
        m.friction = s.friction.unwrap_or(m.friction);
        m.dynamic_friction = s.dynamic_friction.unwrap_or(m.dynamic_friction.min(m.friction));
        m.rolling_friction = s.rolling_friction.unwrap_or(m.rolling_friction);
        m.torsion_friction = s.torsion_friction.unwrap_or(m.torsion_friction);
        m.restitution = s.restitution.unwrap_or(m.restitution);
        m.cohesion_force = s.cohesion_force.unwrap_or(m.cohesion_force);
        m.cohesion_range = s.cohesion_range.unwrap_or(m.cohesion_range);
        super::selection::pair_elastic_override(c, &p, s, &mut m)?;
        m.validate(&format!("{}/{}", s.materials[0], s.materials[1])).map_err(|e| c.core(&p, e))?;
        out.push((a.0, b.0, m));
    }
    Ok(out)
}

/// Validates `[output]`; `names` are the body names of the scene, `planar` its mode.
pub fn outputs(c: &Check, o: &OutputSpec, names: &[Option<String>], planar: bool) -> Result<()> {
    let p = KeyPath::root().key("output");
    let every = |key: &'static str, n: u64, path: &KeyPath| -> Result<()> {
        if n == 0 {
            return Err(c.invalid(&path.key(key), n, "must be >= 1 (steps)"));
        }
        Ok(())
    };
    let intervals = [
        ("vtk", &o.vtk),
        ("series", &o.series),
        ("contacts", &o.contacts),
        ("checkpoint", &o.checkpoint),
        ("wall_loads", &o.wall_loads),
    ];
    for (key, e) in intervals {
        if let Some(e) = e {
            every("every", e.every, &p.key(key))?;
        }
    }
    if let Some(t) = &o.trajectories {
        let tp = p.key("trajectories");
        every("every", t.every, &tp)?;
        let known: HashSet<&str> = names.iter().filter_map(|m| m.as_deref()).collect();
        for (i, n) in t.bodies.iter().enumerate() {
            if !known.contains(n.as_str()) {
                return Err(c.invalid(&tp.key("bodies").index(i), n, "no body has this name"));
            }
        }
    }
    for (i, s) in o.stress.iter().enumerate() {
        let sp = p.key("stress").index(i);
        every("every", s.every, &sp)?;
        stress_box(c, &sp, s, planar)?;
        if s.name.is_empty() || !s.name.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_' || ch == '-') {
            return Err(c.invalid(&sp.key("name"), &s.name, "must be non-empty letters, digits, '_' or '-'"));
        }
    }
    if let Some(f) = &o.flow {
        let fp = p.key("flow");
        every("every", f.every, &fp)?;
        if !f.z.is_finite() {
            return Err(c.invalid(&fp.key("z"), f.z, "must be finite"));
        }
        if let Some(r) = f.remove_below {
            if !(r.is_finite() && r < f.z) {
                return Err(c.invalid(&fp.key("remove_below"), r, format!("must be finite and below z = {}", f.z)));
            }
        }
    }
    Ok(())
}

/// The box of a stress output: finite corners, `max > min` on every axis, extents that do
/// not overflow, and a volume (an x-y area in planar mode) that is a finite, normal
/// positive number, since the stress and the packing fraction are divided by it (a box of
/// zero or subnormal height would give NaN in every column).
fn stress_box(c: &Check, sp: &KeyPath, s: &StressSpec, planar: bool) -> Result<()> {
    let lo = c.vector(&sp.key("min"), s.min)?;
    let hi = c.vector(&sp.key("max"), s.max)?;
    let max = sp.key("max");
    if !hi.cmpgt(lo).all() {
        return Err(c.invalid(&max, s.max, format!("must be > min = {:?} on every axis", s.min)));
    }
    let e = hi - lo;
    if !e.is_finite() {
        return Err(c.invalid(&max, s.max, format!("the box's extent {:?} from min overflows", e.to_array())));
    }
    let (volume, what) = if planar { (e.x * e.y, "area") } else { (e.x * e.y * e.z, "volume") };
    if !(volume.is_finite() && volume.is_normal()) {
        return Err(c.invalid(
            &max,
            s.max,
            format!("the box's {what} {volume:e} (extent {:?}) is zero or not a finite normal number", e.to_array()),
        ));
    }
    Ok(())
}
