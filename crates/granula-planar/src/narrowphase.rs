//! The overlap of a pair in body i's frame (x_i at the origin), dispatched on the shapes,
//! and the overlap of a body with a straight wall.

use crate::shape::Shape2;
use glam::DVec2;
use granula_polygons::{disc_disc, disc_polygon, half_plane_polygon, polygon_polygon, Overlap2, OverlapScratch, Pose2};

/// A body's angle with its cosine and sine, computed once per force evaluation.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Rotation {
    pub angle: f64,
    pub cos: f64,
    pub sin: f64,
}

impl Rotation {
    #[inline]
    pub(crate) fn new(angle: f64) -> Self {
        let (sin, cos) = angle.sin_cos();
        Rotation { angle, cos, sin }
    }
}

/// The overlap of body i (at the origin, turned by `angle_i`) and body j (at `separation`,
/// turned by `angle_j`), normal from i to j.
#[inline]
pub(crate) fn pair_overlap(
    shape_i: &Shape2,
    rot_i: Rotation,
    shape_j: &Shape2,
    separation: DVec2,
    rot_j: Rotation,
    scratch: &mut OverlapScratch,
) -> Option<Overlap2> {
    let pose_i = || Pose2::from_rotation(DVec2::ZERO, rot_i.cos, rot_i.sin);
    let pose_j = || Pose2::from_rotation(separation, rot_j.cos, rot_j.sin);
    match (shape_i, shape_j) {
        (Shape2::Disc { radius: ri }, Shape2::Disc { radius: rj }) => disc_disc(DVec2::ZERO, *ri, separation, *rj),
        (Shape2::Disc { radius }, Shape2::Polygon(p)) => disc_polygon(DVec2::ZERO, *radius, p, &pose_j(), scratch),
        (Shape2::Polygon(p), Shape2::Disc { radius }) => {
            disc_polygon(separation, *radius, p, &pose_i(), scratch).map(|o| Overlap2 { normal: -o.normal, ..o })
        }
        (Shape2::Polygon(a), Shape2::Polygon(b)) => polygon_polygon(a, &pose_i(), b, &pose_j(), scratch),
    }
}

/// The overlap of a straight wall through the origin with unit normal `normal` (pointing
/// to the free side; the wall is the half-plane behind) and a body at `position` turned
/// by `angle`; normal from the wall to the body.
#[inline]
pub(crate) fn wall_overlap(
    normal: DVec2,
    shape: &Shape2,
    position: DVec2,
    angle: f64,
    scratch: &mut OverlapScratch,
) -> Option<Overlap2> {
    match shape {
        Shape2::Disc { radius } => half_plane_disc(normal, position, *radius),
        Shape2::Polygon(p) => half_plane_polygon(DVec2::ZERO, normal, p, &Pose2::new(position, angle), scratch),
    }
}

/// The circular segment of a disc (centre `c`, radius r) behind the line through the
/// origin with normal n: with the centre at height d = c·n and cos α = d/r, area
/// r²(α − sin α cos α) and centroid ⅔ r³ sin³α / area from the centre along −n.
pub(crate) fn half_plane_disc(normal: DVec2, c: DVec2, r: f64) -> Option<Overlap2> {
    let d = c.dot(normal);
    if d >= r {
        return None;
    }
    let alpha = (d / r).clamp(-1.0, 1.0).acos();
    let (s, co) = alpha.sin_cos();
    let area = r * r * (alpha - s * co);
    if area.is_nan() || area <= 0.0 {
        return None;
    }
    let centroid = c - normal * (2.0 / 3.0 * r * r * r * s * s * s / area);
    let foot = c - normal * d;
    let across = DVec2::new(-normal.y, normal.x) * (r * s);
    Some(Overlap2 { area, centroid, normal, chord: Some([foot - across, foot + across]) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_disc_segment_matches_closed_form() {
        // Centre on the line: half the disc, centroid 4r/3π behind it.
        let o = half_plane_disc(DVec2::Y, DVec2::new(0.3, 0.0), 2.0).unwrap();
        assert!((o.area - 0.5 * std::f64::consts::PI * 4.0).abs() < 1e-12);
        assert!((o.centroid - DVec2::new(0.3, -8.0 / (3.0 * std::f64::consts::PI))).length() < 1e-12);
        assert!(half_plane_disc(DVec2::Y, DVec2::new(0.0, 2.0), 2.0).is_none());
    }
}
