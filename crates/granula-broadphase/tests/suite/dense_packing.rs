//! G1 on the settled "dense" benchmark packing (1000 monodisperse spheres in a box with five
//! walls, `benches/data/dense_1000.xyzr.gz` of the workspace): the three backends and the
//! skin layer agree with brute force on a real contact network, not only on random boxes.

use flate2::read::GzDecoder;
use granula_broadphase::{BruteForce, LinkedCells, SweepAndPrune, VerletPairs};
use granula_core::prelude::*;
use std::io::Read;

/// Reads `# L=... H=...` then `x y z r` lines.
fn read_packing() -> (f64, Vec<(DVec3, f64)>) {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../benches/data/dense_1000.xyzr.gz");
    let mut text = String::new();
    GzDecoder::new(std::fs::File::open(path).expect("packing file")).read_to_string(&mut text).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    let l: f64 = header.split_whitespace().find_map(|w| w.strip_prefix("L=")).unwrap().parse().unwrap();
    let spheres = lines
        .filter(|s| !s.trim().is_empty())
        .map(|s| {
            let v: Vec<f64> = s.split_whitespace().map(|w| w.parse().unwrap()).collect();
            (DVec3::new(v[0], v[1], v[2]), v[3])
        })
        .collect();
    (l, spheres)
}

#[test]
fn backends_agree_on_the_dense_packing() {
    let (l, spheres) = read_packing();
    assert_eq!(spheres.len(), 1000);
    let mut w = World::builder().build().unwrap();
    for (c, r) in &spheres {
        w.insert(SphereBuilder::new(*r, *c).build().unwrap()).unwrap();
    }
    w.insert_open_box(DVec3::ZERO, l, l, MaterialId(0)).unwrap();
    // Candidates within 5 % of the radius (the margin an NSCD solver would use).
    let margin = 0.05 * spheres[0].1;
    let boxes: Vec<Aabb> = (0..w.bodies.len()).map(|i| w.bodies.aabb(i).inflated(0.5 * margin)).collect();
    let skip: Vec<bool> = (0..w.bodies.len()).map(|i| i >= 1000).collect();
    let mut oracle = Vec::new();
    BruteForce.find_pairs(&boxes, &skip, &mut oracle);
    // A settled packing: ~2 contacts per sphere (bench-data README), more box pairs since
    // boxes overlap at diagonal neighbours; the floor touches the bottom layer (≥ 100 of the
    // 1000 spheres in a 12 × 12 box of diameters).
    let per_sphere = oracle.len() as f64 / 1000.0;
    assert!(per_sphere > 2.0 && per_sphere < 15.0, "{per_sphere} pairs per sphere");
    let floor = 1000u32;
    assert!(oracle.iter().filter(|p| p.1 == floor).count() >= 100);
    let mut out = Vec::new();
    SweepAndPrune::new().find_pairs(&boxes, &skip, &mut out);
    assert_eq!(out, oracle);
    LinkedCells::new().find_pairs(&boxes, &skip, &mut out);
    assert_eq!(out, oracle);
    // The skin layer with zero skin lists exactly the same pairs.
    let mut list = VerletPairs::new(SweepAndPrune::new(), 0.0).unwrap().with_margin(margin).unwrap();
    assert!(list.update(&w.bodies));
    assert_eq!(list.pairs(), oracle.as_slice());
}
