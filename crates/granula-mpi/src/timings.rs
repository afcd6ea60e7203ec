//! Where a rank's time goes in a distributed run, and what it sends: wall time per phase
//! of the step and the messages and bytes of the ghost refresh and of the redistributions.

use std::time::Instant;

/// Accumulated wall time per phase (s) and traffic of one rank since the run was built
/// (or since [`DistributedTimings::default`] was put in place by
/// [`DistributedRun::reset_timings`](crate::DistributedRun::reset_timings)).
///
/// The communication phases include the time spent waiting for the slowest partner, so
/// a load imbalance shows up there, not in `compute`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DistributedTimings {
    /// Steps timed.
    pub steps: u64,
    /// The solver's step on this rank's world (prediction, contact forces, correction) (s).
    pub compute: f64,
    /// Ghost refresh, packing: the states and integrator memory of the bodies other ranks
    /// hold as ghosts, encoded (s).
    pub refresh_pack: f64,
    /// Ghost refresh, the exchange of the packed states between ranks (s).
    pub refresh_exchange: f64,
    /// Ghost refresh, unpacking: decoding and overwriting the ghosts and their integrator
    /// memory (s).
    pub refresh_unpack: f64,
    /// The per-step reduction over the ranks (failure flags and the largest displacement
    /// since the last redistribution) (s).
    pub reductions: f64,
    /// Redistributions (migration, histories, new ghost layers, world rebuild) (s).
    pub redistribute: f64,
    /// Messages this rank sent in ghost refreshes (non-empty buffers to other ranks).
    pub refresh_messages: u64,
    /// Bytes this rank sent in ghost refreshes.
    pub refresh_bytes: u64,
    /// Messages this rank sent in redistributions (non-empty buffers to other ranks).
    pub redistribute_messages: u64,
    /// Bytes this rank sent in redistributions.
    pub redistribute_bytes: u64,
}

impl DistributedTimings {
    /// Communication time: the three phases of the exchange between ranks (refresh
    /// exchange, reductions, redistributions) (s).
    pub fn communication(&self) -> f64 {
        self.refresh_exchange + self.reductions + self.redistribute
    }

    /// Everything timed (s).
    pub fn total(&self) -> f64 {
        self.compute
            + self.refresh_pack
            + self.refresh_exchange
            + self.refresh_unpack
            + self.reductions
            + self.redistribute
    }

    /// The fields as numbers, in a fixed order (for reductions over the ranks): steps,
    /// compute, refresh pack, exchange, unpack, reductions, redistribute, refresh messages,
    /// refresh bytes, redistribute messages, redistribute bytes.
    pub fn to_array(&self) -> [f64; 11] {
        [
            self.steps as f64,
            self.compute,
            self.refresh_pack,
            self.refresh_exchange,
            self.refresh_unpack,
            self.reductions,
            self.redistribute,
            self.refresh_messages as f64,
            self.refresh_bytes as f64,
            self.redistribute_messages as f64,
            self.redistribute_bytes as f64,
        ]
    }
}

/// Seconds since `since`, and restarts it.
pub(crate) fn lap(since: &mut Instant) -> f64 {
    let now = Instant::now();
    let dt = now.duration_since(*since).as_secs_f64();
    *since = now;
    dt
}

/// Messages (non-empty buffers to other ranks than `rank`) and bytes in `outgoing`.
pub(crate) fn traffic<'a>(rank: usize, outgoing: impl Iterator<Item = (usize, &'a [u8])>) -> (u64, u64) {
    outgoing
        .filter(|(to, bytes)| *to != rank && !bytes.is_empty())
        .fold((0, 0), |(m, b), (_, bytes)| (m + 1, b + bytes.len() as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn traffic_counts_only_non_empty_buffers_to_other_ranks() {
        let buffers: [&[u8]; 3] = [&[1, 2, 3], &[], &[4, 5]];
        // Rank 0 sends to itself (not counted), nothing to rank 1, two bytes to rank 2.
        assert_eq!(traffic(0, buffers.iter().copied().enumerate()), (1, 2));
        let t = DistributedTimings {
            compute: 1.0,
            refresh_exchange: 0.25,
            reductions: 0.125,
            redistribute: 0.5,
            refresh_pack: 2.0,
            ..Default::default()
        };
        // Exact in binary: sums of powers of two.
        assert_eq!(t.communication(), 0.875);
        assert_eq!(t.total(), 3.875);
    }
}
