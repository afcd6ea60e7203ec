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
/// otherwise, and allocates nothing once the buffers are warm. Stores that always hold the
/// same keys (one state per candidate pair in several columns) search once:
/// [`ContactStore::rebuild_as`] repeats another store's last rebuild in O(m).
#[derive(Clone, Debug, Default)]
pub struct ContactStore<S> {
    keys: Vec<ContactKey>,
    states: Vec<S>,
    order: Vec<(ContactKey, u32)>,
    old_keys: Vec<ContactKey>,
    old_states: Vec<S>,
    /// Per key of the last rebuild, the position of the same key before it, or [`NEW_KEY`].
    found_at: Vec<u32>,
}

/// A key of the last rebuild that was not in the list before it.
const NEW_KEY: u32 = u32::MAX;

impl<S: Copy + Default> ContactStore<S> {
    /// An empty store.
    pub fn new() -> Self {
        ContactStore {
            keys: Vec::new(),
            states: Vec::new(),
            order: Vec::new(),
            old_keys: Vec::new(),
            old_states: Vec::new(),
            found_at: Vec::new(),
        }
    }

    /// Replaces the key list, carrying over the state of keys present before.
    pub fn rebuild(&mut self, new_keys: impl IntoIterator<Item = ContactKey>) {
        std::mem::swap(&mut self.keys, &mut self.old_keys);
        std::mem::swap(&mut self.states, &mut self.old_states);
        self.keys.clear();
        self.states.clear();
        self.found_at.clear();
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
                let found = at < old.len() && old[at] == k;
                self.keys.push(k);
                self.states.push(if found { self.old_states[at] } else { S::default() });
                self.found_at.push(if found { at as u32 } else { NEW_KEY });
                last = Some(k);
            }
            return;
        }
        // The old keys with their positions, sorted for binary search (side by side in
        // memory: a search step reads one entry, not an index and then a key).
        self.order.clear();
        self.order.extend(old.iter().enumerate().map(|(i, k)| (*k, i as u32)));
        sort_by_key(&mut self.order);
        for k in new_keys {
            let found = self.order.binary_search_by(|o| o.0.cmp(&k));
            let at = found.map_or(NEW_KEY, |pos| self.order[pos].1);
            self.keys.push(k);
            self.states.push(if at == NEW_KEY { S::default() } else { self.old_states[at as usize] });
            self.found_at.push(at);
        }
    }

    /// Repeats `leader`'s last [`rebuild`](ContactStore::rebuild) on this store: the same new
    /// keys, each carrying this store's state of the same key, in one pass without a search,
    /// when this store held the keys `leader` held before its rebuild (columns of one
    /// candidate list kept in step). Otherwise a plain `rebuild` with `leader`'s keys: the
    /// same result either way.
    pub fn rebuild_as<T>(&mut self, leader: &ContactStore<T>) {
        if self.keys != leader.old_keys || leader.found_at.len() != leader.keys.len() {
            self.rebuild(leader.keys.iter().copied());
            return;
        }
        std::mem::swap(&mut self.keys, &mut self.old_keys);
        std::mem::swap(&mut self.states, &mut self.old_states);
        self.keys.clone_from(&leader.keys);
        self.found_at.clone_from(&leader.found_at);
        self.states.clear();
        let old = &self.old_states;
        self.states.extend(leader.found_at.iter().map(|&at| old.get(at as usize).copied().unwrap_or_default()));
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
        self.found_at.clear();
        Some(())
    }
}

/// Sorts (key, position) entries by key. Outside the generic store, so that every history
/// type shares one compiled sort.
fn sort_by_key(entries: &mut [(ContactKey, u32)]) {
    entries.sort_unstable_by_key(|e| e.0);
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

    /// A store kept in step with a leader repeats the leader's rebuild: the states a rebuild
    /// of its own gives, over shuffled and ascending lists; out of step (other keys before),
    /// it falls back to its own rebuild.
    #[test]
    fn rebuild_as_gives_the_states_of_a_rebuild() {
        use rand::seq::SliceRandom;
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let (mut leader, mut follower, mut own): (ContactStore<u8>, ContactStore<u64>, ContactStore<u64>) =
            (ContactStore::new(), ContactStore::new(), ContactStore::new());
        for round in 0..300 {
            let mut new: Vec<ContactKey> =
                (0..40).map(|_| key(rng.random_range(0..9), rng.random_range(0..9))).collect();
            new.sort();
            new.dedup();
            new.retain(|_| rng.random_bool(0.7));
            if round % 2 == 0 {
                new.shuffle(&mut rng);
            }
            if round % 50 == 7 {
                // Out of step: the follower holds other keys than the leader did.
                follower.rebuild([key(99, 100)]);
                own.rebuild([key(99, 100)]);
            }
            for (i, (f, o)) in follower.states_mut().iter_mut().zip(own.states_mut()).enumerate() {
                (*f, *o) = (round * 1000 + i as u64, round * 1000 + i as u64);
            }
            leader.rebuild(new.iter().copied());
            follower.rebuild_as(&leader);
            own.rebuild(new.iter().copied());
            assert_eq!(follower.keys(), own.keys(), "round {round}");
            assert_eq!(follower.states(), own.states(), "round {round}");
        }
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
