//! Contact points with signed gaps for contact dynamics: rigid bodies do not overlap (or
//! barely), so a contact is a point, a unit normal and the gap g along it (negative when
//! the outlines overlap), found while the bodies are still apart, within an alert
//! distance (004 §2.3.3.2, the "managing interactions" of the intermediate configuration).
//!
//! - disc–disc: the line of centres, g = |d| − rᵢ − rⱼ;
//! - disc–polygon: the nearest point of the outline to the centre (or, for a centre inside,
//!   the face of least penetration), g = distance − r;
//! - polygon–polygon: the separating axis of largest separation among the faces of both
//!   (in 2D a face normal always separates two disjoint convex polygons), the face giving
//!   it is the reference face, the face of the other polygon most opposed to it is the
//!   incident face, and the incident face clipped to the reference face's extent gives at
//!   most **two** points: the ends of the common part of the two faces when they are
//!   parallel (a square resting flat is held at both corners and cannot rock), the
//!   incident corner otherwise (its far end has a gap beyond the alert distance);
//! - body–wall: the deepest vertex of a polygon and the deeper of its two neighbours (the
//!   two ends of a face lying on the wall), the nearest point of a disc.
//!
//! Each point is placed half-way between the two outlines along the normal, so the branch
//! vectors of both bodies end at the same point whichever body is the reference.
//!
//! The polygon cases are `granula_polygons::points`, shared with the core's planar world
//! (its contact-dynamics generators); the disc cases are here.

use glam::DVec2;
pub(crate) use granula_polygons::points::{
    half_plane_polygon as wall_polygon, polygon_disc, polygon_polygon, ContactPoint, ContactPoints,
};

/// Two discs: body i at the origin (radius `ri`), body j at `d` (radius `rj`).
pub(crate) fn disc_disc(ri: f64, d: DVec2, rj: f64, alert: f64) -> ContactPoints {
    let mut out = ContactPoints::default();
    let dist = d.length();
    let gap = dist - ri - rj;
    if gap > alert || dist == 0.0 {
        return out;
    }
    let normal = d / dist;
    out.push(ContactPoint { point: normal * (ri + 0.5 * gap), normal, gap });
    out
}

/// A body against a straight wall through the origin with unit normal `normal` (to the
/// free side): a disc of radius `r` centred at `c`, or a polygon by its world-frame
/// vertices (relative to the wall point). Points relative to the wall point, normal from
/// the wall to the body.
pub(crate) fn wall_disc(normal: DVec2, c: DVec2, r: f64, alert: f64) -> ContactPoints {
    let mut out = ContactPoints::default();
    let gap = c.dot(normal) - r;
    if gap <= alert {
        out.push(ContactPoint { point: c - normal * (r + 0.5 * gap), normal, gap });
    }
    out
}
