//! The body and generator tables of the scene schema.

use serde::{Deserialize, Serialize};

pub use super::wall_motion::{PathSpec, VibrationSpec};

/// How a body moves.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum MotionSpec {
    /// Moved by forces (the default for spheres).
    #[default]
    Dynamic,
    /// Never moves (the default for walls).
    Fixed,
    /// Moves as prescribed whatever the forces: a piston, a rotating drum (spheres: their
    /// constant `velocity` and `angular_velocity`; walls: also a rotation about any axis, a
    /// vibration, a table of positions, a moving surface).
    Kinematic,
}

/// `[[spheres]]`: one sphere.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SphereSpec {
    /// Optional name, for trajectories and messages.
    pub name: Option<String>,
    /// Radius (m), > 0.
    pub radius: f64,
    /// Centre (m).
    #[serde(deserialize_with = "super::exact::array")]
    pub position: [f64; 3],
    /// Initial (or kinematic) velocity (m/s). Default zero.
    #[serde(default, deserialize_with = "super::exact::array")]
    pub velocity: [f64; 3],
    /// Initial (or kinematic) angular velocity (rad/s). Default zero.
    #[serde(default, deserialize_with = "super::exact::array")]
    pub angular_velocity: [f64; 3],
    /// Material name. Default: the first material.
    pub material: Option<String>,
    /// Motion. Default `"dynamic"`.
    #[serde(default)]
    pub motion: MotionSpec,
    /// Constant external force (N), besides gravity. Default zero.
    #[serde(default, deserialize_with = "super::exact::array")]
    pub force: [f64; 3],
    /// Constant external torque (N m). Default zero.
    #[serde(default, deserialize_with = "super::exact::array")]
    pub torque: [f64; 3],
    /// Explicit mass (kg) instead of the material's density.
    pub mass: Option<f64>,
    /// Lock rotation (the sphere can only translate). Default false.
    #[serde(default)]
    pub lock_rotation: bool,
    /// Lock translation along these axes, e.g. `["y", "z"]` for a 1D chain. Default none.
    #[serde(default)]
    pub lock_axes: Vec<String>,
}

/// `[[planes]]`: an infinite plane wall.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PlaneSpec {
    /// Optional name.
    pub name: Option<String>,
    /// A point of the plane (m).
    #[serde(deserialize_with = "super::exact::array")]
    pub point: [f64; 3],
    /// Normal pointing to the side where particles are (any length > 0).
    #[serde(deserialize_with = "super::exact::array")]
    pub normal: [f64; 3],
    /// Material name. Default: the first material.
    pub material: Option<String>,
    /// Motion. Default `"fixed"`; `"dynamic"` needs a `mass`.
    #[serde(default = "fixed")]
    pub motion: MotionSpec,
    /// Velocity (m/s) of a kinematic (piston) or initial velocity of a dynamic plane.
    #[serde(default, deserialize_with = "super::exact::array")]
    pub velocity: [f64; 3],
    /// Mass (kg) of a dynamic plane (a free piston).
    pub mass: Option<f64>,
    /// Constant external force (N) on a dynamic plane, e.g. the load on a piston.
    #[serde(default, deserialize_with = "super::exact::array")]
    pub force: [f64; 3],
    /// Angular velocity (rad/s) of a kinematic plane (a tilting floor).
    #[serde(default, deserialize_with = "super::exact::array")]
    pub angular_velocity: [f64; 3],
    /// Point of the rotation axis of a kinematic wall (m). Default: the wall's reference
    /// point.
    #[serde(default, deserialize_with = "super::exact::option_array")]
    pub rotation_center: Option<[f64; 3]>,
    /// Sinusoidal vibration of a kinematic wall, added to its other motions.
    pub vibration: Option<super::wall_motion::VibrationSpec>,
    /// Table of displacements of a kinematic wall, added to its other motions.
    pub path: Option<super::wall_motion::PathSpec>,
    /// Velocity of the surface of a kinematic wall that stays (a conveyor belt) (m/s).
    #[serde(default, deserialize_with = "super::exact::option_array")]
    pub surface_velocity: Option<[f64; 3]>,
}

pub(super) fn fixed() -> MotionSpec {
    MotionSpec::Fixed
}

/// `[[cylinders]]`: a cylindrical wall.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CylinderSpec {
    /// Optional name.
    pub name: Option<String>,
    /// A point of the axis (m), the middle of a finite cylinder.
    #[serde(deserialize_with = "super::exact::array")]
    pub center: [f64; 3],
    /// Axis direction (any length > 0).
    #[serde(deserialize_with = "super::exact::array")]
    pub axis: [f64; 3],
    /// Radius (m), > 0.
    pub radius: f64,
    /// Length (m); omitted for an infinite cylinder.
    pub length: Option<f64>,
    /// Particles inside (true, a drum or silo) or outside (false, an obstacle). Default true.
    #[serde(default = "yes")]
    pub inside: bool,
    /// Material name. Default: the first material.
    pub material: Option<String>,
    /// Motion. Default `"fixed"`.
    #[serde(default = "fixed")]
    pub motion: MotionSpec,
    /// Angular velocity (rad/s) of a kinematic cylinder (a rotating drum).
    #[serde(default, deserialize_with = "super::exact::array")]
    pub angular_velocity: [f64; 3],
    /// Velocity (m/s) of a kinematic cylinder.
    #[serde(default, deserialize_with = "super::exact::array")]
    pub velocity: [f64; 3],
    /// Point of the rotation axis of a kinematic wall (m). Default: the wall's reference
    /// point.
    #[serde(default, deserialize_with = "super::exact::option_array")]
    pub rotation_center: Option<[f64; 3]>,
    /// Sinusoidal vibration of a kinematic wall, added to its other motions.
    pub vibration: Option<super::wall_motion::VibrationSpec>,
    /// Table of displacements of a kinematic wall, added to its other motions.
    pub path: Option<super::wall_motion::PathSpec>,
    /// Velocity of the surface of a kinematic wall that stays (a conveyor belt) (m/s).
    #[serde(default, deserialize_with = "super::exact::option_array")]
    pub surface_velocity: Option<[f64; 3]>,
}

pub(super) fn yes() -> bool {
    true
}

/// `[[lattices]]`: spheres (or, in a planar scene, polygons) on a simple cubic or a
/// triangular lattice.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LatticeSpec {
    /// Optional generator name (unique among lattices and packings), to select its spheres
    /// in `[output.trajectories] generators`.
    pub name: Option<String>,
    /// Centre of the first sphere (m).
    #[serde(deserialize_with = "super::exact::array")]
    pub origin: [f64; 3],
    /// Number of spheres along x, y, z (≥ 1 each; z must be 1 in planar mode).
    #[serde(deserialize_with = "super::exact::array")]
    pub counts: [u32; 3],
    /// Distance between neighbouring centres (m), ≥ 2 × radius for spheres.
    pub spacing: f64,
    /// Radius of the spheres (m); not with `polygon`.
    pub radius: Option<f64>,
    /// `"cubic"` (default) or `"triangular"` (planar scenes only).
    #[serde(default)]
    pub arrangement: super::polygon_spec::ArrangementKind,
    /// Polygons instead of spheres at the sites (planar scenes only): a `"random"` shape
    /// draws each site's vertex count and seed from `seed`.
    pub polygon: Option<super::polygon_spec::PolygonShapeSpec>,
    /// Seed of the sites' random shapes and angles (polygon sites only). Default 0.
    pub seed: Option<u64>,
    /// Turn each polygon site by a random angle drawn from `seed` (polygon sites only).
    /// Default true.
    pub random_angle: Option<bool>,
    /// Material name. Default: the first material.
    pub material: Option<String>,
    /// Initial velocity of every sphere (m/s). Default zero.
    #[serde(default, deserialize_with = "super::exact::array")]
    pub velocity: [f64; 3],
    /// Motion of every site: `"dynamic"` (default), `"fixed"` (e.g. a rough floor) or
    /// `"kinematic"` (every site moves at `velocity`: a rough wall of glued particles).
    #[serde(default)]
    pub motion: MotionSpec,
    /// Leave out the sites whose centre lies within this vertical cylinder (an orifice in a
    /// floor of fixed spheres).
    pub hole: Option<HoleSpec>,
    /// Lock rotation of every sphere. Default false.
    #[serde(default)]
    pub lock_rotation: bool,
    /// Lock translation along these axes for every sphere. Default none.
    #[serde(default)]
    pub lock_axes: Vec<String>,
}

/// A vertical cylinder of excluded lattice sites.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HoleSpec {
    /// Centre (x, y) of the hole (m).
    #[serde(deserialize_with = "super::exact::array")]
    pub center: [f64; 2],
    /// Radius (m): sites whose centre is closer than this to the axis are left out.
    pub radius: f64,
}

/// `[[packings]]`: a random loose packing without overlaps (random sequential addition).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PackingSpec {
    /// Optional generator name (unique among lattices and packings), to select its spheres
    /// in `[output.trajectories] generators`.
    pub name: Option<String>,
    /// The region the spheres must lie in (entirely).
    pub region: RegionSpec,
    /// Number of spheres.
    pub count: usize,
    /// Radius distribution.
    pub size: SizeSpec,
    /// Seed of the generator (ChaCha8). Default 0.
    #[serde(default)]
    pub seed: u64,
    /// Material name. Default: the first material.
    pub material: Option<String>,
    /// Attempts per sphere before giving up. Default 1000.
    #[serde(default = "default_attempts")]
    pub attempts_per_sphere: usize,
    /// Random convex polyhedra inscribed in the placed spheres instead of the spheres.
    pub polyhedra: Option<super::polyhedra_spec::PackedPolyhedraSpec>,
}

fn default_attempts() -> usize {
    1000
}

/// A region of space.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "shape", rename_all = "snake_case", deny_unknown_fields)]
pub enum RegionSpec {
    /// An axis-aligned box.
    Box {
        /// Lower corner (m).
        #[serde(deserialize_with = "super::exact::array")]
        min: [f64; 3],
        /// Upper corner (m).
        #[serde(deserialize_with = "super::exact::array")]
        max: [f64; 3],
    },
    /// A cylinder along `axis` (default vertical).
    Cylinder {
        /// Centre of the bottom disc (m).
        #[serde(deserialize_with = "super::exact::array")]
        base: [f64; 3],
        /// Direction from the bottom disc to the top one (normalised when read); `None`: z.
        #[serde(default, deserialize_with = "super::exact::option_array")]
        axis: Option<[f64; 3]>,
        /// Radius (m).
        radius: f64,
        /// Height (m).
        height: f64,
    },
}

/// A radius distribution.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "distribution", rename_all = "snake_case", deny_unknown_fields)]
pub enum SizeSpec {
    /// Radii uniform in [min, max].
    Uniform {
        /// Smallest radius (m).
        min: f64,
        /// Largest radius (m).
        max: f64,
    },
    /// Two radii; each sphere is `large` with probability `fraction_large`.
    Bidisperse {
        /// Small radius (m).
        small: f64,
        /// Large radius (m).
        large: f64,
        /// Probability of a large sphere, in [0, 1].
        fraction_large: f64,
    },
    /// ln r normal with median `median` and standard deviation `sigma`, truncated to
    /// [min, max] by redrawing.
    Lognormal {
        /// Median radius (m).
        median: f64,
        /// Standard deviation of ln r.
        sigma: f64,
        /// Smallest accepted radius (m).
        min: f64,
        /// Largest accepted radius (m).
        max: f64,
    },
}
