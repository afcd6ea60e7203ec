//! Built-in shapes: boxes, the five regular solids, prisms, the non-convex L-block of
//! 003 §6, seeded random convex polyhedra and icospheres. All are returned in their
//! centre-of-mass frame with the axes of their usual construction (symmetric solids are
//! then also in principal axes).

use crate::error::{PolyError, Result};
use crate::hull::convex_hull;
use crate::polyhedron::{BodyFrame, Polyhedron};
use granula_core::math::DVec3;
use std::collections::HashMap;

/// A triangle mesh: vertices and counter-clockwise faces.
pub type Mesh = (Vec<DVec3>, Vec<[u32; 3]>);

/// Most sides of a [`prism`]: its cap is a fan of `sides − 2` triangles from one corner,
/// whose thinnest one is degenerate (relative area below 1e-12) from about 3·10⁴ sides on;
/// 10⁴ sides are far more than a particle shape needs, and the bound keeps a mistyped count
/// from allocating gigabytes before the mesh checks refuse it.
pub const MAX_PRISM_SIDES: u32 = 10_000;

/// Most hull points of a [`random_convex`] polyhedron: the hull costs O(points × faces),
/// and a particle shape has tens to hundreds of points; the bound keeps a mistyped count
/// from allocating gigabytes or running for hours.
pub const MAX_RANDOM_POINTS: usize = 100_000;

/// The golden ratio φ = (1 + √5)/2.
const PHI: f64 = 1.618_033_988_749_895;

fn positive(name: &'static str, value: f64) -> Result<f64> {
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(PolyError::BadParameter { name, value, expected: "finite and > 0" })
    }
}

fn hull_shape(points: &[DVec3]) -> Result<Polyhedron> {
    let (v, f) = convex_hull(points)?;
    Ok(Polyhedron::from_mesh(v, f, BodyFrame::CentreOfMass)?.0)
}

/// The convex hull of any point cloud (at least four points, not all in one plane), in its
/// centre-of-mass frame; points inside the hull or on its faces are dropped.
pub fn convex_hull_of(points: &[DVec3]) -> Result<Polyhedron> {
    hull_shape(points)
}

/// A box with these half extents (12 triangles).
pub fn cuboid(half_extents: DVec3) -> Result<Polyhedron> {
    for k in 0..3 {
        positive("half extent", half_extents[k])?;
    }
    let corners: Vec<DVec3> =
        (0..8).map(|i| DVec3::new(sign(i & 1), sign(i & 2), sign(i & 4)) * half_extents).collect();
    hull_shape(&corners)
}

fn sign(bit: usize) -> f64 {
    if bit == 0 {
        -1.0
    } else {
        1.0
    }
}

/// A cube of this edge length.
pub fn cube(edge: f64) -> Result<Polyhedron> {
    cuboid(DVec3::splat(0.5 * positive("edge", edge)?))
}

/// The regular tetrahedron of this edge length (4 faces).
pub fn tetrahedron(edge: f64) -> Result<Polyhedron> {
    let s = positive("edge", edge)? / (2.0 * 2f64.sqrt());
    let p = [
        DVec3::new(1.0, 1.0, 1.0),
        DVec3::new(1.0, -1.0, -1.0),
        DVec3::new(-1.0, 1.0, -1.0),
        DVec3::new(-1.0, -1.0, 1.0),
    ];
    hull_shape(&p.map(|v| v * s))
}

/// The regular octahedron of this edge length (8 faces).
pub fn octahedron(edge: f64) -> Result<Polyhedron> {
    let s = positive("edge", edge)? / 2f64.sqrt();
    let p = [DVec3::X, -DVec3::X, DVec3::Y, -DVec3::Y, DVec3::Z, -DVec3::Z];
    hull_shape(&p.map(|v| v * s))
}

/// Corners of the icosahedron of edge 2: cyclic permutations of (0, ±1, ±φ).
fn icosahedron_points() -> Vec<DVec3> {
    let mut p = Vec::with_capacity(12);
    for a in [-1.0, 1.0] {
        for b in [-PHI, PHI] {
            p.extend([DVec3::new(0.0, a, b), DVec3::new(a, b, 0.0), DVec3::new(b, 0.0, a)]);
        }
    }
    p
}

/// The regular icosahedron of this edge length (20 faces).
pub fn icosahedron(edge: f64) -> Result<Polyhedron> {
    let s = 0.5 * positive("edge", edge)?;
    hull_shape(&icosahedron_points().into_iter().map(|v| v * s).collect::<Vec<_>>())
}

/// The regular dodecahedron of this edge length (12 pentagons, 36 triangles): corners
/// (±1, ±1, ±1) and the cyclic permutations of (0, ±1/φ, ±φ), edge 2/φ.
pub fn dodecahedron(edge: f64) -> Result<Polyhedron> {
    let s = positive("edge", edge)? * PHI / 2.0;
    let mut p: Vec<DVec3> = (0..8).map(|i| DVec3::new(sign(i & 1), sign(i & 2), sign(i & 4))).collect();
    for a in [-1.0 / PHI, 1.0 / PHI] {
        for b in [-PHI, PHI] {
            p.extend([DVec3::new(0.0, a, b), DVec3::new(a, b, 0.0), DVec3::new(b, 0.0, a)]);
        }
    }
    hull_shape(&p.into_iter().map(|v| v * s).collect::<Vec<_>>())
}

/// The closed mesh of a polygon (counter-clockwise in the xy plane, star-shaped with
/// respect to its first vertex) extruded along z from 0 to `height`.
pub fn extrusion_mesh(polygon: &[(f64, f64)], height: f64) -> Mesh {
    let n = polygon.len() as u32;
    let mut v: Vec<DVec3> = polygon.iter().map(|&(x, y)| DVec3::new(x, y, 0.0)).collect();
    v.extend(polygon.iter().map(|&(x, y)| DVec3::new(x, y, height)));
    let mut f = Vec::with_capacity(4 * polygon.len());
    for i in 1..n - 1 {
        f.push([0, i + 1, i]);
        f.push([n, n + i, n + i + 1]);
    }
    for i in 0..n {
        let j = (i + 1) % n;
        f.push([i, j, n + j]);
        f.push([i, n + j, n + i]);
    }
    (v, f)
}

/// A right prism on a regular polygon of `sides` sides (3 to [`MAX_PRISM_SIDES`])
/// inscribed in a circle of `circumradius`, of this `height` along z.
pub fn prism(sides: u32, circumradius: f64, height: f64) -> Result<Polyhedron> {
    if !(3..=MAX_PRISM_SIDES).contains(&sides) {
        return Err(PolyError::BadParameter { name: "sides", value: sides as f64, expected: "3 to 10000" });
    }
    let r = positive("circumradius", circumradius)?;
    let poly: Vec<(f64, f64)> = (0..sides)
        .map(|k| {
            let a = 2.0 * std::f64::consts::PI * k as f64 / sides as f64;
            (r * a.cos(), r * a.sin())
        })
        .collect();
    let (v, f) = extrusion_mesh(&poly, positive("height", height)?);
    Ok(Polyhedron::from_mesh(v, f, BodyFrame::CentreOfMass)?.0)
}

/// The L-shaped non-convex block in its input coordinates: the L of unit squares
/// `[0,2]×[0,1] ∪ [0,1]×[1,2]` scaled by `size`, extruded to thickness `size`.
/// Volume 3 size³ (003 §6 uses V = 0.001 m³: size = (0.001/3)^⅓).
pub fn l_block_mesh(size: f64) -> Mesh {
    let l = [(0.0, 0.0), (2.0, 0.0), (2.0, 1.0), (1.0, 1.0), (1.0, 2.0), (0.0, 2.0)];
    let poly: Vec<(f64, f64)> = l.iter().map(|&(x, y)| (x * size, y * size)).collect();
    extrusion_mesh(&poly, size)
}

/// The L-block of [`l_block_mesh`] in its centre-of-mass frame (axes of the input, so the
/// inertia tensor has a product of inertia I_xy; build it with
/// [`BodyFrame::PrincipalAxes`] through [`Polyhedron::from_mesh`] for a diagonal one).
pub fn l_block(size: f64) -> Result<Polyhedron> {
    let (v, f) = l_block_mesh(positive("size", size)?);
    Ok(Polyhedron::from_mesh(v, f, BodyFrame::CentreOfMass)?.0)
}

/// A random convex polyhedron: the hull of `points` points (4 to [`MAX_RANDOM_POINTS`])
/// drawn from a seeded generator,
/// directions uniform on the sphere and radii uniform in [0.7, 1] × `radius`. The same seed
/// gives the same shape on every platform (SplitMix64, no external generator).
pub fn random_convex(points: usize, radius: f64, seed: u64) -> Result<Polyhedron> {
    let r = positive("radius", radius)?;
    if !(4..=MAX_RANDOM_POINTS).contains(&points) {
        return Err(PolyError::BadParameter { name: "points", value: points as f64, expected: "4 to 100000" });
    }
    let mut state = seed;
    let mut uniform = move || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    };
    let cloud: Vec<DVec3> = (0..points)
        .map(|_| {
            let z = 2.0 * uniform() - 1.0;
            let phi = 2.0 * std::f64::consts::PI * uniform();
            let s = (1.0 - z * z).sqrt();
            DVec3::new(s * phi.cos(), s * phi.sin(), z) * r * (0.7 + 0.3 * uniform())
        })
        .collect();
    hull_shape(&cloud)
}

/// An icosphere: the icosahedron with each face split `subdivisions` times into four,
/// projected on the sphere of `radius` (20·4ˢ faces; s = 3 gives 1280). Its volume tends to
/// (4/3)πr³ from below.
pub fn icosphere(radius: f64, subdivisions: u32) -> Result<Polyhedron> {
    let r = positive("radius", radius)?;
    if subdivisions > 6 {
        return Err(PolyError::BadParameter {
            name: "subdivisions",
            value: subdivisions as f64,
            expected: "at most 6",
        });
    }
    let (mut v, mut f) = convex_hull(&icosahedron_points())?;
    for _ in 0..subdivisions {
        let mut mid: HashMap<(u32, u32), u32> = HashMap::new();
        let mut next = Vec::with_capacity(4 * f.len());
        for t in &f {
            let mut m = [0u32; 3];
            for k in 0..3 {
                let (a, b) = (t[k].min(t[(k + 1) % 3]), t[k].max(t[(k + 1) % 3]));
                m[k] = *mid.entry((a, b)).or_insert_with(|| {
                    v.push(0.5 * (v[a as usize] + v[b as usize]));
                    v.len() as u32 - 1
                });
            }
            next.extend([[t[0], m[0], m[2]], [t[1], m[1], m[0]], [t[2], m[2], m[1]], m]);
        }
        f = next;
    }
    let v = v.into_iter().map(|p| p.normalize() * r).collect();
    Ok(Polyhedron::from_mesh(v, f, BodyFrame::CentreOfMass)?.0)
}
