//! Planar scenes: scene files of the 2D mode (`granula-planar`, seed 002), parsed and
//! built into a [`granula_planar::Simulation`], and the run that drives one with its
//! outputs ([`PlanarRun`]).
//!
//! The parsing lives here, in the composition root, and not in `granula-io`: `granula-io`
//! depends on the core only and knows nothing of the 2D mode, while `granula-run` already
//! depends on every solver crate. The 3D scene's building blocks are reused through their public
//! API: the error type ([`IoError`], with the file, key and line), the key-path lookup
//! ([`line_of`]) and the VTK writer (`granula_io::output::vtp`).
//!
//! A file is a planar scene when it sets `dimension = 2` at the top level ([`is_planar`]).
//!
//! ```
//! use granula_run::planar::PlanarScene;
//!
//! # fn main() -> Result<(), granula_io::IoError> {
//! let text = r#"
//! dimension = 2
//! [simulation]
//! dt = 1e-5
//! steps = 100
//! gravity = [0.0, -9.81]
//! [law]
//! normal_stiffness = 1e5
//! restitution = 0.5
//! [[walls]]
//! point = [0.0, 0.0]
//! normal = [0.0, 1.0]
//! [[bodies]]
//! shape = { kind = "regular", sides = 6, radius = 0.05 }
//! position = [0.0, 0.1]
//! "#;
//! let scene = PlanarScene::parse("drop.toml", text)?;
//! assert_eq!((scene.steps, scene.solver.bodies().len()), (100, 1));
//! let bad = PlanarScene::parse("drop.toml", &text.replace("1e5", "-1e5")).unwrap_err();
//! assert!(bad.to_string().contains("law.normal_stiffness"), "{bad}");
//! # Ok(())
//! # }
//! ```

mod checkpoint;
mod run;
mod spec;

pub use checkpoint::{is_planar_checkpoint, PLANAR_CHECKPOINT_FILE, PLANAR_CHECKPOINT_TAG};
pub use run::{PlanarRun, PLANAR_NSCD_SERIES_HEADER, PLANAR_SERIES_HEADER};
pub use spec::PositionFrame;

use glam::DVec2;
use granula_io::scene::{line_of, schema_error, KeyPath};
use granula_io::Location;
use granula_io::{IoError, Result};
use granula_planar::prelude::*;
use granula_planar::Bodies;
use granula_planar::{contact_time, damping_from_restitution};
use granula_polygons::shapes;
use spec::{
    BodySpec, ImpactSpec, LawSpec, OnCapSpec, PlanarSpec, ShapeKind, ShapeSpec, SolverKind, SolverSpec, TangentialSpec,
};
use std::path::Path;
use std::sync::Arc;

/// A parsed and built planar scene: the simulation at time 0 and what the run needs.
#[derive(Clone, Debug)]
pub struct PlanarScene {
    /// The scene file's name, as given.
    pub file: String,
    /// The scene file's text (checkpoints rebuild the run from it).
    pub text: String,
    /// The solver with its bodies, built and checked.
    pub solver: PlanarSolver,
    /// Steps to run.
    pub steps: u64,
    /// A row of `series.csv` every this many steps.
    pub series_every: u64,
    /// A VTK frame every this many steps (`None`: no VTK output).
    pub vtk_every: Option<u64>,
    /// Positions of the VTK frames.
    pub positions: PositionFrame,
    /// Area of the stress average (m²).
    pub stress_area: f64,
    /// Threads of the pair evaluation (`None`: rayon's default).
    pub threads: Option<usize>,
    /// The contact time t_c of the MD law with its reduced mass (002 eq. 10) (s); `None`
    /// under contact dynamics (rigid contacts).
    pub contact_time: Option<f64>,
}

/// The solver of a planar scene: `[solver] kind = "md"` (default) or `"nscd"`.
#[derive(Clone, Debug)]
pub enum PlanarSolver {
    /// Soft contacts of 002, Gear predictor-corrector.
    Md(Box<Simulation>),
    /// Rigid contacts, contact dynamics (004 §2.3.3).
    Nscd {
        /// The solver.
        solver: Box<ContactDynamics>,
        /// `solver.on_cap`: what a step that reached the sweep cap does to the run.
        on_cap: OnCap,
    },
}

/// What a contact dynamics step that stopped at its sweep cap does to the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnCap {
    /// Counted, announced once, summarised at the end (`"warn"`; also `"extend"`, whose
    /// hard cap is the solver's cap).
    Warn,
    /// Stops the run with an error (`"error"`).
    Error,
}

impl PlanarSolver {
    /// The bodies.
    pub fn bodies(&self) -> &Bodies {
        match self {
            PlanarSolver::Md(s) => &s.bodies,
            PlanarSolver::Nscd { solver, .. } => &solver.bodies,
        }
    }

    /// The MD simulation, if this is one.
    pub fn md(&self) -> Option<&Simulation> {
        match self {
            PlanarSolver::Md(s) => Some(s),
            PlanarSolver::Nscd { .. } => None,
        }
    }

    /// The contact dynamics solver, if this is one.
    pub fn nscd(&self) -> Option<&ContactDynamics> {
        match self {
            PlanarSolver::Md(_) => None,
            PlanarSolver::Nscd { solver, .. } => Some(solver),
        }
    }

    /// Time (s).
    pub fn time(&self) -> f64 {
        match self {
            PlanarSolver::Md(s) => s.time(),
            PlanarSolver::Nscd { solver, .. } => solver.time(),
        }
    }

    /// Steps taken.
    pub fn steps(&self) -> u64 {
        match self {
            PlanarSolver::Md(s) => s.steps(),
            PlanarSolver::Nscd { solver, .. } => solver.steps(),
        }
    }

    /// Time step (s).
    pub fn dt(&self) -> f64 {
        match self {
            PlanarSolver::Md(s) => s.dt(),
            PlanarSolver::Nscd { solver, .. } => solver.dt(),
        }
    }

    /// The domain.
    pub fn domain(&self) -> &Domain {
        match self {
            PlanarSolver::Md(s) => s.domain(),
            PlanarSolver::Nscd { solver, .. } => solver.domain(),
        }
    }

    /// Contacts of the last step: MD's overlapping pairs, or contact dynamics' contact
    /// points carrying an impulse.
    pub fn contact_count(&self) -> usize {
        match self {
            PlanarSolver::Md(s) => s.contacts().len(),
            PlanarSolver::Nscd { solver, .. } => solver.report().active,
        }
    }

    /// The Love-Weber stress of the body-body contacts over `area` (N/m).
    pub fn stress(&self, area: f64) -> [[f64; 2]; 2] {
        match self {
            PlanarSolver::Md(s) => s.stress(area),
            PlanarSolver::Nscd { solver, .. } => solver.stress(area),
        }
    }

    /// Body `i`'s centre mapped into the periodic box.
    pub fn wrapped_position(&self, i: usize) -> DVec2 {
        match self {
            PlanarSolver::Md(s) => s.wrapped_position(i),
            PlanarSolver::Nscd { solver, .. } => solver.wrapped_position(i),
        }
    }

    /// One step; contact dynamics returns its Gauss-Seidel report.
    pub fn step(&mut self) -> std::result::Result<Option<SolveReport>, PlanarError> {
        match self {
            PlanarSolver::Md(s) => s.step().map(|_| None),
            PlanarSolver::Nscd { solver, .. } => solver.step().map(Some),
        }
    }
}

/// `true` when `text` is a planar scene: a top-level `dimension = 2`. A file that does not
/// parse as TOML is not planar (the 3D parser then reports its syntax error).
pub fn is_planar(text: &str) -> bool {
    toml::from_str::<toml::Table>(text)
        .ok()
        .and_then(|t| t.get("dimension").and_then(|d| d.as_integer()))
        .is_some_and(|d| d == 2)
}

/// Where errors point.
struct Ctx<'a> {
    file: &'a str,
    text: &'a str,
}

impl Ctx<'_> {
    fn invalid(&self, path: &KeyPath, value: impl std::fmt::Display, problem: impl Into<String>) -> IoError {
        IoError::Invalid {
            at: Location { file: self.file.to_string(), key: path.to_string(), line: line_of(self.text, path) },
            value: value.to_string(),
            problem: problem.into(),
        }
    }

    fn positive(&self, path: &KeyPath, v: f64) -> Result<()> {
        if v.is_finite() && v > 0.0 {
            Ok(())
        } else {
            Err(self.invalid(path, v, "expected a finite positive number"))
        }
    }

    fn finite(&self, path: &KeyPath, v: &[f64]) -> Result<()> {
        if v.iter().all(|x| x.is_finite()) {
            Ok(())
        } else {
            Err(self.invalid(path, format!("{v:?}"), "expected finite numbers"))
        }
    }
}

/// Splitmix64: the portable sequence of the generators' shapes and angles.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn uniform(state: &mut u64) -> f64 {
    (next(state) >> 11) as f64 / (1u64 << 53) as f64
}

/// A shape from its description; `rng` draws the vertex count and seed of a generated
/// random polygon (a single body uses `seed` itself).
fn make_shape(c: &Ctx, at: &KeyPath, s: &ShapeSpec, rng: Option<&mut u64>) -> Result<Shape2> {
    let radius = |c: &Ctx| -> Result<f64> {
        let r = s.radius.ok_or_else(|| c.invalid(&at.key("radius"), "none", "this shape kind needs a radius"))?;
        c.positive(&at.key("radius"), r)?;
        Ok(r)
    };
    let sides = |c: &Ctx| -> Result<usize> {
        let n = s.sides.ok_or_else(|| c.invalid(&at.key("sides"), "none", "this shape kind needs `sides`"))?;
        if n < 3 {
            return Err(c.invalid(&at.key("sides"), n, "a polygon has at least 3 sides"));
        }
        Ok(n)
    };
    let bad = |key: &'static str, e: granula_polygons::PolygonError| c.invalid(&at.key(key), "", e.to_string());
    Ok(match s.kind {
        ShapeKind::Disc => Shape2::Disc { radius: radius(c)? },
        ShapeKind::Regular => {
            let p = shapes::regular(sides(c)?, radius(c)?).map_err(|e| bad("kind", e))?;
            Shape2::Polygon(Arc::new(p))
        }
        ShapeKind::Random => {
            let lo = sides(c)?;
            let hi = s.sides_max.unwrap_or(lo);
            if hi < lo {
                return Err(c.invalid(&at.key("sides_max"), hi, format!("expected at least `sides` = {lo}")));
            }
            if !(s.elongation.is_finite() && s.elongation >= 1.0) {
                return Err(c.invalid(&at.key("elongation"), s.elongation, "expected a finite number ≥ 1"));
            }
            let (n, seed) = match rng {
                Some(rng) => (lo + (next(rng) % (hi - lo + 1) as u64) as usize, next(rng)),
                None => (lo, s.seed),
            };
            let p = shapes::random_convex(n, radius(c)?, s.elongation, seed).map_err(|e| bad("kind", e))?;
            Shape2::Polygon(Arc::new(p))
        }
        ShapeKind::Vertices => {
            let v = s
                .vertices
                .as_ref()
                .ok_or_else(|| c.invalid(&at.key("vertices"), "none", "kind \"vertices\" needs a vertex list"))?;
            let points: Vec<DVec2> = v.iter().map(|p| DVec2::from_array(*p)).collect();
            c.finite(&at.key("vertices"), &v.iter().flatten().copied().collect::<Vec<_>>())?;
            let (p, _) = ConvexPolygon::from_vertices(&points).map_err(|e| bad("vertices", e))?;
            Shape2::Polygon(Arc::new(p))
        }
    })
}

fn builder_of(shape: Shape2) -> BodyBuilder {
    match shape {
        Shape2::Disc { radius } => BodyBuilder::disc(radius),
        Shape2::Polygon(p) => BodyBuilder::polygon(p),
    }
}

/// A body placed by the file, with the key path that described it.
struct Placed {
    body: BodyBuilder,
    at: KeyPath,
    circumradius: f64,
    dynamic: bool,
    mass: f64,
}

fn single(c: &Ctx, at: KeyPath, b: &BodySpec) -> Result<Placed> {
    c.finite(&at.key("position"), &b.position)?;
    c.finite(&at.key("velocity"), &b.velocity)?;
    c.finite(&at.key("angle"), &[b.angle, b.angular_velocity])?;
    c.positive(&at.key("density"), b.density)?;
    let shape = make_shape(c, &at.key("shape"), &b.shape, None)?;
    let circumradius = shape.circumradius();
    let mut mass = shape.area() * b.density;
    let mut body = builder_of(shape)
        .position(DVec2::from_array(b.position))
        .angle(b.angle)
        .velocity(DVec2::from_array(b.velocity))
        .angular_velocity(b.angular_velocity)
        .density(b.density);
    if let Some(m) = b.mass {
        c.positive(&at.key("mass"), m)?;
        mass = m;
        body = body.mass(m);
    }
    if let Some(f) = b.force {
        c.finite(&at.key("force"), &f)?;
        body = body.external_force(DVec2::from_array(f));
    }
    if b.lock_rotation {
        body = body.lock_rotation();
    }
    if b.prescribed {
        body = body.prescribed(DVec2::from_array(b.velocity));
    }
    Ok(Placed { body, at, circumradius, dynamic: !b.prescribed, mass })
}

impl PlanarScene {
    /// Reads and parses a planar scene file.
    pub fn load(path: impl AsRef<Path>) -> Result<PlanarScene> {
        let path = path.as_ref();
        let text = granula_io::read_input_text(path, granula_io::MAX_SCENE_BYTES)?;
        PlanarScene::parse(&path.display().to_string(), &text)
    }

    /// Parses a planar scene (`file` names it in errors): every key checked, every body
    /// built, the law, domain and walls checked, the simulation built at time 0.
    pub fn parse(file: &str, text: &str) -> Result<PlanarScene> {
        let spec: PlanarSpec = toml::from_str(text).map_err(|e| schema_error(file, text, &e))?;
        let c = Ctx { file, text };
        let root = KeyPath::root();
        if spec.dimension != 2 {
            return Err(c.invalid(&root.key("dimension"), spec.dimension, "a planar scene has dimension = 2"));
        }

        // Bodies, in the order: [[bodies]], [[rough_walls]], [[lattices]].
        let mut placed = Vec::new();
        for (k, b) in spec.bodies.iter().enumerate() {
            placed.push(single(&c, root.key("bodies").index(k), b)?);
        }
        for (k, w) in spec.rough_walls.iter().enumerate() {
            let at = root.key("rough_walls").index(k);
            c.finite(&at.key("start"), &w.start)?;
            c.finite(&at.key("velocity"), &w.velocity)?;
            c.positive(&at.key("spacing"), w.spacing)?;
            c.positive(&at.key("density"), w.density)?;
            if w.count == 0 {
                return Err(c.invalid(&at.key("count"), 0, "expected at least one particle"));
            }
            let mut rng = w.seed ^ 0x5DEE_CE66;
            for i in 0..w.count {
                let shape = make_shape(&c, &at.key("shape"), &w.shape, Some(&mut rng))?;
                let angle = if w.random_angle { uniform(&mut rng) * std::f64::consts::TAU } else { 0.0 };
                let circumradius = shape.circumradius();
                let position = DVec2::from_array(w.start) + DVec2::new(i as f64 * w.spacing, 0.0);
                let body = builder_of(shape)
                    .position(position)
                    .angle(angle)
                    .density(w.density)
                    .prescribed(DVec2::from_array(w.velocity));
                placed.push(Placed { body, at: at.clone(), circumradius, dynamic: false, mass: 0.0 });
            }
        }
        for (k, l) in spec.lattices.iter().enumerate() {
            let at = root.key("lattices").index(k);
            c.finite(&at.key("origin"), &l.origin)?;
            c.positive(&at.key("spacing"), l.spacing)?;
            c.positive(&at.key("density"), l.density)?;
            if l.columns == 0 || l.rows == 0 {
                return Err(c.invalid(&at.key("columns"), l.columns.min(l.rows), "expected columns and rows ≥ 1"));
            }
            let row_step = l.spacing * 3f64.sqrt() / 2.0;
            let mut rng = l.seed ^ 0x5DEE_CE66;
            for r in 0..l.rows {
                for col in 0..l.columns {
                    let shape = make_shape(&c, &at.key("shape"), &l.shape, Some(&mut rng))?;
                    let angle = if l.random_angle { uniform(&mut rng) * std::f64::consts::TAU } else { 0.0 };
                    let circumradius = shape.circumradius();
                    let mass = shape.area() * l.density;
                    let x = (col as f64 + 0.5 * (r % 2) as f64) * l.spacing;
                    let position = DVec2::from_array(l.origin) + DVec2::new(x, r as f64 * row_step);
                    let body = builder_of(shape).position(position).angle(angle).density(l.density);
                    placed.push(Placed { body, at: at.clone(), circumradius, dynamic: true, mass });
                }
            }
        }
        if placed.is_empty() {
            return Err(c.invalid(&root.key("bodies"), 0, "a scene needs at least one body"));
        }
        let max_radius = placed.iter().map(|p| p.circumradius).fold(0.0, f64::max);

        // The domain: periods of at least two diameters, shear only with both axes periodic.
        let d = &spec.domain;
        let at_d = root.key("domain");
        let mut domain = Domain::open();
        for (key, period, axis) in
            [("periodic_x", d.periodic_x, &mut domain.x), ("periodic_y", d.periodic_y, &mut domain.y)]
        {
            if let Some(p) = period {
                let at = at_d.key(key);
                c.finite(&at.key("min"), &[p.min])?;
                c.positive(&at.key("length"), p.length)?;
                if p.length < 4.0 * max_radius {
                    return Err(c.invalid(
                        &at.key("length"),
                        p.length,
                        format!("below two diameters of the largest body ({})", 4.0 * max_radius),
                    ));
                }
                *axis = Axis::Periodic { min: p.min, length: p.length };
            }
        }
        if let Some(rate) = d.shear_rate {
            let at = at_d.key("shear_rate");
            c.finite(&at, &[rate])?;
            for (name, axis) in [("x", domain.x), ("y", domain.y)] {
                if axis == Axis::Open {
                    return Err(c.invalid(
                        &at,
                        rate,
                        format!("Lees-Edwards shear needs a periodic {name} axis (domain.periodic_{name})"),
                    ));
                }
            }
            domain = domain.with_shear(rate);
        }

        let s = &spec.simulation;
        let at_s = root.key("simulation");
        c.finite(&at_s.key("gravity"), &s.gravity)?;
        if s.threads == Some(0) {
            return Err(c.invalid(&at_s.key("threads"), 0, "expected at least one thread"));
        }
        let mut walls = Vec::new();
        for (k, w) in spec.walls.iter().enumerate() {
            let at = root.key("walls").index(k);
            c.finite(&at.key("point"), &w.point)?;
            c.finite(&at.key("normal"), &w.normal)?;
            let n = DVec2::from_array(w.normal);
            if n.length() < 1e-12 {
                return Err(c.invalid(&at.key("normal"), format!("{:?}", w.normal), "expected a non-zero vector"));
            }
            c.finite(&at.key("velocity"), &w.velocity)?;
            let wall = HalfPlane::new(DVec2::from_array(w.point), n.normalize());
            walls.push(wall.moving(DVec2::from_array(w.velocity)));
        }
        let paths: Vec<KeyPath> = placed.iter().map(|p| p.at.clone()).collect();
        let built = |e: PlanarError| match &e {
            PlanarError::BadPolygon { body, .. } | PlanarError::BadBody { body, .. } => {
                c.invalid(&paths[*body], "", e.to_string())
            }
            _ => c.invalid(&root, "", e.to_string()),
        };
        let gravity = DVec2::from_array(s.gravity);

        let (solver, steps, contact_time) = match spec.solver.kind {
            SolverKind::Md => {
                refuse_nscd_keys(&c, &spec.solver)?;
                let (law, tc) = md_law(&c, spec.law.as_ref(), &placed)?;
                let dt = match (s.dt, s.dt_fraction) {
                    (Some(dt), None) => {
                        c.positive(&at_s.key("dt"), dt)?;
                        dt
                    }
                    (None, Some(f)) => {
                        c.positive(&at_s.key("dt_fraction"), f)?;
                        if !tc.is_finite() {
                            return Err(c.invalid(
                                &at_s.key("dt_fraction"),
                                f,
                                "the law is overdamped: t_c is not defined",
                            ));
                        }
                        f * tc
                    }
                    _ => return Err(c.invalid(&at_s.key("dt"), "", "give exactly one of `dt` and `dt_fraction`")),
                };
                let steps = run_length(&c, s, dt)?;
                let mut builder = Simulation::builder(law).domain(domain).dt(dt).gravity(gravity);
                for w in walls {
                    builder = builder.wall(w);
                }
                for p in placed {
                    builder = builder.body(p.body);
                }
                (PlanarSolver::Md(Box::new(builder.build().map_err(built)?)), steps, Some(tc))
            }
            SolverKind::Nscd => {
                let (config, on_cap) = nscd_config(&c, spec.law.as_ref(), &spec.solver)?;
                if s.dt_fraction.is_some() {
                    return Err(c.invalid(
                        &at_s.key("dt_fraction"),
                        "",
                        "rigid contacts have no contact time: give `dt` (s) under solver.kind = \"nscd\"",
                    ));
                }
                let dt = s.dt.ok_or_else(|| c.invalid(&at_s.key("dt"), "none", "give the time step `dt` (s)"))?;
                c.positive(&at_s.key("dt"), dt)?;
                let steps = run_length(&c, s, dt)?;
                let config = CdConfig { dt, gravity, ..config };
                let mut builder = ContactDynamics::builder().config(config).domain(domain);
                for w in walls {
                    builder = builder.wall(w);
                }
                for p in placed {
                    builder = builder.body(p.body);
                }
                let on_cap = if on_cap == OnCapSpec::Error { OnCap::Error } else { OnCap::Warn };
                (PlanarSolver::Nscd { solver: Box::new(builder.build().map_err(built)?), on_cap }, steps, None)
            }
        };

        let o = &spec.output;
        let at_o = root.key("output");
        for (key, v) in [("series_every", o.series_every), ("vtk_every", o.vtk_every)] {
            if v == Some(0) {
                return Err(c.invalid(&at_o.key(key), 0, "expected at least 1 step"));
            }
        }
        let stress_area = match o.stress_area {
            Some(a) => {
                c.positive(&at_o.key("stress_area"), a)?;
                a
            }
            None => default_area(solver.bodies(), solver.domain()),
        };
        Ok(PlanarScene {
            file: file.to_string(),
            text: text.to_string(),
            solver,
            steps,
            series_every: o.series_every.unwrap_or((steps / 1000).max(1)),
            vtk_every: o.vtk_every,
            positions: o.positions,
            stress_area,
            threads: s.threads,
            contact_time,
        })
    }
}

/// Steps of the run: `steps`, or `duration / dt` rounded.
fn run_length(c: &Ctx, s: &spec::SimulationSpec, dt: f64) -> Result<u64> {
    let at_s = KeyPath::root().key("simulation");
    match (s.steps, s.duration) {
        (Some(n), None) => Ok(n),
        (None, Some(t)) => {
            c.positive(&at_s.key("duration"), t)?;
            Ok((t / dt).round() as u64)
        }
        _ => Err(c.invalid(&at_s.key("steps"), "", "give exactly one of `steps` and `duration`")),
    }
}

/// A key of `[solver]` that only contact dynamics reads, set under MD: an error naming it.
fn refuse_nscd_keys(c: &Ctx, s: &SolverSpec) -> Result<()> {
    let set = [
        ("theta", s.theta.is_some()),
        ("tolerance", s.tolerance.is_some()),
        ("max_iterations", s.max_iterations.is_some()),
        ("warm_start", s.warm_start.is_some()),
        ("margin", s.margin.is_some()),
        ("impact", s.impact.is_some()),
        ("on_cap", s.on_cap.is_some()),
        ("hard_cap", s.hard_cap.is_some()),
    ];
    match set.iter().find(|(_, on)| *on) {
        Some((key, _)) => Err(c.invalid(
            &KeyPath::root().key("solver").key(key),
            "",
            "a key of contact dynamics: set solver.kind = \"nscd\" or remove it",
        )),
        None => Ok(()),
    }
}

/// The MD law of 002 §2 from `[law]`, with the contact time t_c (002 eq. 10): ε_n → ν_n
/// with the reduced mass (002 eq. 8).
fn md_law(c: &Ctx, law: Option<&LawSpec>, placed: &[Placed]) -> Result<(ContactLaw, f64)> {
    let at_l = KeyPath::root().key("law");
    let l = law.ok_or_else(|| c.invalid(&at_l, "none", "an MD scene needs a [law] table"))?;
    let k_n = l
        .normal_stiffness
        .ok_or_else(|| c.invalid(&at_l.key("normal_stiffness"), "none", "MD needs the stiffness k_n (N/m)"))?;
    c.positive(&at_l.key("normal_stiffness"), k_n)?;
    let masses: Vec<f64> = placed.iter().filter(|p| p.dynamic).map(|p| p.mass).collect();
    let reduced_mass = match l.reduced_mass {
        Some(m) => {
            c.positive(&at_l.key("reduced_mass"), m)?;
            m
        }
        None if masses.is_empty() => 1.0,
        None => 0.5 * masses.iter().sum::<f64>() / masses.len() as f64,
    };
    let damping = match (l.restitution, l.normal_damping) {
        (Some(_), Some(_)) => {
            return Err(c.invalid(&at_l.key("normal_damping"), "", "give `restitution` or `normal_damping`, not both"))
        }
        (Some(e), None) => {
            if !(e > 0.0 && e <= 1.0) {
                return Err(c.invalid(&at_l.key("restitution"), e, "expected 0 < ε_n ≤ 1"));
            }
            damping_from_restitution(e, k_n, reduced_mass)
        }
        (None, Some(nu)) => {
            if !(nu.is_finite() && nu >= 0.0) {
                return Err(c.invalid(&at_l.key("normal_damping"), nu, "expected a finite number ≥ 0"));
            }
            nu
        }
        (None, None) => 0.0,
    };
    let ratio = l.tangential_ratio.unwrap_or(1.0 / 3.0);
    if !(ratio.is_finite() && ratio >= 0.0) {
        return Err(c.invalid(&at_l.key("tangential_ratio"), ratio, "expected a finite number ≥ 0"));
    }
    let friction = l.friction.unwrap_or(0.0);
    if !(friction.is_finite() && friction >= 0.0) {
        return Err(c.invalid(&at_l.key("friction"), friction, "expected a finite number ≥ 0"));
    }
    let rule = match l.tangential.unwrap_or_default() {
        TangentialSpec::Cundall => Tangential::Cundall,
        TangentialSpec::Predictor => Tangential::Predictor,
    };
    let law = ContactLaw::builder(k_n)
        .normal_damping(damping)
        .tangential_ratio(ratio)
        .friction(friction)
        .tangential(rule)
        .build()
        .map_err(|e| c.invalid(&at_l, "", e.to_string()))?;
    Ok((law, contact_time(k_n, damping, reduced_mass)))
}

/// The contact dynamics settings from `[solver]` and `[law]` (friction; restitution with
/// `impact = "newton"`); the MD-only keys of `[law]` are refused, naming them.
fn nscd_config(c: &Ctx, law: Option<&LawSpec>, s: &SolverSpec) -> Result<(CdConfig, OnCapSpec)> {
    let at_l = KeyPath::root().key("law");
    let at_s = KeyPath::root().key("solver");
    let mut config = CdConfig::default();
    let impact = s.impact.unwrap_or_default();
    if let Some(l) = law {
        for (key, set) in [
            ("normal_stiffness", l.normal_stiffness.is_some()),
            ("normal_damping", l.normal_damping.is_some()),
            ("reduced_mass", l.reduced_mass.is_some()),
            ("tangential_ratio", l.tangential_ratio.is_some()),
            ("tangential", l.tangential.is_some()),
        ] {
            if set {
                return Err(c.invalid(
                    &at_l.key(key),
                    "",
                    "an MD key: contact dynamics (solver.kind = \"nscd\") treats contacts as rigid",
                ));
            }
        }
        if let Some(mu) = l.friction {
            if !(mu.is_finite() && mu >= 0.0) {
                return Err(c.invalid(&at_l.key("friction"), mu, "expected a finite number ≥ 0"));
            }
            config.friction = mu;
        }
        if let Some(e) = l.restitution {
            if impact != ImpactSpec::Newton {
                return Err(c.invalid(
                    &at_l.key("restitution"),
                    e,
                    "used by contact dynamics only with solver.impact = \"newton\"",
                ));
            }
            if !(0.0..=1.0).contains(&e) {
                return Err(c.invalid(&at_l.key("restitution"), e, "expected 0 ≤ e ≤ 1"));
            }
            config.restitution = e;
        }
    }
    if impact == ImpactSpec::Newton && law.and_then(|l| l.restitution).is_none() {
        return Err(c.invalid(&at_l.key("restitution"), "none", "solver.impact = \"newton\" needs law.restitution"));
    }
    if let Some(theta) = s.theta {
        if !(0.5..=1.0).contains(&theta) {
            return Err(c.invalid(&at_s.key("theta"), theta, "expected θ in [0.5, 1]"));
        }
        config.theta = theta;
    }
    if let Some(eps) = s.tolerance {
        c.positive(&at_s.key("tolerance"), eps)?;
        config.tolerance = eps;
    }
    if let Some(n) = s.max_iterations {
        if !(1..=1_000_000).contains(&n) {
            return Err(c.invalid(&at_s.key("max_iterations"), n, "expected 1 to 10⁶"));
        }
        config.max_sweeps = n;
    }
    if let Some(w) = s.warm_start {
        config.warm_start = w;
    }
    if let Some(m) = s.margin {
        if !(m.is_finite() && m >= 0.0) {
            return Err(c.invalid(&at_s.key("margin"), m, "expected a finite number ≥ 0"));
        }
        config.margin = m;
    }
    let on_cap = s.on_cap.unwrap_or_default();
    match (on_cap, s.hard_cap) {
        (OnCapSpec::Extend, hard) => {
            // Sweeping on to the hard cap is a cap of `hard_cap` (default 10 × max_iterations).
            let hard = hard.unwrap_or(config.max_sweeps.saturating_mul(10)).min(1_000_000);
            if hard < config.max_sweeps {
                return Err(c.invalid(&at_s.key("hard_cap"), hard, "expected at least max_iterations"));
            }
            config.max_sweeps = hard;
        }
        (_, Some(h)) => {
            return Err(c.invalid(&at_s.key("hard_cap"), h, "used only with on_cap = \"extend\""));
        }
        _ => {}
    }
    Ok((config, on_cap))
}

/// The default stress area: the periodic length along each periodic axis, the extent of
/// the bodies' centres plus one largest diameter along an open one.
fn default_area(b: &Bodies, domain: &Domain) -> f64 {
    let r = b.circumradius.iter().copied().fold(0.0, f64::max);
    let extent = |get: fn(DVec2) -> f64, axis: Axis| match axis {
        Axis::Periodic { length, .. } => length,
        Axis::Open => {
            let (lo, hi) =
                b.position.iter().map(|p| get(*p)).fold((f64::MAX, f64::MIN), |a, v| (a.0.min(v), a.1.max(v)));
            hi - lo + 2.0 * r
        }
    };
    extent(|p| p.x, domain.x) * extent(|p| p.y, domain.y)
}
