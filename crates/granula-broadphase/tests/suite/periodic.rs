//! Pairs across periodic boundaries: every backend, through the periodic images, against
//! a brute-force oracle that tries every image explicitly, with unwrapped positions.

use crate::common::random_spheres;
use granula_broadphase::{BruteForce, LinkedCells, PeriodicImages, SweepAndPrune, VerletPairs};
use granula_core::{Aabb, Axis, Broadphase, DVec3, PeriodicDomain};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Every pair (i, j), i < j, whose boxes overlap under some translation by whole periods
/// (−5..=5 periods on each periodic axis: unwrapped positions below lie within two periods
/// of the range, so two bodies are less than five periods apart), without two skipped bodies.
fn oracle(boxes: &[Aabb], skip: &[bool], domain: &PeriodicDomain) -> Vec<(u32, u32)> {
    let l = |a: Axis| domain.period(a).map_or(0.0, |p| p.length());
    let range = |a: Axis| if domain.period(a).is_some() { -5..=5 } else { 0..=0 };
    let mut out = Vec::new();
    for i in 0..boxes.len() {
        for j in i + 1..boxes.len() {
            if skip[i] && skip[j] {
                continue;
            }
            let hit = range(Axis::X).any(|nx| {
                range(Axis::Y).any(|ny| {
                    range(Axis::Z).any(|nz| {
                        let t = DVec3::new(nx as f64 * l(Axis::X), ny as f64 * l(Axis::Y), nz as f64 * l(Axis::Z));
                        let b = Aabb { min: boxes[j].min + t, max: boxes[j].max + t };
                        boxes[i].overlaps(&b)
                    })
                })
            });
            if hit {
                out.push((i as u32, j as u32));
            }
        }
    }
    out
}

#[test]
fn images_find_exactly_the_pairs_of_the_oracle_on_every_backend() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for axes in [vec![Axis::X], vec![Axis::X, Axis::Z], vec![Axis::X, Axis::Y, Axis::Z]] {
        let (mut centres, radii, side) = random_spheres(&mut rng, 400, 2.0, 0.3);
        let mut domain = PeriodicDomain::default();
        for &a in &axes {
            domain = domain.with_axis(a, 0.0, side).unwrap();
        }
        // Unwrapped positions: bodies up to two periods out of the range.
        for c in &mut centres {
            for &a in &axes {
                c[a.index()] += side * rng.random_range(-2..=2) as f64;
            }
        }
        let mut boxes: Vec<Aabb> =
            centres.iter().zip(&radii).map(|(&c, &r)| Aabb::around(c, DVec3::splat(r))).collect();
        // A floor unbounded along x and y (a wall spanning the periodic axes) and two
        // skipped bodies.
        boxes.push(Aabb {
            min: DVec3::new(f64::NEG_INFINITY, f64::NEG_INFINITY, -1.0),
            max: DVec3::new(f64::INFINITY, f64::INFINITY, 0.002),
        });
        let mut skip = vec![false; boxes.len()];
        skip[3] = true;
        *skip.last_mut().unwrap() = true;
        let expected = oracle(&boxes, &skip, &domain);
        // Pairs across a boundary exist (else the test would not test the images).
        let direct = {
            let mut p = Vec::new();
            BruteForce.find_pairs(&boxes, &skip, &mut p);
            p
        };
        assert!(expected.len() > direct.len() + 10, "{} vs {}", expected.len(), direct.len());
        let backends: [Box<dyn Broadphase>; 3] =
            [Box::new(BruteForce), Box::new(SweepAndPrune::new()), Box::new(LinkedCells::new())];
        for mut backend in backends {
            let mut images = PeriodicImages::new(domain);
            let mut pairs = Vec::new();
            images.find_pairs(backend.as_mut(), &boxes, &skip, &mut pairs);
            assert_eq!(pairs, expected, "{} on axes {axes:?}", backend.name());
            assert!(images.images() > 0);
        }
        // The skin layer with the same domain lists them at its rebuild (zero skin and
        // margin: the same boxes).
        let mut verlet = VerletPairs::new(LinkedCells::new(), 0.0).unwrap();
        verlet.set_periodic(domain);
        assert!(verlet.update_boxes(&boxes, &skip));
        assert_eq!(verlet.pairs(), &expected[..]);
    }
}
