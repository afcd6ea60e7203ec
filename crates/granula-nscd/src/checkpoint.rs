//! Checkpoints of the contact-dynamics solver's own state: what the next step depends on
//! besides the bodies, so that a fresh solver continues a restored world bit-identically.

use crate::error::NscdError;
use crate::local::NonSmoothLaw;
use crate::solver::{Carried, NscdSolver};
use granula_core::{Broadphase, ContactKey, CoreError, World};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// The state an [`NscdSolver`] carries from one step to the next, beyond the bodies:
///
/// - the carried state of every contact of the last step by [`ContactKey`]: its impulse and
///   couple impulse (the warm start of the next step) and the law's own state (e.g. a
///   cohesive bond);
/// - the position of the random stream of the sweep order ([`SweepOrder::Random`](crate::SweepOrder)):
///   seed, stream and word position of the ChaCha8 generator;
/// - the count of contact updates (statistics only).
///
/// Everything else (free velocities, Delassus blocks, the contact list) is rebuilt by every
/// step from the bodies and the carried states.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NscdState<S> {
    /// Keys of the carried states, sorted.
    pub keys: Vec<ContactKey>,
    /// Carried states, aligned with `keys`.
    pub carried: Vec<Carried<S>>,
    /// Seed of the sweep's random generator.
    pub rng_seed: [u8; 32],
    /// Stream of the generator.
    pub rng_stream: u64,
    /// Position in the stream, in 32-bit words.
    pub rng_word_pos: u128,
    /// Contact updates so far.
    pub updates: u64,
}

impl<B: Broadphase, L: NonSmoothLaw> NscdSolver<B, L> {
    /// The solver's state for a checkpoint (see [`NscdState`]), taken after a step with the
    /// world saved at the same time.
    pub fn save_state(&self) -> NscdState<L::State>
    where
        L::State: Serialize + for<'de> Deserialize<'de>,
    {
        NscdState {
            keys: self.store.keys().to_vec(),
            carried: self.store.states().to_vec(),
            rng_seed: self.rng.get_seed(),
            rng_stream: self.rng.get_stream(),
            rng_word_pos: self.rng.get_word_pos(),
            updates: self.updates,
        }
    }

    /// Restores a state from [`NscdSolver::save_state`] into a solver with the same law and
    /// configuration, for `world` restored to the saving time (same bodies and handles). The
    /// next step then equals the saving solver's next step bit for bit.
    pub fn restore_state(&mut self, state: &NscdState<L::State>, world: &World) -> Result<(), NscdError>
    where
        L::State: Serialize + for<'de> Deserialize<'de>,
    {
        if state.carried.len() != state.keys.len() {
            return Err(CoreError::InvalidWorld {
                field: "NSCD solver state",
                value: format!("{} keys, {} carried states", state.keys.len(), state.carried.len()),
                expected: "one carried state per key",
            }
            .into());
        }
        let bodies = &world.bodies;
        if let Some(k) = state.keys.iter().find(|k| bodies.index(k.body1).is_err() || bodies.index(k.body2).is_err()) {
            let handle = if bodies.index(k.body1).is_err() { k.body1 } else { k.body2 };
            return Err(CoreError::NoSuchBody { handle }.into());
        }
        // Equal lengths were checked above, so the restore succeeds.
        let _ = self.store.restore(state.keys.clone(), state.carried.clone());
        let mut rng = ChaCha8Rng::from_seed(state.rng_seed);
        rng.set_stream(state.rng_stream);
        rng.set_word_pos(state.rng_word_pos);
        self.rng = rng;
        self.updates = state.updates;
        Ok(())
    }
}
