//! Per-body integrator state keyed by dense index, kept in step with the body set.

use granula_core::{BodyHandle, BodySet, DVec3, IntegratorState, Permutation};

/// A column of per-body values aligned with the dense indices of a [`BodySet`].
///
/// When [`BodySet::structure_version`] changes (insertion or removal), the column is remapped
/// by handle: surviving bodies keep their value, new ones get a fresh value. This allocates
/// only on a structural change.
#[derive(Clone, Debug, Default)]
pub(crate) struct PerBody<T> {
    /// Values by dense index.
    pub values: Vec<T>,
    handles: Vec<BodyHandle>,
    version: Option<u64>,
}

impl<T: Copy> PerBody<T> {
    /// Brings the column in step with `bodies`; `fresh(i)` makes the value of a body that the
    /// column has not seen. Returns `true` when anything was (re)initialised.
    pub fn sync(&mut self, bodies: &BodySet, mut fresh: impl FnMut(usize) -> T) -> bool {
        let version = bodies.structure_version();
        if self.version == Some(version) && self.values.len() == bodies.len() {
            return false;
        }
        let mut old: Vec<(BodyHandle, T)> = self.handles.iter().copied().zip(self.values.iter().copied()).collect();
        old.sort_unstable_by_key(|e| e.0);
        self.values.clear();
        self.handles.clear();
        for i in 0..bodies.len() {
            let h = bodies.handle[i];
            let v = match old.binary_search_by_key(&h, |e| e.0) {
                Ok(k) => old[k].1,
                Err(_) => fresh(i),
            };
            self.values.push(v);
            self.handles.push(h);
        }
        self.version = Some(version);
        true
    }
}

impl<T: Clone> PerBody<T> {
    /// Follows a reorder of `bodies` by `permutation` (applied to them just before): the
    /// values and their handles move alike, with no remapping by handle. If the column then
    /// names the bodies in their new order, it is in step with them; otherwise (it was not
    /// in step before the reorder, or does not hold one value per body) it is left to the
    /// remapping by handle of the next [`PerBody::sync`], which gives the same values.
    pub fn permute(&mut self, permutation: &Permutation, bodies: &BodySet) {
        if self.values.len() == permutation.len() && self.handles.len() == permutation.len() {
            permutation.apply(&mut self.values);
            permutation.apply(&mut self.handles);
            if self.version.is_some() && self.handles == bodies.handle {
                self.version = Some(bodies.structure_version());
            }
        }
    }
}

impl<T> PerBody<T> {
    /// The value of the body at dense index `i`, if the column is in step with `bodies`
    /// (synced since their last structural change).
    pub fn get_in_step(&self, bodies: &BodySet, i: usize) -> Option<&T> {
        self.in_step(bodies).then(|| self.values.get(i)).flatten()
    }

    /// [`PerBody::get_in_step`], to write.
    pub fn get_mut_in_step(&mut self, bodies: &BodySet, i: usize) -> Option<&mut T> {
        if self.in_step(bodies) {
            self.values.get_mut(i)
        } else {
            None
        }
    }

    fn in_step(&self, bodies: &BodySet) -> bool {
        self.version == Some(bodies.structure_version()) && self.values.len() == bodies.len()
    }
}

impl<T: Copy + Default> PerBody<T> {
    /// The column as an [`IntegratorState`] named `name`, each value written by
    /// `write(value, out)`, with `scalars`.
    pub fn save(&self, name: &str, scalars: Vec<f64>, mut write: impl FnMut(&T, &mut Vec<f64>)) -> IntegratorState {
        let mut per_body = Vec::new();
        for v in &self.values {
            write(v, &mut per_body);
        }
        IntegratorState { name: name.to_string(), handles: self.handles.clone(), per_body, scalars }
    }

    /// Replaces the column by the values of `state`, `width` f64 per body read by `read`.
    /// The column is remapped by handle to the body set at the next
    /// [`PerBody::sync`] (bodies absent from the state then start fresh), so it does not
    /// depend on the set's structure version.
    pub fn restore(&mut self, state: &IntegratorState, width: usize, read: impl Fn(&[f64]) -> T) -> bool {
        if state.per_body.len() != width * state.handles.len() {
            return false;
        }
        self.handles = state.handles.clone();
        self.values = state.per_body.chunks_exact(width.max(1)).map(read).collect();
        self.values.resize(self.handles.len(), T::default());
        self.version = None;
        true
    }
}

/// Appends the three components of `v`.
pub(crate) fn push_vec(out: &mut Vec<f64>, v: DVec3) {
    out.extend_from_slice(&[v.x, v.y, v.z]);
}

/// The vector at `s[3k..3k + 3]`.
pub(crate) fn read_vec(s: &[f64], k: usize) -> DVec3 {
    DVec3::new(s[3 * k], s[3 * k + 1], s[3 * k + 2])
}

/// A column of (linear, angular) vectors as an [`IntegratorState`] (6 values per body).
pub(crate) fn save_pairs(column: &PerBody<(DVec3, DVec3)>, name: &str) -> IntegratorState {
    column.save(name, Vec::new(), |(a, b), out| {
        push_vec(out, *a);
        push_vec(out, *b);
    })
}

/// Restores [`save_pairs`]'s column, checking the writer's `name`.
pub(crate) fn restore_pairs(
    column: &mut PerBody<(DVec3, DVec3)>,
    name: &str,
    state: &IntegratorState,
) -> Result<(), granula_core::CoreError> {
    if state.name != name || !state.scalars.is_empty() {
        return Err(state.mismatch("the state of the same integrator"));
    }
    if !column.restore(state, 6, |s| (read_vec(s, 0), read_vec(s, 1))) {
        return Err(state.mismatch("6 per-body values (linear and angular acceleration) per handle"));
    }
    Ok(())
}
