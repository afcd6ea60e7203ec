//! The contact geometry driving rigid-body motion, standalone (no solver yet): a linear
//! spring k·δ along each contact normal, leapfrog integration. With these conservative
//! forces the total energy must be conserved to the integrator's error, and bodies must
//! not pass through each other: a check of normals, gaps, points and branch vectors
//! together, over many steps and changing contact sets.

use glam::{DQuat, DVec3};
use granula_core::math::integrate_orientation;
use granula_core::ContactGeometry;
use granula_polyhedra::contact::{plane_polyhedron, polyhedron_polyhedron};
use granula_polyhedra::{shapes, Polyhedron, Pose};

const K: f64 = 1e6;
const DT: f64 = 1e-6;

/// A free rigid body whose inertia tensor is diagonal in its body frame (the cube and the
/// bar built here are), integrated with Euler's equations.
struct Body {
    shape: Polyhedron,
    pose: Pose,
    v: DVec3,
    w: DVec3,
    m: f64,
    inertia: DVec3,
}

impl Body {
    fn new(shape: Polyhedron, pose: Pose, v: DVec3, density: f64) -> Self {
        let i = shape.inertia_per_density() * density;
        let inertia = DVec3::new(i.x_axis.x, i.y_axis.y, i.z_axis.z);
        let m = shape.volume() * density;
        Body { shape, pose, v, w: DVec3::ZERO, m, inertia }
    }

    /// Angular acceleration from a world torque, with I diagonal in the body frame
    /// (Euler's equations including ω × Iω).
    fn alpha(&self, torque: DVec3) -> DVec3 {
        let q = self.pose.orientation;
        let (wb, tb) = (q.inverse() * self.w, q.inverse() * torque);
        q * ((tb - wb.cross(self.inertia * wb)) / self.inertia)
    }

    fn kinetic(&self) -> f64 {
        let wb = self.pose.orientation.inverse() * self.w;
        0.5 * self.m * self.v.length_squared() + 0.5 * wb.dot(self.inertia * wb)
    }
}

/// Spring force on body 2 and its energy, from one contact point.
fn spring(c: &ContactGeometry) -> (DVec3, f64) {
    let delta = (-c.gap).max(0.0);
    (c.normal * (K * delta), 0.5 * K * delta * delta)
}

/// Cube dropped on the floor; returns (largest relative energy error, largest depth,
/// largest number of points at once, final upward velocity).
fn drop_on_floor(orientation: DQuat, steps: usize) -> (f64, f64, usize, f64) {
    let g = DVec3::new(0.0, 0.0, -9.81);
    let cube = shapes::cube(0.1).unwrap();
    let z0 = cube.world_aabb(&Pose::new(DVec3::ZERO, orientation)).min.z;
    let mut b = Body::new(cube, Pose::new(DVec3::new(0.0, 0.0, 0.003 - z0), orientation), DVec3::ZERO, 1000.0);
    let mut points = Vec::new();
    let forces = |b: &Body, points: &mut Vec<ContactGeometry>| {
        points.clear();
        plane_polyhedron(DVec3::ZERO, DVec3::Z, &b.shape, &b.pose, 0.0, points);
        let (mut f, mut t, mut e) = (b.m * g, DVec3::ZERO, 0.0);
        for c in points.iter() {
            let (fc, ec) = spring(c);
            f += fc;
            t += c.branch2.cross(fc);
            e += ec;
        }
        (f, t, e)
    };
    let energy = |b: &Body, e_spring: f64| b.kinetic() - b.m * g.dot(b.pose.position) + e_spring;
    let (mut f, mut t, e_s) = forces(&b, &mut points);
    let e0 = energy(&b, e_s);
    let (mut worst, mut deepest, mut most) = (0.0f64, 0.0f64, 0usize);
    for _ in 0..steps {
        b.v += 0.5 * DT * f / b.m;
        b.w += 0.5 * DT * b.alpha(t);
        b.pose.position += DT * b.v;
        b.pose.orientation = integrate_orientation(b.pose.orientation, b.w, DT);
        let (f2, t2, e_s) = forces(&b, &mut points);
        (f, t) = (f2, t2);
        b.v += 0.5 * DT * f / b.m;
        b.w += 0.5 * DT * b.alpha(t);
        worst = worst.max((energy(&b, e_s) - e0).abs() / e0.abs());
        deepest = deepest.max(points.iter().map(|c| -c.gap).fold(0.0, f64::max));
        most = most.max(points.len());
    }
    (worst, deepest, most, b.v.z)
}

#[test]
fn cube_dropped_flat_bounces_back_with_its_energy() {
    // 3 mm fall (v = 0.24 m/s), four springs of 1e6 N/m: contact of about 1.6 ms.
    let (err, depth, most, vz) = drop_on_floor(DQuat::IDENTITY, 40_000);
    eprintln!("flat: energy error {err:.2e}, depth {depth:.2e}, {most} points, rebound {vz:.4} m/s");
    assert_eq!(most, 4);
    assert!(depth > 1e-5 && depth < 1e-3, "{depth}");
    assert!(err < 1e-3, "energy error {err}");
    assert!(vz > 0.0, "still falling: {vz}");
}

#[test]
fn cube_dropped_on_an_edge_or_a_corner_bounces_and_turns_with_its_energy() {
    // On an edge (turned about x): two points; on a corner (turned about x and y): one.
    for (q, points) in
        [(DQuat::from_rotation_x(0.5), 2), (DQuat::from_rotation_x(0.5) * DQuat::from_rotation_y(0.2), 1)]
    {
        let (err, depth, most, vz) = drop_on_floor(q, 60_000);
        eprintln!("tilted: energy error {err:.2e}, depth {depth:.2e}, up to {most} points, vz {vz:.4} m/s");
        assert_eq!(most, points);
        assert!(depth > 1e-5 && depth < 2e-3, "{depth}");
        assert!(err < 1e-3, "energy error {err}");
    }
}

#[test]
fn bars_meeting_edge_on_edge_bounce_instead_of_passing_through() {
    // Two square bars turned 45° about their axes, one along x, one along y, moving toward
    // each other: only edge–edge contacts can stop them.
    let bar = shapes::cuboid(DVec3::new(0.2, 0.02, 0.02)).unwrap();
    let h = 0.02 * 2f64.sqrt();
    let qa = DQuat::from_rotation_x(std::f64::consts::FRAC_PI_4);
    let qb = DQuat::from_rotation_z(std::f64::consts::FRAC_PI_2) * qa;
    let mut a =
        Body::new(bar.clone(), Pose::new(DVec3::new(0.0, 0.0, -h - 1e-3), qa), DVec3::new(0.0, 0.0, 0.5), 1000.0);
    let mut b = Body::new(bar, Pose::new(DVec3::new(0.0, 0.0, h + 1e-3), qb), DVec3::new(0.0, 0.0, -0.5), 1000.0);
    let mut points = Vec::new();
    let mut edge_steps = 0;
    let e0 = a.kinetic() + b.kinetic();
    let mut worst = 0.0f64;
    for _ in 0..20_000 {
        points.clear();
        polyhedron_polyhedron(&a.shape, &a.pose, &b.shape, &b.pose, 0.0, &mut points);
        let (mut fb, mut ta, mut tb, mut es) = (DVec3::ZERO, DVec3::ZERO, DVec3::ZERO, 0.0);
        for c in &points {
            let (f, e) = spring(c);
            fb += f;
            tb += c.branch2.cross(f);
            ta -= c.branch1.cross(f);
            es += e;
        }
        edge_steps += !points.is_empty() as usize;
        // Symplectic Euler (energy is checked loosely: a bounded O(dt) error).
        a.v -= DT * fb / a.m;
        b.v += DT * fb / b.m;
        a.w += DT * a.alpha(ta);
        b.w += DT * b.alpha(tb);
        for body in [&mut a, &mut b] {
            body.pose.position += DT * body.v;
            body.pose.orientation = integrate_orientation(body.pose.orientation, body.w, DT);
        }
        worst = worst.max((a.kinetic() + b.kinetic() + es - e0).abs() / e0);
        assert!(b.pose.position.z > a.pose.position.z, "passed through");
    }
    eprintln!("bars: {edge_steps} steps in contact, energy error {worst:.2e}, after: {} {}", a.v.z, b.v.z);
    assert!(edge_steps > 100, "{edge_steps}");
    assert!(b.v.z > 0.4 && a.v.z < -0.4, "{} {}", a.v.z, b.v.z);
    assert!(worst < 0.02, "{worst}");
}
