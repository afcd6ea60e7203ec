//! The time step an MD scene can take, compared with its `[simulation] dt` by
//! `granula check` and at the start of `granula run`.
//!
//! An explicit step must resolve the shortest contact of the scene. Its duration is that of
//! an undamped head-on impact (002 eq. 10 with η = 0 for a linear spring, t_c = π √(m*/k_n);
//! VALIDATION M2 for Hertz, t_c = 2.868 (m*² / (R* E*² v))^{1/5}), taken for the smallest
//! sphere of each material against the smallest of every other material and against every
//! wall material, at the fastest impact speed the scene can produce: the largest initial
//! speed plus the speed of a fall through the spheres' whole height, √(2 |g| H). The largest
//! advisable step is t_c/5 (002 §2, [`granula_laws::params::dt_upper_bound`]); accurate
//! collisions need about t_c/50 (VALIDATION M1). External loads and kinematic walls can
//! drive faster impacts than this estimate sees.
//!
//! Polyhedra have a second, often shorter, time scale: a body resting on the n corners of
//! a face rocks about its centre with ω² = n k r² / I, where k is the stiffness of one
//! point, r the lever arm (at most the bounding radius r_b) and I the smallest principal
//! moment. That is the spring k on the mass I / (n r²), so its half period is the contact
//! time of an impact with that effective mass: a thin body of small I rocks many times
//! faster than it bounces (a hopper's hull of I = 5e-12 kg m² on seven points, ω ≈ 1.5e5
//! rad/s, broke velocity Verlet's stability limit Δt ω < 2 at Δt = 2e-5 s). The estimate
//! takes the face with the most corners, the bounding radius as the lever arm and the
//! smallest moment, so it errs on the short side; a polyhedron's impact counts with its
//! equivalent radius (the effective radius of its contacts) and its mass.

use granula_core::{MaterialId, MotionKind, Shape};
use granula_io::scene::spec::{NormalKind, SolverSpec};
use granula_io::Scene;
use granula_io::{IoError, Result};
use granula_laws::params::dt_upper_bound;
use granula_laws::{Hertz, LinearSpring, NormalModel};
use granula_polyhedra::{Polyhedron, PolyhedronShape};
use std::collections::BTreeMap;

/// Which motion of the scene sets its shortest contact.
#[derive(Clone, Debug, PartialEq)]
pub enum ContactMode {
    /// A head-on impact of two bodies, or of a body on a wall.
    Impact,
    /// A polyhedron rocking on the corners of one face (see the module's doc).
    Rocking {
        /// Number of corners of the face the estimate rests the body on.
        points: usize,
        /// Angular frequency of the rocking at the impact's overlap (rad/s): π / contact time.
        frequency: f64,
    },
}

/// The shortest contact of an MD scene and the time step it allows.
#[derive(Clone, Debug, PartialEq)]
pub struct TimeStepEstimate {
    /// The scene's time step (s).
    pub dt: f64,
    /// Duration of the shortest contact (s).
    pub contact_time: f64,
    /// Impact speed the estimate assumes (m/s).
    pub impact_speed: f64,
    /// Names of the two materials of the shortest contact.
    pub materials: (String, String),
    /// The motion that sets it.
    pub mode: ContactMode,
}

impl TimeStepEstimate {
    /// The largest advisable time step, t_c/5.
    pub fn recommended(&self) -> f64 {
        dt_upper_bound(self.contact_time)
    }

    /// `true` when the scene's Δt exceeds [`TimeStepEstimate::recommended`].
    pub fn too_large(&self) -> bool {
        self.dt > self.recommended()
    }

    /// One line for `granula check` and the start of a run.
    pub fn message(&self) -> String {
        let (a, b) = &self.materials;
        let what = match &self.mode {
            ContactMode::Impact => format!("the shortest contact ({a} on {b}, impact at {:.3} m/s)", self.impact_speed),
            ContactMode::Rocking { points, frequency } => format!(
                "the fastest rocking of a polyhedron on {points} corners ({a} on {b}, ω = {frequency:.3e} rad/s, \
                 Δt ω = {:.2}; velocity Verlet is unstable above 2)",
                self.dt * frequency
            ),
        };
        let base = format!(
            "time step {:.3e} s; {what} lasts t_c = {:.3e} s, which allows at most t_c/5 = {:.3e} s \
             (about t_c/50 for accurate collisions)",
            self.dt,
            self.contact_time,
            self.recommended()
        );
        if self.too_large() {
            format!("warning: {base}: the contacts are not resolved and the run may blow up; reduce dt")
        } else {
            base
        }
    }
}

/// The estimate for an MD scene with at least one dynamic sphere and a non-zero impact
/// speed (`None` otherwise, e.g. for contact dynamics, whose steps do not resolve contacts).
pub fn time_step_estimate(scene: &Scene) -> Result<Option<TimeStepEstimate>> {
    let SolverSpec::Md(md) = &scene.spec.solver else { return Ok(None) };
    let world = scene.build_world()?;
    let b = &world.bodies;
    // The smallest sphere of each material (radius, mass), and the materials of walls.
    let mut smallest: BTreeMap<MaterialId, (f64, f64)> = BTreeMap::new();
    let mut walls: Vec<MaterialId> = Vec::new();
    // Rocking polyhedra: (material, effective mass I / (n r_b²), equivalent radius, n).
    let mut rocking: Vec<(MaterialId, f64, f64, usize)> = Vec::new();
    let g = world.gravity.length();
    let down = if g > 0.0 { world.gravity / g } else { glam::DVec3::ZERO };
    let (mut low, mut high, mut fastest) = (f64::INFINITY, f64::NEG_INFINITY, 0.0f64);
    for i in 0..b.len() {
        match &b.shape[i] {
            &Shape::Sphere { radius } if b.motion[i] == MotionKind::Dynamic => {
                let entry = smallest.entry(b.material[i]).or_insert((radius, b.mass[i]));
                if radius < entry.0 {
                    *entry = (radius, b.mass[i]);
                }
                let depth = b.position[i].dot(down);
                (low, high) = (low.min(depth), high.max(depth));
                fastest = fastest.max(b.velocity[i].length());
            }
            Shape::Sphere { .. } => {}
            Shape::Custom(c) if b.motion[i] == MotionKind::Dynamic => {
                // A polygon of the planar world: its impacts count with its equivalent
                // radius √(A/π) and its mass.
                if let Some(p) = granula_io::scene::polygon_of(&b.shape[i]) {
                    let r_eq = p.equivalent_radius();
                    let entry = smallest.entry(b.material[i]).or_insert((r_eq, b.mass[i]));
                    if b.mass[i] < entry.1 {
                        *entry = (r_eq, b.mass[i]);
                    }
                    let depth = b.position[i].dot(down);
                    (low, high) = (low.min(depth), high.max(depth));
                    let r_c = p.polygon().circumradius();
                    fastest = fastest.max(b.velocity[i].length() + b.angular_velocity[i].length() * r_c);
                    continue;
                }
                let Some(shape) = c.as_any().downcast_ref::<PolyhedronShape>() else { continue };
                let poly = shape.polyhedron();
                let (r_eq, r_b) = (poly.equivalent_radius(), poly.bounding_radius());
                let entry = smallest.entry(b.material[i]).or_insert((r_eq, b.mass[i]));
                if r_eq < entry.0 {
                    *entry = (r_eq, b.mass[i]);
                }
                let n = corners_of_the_largest_face(poly);
                rocking.push((b.material[i], b.inertia[i].min_element() / (n as f64 * r_b * r_b), r_eq, n));
                let depth = b.position[i].dot(down);
                (low, high) = (low.min(depth), high.max(depth));
                fastest = fastest.max(b.velocity[i].length() + b.angular_velocity[i].length() * r_b);
            }
            // A mesh wall counts as a wall (its sphere contacts are a plane's).
            Shape::Custom(c) if c.is_wall() => walls.push(b.material[i]),
            Shape::Custom(_) => {}
            _ => walls.push(b.material[i]),
        }
    }
    if smallest.is_empty() {
        return Ok(None);
    }
    let impact_speed = fastest + (2.0 * g * (high - low).max(0.0)).sqrt();
    if !(impact_speed > 0.0) {
        return Ok(None);
    }
    // The scene's validation refuses `hooke` without a valid `normal_stiffness`; a spec
    // built in code gets the same complaint here.
    let spring = match (md.normal, md.normal_stiffness) {
        // The overlap-volume law's stiffness depends on the contact area: no estimate.
        (NormalKind::Volumetric | NormalKind::VolumeEnergy, _) => return Ok(None),
        (NormalKind::Hertz, _) => None,
        // The overlap-area spring of flat faces is linear of stiffness k_n (002 eq. 5).
        (NormalKind::Hooke | NormalKind::Area, Some(k)) => {
            Some(LinearSpring::new(k).map_err(|e| IoError::Solver(format!("[solver] normal_stiffness = {k}: {e}")))?)
        }
        (NormalKind::Hooke | NormalKind::Area, None) => {
            return Err(IoError::Solver(
                "[solver] normal = \"hooke\" or \"area\" needs `normal_stiffness` (N/m)".into(),
            ));
        }
    };
    let duration = |pair: MaterialId, other: MaterialId, m_eff: f64, r_eff: f64| -> f64 {
        let material = world.materials.pair(pair, other);
        match &spring {
            Some(k) => k.contact_time(material, m_eff, r_eff, impact_speed),
            None => Hertz::from_material().contact_time(material, m_eff, r_eff, impact_speed),
        }
    };
    let name = |id: MaterialId| world.materials.get(id).map(|m| m.name.clone()).unwrap_or_else(|_| format!("{id:?}"));
    let mut best: Option<(f64, MaterialId, MaterialId, Option<usize>)> = None;
    let mut consider = |t: f64, a: MaterialId, c: MaterialId, points: Option<usize>| {
        if t.is_finite() && best.is_none_or(|(bt, ..)| t < bt) {
            best = Some((t, a, c, points));
        }
    };
    for (&a, &(ra, ma)) in &smallest {
        for (&c, &(rc, mc)) in &smallest {
            consider(duration(a, c, ma * mc / (ma + mc), ra * rc / (ra + rc)), a, c, None);
        }
        for &w in &walls {
            consider(duration(a, w, ma, ra), a, w, None);
        }
    }
    // A polyhedron rocking on a wall (R* its equivalent radius), or on a body like itself
    // (both rock: half the effective mass; R* half the radius).
    for &(a, m_rock, r_eq, n) in &rocking {
        for &w in &walls {
            consider(duration(a, w, m_rock, r_eq), a, w, Some(n));
        }
        consider(duration(a, a, 0.5 * m_rock, 0.5 * r_eq), a, a, Some(n));
    }
    Ok(best.map(|(contact_time, a, c, points)| TimeStepEstimate {
        dt: scene.dt(),
        contact_time,
        impact_speed,
        materials: (name(a), name(c)),
        mode: match points {
            None => ContactMode::Impact,
            Some(points) => ContactMode::Rocking { points, frequency: std::f64::consts::PI / contact_time },
        },
    }))
}

/// The most vertices that lie on one face plane of the polyhedron (within 1e-9 of its
/// size): the corners a face resting on a flat support touches it with.
fn corners_of_the_largest_face(poly: &Polyhedron) -> usize {
    let tol = 1e-9 * poly.bounding_radius();
    poly.planes()
        .iter()
        .map(|&(n, d)| poly.vertices().iter().filter(|v| (n.dot(**v) - d).abs() <= tol).count())
        .max()
        .unwrap_or(1)
        .max(1)
}
