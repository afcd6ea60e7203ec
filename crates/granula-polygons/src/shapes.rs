//! Built-in polygons: regular n-gons, rectangles and seeded random convex polygons.

use crate::error::{PolygonError, Result};
use crate::polygon::ConvexPolygon;
use glam::DVec2;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::f64::consts::TAU;

fn positive(name: &'static str, value: f64) -> Result<()> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(PolygonError::BadParameter { name, value, expected: "a finite positive number" })
    }
}

fn vertex_count(n: usize) -> Result<()> {
    if n >= 3 {
        Ok(())
    } else {
        Err(PolygonError::TooFewVertices { count: n })
    }
}

/// A regular polygon of `n` vertices on a circle of radius `circumradius`, the first
/// vertex on the +x axis.
pub fn regular(n: usize, circumradius: f64) -> Result<ConvexPolygon> {
    vertex_count(n)?;
    positive("circumradius", circumradius)?;
    let points: Vec<DVec2> = (0..n)
        .map(|k| {
            let (s, c) = (TAU * k as f64 / n as f64).sin_cos();
            DVec2::new(c, s) * circumradius
        })
        .collect();
    Ok(ConvexPolygon::from_vertices(&points)?.0)
}

/// A `width` × `height` rectangle with its sides along the body axes.
pub fn rectangle(width: f64, height: f64) -> Result<ConvexPolygon> {
    positive("width", width)?;
    positive("height", height)?;
    let (w, h) = (0.5 * width, 0.5 * height);
    let points = [DVec2::new(-w, -h), DVec2::new(w, -h), DVec2::new(w, h), DVec2::new(-w, h)];
    Ok(ConvexPolygon::from_vertices(&points)?.0)
}

/// A random convex polygon of `n` vertices, the same for the same `seed` on every
/// machine (ChaCha8, a value-stable generator): the vertices lie on a circle of radius
/// `radius` at angles 2πk/n jittered by up to ±0.4 of the spacing (so no two come
/// closer than 0.2 of it), and the outline is then stretched by `elongation` ≥ 1 along x
/// (an affine map keeps it convex). The particles of 002 are such irregular polygons with
/// a given number of vertices.
pub fn random_convex(n: usize, radius: f64, elongation: f64, seed: u64) -> Result<ConvexPolygon> {
    vertex_count(n)?;
    positive("radius", radius)?;
    if !(elongation.is_finite() && elongation >= 1.0) {
        return Err(PolygonError::BadParameter {
            name: "elongation",
            value: elongation,
            expected: "a finite number ≥ 1",
        });
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let spacing = TAU / n as f64;
    let turn: f64 = rng.random::<f64>() * TAU;
    let points: Vec<DVec2> = (0..n)
        .map(|k| {
            let jitter = (rng.random::<f64>() - 0.5) * 0.8 * spacing;
            let (s, c) = (turn + spacing * k as f64 + jitter).sin_cos();
            DVec2::new(c * elongation, s) * radius
        })
        .collect();
    Ok(ConvexPolygon::from_vertices(&points)?.0)
}
