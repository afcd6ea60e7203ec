//! Fixed-length arrays read strictly. A vector key such as `position = [x, y, z]` must have
//! exactly its number of entries: an array with more or fewer is refused with the count
//! found (serde's own reading of `[T; N]` stops after N entries and would drop the rest
//! unread). Used through `#[serde(deserialize_with = "...")]` on the schema's fields; the
//! planar scene schema of `granula-run` uses them too.
//!
//! The error reads "invalid length 4, expected an array of exactly 3 entries"; the scene
//! readers add the key and line.

use serde::de::{Deserialize, Deserializer, Error, IgnoredAny, SeqAccess, Visitor};
use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;

/// An array of exactly `N` entries.
struct Exact<T, const N: usize>([T; N]);

struct ExactVisitor<T, const N: usize>(PhantomData<T>);

impl<'de, T: Deserialize<'de>, const N: usize> Visitor<'de> for ExactVisitor<T, N> {
    type Value = Exact<T, N>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "an array of exactly {N} entries")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::with_capacity(N);
        while items.len() < N {
            match seq.next_element::<T>()? {
                Some(x) => items.push(x),
                None => return Err(A::Error::invalid_length(items.len(), &self)),
            }
        }
        // Entries beyond N are counted (whatever their type) so the message says how many
        // the array has.
        let mut found = N;
        while seq.next_element::<IgnoredAny>()?.is_some() {
            found += 1;
        }
        if found != N {
            return Err(A::Error::invalid_length(found, &self));
        }
        match items.try_into() {
            Ok(a) => Ok(Exact(a)),
            Err(_) => Err(A::Error::invalid_length(found, &self)),
        }
    }
}

impl<'de, T: Deserialize<'de>, const N: usize> Deserialize<'de> for Exact<T, N> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_seq(ExactVisitor::<T, N>(PhantomData))
    }
}

/// `[T; N]` from an array of exactly `N` entries.
pub fn array<'de, D: Deserializer<'de>, T: Deserialize<'de>, const N: usize>(d: D) -> Result<[T; N], D::Error> {
    Exact::<T, N>::deserialize(d).map(|e| e.0)
}

/// `Option<[T; N]>`: as [`array()`] when the key is present (the field needs
/// `#[serde(default)]` to be optional).
pub fn option_array<'de, D: Deserializer<'de>, T: Deserialize<'de>, const N: usize>(
    d: D,
) -> Result<Option<[T; N]>, D::Error> {
    Option::<Exact<T, N>>::deserialize(d).map(|o| o.map(|e| e.0))
}

/// `Vec<[T; N]>`: a list of arrays, each of exactly `N` entries.
pub fn vec_of_arrays<'de, D: Deserializer<'de>, T: Deserialize<'de>, const N: usize>(
    d: D,
) -> Result<Vec<[T; N]>, D::Error> {
    Vec::<Exact<T, N>>::deserialize(d).map(|v| v.into_iter().map(|e| e.0).collect())
}

/// `Option<Vec<[T; N]>>`: as [`vec_of_arrays`] when the key is present (the field needs
/// `#[serde(default)]` to be optional).
pub fn option_vec_of_arrays<'de, D: Deserializer<'de>, T: Deserialize<'de>, const N: usize>(
    d: D,
) -> Result<Option<Vec<[T; N]>>, D::Error> {
    Option::<Vec<Exact<T, N>>>::deserialize(d).map(|o| o.map(|v| v.into_iter().map(|e| e.0).collect()))
}

/// `BTreeMap<String, [T; N]>`: a table whose values are arrays of exactly `N` entries.
pub fn map_of_arrays<'de, D: Deserializer<'de>, T: Deserialize<'de>, const N: usize>(
    d: D,
) -> Result<BTreeMap<String, [T; N]>, D::Error> {
    BTreeMap::<String, Exact<T, N>>::deserialize(d).map(|m| m.into_iter().map(|(k, e)| (k, e.0)).collect())
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    struct V {
        #[serde(deserialize_with = "super::array")]
        v: [f64; 3],
    }

    #[test]
    fn only_exactly_n_entries_are_read() {
        assert_eq!(toml::from_str::<V>("v = [1.0, 2.0, 3.0]").unwrap().v, [1.0, 2.0, 3.0]);
        for (text, n) in [("v = [1.0, 2.0, 3.0, inf]", 4), ("v = [0, 0, -9.81, nan, \"x\"]", 5), ("v = [1.0]", 1)] {
            let e = toml::from_str::<V>(text).unwrap_err().message().to_string();
            assert!(e.starts_with(&format!("invalid length {n}, expected an array of exactly 3")), "{text}: {e}");
        }
    }
}
