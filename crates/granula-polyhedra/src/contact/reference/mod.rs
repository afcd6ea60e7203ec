//! The point search as it was before the edge pass read per-vertex codes, kept verbatim
//! (test builds only) as the reference that the current search must match bit for bit:
//! `pair_points` below with its vertex pass (`vertex.rs`) and edge pass (`edge.rs`). Only
//! the thread's scratch buffers are replaced by buffers allocated per call.

mod edge;
mod vertex;

use super::{geometry, FeatureKey, Method, Relative, CONVEX_PATH_MAX_PLANES};
use crate::polyhedron::{Polyhedron, Pose};
use granula_core::math::DVec3;
use granula_core::ContactGeometry;

/// Buffers of one call of [`pair_points`].
#[derive(Default)]
struct Scratch {
    a_in_b: Vec<DVec3>,
    b_in_a: Vec<DVec3>,
    depth: [Vec<Option<f64>>; 2],
    beyond: [Vec<u32>; 2],
    edges: [Vec<edge::MeetingEdge>; 2],
}

/// R* = (1/R₁ + 1/R₂)⁻¹ of two polyhedra's equivalent radii.
fn effective_radius(a: &Polyhedron, b: &Polyhedron) -> f64 {
    let (ra, rb) = (a.equivalent_radius(), b.equivalent_radius());
    ra * rb / (ra + rb)
}

/// The points of a pair that the centre-line test did not prove apart
/// ([`polyhedron_polyhedron_with`] after [`apart_on_centre_line`]).
pub(crate) fn pair_points(
    method: Method,
    a: &Polyhedron,
    pose_a: &Pose,
    b: &Polyhedron,
    pose_b: &Pose,
    margin: f64,
    out: &mut Vec<ContactGeometry>,
) -> usize {
    let before = out.len();
    let convex = match method {
        Method::General => false,
        Method::Convex => true,
        Method::Auto => [a, b].iter().all(|p| p.is_convex() && p.planes().len() <= CONVEX_PATH_MAX_PLANES),
    };
    let rel_ab = Relative::between(pose_a, pose_b);
    let rel_ba = rel_ab.inverse();
    let facing = if convex { [facing_plane(a, &rel_ba), facing_plane(b, &rel_ab)] } else { [0, 0] };
    if convex
        && (plane_separates(a, facing[0], b, &rel_ba, margin) || plane_separates(b, facing[1], a, &rel_ab, margin))
    {
        return 0;
    }
    // Deep interpenetration (the centre of one body inside the other, e.g. two bodies
    // placed at the same spot): the vertex and edge contacts may all lie on the surfaces
    // with no depth, or point every way. One contact along the axis of least penetration
    // instead (see `least_penetration`).
    if centre_inside(b, rel_ab.shift, convex) || centre_inside(a, rel_ba.shift, convex) {
        let (n, depth, mid) = least_penetration(a, &rel_ab, b);
        let normal = pose_b.orientation * n;
        let point = pose_b.to_world(mid);
        out.push(geometry(point, normal, -depth, pose_a, pose_b, effective_radius(a, b), FeatureKey::Single));
        return 1;
    }
    // The thread's buffers, taken out for the call: nothing is allocated per pair once they
    // have grown to the largest meshes seen.
    let mut scratch = Scratch::default();
    scratch.a_in_b.clear();
    scratch.a_in_b.extend(a.vertices().iter().map(|v| rel_ab.apply(*v)));
    scratch.b_in_a.clear();
    scratch.b_in_a.extend(b.vertices().iter().map(|v| rel_ba.apply(*v)));
    let pair = vertex::Pair {
        a,
        pose_a,
        b,
        pose_b,
        margin,
        convex,
        r: effective_radius(a, b),
        a_in_b: &scratch.a_in_b,
        b_in_a: &scratch.b_in_a,
        rel_ab,
        rel_ba,
        facing,
    };
    pair.vertices(&mut scratch.depth, &mut scratch.beyond, out);
    if convex && out.len() == before && {
        let slack = margin.max(0.0) + SEPARATION_SLACK * (a.bounding_radius() + b.bounding_radius());
        face_separates(b, &scratch.a_in_b, &scratch.beyond[0], slack)
            || face_separates(a, &scratch.b_in_a, &scratch.beyond[1], slack)
    } {
        return 0;
    }
    edge::edge_contacts(&pair, &scratch.depth, &scratch.beyond, &mut scratch.edges, out);
    out.len() - before
}

/// Relative slack (times the sum of the bounding radii) by which [`face_separates`] asks
/// the vertices to lie beyond a plane on top of the margin: a million times the round-off
/// of a plane distance (about 1e-16 of the radius), so that the edge pass's clipping of a
/// segment by that plane (which divides the two ends' distances) cannot find it inside by
/// round-off, and still a billionth of the bodies' size, far below any physical gap.
const SEPARATION_SLACK: f64 = 1e-10;

/// `true` when every vertex of `src` (mapped into `dst`'s frame) lies beyond one face plane
/// of `dst` by more than `slack`, trying the planes that rejected `src`'s vertices in the
/// vertex pass (`beyond`, [`vertex::NO_PLANE`] for none): a plane of a convex body with the
/// other body wholly beyond it separates the two (the separating-axis theorem's face
/// axes), so no edge of `src` meets `dst` and the pair has no edge crossing. Each distinct
/// plane is tried once; a plane fails at its first vertex on the near side.
fn face_separates(dst: &Polyhedron, mapped: &[DVec3], beyond: &[u32], slack: f64) -> bool {
    // Planes tried so far (indices below 64; others are tried again, which only costs time).
    let mut tried = 0u64;
    for &k in beyond {
        if k == vertex::NO_PLANE {
            continue;
        }
        if k < 64 {
            if tried & (1 << k) != 0 {
                continue;
            }
            tried |= 1 << k;
        }
        let (n, d) = dst.planes()[k as usize];
        if mapped.iter().all(|p| n.dot(*p) - d > slack) {
            return true;
        }
    }
    false
}

/// The face plane of `dst` that faces `src` most directly: its normal closest to the
/// direction of `src`'s centre.
fn facing_plane(dst: &Polyhedron, src_in_dst: &Relative) -> usize {
    let centre = src_in_dst.shift;
    let (mut best, mut best_dot) = (0, f64::NEG_INFINITY);
    for (k, (n, _)) in dst.planes().iter().enumerate() {
        let d = n.dot(centre);
        if d > best_dot {
            (best, best_dot) = (k, d);
        }
    }
    best
}

/// Quick rejection for convex pairs: every vertex of `src` beyond plane `k` of `dst` by
/// more than `margin`. O(V); a pair it does not reject may still be apart (separated by
/// another plane, or by an edge–edge axis).
fn plane_separates(dst: &Polyhedron, k: usize, src: &Polyhedron, src_in_dst: &Relative, margin: f64) -> bool {
    let (n, d) = dst.planes()[k];
    let n_src = src_in_dst.rot.transpose() * n;
    let offset = n.dot(src_in_dst.shift) - d;
    src.vertices().iter().all(|v| n_src.dot(*v) + offset > margin)
}

/// Is point `p` (the body's frame) inside the body or on its surface? Face planes for a
/// convex body, ray parity otherwise.
fn centre_inside(poly: &Polyhedron, p: DVec3, convex: bool) -> bool {
    if convex {
        poly.planes().iter().all(|&(n, d)| n.dot(p) <= d)
    } else {
        crate::inside::classify(poly, p) != crate::inside::PointClass::Outside
    }
}

/// The contact of a deep interpenetration, in body 2's frame: the face normal (of either
/// body, convex hulls of the vertices) along which the two bodies' extents overlap least,
/// turned from body 1 to body 2, that overlap as the depth, and the point in the middle of
/// the overlap along it, on the line between the centres. It is the separating-axis test
/// over face normals (the least overlap over them bounds the true penetration depth from
/// above; edge-edge axes are not tried): the push that separates the bodies soonest. Ties
/// go to the first axis (body 1's planes, then body 2's), so the result is deterministic;
/// for coincident centres the normal is that face normal itself.
fn least_penetration(a: &Polyhedron, a_in_b: &Relative, b: &Polyhedron) -> (DVec3, f64, DVec3) {
    let range = |dir: DVec3, points: &mut dyn Iterator<Item = DVec3>| {
        points.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| (lo.min(p.dot(dir)), hi.max(p.dot(dir))))
    };
    let centre_a = a_in_b.shift;
    let (mut best, mut normal, mut mid) = (f64::INFINITY, DVec3::Z, 0.0);
    let axes = a.planes().iter().map(|&(n, _)| a_in_b.rot * n).chain(b.planes().iter().map(|&(n, _)| n));
    for n in axes {
        let (lo_a, hi_a) = range(n, &mut a.vertices().iter().map(|v| a_in_b.apply(*v)));
        let (lo_b, hi_b) = range(n, &mut b.vertices().iter().copied());
        // Body 2 above body 1 along n (push 2 along +n) or below (along −n); with the
        // centres coincident both are tried and the smaller wins, +n on a tie.
        let (up, down) = (hi_a - lo_b, hi_b - lo_a);
        if up < best && up <= down {
            (best, normal, mid) = (up, n, 0.5 * (hi_a + lo_b));
        } else if down < best {
            (best, normal, mid) = (down, -n, -0.5 * (hi_b + lo_a));
        }
    }
    // On the line between the centres, at the middle of the overlap along the normal.
    let centres = 0.5 * centre_a;
    let point = centres + normal * (mid - normal.dot(centres));
    (normal, best, point)
}
