//! The ghost refresh's message: one flat record per body, written into and read from a byte
//! buffer directly (no allocation per record): the global id and the number of memory
//! values (two little-endian `u32`), then the state's 19 doubles (position 3, orientation 4,
//! velocity 3, angular velocity 3, force 3, torque 3) and the integrator's memory for the
//! body, all little-endian `f64`.

use crate::error::DistributedError;
use granula_core::{DQuat, DVec3};

/// A body's state as the refresh carries it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct GhostState {
    pub position: DVec3,
    pub orientation: DQuat,
    pub velocity: DVec3,
    pub angular_velocity: DVec3,
    pub force: DVec3,
    pub torque: DVec3,
}

/// Doubles of a [`GhostState`].
const STATE_VALUES: usize = 19;

/// Bytes of a record with `width` memory values.
pub(crate) fn record_bytes(width: usize) -> usize {
    8 + 8 * (STATE_VALUES + width)
}

/// Appends the record of body `gid` to `out`.
pub(crate) fn push(out: &mut Vec<u8>, gid: u32, s: &GhostState, memory: &[f64]) {
    out.extend_from_slice(&gid.to_le_bytes());
    out.extend_from_slice(&(memory.len() as u32).to_le_bytes());
    let q = s.orientation;
    let values = [
        s.position.x,
        s.position.y,
        s.position.z,
        q.x,
        q.y,
        q.z,
        q.w,
        s.velocity.x,
        s.velocity.y,
        s.velocity.z,
        s.angular_velocity.x,
        s.angular_velocity.y,
        s.angular_velocity.z,
        s.force.x,
        s.force.y,
        s.force.z,
        s.torque.x,
        s.torque.y,
        s.torque.z,
    ];
    for v in values.iter().chain(memory) {
        out.extend_from_slice(&v.to_le_bytes());
    }
}

/// Reads the records of a message from rank `from` at rank `rank` in order.
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    rank: usize,
    from: usize,
}

impl<'a> Reader<'a> {
    /// A reader of `bytes`.
    pub fn new(bytes: &'a [u8], rank: usize, from: usize) -> Self {
        Reader { bytes, rank, from }
    }

    /// The next record (`None` at the end): its global id and state, its memory values
    /// written into `memory` (cleared first). A truncated record is an error naming both
    /// ranks.
    pub fn next(&mut self, memory: &mut Vec<f64>) -> Result<Option<(u32, GhostState)>, DistributedError> {
        if self.bytes.is_empty() {
            return Ok(None);
        }
        let truncated = || DistributedError::Message {
            rank: self.rank,
            from: self.from,
            reason: format!("ghost record truncated ({} bytes left)", self.bytes.len()),
        };
        let word =
            |k: usize| -> Option<u32> { Some(u32::from_le_bytes(self.bytes.get(4 * k..4 * k + 4)?.try_into().ok()?)) };
        let (Some(gid), Some(width)) = (word(0), word(1)) else {
            return Err(truncated());
        };
        let width = width as usize;
        let size = record_bytes(width);
        let Some(record) = self.bytes.get(8..size) else {
            return Err(truncated());
        };
        let mut values = record.chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")));
        let mut v = [0.0; STATE_VALUES];
        for slot in &mut v {
            *slot = values.next().unwrap_or(0.0);
        }
        memory.clear();
        memory.extend(values);
        self.bytes = &self.bytes[size..];
        let state = GhostState {
            position: DVec3::new(v[0], v[1], v[2]),
            orientation: DQuat::from_xyzw(v[3], v[4], v[5], v[6]),
            velocity: DVec3::new(v[7], v[8], v[9]),
            angular_velocity: DVec3::new(v[10], v[11], v[12]),
            force: DVec3::new(v[13], v[14], v[15]),
            torque: DVec3::new(v[16], v[17], v[18]),
        };
        Ok(Some((gid, state)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_come_back_with_the_same_bits_and_truncation_is_named() {
        let s = GhostState {
            position: DVec3::new(0.1, -2.5e-300, f64::MIN_POSITIVE),
            orientation: DQuat::from_xyzw(0.5, -0.5, 0.5, 0.5),
            velocity: DVec3::new(1.0 / 3.0, 0.0, -0.0),
            angular_velocity: DVec3::new(7.0, 8.0, 9.0),
            force: DVec3::new(-1e-12, 2e12, 3.0),
            torque: DVec3::new(4.0, 5.0, 6.0),
        };
        let mut out = Vec::new();
        push(&mut out, 42, &s, &[1.5, -2.25]);
        push(&mut out, 7, &s, &[]);
        assert_eq!(out.len(), record_bytes(2) + record_bytes(0));
        let mut reader = Reader::new(&out, 1, 0);
        let mut memory = Vec::new();
        let (gid, back) = reader.next(&mut memory).unwrap().unwrap();
        // Bit for bit, -0.0 included (PartialEq would accept 0.0 for -0.0).
        assert_eq!((gid, memory.as_slice()), (42, &[1.5, -2.25][..]));
        assert_eq!(back.velocity.z.to_bits(), (-0.0f64).to_bits());
        assert_eq!(back, s);
        let (gid, back) = reader.next(&mut memory).unwrap().unwrap();
        assert_eq!((gid, memory.len(), back), (7, 0, s));
        assert!(reader.next(&mut memory).unwrap().is_none());
        let cut = &out[..out.len() - 3];
        let mut reader = Reader::new(cut, 1, 0);
        reader.next(&mut memory).unwrap();
        let e = reader.next(&mut memory).unwrap_err().to_string();
        assert!(e.contains("rank 1") && e.contains("rank 0") && e.contains("truncated"), "{e}");
    }
}
