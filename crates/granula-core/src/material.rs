//! Materials, their pair values, and the mixing rule.
//!
//! A [`Material`] holds the properties of one surface; contact laws see a [`PairMaterial`],
//! the values for one pair of materials. Pair values come from the mixing rule below unless
//! an explicit override was set with [`MaterialTable::set_pair`].
//!
//! Mixing rule (documented in `docs/materials.md`):
//! - effective Young's modulus, Hertz theory: 1/E* = (1 − ν₁²)/E₁ + (1 − ν₂²)/E₂;
//! - effective shear modulus, Mindlin: 1/G* = 2(2 − ν₁)(1 + ν₁)/E₁ + 2(2 − ν₂)(1 + ν₂)/E₂;
//! - a [rigid](Material::rigid) side has zero compliance in both sums (infinite E), so
//!   the pair's E* = E/(1 − ν²) and G* = E/(2(2 − ν)(1 + ν)) of the other side alone;
//! - Poisson's ratio: arithmetic mean (the other side's alone against a rigid side);
//! - friction (static, dynamic), rolling and torsion coefficients: the smaller of the two
//!   (the weaker surface controls, as in YADE);
//! - restitution: geometric mean √(e₁ e₂);
//! - cohesion force and range: the smaller of the two.
//!
//! Every rule returns the material's own value when both sides are the same material.

use crate::error::{BodyRef, CoreError, Result};
use crate::handle::MaterialId;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Properties of one material, SI units. `Material::default()` (and `Material::named`) is
/// glass-like beads: ρ = 2500 kg/m³, μ_s = μ_d = 0.5, e = 0.5, E = 1e7 Pa, ν = 0.3, no
/// rolling or torsion friction, no cohesion, not rigid.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Material {
    /// Name used in scene files and error messages.
    pub name: String,
    /// Density ρ in kg/m³.
    pub density: f64,
    /// Static friction coefficient μ_s (Coulomb).
    pub friction: f64,
    /// Dynamic (sliding) friction coefficient μ_d ≤ μ_s; `None` means equal to `friction`.
    pub dynamic_friction: Option<f64>,
    /// Rolling friction coefficient, a length in metres (001 eqs. 1.40-1.42).
    pub rolling_friction: f64,
    /// Torsion friction coefficient, a length in metres (001 §1.7).
    pub torsion_friction: f64,
    /// Normal restitution coefficient e in (0, 1].
    pub restitution: f64,
    /// Young's modulus E in Pa.
    pub young_modulus: f64,
    /// Poisson's ratio ν in (−1, 0.5).
    pub poisson_ratio: f64,
    /// Cohesion force F_C in N (001 §1.8); zero for cohesionless material.
    pub cohesion_force: f64,
    /// Cohesion range d_C in m (001 §1.8: d_C = E_C / F_C).
    pub cohesion_range: f64,
    /// Infinitely stiff (a truly rigid wall): its `young_modulus` and `poisson_ratio` play no
    /// part in the mixing rule, and a pair's elastic values are the other material's alone.
    /// Two rigid materials give an infinite E*, which no smooth contact law accepts.
    #[serde(default)]
    pub rigid: bool,
    /// The host's own properties, by name, for the laws that declare pair parameters of
    /// their own ([`PairParameters`](crate::PairParameters)): the built-in mixing rule
    /// ignores them. Sorted by name, so that iteration and serialisation are deterministic.
    #[serde(default)]
    pub properties: BTreeMap<String, f64>,
}

impl Default for Material {
    /// Glass-like beads: ρ = 2500 kg/m³, μ = 0.5, e = 0.5, E = 1e7 Pa, ν = 0.3, no rolling,
    /// torsion or cohesion.
    fn default() -> Self {
        Material {
            name: "default".into(),
            density: 2500.0,
            friction: 0.5,
            dynamic_friction: None,
            rolling_friction: 0.0,
            torsion_friction: 0.0,
            restitution: 0.5,
            young_modulus: 1e7,
            poisson_ratio: 0.3,
            cohesion_force: 0.0,
            cohesion_range: 0.0,
            rigid: false,
            properties: BTreeMap::new(),
        }
    }
}

impl Material {
    /// A default material with the given name.
    pub fn named(name: impl Into<String>) -> Self {
        Material { name: name.into(), ..Default::default() }
    }

    /// The material with the user property `name` set to `value` (builder style; a second
    /// call with the same name replaces the value). [`Material::validate`] refuses a
    /// non-finite value.
    pub fn with_property(mut self, name: impl Into<String>, value: f64) -> Self {
        self.properties.insert(name.into(), value);
        self
    }

    /// The value of the user property `name`, if the material has it.
    pub fn property(&self, name: &str) -> Option<f64> {
        self.properties.get(name).copied()
    }

    /// Checks every field's domain; the error names the material and the field (for a
    /// user property, the property's name).
    pub fn validate(&self) -> Result<()> {
        let bad =
            |field, value, expected| CoreError::InvalidMaterial { material: self.name.clone(), field, value, expected };
        let positive = |v: f64| v.is_finite() && v > 0.0;
        let non_negative = |v: f64| v.is_finite() && v >= 0.0;
        if !positive(self.density) {
            return Err(bad("density", self.density, "finite and > 0"));
        }
        if !non_negative(self.friction) {
            return Err(bad("friction", self.friction, "finite and >= 0"));
        }
        if let Some(md) = self.dynamic_friction {
            if !non_negative(md) || md > self.friction {
                return Err(bad("dynamic_friction", md, "finite, >= 0 and <= friction"));
            }
        }
        if !non_negative(self.rolling_friction) {
            return Err(bad("rolling_friction", self.rolling_friction, "finite and >= 0"));
        }
        if !non_negative(self.torsion_friction) {
            return Err(bad("torsion_friction", self.torsion_friction, "finite and >= 0"));
        }
        if !(self.restitution > 0.0 && self.restitution <= 1.0) {
            return Err(bad("restitution", self.restitution, "in (0, 1]"));
        }
        if !positive(self.young_modulus) {
            return Err(bad("young_modulus", self.young_modulus, "finite and > 0"));
        }
        if !(self.poisson_ratio > -1.0 && self.poisson_ratio < 0.5) {
            return Err(bad("poisson_ratio", self.poisson_ratio, "in (-1, 0.5)"));
        }
        if !non_negative(self.cohesion_force) {
            return Err(bad("cohesion_force", self.cohesion_force, "finite and >= 0"));
        }
        if !non_negative(self.cohesion_range) {
            return Err(bad("cohesion_range", self.cohesion_range, "finite and >= 0"));
        }
        if self.cohesion_range > 0.0 && self.cohesion_force == 0.0 {
            return Err(bad(
                "cohesion_range",
                self.cohesion_range,
                "zero when cohesion_force is zero (a range needs a force)",
            ));
        }
        if let Some((name, value)) = self.properties.iter().find(|(_, v)| !v.is_finite()) {
            return Err(CoreError::InvalidProperty {
                material: self.name.clone(),
                property: name.clone(),
                value: *value,
            });
        }
        Ok(())
    }
}

/// The material values a contact law sees for one pair of materials.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairMaterial {
    /// Static friction coefficient μ_s.
    pub friction: f64,
    /// Dynamic friction coefficient μ_d.
    pub dynamic_friction: f64,
    /// Rolling friction length (m).
    pub rolling_friction: f64,
    /// Torsion friction length (m).
    pub torsion_friction: f64,
    /// Normal restitution coefficient.
    pub restitution: f64,
    /// Effective Young's modulus E* (Pa), 1/E* = Σ (1 − ν²)/E.
    pub effective_young: f64,
    /// Effective shear modulus G* (Pa), 1/G* = Σ 2(2 − ν)(1 + ν)/E.
    pub effective_shear: f64,
    /// Poisson's ratio of the pair (mean).
    pub poisson_ratio: f64,
    /// Cohesion force F_C (N).
    pub cohesion_force: f64,
    /// Cohesion range d_C (m).
    pub cohesion_range: f64,
}

impl PairMaterial {
    /// The pair values of materials `a` and `b` by the mixing rule of this module.
    pub fn mix(a: &Material, b: &Material) -> Self {
        let dyn_a = a.dynamic_friction.unwrap_or(a.friction);
        let dyn_b = b.dynamic_friction.unwrap_or(b.friction);
        // Compliances: zero on a rigid side.
        let normal = |m: &Material| if m.rigid { 0.0 } else { (1.0 - m.poisson_ratio.powi(2)) / m.young_modulus };
        let shear = |m: &Material| {
            if m.rigid {
                0.0
            } else {
                2.0 * (2.0 - m.poisson_ratio) * (1.0 + m.poisson_ratio) / m.young_modulus
            }
        };
        let e_star = 1.0 / (normal(a) + normal(b));
        let poisson = match (a.rigid, b.rigid) {
            (true, false) => b.poisson_ratio,
            (false, true) => a.poisson_ratio,
            _ => 0.5 * (a.poisson_ratio + b.poisson_ratio),
        };
        PairMaterial {
            friction: a.friction.min(b.friction),
            dynamic_friction: dyn_a.min(dyn_b),
            rolling_friction: a.rolling_friction.min(b.rolling_friction),
            torsion_friction: a.torsion_friction.min(b.torsion_friction),
            restitution: (a.restitution * b.restitution).sqrt(),
            effective_young: e_star,
            effective_shear: 1.0 / (shear(a) + shear(b)),
            poisson_ratio: poisson,
            cohesion_force: a.cohesion_force.min(b.cohesion_force),
            cohesion_range: a.cohesion_range.min(b.cohesion_range),
        }
    }

    /// Checks the domains of an explicit override.
    pub fn validate(&self, label: &str) -> Result<()> {
        let m = Material {
            name: label.to_string(),
            density: 1.0,
            friction: self.friction,
            dynamic_friction: Some(self.dynamic_friction),
            rolling_friction: self.rolling_friction,
            torsion_friction: self.torsion_friction,
            restitution: self.restitution,
            young_modulus: self.effective_young,
            poisson_ratio: self.poisson_ratio,
            cohesion_force: self.cohesion_force,
            cohesion_range: self.cohesion_range,
            rigid: false,
            properties: BTreeMap::new(),
        };
        m.validate()?;
        if !(self.effective_shear.is_finite() && self.effective_shear > 0.0) {
            return Err(CoreError::InvalidMaterial {
                material: label.to_string(),
                field: "effective_shear",
                value: self.effective_shear,
                expected: "finite and > 0",
            });
        }
        Ok(())
    }
}

/// All materials of a world, with the pair table used in the hot loops.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct MaterialTable {
    materials: Vec<Material>,
    overrides: BTreeMap<(u16, u16), PairMaterial>,
    /// Dense n×n pair table, row-major, rebuilt on every change.
    pairs: Vec<PairMaterial>,
}

impl MaterialTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a validated material; names must be unique.
    pub fn add(&mut self, material: Material) -> Result<MaterialId> {
        material.validate()?;
        if self.id(&material.name).is_some() {
            return Err(CoreError::InvalidMaterial {
                material: material.name.clone(),
                field: "name",
                value: f64::NAN,
                expected: "a name not already in the table",
            });
        }
        if self.materials.len() >= u16::MAX as usize {
            return Err(CoreError::InvalidMaterial {
                material: material.name.clone(),
                field: "count",
                value: self.materials.len() as f64,
                expected: "fewer than 65535 materials",
            });
        }
        self.materials.push(material);
        self.rebuild_pairs();
        Ok(MaterialId(self.materials.len() as u16 - 1))
    }

    /// Adds validated materials in order, then builds the pair table once: O(n²) for n
    /// materials where n calls of [`MaterialTable::add`] rebuild it n times. Names must be
    /// unique; on an error the table is unchanged.
    pub fn add_all(&mut self, materials: impl IntoIterator<Item = Material>) -> Result<()> {
        let mut names: std::collections::HashSet<String> = self.materials.iter().map(|m| m.name.clone()).collect();
        let mut added = Vec::new();
        for material in materials {
            material.validate()?;
            if !names.insert(material.name.clone()) {
                return Err(CoreError::InvalidMaterial {
                    material: material.name.clone(),
                    field: "name",
                    value: f64::NAN,
                    expected: "a name not already in the table",
                });
            }
            if self.materials.len() + added.len() >= u16::MAX as usize {
                return Err(CoreError::InvalidMaterial {
                    material: material.name.clone(),
                    field: "count",
                    value: (self.materials.len() + added.len()) as f64,
                    expected: "fewer than 65535 materials",
                });
            }
            added.push(material);
        }
        self.materials.extend(added);
        self.rebuild_pairs();
        Ok(())
    }

    /// Sets an explicit pair value for materials `a` and `b` (both orders). Updates the two
    /// entries of the pair table in place (constant time, besides the override map).
    pub fn set_pair(&mut self, a: MaterialId, b: MaterialId, pair: PairMaterial) -> Result<()> {
        self.get(a)?;
        self.get(b)?;
        pair.validate(&format!("{}/{}", self.materials[a.0 as usize].name, self.materials[b.0 as usize].name))?;
        self.overrides.insert((a.0.min(b.0), a.0.max(b.0)), pair);
        let (ab, ba) = (self.pair_index(a, b), self.pair_index(b, a));
        self.pairs[ab] = pair;
        self.pairs[ba] = pair;
        Ok(())
    }

    /// The material with this id.
    pub fn get(&self, id: MaterialId) -> Result<&Material> {
        self.materials.get(id.0 as usize).ok_or_else(|| CoreError::unknown_material_id(BodyRef::New, id))
    }

    /// The id of the material with this name, if any.
    pub fn id(&self, name: &str) -> Option<MaterialId> {
        self.materials.iter().position(|m| m.name == name).map(|i| MaterialId(i as u16))
    }

    /// The id of the material with this name, or [`CoreError::UnknownMaterial`].
    pub fn require(&self, name: &str) -> Result<MaterialId> {
        self.id(name).ok_or_else(|| CoreError::UnknownMaterial { body: BodyRef::New, material: name.to_string() })
    }

    /// Number of materials.
    pub fn len(&self) -> usize {
        self.materials.len()
    }

    /// `true` when there is no material.
    pub fn is_empty(&self) -> bool {
        self.materials.is_empty()
    }

    /// All materials, in id order.
    pub fn materials(&self) -> &[Material] {
        &self.materials
    }

    /// The pair values for materials `a` and `b`. Panics only if an id is out of range,
    /// which [`World`](crate::World) rules out at insertion.
    #[inline]
    pub fn pair(&self, a: MaterialId, b: MaterialId) -> &PairMaterial {
        &self.pairs[a.0 as usize * self.materials.len() + b.0 as usize]
    }

    /// The position of the pair (a, b) in [`MaterialTable::pairs`], for solvers that resolve
    /// a contact's material pair once per neighbour-list rebuild instead of per step. Stays
    /// valid until a material is added (the pair values themselves may change).
    #[inline]
    pub fn pair_index(&self, a: MaterialId, b: MaterialId) -> usize {
        a.0 as usize * self.materials.len() + b.0 as usize
    }

    /// The pair values of every (a, b), row-major: `pairs()[pair_index(a, b)]` is
    /// `*pair(a, b)`.
    #[inline]
    pub fn pairs(&self) -> &[PairMaterial] {
        &self.pairs
    }

    fn rebuild_pairs(&mut self) {
        let n = self.materials.len();
        self.pairs.clear();
        for i in 0..n {
            for j in 0..n {
                let key = (i.min(j) as u16, i.max(j) as u16);
                let p = match self.overrides.get(&key) {
                    Some(p) => *p,
                    None => PairMaterial::mix(&self.materials[i], &self.materials[j]),
                };
                self.pairs.push(p);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn mixing_a_material_with_itself_gives_its_own_values() {
        let m =
            Material { friction: 0.4, restitution: 0.7, young_modulus: 2e8, poisson_ratio: 0.25, ..Default::default() };
        let p = PairMaterial::mix(&m, &m);
        assert_eq!(p.friction, 0.4);
        // sqrt(0.7*0.7) is 0.7 to one rounding.
        assert_relative_eq!(p.restitution, 0.7, max_relative = 1e-15);
        // E* for identical materials: E / (2 (1 - ν²)), exact algebra, round-off only.
        assert_relative_eq!(p.effective_young, 2e8 / (2.0 * (1.0 - 0.0625)), max_relative = 1e-14);
        // G* = E / (4 (2 - ν)(1 + ν)) for identical materials.
        assert_relative_eq!(p.effective_shear, 2e8 / (4.0 * 1.75 * 1.25), max_relative = 1e-14);
    }

    #[test]
    fn a_rigid_side_leaves_the_other_materials_elastic_values() {
        let particle = Material { young_modulus: 7e10, poisson_ratio: 0.22, ..Material::named("glass") };
        // A soft, compressible wall material that `rigid` must make irrelevant.
        let wall = Material { young_modulus: 1e3, poisson_ratio: 0.45, rigid: true, ..Material::named("wall") };
        for p in [PairMaterial::mix(&particle, &wall), PairMaterial::mix(&wall, &particle)] {
            // E* = E/(1 − ν²), G* = E/(2(2 − ν)(1 + ν)): one division each, round-off only.
            assert_relative_eq!(p.effective_young, 7e10 / (1.0 - 0.22 * 0.22), max_relative = 1e-15);
            assert_relative_eq!(p.effective_shear, 7e10 / (2.0 * 1.78 * 1.22), max_relative = 1e-15);
            assert_eq!(p.poisson_ratio, 0.22);
        }
        // Twice the E* of the particle against itself: the rigid wall's half of the
        // compliance is gone (exact algebra, round-off only).
        let same = PairMaterial::mix(&particle, &particle);
        assert_relative_eq!(
            PairMaterial::mix(&particle, &wall).effective_young,
            2.0 * same.effective_young,
            max_relative = 1e-15
        );
        assert!(PairMaterial::mix(&wall, &wall).effective_young.is_infinite());
    }

    #[test]
    fn overrides_win_over_mixing_in_both_orders() {
        let mut t = MaterialTable::new();
        let a = t.add(Material::named("glass")).unwrap();
        let b = t.add(Material { friction: 0.9, ..Material::named("steel") }).unwrap();
        assert_eq!(t.pair(a, b).friction, 0.5);
        let mut p = *t.pair(a, b);
        p.friction = 0.123;
        p.dynamic_friction = 0.1;
        t.set_pair(b, a, p).unwrap();
        assert_eq!(t.pair(a, b).friction, 0.123);
        assert_eq!(t.pair(b, a).friction, 0.123);
        assert_eq!(t.pair(a, a).friction, 0.5);
    }

    #[test]
    fn adding_all_at_once_equals_adding_one_by_one() {
        let ms: Vec<Material> =
            (0..5).map(|i| Material { friction: 0.1 * i as f64, ..Material::named(format!("m{i}")) }).collect();
        let mut one = MaterialTable::new();
        for m in &ms {
            one.add(m.clone()).unwrap();
        }
        let mut all = MaterialTable::new();
        all.add_all(ms.clone()).unwrap();
        assert_eq!(one.pairs(), all.pairs());
        // A duplicate name anywhere leaves the table as it was.
        let err = all.add_all([Material::named("new"), Material::named("m2")]).unwrap_err();
        assert!(matches!(err, CoreError::InvalidMaterial { field: "name", .. }));
        assert_eq!(all.len(), 5);
        assert_eq!(all.pairs().len(), 25);
    }

    #[test]
    fn invalid_materials_are_named() {
        let mut t = MaterialTable::new();
        let err = t.add(Material { restitution: 1.5, ..Material::named("rubber") }).unwrap_err();
        assert!(
            matches!(err, CoreError::InvalidMaterial { ref material, field: "restitution", .. } if material == "rubber")
        );
        let err = t.add(Material { density: -1.0, ..Material::named("x") }).unwrap_err();
        assert!(matches!(err, CoreError::InvalidMaterial { field: "density", .. }));
        let err = t.add(Material { cohesion_range: 1e-3, cohesion_force: 0.0, ..Material::named("y") }).unwrap_err();
        assert!(matches!(err, CoreError::InvalidMaterial { field: "cohesion_range", .. }));
        assert!(matches!(t.require("unobtainium"), Err(CoreError::UnknownMaterial { .. })));
        assert!(matches!(t.get(MaterialId(7)), Err(CoreError::UnknownMaterial { .. })));
    }
}
