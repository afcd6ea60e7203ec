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
}

/// Fills `order` with the visiting order of sweep number `sweep` (0-based) over `n`
/// contacts. Allocation-free once `order` has its capacity.
pub fn fill_order(kind: SweepOrder, sweep: u32, n: usize, order: &mut Vec<u32>, rng: &mut ChaCha8Rng) {
    order.clear();
    match kind {
        SweepOrder::Forward => order.extend(0..n as u32),
        SweepOrder::ForwardBackward if sweep % 2 == 1 => order.extend((0..n as u32).rev()),
        SweepOrder::ForwardBackward => order.extend(0..n as u32),
        SweepOrder::Random => {
            order.extend(0..n as u32);
            shuffle(order, rng);
        }
    }
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
    fn forward_backward_alternates() {
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        let mut o = Vec::new();
        fill_order(SweepOrder::ForwardBackward, 1, 3, &mut o, &mut rng);
        assert_eq!(o, vec![2, 1, 0]);
        fill_order(SweepOrder::ForwardBackward, 2, 3, &mut o, &mut rng);
        assert_eq!(o, vec![0, 1, 2]);
    }
}
