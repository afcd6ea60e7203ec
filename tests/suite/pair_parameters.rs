//! A law's own per-material-pair parameters (`ContactLaw::Pair`): the MD solver computes
//! them once per pair of materials and hands each contact its pair's value; a missing
//! property stops the solver before any step with both materials named; a non-finite
//! property is refused by `Material::validate`.

use crate::custom_law;

use custom_law::{stiffness_materials, MaterialSpring};
use granula::core::{
    ContactForce, ContactKinematics, ContactLaw, CoreError, DVec3, Material, MaterialId, PairMaterial, PairParameters,
    Solver, SphereBuilder, World,
};
use granula::prelude::{BruteForce, Gear, MdConfig, MdError, MdSolver};

const R: f64 = 1e-3;
const OVERLAP: f64 = 1e-5;

/// Three pairs of touching spheres at rest, 10 cm apart, without gravity: soft-soft,
/// soft-hard and hard-hard, each overlapping by `OVERLAP` along z.
fn world(materials: (Material, Material)) -> World {
    let mut world = World::builder().gravity(DVec3::ZERO).material(materials.0).material(materials.1).build().unwrap();
    for (k, (m1, m2)) in [(0u16, 0u16), (0, 1), (1, 1)].into_iter().enumerate() {
        let x = 0.1 * k as f64;
        let below = SphereBuilder::new(R, DVec3::new(x, 0.0, 0.0)).material(MaterialId(m1));
        let above = SphereBuilder::new(R, DVec3::new(x, 0.0, 2.0 * R - OVERLAP)).material(MaterialId(m2));
        world.insert(below.build().unwrap()).unwrap();
        world.insert(above.build().unwrap()).unwrap();
    }
    // The overlaps are the set-up, not an insertion mistake.
    world.accept_overlaps();
    world
}

fn solver() -> MdSolver<MaterialSpring, Gear, BruteForce> {
    let config = MdConfig { skin: 1e-4, threads: Some(1), ..Default::default() };
    MdSolver::new(MaterialSpring, Gear::six(), BruteForce, config).unwrap()
}

#[test]
fn each_material_pair_sees_its_mixed_stiffness() {
    let mut world = world(stiffness_materials());
    let mut solver = solver();
    solver.publish_contacts(true);
    world.step(&mut solver, 1e-7).unwrap();
    let contacts = solver.contacts().expect("published");
    assert_eq!(contacts.len(), 3);
    // Series springs of 2e4 and 6e4 N/m: 1e4 (soft-soft), 1.5e4 (soft-hard), 3e4 (hard-hard).
    let mut seen = Vec::new();
    for c in contacts {
        let stiffness = |b: u32| {
            let id = world.bodies.material[b as usize];
            world.materials.get(id).unwrap().property("stiffness").unwrap()
        };
        let (k1, k2) = (stiffness(c.body1), stiffness(c.body2));
        let k = k1 * k2 / (k1 + k2);
        // F = k δ along the normal at the configuration of the force (the published gap).
        let expected = k * -c.gap * c.normal;
        assert!((c.force - expected).length() <= 1e-12 * expected.length(), "{} vs {expected}", c.force);
        seen.push(k);
    }
    seen.sort_by(f64::total_cmp);
    assert_eq!(seen, [1e4, 1.5e4, 3e4]);
}

#[test]
fn a_missing_property_names_the_material_and_the_property() {
    let (soft, _) = stiffness_materials();
    let mut world = world((soft, Material::named("plain")));
    let err = world.step(&mut solver(), 1e-7).unwrap_err();
    assert_eq!(world.step_count(), 0, "no step ran");
    let CoreError::Solver { source, .. } = &err else { panic!("not a solver error: {err}") };
    match source.downcast_ref::<MdError>() {
        // Row-major order: (soft, plain) is the first pair that fails.
        Some(MdError::PairParameters { material1, material2, reason }) => {
            assert_eq!((material1.as_str(), material2.as_str()), ("soft", "plain"));
            assert!(reason.contains("'plain'") && reason.contains("'stiffness'"), "{reason}");
        }
        other => panic!("expected MdError::PairParameters, got {other:?}"),
    }
    assert!(err.to_string().contains("'plain'") && err.to_string().contains("stiffness"), "{err}");
}

#[test]
fn non_finite_properties_are_refused() {
    for value in [f64::NAN, f64::INFINITY] {
        let m = Material::named("glue").with_property("stiffness", value);
        match m.validate() {
            Err(CoreError::InvalidProperty { material, property, .. }) => {
                assert_eq!((material.as_str(), property.as_str()), ("glue", "stiffness"));
            }
            other => panic!("expected InvalidProperty, got {other:?}"),
        }
        assert!(World::builder().material(m).build().is_err());
    }
    assert_eq!(Material::named("glue").with_property("stiffness", 1.0).property("stiffness"), Some(1.0));
}

/// A pair parameter taken from the built-in pair values: the pair's friction coefficient.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Friction(f64);

impl PairParameters for Friction {
    fn from_materials(_: &Material, _: &Material, mixed: &PairMaterial) -> Result<Self, String> {
        Ok(Friction(mixed.friction))
    }
}

/// A law whose force along the normal is its pair parameter, in newtons.
struct Echo;

impl ContactLaw for Echo {
    type History = ();
    type Pair = Friction;
    fn name(&self) -> String {
        "echo".into()
    }
    fn keeps_ledger(&self) -> bool {
        false
    }
    fn force(&self, k: &ContactKinematics<'_, Friction>, _: &mut ()) -> ContactForce {
        ContactForce { force: k.pair.0 * k.normal, ..Default::default() }
    }
}

#[test]
fn an_override_of_the_pair_values_recomputes_the_pair_parameters() {
    let mut world = world(stiffness_materials());
    let config = MdConfig { skin: 1e-4, threads: Some(1), ..Default::default() };
    let mut solver = MdSolver::new(Echo, Gear::six(), BruteForce, config).unwrap();
    solver.publish_contacts(true);
    world.step(&mut solver, 1e-9).unwrap();
    assert!(solver.contacts().expect("published").iter().all(|c| c.force.length() == 0.5), "the default friction");
    let (soft, hard) = (MaterialId(0), MaterialId(1));
    let pair = PairMaterial { friction: 0.125, dynamic_friction: 0.1, ..*world.materials.pair(soft, hard) };
    world.materials.set_pair(hard, soft, pair).unwrap();
    world.step(&mut solver, 1e-9).unwrap();
    let mut forces: Vec<f64> = solver.contacts().expect("published").iter().map(|c| c.force.length()).collect();
    forces.sort_by(f64::total_cmp);
    assert_eq!(forces, [0.125, 0.5, 0.5], "the soft-hard pair sees its override");
}
