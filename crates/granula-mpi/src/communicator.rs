//! The communication a distributed run needs, behind a small trait: rank and size, one
//! exchange of byte buffers between every pair of ranks, an exchange with the neighbours
//! only, and an all-gather of one number (from which the sums and maxima are taken in rank
//! order, so that they are the same bits on every rank).

/// A group of processes that exchange bytes. Every method is collective: each rank of the
/// group calls it, in the same order.
pub trait Communicator {
    /// This process's rank, `0..size()`.
    fn rank(&self) -> usize;
    /// The number of ranks.
    fn size(&self) -> usize;
    /// Sends `outgoing[r]` to rank `r` (an empty buffer sends nothing) and returns what each
    /// rank sent to this one, indexed by the sender. `outgoing.len()` must be `size()`.
    fn exchange(&self, outgoing: Vec<Vec<u8>>) -> Vec<Vec<u8>>;
    /// The value `x` of every rank, indexed by rank.
    fn all_gather(&self, x: f64) -> Vec<f64>;

    /// Sends each `(rank, bytes)` of `outgoing` to its rank and returns one buffer from
    /// each rank of `sources`, in the order of `sources` (so the receiver processes them in
    /// the order it chose, whatever order they arrive in). Rank `r` must list rank `s` in
    /// its `sources` exactly when `s` sends to `r`, and every rank calls this at the same
    /// point of the run. A backend may send only these messages (point to point); the
    /// default goes through the collective [`Communicator::exchange`].
    fn exchange_with_neighbours(&self, outgoing: Vec<(usize, Vec<u8>)>, sources: &[usize]) -> Vec<Vec<u8>> {
        let mut all = vec![Vec::new(); self.size()];
        for (to, bytes) in outgoing {
            all[to] = bytes;
        }
        let mut received = self.exchange(all);
        sources.iter().map(|&from| std::mem::take(&mut received[from])).collect()
    }

    /// The sum of `x` over the ranks, added in rank order (the same bits on every rank).
    fn sum(&self, x: f64) -> f64 {
        self.all_gather(x).into_iter().fold(0.0, |a, b| a + b)
    }
    /// The largest `x` over the ranks.
    fn max(&self, x: f64) -> f64 {
        self.all_gather(x).into_iter().fold(f64::NEG_INFINITY, f64::max)
    }
    /// The smallest `x` over the ranks.
    fn min(&self, x: f64) -> f64 {
        self.all_gather(x).into_iter().fold(f64::INFINITY, f64::min)
    }
    /// Every rank's `bytes` at rank 0 (indexed by rank), `None` on the other ranks.
    fn gather_to_root(&self, bytes: Vec<u8>) -> Option<Vec<Vec<u8>>> {
        let mut outgoing = vec![Vec::new(); self.size()];
        outgoing[0] = bytes;
        let received = self.exchange(outgoing);
        (self.rank() == 0).then_some(received)
    }
    /// Rank 0's `bytes` on every rank (the argument is read on rank 0 only).
    fn broadcast(&self, bytes: Vec<u8>) -> Vec<u8> {
        let outgoing = if self.rank() == 0 { vec![bytes; self.size()] } else { vec![Vec::new(); self.size()] };
        self.exchange(outgoing).swap_remove(0)
    }
}

/// The group of one process: every exchange returns what it was given, every reduction
/// the value itself. Always compiled; needs no MPI library.
#[derive(Clone, Copy, Debug, Default)]
pub struct SingleProcess;

impl Communicator for SingleProcess {
    fn rank(&self) -> usize {
        0
    }
    fn size(&self) -> usize {
        1
    }
    fn exchange(&self, outgoing: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
        outgoing
    }
    fn all_gather(&self, x: f64) -> Vec<f64> {
        vec![x]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_process_returns_what_it_sends() {
        let c = SingleProcess;
        assert_eq!(c.exchange(vec![vec![1, 2, 3]]), vec![vec![1, 2, 3]]);
        assert_eq!(c.sum(2.5), 2.5);
        assert_eq!(c.max(-1.0), -1.0);
        assert_eq!(c.gather_to_root(vec![7]), Some(vec![vec![7]]));
        assert_eq!(c.broadcast(vec![9, 8]), vec![9, 8]);
        assert_eq!(c.exchange_with_neighbours(vec![(0, vec![4, 2])], &[0]), vec![vec![4, 2]]);
        assert_eq!(c.exchange_with_neighbours(Vec::new(), &[]), Vec::<Vec<u8>>::new());
    }
}
