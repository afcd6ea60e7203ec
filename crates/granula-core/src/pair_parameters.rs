//! A contact law's own per-material-pair parameters ([`PairParameters`]), computed once per
//! pair of materials from the materials' user properties, as LAMMPS' granular sub-models
//! carry their own mixed coefficients.

use crate::material::{Material, MaterialTable, PairMaterial};
use std::fmt::Debug;

/// Parameters a contact law keeps for each pair of materials, besides the built-in
/// [`PairMaterial`]: a law names its type as [`ContactLaw::Pair`](crate::ContactLaw::Pair),
/// the solver computes one value per ordered pair of materials (with the mixing rule the
/// implementation chooses) whenever the material table grows or its pair values change,
/// and the law reads its pair's value as [`ContactKinematics::pair`](crate::ContactKinematics::pair).
/// Nothing is computed per step. `()` is the parameter of the laws that need none.
///
/// # Example
///
/// A bond strength read from each material's `"bond_strength"` property and mixed by the
/// harmonic mean; a material without the property is an error naming it:
///
/// ```
/// use granula_core::{Material, PairMaterial, PairParameters};
///
/// #[derive(Clone, Copy, Debug, PartialEq)]
/// struct Bond {
///     strength: f64, // N
/// }
///
/// impl PairParameters for Bond {
///     fn from_materials(a: &Material, b: &Material, _mixed: &PairMaterial) -> Result<Self, String> {
///         let get = |m: &Material| m.property("bond_strength").ok_or("no property 'bond_strength'");
///         let (sa, sb) = (get(a)?, get(b)?);
///         Ok(Bond { strength: 2.0 * sa * sb / (sa + sb) })
///     }
/// }
///
/// let glue = Material::named("glue").with_property("bond_strength", 3.0);
/// let wax = Material::named("wax").with_property("bond_strength", 1.0);
/// let mixed = PairMaterial::mix(&glue, &wax);
/// assert_eq!(Bond::from_materials(&glue, &wax, &mixed), Ok(Bond { strength: 1.5 }));
/// assert!(Bond::from_materials(&glue, &Material::named("sand"), &mixed).is_err());
/// ```
pub trait PairParameters: Copy + Send + Sync + Debug + 'static {
    /// The value for a contact between a body of material `a` (body 1) and one of material
    /// `b` (body 2), whose built-in pair values are `mixed` (the mixing rule's, or an explicit
    /// override). The error is the reason (e.g. a missing or out-of-domain property); the
    /// solver reports it with both materials' names before any step runs.
    fn from_materials(a: &Material, b: &Material, mixed: &PairMaterial) -> Result<Self, String>;
}

impl PairParameters for () {
    #[inline]
    fn from_materials(_: &Material, _: &Material, _: &PairMaterial) -> Result<Self, String> {
        Ok(())
    }
}

/// A pair of materials whose [`PairParameters`] could not be computed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PairParameterError {
    /// Name of the first material of the pair.
    pub material1: String,
    /// Name of the second material of the pair.
    pub material2: String,
    /// The reason [`PairParameters::from_materials`] gave.
    pub reason: String,
}

impl MaterialTable {
    /// The parameters `P` of every ordered pair (a, b), aligned with
    /// [`MaterialTable::pairs`]: entry [`MaterialTable::pair_index`]`(a, b)` is
    /// `P::from_materials(a, b, pair(a, b))`. Clears `out` and fills it (no allocation when
    /// its capacity suffices); the first failing pair, in row-major order, is the error.
    pub fn pair_parameters_into<P: PairParameters>(&self, out: &mut Vec<P>) -> Result<(), PairParameterError> {
        let materials = self.materials();
        let n = materials.len();
        out.clear();
        out.reserve(n * n);
        for (a, ma) in materials.iter().enumerate() {
            for (b, mb) in materials.iter().enumerate() {
                let p = P::from_materials(ma, mb, &self.pairs()[a * n + b]).map_err(|reason| PairParameterError {
                    material1: ma.name.clone(),
                    material2: mb.name.clone(),
                    reason,
                })?;
                out.push(p);
            }
        }
        Ok(())
    }
}
