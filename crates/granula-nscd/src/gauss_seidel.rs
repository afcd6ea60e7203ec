//! Step 5 of the Moreau-Jean step: the nonlinear Gauss-Seidel loop over the contacts
//! (004 §2.3.3.4; 000 §2.5), until the convergence criterion stops it (000 eqs. 35-37 or the
//! natural map).
//!
//! Each sweep first solves the hyperstatic pairs as blocks ([`crate::pair_lock`]), then
//! updates every other contact once, in the configured order ([`SweepOrder`]). With
//! [`NscdConfig::momentum`](crate::NscdConfig::momentum) the impulses are extrapolated
//! between sweeps (Nesterov 1983) with an adaptive restart (O'Donoghue and Candès 2015).

use crate::bodies::{BodyMobility, BodyVelocity};
use crate::config::NonConvergence;
use crate::contacts::{ContactList, Couple, HotContact};
use crate::convergence::{ConvergenceMonitor, Criterion};
use crate::kernels::{apply, update, update6, LawSolve, LocalSolve, ProcessSolve};
use crate::local::NonSmoothLaw;
use crate::prefetch::prefetch;
use crate::residual::natural_map_residual;
use crate::solver::NscdSolver;
use crate::sweep::fill_order;
use granula_core::{Broadphase, DMat3, DVec3};

/// How many updates ahead a contact record is prefetched.
const PREFETCH_RECORD: usize = 16;
/// How many updates ahead the two bodies of a contact are prefetched.
const PREFETCH_BODIES: usize = 8;

impl<B: Broadphase, L: NonSmoothLaw> NscdSolver<B, L> {
    /// Step 5: sweeps until the criterion stops the loop; returns (sweeps, converged,
    /// residual).
    pub(crate) fn iterate(&mut self, dt: f64) -> (u32, bool, f64) {
        let criterion = match self.config.on_cap {
            NonConvergence::Extend { hard_cap } => self.config.criterion.with_cap(hard_cap),
            _ => self.config.criterion,
        };
        let fixed = matches!(self.config.criterion, Criterion::Fixed { .. });
        let lock = self.config.lock_pairs && !L::COUPLES && !fixed;
        let hot = if lock { &self.contacts.hot[..] } else { &[] };
        self.pair_lock.setup(hot, &self.contacts.process_of, &self.mob);
        let n = self.contacts.len();
        if n == 0 {
            return (0, true, 0.0);
        }
        let mut monitor = ConvergenceMonitor::new(criterion, dt);
        monitor.start(self.contacts.hot.iter().map(|c| c.p), n);
        let accelerate = self.config.momentum && !L::COUPLES;
        if accelerate {
            self.previous.clear();
            self.previous.extend(self.contacts.hot.iter().map(|c| c.p));
        }
        let (mut sweeps, mut since_restart, mut last_residual) = (0u32, 0u32, f64::INFINITY);
        // With momentum and the natural map, a step that reaches the cap returns to its
        // best iterate (`keep_best`).
        let keep_best = accelerate && matches!(criterion, Criterion::NaturalMap { .. });
        let mut best_residual = f64::INFINITY;
        loop {
            sweeps += 1;
            // A fixed N_I needs the per-sweep statistics only for the reported residual.
            let track = !matches!(self.config.criterion, Criterion::Fixed { iterations } if sweeps + 1 < iterations);
            self.sweep(&mut monitor, track);
            let (mut stop, mut ok, mut residual) = monitor.end_sweep(sweeps);
            if let Criterion::NaturalMap { epsilon, max_iterations } = criterion {
                if let Some(e) = natural_map_residual(&self.law, &self.contacts, &self.vel) {
                    (ok, residual) = (e <= epsilon, e);
                    stop = ok || sweeps >= max_iterations;
                }
            }
            if stop {
                if !ok && keep_best {
                    residual = self.return_to_best(residual, last_residual, best_residual);
                }
                return (sweeps, ok, residual);
            }
            if keep_best && residual > last_residual && last_residual < best_residual {
                // The last sweep's output, still in `previous`, was the best so far.
                best_residual = last_residual;
                self.best.clone_from(&self.previous);
            }
            if accelerate {
                since_restart += 1;
                if residual > last_residual {
                    since_restart = 1;
                }
                last_residual = residual;
                let beta = (since_restart as f64 - 1.0) / (since_restart as f64 + 2.0);
                self.extrapolate(beta);
            }
        }
    }

    /// The end of a step stopped by the cap with momentum: the impulses of the best sweep
    /// on the natural map, with the bodies' velocities, and its residual. The candidates are
    /// the last sweep (`residual`), the one before it (`last`, its output still in
    /// `previous`) and the best kept at an earlier restart (`best`, in `self.best`).
    ///
    /// The sweeps are not monotone: a Gauss-Seidel sweep on a wedged contact set can leave
    /// a nearly solved state and move away from it for the rest of the cap (measured: a
    /// stone in a 90° valley, natural-map residual 1.6e-4 after 15 sweeps, 1.05 after
    /// 1000, with impulses that threw its neighbours out at 8 m/s).
    fn return_to_best(&mut self, residual: f64, last: f64, best: f64) -> f64 {
        if residual <= last.min(best) {
            return residual;
        }
        if last < best {
            std::mem::swap(&mut self.best, &mut self.previous);
        }
        // The velocities are rebuilt from the free ones, v = v_free + M⁻¹ H P (as the warm
        // start builds them): after a diverging sweep, adding the difference of the
        // impulses would cancel large numbers.
        self.vel.clone_from(&self.free);
        for (c, best) in self.contacts.hot.iter_mut().zip(&self.best) {
            c.p = *best;
            if c.p != DVec3::ZERO {
                apply(c, c.to_world(c.p), &mut self.vel, &self.mob);
            }
        }
        last.min(best)
    }

    /// Nesterov's extrapolation of the impulses by β (P − P_previous), projected onto the
    /// law's admissible set and exchanged with the bodies; P_previous ← P (the sweep's
    /// output).
    fn extrapolate(&mut self, beta: f64) {
        for (c, prev) in self.contacts.hot.iter_mut().zip(self.previous.iter_mut()) {
            let p = c.p;
            if beta > 0.0 {
                if let Some(y) = self.law.project(&c.params, p + (p - *prev) * beta) {
                    let dy = y - p;
                    if dy != DVec3::ZERO {
                        apply(c, c.to_world(dy), &mut self.vel, &self.mob);
                        c.p = y;
                    }
                }
            }
            *prev = p;
        }
    }

    /// One Gauss-Seidel sweep in the configured order; records every update in `monitor`
    /// when `track`.
    fn sweep(&mut self, monitor: &mut ConvergenceMonitor, track: bool) {
        let n = self.contacts.len();
        monitor.begin_sweep();
        self.updates += n as u64;
        // The block solves of the hyperstatic pairs come first; their contacts are then one
        // unknown each pair, which the point updates leave alone (block Gauss-Seidel).
        if self.pair_lock.active() {
            let ContactList { hot, .. } = &mut self.contacts;
            self.pair_lock.lock_all(&self.law, hot, &mut self.vel, &self.mob, |p, dp| {
                if track {
                    monitor.record(p, dp);
                }
            });
        }
        fill_order(self.config.sweep, n, &mut self.order, &mut self.rng);
        let ContactList { hot, coupled, couples, processes, process_of, .. } = &mut self.contacts;
        let (law, order, solved) = (&self.law, &self.order[..], &self.pair_lock.solved[..]);
        let (vel, mob) = (&mut self.vel[..], &self.mob[..]);
        // The local solve is chosen once per sweep: a step without impact processes runs the
        // law's own solve on every contact, with no test per contact.
        if processes.is_empty() {
            point_updates(law, &LawSolve, order, solved, hot, coupled, couples, vel, mob, monitor, track);
        } else {
            let how = ProcessSolve { process_of, processes };
            point_updates(law, &how, order, solved, hot, coupled, couples, vel, mob, monitor, track);
        }
    }
}

/// The point updates of one sweep in the order `order`, skipping the contacts `solved` by
/// the block solves (empty: none), each contact's local solve as `how` chooses it; records
/// every update in `monitor` when `track`. Inlined into the sweep, as the loop was before it
/// had two forms: out of line, the settling box ran 0.8 % more instructions and 18 % more
/// stores.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn point_updates<L: NonSmoothLaw, S: LocalSolve<L>>(
    law: &L,
    how: &S,
    order: &[u32],
    solved: &[bool],
    hot: &mut [HotContact<L::Params>],
    coupled: &[DMat3],
    couples: &mut [Couple],
    vel: &mut [BodyVelocity],
    mob: &[BodyMobility],
    monitor: &mut ConvergenceMonitor,
    track: bool,
) {
    let n = order.len();
    let record_lines = std::mem::size_of::<HotContact<L::Params>>().div_ceil(64);
    for k in 0..n {
        // Prefetch the record 16 updates ahead and the bodies 8 updates ahead (the
        // record was requested 8 updates earlier, so reading its body ids is cheap).
        if k + PREFETCH_RECORD < n {
            prefetch(&hot[order[k + PREFETCH_RECORD] as usize], record_lines);
        }
        if k + PREFETCH_BODIES < n {
            let c = &hot[order[k + PREFETCH_BODIES] as usize];
            let (i, j) = (c.body1 as usize, c.body2 as usize);
            prefetch(&vel[i], 1);
            prefetch(&vel[j], 1);
            prefetch(&mob[i], 2);
            prefetch(&mob[j], 2);
        }
        let a = order[k] as usize;
        if !solved.is_empty() && solved[a] {
            continue;
        }
        let c = &mut hot[a];
        let (p, dp) = if L::COUPLES {
            let (p, dp, q, dq) = update6(law, c, &mut couples[a], vel, mob);
            if track {
                // The couples enter the local criterion (eq. 35) like forces.
                monitor.record(q, dq);
            }
            (p, dp)
        } else {
            update(law, how, a, c, coupled, vel, mob)
        };
        if track {
            monitor.record(p, dp);
        }
    }
}
