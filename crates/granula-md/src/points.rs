//! The contact points of the pairs that are not two spheres, each with its own history.
//!
//! Such a pair (a sphere on a wall, a polyhedron on anything, a host shape) has one
//! candidate and a short list of points sorted by feature: the contact points the pair had
//! at its last committed evaluation. Each step the force pass calls the pair's narrowphase
//! once, sorts the points it returns by feature and merges them with the list: a point
//! whose feature is in the list continues that history, a new feature starts from
//! `History::default()`, and a listed feature that was not returned is dropped (the
//! elastic energy it still stored is booked as dissipated by sliding, as when a sphere
//! pair opens).
//!
//! The first point of a pair (most pairs have one: a disc or polygon pair, a sphere on a
//! wall) keeps its history and stored energy in the pair's own slots of the columns that
//! hold the sphere pairs' histories, read in candidate order like them; [`PointStore`]
//! keeps its feature and the points after it ([`PairPoints`]), whose list grows to the
//! pair's largest number of points and then allocates no more.

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

/// The points of one candidate besides the history slots: the feature of its first point
/// (`None`: no point; the slots then hold the default history and no energy) and the
/// points after it, in feature order.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct PairPoints<H> {
    pub first: Option<u32>,
    pub more: Vec<PointState<H>>,
}

impl<H> PairPoints<H> {
    /// Whether the pair has no point.
    pub fn is_empty(&self) -> bool {
        self.first.is_none()
    }
}

/// The point lists of the candidates, aligned with the candidate list (empty for sphere
/// pairs and for pairs not in contact).
#[derive(Clone, Debug)]
pub(crate) struct PointStore<H> {
    pub lists: Vec<PairPoints<H>>,
    old: Vec<PairPoints<H>>,
    /// Scratch of the rebuild: the old keys of the non-empty lists with their positions.
    found: Vec<(ContactKey, u32)>,
}

impl<H> Default for PointStore<H> {
    fn default() -> Self {
        PointStore { lists: Vec::new(), old: Vec::new(), found: Vec::new() }
    }
}

impl<H: Copy + Default> PointStore<H> {
    /// Realigns the lists, keyed by `old_keys` (the pair keys of the previous candidate
    /// list), with the new candidate list of keys `new_keys`: a pair present in both keeps
    /// its points, a new pair starts with none (the history slots are realigned by the same
    /// keys). Only the non-empty lists are looked up, so a list of spheres costs one pass
    /// over the old lists.
    pub fn rebuild(&mut self, old_keys: &[ContactKey], new_keys: impl ExactSizeIterator<Item = ContactKey>) {
        std::mem::swap(&mut self.lists, &mut self.old);
        self.found.clear();
        for (k, (list, key)) in self.old.iter().zip(old_keys).enumerate() {
            if !list.is_empty() {
                self.found.push((*key, k as u32));
            }
        }
        sort_by_key(&mut self.found);
        self.lists.clear();
        self.lists.resize_with(new_keys.len(), PairPoints::default);
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

    /// The points of candidate `k`, the first one's history and stored energy from the
    /// pair's slots `history` and `stored`.
    pub fn points_of<'a>(&'a self, k: usize, history: &'a H, stored: f64) -> impl Iterator<Item = PointState<H>> + 'a {
        let list = &self.lists[k];
        let first = list.first.map(|feature| PointState { feature, history: *history, stored });
        first.into_iter().chain(list.more.iter().copied())
    }

    /// The points of every candidate as `(candidate, point)`, in candidate order, with the
    /// pairs' history slots `histories` and `stored`.
    pub fn flatten<'a>(
        &'a self,
        histories: &'a [H],
        stored: &'a [f64],
    ) -> impl Iterator<Item = (u32, PointState<H>)> + 'a {
        let pairs = self.lists.len().min(histories.len()).min(stored.len());
        (0..pairs).flat_map(move |k| self.points_of(k, &histories[k], stored[k]).map(move |s| (k as u32, s)))
    }

    /// `column` (history or stored-energy slots) with the slots of the pairs that have
    /// points reset to the default: the form in which checkpoints keep them (every point
    /// in the point list).
    pub fn without_points<T: Copy + Default>(&self, column: &[T]) -> Vec<T> {
        let has_points = |k: usize| self.lists.get(k).is_some_and(|l| !l.is_empty());
        column.iter().enumerate().map(|(k, v)| if has_points(k) { T::default() } else { *v }).collect()
    }

    /// Replaces the lists by `points` (as [`PointStore::flatten`] gave them) for `n`
    /// candidates, each pair's first point into its slots of `histories` and `stored`; the
    /// caller checked the candidates are in range and each pair's features ascend.
    pub fn restore(&mut self, n: usize, points: &[(u32, PointState<H>)], histories: &mut [H], stored: &mut [f64]) {
        self.lists.clear();
        self.lists.resize_with(n, PairPoints::default);
        for &(k, s) in points {
            let (k, list) = (k as usize, &mut self.lists[k as usize]);
            if list.first.is_none() {
                list.first = Some(s.feature);
                histories[k] = s.history;
                stored[k] = s.stored;
            } else {
                list.more.push(s);
            }
        }
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
                    let feature = k.body1.0 * 1000 + k.body2.0;
                    match rng.random_range(0..3) {
                        0 => PairPoints::default(),
                        1 => PairPoints { first: Some(feature), more: Vec::new() },
                        _ => PairPoints {
                            first: Some(feature),
                            more: vec![PointState { feature: feature + 1, history: 0, stored: 0.0 }],
                        },
                    }
                })
                .collect();
            let mut store = PointStore::<u8> { lists, ..Default::default() };
            let before: Vec<(ContactKey, PairPoints<u8>)> =
                old_keys.iter().copied().zip(store.lists.iter().cloned()).collect();
            store.rebuild(&old_keys, new_keys.iter().copied());
            assert_eq!(store.lists.len(), new_keys.len());
            for (k, list) in new_keys.iter().zip(&store.lists) {
                let want = before.iter().find(|(o, _)| o == k).map(|(_, l)| l.clone()).unwrap_or_default();
                assert_eq!(*list, want, "round {round}, key {k:?}");
            }
        }
    }

    /// The points of pairs with none, one and three points go out through `flatten` (with
    /// the first in the slots) and come back through `restore` unchanged, slots included;
    /// `without_points` clears exactly the slots of pairs with points.
    #[test]
    fn flatten_and_restore_round_trip() {
        let point = |feature, history, stored| PointState { feature, history, stored };
        let lists = vec![
            PairPoints::default(),
            PairPoints { first: Some(4), more: Vec::new() },
            PairPoints { first: Some(1), more: vec![point(2, 20, 2.0), point(9, 90, 9.0)] },
        ];
        let store = PointStore::<u8> { lists, ..Default::default() };
        let (histories, stored) = (vec![7u8, 40, 10], vec![0.5, 4.0, 1.0]);
        let flat: Vec<(u32, PointState<u8>)> = store.flatten(&histories, &stored).collect();
        let want = [(1, point(4, 40, 4.0)), (2, point(1, 10, 1.0)), (2, point(2, 20, 2.0)), (2, point(9, 90, 9.0))];
        assert_eq!(flat, want);
        assert_eq!(store.without_points(&histories), vec![7, 0, 0]);
        assert_eq!(store.without_points(&stored), vec![0.5, 0.0, 0.0]);
        let mut back = PointStore::<u8>::default();
        let (mut h, mut e) = (store.without_points(&histories), store.without_points(&stored));
        back.restore(3, &flat, &mut h, &mut e);
        assert_eq!(back.lists, store.lists);
        assert_eq!((h, e), (histories, stored));
    }
}
