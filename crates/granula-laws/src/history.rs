//! Contact history: the typed per-contact state of the sub-models and its frame operations.

use glam::DQuat;
use std::fmt::Debug;

/// The per-contact state of one sub-model.
///
/// Besides carrying state from step to step, a history knows how it looks from the other
/// body ([`SubHistory::reversed`], used when a pair is stored with its bodies swapped) and
/// under a rigid rotation of the whole pair ([`SubHistory::rotated`], e.g. for a rotating
/// frame). Both are involutions/group actions: `h.reversed().reversed() == h`,
/// `h.rotated(q).rotated(q.inverse()) ≈ h`.
pub trait SubHistory: Copy + Default + Send + Sync + Debug + PartialEq {
    /// The same state seen with bodies 1 and 2 swapped (normal and relative motion reversed).
    fn reversed(&self) -> Self;
    /// The same state after a rigid rotation `q` of the pair.
    fn rotated(&self, q: DQuat) -> Self;
}

/// The history of a [`Composed`](crate::Composed) law: one field per slot that has state.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ComposedHistory<D, T, R, W> {
    /// Normal damping state (e.g. the impact velocity of Hunt-Crossley).
    pub damping: D,
    /// Tangential spring.
    pub tangential: T,
    /// Rolling spring.
    pub rolling: R,
    /// Twisting spring.
    pub twisting: W,
}

impl<D: SubHistory, T: SubHistory, R: SubHistory, W: SubHistory> SubHistory for ComposedHistory<D, T, R, W> {
    fn reversed(&self) -> Self {
        ComposedHistory {
            damping: self.damping.reversed(),
            tangential: self.tangential.reversed(),
            rolling: self.rolling.reversed(),
            twisting: self.twisting.reversed(),
        }
    }
    fn rotated(&self, q: DQuat) -> Self {
        ComposedHistory {
            damping: self.damping.rotated(q),
            tangential: self.tangential.rotated(q),
            rolling: self.rolling.rotated(q),
            twisting: self.twisting.rotated(q),
        }
    }
}
