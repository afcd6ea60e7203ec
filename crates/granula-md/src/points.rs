//! The contact points of the pairs that are not two spheres, each with its own history.
//!
//! Such a pair (a sphere on a wall, a polyhedron on anything, a host shape) has one
//! candidate, and the candidate owns a short list of [`PointState`]s sorted by feature:
//! the contact points the pair had at its last committed evaluation. Each step the force
//! pass calls the pair's narrowphase once, sorts the points it returns by feature and
//! merges them with the list: a point whose feature is in the list continues that
//! history, a new feature starts from `History::default()`, and a listed feature that was
//! not returned is dropped (the elastic energy it still stored is booked as dissipated by
//! sliding, as when a sphere pair opens). The merge writes the new list behind the old one
//! in the same vector and then removes the old part: no allocation once the vector has
//! grown to the pair's largest number of points.
//!
//! The lists live in a column aligned with the candidate list ([`PointStore`]), so the
//! force pass hands each block its own slice of it, like the histories of the sphere pairs.

use granula_core::ContactKey;
use serde::{Deserialize, Serialize};

/// One contact point of a pair: its feature key, the law's history and the elastic energy
/// it stored at its last evaluation (J).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PointState<H> {
    /// Feature key of the point ([`ContactGeometry::feature`](granula_core::ContactGeometry::feature)).
    pub feature: u32,
    /// The contact law's history.
    pub history: H,
    /// Elastic energy stored at the last evaluation (J).
    pub stored: f64,
}

/// The point lists of the candidates, aligned with the candidate list (empty for sphere
/// pairs and for pairs not in contact).
#[derive(Clone, Debug)]
pub(crate) struct PointStore<H> {
    pub lists: Vec<Vec<PointState<H>>>,
    old: Vec<Vec<PointState<H>>>,
    /// Scratch of the rebuild: the old keys of the non-empty lists with their positions.
    found: Vec<(ContactKey, u32)>,
}

impl<H> Default for PointStore<H> {
    fn default() -> Self {
        PointStore { lists: Vec::new(), old: Vec::new(), found: Vec::new() }
    }
}

impl<H: Copy> PointStore<H> {
    /// Realigns the lists, keyed by `old_keys` (the pair keys of the previous candidate
    /// list), with the new candidate list of keys `new_keys`: a pair present in both keeps
    /// its points, a new pair starts with none. Only the non-empty lists are looked up, so a
    /// list of spheres costs one pass over the old lists.
    pub fn rebuild(&mut self, old_keys: &[ContactKey], new_keys: impl ExactSizeIterator<Item = ContactKey>) {
        std::mem::swap(&mut self.lists, &mut self.old);
        self.found.clear();
        for (k, (list, key)) in self.old.iter().zip(old_keys).enumerate() {
            if !list.is_empty() {
                self.found.push((*key, k as u32));
            }
        }
        self.found.sort_unstable_by_key(|f| f.0);
        self.lists.clear();
        self.lists.resize_with(new_keys.len(), Vec::new);
        if self.found.is_empty() {
            return;
        }
        // A merge of the new keys with the sorted old ones: the walk goes on from where the
        // last key was found while the new keys ascend (the solvers list their pairs in key
        // order unless bodies were reordered), and restarts by bisection at a key below the
        // last one. Keys are unique, so either way a key has one match or none.
        let found = &self.found;
        let mut at = 0;
        let mut last: Option<ContactKey> = None;
        for (list, key) in self.lists.iter_mut().zip(new_keys) {
            if last.is_some_and(|l| key < l) {
                at = found.partition_point(|f| f.0 < key);
            }
            last = Some(key);
            while at < found.len() && found[at].0 < key {
                at += 1;
            }
            if at < found.len() && found[at].0 == key {
                *list = std::mem::take(&mut self.old[found[at].1 as usize]);
            }
        }
    }

    /// The points of every candidate as `(candidate, point)`, in candidate order.
    pub fn flatten(&self) -> impl Iterator<Item = (u32, PointState<H>)> + '_ {
        self.lists.iter().enumerate().flat_map(|(k, l)| l.iter().map(move |s| (k as u32, *s)))
    }

    /// Replaces the lists by `points` (as [`PointStore::flatten`] gave them) for `n`
    /// candidates; the caller checked the candidates are in range and in order.
    pub fn restore(&mut self, n: usize, points: &[(u32, PointState<H>)]) {
        self.lists.clear();
        self.lists.resize_with(n, Vec::new);
        for (k, s) in points {
            self.lists[*k as usize].push(*s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use granula_core::BodyHandle;
    use rand::seq::SliceRandom;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn key(a: u32, b: u32) -> ContactKey {
        ContactKey { body1: BodyHandle(a), body2: BodyHandle(b), feature: 0 }
    }

    /// The realigned lists are those of a lookup by key, for key lists in order (the merge
    /// walk) and shuffled (its restarts by bisection), with pairs kept, dropped and new.
    #[test]
    fn rebuild_carries_each_pairs_points_by_key() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for round in 0..200 {
            let all: Vec<ContactKey> = (0..60u32).flat_map(|a| (a + 1..a + 4).map(move |b| key(a, b))).collect();
            let mut old_keys: Vec<ContactKey> = all.iter().copied().filter(|_| rng.random_bool(0.6)).collect();
            let mut new_keys: Vec<ContactKey> = all.iter().copied().filter(|_| rng.random_bool(0.6)).collect();
            if round % 2 == 1 {
                old_keys.shuffle(&mut rng);
            }
            if round % 4 >= 2 {
                new_keys.shuffle(&mut rng);
            }
            // Each old pair holds a point naming its key, or none.
            let lists = old_keys
                .iter()
                .map(|k| {
                    if rng.random_bool(0.3) {
                        vec![PointState { feature: k.body1.0 * 1000 + k.body2.0, history: 0, stored: 0.0 }]
                    } else {
                        Vec::new()
                    }
                })
                .collect();
            let mut store = PointStore::<u8> { lists, ..Default::default() };
            let before: Vec<(ContactKey, Vec<PointState<u8>>)> =
                old_keys.iter().copied().zip(store.lists.iter().cloned()).collect();
            store.rebuild(&old_keys, new_keys.iter().copied());
            assert_eq!(store.lists.len(), new_keys.len());
            for (k, list) in new_keys.iter().zip(&store.lists) {
                let want = before.iter().find(|(o, _)| o == k).map(|(_, l)| l.clone()).unwrap_or_default();
                assert_eq!(*list, want, "round {round}, key {k:?}");
            }
        }
    }
}
