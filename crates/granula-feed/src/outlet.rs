//! An outlet: the dynamic bodies whose centre lies in a region are removed from the world
//! and counted.

use crate::error::FeedError;
use crate::region::OutletRegion;
use granula_core::{BodyHandle, MotionKind, World};
use serde::{Deserialize, Serialize};

/// Where and how often an outlet removes bodies.
#[derive(Clone, Debug, PartialEq)]
pub struct OutletConfig {
    /// The name in messages and outputs.
    pub name: String,
    /// Where bodies are removed.
    pub region: OutletRegion,
    /// Steps between two removals (≥ 1): after every step whose count is a multiple of it.
    pub every: u64,
}

/// An outlet's running totals since the start of the run; also its whole checkpoint state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct OutletCounts {
    /// Bodies removed.
    pub removed: u64,
    /// Their mass (kg).
    pub removed_mass: f64,
}

/// An outlet acting on a world between steps.
#[derive(Clone, Debug)]
pub struct Outlet {
    config: OutletConfig,
    counts: OutletCounts,
}

impl Outlet {
    /// An outlet from its settings; a zero `every` or a plane normal that is not a finite
    /// unit vector is refused, naming the outlet.
    pub fn new(config: OutletConfig) -> Result<Outlet, FeedError> {
        let invalid = |field, value: String, expected: &str| FeedError::Invalid {
            what: "outlet",
            name: config.name.clone(),
            field,
            value,
            expected: expected.to_string(),
        };
        if config.every == 0 {
            return Err(invalid("every", "0".into(), "must be >= 1"));
        }
        if let OutletRegion::Below { point, normal } = config.region {
            if !(point.is_finite() && normal.is_finite() && (normal.length() - 1.0).abs() < 1e-12) {
                return Err(invalid("normal", format!("{normal}"), "must be a finite unit vector"));
            }
        }
        Ok(Outlet { config, counts: OutletCounts::default() })
    }

    /// The settings.
    pub fn config(&self) -> &OutletConfig {
        &self.config
    }

    /// The totals so far (also the checkpoint state).
    pub fn counts(&self) -> OutletCounts {
        self.counts
    }

    /// Restores the totals of a checkpoint; non-finite or negative masses are refused.
    pub fn restore_counts(&mut self, counts: OutletCounts) -> Result<(), FeedError> {
        if !(counts.removed_mass.is_finite() && counts.removed_mass >= 0.0) {
            return Err(FeedError::Invalid {
                what: "outlet",
                name: self.config.name.clone(),
                field: "saved removed mass",
                value: counts.removed_mass.to_string(),
                expected: "finite and >= 0".into(),
            });
        }
        self.counts = counts;
        Ok(())
    }

    /// `true` when the outlet acts after the step that brought the world to `step`.
    pub fn is_due(&self, step: u64) -> bool {
        step.is_multiple_of(self.config.every)
    }

    /// Removes every dynamic body whose centre is in the region, in handle order, and
    /// returns their handles. Walls, fixed and kinematic bodies stay.
    pub fn remove(&mut self, world: &mut World) -> Result<Vec<BodyHandle>, FeedError> {
        let b = &world.bodies;
        let mut gone: Vec<(BodyHandle, f64)> = (0..b.len())
            .filter(|&i| b.motion[i] == MotionKind::Dynamic && self.config.region.contains(b.position[i]))
            .map(|i| (b.handle[i], b.mass[i]))
            .collect();
        gone.sort_by_key(|g| g.0);
        for &(h, m) in &gone {
            world.remove(h).map_err(|source| FeedError::World {
                what: "outlet",
                name: self.config.name.clone(),
                source: Box::new(source),
            })?;
            self.counts.removed += 1;
            self.counts.removed_mass += m;
        }
        Ok(gone.into_iter().map(|g| g.0).collect())
    }
}
