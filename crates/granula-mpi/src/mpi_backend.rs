//! The MPI backend of [`Communicator`] (rsmpi over the system's MPI library), compiled
//! with the crate feature `mpi` only.

use crate::communicator::Communicator;
use mpi::datatype::{Partition, PartitionMut};
use mpi::request::WaitGuard;
use mpi::topology::SimpleCommunicator;
use mpi::traits::{Communicator as _, CommunicatorCollectives as _, Destination as _, Source as _};
use mpi::Count;

/// Tag of the neighbour exchange's point-to-point messages (the collectives travel in their
/// own context, so they cannot match it).
const NEIGHBOUR_TAG: mpi::Tag = 17;

/// `MPI_COMM_WORLD` of this process. MPI is initialised once per process: the first
/// [`Mpi::init`] succeeds, later ones return `None`; it is finalised when the value drops.
pub struct Mpi {
    // Dropped last: finalises MPI after the communicator is gone.
    world: SimpleCommunicator,
    _universe: mpi::environment::Universe,
}

impl std::fmt::Debug for Mpi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Mpi {{ rank: {}, size: {} }}", self.rank(), self.size())
    }
}

impl Mpi {
    /// Initialises MPI; `None` if it was initialised before in this process.
    pub fn init() -> Option<Mpi> {
        let universe = mpi::initialize()?;
        let world = universe.world();
        Some(Mpi { world, _universe: universe })
    }
}

/// A byte count as MPI's count type; a buffer of 2 GiB or more is beyond one MPI call.
fn count(n: usize) -> Count {
    Count::try_from(n).expect("a single exchange buffer below 2 GiB")
}

/// Offsets of consecutive blocks of `counts`.
fn displacements(counts: &[Count]) -> Vec<Count> {
    counts
        .iter()
        .scan(0, |at, &c| {
            let d = *at;
            *at += c;
            Some(d)
        })
        .collect()
}

impl Communicator for Mpi {
    fn rank(&self) -> usize {
        self.world.rank() as usize
    }

    fn size(&self) -> usize {
        self.world.size() as usize
    }

    fn exchange(&self, outgoing: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
        let send_counts: Vec<Count> = outgoing.iter().map(|b| count(b.len())).collect();
        let mut recv_counts = vec![0 as Count; self.size()];
        self.world.all_to_all_into(&send_counts[..], &mut recv_counts[..]);
        // One spare byte in each buffer: two empty buffers share Rust's dangling pointer,
        // which MPI takes for an in-place call with the same send and receive buffer.
        let mut send: Vec<u8> = outgoing.concat();
        send.push(0);
        let send_displs = displacements(&send_counts);
        let recv_displs = displacements(&recv_counts);
        let total: usize = recv_counts.iter().map(|&c| c as usize).sum();
        let mut recv = vec![0u8; total + 1];
        {
            let partition = Partition::new(&send[..send.len() - 1], &send_counts[..], &send_displs[..]);
            let mut into = PartitionMut::new(&mut recv[..total], &recv_counts[..], &recv_displs[..]);
            self.world.all_to_all_varcount_into(&partition, &mut into);
        }
        recv_counts.iter().zip(&recv_displs).map(|(&c, &d)| recv[d as usize..(d + c) as usize].to_vec()).collect()
    }

    /// Nonblocking sends to the destinations, then a blocking receive from each source in
    /// the order given (a matched probe sizes the buffer), then the sends completed. Only
    /// the messages named travel: no collective, no empty message. MPI keeps the order of
    /// the messages between two ranks with the same tag, so a run's successive exchanges
    /// cannot be confused.
    fn exchange_with_neighbours(&self, outgoing: Vec<(usize, Vec<u8>)>, sources: &[usize]) -> Vec<Vec<u8>> {
        mpi::request::scope(|scope| {
            let _sending: Vec<_> = outgoing
                .iter()
                .map(|(to, bytes)| {
                    let process = self.world.process_at_rank(*to as mpi::Rank);
                    WaitGuard::from(process.immediate_send_with_tag(scope, &bytes[..], NEIGHBOUR_TAG))
                })
                .collect();
            // The guards wait for the sends when they drop, after the receives.
            sources
                .iter()
                .map(|&from| self.world.process_at_rank(from as mpi::Rank).receive_vec_with_tag::<u8>(NEIGHBOUR_TAG).0)
                .collect()
        })
    }

    fn all_gather(&self, x: f64) -> Vec<f64> {
        let mut all = vec![0.0; self.size()];
        self.world.all_gather_into(&x, &mut all[..]);
        all
    }
}
