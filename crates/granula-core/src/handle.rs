//! Stable identifiers of bodies and materials.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A stable handle to a body of a [`World`](crate::World).
///
/// Handles are never reused: removing a body retires its handle for good, so a stale
/// handle gives [`CoreError::NoSuchBody`](crate::CoreError::NoSuchBody) instead of
/// silently pointing at another body.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct BodyHandle(pub u32);

impl fmt::Display for BodyHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "body #{}", self.0)
    }
}

/// Index of a material in a [`MaterialTable`](crate::MaterialTable).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct MaterialId(pub u16);

impl fmt::Display for MaterialId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "material #{}", self.0)
    }
}
