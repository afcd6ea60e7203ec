//! Settings of the MD solver.

use crate::error::MdError;
use granula_laws::LocalDamping;

/// Settings of [`MdSolver`](crate::MdSolver): public fields with defaults, to be used with
/// struct-update syntax, `MdConfig { skin: 2e-4, ..Default::default() }`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MdConfig {
    /// Verlet skin (m) of the broadphase's skin layer (`granula_broadphase::VerletPairs`):
    /// candidate pairs are found on bounding boxes inflated by half of it (plus half the
    /// largest law range), and rebuilt only when some box moved more than half of it since
    /// the last rebuild. Default 1e-4 m (the "dense" benchmark's 0.1 mm).
    pub skin: f64,
    /// Number of threads of a private rayon pool, or `None` to use rayon's global pool.
    /// `Some(1)` runs every step in place on the calling thread, without a pool.
    /// Results are bit-identical for every thread count. Default `None`.
    pub threads: Option<usize>,
    /// Steps with fewer candidate pairs than this run in place on the calling thread even
    /// when several threads are available: handing a short step to other threads and back
    /// costs more than it saves, unless the step before took longer than 250 µs on one
    /// thread (an expensive law or shape: then even a small system is worth splitting).
    /// Default 16 384 (about a thousand spheres; on the 2-core bench machine 2 threads were
    /// slower than 1 at N = 1000 and 1.8 times faster at 8000). Results are the same either
    /// way; 0 always uses the threads.
    pub parallel_min_pairs: usize,
    /// Non-viscous (local) body damping of 004 §2.3.2.4, F_d = −α |F| sign(v) per component
    /// and the same on torques (`granula_laws::LocalDamping`, whose constructor validates α).
    /// Default `None`.
    pub local_damping: Option<LocalDamping>,
    /// Recommended upper bound of Δt (s), e.g. from the contact law's parameter helpers
    /// (002 eq. 10: Δt ≲ t_c/5); a larger step adds [`StepWarning::TimeStepTooLarge`]
    /// to the report. Default `None` (no check).
    ///
    /// [`StepWarning::TimeStepTooLarge`]: granula_core::StepWarning::TimeStepTooLarge
    pub max_time_step: Option<f64>,
    /// In which order each body's pair loads are summed ([`LoadOrder`]). Both orders give
    /// bit-identical results on any thread count; [`LoadOrder::Partner`] also makes them
    /// independent of the candidate list (its length, blocks and order), which a run split
    /// over processes needs. Default [`LoadOrder::Blocks`], the faster one.
    pub load_order: LoadOrder,
    /// Bodies in cell order: `Some(K)` stores the bodies in the raster order of their cells
    /// (one largest sphere diameter wide; walls and other shapes last)
    /// at the first step and then at the start of the step after the K-th
    /// rebuild of the candidate list since the one that followed the last reorder, so that
    /// a packing given in random order is read from the caches in the pair pass. Handles
    /// stay; every body keeps its state and the integrator its memory, and forces change
    /// only in the order of their sums (round-off). Each reorder costs one extra rebuild of
    /// the list. Skipped while some body is foreign ([`MdSolver::set_foreign_bodies`]: a
    /// distributed run keeps its own numbering). A checkpoint restores the dense order of
    /// the run only if the world is restored in it (`MdState::primed_handles`,
    /// `granula_core::BodySet::permutation_to`). Default `None`: a packing generated
    /// or read in spatial order gains nothing; set it for bodies inserted in random order
    /// (docs/smooth-dynamics.md, "Bodies in cell order").
    ///
    /// [`MdSolver::set_foreign_bodies`]: crate::MdSolver::set_foreign_bodies
    pub reorder_every: Option<u32>,
    /// On several threads, the pool's other threads poll for the step's parallel work for
    /// the whole step instead of sleeping between its loops
    /// (`granula_core::parallel::with_hot_workers`): each loop starts without waking a
    /// thread. Costs CPU time (the other threads are busy through the serial parts of the
    /// step), saves wall time: at N = 1000 polyhedra on 2 threads, 13 % of the step (555 to
    /// 484 ns per particle-step; docs/polyhedra.md, "Hot workers"). Results are the same
    /// either way. Default `true`; `false` where the cores are shared with other work.
    pub hot_workers: bool,
}

/// The order in which the MD solver sums the loads of a body's pairs. Floating-point
/// addition is not associative, so the order decides the last bits of every force.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LoadOrder {
    /// Grouped by fixed blocks of the candidate list (windows of body indices merged in
    /// block order, or a gather in list order for bodies numbered at random). Fixed by the
    /// list, so the same for any thread count, but a list with other blocks (a subset of
    /// the pairs, as on one process of a distributed run, or a list rebuilt at another
    /// step) may group a body's terms differently.
    #[default]
    Blocks,
    /// Each body sums its incident pairs in increasing dense index of the partner (the
    /// several contact points of one pair are summed first, in feature order, into the
    /// pair's load). Candidates that carry no load add exact zeros, so the sum of a body is
    /// the same whatever other pairs the list holds: two processes that hold a body with
    /// the same partners, in the same relative order, compute the same bits. Costs a
    /// per-pair buffer and a gather (measured in `docs/distributed.md`).
    Partner,
}

impl Default for MdConfig {
    fn default() -> Self {
        MdConfig {
            skin: 1e-4,
            threads: None,
            parallel_min_pairs: 16_384,
            local_damping: None,
            max_time_step: None,
            load_order: LoadOrder::Blocks,
            reorder_every: None,
            hot_workers: true,
        }
    }
}

impl MdConfig {
    /// Checks every field; the error names the field and its value.
    pub fn validate(&self) -> Result<(), MdError> {
        let bad = |field, value, expected| Err(MdError::InvalidConfig { field, value, expected });
        if !(self.skin.is_finite() && self.skin >= 0.0) {
            return bad("skin", self.skin, "finite and >= 0");
        }
        if let Some(n) = self.threads {
            if n == 0 {
                return bad("threads", 0.0, ">= 1 (or None for the global pool)");
            }
        }
        if self.reorder_every == Some(0) {
            return bad("reorder_every", 0.0, ">= 1 rebuilds (or None: never reorder)");
        }
        if let Some(h) = self.max_time_step {
            if !(h.is_finite() && h > 0.0) {
                return bad("max_time_step", h, "finite and > 0");
            }
        }
        Ok(())
    }
}
