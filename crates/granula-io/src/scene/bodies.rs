//! From the body tables of a scene (spheres, walls, generators) to validated body plans.

use super::check::Check;
use super::limits::{lognormal_mass, MAX_ATTEMPTS_PER_SPHERE, MIN_LOGNORMAL_ACCEPTANCE};
use super::mesh_spec::MeshWallSpec;
use super::polygons;
use super::polyhedra_spec::{PolyhedronSpec, ShapeSpec};
use super::shape_maker::{MadeShape, ShapeMaker};
use super::source::KeyPath;
use super::spec::{
    ArrangementKind, CylinderSpec, LatticeSpec, MotionSpec, PackingSpec, PlaneSpec, PolygonShapeSpec, RegionSpec,
    SizeSpec, SphereSpec,
};
use super::wall_motion::{self, WallMotionKeys};
use crate::error::{IoError, Result};
use crate::generate::{lattice, random_packing, triangular_lattice, PlacedSphere, Region, SizeDistribution};
use glam::DQuat;
use glam::DVec3;
use granula_core::{
    CylinderBuilder, Dofs, PlaneBuilder, Prescribed, RigidBody, RigidBodyBuilder, Shape, SphereBuilder,
};
use std::path::Path;

/// A body ready to insert, with its name and where the scene defines it.
#[derive(Clone, Debug)]
pub struct BodyPlan {
    /// The validated body.
    pub body: RigidBody,
    /// Its name in the scene, if any.
    pub name: Option<String>,
    /// Where the scene defines it, e.g. `spheres[3]` or `packings[0] (sphere 17)`.
    pub origin: String,
}

fn kinematic(v: DVec3, w: DVec3) -> (Prescribed, Prescribed) {
    (Prescribed::Constant(v), Prescribed::Constant(w))
}

/// A sphere from `[[spheres]]`.
pub fn sphere(c: &Check, path: &KeyPath, s: &SphereSpec) -> Result<BodyPlan> {
    let r = c.positive(&path.key("radius"), s.radius)?;
    let x = c.vector(&path.key("position"), s.position)?;
    let v = c.vector(&path.key("velocity"), s.velocity)?;
    let w = c.vector(&path.key("angular_velocity"), s.angular_velocity)?;
    let f = c.vector(&path.key("force"), s.force)?;
    let t = c.vector(&path.key("torque"), s.torque)?;
    let m = c.material(&path.key("material"), s.material.as_ref())?;
    let mut b =
        SphereBuilder::new(r, x).velocity(v).angular_velocity(w).material(m).external_force(f).external_torque(t);
    if let Some(mass) = s.mass {
        b = b.mass(c.positive(&path.key("mass"), mass)?);
    }
    b = match s.motion {
        MotionSpec::Dynamic => b.dynamic(),
        MotionSpec::Fixed => b.fixed(),
        MotionSpec::Kinematic => {
            let (lv, lw) = kinematic(v, w);
            b.kinematic(lv, lw)
        }
    };
    if s.lock_rotation {
        b = b.lock(Dofs::ROTATION);
    }
    b = b.lock(locks(c, path, &s.lock_axes, s.lock_rotation)?);
    let body = b.build().map_err(|e| c.core(path, e))?;
    Ok(BodyPlan { body, name: s.name.clone(), origin: path.to_string() })
}

/// The locked dofs of `lock_axes` and `lock_rotation`.
fn locks(c: &Check, path: &KeyPath, axes: &[String], rotation: bool) -> Result<Dofs> {
    let mut d = if rotation { Dofs::ROTATION } else { Dofs::NONE };
    for (i, a) in axes.iter().enumerate() {
        d = d | match a.as_str() {
            "x" => Dofs::TX,
            "y" => Dofs::TY,
            "z" => Dofs::TZ,
            _ => return Err(c.invalid(&path.key("lock_axes").index(i), a, "must be \"x\", \"y\" or \"z\"")),
        };
    }
    Ok(d)
}

/// A plane wall from `[[planes]]`.
pub fn plane(c: &Check, path: &KeyPath, s: &PlaneSpec) -> Result<BodyPlan> {
    let p = c.vector(&path.key("point"), s.point)?;
    let n = c.direction(&path.key("normal"), s.normal)?;
    let v = c.vector(&path.key("velocity"), s.velocity)?;
    let f = c.vector(&path.key("force"), s.force)?;
    let m = c.material(&path.key("material"), s.material.as_ref())?;
    let keys = WallMotionKeys {
        velocity: s.velocity,
        angular_velocity: s.angular_velocity,
        rotation_center: s.rotation_center,
        vibration: s.vibration.as_ref(),
        path: s.path.as_ref(),
        surface_velocity: s.surface_velocity,
    };
    if let Some(u) = s.surface_velocity {
        // A belt slides in its plane: a normal component would push particles off it.
        if DVec3::from_array(u).dot(n).abs() > 1e-12 * DVec3::from_array(u).length() {
            return Err(c.invalid(&path.key("surface_velocity"), u, "must lie in the plane (normal to `normal`)"));
        }
    }
    let mut b = PlaneBuilder::new(p, n).material(m).velocity(v).external_force(f);
    b = match s.motion {
        MotionSpec::Fixed => {
            wall_motion::refuse_on_unmoved(c, path, &keys, "fixed")?;
            b.fixed()
        }
        MotionSpec::Kinematic => {
            let (lv, lw) = wall_motion::drives(c, path, &keys, p)?;
            b.kinematic(lv, lw)
        }
        MotionSpec::Dynamic => {
            wall_motion::refuse_on_unmoved(c, path, &keys, "dynamic")?;
            let Some(mass) = s.mass else {
                return Err(c.invalid(&path.key("motion"), "dynamic", "a dynamic plane needs a `mass`"));
            };
            // A free piston translates only: its rotation is locked.
            b.dynamic().mass(c.positive(&path.key("mass"), mass)?).lock(Dofs::ROTATION)
        }
    };
    let body = b.build().map_err(|e| c.core(path, e))?;
    Ok(BodyPlan { body, name: s.name.clone(), origin: path.to_string() })
}

/// A cylindrical wall from `[[cylinders]]`.
pub fn cylinder(c: &Check, path: &KeyPath, s: &CylinderSpec) -> Result<BodyPlan> {
    let x = c.vector(&path.key("center"), s.center)?;
    let a = c.direction(&path.key("axis"), s.axis)?;
    let r = c.positive(&path.key("radius"), s.radius)?;
    let m = c.material(&path.key("material"), s.material.as_ref())?;
    let keys = WallMotionKeys {
        velocity: s.velocity,
        angular_velocity: s.angular_velocity,
        rotation_center: s.rotation_center,
        vibration: s.vibration.as_ref(),
        path: s.path.as_ref(),
        surface_velocity: s.surface_velocity,
    };
    if let Some(u) = s.surface_velocity {
        // The one direction tangent to the whole lateral surface is the axis.
        if DVec3::from_array(u).cross(a).length() > 1e-12 * DVec3::from_array(u).length() {
            return Err(c.invalid(&path.key("surface_velocity"), u, "must be along the cylinder's `axis`"));
        }
    }
    let mut b = CylinderBuilder::new(x, a, r).material(m);
    if let Some(l) = s.length {
        b = b.length(c.positive(&path.key("length"), l)?);
    }
    b = if s.inside { b.inside() } else { b.outside() };
    b = match s.motion {
        MotionSpec::Fixed => {
            wall_motion::refuse_on_unmoved(c, path, &keys, "fixed")?;
            b.fixed()
        }
        MotionSpec::Kinematic => {
            let (lv, lw) = wall_motion::drives(c, path, &keys, x)?;
            b.kinematic(lv, lw)
        }
        MotionSpec::Dynamic => {
            return Err(c.invalid(&path.key("motion"), "dynamic", "cylinder walls are \"fixed\" or \"kinematic\""))
        }
    };
    let body = b.build().map_err(|e| c.core(path, e))?;
    Ok(BodyPlan { body, name: s.name.clone(), origin: path.to_string() })
}

/// What every sphere of a generator shares.
struct Common {
    material: granula_core::MaterialId,
    velocity: DVec3,
    motion: MotionSpec,
    locked: Dofs,
}

fn generated(c: &Check, path: &KeyPath, spheres: Vec<PlacedSphere>, k: Common) -> Result<Vec<BodyPlan>> {
    spheres
        .into_iter()
        .enumerate()
        .map(|(i, s)| {
            let mut b = SphereBuilder::new(s.radius, s.center).material(k.material).velocity(k.velocity).lock(k.locked);
            b = match k.motion {
                MotionSpec::Dynamic => b,
                MotionSpec::Fixed => b.fixed(),
                MotionSpec::Kinematic => {
                    let (lv, lw) = kinematic(k.velocity, DVec3::ZERO);
                    b.kinematic(lv, lw)
                }
            };
            let body = b.build().map_err(|e| c.core(path, e))?;
            Ok(BodyPlan { body, name: None, origin: format!("{path} (sphere {i})") })
        })
        .collect()
}

/// The sites of a `[[lattices]]` entry: cubic, or triangular in a planar scene.
fn lattice_sites(c: &Check, path: &KeyPath, s: &LatticeSpec, planar: bool, r: f64) -> Result<Vec<PlacedSphere>> {
    let o = c.vector(&path.key("origin"), s.origin)?;
    let d = c.positive(&path.key("spacing"), s.spacing)?;
    for (k, &n) in s.counts.iter().enumerate() {
        if n == 0 {
            return Err(c.invalid(&path.key("counts").index(k), n, "must be >= 1"));
        }
    }
    if planar && s.counts[2] != 1 {
        return Err(c.invalid(&path.key("counts").index(2), s.counts[2], "must be 1 in planar mode"));
    }
    Ok(match s.arrangement {
        ArrangementKind::Cubic => lattice(o, s.counts, d, r),
        ArrangementKind::Triangular if planar => triangular_lattice(o, [s.counts[0], s.counts[1]], d, r),
        ArrangementKind::Triangular => {
            return Err(c.invalid(&path.key("arrangement"), "triangular", "needs a planar scene"));
        }
    })
}

/// The spheres (or polygons) of a `[[lattices]]` entry.
pub fn lattice_bodies(c: &Check, path: &KeyPath, s: &LatticeSpec, planar: bool) -> Result<Vec<BodyPlan>> {
    if let Some(shape) = &s.polygon {
        return lattice_polygons(c, path, s, shape, planar);
    }
    for (key, set) in [("seed", s.seed.is_some()), ("random_angle", s.random_angle.is_some())] {
        if set {
            return Err(c.invalid(&path.key(key), key, "is used only with polygon sites (`polygon`)"));
        }
    }
    let Some(radius) = s.radius else {
        return Err(c.invalid(path, "lattice", "needs the spheres' `radius` (or a `polygon` shape in a planar scene)"));
    };
    let r = c.positive(&path.key("radius"), radius)?;
    if s.spacing < 2.0 * r {
        return Err(c.invalid(&path.key("spacing"), s.spacing, format!("must be >= 2 x radius = {}", 2.0 * r)));
    }
    let v = c.vector(&path.key("velocity"), s.velocity)?;
    let m = c.material(&path.key("material"), s.material.as_ref())?;
    let mut sites = lattice_sites(c, path, s, planar, r)?;
    if let Some(h) = &s.hole {
        let hp = path.key("hole");
        let centre = glam::DVec2::from_array(h.center);
        if !centre.is_finite() {
            return Err(c.invalid(&hp.key("center"), h.center, "components must be finite"));
        }
        let radius = c.positive(&hp.key("radius"), h.radius)?;
        sites.retain(|p| (p.center.truncate() - centre).length() >= radius);
    }
    let locked = locks(c, path, &s.lock_axes, s.lock_rotation)?;
    generated(c, path, sites, Common { material: m, velocity: v, motion: s.motion, locked })
}

/// The polygons of a `[[lattices]]` entry with `polygon`: each site gets its own shape
/// (a random kind draws its vertex count and seed) and, with `random_angle`, its own angle,
/// all from the lattice's `seed`.
fn lattice_polygons(
    c: &Check,
    path: &KeyPath,
    s: &LatticeSpec,
    shape: &PolygonShapeSpec,
    planar: bool,
) -> Result<Vec<BodyPlan>> {
    if !planar {
        return Err(c.invalid(&path.key("polygon"), "polygon", "polygon sites need a planar scene"));
    }
    for (key, set) in
        [("radius", s.radius.is_some()), ("hole", s.hole.is_some()), ("lock_axes", !s.lock_axes.is_empty())]
    {
        if set {
            return Err(c.invalid(&path.key(key), key, "is not used with polygon sites"));
        }
    }
    let v = c.vector(&path.key("velocity"), s.velocity)?;
    if v.z != 0.0 {
        return Err(c.invalid(&path.key("velocity"), s.velocity, "a planar velocity has z = 0"));
    }
    let material = c.material(&path.key("material"), s.material.as_ref())?;
    let sites = lattice_sites(c, path, s, planar, 0.0)?;
    let mut rng = polygons::site_stream(s.seed.unwrap_or(0));
    let turn = s.random_angle.unwrap_or(true);
    let mut out = Vec::with_capacity(sites.len());
    for (i, site) in sites.into_iter().enumerate() {
        let outline = polygons::outline(c, &path.key("polygon"), shape, Some(&mut rng))?;
        let angle = if turn { polygons::site_angle(&mut rng) } else { 0.0 };
        let body = polygons::PolygonBody {
            outline,
            position: site.center.truncate(),
            angle,
            velocity: v.truncate(),
            angular_velocity: 0.0,
            material,
            motion: s.motion,
            mass: None,
            lock_rotation: s.lock_rotation,
            force: glam::DVec2::ZERO,
        };
        let body = polygons::build(c, path, body)?;
        out.push(BodyPlan { body, name: None, origin: format!("{path} (polygon {i})") });
    }
    Ok(out)
}

pub(super) fn size(c: &Check, path: &KeyPath, s: &SizeSpec) -> Result<SizeDistribution> {
    Ok(match *s {
        SizeSpec::Uniform { min, max } => {
            let lo = c.positive(&path.key("min"), min)?;
            let hi = c.positive(&path.key("max"), max)?;
            if hi < lo {
                return Err(c.invalid(&path.key("max"), hi, format!("must be >= min = {lo}")));
            }
            SizeDistribution::Uniform { min: lo, max: hi }
        }
        SizeSpec::Bidisperse { small, large, fraction_large } => {
            let s = c.positive(&path.key("small"), small)?;
            let l = c.positive(&path.key("large"), large)?;
            if !(0.0..=1.0).contains(&fraction_large) {
                return Err(c.invalid(&path.key("fraction_large"), fraction_large, "must be in [0, 1]"));
            }
            SizeDistribution::Bidisperse { small: s, large: l, fraction_large }
        }
        SizeSpec::Lognormal { median, sigma, min, max } => {
            let md = c.positive(&path.key("median"), median)?;
            let sg = c.non_negative(&path.key("sigma"), sigma)?;
            let lo = c.positive(&path.key("min"), min)?;
            let hi = c.positive(&path.key("max"), max)?;
            // Redrawing must terminate: [min, max] has to hold the median or lie within
            // three standard deviations of it in log space.
            if hi < lo || (lo / md).ln() > 3.0 * sg || (hi / md).ln() < -3.0 * sg {
                return Err(c.invalid(
                    &path.key("max"),
                    [lo, hi],
                    "[min, max] must be non-empty and within 3 sigma of the median in log space",
                ));
            }
            // Each radius is redrawn until it falls in [min, max]: that must happen often.
            let mass = lognormal_mass(md, sg, lo, hi);
            if !(mass >= MIN_LOGNORMAL_ACCEPTANCE) {
                return Err(c.invalid(
                    &path.key("sigma"),
                    sg,
                    format!(
                        "unsatisfiable: a draw falls in [min, max] = [{lo}, {hi}] with probability {mass:.1e}, \
                         below {MIN_LOGNORMAL_ACCEPTANCE}; lower sigma or widen [min, max]"
                    ),
                ));
            }
            SizeDistribution::Lognormal { median: md, sigma: sg, min: lo, max: hi }
        }
    })
}

pub(super) fn region(c: &Check, path: &KeyPath, r: &RegionSpec) -> Result<Region> {
    Ok(match *r {
        RegionSpec::Box { min, max } => {
            let lo = c.vector(&path.key("min"), min)?;
            let hi = c.vector(&path.key("max"), max)?;
            if !hi.cmpge(lo).all() {
                return Err(c.invalid(&path.key("max"), max, format!("must be >= min = {min:?} componentwise")));
            }
            if !(hi - lo).is_finite() {
                return Err(c.invalid(&path.key("max"), max, "the box's extent max - min overflows"));
            }
            Region::Box { min: lo, max: hi }
        }
        RegionSpec::Cylinder { base, axis, radius, height } => Region::Cylinder {
            base: c.vector(&path.key("base"), base)?,
            axis: match axis {
                None => DVec3::Z,
                Some(a) => c.direction(&path.key("axis"), a)?.normalize(),
            },
            radius: c.positive(&path.key("radius"), radius)?,
            height: c.non_negative(&path.key("height"), height)?,
        },
    })
}

/// A polyhedron from `[[polyhedra]]`, its shape built by `maker` (mesh files relative to
/// `base`).
pub fn polyhedron(
    c: &Check,
    path: &KeyPath,
    s: &PolyhedronSpec,
    maker: &dyn ShapeMaker,
    base: &Path,
    planar: bool,
) -> Result<BodyPlan> {
    if planar {
        return Err(c.invalid(path, "polyhedron", "polyhedra are not available in planar mode"));
    }
    let x = c.vector(&path.key("position"), s.position)?;
    let turn = c.vector(&path.key("rotation"), s.rotation)?;
    let v = c.vector(&path.key("velocity"), s.velocity)?;
    let w = c.vector(&path.key("angular_velocity"), s.angular_velocity)?;
    let m = c.material(&path.key("material"), s.material.as_ref())?;
    let made = maker.make(&s.shape, base).map_err(|problem| match &s.shape {
        // A mesh given in the scene is named by its size, not its every vertex.
        ShapeSpec::Mesh { vertices, faces } => c.invalid(
            &path.key("shape"),
            format!("mesh of {} vertices and {} faces", vertices.len(), faces.len()),
            problem,
        ),
        shape => c.invalid(&path.key("shape"), shape, problem),
    })?;
    let orientation = (DQuat::from_scaled_axis(turn) * made.rotation).normalize();
    let mut b = RigidBodyBuilder::new(Shape::Custom(made.shape), x)
        .orientation(orientation)
        .velocity(v)
        .angular_velocity(w)
        .material(m);
    b = match s.motion {
        MotionSpec::Dynamic => b.dynamic(),
        MotionSpec::Fixed => b.fixed(),
        MotionSpec::Kinematic => {
            return Err(c.invalid(&path.key("motion"), "kinematic", "polyhedra are \"dynamic\" or \"fixed\""))
        }
    };
    let body = b.build().map_err(|e| c.core(path, e))?;
    Ok(BodyPlan { body, name: s.name.clone(), origin: path.to_string() })
}

/// A mesh wall from `[[meshes]]`, its shape built by `maker` (its file relative to
/// `base`): a fixed or kinematic body with the file's origin at `position`, turned by
/// `rotation`. The
/// keys are checked before the file is read, and before a missing maker is refused.
pub fn mesh_wall(
    c: &Check,
    path: &KeyPath,
    s: &MeshWallSpec,
    maker: Option<&dyn ShapeMaker>,
    base: &Path,
    planar: bool,
) -> Result<BodyPlan> {
    if planar {
        return Err(c.invalid(path, "mesh wall", "mesh walls are not available in planar mode"));
    }
    c.positive(&path.key("scale"), s.scale)?;
    if s.motion != MotionSpec::Kinematic {
        c.vector(&path.key("velocity"), s.velocity)?;
        if s.velocity != [0.0; 3] {
            return Err(c.invalid(
                &path.key("velocity"),
                s.velocity,
                "moves a wall only with `motion = \"kinematic\"`",
            ));
        }
        wall_motion::refuse_on_unmoved(c, path, &mesh_motion_keys(s), "fixed")?;
    }
    let x = c.vector(&path.key("position"), s.position)?;
    let turn = c.vector(&path.key("rotation"), s.rotation)?;
    let m = c.material(&path.key("material"), s.material.as_ref())?;
    let Some(maker) = maker else {
        return Err(c.invalid(path, s.name.as_deref().unwrap_or("mesh wall"), NO_MESH_MAKER));
    };
    let shape = maker.mesh_wall(s, base).map_err(|problem| c.invalid(&path.key("file"), &s.file, problem))?;
    let b = RigidBodyBuilder::new(Shape::Custom(shape), x).orientation(DQuat::from_scaled_axis(turn)).material(m);
    let b = match s.motion {
        MotionSpec::Fixed => b.fixed(),
        MotionSpec::Kinematic => {
            let (lv, lw) = wall_motion::drives(c, path, &mesh_motion_keys(s), x)?;
            b.kinematic(lv, lw)
        }
        MotionSpec::Dynamic => {
            return Err(c.invalid(&path.key("motion"), "dynamic", "mesh walls are \"fixed\" or \"kinematic\""))
        }
    };
    let body = b.build().map_err(|e| c.core(path, e))?;
    Ok(BodyPlan { body, name: s.name.clone(), origin: path.to_string() })
}

/// The motion keys of a `[[meshes]]` entry.
fn mesh_motion_keys(s: &MeshWallSpec) -> WallMotionKeys<'_> {
    WallMotionKeys {
        velocity: s.velocity,
        angular_velocity: s.angular_velocity,
        rotation_center: s.rotation_center,
        vibration: s.vibration.as_ref(),
        path: s.path.as_ref(),
        surface_velocity: s.surface_velocity,
    }
}

/// The seed of body `i` of a packing of polyhedra: SplitMix64's finaliser of the packing
/// seed and the index, so that bodies get unrelated streams.
fn body_seed(seed: u64, i: usize) -> u64 {
    let mut z = seed.wrapping_add((i as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A uniformly random rotation from a seed (Shoemake 1992: three uniform numbers).
pub(super) fn seeded_rotation(seed: u64) -> DQuat {
    let u = |k: usize| (body_seed(seed, k) >> 11) as f64 / (1u64 << 53) as f64;
    let (u1, u2, u3) = (u(0), u(1), u(2));
    let tau = std::f64::consts::TAU;
    let (s, c) = ((1.0 - u1).sqrt(), u1.sqrt());
    DQuat::from_xyzw(s * (tau * u2).sin(), s * (tau * u2).cos(), c * (tau * u3).sin(), c * (tau * u3).cos()).normalize()
}

/// The random convex polyhedra of a packing: body `i` is inscribed in placed sphere `i`
/// (hull points at radii ≤ its radius, so bodies never overlap), its shape and rotation
/// from its own seed.
fn packed_polyhedra(
    c: &Check,
    path: &KeyPath,
    spheres: Vec<PlacedSphere>,
    points: u32,
    seed: u64,
    material: granula_core::MaterialId,
    maker: &dyn ShapeMaker,
) -> Result<Vec<BodyPlan>> {
    spheres
        .into_iter()
        .enumerate()
        .map(|(i, s)| {
            let own = body_seed(seed, i);
            let MadeShape { shape, rotation, .. } = maker
                .random_convex(points, s.radius, own)
                .map_err(|problem| c.invalid(&path.key("polyhedra"), points, problem))?;
            let body = RigidBodyBuilder::new(Shape::Custom(shape), s.center)
                .orientation((seeded_rotation(own) * rotation).normalize())
                .material(material)
                .build()
                .map_err(|e| c.core(path, e))?;
            Ok(BodyPlan { body, name: None, origin: format!("{path} (polyhedron {i})") })
        })
        .collect()
}

/// The spheres (or polyhedra) of a `[[packings]]` entry.
pub fn packing_bodies(
    c: &Check,
    path: &KeyPath,
    s: &PackingSpec,
    planar: bool,
    maker: Option<&dyn ShapeMaker>,
) -> Result<Vec<BodyPlan>> {
    let reg = region(c, &path.key("region"), &s.region)?;
    if let (true, Region::Cylinder { axis, .. }) = (planar, reg) {
        if axis != DVec3::Z {
            return Err(c.invalid(
                &path.key("region").key("axis"),
                axis,
                "a planar scene's cylinder is vertical (axis [0, 0, 1])",
            ));
        }
    }
    let dist = size(c, &path.key("size"), &s.size)?;
    if s.count == 0 {
        return Err(c.invalid(&path.key("count"), s.count, "must be >= 1"));
    }
    if s.attempts_per_sphere == 0 || s.attempts_per_sphere > MAX_ATTEMPTS_PER_SPHERE {
        return Err(c.invalid(
            &path.key("attempts_per_sphere"),
            s.attempts_per_sphere,
            format!("must be in [1, {MAX_ATTEMPTS_PER_SPHERE}]"),
        ));
    }
    if !reg.fits(dist.max_radius(), planar) {
        return Err(c.invalid(&path.key("region"), dist.max_radius(), "the region is smaller than the largest sphere"));
    }
    let m = c.material(&path.key("material"), s.material.as_ref())?;
    let (spheres, attempts) = random_packing(reg, s.count, dist, s.seed, s.attempts_per_sphere, planar);
    if spheres.len() < s.count {
        return Err(IoError::PackingFailed { at: c.at(path), placed: spheres.len(), requested: s.count, attempts });
    }
    if let Some(p) = &s.polyhedra {
        if planar {
            return Err(c.invalid(&path.key("polyhedra"), p.points, "polyhedra are not available in planar mode"));
        }
        let Some(maker) = maker else {
            return Err(c.invalid(&path.key("polyhedra"), p.points, NO_MAKER));
        };
        return packed_polyhedra(c, path, spheres, p.points, s.seed, m, maker);
    }
    generated(
        c,
        path,
        spheres,
        Common { material: m, velocity: DVec3::ZERO, motion: MotionSpec::Dynamic, locked: Dofs::NONE },
    )
}

/// Why a scene read without a shape maker refuses polyhedra.
pub const NO_MAKER: &str = "polyhedra need a shape maker: read the scene with granula-run \
    (granula_run::parse_scene / load_scene, or the granula command), not Scene::parse";

/// Why a scene read without a shape maker refuses mesh walls.
pub const NO_MESH_MAKER: &str = "mesh walls need a shape maker: read the scene with granula-run \
    (granula_run::parse_scene / load_scene, or the granula command), not Scene::parse";
