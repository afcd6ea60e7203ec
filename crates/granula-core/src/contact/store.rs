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
/// indexed like the key list. Rebuilding costs O(n + m) when the old keys are in ascending
/// order and the new ones come in ascending order (a walk along both lists), O(m log n)
/// otherwise, and allocates nothing once the buffers are warm.
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
        self.keys.clear();
        self.states.clear();
        let old = &self.old_keys;
        if old.windows(2).all(|w| w[0] < w[1]) {
            // The usual case (the solvers list their pairs in key order): the old keys are
            // strictly ascending, so a new key is found by walking on from where the last
            // one was, a merge of the two lists in O(n + m); a key below the last one
            // (a list out of order) restarts the walk by bisection. The same states as a
            // bisection per key: keys are unique, so there is one match or none.
            let mut at = 0;
            let mut last: Option<ContactKey> = None;
            for k in new_keys {
                if last.is_some_and(|l| k < l) {
                    at = old.partition_point(|o| *o < k);
                }
                while at < old.len() && old[at] < k {
                    at += 1;
                }
                let s = if at < old.len() && old[at] == k { self.old_states[at] } else { S::default() };
                self.keys.push(k);
                self.states.push(s);
                last = Some(k);
            }
            return;
        }
        // Sorted view of the old keys for binary search.
        self.order.clear();
        self.order.extend(0..old.len() as u32);
        self.order.sort_unstable_by_key(|&i| old[i as usize]);
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

    /// The walk along ascending lists and the bisection give every new key the state a
    /// plain search of the old keys gives: old lists in key order and shuffled, new lists in
    /// key order, with descents, and shuffled, keys below, among and above the old ones.
    #[test]
    fn rebuild_carries_the_states_a_plain_search_finds() {
        use rand::seq::SliceRandom;
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let mut walked = 0;
        for round in 0..400 {
            let mut pool: Vec<ContactKey> = (0..60)
                .map(|_| ContactKey {
                    body1: BodyHandle(rng.random_range(0..8)),
                    body2: BodyHandle(rng.random_range(0..8)),
                    feature: rng.random_range(0..3),
                })
                .collect();
            pool.sort();
            pool.dedup();
            let mut old: Vec<ContactKey> = pool.iter().copied().filter(|_| rng.random_bool(0.5)).collect();
            if round % 3 == 0 {
                old.shuffle(&mut rng);
            }
            let mut new: Vec<ContactKey> = pool.iter().copied().filter(|_| rng.random_bool(0.6)).collect();
            match round % 4 {
                0 => new.shuffle(&mut rng),
                1 if new.len() > 3 => {
                    // Ascending runs with a descent: the tail moved to the front.
                    let cut = rng.random_range(1..new.len() - 1);
                    new.rotate_left(cut);
                }
                _ => {}
            }
            let mut store: ContactStore<u64> = ContactStore::new();
            store.rebuild(old.iter().copied());
            for (i, state) in store.states_mut().iter_mut().enumerate() {
                *state = 1 + i as u64;
            }
            if old.windows(2).all(|w| w[0] < w[1]) {
                walked += 1;
            }
            store.rebuild(new.iter().copied());
            let expected: Vec<u64> =
                new.iter().map(|k| old.iter().position(|o| o == k).map_or(0, |i| 1 + i as u64)).collect();
            assert_eq!(store.keys(), &new[..]);
            assert_eq!(store.states(), &expected[..], "round {round}");
        }
        // Both paths were taken.
        assert!(walked > 100 && walked < 400, "{walked} walks");
    }
}
