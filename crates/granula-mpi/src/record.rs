//! What travels between ranks: a body's state (with the integrator's memory for it) and
//! the contact histories of its pairs, keyed by global ids.

use crate::error::DistributedError;
use granula_core::{DQuat, DVec3};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// The state of one dynamic body, as its owner holds it after a step. Everything else about
/// the body (shape, mass, material, locked freedoms, constant loads) is read from the
/// scene, which every rank holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BodyRecord {
    /// Global id: the body's handle in the world built from the scene.
    pub gid: u32,
    /// Position of the centre of mass.
    pub position: DVec3,
    /// Orientation.
    pub orientation: DQuat,
    /// Velocity.
    pub velocity: DVec3,
    /// Angular velocity (world frame).
    pub angular_velocity: DVec3,
    /// Contact force of the last evaluation.
    pub force: DVec3,
    /// Contact torque of the last evaluation.
    pub torque: DVec3,
    /// The integrator's memory for this body ([`granula_core::IntegratorState::per_body`]).
    pub memory: Vec<f64>,
}

impl BodyRecord {
    /// The state of body `i` of `bodies` under global id `gid`, with `memory` as the
    /// integrator's memory for it.
    pub fn of(bodies: &granula_core::BodySet, i: usize, gid: u32, memory: Vec<f64>) -> BodyRecord {
        BodyRecord {
            gid,
            position: bodies.position[i],
            orientation: bodies.orientation[i],
            velocity: bodies.velocity[i],
            angular_velocity: bodies.angular_velocity[i],
            force: bodies.force[i],
            torque: bodies.torque[i],
            memory,
        }
    }
}

/// A contact history between two bodies named by global id (`body1 < body2`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HistoryRecord {
    /// Global id of body 1.
    pub body1: u32,
    /// Global id of body 2.
    pub body2: u32,
    /// Feature of the contact point (0 for two spheres).
    pub feature: u32,
    /// The law's history, bincode.
    pub history: Vec<u8>,
    /// Elastic energy stored at the last step (J).
    pub stored: f64,
}

/// What one rank sends another when the bodies are redistributed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Migration {
    /// Bodies the receiver owns from now on.
    pub owned: Vec<BodyRecord>,
    /// Ghost copies for the receiver, each with its owner's rank.
    pub ghosts: Vec<(u32, BodyRecord)>,
    /// Histories of the pairs of the receiver's owned bodies.
    pub histories: Vec<HistoryRecord>,
}

/// Encodes a message (plain data always encodes).
pub fn encode<T: Serialize>(value: &T) -> Vec<u8> {
    bincode::serialize(value).unwrap_or_default()
}

/// Decodes a message from rank `from` at rank `rank`; an empty buffer is the default value.
pub fn decode<T: DeserializeOwned + Default>(bytes: &[u8], rank: usize, from: usize) -> Result<T, DistributedError> {
    if bytes.is_empty() {
        return Ok(T::default());
    }
    bincode::deserialize(bytes).map_err(|e| DistributedError::Message { rank, from, reason: e.to_string() })
}
