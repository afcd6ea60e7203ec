//! Optional sub-models: `Option<M>` is itself a rolling, twisting or cohesion sub-model,
//! acting as `M` when `Some` and as the corresponding `No…` model when `None`.
//!
//! One law type then covers every combination chosen at run time (a scene file that turns
//! rolling resistance on and cohesion off, say) without compiling a law per combination;
//! the cost of a `None` is one well-predicted branch per contact. A `None` model keeps its
//! history at the default value and reports the `No…` model's name, so a law with every
//! optional model off is named, and behaves, like the law without them.

use crate::error::LawError;
use crate::submodel::{
    CohesionModel, CohesionOut, NoCohesion, NoRolling, NoTwisting, NormalState, ResistanceOut, RollingModel,
    TwistingModel,
};
use granula_core::{ContactKinematics, PairMaterial};

impl<R: RollingModel> RollingModel for Option<R> {
    type History = R::History;
    fn name(&self) -> &'static str {
        self.as_ref().map_or(NoRolling.name(), R::name)
    }
    #[inline(always)]
    fn rolling(&self, k: &ContactKinematics<'_>, normal: &NormalState, h: &mut Self::History) -> ResistanceOut {
        match self {
            Some(r) => r.rolling(k, normal, h),
            None => ResistanceOut::default(),
        }
    }
    fn check_pair(&self, material: &PairMaterial, r_eff: f64) -> Result<(), LawError> {
        self.as_ref().map_or(Ok(()), |r| r.check_pair(material, r_eff))
    }
}

impl<W: TwistingModel> TwistingModel for Option<W> {
    type History = W::History;
    fn name(&self) -> &'static str {
        self.as_ref().map_or(NoTwisting.name(), W::name)
    }
    #[inline(always)]
    fn twisting(&self, k: &ContactKinematics<'_>, normal: &NormalState, h: &mut Self::History) -> ResistanceOut {
        match self {
            Some(w) => w.twisting(k, normal, h),
            None => ResistanceOut::default(),
        }
    }
    fn check_pair(&self, material: &PairMaterial, r_eff: f64) -> Result<(), LawError> {
        self.as_ref().map_or(Ok(()), |w| w.check_pair(material, r_eff))
    }
}

impl<C: CohesionModel> CohesionModel for Option<C> {
    fn name(&self) -> &'static str {
        self.as_ref().map_or(NoCohesion.name(), C::name)
    }
    fn range(&self, material: &PairMaterial) -> f64 {
        self.as_ref().map_or(0.0, |c| c.range(material))
    }
    #[inline(always)]
    fn cohesion(&self, k: &ContactKinematics<'_>) -> CohesionOut {
        match self {
            Some(c) => c.cohesion(k),
            None => CohesionOut::default(),
        }
    }
    fn check_pair(&self, material: &PairMaterial) -> Result<(), LawError> {
        self.as_ref().map_or(Ok(()), |c| c.check_pair(material))
    }
}

#[cfg(test)]
mod tests {
    use crate::{hertz_mindlin, ConstantCohesion, RollingResistance, TwistingResistance};
    use glam::DVec3;
    use granula_core::{ContactKinematics, ContactLaw, Material, MaterialTable, PairMaterial};

    /// Force, couple and stored energy of `law` along `path` (overlaps), one history.
    fn trace<L: ContactLaw<Pair = ()>>(law: &L, pair: &PairMaterial, path: &[f64]) -> Vec<(DVec3, DVec3, f64)> {
        let mut h = L::History::default();
        path.iter()
            .map(|&overlap| {
                let n = DVec3::new(0.6, 0.0, 0.8);
                let k = ContactKinematics {
                    normal: n,
                    overlap,
                    relative_velocity: DVec3::new(0.01, -0.02, -0.005),
                    relative_angular_velocity: DVec3::new(3.0, -1.0, 2.0),
                    branch1: n * 1e-3,
                    branch2: -n * 1e-3,
                    effective_radius: 5e-4,
                    effective_mass: 5e-6,
                    material: pair,
                    pair: &(),
                    dt: 1e-6,
                    rotation1: DVec3::ZERO,
                    rotation2: DVec3::ZERO,
                    overlap_volume: 0.0,
                };
                let f = law.force(&k, &mut h);
                (f.force, f.torque, f.stored)
            })
            .collect()
    }

    /// `Some` models act exactly as the models themselves and `None` as their absence: the
    /// traces are bit-identical to the laws built statically with the same models.
    #[test]
    fn optional_models_match_the_laws_built_with_or_without_them() {
        let mut table = MaterialTable::new();
        let m = table
            .add(Material {
                rolling_friction: 0.05,
                torsion_friction: 0.03,
                cohesion_force: 1e-3,
                cohesion_range: 2e-5,
                ..Material::default()
            })
            .unwrap();
        let pair = *table.pair(m, m);
        // Closing into contact, held, then pulled apart into the cohesion range.
        let path: Vec<f64> = (0..60).map(|s| 1e-6 * (s as f64 / 10.0) - 1e-5 * (s as f64 / 40.0).powi(4)).collect();
        assert!(path.iter().any(|&d| d > 0.0) && path.iter().any(|&d| d < 0.0 && d > -2e-5));
        let optional = |r: bool, w: bool, c: bool| {
            hertz_mindlin()
                .with_rolling(r.then(RollingResistance::from_material))
                .with_twisting(w.then(TwistingResistance::from_material))
                .with_cohesion(c.then(ConstantCohesion::from_material))
        };
        let none = optional(false, false, false);
        assert_eq!(trace(&none, &pair, &path), trace(&hertz_mindlin(), &pair, &path));
        assert_eq!(none.name(), hertz_mindlin().name());
        let rolling = hertz_mindlin().with_rolling(RollingResistance::from_material());
        assert_eq!(trace(&optional(true, false, false), &pair, &path), trace(&rolling, &pair, &path));
        let twisting = hertz_mindlin().with_twisting(TwistingResistance::from_material());
        assert_eq!(trace(&optional(false, true, false), &pair, &path), trace(&twisting, &pair, &path));
        let cohesion = hertz_mindlin().with_cohesion(ConstantCohesion::from_material());
        assert_eq!(trace(&optional(false, false, true), &pair, &path), trace(&cohesion, &pair, &path));
        assert_eq!(optional(false, false, true).range(&pair), cohesion.range(&pair));
        let all =
            rolling.with_twisting(TwistingResistance::from_material()).with_cohesion(ConstantCohesion::from_material());
        assert_eq!(trace(&optional(true, true, true), &pair, &path), trace(&all, &pair, &path));
        assert_eq!(optional(true, true, true).name(), all.name());
        // Each model does act on this path, so the comparisons above are not vacuous.
        let plain = trace(&hertz_mindlin(), &pair, &path);
        for law in [trace(&rolling, &pair, &path), trace(&twisting, &pair, &path), trace(&cohesion, &pair, &path)] {
            assert_ne!(law, plain);
        }
    }
}
