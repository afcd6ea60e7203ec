//! The errors of feeds and outlets: each names the feed or outlet and what is wrong.

use granula_core::CoreError;
use thiserror::Error;

/// An error of a feed or an outlet.
#[derive(Debug, Error)]
pub enum FeedError {
    /// A setting out of its range.
    #[error("{what} `{name}`: {field} = {value} {expected}")]
    Invalid {
        /// `"feed"` or `"outlet"`.
        what: &'static str,
        /// The feed's or outlet's name.
        name: String,
        /// The setting at fault.
        field: &'static str,
        /// Its value, printed.
        value: String,
        /// What it must be.
        expected: String,
    },
    /// The region cannot hold one sphere of the largest radius.
    #[error("feed `{name}`: its region cannot hold a sphere of the largest radius {radius} m")]
    RegionTooSmall {
        /// The feed's name.
        name: String,
        /// The largest radius of its size distribution (m).
        radius: f64,
    },
    /// A world the feed or outlet does not support.
    #[error("{what} `{name}`: {reason}")]
    Unsupported {
        /// `"feed"` or `"outlet"`.
        what: &'static str,
        /// The feed's or outlet's name.
        name: String,
        /// Why.
        reason: &'static str,
    },
    /// The world refused an insertion or a removal.
    #[error("{what} `{name}`: {source}")]
    World {
        /// `"feed"` or `"outlet"`.
        what: &'static str,
        /// The feed's or outlet's name.
        name: String,
        /// The world's error (boxed: it is large).
        #[source]
        source: Box<CoreError>,
    },
}
