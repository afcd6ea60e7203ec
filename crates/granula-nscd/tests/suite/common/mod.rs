//! Scenes shared by the integration tests of the contact-dynamics solver.

use granula_core::{DVec3, Material, MaterialId, SphereBuilder, World};

/// A 3×3×6 column of touching spheres (radius 5 mm) on the floor of a box, at rest.
pub fn column() -> World {
    column_of(Material { friction: 0.5, ..Material::named("m") })
}

/// [`column`] with the material `material` for the spheres and the box.
pub fn column_of(material: Material) -> World {
    let mut w = World::builder().material(material).build().unwrap();
    let r = 0.005;
    w.insert_open_box(DVec3::ZERO, 6.0 * r, 6.0 * r, MaterialId(0)).unwrap();
    for k in 0..6 {
        for j in 0..3 {
            for i in 0..3 {
                let c = DVec3::new(r * (1.0 + 2.0 * i as f64), r * (1.0 + 2.0 * j as f64), r * (1.0 + 2.0 * k as f64));
                w.insert(SphereBuilder::new(r, c).build().unwrap()).unwrap();
            }
        }
    }
    w
}
