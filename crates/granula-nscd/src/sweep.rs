//! Sweep orders of the nonlinear Gauss-Seidel loop (000 §2.5, 004 §2.3.3.5 "the direction
//! of reading the contact set").

use rand::RngCore;
use rand_chacha::ChaCha8Rng;

/// The order in which one sweep visits the contacts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SweepOrder {
    /// The contact list order, every sweep (default). With
    /// [`NscdConfig::momentum`](crate::NscdConfig::momentum) the fastest order measured on
    /// static and slowly moving dense packings at every size tried (1000 to 27000 spheres,
    /// docs/contact-dynamics.md). The list follows the broadphase's pair order, which
    /// keeps neighbours close in memory.
    #[default]
    Forward,
    /// A fresh random permutation each sweep: each contact exactly once per sweep, in an
    /// order drawn anew (000 §2.5; not the random sequential update, which may pick a
    /// contact twice). Seeded by [`NscdConfig::seed`](crate::NscdConfig::seed). The order
    /// of the papers' models of the sweeps' convergence (the chain and the piston of
    /// 000 §3.3, with a fixed number of sweeps per step), whose statistics it follows.
    Random,
}

/// Fills `order` with the visiting order of one sweep over `n` contacts. Allocation-free
/// once `order` has its capacity.
pub(crate) fn fill_order(kind: SweepOrder, n: usize, order: &mut Vec<u32>, rng: &mut ChaCha8Rng) {
    order.clear();
    order.extend(0..n as u32);
    if kind == SweepOrder::Random {
        shuffle(order, rng);
    }
}

/// Fisher-Yates shuffle. The index in `0..=i` is drawn by the multiply-shift map of a
/// 64-bit random word (bias below 2⁻³² for any realistic contact count).
#[inline]
fn shuffle(order: &mut [u32], rng: &mut ChaCha8Rng) {
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
        fill_order(SweepOrder::Random, 100, &mut a, &mut rng);
        fill_order(SweepOrder::Random, 100, &mut b, &mut rng);
        let mut sa = a.clone();
        sa.sort_unstable();
        assert_eq!(sa, (0..100).collect::<Vec<u32>>(), "a permutation");
        assert_ne!(a, b, "a fresh permutation each sweep");
    }

    #[test]
    fn forward_sweep_is_the_list_order() {
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        let mut o = Vec::new();
        fill_order(SweepOrder::Forward, 3, &mut o, &mut rng);
        assert_eq!(o, vec![0, 1, 2]);
    }
}
