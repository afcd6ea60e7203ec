//! Checks of the pair material values the non-smooth laws read.

use crate::error::NscdError;
use crate::local::NonSmoothLaw;
use granula_core::{MaterialId, MaterialTable, PairMaterial};

/// Checks one pair's values: friction coefficients finite and ≥ 0, and no cohesion range
/// without a cohesion force (d_C = E_C/F_C, 001 §1.8).
pub(crate) fn check_pair_material(pair: &PairMaterial, material1: &str, material2: &str) -> Result<(), NscdError> {
    for (param, value) in [
        ("friction", pair.friction),
        ("rolling_friction", pair.rolling_friction),
        ("torsion_friction", pair.torsion_friction),
    ] {
        if !(value.is_finite() && value >= 0.0) {
            return Err(NscdError::NegativeFriction {
                param,
                material1: material1.to_string(),
                material2: material2.to_string(),
                value,
            });
        }
    }
    if pair.cohesion_range > 0.0 && !(pair.cohesion_force > 0.0) {
        return Err(NscdError::CohesionRangeWithoutForce {
            material1: material1.to_string(),
            material2: material2.to_string(),
            range: pair.cohesion_range,
        });
    }
    Ok(())
}

/// Checks every pair of a table (n² pairs, n the number of materials: negligible per step).
pub fn check_materials(table: &MaterialTable) -> Result<(), NscdError> {
    let m = table.materials();
    for a in 0..m.len() {
        for b in a..m.len() {
            let pair = table.pair(MaterialId(a as u16), MaterialId(b as u16));
            check_pair_material(pair, &m[a].name, &m[b].name)?;
        }
    }
    Ok(())
}

/// Largest interaction range of `law` over the pair table (m).
pub(crate) fn max_range<L: NonSmoothLaw>(table: &MaterialTable, law: &L) -> f64 {
    let n = table.len();
    let mut r: f64 = 0.0;
    for a in 0..n {
        for b in 0..n {
            r = r.max(law.range(table.pair(MaterialId(a as u16), MaterialId(b as u16))));
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use granula_core::Material;

    #[test]
    fn bad_pair_values_give_named_errors() {
        let good = PairMaterial::mix(&Material::default(), &Material::default());
        let e = check_pair_material(&PairMaterial { friction: -0.1, ..good }, "a", "b").unwrap_err();
        assert!(matches!(e, NscdError::NegativeFriction { param: "friction", .. }), "{e}");
        let e = check_pair_material(&PairMaterial { rolling_friction: -1e-3, ..good }, "a", "b").unwrap_err();
        assert!(matches!(e, NscdError::NegativeFriction { param: "rolling_friction", .. }));
        let e = check_pair_material(&PairMaterial { cohesion_range: 1e-4, cohesion_force: 0.0, ..good }, "a", "b")
            .unwrap_err();
        assert!(matches!(e, NscdError::CohesionRangeWithoutForce { .. }), "{e}");
        assert!(e.to_string().contains("1e-4") || e.to_string().contains("0.0001"), "{e}");
    }
}
