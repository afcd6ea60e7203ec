//! Per-body integrator state keyed by dense index, kept in step with the body set.

use granula_core::{BodyHandle, BodySet};

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
