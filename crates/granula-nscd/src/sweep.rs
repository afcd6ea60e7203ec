//! Sweep orders of the nonlinear Gauss-Seidel loop (000 §2.5, 004 §2.3.3.5 "the direction
//! of reading the contact set").

use rand::RngCore;
use rand_chacha::ChaCha8Rng;

/// The order in which one sweep visits the contacts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SweepOrder {
    /// A fresh random permutation each sweep: each contact exactly once per sweep, in an
    /// order drawn anew (000 §2.5; not the random sequential update, which may pick a
    /// contact twice). Seeded by [`NscdConfig::seed`](crate::NscdConfig::seed).
    #[default]
    Random,
    /// The contact list order, every sweep.
    Forward,
    /// Alternately forward and backward through the contact list (symmetric Gauss-Seidel).
    ForwardBackward,
    /// Symmetric Gauss-Seidel along gravity: the contact list is sorted by the height of
    /// the contact points (along −g) at the start of each step, and the sweeps go bottom
    /// up and top down alternately, so that the weight of a column travels its whole
    /// depth in one downward sweep and the floor's reaction in one upward sweep (symmetric
    /// Gauss-Seidel, Saad, *Iterative Methods for Sparse Linear Systems*, §4.1.2; the
    /// ordering idea of LMGC90's reading direction of the contact set, 004 §2.3.3.5).
    /// Without gravity, the contact list order.
    SymmetricGravity,
    /// From the supports outward: contacts sorted by their distance, in contacts, from the
    /// fixed and kinematic bodies (breadth-first over the contact graph; ties by height,
    /// then list order), every sweep in that order (004 §2.3.3.5 on the reading direction).
    SupportsOutward,
    /// Multicolour Gauss-Seidel, parallel within a colour: the contacts are coloured
    /// greedily in list order so that no two contacts of a colour share a movable body
    /// ([`crate::coloured`]), grouped by colour, and each sweep visits the colours in turn
    /// with the contacts of one colour updated in parallel (rayon). The same bits on any
    /// number of threads. A colour spans the whole packing, so one sweep on one thread
    /// costs more than a forward sweep in pair order (no locality): 1.4 times at N = 27000.
    Coloured,
}

/// Fills `order` with the visiting order of sweep number `sweep` (0-based) over `n`
/// contacts. Allocation-free once `order` has its capacity.
pub fn fill_order(kind: SweepOrder, sweep: u32, n: usize, order: &mut Vec<u32>, rng: &mut ChaCha8Rng) {
    order.clear();
    match kind {
        SweepOrder::Forward | SweepOrder::SupportsOutward | SweepOrder::Coloured => order.extend(0..n as u32),
        SweepOrder::ForwardBackward | SweepOrder::SymmetricGravity if sweep % 2 == 1 => {
            order.extend((0..n as u32).rev())
        }
        SweepOrder::ForwardBackward | SweepOrder::SymmetricGravity => order.extend(0..n as u32),
        SweepOrder::Random => {
            order.extend(0..n as u32);
            shuffle(order, rng);
        }
    }
}

/// Sort keys of the contacts for [`SweepOrder::SymmetricGravity`] and
/// [`SweepOrder::SupportsOutward`] (`None` for the other orders): `(key, index)` pairs,
/// sorted, to permute the contact list with. `height[k]` is contact k's height along −g,
/// `bodies[k]` its two dense body indices, `support[i]` whether body i is a support
/// (fixed or kinematic), `n_bodies` the body count.
pub fn order_keys(
    kind: SweepOrder,
    height: &[f64],
    bodies: &[(u32, u32)],
    support: &[bool],
    keys: &mut Vec<(u64, u32)>,
) -> bool {
    keys.clear();
    let n = height.len();
    if n == 0 || !matches!(kind, SweepOrder::SymmetricGravity | SweepOrder::SupportsOutward) {
        return false;
    }
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for &h in height {
        if h.is_finite() {
            lo = lo.min(h);
            hi = hi.max(h);
        }
    }
    let scale = (hi - lo).max(1e-300);
    // Height quantized to 32 bits (below a nanometre per metre of bed).
    let quant = |h: f64| (((h - lo) / scale).clamp(0.0, 1.0) * 4_294_967_295.0) as u64;
    match kind {
        SweepOrder::SymmetricGravity => {
            keys.extend(height.iter().enumerate().map(|(k, &h)| (quant(h), k as u32)));
        }
        _ => {
            // Breadth-first levels over the contact graph from the supports.
            let n_bodies = support.len();
            let mut level = vec![u32::MAX; n_bodies];
            let mut adjacency_start = vec![0u32; n_bodies + 1];
            for &(i, j) in bodies {
                adjacency_start[i as usize + 1] += 1;
                adjacency_start[j as usize + 1] += 1;
            }
            for i in 0..n_bodies {
                adjacency_start[i + 1] += adjacency_start[i];
            }
            let mut fill = adjacency_start.clone();
            let mut adjacent = vec![0u32; 2 * bodies.len()];
            for &(i, j) in bodies {
                adjacent[fill[i as usize] as usize] = j;
                fill[i as usize] += 1;
                adjacent[fill[j as usize] as usize] = i;
                fill[j as usize] += 1;
            }
            let mut queue: std::collections::VecDeque<u32> =
                (0..n_bodies as u32).filter(|&i| support[i as usize]).collect();
            for &i in &queue {
                level[i as usize] = 0;
            }
            while let Some(i) = queue.pop_front() {
                let next = level[i as usize] + 1;
                for &j in &adjacent[adjacency_start[i as usize] as usize..adjacency_start[i as usize + 1] as usize] {
                    if level[j as usize] == u32::MAX && !support[j as usize] {
                        level[j as usize] = next;
                        queue.push_back(j);
                    }
                }
            }
            keys.extend(bodies.iter().zip(height).enumerate().map(|(k, (&(i, j), &h))| {
                let l = level[i as usize].min(level[j as usize]) as u64;
                ((l.min(u32::MAX as u64) << 32) | quant(h), k as u32)
            }));
        }
    }
    keys.sort_unstable();
    true
}

/// Fisher-Yates shuffle. The index in `0..=i` is drawn by the multiply-shift map of a
/// 64-bit random word (bias below 2⁻³² for any realistic contact count).
#[inline]
pub fn shuffle(order: &mut [u32], rng: &mut ChaCha8Rng) {
    for i in (1..order.len()).rev() {
        let k = ((rng.next_u64() as u128 * (i as u128 + 1)) >> 64) as usize;
        order.swap(i, k);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn random_sweep_visits_each_contact_exactly_once_and_changes_each_sweep() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut a = Vec::new();
        let mut b = Vec::new();
        fill_order(SweepOrder::Random, 0, 100, &mut a, &mut rng);
        fill_order(SweepOrder::Random, 1, 100, &mut b, &mut rng);
        let mut sa = a.clone();
        sa.sort_unstable();
        assert_eq!(sa, (0..100).collect::<Vec<u32>>(), "a permutation");
        assert_ne!(a, b, "a fresh permutation each sweep");
    }

    #[test]
    fn supports_outward_orders_by_distance_from_the_supports_then_height() {
        // A chain support 0 – 1 – 2 – 3 – 4 listed from the top, and a branch 2 – 5 lower
        // than all: contact levels 2, 1, 0, 3, 2.
        let bodies = [(2, 3), (1, 2), (0, 1), (3, 4), (2, 5)];
        let height = [3.0, 2.0, 1.0, 0.5, 0.1];
        let support = [true, false, false, false, false, false];
        let mut keys = Vec::new();
        assert!(order_keys(SweepOrder::SupportsOutward, &height, &bodies, &support, &mut keys));
        let order: Vec<u32> = keys.iter().map(|k| k.1).collect();
        assert_eq!(order, vec![2, 1, 4, 0, 3], "by level, level 2 by height");
        assert!(order_keys(SweepOrder::SymmetricGravity, &height, &bodies, &support, &mut keys));
        assert_eq!(keys.iter().map(|k| k.1).collect::<Vec<_>>(), vec![4, 3, 2, 1, 0], "bottom up");
        assert!(!order_keys(SweepOrder::Random, &height, &bodies, &support, &mut keys));
    }

    #[test]
    fn forward_backward_alternates() {
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        let mut o = Vec::new();
        fill_order(SweepOrder::ForwardBackward, 1, 3, &mut o, &mut rng);
        assert_eq!(o, vec![2, 1, 0]);
        fill_order(SweepOrder::ForwardBackward, 2, 3, &mut o, &mut rng);
        assert_eq!(o, vec![0, 1, 2]);
    }
}
