//! What a new sphere must not overlap: the world's bodies near a feed's region, gathered
//! once per batch, with one exact test per kind of shape.
//!
//! - spheres: exact (centre distance against the sum of the radii), through a
//!   [`SphereGrid`];
//! - planes and cylinder walls: exact, through the core's contact geometry
//!   ([`sphere_plane`], [`sphere_cylinder`]) with a zero margin;
//! - custom walls with a surface (triangle-mesh walls): exact distance from the centre to
//!   each triangle near the region. A closed mesh wall's inside is not tested: a feed
//!   region must not reach into a solid obstacle;
//! - custom particles (polyhedra): conservative, their bounding sphere about the centre
//!   of mass (the farthest surface vertex);
//! - custom walls without a surface: conservative, their bounding box.

use crate::grid::{PlacedSphere, SphereGrid};
use glam::DVec3;
use granula_core::narrowphase::{sphere_cylinder, sphere_plane};
use granula_core::{Aabb, CylinderWall, DQuat, Shape, World};

/// The obstacles near one region, gathered from a world between two steps.
pub(crate) struct Obstacles {
    /// Spheres, the bounding spheres of custom particles, and the spheres placed so far in
    /// this batch.
    grid: SphereGrid,
    /// Plane walls: a point and the unit normal, world frame.
    planes: Vec<(DVec3, DVec3)>,
    /// Cylinder walls: centre, orientation and shape.
    cylinders: Vec<(DVec3, DQuat, CylinderWall)>,
    /// Triangles of custom walls near the region, world frame.
    triangles: Vec<[DVec3; 3]>,
    /// Boxes of custom walls without a surface.
    boxes: Vec<Aabb>,
}

/// `true` when two boxes share a point.
fn touch(a: &Aabb, b: &Aabb) -> bool {
    a.min.cmple(b.max).all() && b.min.cmple(a.max).all()
}

impl Obstacles {
    /// The bodies of `world` that a sphere of radius at most `r_max` placed inside `near`
    /// (a box around the feed's region) could touch.
    pub(crate) fn gather(world: &World, near: Aabb, r_max: f64) -> Self {
        let b = &world.bodies;
        let reach = Aabb { min: near.min - DVec3::splat(r_max), max: near.max + DVec3::splat(r_max) };
        let mut spheres = Vec::new();
        let mut o = Obstacles {
            grid: SphereGrid::new(1.0),
            planes: Vec::new(),
            cylinders: Vec::new(),
            triangles: Vec::new(),
            boxes: Vec::new(),
        };
        for i in 0..b.len() {
            let (x, q) = (b.position[i], b.orientation[i]);
            match &b.shape[i] {
                Shape::Sphere { radius } => {
                    if touch(&Aabb::around(x, DVec3::splat(*radius)), &reach) {
                        spheres.push(PlacedSphere { center: x, radius: *radius });
                    }
                }
                Shape::Plane { normal } => o.planes.push((x, q * *normal)),
                Shape::Cylinder(c) => o.cylinders.push((x, q, *c)),
                Shape::Custom(c) => match (c.is_wall(), c.surface()) {
                    (false, Some(m)) => {
                        let radius = m.vertices.iter().map(|v| v.length()).fold(0.0, f64::max);
                        if touch(&Aabb::around(x, DVec3::splat(radius)), &reach) {
                            spheres.push(PlacedSphere { center: x, radius });
                        }
                    }
                    (true, Some(m)) => {
                        for t in m.triangles {
                            let p = t.map(|k| x + q * m.vertices[k as usize]);
                            let tb = Aabb { min: p[0].min(p[1]).min(p[2]), max: p[0].max(p[1]).max(p[2]) };
                            if touch(&tb, &reach) {
                                o.triangles.push(p);
                            }
                        }
                    }
                    (_, None) => {
                        let bb = b.shape[i].aabb(x, q);
                        if touch(&bb, &reach) {
                            o.boxes.push(bb);
                        }
                    }
                },
            }
        }
        // The grid's cells must hold the largest diameter inserted or queried.
        let largest = spheres.iter().map(|s| s.radius).fold(r_max, f64::max);
        o.grid = SphereGrid::new(2.0 * largest);
        for s in spheres {
            o.grid.insert(s);
        }
        o
    }

    /// `true` when the sphere `s` overlaps no obstacle (touching is allowed).
    pub(crate) fn is_free(&self, s: &PlacedSphere) -> bool {
        if self.grid.deepest_overlap(s, 0.0).is_some() {
            return false;
        }
        if self.planes.iter().any(|&(p, n)| sphere_plane(p, n, s.center, s.radius, 0.0).is_some()) {
            return false;
        }
        // A degenerate geometry (the centre on the axis of a cylinder it overlaps) is an
        // overlap.
        let cylinder = |&(x, q, c): &(DVec3, DQuat, CylinderWall)| {
            !matches!(sphere_cylinder(x, q, &c, s.center, s.radius, 0.0), Ok(None))
        };
        if self.cylinders.iter().any(cylinder) {
            return false;
        }
        let r2 = s.radius * s.radius;
        if self.triangles.iter().any(|t| (closest_on_triangle(s.center, t) - s.center).length_squared() < r2) {
            return false;
        }
        let own = Aabb::around(s.center, DVec3::splat(s.radius));
        !self.boxes.iter().any(|b| touch(b, &own))
    }

    /// Adds a sphere just placed, so that the next ones of the batch avoid it.
    pub(crate) fn add(&mut self, s: PlacedSphere) {
        self.grid.insert(s);
    }
}

/// The point of triangle `t` nearest to `p`: the projection onto the triangle's plane when
/// it falls inside, else the nearest point of the nearest edge (a degenerate triangle is
/// its edges).
fn closest_on_triangle(p: DVec3, t: &[DVec3; 3]) -> DVec3 {
    let [a, b, c] = *t;
    let n = (b - a).cross(c - a);
    let nn = n.length_squared();
    if nn > 0.0 {
        let q = p - n * ((p - a).dot(n) / nn);
        // Inside when q is on the inner side of all three edges.
        let inside = [(a, b), (b, c), (c, a)].iter().all(|&(u, v)| (v - u).cross(q - u).dot(n) >= 0.0);
        if inside {
            return q;
        }
    }
    let on_edge = |u: DVec3, v: DVec3| {
        let e = v - u;
        let ee = e.length_squared();
        let s = if ee > 0.0 { ((p - u).dot(e) / ee).clamp(0.0, 1.0) } else { 0.0 };
        u + e * s
    };
    [on_edge(a, b), on_edge(b, c), on_edge(c, a)]
        .into_iter()
        .min_by(|x, y| (*x - p).length_squared().total_cmp(&(*y - p).length_squared()))
        .unwrap_or(a)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_point_of_a_triangle_is_inside_on_an_edge_or_a_vertex() {
        let t = [DVec3::ZERO, DVec3::X, DVec3::Y];
        // Above the inside: the projection.
        assert_eq!(closest_on_triangle(DVec3::new(0.25, 0.25, 2.0), &t), DVec3::new(0.25, 0.25, 0.0));
        // Beyond the hypotenuse: its nearest point (0.5, 0.5, 0).
        let q = closest_on_triangle(DVec3::new(1.0, 1.0, 0.0), &t);
        assert!((q - DVec3::new(0.5, 0.5, 0.0)).length() < 1e-15);
        // Beyond a corner: the vertex.
        assert_eq!(closest_on_triangle(DVec3::new(-1.0, -1.0, 3.0), &t), DVec3::ZERO);
    }
}
