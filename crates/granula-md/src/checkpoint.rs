//! Checkpoints of the MD solver's own state: what the next step depends on besides the
//! bodies, so that a fresh solver continues a restored world bit-identically.

use crate::error::MdError;
use crate::points::PointState;
use crate::solver::MdSolver;
use granula_broadphase::VerletState;
use granula_core::{
    BodyHandle, BodySet, Broadphase, ContactKey, ContactLaw, CoreError, DQuat, DVec3, Integrator, IntegratorState,
    PeriodicDomain, World,
};
use serde::{Deserialize, Serialize};

/// The state an [`MdSolver`] carries from one step to the next, beyond the bodies.
///
/// - the candidate-pair list in its order, as the keys ([`ContactKey`], body handles,
///   feature 0) of the pairs, with the contact history `H` of the law and the elastic
///   energy each sphere pair stored at the last step (it becomes sliding dissipation when
///   the contact opens);
/// - the contact points of the other pairs at the last step, each with its pair, feature,
///   history and stored energy;
/// - the skin layer's state ([`VerletState`]: reference boxes and skip flags of the last
///   rebuild, its raw pair list, counters) and each body's position at the last rebuild
///   (the spheres' displacement criterion): the next rebuild happens at the same step as
///   in the uninterrupted run;
/// - the integrator's memory ([`Integrator::save_state`]);
/// - the power of the kinematic bodies at the end of the last step (the trapezoidal rule of
///   their work uses it);
/// - each body's orientation at the last force evaluation, from which the next step's
///   rotation increments (002 eq. 15) are measured;
/// - whether the solver was primed (had evaluated the forces of the current body set),
///   the body handles and material count it was primed for;
/// - the rebuild count at the last reorder of the bodies and the number of reorders
///   ([`MdConfig::reorder_every`](crate::MdConfig::reorder_every)): the next reorder comes
///   at the same step as in the uninterrupted run. The bodies' dense order itself is the
///   world's: a world restored in its insertion order is brought back to the saved order by
///   `world.reorder_bodies(&world.bodies.permutation_to(&state.primed_handles)?)`
///   before [`MdSolver::restore_state`].
///
/// - the world's periodic domain when the state was saved, Lees-Edwards shear included: the
///   sheared candidates, the image velocities and the rebuilds the offset forces depend on
///   it, so a state is restored only into a world with the same domain (the offset itself
///   is a function of the world's clock, restored with the world).
///
/// The candidate list and the skin state are saved, not rebuilt at the restore: a rebuild
/// at another step than in the uninterrupted run keeps another set of candidate pairs, and
/// the set fixes the blocks of the force pass, hence the order in which each body's forces
/// are summed, and so the last bits of every force (measured: a rebuild forced at the
/// restore changed the state of 13 of 15 configurations after a few thousand steps).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MdState<H> {
    /// Keys of the candidate pairs, in the candidate list's order.
    pub keys: Vec<ContactKey>,
    /// Contact histories, aligned with `keys`.
    pub histories: Vec<H>,
    /// Elastic energy stored by each contact at the last step (J), aligned with `keys`.
    pub stored: Vec<f64>,
    /// The contact points of the pairs that are not two spheres, as (position of the pair
    /// in `keys`, point), in list order and, within a pair, by increasing feature.
    pub points: Vec<(u32, PointState<H>)>,
    /// The integrator's memory.
    pub integrator: IntegratorState,
    /// Power of the kinematic bodies at the end of the last step (W).
    pub kinematic_power: f64,
    /// Orientation of each body at the last force evaluation, in the bodies' dense order
    /// (empty for a solver that has not stepped yet: the restored orientations are used).
    pub orientations: Vec<DQuat>,
    /// The skin layer's state.
    pub broadphase: VerletState,
    /// Position of each body at the last rebuild of the candidate list, in dense order.
    pub reference_position: Vec<DVec3>,
    /// The solver had evaluated the forces of the body set `primed_handles` with
    /// `primed_materials` materials; `false` for a solver that has not stepped yet or was
    /// invalidated ([`MdSolver::invalidate`]).
    pub primed: bool,
    /// Handles of the bodies, in dense order, when the solver was primed. A world restored
    /// with other bodies (bodies removed after the saved step) makes the restored solver
    /// start afresh at its next step, as the saving solver would have.
    pub primed_handles: Vec<BodyHandle>,
    /// Number of materials when the solver was primed.
    pub primed_materials: usize,
    /// Rebuild count of the candidate list when the bodies were last reordered (`None`:
    /// never).
    pub last_reorder: Option<u64>,
    /// Reorders of the bodies so far.
    pub reorders: u64,
    /// The world's periodic domain (axes and Lees-Edwards shear) at the save; `None` in
    /// states written before it was saved (then not checked; checked only for a primed
    /// state, the others start afresh).
    #[serde(default)]
    pub periodic: Option<PeriodicDomain>,
}

impl<L: ContactLaw, I: Integrator, B: Broadphase> MdSolver<L, I, B> {
    /// The solver's state for a checkpoint (see [`MdState`]). Taken after a step, with the
    /// world saved at the same time (bodies may have been removed since the step).
    pub fn save_state(&self) -> MdState<L::History>
    where
        L::History: Serialize + for<'de> Deserialize<'de>,
    {
        MdState {
            keys: self.store.keys().to_vec(),
            histories: self.points.without_points(self.store.states()),
            stored: self.points.without_points(self.stored_energy.states()),
            points: self.points.flatten(self.store.states(), self.stored_energy.states()).collect(),
            integrator: self.integrator.save_state(),
            kinematic_power: self.kinematic_power,
            orientations: self.prev_orientation.clone(),
            broadphase: self.verlet.save_state(),
            reference_position: self.reference_position.clone(),
            primed: self.primed_version.is_some(),
            primed_handles: self.primed_handles.clone(),
            primed_materials: self.primed_materials,
            last_reorder: self.last_reorder,
            reorders: self.reorders,
            periodic: Some(self.periodic),
        }
    }

    /// Restores a state from [`MdSolver::save_state`] into a solver built like the one that
    /// saved it, for `world` restored to the saving time (same bodies and handles). The next
    /// step then equals the saving solver's next step bit for bit: it does not re-evaluate
    /// the forces at the restored state (the integrator's memory holds what it needs), and
    /// it continues with the saved candidate list and skin state. If the saving solver was
    /// not primed for `world`'s bodies (it never stepped, was invalidated, or bodies were
    /// removed after its last step), the next step starts afresh, as the saving solver's
    /// would have. An inconsistent state (lengths, unknown bodies, a candidate list that the
    /// solver could not have built) is refused and the error says what is wrong.
    pub fn restore_state(&mut self, state: &MdState<L::History>, world: &World) -> Result<(), MdError>
    where
        L::History: Serialize + for<'de> Deserialize<'de>,
    {
        let bodies = &world.bodies;
        let primed =
            state.primed && state.primed_handles == bodies.handle && state.primed_materials == world.materials.len();
        let saved = SavedLists::of(state);
        check_values(&saved, bodies, primed)?;
        if let Some(saved) = state.periodic.filter(|d| primed && *d != world.periodic) {
            return Err(invalid(
                "MD solver state: periodic domain",
                format!("{saved:?} saved, {:?} in the world", world.periodic),
                "the world's periodic axes and shear",
            ));
        }
        // Dense index pairs of the saved candidates, in list order (only if primed: else the
        // keys may name bodies removed since, and the next step rebuilds the list anyway).
        let dense = if primed {
            saved_candidates(&saved, bodies)?
        } else {
            if let Some(k) = state.keys.iter().find(|k| k.body1 >= k.body2) {
                return Err(invalid("MD solver state: contact key", format!("{k:?}"), "body 1 of smaller handle"));
            }
            Vec::new()
        };
        // The law's pair parameters for the world's materials; an error leaves the rest of
        // the solver as it was.
        self.sync_pair_parameters(&world.materials, true)?;
        self.integrator.restore_state(&state.integrator, bodies)?;
        // The world's periodic axes first: setting them marks the skin layer stale, which
        // the restored skin state then overrides.
        self.follow_periodic(world.periodic);
        if primed {
            self.verlet.restore_state(&state.broadphase).map_err(|e| CoreError::InvalidWorld {
                field: "MD solver state",
                value: e.to_string(),
                expected: "a consistent skin layer",
            })?;
        }
        self.max_range = self.law_margin(&world.materials);
        let (law, materials) = (&self.law, &world.materials);
        let margin = |i: usize, j: usize| law.range(materials.pair(bodies.material[i], bodies.material[j]));
        // The image shifts come from the positions at the last rebuild (primed states only;
        // otherwise the list is empty and the next step rebuilds it).
        let rebuild_position = if primed { &state.reference_position } else { &bodies.position };
        let narrowphase = world.narrowphase();
        self.pairs.restore(
            bodies,
            materials,
            narrowphase,
            dense.iter().copied(),
            &world.periodic,
            rebuild_position,
            &margin,
        );
        // Lengths were checked above, so both restores succeed. Without priming, keys of
        // removed bodies are dropped by the next step's rebuild, as in the saving solver.
        let _ = self.store.restore(state.keys.clone(), state.histories.clone());
        let _ = self.stored_energy.restore(state.keys.clone(), state.stored.clone());
        self.points.restore(state.keys.len(), &state.points, self.store.states_mut(), self.stored_energy.states_mut());
        self.lay_out_blocks(bodies);
        self.kinematic_power = state.kinematic_power;
        self.last_reorder = state.last_reorder;
        self.reorders = state.reorders;
        // A state saved before any step has no orientations: the next rotations are then
        // measured from the restored ones.
        let prev = if state.orientations.is_empty() || !primed { &bodies.orientation } else { &state.orientations };
        self.prev_orientation.clone_from(prev);
        self.rotation.clear();
        self.rotation.resize(bodies.len(), DVec3::ZERO);
        if primed {
            self.reference_position.clone_from(&state.reference_position);
            self.primed_version = Some(bodies.structure_version());
            self.primed_materials = world.materials.len();
            self.primed_handles.clone_from(&bodies.handle);
        } else {
            // Only the counters carry over; the next step rebuilds the list.
            let fresh = VerletState {
                stale: true,
                rebuilds: state.broadphase.rebuilds,
                updates: state.broadphase.updates,
                ..VerletState::default()
            };
            // An empty state is consistent.
            let _ = self.verlet.restore_state(&fresh);
            self.primed_version = None;
        }
        Ok(())
    }
}

/// The error for a saved `field` whose `value` is not what was `expected`.
fn invalid(field: &'static str, value: String, expected: &'static str) -> MdError {
    CoreError::InvalidWorld { field, value, expected }.into()
}

/// What the checks of a saved state read, whatever its history type (checked by functions
/// compiled once, not once per law): its lists but the histories, of which only the count,
/// and its points as (pair, feature, stored energy).
struct SavedLists<'a> {
    keys: &'a [ContactKey],
    histories: usize,
    stored: &'a [f64],
    points: Vec<(u32, u32, f64)>,
    kinematic_power: f64,
    orientations: &'a [DQuat],
    reference_position: &'a [DVec3],
    reference_boxes: usize,
}

impl<'a> SavedLists<'a> {
    fn of<H>(state: &'a MdState<H>) -> Self {
        SavedLists {
            keys: &state.keys,
            histories: state.histories.len(),
            stored: &state.stored,
            points: state.points.iter().map(|(pair, p)| (*pair, p.feature, p.stored)).collect(),
            kinematic_power: state.kinematic_power,
            orientations: &state.orientations,
            reference_position: &state.reference_position,
            reference_boxes: state.broadphase.reference.len(),
        }
    }
}

/// The lengths and finiteness of a saved state's values: one history and stored energy
/// per key, finite energies and powers, and (for a state `primed` for `bodies`) one
/// orientation per body or none.
fn check_values(state: &SavedLists<'_>, bodies: &BodySet, primed: bool) -> Result<(), MdError> {
    let n = state.keys.len();
    if state.histories != n || state.stored.len() != n {
        return Err(invalid(
            "MD solver state",
            format!("{n} keys, {} histories, {} stored energies", state.histories, state.stored.len()),
            "one history and one stored energy per key",
        ));
    }
    if let Some(e) = state.stored.iter().chain(state.points.iter().map(|p| &p.2)).find(|e| !e.is_finite()) {
        return Err(invalid("MD solver state: stored energy", format!("{e}"), "finite"));
    }
    let order = |p: &(u32, u32, f64)| (p.0, p.1);
    if let Some(w) = state.points.windows(2).find(|w| order(&w[0]) >= order(&w[1])) {
        return Err(invalid(
            "MD solver state: contact points",
            format!("pair and feature {:?} then {:?}", order(&w[0]), order(&w[1])),
            "sorted by pair, then feature, without duplicates",
        ));
    }
    if let Some(p) = state.points.iter().find(|p| p.0 as usize >= n) {
        return Err(invalid("MD solver state: contact points", format!("pair {}", p.0), "a pair of the list"));
    }
    if !state.kinematic_power.is_finite() {
        return Err(invalid("MD solver state: kinematic power", format!("{}", state.kinematic_power), "finite"));
    }
    // Without priming, the next step starts afresh and measures rotations from the
    // orientations it starts from: the saved ones (of the bodies before a removal,
    // perhaps) are not used.
    if primed && !state.orientations.is_empty() && state.orientations.len() != bodies.len() {
        return Err(invalid(
            "MD solver state: orientations",
            format!("{} orientations for {} bodies", state.orientations.len(), bodies.len()),
            "one orientation per body, or none",
        ));
    }
    if let Some(q) = state.orientations.iter().find(|q| !q.is_finite()) {
        return Err(invalid("MD solver state: orientations", format!("{q}"), "finite"));
    }
    Ok(())
}

/// The saved candidate list of a primed state as dense index pairs of `bodies`, in list
/// order, after checking the skin reference and that the list is one the solver could have
/// built (known bodies, body 1 of smaller handle, feature 0, not two non-dynamic bodies,
/// sorted without duplicates, contact points on pairs that are not two spheres).
fn saved_candidates(state: &SavedLists<'_>, bodies: &BodySet) -> Result<Vec<(usize, usize)>, MdError> {
    if state.reference_position.len() != bodies.len() || state.reference_boxes != bodies.len() {
        return Err(invalid(
            "MD solver state: skin reference",
            format!(
                "{} positions and {} boxes for {} bodies",
                state.reference_position.len(),
                state.reference_boxes,
                bodies.len()
            ),
            "one of each per body",
        ));
    }
    if let Some(x) = state.reference_position.iter().find(|x| !x.is_finite()) {
        return Err(invalid("MD solver state: skin reference position", format!("{x}"), "finite"));
    }
    let mut dense = Vec::with_capacity(state.keys.len());
    for k in state.keys {
        let (i, j) = match (bodies.index(k.body1), bodies.index(k.body2)) {
            (Ok(i), Ok(j)) => (i, j),
            (Err(_), _) => return Err(CoreError::NoSuchBody { handle: k.body1 }.into()),
            (_, Err(_)) => return Err(CoreError::NoSuchBody { handle: k.body2 }.into()),
        };
        if k.body1 >= k.body2 || k.feature != 0 || (bodies.inv_mass[i] == 0.0 && bodies.inv_mass[j] == 0.0) {
            return Err(invalid(
                "MD solver state: candidate pair",
                format!("{k:?}"),
                "body 1 of smaller handle, feature 0, not two non-dynamic bodies",
            ));
        }
        dense.push((i.min(j), i.max(j)));
    }
    let spheres = |(i, j): (usize, usize)| bodies.radius[i].is_finite() && bodies.radius[j].is_finite();
    if let Some(p) = state.points.iter().find(|p| spheres(dense[p.0 as usize])) {
        return Err(invalid(
            "MD solver state: contact points",
            format!("a point of feature {} on the sphere pair {:?}", p.1, state.keys[p.0 as usize]),
            "points on pairs that are not two spheres only",
        ));
    }
    if let Some(w) = dense.windows(2).find(|w| w[0] >= w[1]) {
        return Err(invalid(
            "MD solver state: candidate list",
            format!("dense pairs and features {:?} then {:?}", w[0], w[1]),
            "sorted ascending without duplicates",
        ));
    }
    Ok(dense)
}
