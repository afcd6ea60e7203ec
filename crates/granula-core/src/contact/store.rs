//! Persistent per-pair contact state, carried from step to step by key.

use crate::handle::BodyHandle;

/// Identifies a contact across steps: the two bodies' handles and the geometric feature.
/// Keys order by `(body1, body2, feature)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
pub struct ContactKey {
    /// Handle of body 1.
    pub body1: BodyHandle,
    /// Handle of body 2.
    pub body2: BodyHandle,
    /// Feature key.
    pub feature: u32,
}

/// A flat list of contact states aligned with a list of keys.
///
/// A solver calls [`ContactStore::rebuild`] with the keys of its new contact (or candidate
/// pair) list; states of keys that were already present are carried over, new keys start
/// from `S::default()`, and keys that are gone are dropped. Between rebuilds the states are
/// indexed like the key list. Rebuilding costs O(n log n) and allocates nothing once the
/// buffers are warm.
#[derive(Clone, Debug, Default)]
pub struct ContactStore<S> {
    keys: Vec<ContactKey>,
    states: Vec<S>,
    order: Vec<u32>,
    old_keys: Vec<ContactKey>,
    old_states: Vec<S>,
}

impl<S: Copy + Default> ContactStore<S> {
    /// An empty store.
    pub fn new() -> Self {
        ContactStore {
            keys: Vec::new(),
            states: Vec::new(),
            order: Vec::new(),
            old_keys: Vec::new(),
            old_states: Vec::new(),
        }
    }

    /// Replaces the key list, carrying over the state of keys present before.
    pub fn rebuild(&mut self, new_keys: impl IntoIterator<Item = ContactKey>) {
        std::mem::swap(&mut self.keys, &mut self.old_keys);
        std::mem::swap(&mut self.states, &mut self.old_states);
        // Sorted view of the old keys for binary search.
        self.order.clear();
        self.order.extend(0..self.old_keys.len() as u32);
        let old = &self.old_keys;
        let sorted = old.windows(2).all(|w| w[0] < w[1]);
        if !sorted {
            self.order.sort_unstable_by_key(|&i| old[i as usize]);
        }
        self.keys.clear();
        self.states.clear();
        for k in new_keys {
            let found = self.order.binary_search_by(|&i| old[i as usize].cmp(&k));
            let s = match found {
                Ok(pos) => self.old_states[self.order[pos] as usize],
                Err(_) => S::default(),
            };
            self.keys.push(k);
            self.states.push(s);
        }
    }

    /// The current keys.
    #[inline]
    pub fn keys(&self) -> &[ContactKey] {
        &self.keys
    }

    /// The current states, aligned with [`ContactStore::keys`].
    #[inline]
    pub fn states(&self) -> &[S] {
        &self.states
    }

    /// Mutable states.
    #[inline]
    pub fn states_mut(&mut self) -> &mut [S] {
        &mut self.states
    }

    /// Keys and mutable states together.
    #[inline]
    pub fn split_mut(&mut self) -> (&[ContactKey], &mut [S]) {
        (&self.keys, &mut self.states)
    }

    /// The state of a key, if present (O(n); for tests and tools, not hot loops).
    pub fn get(&self, key: &ContactKey) -> Option<&S> {
        self.keys.iter().position(|k| k == key).map(|i| &self.states[i])
    }

    /// Number of entries.
    #[inline]
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// `true` when empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Replaces the whole content (for checkpoints); keys and states must have equal length.
    pub fn restore(&mut self, keys: Vec<ContactKey>, states: Vec<S>) -> Option<()> {
        if keys.len() != states.len() {
            return None;
        }
        self.keys = keys;
        self.states = states;
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(a: u32, b: u32) -> ContactKey {
        ContactKey { body1: BodyHandle(a), body2: BodyHandle(b), feature: 0 }
    }

    #[test]
    fn state_is_carried_by_key_and_dropped_when_gone() {
        let mut s: ContactStore<f64> = ContactStore::new();
        s.rebuild([key(0, 1), key(0, 2), key(3, 4)]);
        s.states_mut()[0] = 1.0;
        s.states_mut()[1] = 2.0;
        s.states_mut()[2] = 3.0;
        // Reordered, one gone, one new.
        s.rebuild([key(3, 4), key(5, 6), key(0, 1)]);
        assert_eq!(s.states(), &[3.0, 0.0, 1.0]);
        s.rebuild([key(0, 2)]);
        assert_eq!(s.states(), &[0.0], "a pair that left the list restarts from default");
    }
}
