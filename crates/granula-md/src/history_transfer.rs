//! Contact histories handed from one solver to another of the same law, and a solver
//! re-seated on a rebuilt body set without a fresh start.
//!
//! A distributed run (crate `granula-mpi`) gives each process its own world and solver.
//! When bodies migrate between processes, each process rebuilds its world with other
//! bodies; the solver would then start afresh at its next step (a priming force pass at
//! the current velocities, histories kept only for the pairs it still holds). Instead:
//!
//! - [`MdSolver::export_histories`] lists every history the solver holds, keyed by body
//!   handles, with its stored elastic energy;
//! - [`MdSolver::adopt_body_set`] takes the rebuilt world and the histories of its pairs
//!   (keyed by the new handles), keeps the contact loads already in the world's force and
//!   torque columns (the integrator's memory is restored by the caller), and rebuilds its
//!   candidate list at the next step, as after any Verlet-skin rebuild. The next step does
//!   not prime: it continues the dynamics of the bodies as they were.

use crate::error::MdError;
use crate::points::PointState;
use crate::solver::MdSolver;
use granula_core::{Broadphase, ContactKey, ContactLaw, CoreError, DVec3, Integrator, World};
use serde::{Deserialize, Serialize};

/// One contact history out of a solver: the pair and feature it belongs to (bodies by
/// handle, body 1 of smaller handle), the law's history and the elastic energy it stored at
/// the last step (J).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct TransferredHistory<H> {
    /// The pair (bodies by handle) and the feature of the contact point.
    pub key: ContactKey,
    /// The law's history.
    pub history: H,
    /// Elastic energy stored at the last step (J).
    pub stored: f64,
}

impl<L: ContactLaw, I: Integrator, B: Broadphase> MdSolver<L, I, B> {
    /// Every history the solver holds: the sphere pairs of the candidate list (in contact
    /// or not; feature 0) and the contact points of the other pairs, in candidate order.
    pub fn export_histories(&self) -> Vec<TransferredHistory<L::History>> {
        let (histories, stored) = (self.store.states(), self.stored_energy.states());
        let mut out = Vec::with_capacity(self.store.len());
        for (k, key) in self.store.keys().iter().enumerate() {
            let spheres = self.pairs.candidates.get(k).is_some_and(|c| c.kind == crate::pairs::PairKind::Spheres);
            if spheres {
                let stored = stored.get(k).copied().unwrap_or(0.0);
                out.push(TransferredHistory { key: *key, history: histories[k], stored });
                continue;
            }
            for p in self.points.points_of(k, &histories[k], stored.get(k).copied().unwrap_or(0.0)) {
                out.push(TransferredHistory {
                    key: ContactKey { feature: p.feature, ..*key },
                    history: p.history,
                    stored: p.stored,
                });
            }
        }
        out
    }

    /// Re-seats the solver on `world`, whose body set was rebuilt since the solver's last
    /// step, with the contact histories of its pairs (`histories`, keyed by `world`'s
    /// handles; a pair of two spheres by feature 0, a point of another pair by its feature).
    ///
    /// The world's force and torque columns must hold the contact loads of the last
    /// evaluation and the integrator must hold its memory for the new bodies (restored by
    /// the caller through [`Integrator::restore_state`]): the next step then predicts from
    /// them, rebuilds its candidate list (histories carried by key) and goes on as after a
    /// skin rebuild. The rotation increments of 002 eq. 15 are measured from the world's
    /// orientations (the velocity Verlet integrator leaves the orientation unchanged in its
    /// correction, so they are the orientations of the last force evaluation).
    ///
    /// Refused, with the key at fault: a history naming a body not in `world`, body 1 not
    /// of the smaller handle, two histories with the same key, a sphere pair with another
    /// feature than 0, or a non-finite stored energy.
    pub fn adopt_body_set(
        &mut self,
        world: &World,
        mut histories: Vec<TransferredHistory<L::History>>,
    ) -> Result<(), MdError> {
        let bodies = &world.bodies;
        histories.sort_unstable_by_key(|h| h.key);
        let bad = |key: ContactKey, expected: &'static str| -> MdError {
            CoreError::InvalidWorld { field: "transferred contact history", value: format!("{key:?}"), expected }.into()
        };
        if let Some(w) = histories.windows(2).find(|w| w[0].key == w[1].key) {
            return Err(bad(w[0].key, "one history per key"));
        }
        let mut keys: Vec<ContactKey> = Vec::new();
        let mut sphere_states: Vec<L::History> = Vec::new();
        let mut sphere_stored: Vec<f64> = Vec::new();
        let mut points: Vec<(u32, PointState<L::History>)> = Vec::new();
        let mut dense: Vec<(usize, usize)> = Vec::new();
        if let Some(w) = bodies.handle.windows(2).find(|w| w[0] >= w[1]) {
            return Err(CoreError::InvalidWorld {
                field: "body handles",
                value: format!("{:?} before {:?}", w[0], w[1]),
                expected: "increasing with the dense index (a world built by insertions only)",
            }
            .into());
        }
        for h in &histories {
            let (i, j) = match (bodies.index(h.key.body1), bodies.index(h.key.body2)) {
                (Ok(i), Ok(j)) => (i, j),
                _ => return Err(bad(h.key, "bodies of the world")),
            };
            if h.key.body1 >= h.key.body2 {
                return Err(bad(h.key, "body 1 of smaller handle"));
            }
            if bodies.inv_mass[i] == 0.0 && bodies.inv_mass[j] == 0.0 {
                return Err(bad(h.key, "a pair with a dynamic body"));
            }
            if !h.stored.is_finite() {
                return Err(bad(h.key, "a finite stored energy"));
            }
            let pair = ContactKey { feature: 0, ..h.key };
            if keys.last() != Some(&pair) {
                keys.push(pair);
                dense.push((i, j));
                sphere_states.push(L::History::default());
                sphere_stored.push(0.0);
            }
            let k = keys.len() - 1;
            if bodies.radius[i].is_finite() && bodies.radius[j].is_finite() {
                if h.key.feature != 0 {
                    return Err(bad(h.key, "feature 0 for a pair of spheres"));
                }
                sphere_states[k] = h.history;
                sphere_stored[k] = h.stored;
            } else {
                points.push((k as u32, PointState { feature: h.key.feature, history: h.history, stored: h.stored }));
            }
        }
        self.sync_pair_parameters(&world.materials, true)?;
        self.max_range = self.law_margin(&world.materials);
        let n = keys.len();
        // Both restores have one state per key by construction.
        let _ = self.stored_energy.restore(keys.clone(), sphere_stored);
        let _ = self.store.restore(keys, sphere_states);
        self.points.restore(n, &points, self.store.states_mut(), self.stored_energy.states_mut());
        // The candidate list of the histories' pairs, aligned with the store; the next step
        // rebuilds it from the skin layer (histories carried by key).
        let (law, materials) = (&self.law, &world.materials);
        let margin = |i: usize, j: usize| law.range(materials.pair(bodies.material[i], bodies.material[j]));
        let narrowphase = world.narrowphase();
        self.pairs.restore(
            bodies,
            materials,
            narrowphase,
            dense.iter().copied(),
            &world.periodic,
            &bodies.position,
            &margin,
        );
        self.lay_out_blocks(bodies);
        self.verlet.invalidate();
        self.reference_position.clone_from(&bodies.position);
        self.prev_orientation.clone_from(&bodies.orientation);
        self.rotation.clear();
        self.rotation.resize(bodies.len(), DVec3::ZERO);
        self.primed_version = Some(bodies.structure_version());
        self.primed_materials = world.materials.len();
        self.primed_handles.clone_from(&bodies.handle);
        Ok(())
    }
}
