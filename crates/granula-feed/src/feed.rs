//! A feed: spheres inserted into a running world in batches, at a count or mass rate,
//! into a region, without overlapping anything.
//!
//! The amount due by time t is `rate × (min(t, end) − start)` (none before `start`). A
//! batch draws radii from the size distribution one at a time and handles each while the
//! amount handled (inserted plus not placed) stays within what is due; a radius drawn that
//! would pass it waits for the next batch. So after a batch the amount handled falls short
//! of the amount due by less than one particle (one sphere, or the mass of the waiting
//! radius). Each sphere tries `attempts` uniform centres in the region (the random
//! sequential addition of the scene's packings); one that finds no free centre is counted
//! as not placed and dropped: the feed does not carry a backlog into a full region.

use crate::error::FeedError;
use crate::grid::PlacedSphere;
use crate::obstacles::Obstacles;
use crate::region::Region;
use crate::size::SizeDistribution;
use glam::DVec3;
use granula_core::{
    BodyHandle, DQuat, MassProperties, MaterialId, RigidBody, RigidBodyBuilder, Shape, SphereBuilder, World,
};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// How fast a feed inserts.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum FeedRate {
    /// Spheres per second (1/s).
    Count(f64),
    /// Kilograms per second (kg/s), the masses from the material's density.
    Mass(f64),
}

/// The particles a feed inserts.
#[derive(Clone, Debug, Default)]
pub enum Particle {
    /// Spheres of the drawn radius.
    #[default]
    Sphere,
    /// Particles of a host's shape (random polyhedra), each within the sphere of the drawn
    /// radius about its centre of mass, so that the sphere's placement keeps it clear of
    /// everything.
    Custom(Arc<dyn ParticleMaker>),
}

/// Makes the custom particles of a feed.
pub trait ParticleMaker: Send + Sync + std::fmt::Debug {
    /// The shape of one particle and its orientation, from `seed` (the same seed gives the
    /// same particle): a custom shape whose surface lies within `radius` (m) of its centre
    /// of mass. The error is a sentence saying what is wrong.
    fn make(&self, radius: f64, seed: u64) -> Result<(Shape, DQuat), String>;
}

/// What a feed inserts, where and when. Times in s, lengths in m.
#[derive(Clone, Debug)]
pub struct FeedConfig {
    /// The name in messages and outputs.
    pub name: String,
    /// Where the spheres are placed, each entirely inside.
    pub region: Region,
    /// Their radii.
    pub size: SizeDistribution,
    /// Their material (its density gives their masses).
    pub material: MaterialId,
    /// The rate.
    pub rate: FeedRate,
    /// Initial velocity of every sphere (m/s).
    pub velocity: DVec3,
    /// Time the feed starts (s).
    pub start: f64,
    /// Time the feed stops (s); infinite for a feed that never stops.
    pub end: f64,
    /// Steps between two batches (≥ 1): a batch follows every step whose count is a
    /// multiple of it.
    pub every: u64,
    /// Centres tried per sphere before it counts as not placed (≥ 1).
    pub attempts: u32,
    /// Seed of the feed's random stream (ChaCha8).
    pub seed: u64,
    /// Spheres, or a host's particles inscribed in them.
    pub particle: Particle,
}

/// A feed's running totals since the start of the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FeedCounts {
    /// Spheres inserted.
    pub inserted: u64,
    /// Their mass (kg).
    pub inserted_mass: f64,
    /// Spheres that found no free place.
    pub not_placed: u64,
    /// Their mass (kg).
    pub not_placed_mass: f64,
    /// Batches run.
    pub batches: u64,
}

/// What a feed must carry through a checkpoint: its totals, the position of its random
/// stream and the radius waiting for the next batch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FeedState {
    /// The totals.
    pub counts: FeedCounts,
    /// Position of the ChaCha8 stream, in 32-bit words.
    pub word_pos: u128,
    /// A particle drawn that did not fit in the last batch's due amount.
    pub pending: Option<Drawn>,
}

/// One particle drawn from a feed's stream: its radius and, for a custom particle, the
/// seed of its shape.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Drawn {
    /// Radius of the sphere it is placed as (m).
    pub radius: f64,
    /// Seed of its shape ([`ParticleMaker::make`]); 0 for a sphere.
    pub seed: u64,
}

/// The outcome of one batch.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FeedBatch {
    /// The particles inserted, in order, with their handles.
    pub inserted: Vec<(BodyHandle, Drawn)>,
    /// Spheres of this batch that found no free place.
    pub not_placed: u64,
    /// Their mass (kg).
    pub not_placed_mass: f64,
}

/// A feed acting on a world between steps (see the module documentation).
#[derive(Clone, Debug)]
pub struct Feed {
    config: FeedConfig,
    state: FeedState,
    rng: ChaCha8Rng,
}

/// Relative slack on the amount due, so that a rate times a time that rounds a hair below
/// a whole number of spheres still gives that number.
const DUE_SLACK: f64 = 1e-9;

impl Feed {
    /// A feed from its settings; errors name the feed and the setting at fault.
    pub fn new(config: FeedConfig) -> Result<Feed, FeedError> {
        let invalid = |field, value: String, expected: &str| FeedError::Invalid {
            what: "feed",
            name: config.name.clone(),
            field,
            value,
            expected: expected.to_string(),
        };
        let rate = match config.rate {
            FeedRate::Count(r) | FeedRate::Mass(r) => r,
        };
        if !(rate.is_finite() && rate > 0.0) {
            return Err(invalid("rate", rate.to_string(), "must be finite and > 0"));
        }
        if !(config.start.is_finite() && config.start >= 0.0) {
            return Err(invalid("start", config.start.to_string(), "must be finite and >= 0"));
        }
        if !(config.end > config.start) {
            return Err(invalid("end", config.end.to_string(), "must be > start"));
        }
        if config.every == 0 || config.attempts == 0 {
            return Err(invalid("every or attempts", format!("{}, {}", config.every, config.attempts), "must be >= 1"));
        }
        if !config.velocity.is_finite() {
            return Err(invalid("velocity", format!("{}", config.velocity), "must be finite"));
        }
        if !config.region.fits(config.size.max_radius(), false) {
            return Err(FeedError::RegionTooSmall { name: config.name, radius: config.size.max_radius() });
        }
        let rng = ChaCha8Rng::seed_from_u64(config.seed);
        Ok(Feed { config, state: FeedState::default(), rng })
    }

    /// The settings.
    pub fn config(&self) -> &FeedConfig {
        &self.config
    }

    /// The totals so far.
    pub fn counts(&self) -> FeedCounts {
        self.state.counts
    }

    /// The state for a checkpoint.
    pub fn save_state(&self) -> FeedState {
        FeedState { word_pos: self.rng.get_word_pos(), ..self.state }
    }

    /// Restores a state from [`Feed::save_state`] of a feed with the same settings; a
    /// state with non-finite or negative masses or a bad waiting radius is refused.
    pub fn restore_state(&mut self, state: &FeedState) -> Result<(), FeedError> {
        let c = &state.counts;
        let masses_ok = [c.inserted_mass, c.not_placed_mass].iter().all(|m| m.is_finite() && *m >= 0.0);
        let pending_ok = state.pending.is_none_or(|d| d.radius.is_finite() && d.radius > 0.0);
        if !(masses_ok && pending_ok) {
            return Err(FeedError::Invalid {
                what: "feed",
                name: self.config.name.clone(),
                field: "saved state",
                value: format!("{state:?}"),
                expected: "finite masses >= 0 and a waiting radius > 0".into(),
            });
        }
        self.state = *state;
        self.rng = ChaCha8Rng::seed_from_u64(self.config.seed);
        self.rng.set_word_pos(state.word_pos);
        Ok(())
    }

    /// `true` when a batch follows the step that brought the world to `step`.
    pub fn is_due(&self, step: u64) -> bool {
        step.is_multiple_of(self.config.every)
    }

    /// The amount due by time `t` (s): spheres for a count rate, kg for a mass rate.
    pub fn due(&self, t: f64) -> f64 {
        let elapsed = (t.min(self.config.end) - self.config.start).max(0.0);
        match self.config.rate {
            FeedRate::Count(r) | FeedRate::Mass(r) => r * elapsed,
        }
    }

    /// The amount handled so far (inserted plus not placed), in the rate's unit.
    pub fn handled(&self) -> f64 {
        let c = &self.state.counts;
        match self.config.rate {
            FeedRate::Count(_) => (c.inserted + c.not_placed) as f64,
            FeedRate::Mass(_) => c.inserted_mass + c.not_placed_mass,
        }
    }

    /// The body of drawn particle `d` at `center`, with the feed's material and velocity.
    pub fn body(&self, center: DVec3, d: Drawn) -> Result<RigidBody, FeedError> {
        let built = match &self.config.particle {
            Particle::Sphere => SphereBuilder::new(d.radius, center)
                .material(self.config.material)
                .velocity(self.config.velocity)
                .build(),
            Particle::Custom(maker) => {
                let (shape, q) = maker.make(d.radius, d.seed).map_err(|reason| FeedError::Invalid {
                    what: "feed",
                    name: self.config.name.clone(),
                    field: "particle",
                    value: format!("{d:?}"),
                    expected: reason,
                })?;
                RigidBodyBuilder::new(shape, center)
                    .orientation(q)
                    .material(self.config.material)
                    .velocity(self.config.velocity)
                    .build()
            }
        };
        built.map_err(|e| self.world_error(e))
    }

    /// The mass of drawn particle `d` of the feed's material in `world` (kg), and the
    /// radius of its bounding sphere about its centre of mass (m): the sphere that is
    /// placed. A custom particle inscribed in the drawn sphere has its centre of mass
    /// inside it, so its bounding sphere is at most twice the drawn radius
    /// ([`Feed::largest_reach`]).
    fn mass_and_reach(&self, world: &World, d: Drawn) -> Result<(f64, f64), FeedError> {
        let m = world.materials.get(self.config.material).map_err(|e| self.world_error(e))?;
        let body = self.body(DVec3::ZERO, d)?;
        let (props, reach) = match &body.shape {
            Shape::Sphere { radius } => (Some(MassProperties::solid_sphere(m.density, *radius)), *radius),
            Shape::Custom(c) => {
                let reach = c.surface().map(|s| s.vertices.iter().map(|v| v.length()).fold(0.0, f64::max));
                (c.mass_properties(m.density), reach.unwrap_or(2.0 * d.radius).min(2.0 * d.radius))
            }
            _ => (None, d.radius),
        };
        Ok((props.map_or(f64::NAN, |p| p.mass), reach))
    }

    /// The largest radius of a placed sphere: the distribution's largest radius for
    /// spheres, twice it for custom particles (see `mass_and_reach`).
    pub fn largest_reach(&self) -> f64 {
        match self.config.particle {
            Particle::Sphere => self.config.size.max_radius(),
            Particle::Custom(_) => 2.0 * self.config.size.max_radius(),
        }
    }

    /// The next particle: the one waiting, or a new radius (and shape seed) from the stream.
    fn draw(&mut self) -> Drawn {
        if let Some(d) = self.state.pending {
            return d;
        }
        let radius = self.config.size.sample(&mut self.rng);
        let seed = match self.config.particle {
            Particle::Sphere => 0,
            Particle::Custom(_) => self.rng.next_u64(),
        };
        Drawn { radius, seed }
    }

    fn world_error(&self, source: granula_core::CoreError) -> FeedError {
        FeedError::World { what: "feed", name: self.config.name.clone(), source: Box::new(source) }
    }

    /// Runs one batch at the world's current time: inserts what is due (see the module
    /// documentation) and returns what it inserted and what it could not place. Refuses
    /// a planar or periodic world.
    pub fn feed(&mut self, world: &mut World) -> Result<FeedBatch, FeedError> {
        let unsupported = |reason| FeedError::Unsupported { what: "feed", name: self.config.name.clone(), reason };
        if world.planar {
            return Err(unsupported("a planar world is not supported (feeds insert spheres in 3D)"));
        }
        if world.periodic.is_periodic() {
            return Err(unsupported("a periodic world is not supported (no overlap test across the periods)"));
        }
        let mut batch = FeedBatch::default();
        let due = self.due(world.time()) * (1.0 + DUE_SLACK);
        let mut handled = self.handled();
        let mut obstacles: Option<Obstacles> = None;
        self.state.counts.batches += 1;
        loop {
            let d = self.draw();
            let (mass, reach) = self.mass_and_reach(world, d)?;
            let amount = if matches!(self.config.rate, FeedRate::Count(_)) { 1.0 } else { mass };
            if handled + amount > due {
                self.state.pending = Some(d);
                return Ok(batch);
            }
            self.state.pending = None;
            handled += amount;
            let near = self.config.region.aabb();
            let obstacles = obstacles.get_or_insert_with(|| Obstacles::gather(world, near, self.largest_reach()));
            match self.place(obstacles, reach) {
                Some(center) => {
                    let body = self.body(center, d)?;
                    let h = world.insert(body).map_err(|e| self.world_error(e))?;
                    let i = world.bodies.index(h).map_err(|e| self.world_error(e))?;
                    self.state.counts.inserted += 1;
                    self.state.counts.inserted_mass += world.bodies.mass[i];
                    batch.inserted.push((h, d));
                }
                None => {
                    self.state.counts.not_placed += 1;
                    self.state.counts.not_placed_mass += mass;
                    batch.not_placed += 1;
                    batch.not_placed_mass += mass;
                }
            }
        }
    }

    /// A free centre for a sphere of radius `r` after at most `attempts` tries; the sphere
    /// is added to the obstacles.
    fn place(&mut self, obstacles: &mut Obstacles, r: f64) -> Option<DVec3> {
        for _ in 0..self.config.attempts {
            let s = PlacedSphere { center: self.config.region.sample(r, false, &mut self.rng), radius: r };
            if obstacles.is_free(&s) {
                obstacles.add(s);
                return Some(s.center);
            }
        }
        None
    }
}
