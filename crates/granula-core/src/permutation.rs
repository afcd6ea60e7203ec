//! A permutation of the dense body indices of a [`BodySet`], to store the
//! bodies in another order (for instance along a space-filling curve, so that bodies close
//! in space are close in memory) while their handles stay the same.

use crate::error::{CoreError, Result};

/// A new order of `n` bodies: the body at dense index `k` after the permutation is the body
/// at dense index [`Permutation::source`]`(k)` before it.
///
/// ```
/// use granula_core::Permutation;
///
/// # fn main() -> Result<(), granula_core::CoreError> {
/// let p = Permutation::from_sources(vec![2, 0, 1])?;
/// let mut column = vec!['a', 'b', 'c'];
/// p.apply(&mut column);
/// assert_eq!(column, ['c', 'a', 'b']);
/// p.inverse().apply(&mut column);
/// assert_eq!(column, ['a', 'b', 'c']);
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Permutation {
    /// Old dense index of each new one.
    source: Vec<u32>,
}

impl Permutation {
    /// The identity on `n` bodies.
    pub fn identity(n: usize) -> Self {
        Permutation { source: (0..n as u32).collect() }
    }

    /// The permutation whose new index `k` holds the old index `source[k]`; every index
    /// `0..source.len()` must appear once (the error names the first repeated or missing
    /// index).
    pub fn from_sources(source: Vec<u32>) -> Result<Self> {
        let n = source.len();
        let mut seen = vec![false; n];
        for (k, &s) in source.iter().enumerate() {
            let s = s as usize;
            if s >= n || seen[s] {
                return Err(CoreError::InvalidWorld {
                    field: "permutation",
                    value: format!("source index {s} at position {k} of {n}"),
                    expected: "each dense index 0..n exactly once",
                });
            }
            seen[s] = true;
        }
        Ok(Permutation { source })
    }

    /// Number of bodies it orders.
    pub fn len(&self) -> usize {
        self.source.len()
    }

    /// `true` for the permutation of no body.
    pub fn is_empty(&self) -> bool {
        self.source.is_empty()
    }

    /// `true` when every body keeps its index.
    pub fn is_identity(&self) -> bool {
        self.source.iter().enumerate().all(|(k, &s)| s as usize == k)
    }

    /// The old dense index of the body at new index `k`.
    #[inline]
    pub fn source(&self, k: usize) -> usize {
        self.source[k] as usize
    }

    /// The old dense index of every new one, in new order.
    pub fn sources(&self) -> &[u32] {
        &self.source
    }

    /// The permutation that undoes this one.
    pub fn inverse(&self) -> Self {
        let mut source = vec![0; self.source.len()];
        for (k, &s) in self.source.iter().enumerate() {
            source[s as usize] = k as u32;
        }
        Permutation { source }
    }

    /// Reorders a per-body column (`column[k]` ← old `column[source(k)]`). A column of
    /// another length is left as it is and `false` returned: per-body columns that are
    /// empty until used (a solver's scratch) need no reordering. Allocates one column.
    pub fn apply<T: Clone>(&self, column: &mut Vec<T>) -> bool {
        if column.len() != self.source.len() {
            return false;
        }
        let reordered: Vec<T> = self.source.iter().map(|&s| column[s as usize].clone()).collect();
        *column = reordered;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::{PlaneBuilder, Prescribed, SphereBuilder};
    use crate::body_set::BodySet;
    use crate::handle::BodyHandle;
    use crate::material::{Material, MaterialTable};
    use crate::math::{DQuat, DVec3};

    /// Every column of body `i`, formatted: two bodies with the same text carry the same
    /// bits (f64 `Debug` prints the shortest text that reads back to the same value).
    fn body_text(b: &BodySet, i: usize) -> String {
        format!(
            "{:?}",
            (
                b.handle[i],
                (b.position[i], b.orientation[i], b.velocity[i], b.angular_velocity[i]),
                (b.force[i], b.torque[i], b.external_force[i], b.external_torque[i]),
                (b.mass[i], b.inv_mass[i], b.inertia[i], b.inv_inertia[i]),
                (&b.shape[i], b.radius[i], b.material[i], b.motion[i], &b.drive[i], b.locked[i]),
            )
        )
    }

    /// A plane, a kinematic sphere and five dynamic spheres, every column distinct.
    fn bodies() -> BodySet {
        let mut materials = MaterialTable::new();
        materials.add(Material::default()).unwrap();
        let mut b = BodySet::default();
        b.insert(&PlaneBuilder::new(DVec3::ZERO, DVec3::Z).build().unwrap(), &materials, false).unwrap();
        let driven = SphereBuilder::new(0.02, DVec3::new(0.0, 0.0, 1.0))
            .kinematic(Prescribed::Constant(DVec3::X), Prescribed::Constant(DVec3::Y))
            .build()
            .unwrap();
        b.insert(&driven, &materials, false).unwrap();
        for k in 1..=5 {
            let x = k as f64;
            let s = SphereBuilder::new(0.01 * x, DVec3::new(x, -x, 0.5 * x))
                .velocity(DVec3::new(0.1 * x, 0.2, -0.3))
                .angular_velocity(DVec3::new(0.0, x, 1.0))
                .orientation(DQuat::from_rotation_z(0.1 * x))
                .external_force(DVec3::new(0.0, 0.0, x))
                .build()
                .unwrap();
            b.insert(&s, &materials, false).unwrap();
        }
        for i in 0..b.len() {
            b.force[i] = DVec3::splat(i as f64 + 0.5);
            b.torque[i] = DVec3::splat(-(i as f64) - 0.25);
        }
        b
    }

    #[test]
    fn a_permutation_moves_every_column_and_keeps_every_handle() {
        let mut b = bodies();
        let before: Vec<String> = (0..b.len()).map(|i| body_text(&b, i)).collect();
        let version = b.structure_version();
        let p = Permutation::from_sources(vec![4, 0, 6, 2, 5, 1, 3]).unwrap();
        b.permute(&p).unwrap();
        assert!(b.structure_version() > version);
        for k in 0..b.len() {
            // The body at the new index is the old one, column for column, bit for bit.
            assert_eq!(body_text(&b, k), before[p.source(k)]);
            assert_eq!(b.index(b.handle[k]).unwrap(), k);
        }
        b.permute(&p.inverse()).unwrap();
        let after: Vec<String> = (0..b.len()).map(|i| body_text(&b, i)).collect();
        assert_eq!(after, before);
        // The handle order of the first permutation, asked back from the restored set.
        let order: Vec<BodyHandle> = p.sources().iter().map(|&s| BodyHandle(s)).collect();
        assert_eq!(b.permutation_to(&order).unwrap(), p);
    }

    #[test]
    fn bad_permutations_are_refused_with_the_index_at_fault() {
        let e = Permutation::from_sources(vec![0, 2, 2]).unwrap_err().to_string();
        assert!(e.contains("source index 2 at position 2"), "{e}");
        let e = Permutation::from_sources(vec![0, 3, 1]).unwrap_err().to_string();
        assert!(e.contains("source index 3"), "{e}");
        let mut b = bodies();
        let e = b.permute(&Permutation::identity(3)).unwrap_err().to_string();
        assert!(e.contains("3 indices for 7 bodies"), "{e}");
        let e = b.permutation_to(&[BodyHandle(0)]).unwrap_err().to_string();
        assert!(e.contains("1 handles for 7 bodies"), "{e}");
    }
}
