//! The schema of `[[feeds]]` and `[[outlets]]`: spheres inserted while the run goes on,
//! and bodies removed where they leave (validated by `feeds.rs`, run by `granula-run`).

use super::body_spec::{RegionSpec, SizeSpec};
use serde::{Deserialize, Serialize};

/// `[[feeds]]`: spheres inserted into a region at a count or mass rate, in batches, never
/// overlapping a body already there (`granula_feed::Feed`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FeedSpec {
    /// Unique name among the feeds (letters, digits, `_`, `-`): the `feed` column of
    /// `feeds.csv`.
    pub name: String,
    /// The region the spheres are placed in, each entirely inside (`shape = "box"` or
    /// `"cylinder"`, as a packing's).
    pub region: RegionSpec,
    /// Radius distribution, as a packing's.
    pub size: SizeSpec,
    /// Spheres per second (1/s); exactly one of `count_rate` and `mass_rate`.
    pub count_rate: Option<f64>,
    /// Kilograms per second (kg/s), the masses from the material's density; exactly one of
    /// `count_rate` and `mass_rate`.
    pub mass_rate: Option<f64>,
    /// Material name. Default: the first material.
    pub material: Option<String>,
    /// Initial velocity of the spheres (m/s). Default zero.
    #[serde(default, deserialize_with = "super::exact::array")]
    pub velocity: [f64; 3],
    /// Time the feed starts (s), ≥ 0. Default 0.
    #[serde(default)]
    pub start: f64,
    /// Time the feed stops (s), > start. Default: never.
    pub end: Option<f64>,
    /// Steps between two batches, ≥ 1. Default 100.
    #[serde(default = "default_feed_every")]
    pub every: u64,
    /// Centres tried per sphere before it counts as not placed. Default 100.
    #[serde(default = "default_attempts")]
    pub attempts_per_sphere: u32,
    /// Seed of the feed's random stream (ChaCha8). Default: the feed's index in
    /// `[[feeds]]`.
    pub seed: Option<u64>,
    /// Random convex polyhedra inscribed in the drawn spheres instead of the spheres, as a
    /// packing's (`polyhedra = { points = 12 }`). Default: spheres.
    pub polyhedra: Option<super::polyhedra_spec::PackedPolyhedraSpec>,
}

fn default_feed_every() -> u64 {
    100
}

fn default_attempts() -> u32 {
    100
}

fn default_outlet_every() -> u64 {
    1
}

/// `[[outlets]]`: the dynamic bodies whose centre is in a region are removed and counted
/// (`granula_feed::Outlet`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct OutletSpec {
    /// Unique name among the outlets (letters, digits, `_`, `-`): the `outlet` column of
    /// `outlets.csv`.
    pub name: String,
    /// Where bodies are removed.
    pub region: OutletRegionSpec,
    /// Steps between two removals, ≥ 1. Default 1 (after every step).
    #[serde(default = "default_outlet_every")]
    pub every: u64,
}

/// The region of an outlet.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "shape", rename_all = "snake_case", deny_unknown_fields)]
pub enum OutletRegionSpec {
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
    /// The half-space behind a plane: centres with (x − point) · normal < 0.
    Below {
        /// A point of the plane (m).
        #[serde(deserialize_with = "super::exact::array")]
        point: [f64; 3],
        /// Normal, pointing out of the removed half-space (normalised when read).
        #[serde(deserialize_with = "super::exact::array")]
        normal: [f64; 3],
    },
}
